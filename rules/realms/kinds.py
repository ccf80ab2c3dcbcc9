"""Enchanted Realms' rolls in the roll log: their kinds and how each reads (docs/development.md,
"Roll kinds").

A check's kept die is placed on its die's distribution under its advantage state; a natural 20 on
a d20 is its critical (there is no fumble). An attack's strikes are placed together (their d20s
summed, or the lower of two at 0 dice left) and its verdict is whether any target was hurt; a
stealth pool's total sets the Awareness target, with no verdict.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache
from typing import Any

from rules.odds import Distribution, Keep, die, keep
from rules.realms.attacks import AttackResult
from rules.realms.chances import single_die
from rules.realms.checks import CheckResult, SingleDie, StealthResult
from rules.realms.rerolls import RollKind as Kind
from rules.realms.rerolls import attack_from_dict, check_from_dict, stealth_from_dict
from rules.realms.states import D20, STEALTH_DIE, State
from rules.roll_kinds import Placement, Reading, RollKind, Total

__all__ = ["ROLL_KINDS"]


@lru_cache(maxsize=16)
def kept_die(single: SingleDie, state: State) -> Distribution:
    """A check's die (or the better or worse of two) under its advantage state."""
    return single_die(single, state)


@lru_cache(maxsize=128)
def pool(count: int, sides: int, kept_lower: bool) -> Distribution:
    """Each die rolled adds up; at 0 dice left, two were rolled and the lower counts."""
    if kept_lower:
        return keep(2, sides, 1, Keep.LOWEST)
    return die(sides).repeated(count)


def _pool_question(dice: tuple[int, ...], sides: int, kept_lower: bool) -> tuple[Hashable, ...]:
    return (2 if kept_lower else len(dice), sides, kept_lower)


def _check(check: CheckResult) -> Reading:
    placement = Placement(check.result, kept_die, (check.die, check.decision.state))
    return Reading((Total(check.result),), check.success, critical=check.natural_max,
                   placement=placement)  # fmt: skip


def _attack(attack: AttackResult) -> Reading:
    # The strikes' d20s summed: one placement for the whole attack (docs/gms.md, "Campaign recap").
    hurt = any(target.riders for target in attack.targets)  # the reply's Hit / Miss
    value = min(attack.dice) if attack.kept_lower else sum(attack.dice)
    arguments = _pool_question(attack.dice, D20, attack.kept_lower)
    placement = Placement(value, pool, arguments, biggest=False)
    dealt = tuple(Total(target.damage) for target in attack.targets)
    return Reading(dealt, hurt, note="damage", placement=placement)


def _stealth(stealth: StealthResult) -> Reading:
    arguments = _pool_question(stealth.dice, STEALTH_DIE, stealth.kept_lower)
    return Reading((Total(stealth.total),), placement=Placement(stealth.total, pool, arguments))


ATTACK = RollKind(Kind.ATTACK.value, attack_from_dict, _attack)
CHECK = RollKind(Kind.CHECK.value, check_from_dict, _check)
STEALTH = RollKind(Kind.STEALTH.value, stealth_from_dict, _stealth)
ROLL_KINDS: tuple[RollKind[Any], ...] = (ATTACK, CHECK, STEALTH)
