"""Six-pool d20's rolls in the roll log: their kinds and how each reads (docs/development.md,
"Roll kinds").

The kept d20 plus the roll's modifiers is placed on that die's exact distribution (advantage keeps
the higher of two, disadvantage the lower); a take 10 or 20 rolled nothing and is not placed. A
roll's critical and fumble are the rule document's: a natural 20 or beating the DC by 10, a
natural 1 or missing it by 10 (``RollResult.critical``, ``fumble``). Each side of a contest is its
own roller's roll: it reads as that side, with whether it won, a natural 20 its critical.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules.declarations import SystemDeclaration
from rules.odds import Distribution, Keep, die, keep
from rules.roll_kinds import Placement, Reading, RollKind, Total
from rules.sixpool.characters import DIE_SIDES, EDGE_OPTION, SYSTEM
from rules.sixpool.rolls import Contestant, ContestResult, Mode, RollResult
from rules.sixpool.rolls import RollKind as Asked

__all__ = [
    "CONTEST_KIND",
    "DECLARATION",
    "GROUP_KIND",
    "ROLL_KINDS",
    "TAKE_KIND",
    "kind_of",
]

PREFIX = "sixpool."
TAKE_KIND = "sixpool.take"
GROUP_KIND = "sixpool.group"
CONTEST_KIND = "sixpool.contest"


def kind_of(asked: Asked) -> str:
    """The log's kind of a check, attack, save (or contest) as asked."""
    return PREFIX + asked.value


@lru_cache(maxsize=256)
def kept_die(mode: Mode, bonus: int) -> Distribution:
    """The kept d20 under its mode, plus the roll's modifiers."""
    if mode is Mode.ADVANTAGE:
        return keep(2, DIE_SIDES, 1, Keep.HIGHEST) + bonus
    if mode is Mode.DISADVANTAGE:
        return keep(2, DIE_SIDES, 1, Keep.LOWEST) + bonus
    return die(DIE_SIDES) + bonus


def _placement(roll: RollResult) -> Placement | None:
    if roll.take is not None:
        return None  # a take 10 / 20 rolled nothing
    return Placement(roll.total, kept_die, (roll.mode, roll.bonus))


def _roll(roll: RollResult) -> Reading:
    return Reading((Total(roll.total),), roll.success, roll.critical, roll.fumble,
                   placement=_placement(roll))  # fmt: skip


def _contest(contest: ContestResult) -> Reading:
    # A contest's sides are rolled at DC 0 (the totals compare): only the naturals are crits.
    own = contest.own
    totals = (Total(own.total), Total(contest.other.total))
    defending = contest.roller is Contestant.DEFENDER
    return Reading(totals, contest.roller_wins, own.natural_twenty, own.natural_one, contest=True,
                   defending=defending, placement=_placement(own))  # fmt: skip


def _roll_of(stored: Any) -> RollResult:
    return RollResult(**stored)


ROLL_KINDS: tuple[RollKind[Any], ...] = (
    *(RollKind(kind_of(one), _roll_of, _roll) for one in (Asked.CHECK, Asked.ATTACK, Asked.SAVE)),
    RollKind(TAKE_KIND, _roll_of, _roll),
    RollKind(GROUP_KIND, _roll_of, _roll),
    RollKind(CONTEST_KIND, ContestResult.from_dict, _contest),
)

DECLARATION = SystemDeclaration(system=SYSTEM, settings=(EDGE_OPTION,), roll_kinds=ROLL_KINDS)
