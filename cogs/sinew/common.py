"""What every part of `/sinew` shares: roll kinds, option types, groups, options, the base.

docs/players/sinew.md, "Rules notes". The commands are one cog (``cogs.sinew.SinewCog``) made of one
mixin per concern; this base holds the stores they use and the subcommand groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.asker import Asker
from bot.buttons import ShownMessages, refresh_latest_buttons
from bot.character_admin import CharacterAdmin
from bot.client import DiceBot
from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP
from bot.render import sinew_pressure as render_pressure
from bot.storage import Campaign, Character, CharacterStore, Storage, Visibility
from bot.storage.errors import CharacterNotFound, WhichCharacter
from bot.storage.sinew import DEFENDER_OPTION, NPC_SCORE_OPTION, LuckStore, PressureStore
from rules import sinew, sinew_pressure
from rules.sinew.kinds import (  # named once: the log and the recap read them there too
    ATTACK_KIND,
    LUCK_KIND,
    OPPOSED_KIND,
    RITE_KIND,
    TAMPER_KIND,
    TEST_KIND,
)

SCORE_HELP = f"{sinew.TEST_SCORE_MIN}–{sinew.TEST_SCORE_MAX}"
SPENDABLE_KINDS = (TEST_KIND, LUCK_KIND, OPPOSED_KIND, ATTACK_KIND)
CONTEST_KINDS = (OPPOSED_KIND, ATTACK_KIND)  # a defending player may spend on these too
PRESSURE_TEST_KINDS = (TAMPER_KIND, RITE_KIND)  # no Luck: their Pressure lands when rolled
COG_NAME = "SinewCog"  # the cog's name, as ``bot.get_cog`` finds it
DEFENDER = "Defender"  # a contest's defender named only by a score
NPC = "NPC"  # a test's or attacker's side named only by a score (the GM's NPC)

ItemName = app_commands.Range[str, 1, sinew.ITEM_NAME_MAX]
BoonText = app_commands.Range[str, 1, sinew.BOON_TEXT_MAX]
BoonNumber = app_commands.Range[int, 1, sinew.BOONS_MAX]
Reason = app_commands.Range[str, 1, sinew.LUCK_REASON_MAX]
Tokens = app_commands.Range[int, 1, sinew.Score.LCK.maximum]
TestScore = app_commands.Range[int, sinew.TEST_SCORE_MIN, sinew.TEST_SCORE_MAX]
Amount = app_commands.Range[int, 1, sinew.HEALTH_CHANGE_MAX]
PressureAmount = app_commands.Range[int, 1, sinew_pressure.AMOUNT_MAX]
Armour = app_commands.Range[int, sinew.ARMOUR_MIN, sinew.ARMOUR_MAX]
AttributeScore = app_commands.Range[int, sinew.Score.STR.minimum, sinew.Score.STR.maximum]
StaminaScore = app_commands.Range[int, sinew.Score.STA.minimum, sinew.Score.STA.maximum]
Sheet = sinew.Sheet

TEST_HELP = {
    "advantage": "Roll 2d20, keep the lower (cancels disadvantage)",
    "disadvantage": "Roll 2d20, keep the higher (cancels advantage)",
    "character": "GMs: roll for another character, by name",
    "hidden": HIDDEN_HELP,
}
NPC_TEST_HELP = f"GMs: roll for an NPC with this score, {SCORE_HELP}"
CONTEST_HELP = {
    "blind": BLIND_HELP,
    "attribute": "Your attribute (LCK rolls under your Luck tokens)",
    "vs_score": f"The defender's score, {SCORE_HELP} (or vs_user and vs_attribute)",
    "vs_user": "The defending player (their character's vs_attribute)",
    "vs_attribute": "The defending character's attribute (with vs_user)",
    "advantage": "You roll 2d20, keep the lower",
    "disadvantage": "You roll 2d20, keep the higher",
    "vs_advantage": "The defender rolls 2d20, keeps the lower (in cover)",
    "vs_disadvantage": "The defender rolls 2d20, keeps the higher (fighting blind)",
    "character": "GMs: the attacking character, by name (default: yours)",
    "score": f"GMs: an NPC attacker with this score, {SCORE_HELP}",
    "hidden": HIDDEN_HELP,
}

# The subcommand groups, shared by the mixins that add commands to them.
CHARACTER = app_commands.Group(
    name="character", description="Create, show, edit, rename, delete and give characters"
)
LUCK = app_commands.Group(name="luck", description="Luck tests")
ITEM = app_commands.Group(name="item", description="Substantial items carried")
BOON = app_commands.Group(name="boon", description="Boons: narrative gifts on a sheet")
PRESSURE = app_commands.Group(
    name="pressure", description="Pressure: the party's track and each character's (0-5)"
)


class _SheetDecision(Protocol):
    """A rule's result that carries the sheet after it (``RestResult``, ``MilestoneResult``)."""

    @property
    def sheet(self) -> Sheet: ...


Decided = TypeVar("Decided", bound=_SheetDecision)


def attribute_choices() -> list[app_commands.Choice[str]]:
    """Return the five tested attributes as choices."""
    return [
        app_commands.Choice(name=f"{score.value} ({score.display_name})", value=score.value.lower())
        for score in sinew.ATTRIBUTES
    ]


def score_choices() -> list[app_commands.Choice[str]]:
    """Return all six scores as choices."""
    return [
        app_commands.Choice(name=f"{score.value} ({score.display_name})", value=score.value.lower())
        for score in sinew.Score
    ]


def score_label(attribute: sinew.Score) -> str:
    """Return what a test of ``attribute`` is shown rolling under."""
    return "Luck tokens" if attribute is sinew.Score.LCK else attribute.value


def roller_label(attribute: sinew.Score, *, npc: bool) -> str:
    """Return what a roller is shown rolling under: an NPC's bare score is named after the
    attribute it stands for ("LCK 12"); a character's LCK test rolls under its tokens."""
    return attribute.value if npc else score_label(attribute)


def contest_labels(
    attribute: str, vs_attribute: str | None, *, npc: bool = False, defender_npc: bool = False
) -> tuple[str, str]:
    """Return what each side of a contest is shown rolling under: its attribute ("vs INT 14"),
    or "score" for a defender given by a bare score without the attribute it stands for
    (``npc``, ``defender_npc``: that side is an NPC's bare score, "vs REF 11")."""
    if vs_attribute is None:
        return roller_label(sinew.parse_attribute(attribute), npc=npc), "score"
    defender = roller_label(sinew.parse_attribute(vs_attribute), npc=defender_npc)
    return roller_label(sinew.parse_attribute(attribute), npc=npc), defender


@dataclass(frozen=True, slots=True, kw_only=True)
class TestOptions:
    """What `/sinew test` (and `/sinew tamper`) was asked; logged, so Roll again repeats it."""

    __test__ = False  # not a pytest test class

    attribute: str
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None
    score: int | None = None  # an NPC's bare score (GM), instead of a character


@dataclass(frozen=True, slots=True, kw_only=True)
class LuckTestOptions:
    """What `/sinew luck test` was asked."""

    character: str | None = None
    advantage: bool = False
    disadvantage: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ContestOptions:
    """What `/sinew opposed` was asked (the defending player by id, as the log keeps it)."""

    attribute: str
    vs_score: int | None = None
    vs_user: int | None = None
    vs_attribute: str | None = None
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None
    score: int | None = None  # the attacker is an NPC with this score (GM)
    vs_advantage: bool = False  # the defender's own mode (fighting blind…)
    vs_disadvantage: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class AttackOptions:
    """What `/sinew attack` was asked (``armour`` None: the defending character's)."""

    attribute: str
    edge: str
    vs_score: int | None = None
    vs_user: int | None = None
    vs_attribute: str | None = None
    explosive: bool = False
    armour: int | None = None
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None
    score: int | None = None  # the attacker is an NPC with this score (GM)
    vs_advantage: bool = False  # the defender's own mode (fighting blind…)
    vs_disadvantage: bool = False


assert NPC_SCORE_OPTION in TestOptions.__dataclass_fields__
assert NPC_SCORE_OPTION in ContestOptions.__dataclass_fields__
assert NPC_SCORE_OPTION in AttackOptions.__dataclass_fields__
assert DEFENDER_OPTION in ContestOptions.__dataclass_fields__
assert DEFENDER_OPTION in AttackOptions.__dataclass_fields__


def note_luck_shown(
    shown: ShownMessages,
    channel_id: int,
    roller_id: int,
    visibility: Visibility,
    *payers: Character[Sheet] | None,
) -> None:
    """Note that ``roller_id``'s public roll here shows Luck buttons that another player's
    character pays for (a defender's own; a GM's roll for a player's character): that player's
    changes and rolls re-derive it too (``ShownMessages.shows_buttons_of``)."""
    if visibility is not Visibility.PUBLIC:
        return
    for payer in payers:
        if payer is not None and payer.user_id != roller_id:
            shown.shows_buttons_of(channel_id, payer.user_id, roller_id)


def member_id(member: discord.Member | None) -> int | None:
    """Return a member option's id, as the roll log keeps it."""
    return member.id if member is not None else None


if TYPE_CHECKING:
    # The mixins' commands are a cog's (SinewCog), as discord.py's command decorators require;
    # at run time the base stays a plain class, so each mixin isn't made a cog of its own.
    _CogPart = commands.Cog
else:
    _CogPart = object


class SinewBase(_CogPart):
    """The stores and texts every `/sinew` mixin uses, and the subcommand groups."""

    character = CHARACTER
    luck = LUCK
    item = ITEM
    boon = BOON
    pressure = PRESSURE

    bot: DiceBot
    storage: Storage
    characters: CharacterStore[Sheet]
    admin: CharacterAdmin[Sheet]
    luck_store: LuckStore
    pressure_store: PressureStore
    texts: dict[sinew.Skin, render_pressure.Texts]

    async def _sinew_table(self, interaction: discord.Interaction) -> tuple[Asker, Campaign]:
        asker = await Asker.of(interaction, self.storage)
        return asker, asker.require_campaign(sinew.SYSTEM)

    async def _for_roll(
        self, interaction: discord.Interaction, visibility: Visibility
    ) -> tuple[Asker, Campaign]:
        """Return the asker's table and its Sinew campaign, refusing a visibility the asker
        may not roll (``Asker.may_roll``)."""
        asker, campaign = await self._sinew_table(interaction)
        asker.may_roll(visibility)
        return asker, campaign

    async def _roller(
        self, asker: Asker, campaign: Campaign, character: str | None, score: int | None
    ) -> Character[Sheet] | None:
        """Return the rolling character: the asker's, or the one named (GM); None for an NPC given
        by a bare ``score``, which only a GM may roll (docs/players/sinew.md, "The GM rolls NPCs by
        score")."""
        if score is None:
            return await asker.own_or_named(self.characters, campaign, character, "roll")
        asker.require_gm("roll for an NPC by `score`; players roll their characters")
        if character is not None:
            raise CommandError("Give `score` (an NPC) or `character`, not both.")
        return None

    async def _update(
        self, character: Character[Sheet], change: Callable[[Sheet], Sheet]
    ) -> tuple[Character[Sheet], Character[Sheet]]:
        changed = await self.characters.update(character, change)
        return changed.before, changed.after

    async def _decided(
        self, character: Character[Sheet], decide: Callable[[Sheet], Decided]
    ) -> tuple[Character[Sheet], Decided]:
        """Apply a rule that says what it changed (a rest's gains, a milestone's), in one
        transaction; return the character after it and the rule's own account of it."""
        decisions: list[Decided] = []

        def change(sheet: Sheet) -> Sheet:
            decisions.append(decide(sheet))
            return decisions[-1].sheet

        changed = await self.characters.update(character, change)
        return changed.after, decisions[-1]

    async def refresh_luck(
        self, interaction: discord.Interaction, *characters: Character[Sheet]
    ) -> None:
        """Derive anew the Luck buttons that ``characters``' tokens and Pressure price, after they
        changed: under their players' latest rolls here, the asker's (a GM rolling for one) and the
        contests they defend (docs/players/index.md, "Buttons and announcements")."""
        channel_id = interaction.channel_id
        for user_id in sorted({interaction.user.id, *(c.user_id for c in characters)}):
            assert channel_id is not None  # a Sinew table is a channel's campaign
            await refresh_latest_buttons(interaction, self.storage, channel_id, user_id)

    async def character_or_none(
        self, campaign: Campaign, user_id: int | None, name: str | None
    ) -> Character[Sheet] | None:
        """Return a character as ``CharacterStore.find`` does, or None when it is gone."""
        try:
            return await self.characters.find(campaign, user_id=user_id, name=name)
        except (CharacterNotFound, WhichCharacter):
            return None
