"""Six-pool d20 decisions around a roll: training, advantage, what is paid and used up.

docs/players/sixpool.md, "Rules notes": attacks always add proficiency, checks and each side of a
contest by the named skill's training, saves by the save's; a skill the GM lists as trained-only
refuses an untrained roll; help and inspiration both give advantage (one disadvantage still cancels
it); help is used up by the helped character's next d20 roll of any kind, and inspiration may be
spent on any d20 roll of its holder (either side of a contest, a group-check roll); helping with a
skill needs training in it (a GM may always help); a group check's leader boosts one ally.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace

from rules.errors import RulesError
from rules.sixpool.characters import (
    EdgeOption,
    Pool,
    Sheet,
    Situation,
    Training,
    skill_name,
    spend,
)
from rules.sixpool.damage import parse_damage
from rules.sixpool.rolls import CONTEST_DC, Modifier, RollKind, modifiers
from rules.sixpool.skills import require_known_skill

__all__ = [
    "ContestSide",
    "PreparedRoll",
    "RollAsked",
    "award_inspiration",
    "contest_side",
    "has_advantage",
    "most_spendable",
    "opponent_modifier",
    "prepare_roll",
    "receive_help",
    "require_help_training",
    "require_training",
    "roll_modifiers",
    "training_for",
    "use_inspiration",
]

BOOST_LABEL = "the leader's boost"


@dataclass(frozen=True, slots=True, kw_only=True)
class RollAsked:
    """What a check, attack, save or contest side asks, before the sheet is read.

    ``damage``: an attack's damage expression, checked here (before anything is rolled or
    spent) and rolled when the attack hits.
    """

    kind: RollKind
    pool: Pool
    dc: int
    spend: int = 0
    skill: str | None = None
    situation: Situation = Situation.NORMAL
    advantage: bool = False
    disadvantage: bool = False
    inspiration: bool = False
    damage: str | None = None

    def __post_init__(self) -> None:
        if self.damage is not None:
            if self.kind is not RollKind.ATTACK:
                raise RulesError("`damage` goes with an attack.")
            parse_damage(self.damage)


def training_for(sheet: Sheet, asked: RollAsked) -> tuple[Training, str]:
    """Return the training that applies and what it is for (a skill, the save, the attack)."""
    if asked.kind is RollKind.SAVE:
        return sheet.save_training(asked.pool), f"{asked.pool} save"
    if asked.kind is RollKind.ATTACK:
        return Training.TRAINED, "attack"
    if asked.skill:
        return sheet.skill_training(asked.skill), skill_name(asked.skill)
    return Training.UNTRAINED, "no skill"


def has_advantage(sheet: Sheet, asked: RollAsked) -> bool:
    """Return whether any source gives advantage: the option, an ally's help, or inspiration."""
    return asked.advantage or sheet.helped or asked.inspiration


def require_training(
    sheet: Sheet, skill: str | None, trained_only: Collection[str], name: str = "You"
) -> None:
    """Refuse a skill nobody knows (``require_known_skill``) and an untrained roll in a skill the GM
    lists as trained-only (docs/players/sixpool.md)."""
    if not skill:
        return
    require_known_skill(sheet, skill, trained_only)
    if sheet.skill_training(skill) is not Training.UNTRAINED:
        return
    wanted = skill_name(skill)
    if wanted in trained_only:
        raise RulesError(
            f"Trained-only skill: {wanted} can't be attempted untrained in this campaign, and "
            f"{'you are' if name == 'You' else name + ' is'} untrained in it (the GM lists "
            "trained-only skills with `/sixpool trained_only`)."
        )


def require_help_training(helper: Sheet | None, skill: str | None, *, gm: bool) -> None:
    """Refuse help with a skill the helper is untrained in; a GM may always help
    (docs/players/sixpool.md)."""
    if gm or not skill:
        return
    if helper is None or helper.skill_training(skill) is Training.UNTRAINED:
        raise RulesError(
            f"Helping with {skill_name(skill)} needs training in it (a GM may always help); "
            "train it with `/sixpool character set`."
        )


def roll_modifiers(
    sheet: Sheet,
    asked: RollAsked,
    option: EdgeOption,
    trained_only: Collection[str] = (),
) -> tuple[Modifier, ...]:
    """Itemise what ``asked`` adds to the d20 for ``sheet`` (attacks always add proficiency);
    refuse an untrained roll in a trained-only skill."""
    require_training(sheet, asked.skill, trained_only)
    training, label = training_for(sheet, asked)
    return modifiers(
        sheet,
        asked.pool,
        training,
        asked.spend,
        option,
        training_label=label,
        always_proficient=asked.kind is RollKind.ATTACK,
    )


@dataclass(frozen=True, slots=True)
class PreparedRoll:
    """A roll decided before its dice: its modifiers, its advantage and the sheet after it.

    ``after`` has the spend paid, an ally's help used up and inspiration spent if asked.
    ``helped`` and ``inspired`` say where advantage came from (the reply names them).
    """

    parts: tuple[Modifier, ...]
    advantage: bool
    helped: bool
    inspired: bool
    after: Sheet


def prepare_roll(
    sheet: Sheet,
    asked: RollAsked,
    option: EdgeOption,
    *,
    boost: int = 0,
    trained_only: Collection[str] = (),
) -> PreparedRoll:
    """Decide a roll: refuse inspiration not held, a spend not allowed or an untrained roll in a
    trained-only skill, else what it adds. Inspiration and a spend may go on one roll.

    ``boost``: a group check leader's points on this roll (+1 each, no Edge B).
    """
    if asked.inspiration and not sheet.inspired:
        raise RulesError("You hold no inspiration to spend; a GM awards it.")
    parts = roll_modifiers(sheet, asked, option, trained_only)
    if boost:
        parts = (*parts, Modifier(BOOST_LABEL, boost))
    paid = spend(sheet, asked.pool, asked.spend)
    after = replace(paid, helped=False, inspired=sheet.inspired and not asked.inspiration)
    return PreparedRoll(parts, has_advantage(sheet, asked), sheet.helped, asked.inspiration, after)


def receive_help(sheet: Sheet) -> Sheet:
    """Return the sheet of a helped character: advantage on their next roll, whatever it is."""
    return replace(sheet, helped=True)


def use_inspiration(sheet: Sheet, name: str) -> Sheet:
    """Return the sheet with its inspiration spent (on a reroll), or refuse if none is held."""
    if not sheet.inspired:
        raise RulesError(f"{name} holds no inspiration to spend; a GM awards it.")
    return replace(sheet, inspired=False)


def award_inspiration(sheet: Sheet, name: str) -> Sheet:
    """Return the sheet holding inspiration, or refuse a second one (one at a time)."""
    if sheet.inspired:
        raise RulesError(
            f"{name} already holds inspiration: one at a time. "
            "It is spent for advantage with `inspiration: true`."
        )
    return replace(sheet, inspired=True)


def most_spendable(sheet: Sheet, pool: Pool) -> int:
    """Return the most points one roll may spend from ``pool``: Effort, and what is left."""
    return min(sheet.effort(pool), sheet.points(pool))


@dataclass(frozen=True, slots=True)
class ContestSide:
    """One side of a contest: what it adds to its d20, whether an ally's help or inspiration
    spent gives it advantage, and its sheet after paying the spend and using them up."""

    parts: tuple[Modifier, ...]
    after: Sheet
    helped: bool = False
    inspired: bool = False

    @property
    def advantage(self) -> bool:
        """Whether this side rolls with advantage: help or inspiration (never stacking)."""
        return self.helped or self.inspired


def contest_side(
    sheet: Sheet,
    pool: Pool,
    points: int,
    option: EdgeOption,
    *,
    skill: str | None = None,
    name: str = "You",
    trained_only: Collection[str] = (),
    inspiration: bool = False,
) -> ContestSide:
    """Return a contestant's side: proficiency and training for ``skill`` as a skill check adds
    them, the pool's Edge and spend; help used up, and inspiration if spent
    (docs/players/sixpool.md, "Rules notes": inspiration goes on any d20 roll). Refuse a bad spend,
    inspiration not held, or an untrained side in a trained-only skill."""
    if inspiration and not sheet.inspired:
        holder = "You hold" if name == "You" else f"{name} holds"
        raise RulesError(f"{holder} no inspiration to spend; a GM awards it.")
    require_training(sheet, skill, trained_only, name)
    asked = RollAsked(kind=RollKind.CONTEST, pool=pool, dc=CONTEST_DC, spend=points, skill=skill)
    parts = roll_modifiers(sheet, asked, option)
    paid = spend(sheet, pool, points)
    after = replace(paid, helped=False, inspired=sheet.inspired and not inspiration)
    return ContestSide(parts, after, sheet.helped, inspiration)


def opponent_modifier(value: int, label: str = "opponent's modifier") -> tuple[Modifier, ...]:
    """Return an NPC's side of a contest: one bare modifier (``label``: whose)."""
    return (Modifier(label, value),)
