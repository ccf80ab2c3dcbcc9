"""`/realms`: Enchanted Realms attacks, single-die rolls, stealth, spells, rerolls, odds and the
traits a GM gives (the reroll: docs/players/realms.md, "Rules notes")."""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.access import loaded_cog
from bot.anywhere import anywhere, anywhere_group
from bot.asker import Asker
from bot.buttons import (
    Reroller,
    RollButton,
    register_latest_only,
    register_reroll,
    retire_buttons,
    roll_buttons,
)
from bot.client import DiceBot
from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP, ID_PATTERN, choices_of
from bot.publish import Roll, deliver_roll, publish_roll, roll_command
from bot.render import realms as render
from bot.render.realms_odds import AttackQuery, attack_odds, check_odds
from bot.storage import Storage, Visibility
from bot.storage.realms import NotLatestRoll, RerollLog, TraitStore
from bot.storage.rolls import LoggedRoll, RollEntry
from rules import realms
from rules.choices import parse_choice
from rules.randomness import Rng
from rules.realms import (
    CheckKind,
    Force,
    RerollableResult,
    RollKind,
    SingleDie,
    SpellKind,
    Trait,
)
from rules.realms.states import DAMAGE_DICE_MAX, DAMAGE_SIDES

Sources = app_commands.Range[int, 0, realms.SOURCES_MAX]
AttackDice = app_commands.Range[int, 1, realms.ATTACK_DICE_MAX]
ToHit = app_commands.Range[int, realms.TO_HIT_MIN, realms.TO_HIT_MAX]
Target = app_commands.Range[int, 1, realms.TARGET_MAX]
Damage = app_commands.Range[str, 1, realms.DAMAGE_TEXT_MAX]
Split = app_commands.Range[str, 1, 40]
SOURCE_HELP = {
    "advantage": "Sources of advantage (any number is one advantage; a mix cancels)",
    "disadvantage": "Sources of disadvantage (never stack; any mix cancels)",
}
FORCE_HELP = "GMs only: force advantage or disadvantage, whatever the sources (a specific effect)"
ATTACK_HELP = {
    "dice": f"d20s in the attack, 1–{realms.ATTACK_DICE_MAX} (each is a strike)",
    "to_hit": "The number each d20 must reach (a natural 20 always hits)",
    "damage": (
        f"Each hit's damage, like 1d8+1 or 2d6+1d4-1: up to {DAMAGE_DICE_MAX} dice, "
        f"d{DAMAGE_SIDES[0]} to d{DAMAGE_SIDES[-1]}"
    ),
    "split": "Strikes per target, like 2,1 (default: all on one target)",
    "primary": "The primary attack (default); false for a secondary one (off-hand, opportunity): "
    "no ±2 damage",
}
ODDS_FORCE_HELP = "Force advantage or disadvantage, as a GM may (anyone may ask the odds)"


def decide(
    advantage: int, disadvantage: int, force: str | None, asker: Asker | None = None
) -> realms.Decision:
    """Return the state of the sources, or the one ``force`` imposes: a GM's roll only (with no
    ``asker``, odds: anyone may ask what a forced roll would do)."""
    forced = None if force is None else parse_choice(Force, force, "force")
    if forced is not None and asker is not None:
        asker.require_gm("force advantage or disadvantage (a specific effect the GM rules on)")
    return realms.decide(advantage, disadvantage, forced)


@dataclass(frozen=True, slots=True, kw_only=True)
class AttackOptions:
    """`/realms attack`'s options, as logged (a die's reroll reads ``damage``; Roll again all)."""

    dice: int
    to_hit: int
    damage: str
    split: str | None = None
    advantage: int = 0
    disadvantage: int = 0
    primary: bool = True
    force: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckOptions:
    """`/realms check`'s options, as logged for Roll again."""

    die: str
    target: int | None = None
    kind: str = CheckKind.CHECK.value
    advantage: int = 0
    disadvantage: int = 0
    force: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StealthOptions:
    """`/realms stealth`'s options, as logged for Roll again."""

    dice: int
    advantage: int = 0
    disadvantage: int = 0
    force: str | None = None


Options = AttackOptions | CheckOptions | StealthOptions


def _again(run: Callable[..., Awaitable[None]], options_type: type[Options]) -> Reroller:
    """Return what Roll again runs: the command's body with the options the roll logged, as
    secret as it was (a roll logged before Roll again existed here is refused)."""

    def reroll(
        interaction: discord.Interaction, options: Mapping[str, Any], seen: Visibility
    ) -> Awaitable[None]:
        try:
            asked = options_type(**options)
        except TypeError:
            raise CommandError(
                "This roll can't be rolled again; use its command instead."
            ) from None
        return run(interaction, asked, seen)

    return reroll


@anywhere_group
class RealmsCog(commands.GroupCog, group_name="realms", group_description="Enchanted Realms"):
    """Enchanted Realms: the extra or lost die."""

    trait = app_commands.Group(name="trait", description="Traits a GM gives (the reroll)")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.rerolls = RerollLog(bot.storage.database)
        self.traits = TraitStore(bot.storage.database)
        for kind, reroller in {
            RollKind.ATTACK: _again(self.run_attack, AttackOptions),
            RollKind.CHECK: _again(self.run_check, CheckOptions),
            RollKind.STEALTH: _again(self.run_stealth, StealthOptions),
        }.items():
            register_reroll(bot, kind.value, reroller)
            register_latest_only(kind.value)  # die rerolls are for the latest roll only

    async def _publish(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        roll: Roll,
        visibility: Visibility,
    ) -> None:
        """Publish a roll with its die buttons (not under a blind one, nor for a roller who may not
        reroll: the reroll is a trait in a campaign) and Roll again; a natural 20 is in its title,
        never announced apart (docs/players/index.md, "Buttons and announcements")."""
        buttons = None
        if (
            visibility is not Visibility.BLIND
            and isinstance(roll.result, RerollableResult)
            and (await self._may_reroll(asker, asker.user_id)).allowed
        ):
            dice = roll.result.dice  # a blind roll's roller may not see its dice on buttons

            def buttons(roll_id: int) -> list[DieButton]:
                return [DieButton(roll_id, n, face) for n, face in enumerate(dice, start=1)]

        await publish_roll(
            interaction, self.storage, asker, roll, visibility, extra_buttons=buttons
        )

    @roll_command
    @anywhere
    @app_commands.command(name="attack", description="Attack: every d20 a strike, ±2 per target")
    @app_commands.describe(
        **ATTACK_HELP, **SOURCE_HELP, force=FORCE_HELP, hidden=HIDDEN_HELP, blind=BLIND_HELP
    )
    @app_commands.choices(force=choices_of(Force))
    async def attack(
        self,
        interaction: discord.Interaction,
        dice: AttackDice,
        to_hit: ToHit,
        damage: Damage,
        split: Split | None = None,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        hidden: bool | None = None,
        blind: bool = False,
        primary: bool = True,
        force: str | None = None,
    ) -> None:
        options = AttackOptions(
            dice=dice, to_hit=to_hit, damage=damage, split=split, advantage=advantage,
            disadvantage=disadvantage, primary=primary, force=force,
        )  # fmt: skip
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_attack(interaction, options, visibility)

    async def run_attack(
        self,
        interaction: discord.Interaction,
        options: AttackOptions,
        visibility: Visibility,
    ) -> None:
        """Attack: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        expression = realms.parse_damage(options.damage)
        decision = decide(options.advantage, options.disadvantage, options.force, asker)
        result = realms.attack(
            self.bot.rng, options.dice, options.to_hit, expression, decision, options.split,
            options.primary,
        )  # fmt: skip
        embed = render.attack(result, interaction.user.display_name)
        roll = Roll(RollKind.ATTACK.value, result, embed, options=asdict(options))
        await self._publish(interaction, asker, roll, visibility)

    @roll_command
    @anywhere
    @app_commands.command(
        name="check",
        description=(
            "One die (save, check, competition…); at advantage or disadvantage two, "
            "the higher or lower kept"
        ),
    )
    @app_commands.describe(
        die="The die (saves, checks, stealth and concentration: d20; competitions: d12)",
        target="The number to reach (optional)",
        kind="save, check, competition, reaction, stealth or concentration (as a save)",
        **SOURCE_HELP,
        force=FORCE_HELP,
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    @app_commands.choices(
        die=choices_of(SingleDie), kind=choices_of(CheckKind), force=choices_of(Force)
    )
    async def check(
        self,
        interaction: discord.Interaction,
        die: str,
        target: Target | None = None,
        kind: str = CheckKind.CHECK.value,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        hidden: bool | None = None,
        blind: bool = False,
        force: str | None = None,
    ) -> None:
        options = CheckOptions(
            die=die, target=target, kind=kind, advantage=advantage, disadvantage=disadvantage,
            force=force,
        )  # fmt: skip
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_check(interaction, options, visibility)

    async def run_check(
        self,
        interaction: discord.Interaction,
        options: CheckOptions,
        visibility: Visibility,
    ) -> None:
        """A single-die roll: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        single = parse_choice(SingleDie, options.die, "die")
        chosen = parse_choice(CheckKind, options.kind, "kind")
        decision = decide(options.advantage, options.disadvantage, options.force, asker)
        result = realms.check(self.bot.rng, single, chosen, decision, options.target)
        embed = render.check(result, interaction.user.display_name)
        roll = Roll(RollKind.CHECK.value, result, embed, options=asdict(options))
        await self._publish(interaction, asker, roll, visibility)

    @roll_command
    @anywhere
    @app_commands.command(name="stealth", description="The d6 pool that sets the Awareness target")
    @app_commands.describe(
        dice=f"d6 in the pool, 1–{realms.STEALTH_DICE_MAX}",
        **SOURCE_HELP,
        force=FORCE_HELP,
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    @app_commands.choices(force=choices_of(Force))
    async def stealth(
        self,
        interaction: discord.Interaction,
        dice: app_commands.Range[int, 1, realms.STEALTH_DICE_MAX],
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        hidden: bool | None = None,
        blind: bool = False,
        force: str | None = None,
    ) -> None:
        options = StealthOptions(
            dice=dice, advantage=advantage, disadvantage=disadvantage, force=force
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_stealth(interaction, options, visibility)

    async def run_stealth(
        self,
        interaction: discord.Interaction,
        options: StealthOptions,
        visibility: Visibility,
    ) -> None:
        """The stealth pool: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        decision = decide(options.advantage, options.disadvantage, options.force, asker)
        result = realms.stealth(self.bot.rng, options.dice, decision)
        embed = render.stealth(result, interaction.user.display_name)
        roll = Roll(RollKind.STEALTH.value, result, embed, options=asdict(options))
        await self._publish(interaction, asker, roll, visibility)

    @anywhere
    @app_commands.command(name="spell", description="A spell at advantage or disadvantage")
    @app_commands.describe(
        kind="incantation (spirit cost ∓1) or axiom (oversiphoning or casting time)",
        cost=f"An incantation's spirit cost, 0–{realms.SPELL_COST_MAX}",
        **SOURCE_HELP,
        force=FORCE_HELP,
    )
    @app_commands.choices(kind=choices_of(SpellKind), force=choices_of(Force))
    async def spell(
        self,
        interaction: discord.Interaction,
        kind: str,
        cost: app_commands.Range[int, 0, realms.SPELL_COST_MAX] | None = None,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        force: str | None = None,
    ) -> None:
        chosen = parse_choice(SpellKind, kind, "kind")
        asker = await Asker.of(interaction, self.storage)
        decision = decide(advantage, disadvantage, force, asker)
        result = realms.spell(chosen, decision, cost)
        await interaction.response.send_message(
            embed=render.spell(result, interaction.user.display_name)
        )

    @roll_command
    @anywhere
    @app_commands.command(
        name="reroll", description="Reroll exactly one die of your latest roll here (once)"
    )
    @app_commands.describe(position="Which die, counting from 1 as the roll shows them")
    async def reroll(
        self, interaction: discord.Interaction, position: app_commands.Range[int, 1, 21]
    ) -> None:
        await self.reroll_die(interaction, position)

    async def reroll_die(
        self, interaction: discord.Interaction, position: int, roll_id: int | None = None
    ) -> None:
        """Reroll one die of the asker's latest roll here: typed, or pressed under roll
        ``roll_id`` (which must be that latest roll; its message is edited into the reroll)."""
        asker = await Asker.of(interaction, self.storage)
        roller = interaction.user.display_name

        def apply(logged: LoggedRoll) -> RollEntry:
            # The reroll is as secret as the roll it changes (a blind roll stays blind).
            roll = _rerolled(self.bot.rng, logged, position, roller)
            return roll.entry(asker, logged.visibility)

        def permit(roller_id: int | None, holds: bool) -> None:
            # In the reroll's transaction: a trait taken meanwhile refuses it.
            if roller_id is None:
                return  # no such roll: refused below, as a roll no longer the latest
            permission = _may_reroll(asker, roller_id, holds)
            if permission.allowed:
                return
            if roller_id != asker.user_id and roll_id is not None:
                raise _only_its_roller(roller_id, roll_id)
            raise CommandError(_refusal(asker, permission))

        kinds = tuple(kind.value for kind in RollKind)
        typed = roll_id is None  # the rerolled roll's message keeps its die buttons: take them
        campaign_id = None if asker.campaign is None else asker.campaign.id
        with _owner_named(asker):
            rerolled, new_id = await self.rerolls.reroll(
                asker.channel_id, asker.user_id, kinds, apply, roll_id,
                campaign_id=campaign_id, permit=permit,
            )  # fmt: skip
        await self._show_reroll(interaction, asker, new_id, edit=not typed)
        if typed:
            # The rerolled roll may still be being sent: its message id is stored once it is.
            await self.bot.shown_messages.until_shown(rerolled.id)
            await retire_buttons(
                interaction, self.storage, await self.storage.rolls.get(rerolled.id)
            )

    async def _may_reroll(self, asker: Asker, roller_id: int) -> realms.RerollPermission:
        """Whether ``asker`` may reroll a die of a roll of ``roller_id``'s here (the trait is
        read only where it decides: in a campaign, for a player)."""
        campaign = asker.campaign
        holds = (
            _in_realms_campaign(asker)
            and not asker.is_gm
            and campaign is not None
            and await self.traits.has_trait(campaign, asker.user_id, Trait.REROLL)
        )
        return _may_reroll(asker, roller_id, holds)

    async def _show_reroll(
        self, interaction: discord.Interaction, asker: Asker, roll_id: int, *, edit: bool
    ) -> None:
        """Deliver the logged reroll (``edit``: in place of the message whose button was
        pressed); it offers no die buttons: once per roll."""
        logged = await self.storage.rolls.get(roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.embed_data)
        view = roll_buttons(roll_id, logged.kind, logged.visibility)
        await deliver_roll(
            interaction, asker, roll_id, logged.visibility, embed, view=view, edit=edit
        )

    @trait.command(name="add", description="Give a player a trait in this campaign (GM only)")
    @app_commands.describe(
        user="The member who gets the trait", trait="The trait (reroll: one die of a roll, once)"
    )
    @app_commands.choices(trait=choices_of(Trait))
    async def trait_add(
        self, interaction: discord.Interaction, user: discord.User, trait: str = Trait.REROLL.value
    ) -> None:
        chosen = parse_choice(Trait, trait, "trait")
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign(realms.SYSTEM)
        asker.require_gm(f"give the {chosen.value} trait")
        await self.traits.grant_trait(campaign, user.id, chosen, asker.user_id)
        await interaction.response.send_message(render.trait_granted(user.id, chosen))

    @trait.command(name="remove", description="Take a trait from a player (GM only)")
    @app_commands.describe(user="The member who loses the trait", trait="The trait (reroll)")
    @app_commands.choices(trait=choices_of(Trait))
    async def trait_remove(
        self, interaction: discord.Interaction, user: discord.User, trait: str = Trait.REROLL.value
    ) -> None:
        chosen = parse_choice(Trait, trait, "trait")
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign(realms.SYSTEM)
        asker.require_gm(f"take the {chosen.value} trait")
        await self.traits.revoke_trait(campaign, user.id, chosen)
        await interaction.response.send_message(render.trait_revoked(user.id, chosen))

    @anywhere
    @app_commands.command(
        name="odds", description="Exact odds of a check or an attack, with a chart"
    )
    @app_commands.describe(
        die="Check: the die", target="Check: the number to reach",
        **ATTACK_HELP, **SOURCE_HELP, force=ODDS_FORCE_HELP,
    )  # fmt: skip
    @app_commands.choices(die=choices_of(SingleDie), force=choices_of(Force))
    async def odds(
        self,
        interaction: discord.Interaction,
        die: str | None = None,
        target: Target | None = None,
        dice: AttackDice | None = None,
        to_hit: ToHit | None = None,
        damage: Damage | None = None,
        split: Split | None = None,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        primary: bool = True,
        force: str | None = None,
    ) -> None:
        decision = decide(advantage, disadvantage, force)
        if damage is not None or dice is not None or to_hit is not None:
            query = AttackQuery.of(dice, to_hit, damage, split, primary)
            embed, png = await attack_odds(query, decision)
        else:
            embed, png = await check_odds(die, target, decision)
        await interaction.response.send_message(
            embed=embed, file=discord.File(io.BytesIO(png), filename="odds.png")
        )


def _rerolled(rng: Rng, logged: LoggedRoll, position: int, roller: str) -> Roll:
    """Return a logged roll with the die at ``position`` rerolled, shown over its old embed."""
    options = logged.options
    rerolled = realms.reroll_logged(rng, logged.decoded(), options, position)
    old = discord.Embed.from_dict(logged.embed_data)
    new = _render(rerolled.after, roller)
    embed = render.rerolled(old, new, position, rerolled.old_face, rerolled.new_face)
    return Roll(logged.kind, rerolled.after, embed, options=options)


def _render(result: RerollableResult, roller: str) -> discord.Embed:
    """Render a rerolled attack, check or stealth roll as its own command does."""
    if isinstance(result, realms.AttackResult):
        return render.attack(result, roller)
    if isinstance(result, realms.CheckResult):
        return render.check(result, roller)
    return render.stealth(result, roller)


class DieButton(
    RollButton, template=rf"realms:reroll:(?P<roll_id>{ID_PATTERN}):(?P<position>[0-9]{{1,2}})"
):
    """Under a public or hidden Realms roll, one per die: its roller rerolls that die (the
    reroll trait: one die, once), as `/realms reroll` does. Persistent: the roll id and the
    die's position are the custom_id."""

    def __init__(self, roll_id: int, position: int, face: int | None = None) -> None:
        shown = f" ({face})" if face is not None else ""
        super().__init__(
            roll_id,
            discord.ui.Button(
                label=f"Reroll die {position}{shown}",
                emoji="🔁",
                style=discord.ButtonStyle.secondary,
                custom_id=f"realms:reroll:{roll_id}:{position}",
            ),
        )
        self.position = position

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DieButton:
        return cls(int(match["roll_id"]), int(match["position"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        cog = loaded_cog(interaction, RealmsCog, RealmsCog.__cog_name__, realms.SYSTEM.display_name)
        await cog.reroll_die(interaction, self.position, self.roll_id)


def _may_reroll(asker: Asker, roller_id: int, holds_trait: bool) -> realms.RerollPermission:
    """The ruling (``rules.realms.may_reroll``) for ``asker`` and a roll of ``roller_id``'s."""
    return realms.may_reroll(
        in_campaign=_in_realms_campaign(asker),
        is_gm=asker.is_gm,
        holds_trait=holds_trait,
        is_own_roll=roller_id == asker.user_id,
    )


def _in_realms_campaign(asker: Asker) -> bool:
    """Whether the trait binds here: in an Enchanted Realms campaign. A `/realms` roll in another
    system's campaign is as one outside any (no trait can be given there, docs/players/realms.md,
    "Rules notes")."""
    return asker.campaign is not None and asker.campaign.system == realms.SYSTEM


def _refusal(asker: Asker, permission: realms.RerollPermission) -> str:
    """Why a player may not reroll their own roll here, and what to do."""
    return f"You can't reroll in this campaign yet; {permission.reason}."


def _only_its_roller(owner_id: int, roll_id: int) -> CommandError:
    """The refusal of a die button under someone else's roll, naming who may press it."""
    return CommandError(f"Only <@{owner_id}>, who made roll #{roll_id}, can reroll its dice.")


@contextmanager
def _owner_named(asker: Asker) -> Iterator[None]:
    """Refuse a die button under someone else's roll by naming who may press it."""
    try:
        yield
    except NotLatestRoll as error:
        if error.owner_id is not None and error.owner_id != asker.user_id:
            raise _only_its_roller(error.owner_id, error.roll_id) from None
        raise


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(DieButton)
    await bot.add_cog(RealmsCog(bot))
