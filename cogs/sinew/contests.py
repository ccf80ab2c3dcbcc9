"""`/sinew opposed` and `/sinew attack`: contests against a score or a player's character.

docs/players/sinew.md, "Rules notes". An attack on a player's character takes the damage from
its Stamina in the transaction that logs the roll, and a collapse is announced.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from functools import partial

import discord
from discord import app_commands

from bot.asker import Asker
from bot.errors import CommandError
from bot.options import CharacterName, choices_of
from bot.publish import Roll, StateChange, roll_command
from bot.render import sinew as render
from bot.storage import Campaign, Character, CharacterStore, Visibility
from cogs.sinew.common import (
    ATTACK_KIND,
    CONTEST_HELP,
    DEFENDER,
    NPC,
    OPPOSED_KIND,
    Armour,
    AttackOptions,
    ContestOptions,
    Sheet,
    TestScore,
    attribute_choices,
    contest_labels,
    member_id,
)
from cogs.sinew.luck import LuckCommands
from rules import sinew
from rules.choices import parse_choice


@dataclass(frozen=True, slots=True)
class Sides:
    """Both sides of a contest, the attacking character, and the defending one if a player's."""

    attacker: sinew.Contender
    defender: sinew.Contender
    who: Character[Sheet] | None  # None: an NPC attacks by its bare score
    target: Character[Sheet] | None = None

    @property
    def target_sheet(self) -> Sheet | None:
        """Return the defending character's sheet (None: a defender given by a score)."""
        return self.target.sheet if self.target is not None else None


class ContestCommands(LuckCommands):
    """Opposed rolls and attacks (with the roller's Luck buttons)."""

    @roll_command
    @app_commands.command(
        name="opposed", description="Roll under your attribute against a defender"
    )
    @app_commands.describe(**CONTEST_HELP)
    @app_commands.choices(attribute=attribute_choices(), vs_attribute=attribute_choices())
    async def opposed(
        self,
        interaction: discord.Interaction,
        attribute: str,
        vs_score: TestScore | None = None,
        vs_user: discord.Member | None = None,
        vs_attribute: str | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
        score: TestScore | None = None,
        vs_advantage: bool = False,
        vs_disadvantage: bool = False,
    ) -> None:
        options = ContestOptions(
            attribute=attribute,
            vs_score=vs_score,
            vs_user=member_id(vs_user),
            vs_attribute=vs_attribute,
            advantage=advantage,
            disadvantage=disadvantage,
            character=character,
            score=score,
            vs_advantage=vs_advantage,
            vs_disadvantage=vs_disadvantage,
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_opposed(interaction, options, visibility)

    async def run_opposed(
        self,
        interaction: discord.Interaction,
        options: ContestOptions,
        visibility: Visibility,
    ) -> None:
        """Roll an opposed test: the command and its Roll again button."""
        asker, campaign = await self._for_roll(interaction, visibility)
        sides = await self._contest_sides(asker, campaign, options)
        result = sinew.roll_opposed(self.bot.rng, sides.attacker, sides.defender)
        labels = contest_labels(
            options.attribute,
            options.vs_attribute,
            npc=sides.who is None,
            defender_npc=options.vs_score is not None,
        )
        embed = render.opposed(result, sides.attacker.name, sides.defender.name, labels=labels)
        roll = Roll(OPPOSED_KIND, result, embed, options=asdict(options))
        await self._publish_with_luck(
            interaction, asker, campaign, roll, sides.who, visibility, defender=sides.target
        )

    @roll_command
    @app_commands.command(
        name="attack", description="Attack: an opposed roll, then damage and soak"
    )
    @app_commands.describe(
        **CONTEST_HELP,
        edge="The weapon's edge: its bonus to damage",
        explosive="Explosive or plasma: ignores 1 point of armour",
        armour=(
            f"The defender's armour, {sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX} "
            "(default: the defending character's, else 0)"
        ),
    )
    @app_commands.choices(
        attribute=attribute_choices(),
        vs_attribute=attribute_choices(),
        edge=choices_of(sinew.Edge, lambda edge: f"{edge.value.capitalize()}: +{edge.bonus}"),
    )
    async def attack(
        self,
        interaction: discord.Interaction,
        attribute: str,
        edge: str,
        vs_score: TestScore | None = None,
        vs_user: discord.Member | None = None,
        vs_attribute: str | None = None,
        explosive: bool = False,
        armour: Armour | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
        score: TestScore | None = None,
        vs_advantage: bool = False,
        vs_disadvantage: bool = False,
    ) -> None:
        options = AttackOptions(
            attribute=attribute,
            edge=edge,
            vs_score=vs_score,
            vs_user=member_id(vs_user),
            vs_attribute=vs_attribute,
            explosive=explosive,
            armour=armour,
            advantage=advantage,
            disadvantage=disadvantage,
            character=character,
            score=score,
            vs_advantage=vs_advantage,
            vs_disadvantage=vs_disadvantage,
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_attack(interaction, options, visibility)

    async def run_attack(
        self,
        interaction: discord.Interaction,
        options: AttackOptions,
        visibility: Visibility,
    ) -> None:
        """Roll an attack (the command and Roll again); a defending character takes the damage."""
        asker, campaign = await self._for_roll(interaction, visibility)
        edge = parse_choice(sinew.Edge, options.edge, "edge")
        sides = await self._contest_sides(asker, campaign, options)
        result = sinew.roll_attack(
            self.bot.rng,
            sides.attacker,
            sides.defender,
            edge=edge,
            armour=sinew.attack_armour(options.armour, sides.target_sheet),
            explosive=options.explosive,
        )
        roll, change = self._attack_roll(result, sides, replace(options, edge=edge.value))
        await self._publish_with_luck(
            interaction, asker, campaign, roll, sides.who, visibility, change, defender=sides.target
        )

    def _attack_roll(
        self, result: sinew.AttackResult, sides: Sides, options: AttackOptions
    ) -> tuple[Roll, StateChange[Character[Sheet]] | None]:
        """Return an attack as it is logged and shown (``options`` with the edge as parsed), and
        the damage it does to a defending player's character."""
        labels = contest_labels(
            options.attribute,
            options.vs_attribute,
            npc=sides.who is None,
            defender_npc=options.vs_score is not None,
        )
        embed = render.attack(result, sides.attacker.name, sides.defender.name, labels=labels)
        roll = Roll(ATTACK_KIND, result, embed, options=asdict(options))
        return roll, _damage_change(self.characters, sides.target, result.damage_taken)

    async def _contest_sides(
        self, asker: Asker, campaign: Campaign, options: ContestOptions | AttackOptions
    ) -> Sides:
        """Return both sides of a contest, the attacking character, and the defending one if
        it is a player's."""
        if (options.vs_score is None) == (options.vs_user is None):
            raise CommandError(
                "Name the defender once: give `vs_score`, or `vs_user` with `vs_attribute`."
            )
        attacking = sinew.parse_attribute(options.attribute)
        who = await self._roller(asker, campaign, options.character, options.score)
        attacker = _attacker(who, attacking, options)
        if options.vs_user is None:
            return Sides(attacker, _score_defender(options), who)
        return await self._player_defender(campaign, options, attacker, who)

    async def _player_defender(
        self,
        campaign: Campaign,
        options: ContestOptions | AttackOptions,
        attacker: sinew.Contender,
        who: Character[Sheet] | None,
    ) -> Sides:
        """Return the sides when a player's character defends (``vs_user`` and its attribute)."""
        if options.vs_attribute is None:
            raise CommandError("With `vs_user`, say which attribute defends: `vs_attribute`.")
        defending = sinew.parse_attribute(options.vs_attribute)
        target = await self.characters.find(campaign, user_id=options.vs_user)
        if who is not None and target.id == who.id:
            raise CommandError("A character can't oppose itself; name another defender.")
        score = sinew.tested_score(target.sheet, defending)
        items = len(target.sheet.items)
        defender = sinew.contender(
            target.name,
            score,
            defending,
            advantage=options.vs_advantage,
            disadvantage=options.vs_disadvantage,
            items_carried=items,
        )
        return Sides(attacker, defender, who, target)


def _attacker(
    who: Character[Sheet] | None, attacking: sinew.Score, options: ContestOptions | AttackOptions
) -> sinew.Contender:
    """Return the attacking side: a character's attribute, or an NPC's bare score."""
    modes = {"advantage": options.advantage, "disadvantage": options.disadvantage}
    if who is None:
        assert options.score is not None
        return sinew.contender(NPC, options.score, attacking, **modes)
    score = sinew.tested_score(who.sheet, attacking)
    return sinew.contender(who.name, score, attacking, items_carried=len(who.sheet.items), **modes)


def _score_defender(options: ContestOptions | AttackOptions) -> sinew.Contender:
    """Return a defender given only by a score (a GM's NPC); ``vs_attribute``, if given, only
    names what the score stands for ("vs REF 11")."""
    assert options.vs_score is not None
    return sinew.contender(
        DEFENDER,
        options.vs_score,
        advantage=options.vs_advantage,
        disadvantage=options.vs_disadvantage,
    )


def _damage_change(
    characters: CharacterStore[Sheet], target: Character[Sheet] | None, damage: int
) -> StateChange[Character[Sheet]] | None:
    """Return the state change of an attack's hit on a player's character, collapse announced
    (None: no player's character is hurt)."""
    if target is None or damage <= 0:
        return None
    collapsed_now: list[bool] = []

    def hurt(sheet: Sheet) -> Sheet:
        taken = sinew.take_damage(sheet, damage)
        collapsed_now.append(taken.newly_collapsed)
        return taken.sheet

    def collapse(after: Character[Sheet]) -> discord.Embed | None:
        return render.collapse_announcement(after) if collapsed_now[-1] else None

    return StateChange(
        apply=partial(characters.update, target, hurt),
        show=render.add_defender_stamina,
        announce=collapse,
    )
