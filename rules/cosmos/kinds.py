"""Cosmos Engine's rolls in the roll log: their kinds and how each reads (docs/development.md,
"Roll kinds").

A roll keeps two of its d10s and adds Attribute + Skill: its total is placed on that sum's exact
distribution. The critical and the fumble are the ones the roll itself decided (both kept dice
10, both 1). An opposed roll reads as the attacker's side, with whether it won.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from rules.cosmos.dice import DIE_SIDES, KEPT_DICE, Pool, difficulty
from rules.cosmos.effects import Action, Scale
from rules.cosmos.rolls import CheckResult, OpposedResult, PoolRoll, Side
from rules.odds import Distribution, Keep, keep
from rules.roll_kinds import Placement, Reading, RollKind, Total

__all__ = ["CHECK_KIND", "OPPOSED_KIND", "ROLL_KINDS", "check_from_dict", "opposed_from_dict"]

CHECK_KIND = "cosmos.roll"
OPPOSED_KIND = "cosmos.opposed"


def _pool_roll(stored: Mapping[str, Any]) -> PoolRoll:
    fields = dict(stored)
    fields["pool"] = Pool(**stored["pool"])
    for name in ("dice", "kept_indices", "kept"):
        fields[name] = tuple(stored[name])
    return PoolRoll(**fields)


def _optional(kind: type[Scale] | type[Action], value: object) -> Any:
    return None if value is None else kind(str(value))


def check_from_dict(stored: Mapping[str, Any]) -> CheckResult:
    """A roll against a TN from ``dataclasses.asdict`` of one (as the roll log keeps it); its
    difficulty's label follows from the TN."""
    tn = int(stored["tn"])
    return CheckResult(_pool_roll(stored["roll"]), tn, difficulty(tn), bool(stored["success"]),
                       _optional(Scale, stored.get("scale")),
                       _optional(Action, stored.get("action")),
                       stored.get("critical_effect"))  # fmt: skip


def opposed_from_dict(stored: Mapping[str, Any]) -> OpposedResult:
    """An opposed roll from ``dataclasses.asdict`` of one."""
    return OpposedResult(_pool_roll(stored["attacker"]), _pool_roll(stored["defender"]),
                         Side(stored["winner"]))  # fmt: skip


@lru_cache(maxsize=64)
def kept_sum(dice: int, which: Keep, modifier: int) -> Distribution:
    """Two d10s kept of ``dice``, plus the modifier."""
    return keep(dice, DIE_SIDES, KEPT_DICE, which) + modifier


def _side(roll: PoolRoll) -> Placement:
    return Placement(roll.total, kept_sum, (roll.pool.dice, roll.pool.keep, roll.modifier))


def _check(check: CheckResult) -> Reading:
    roll = check.roll
    return Reading((Total(roll.total),), check.success, roll.critical_success,
                   roll.critical_failure, placement=_side(roll))  # fmt: skip


def _opposed(contest: OpposedResult) -> Reading:
    attacker = contest.attacker
    totals = (Total(attacker.total), Total(contest.defender.total))
    return Reading(totals, contest.winner is Side.ATTACKER, attacker.critical_success,
                   attacker.critical_failure, contest=True, placement=_side(attacker))  # fmt: skip


CHECK = RollKind(CHECK_KIND, check_from_dict, _check)
OPPOSED = RollKind(OPPOSED_KIND, opposed_from_dict, _opposed)
ROLL_KINDS: tuple[RollKind[Any], ...] = (CHECK, OPPOSED)
