"""Sinew & Steel's rolls in the roll log: their kinds, how each reads, and the keys a Luck spend
adds to a payload. One definition for the cogs that log them, the storage that chains the spends,
and every reader of the log (docs/development.md, "Roll kinds").

Roll-under: the kept d20 as rolled (before any Luck shift) places a test, a lower one the luckier;
a natural 1 is the critical (an extraordinary success), a natural 20 the fumble (a catastrophe).
A contest reads as its attacker's test (the roller's), with whether the attack won.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rules.declarations import SystemDeclaration
from rules.odds import Distribution, Keep, die, keep
from rules.roll_kinds import Placement, Reading, RollKind, Total
from rules.sinew.combat import AttackResult, OpposedResult, Side
from rules.sinew.constants import (
    DIE_SIDES,
    LINGERING_TAINT,
    PRESSURE,
    SKIN,
    SYSTEM,
    TAMPER_STEP,
)
from rules.sinew.tests import Mode, TestResult

__all__ = [
    "ATTACK_KIND",
    "CRISIS_KIND",
    "DECLARATION",
    "LUCK_BY",
    "LUCK_KIND",
    "LUCK_ROOT",
    "OPPOSED_KIND",
    "RITE_KIND",
    "ROLL_KINDS",
    "TAMPER_KIND",
    "TEST_KIND",
]

TEST_KIND = "sinew.test"
LUCK_KIND = "sinew.luck_test"
OPPOSED_KIND = "sinew.opposed"
ATTACK_KIND = "sinew.attack"
TAMPER_KIND = "sinew.tamper"
RITE_KIND = "sinew.rite"
CRISIS_KIND = "sinew.crisis"  # a Crisis, logged beside the roll that brought it: not a roll

LUCK_ROOT = "luck_of"  # in a Luck spend's payload: the roll first spent on
LUCK_BY = "luck_by"  # in a defender's Luck spend: who spent (the entry is the roller's)


@lru_cache(maxsize=8)
def kept_die(mode: Mode) -> Distribution:
    """The kept d20's distribution: advantage keeps the lower of two, disadvantage the higher."""
    if mode is Mode.ADVANTAGE:
        return keep(2, DIE_SIDES, 1, Keep.LOWEST)
    if mode is Mode.DISADVANTAGE:
        return keep(2, DIE_SIDES, 1, Keep.HIGHEST)
    return die(DIE_SIDES)


def _test(test: TestResult, pressure: int = 0) -> Reading:
    placement = Placement(test.natural, kept_die, (test.mode,), higher_is_better=False)
    return Reading((Total(test.roll),), test.success, critical=test.natural_one,
                   fumble=test.natural_twenty, pressure=pressure, placement=placement)  # fmt: skip


def _tamper(test: TestResult) -> Reading:
    return _test(test, 0 if test.success else TAMPER_STEP)


def _contest(contest: OpposedResult, won: bool, note: str | None = None) -> Reading:
    attacker = _test(contest.attacker)
    totals = (Total(contest.attacker.roll), Total(contest.defender.roll))
    return Reading(totals, won, attacker.critical, attacker.fumble, contest=True, note=note,
                   placement=attacker.placement)  # fmt: skip


def _opposed(contest: OpposedResult) -> Reading:
    return _contest(contest, contest.winner is Side.ATTACKER)


def _attack(attack: AttackResult) -> Reading:
    return _contest(attack.contest, attack.hit, f"{attack.damage_taken} damage")


def _test_of(stored: Any) -> TestResult:
    return TestResult(**stored)


TEST = RollKind(TEST_KIND, _test_of, _test)
LUCK_TEST = RollKind(LUCK_KIND, _test_of, _test)
TAMPER = RollKind(TAMPER_KIND, _test_of, _tamper)
RITE = RollKind(RITE_KIND, _test_of, _test)  # a rite only ever removes Pressure
OPPOSED = RollKind(OPPOSED_KIND, OpposedResult.from_dict, _opposed)
ATTACK = RollKind(ATTACK_KIND, AttackResult.from_dict, _attack)
ROLL_KINDS: tuple[RollKind[Any], ...] = (TEST, LUCK_TEST, TAMPER, RITE, OPPOSED, ATTACK)

DECLARATION = SystemDeclaration(
    system=SYSTEM,
    settings=(SKIN, LINGERING_TAINT),
    tracks=(PRESSURE,),
    characters_per_player=1,
    roll_kinds=ROLL_KINDS,
)
