"""Rerolls: exactly one die, once, from the roll as the log keeps it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.realms.attacks import AttackResult, Strike, TargetResult, strike_hits
from rules.realms.checks import CheckKind, CheckResult, SingleDie, StealthResult
from rules.realms.damage import DamageExpression, parse_damage
from rules.realms.states import D20, STEALTH_DIE, Decision, State

# --- Rerolls


def reroll(rng: Rng, dice: tuple[int, ...], position: int, sides: int) -> tuple[int, ...]:
    """Return ``dice`` with exactly the die at ``position`` (1 = the first) rolled again."""
    position = require_whole("Position", position, 1, len(dice))
    faces = list(dice)
    faces[position - 1] = roll_dice(rng, 1, sides)[0]
    return tuple(faces)


def reroll_attack(
    rng: Rng, result: AttackResult, position: int, damage: DamageExpression
) -> AttackResult:
    """Return the attack with one d20 rerolled and everything downstream worked out again.

    Damage dice of strikes that still hit are kept; a strike that now hits rolls its damage.
    """
    dice = reroll(rng, result.dice, position, D20)
    faces = (min(dice),) if result.kept_lower else dice
    old = [strike for target in result.targets for strike in target.strikes]
    made: list[Strike] = []
    for index, face in enumerate(faces):
        before = old[index]
        if not strike_hits(face, result.to_hit):
            made.append(Strike(face, False))
        elif before.hit:
            made.append(replace(before, face=face))
        else:
            total, damage_dice = damage.roll(rng)
            made.append(Strike(face, True, total, damage_dice))
    targets, start = [], 0
    for target in result.targets:
        share = len(target.strikes)
        targets.append(TargetResult(tuple(made[start : start + share]), target.shift))
        start += share
    return replace(result, dice=dice, targets=tuple(targets))


# --- Rebuilding logged results (the roll log keeps ``dataclasses.asdict`` of them)


def _decision(data: Mapping[str, Any]) -> Decision:
    return Decision(State(data["state"]), str(data["reason"]), bool(data.get("forced", False)))


def attack_from_dict(data: Mapping[str, Any]) -> AttackResult:
    targets = tuple(
        TargetResult(
            tuple(
                Strike(s["face"], s["hit"], s["damage"], tuple(s["damage_dice"]))
                for s in target["strikes"]
            ),
            target["shift"],
        )
        for target in data["targets"]
    )
    return AttackResult(
        _decision(data["decision"]),
        data["to_hit"],
        str(data["damage"]),
        tuple(data["dice"]),
        bool(data["kept_lower"]),
        targets,
        bool(data.get("primary", True)),  # logged before secondary attacks existed: primary
    )


def check_from_dict(data: Mapping[str, Any]) -> CheckResult:
    return CheckResult(
        SingleDie(data["die"]),
        CheckKind(data["kind"]),
        _decision(data["decision"]),
        tuple(data["dice"]),
        data["target"],
    )


def stealth_from_dict(data: Mapping[str, Any]) -> StealthResult:
    return StealthResult(
        _decision(data["decision"]),
        tuple(data["dice"]),
        bool(data["kept_lower"]),
    )


# --- Rerolling a logged roll


class RollKind(StrEnum):
    """The roll log's kinds of the rerollable rolls."""

    ATTACK = "realms.attack"
    CHECK = "realms.check"
    STEALTH = "realms.stealth"


RerollableResult = AttackResult | CheckResult | StealthResult


@dataclass(frozen=True, slots=True)
class Rerolled:
    """A logged roll before and after one die was rolled again, and that die's two faces."""

    before: RerollableResult
    after: RerollableResult
    old_face: int
    new_face: int


def reroll_logged(
    rng: Rng, before: RerollableResult, options: Mapping[str, object], position: int
) -> Rerolled:
    """Reroll the die at ``position`` of a logged roll (its result as its kind reads it, and
    its options).

    An attack keeps the damage dice of strikes that still hit (its damage text is an option);
    a check keeps its die, kind and target; a stealth pool keeps whether it kept the lower die.
    """
    after: RerollableResult
    if isinstance(before, AttackResult):
        after = reroll_attack(rng, before, position, parse_damage(str(options["damage"])))
    elif isinstance(before, CheckResult):
        after = replace(before, dice=reroll(rng, before.dice, position, before.die.sides))
    else:
        after = replace(before, dice=reroll(rng, before.dice, position, STEALTH_DIE))
    return Rerolled(before, after, before.dice[position - 1], after.dice[position - 1])
