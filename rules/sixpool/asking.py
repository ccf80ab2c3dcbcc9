"""Six-pool d20 decisions around a roll: training, advantage, what is paid and used up.

README, "Rules notes" → "Six-pool d20": attacks always add proficiency, checks by the skill's
training and saves by the save's; help and inspiration both give advantage (one disadvantage
still cancels it) and help is used up by the helped character's next roll; contests use the
pool's Edge and spend but no training; a group check's leader boosts one ally.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.errors import RulesError
from rules.sixpool.characters import EdgeOption, Pool, Sheet, Situation, Training, spend
from rules.sixpool.rolls import Modifier, RollKind, modifiers

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
    "roll_modifiers",
    "training_for",
    "use_inspiration",
]

CONTEST_LABEL = "contest"  # what a contest's proficiency line would name: contests have none
BOOST_LABEL = "the leader's boost"


@dataclass(frozen=True, slots=True, kw_only=True)
class RollAsked:
    """What a check, attack or save asks, before the sheet is read."""

    kind: RollKind
    pool: Pool
    dc: int
    spend: int = 0
    skill: str | None = None
    situation: Situation = Situation.NORMAL
    advantage: bool = False
    disadvantage: bool = False
    inspiration: bool = False


def training_for(sheet: Sheet, asked: RollAsked) -> tuple[Training, str]:
    """Return the training that applies and what it is for (a skill, the save, the attack)."""
    if asked.kind is RollKind.SAVE:
        return sheet.save_training(asked.pool), f"{asked.pool} save"
    if asked.kind is RollKind.ATTACK:
        return Training.TRAINED, "attack"
    if asked.skill:
        return sheet.skill_training(asked.skill), asked.skill.strip().lower()
    return Training.UNTRAINED, "no skill"


def has_advantage(sheet: Sheet, asked: RollAsked) -> bool:
    """Return whether any source gives advantage: the option, an ally's help, or inspiration."""
    return asked.advantage or sheet.helped or asked.inspiration


def roll_modifiers(sheet: Sheet, asked: RollAsked, option: EdgeOption) -> tuple[Modifier, ...]:
    """Itemise what ``asked`` adds to the d20 for ``sheet`` (attacks always add proficiency)."""
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
    sheet: Sheet, asked: RollAsked, option: EdgeOption, *, boost: int = 0
) -> PreparedRoll:
    """Decide a roll: refuse inspiration not held or a spend not allowed, else what it adds.

    ``boost``: a group check leader's points on this roll (+1 each, no Edge B).
    """
    if asked.inspiration and not sheet.inspired:
        raise RulesError("You hold no inspiration to spend; a GM awards it.")
    parts = roll_modifiers(sheet, asked, option)
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
    """One side of a contest: what it adds to its d20 and its sheet after paying the spend."""

    parts: tuple[Modifier, ...]
    after: Sheet


def contest_side(sheet: Sheet, pool: Pool, points: int, option: EdgeOption) -> ContestSide:
    """Return a contestant's side: the pool's Edge and spend, no training; refuse a bad spend."""
    parts = modifiers(sheet, pool, Training.UNTRAINED, points, option, training_label=CONTEST_LABEL)
    return ContestSide(parts, spend(sheet, pool, points))


def opponent_modifier(value: int) -> tuple[Modifier, ...]:
    """Return an NPC opponent's side of a contest: one bare modifier."""
    return (Modifier("opponent's modifier", value),)
