"""Rolling a check against a TN, and opposed rolls."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.cosmos.dice import (
    DIE_SIDES,
    KEPT_DICE,
    Difficulty,
    Pool,
    difficulty,
    require_modifiers,
    succeeds,
)
from rules.cosmos.effects import Action, CriticalEffects, Scale, check_scale_action
from rules.errors import RulesError
from rules.odds import Keep
from rules.randomness import Rng, roll_dice

# --- Rolling


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """One side's dice: every die in the order rolled, the two kept, modifiers and total.

    Attributes:
        dice: Every d10 rolled, in order.
        kept_indices: Positions in ``dice`` of the two kept dice, in roll order. Among equal
            faces the earlier die is kept.
        kept: The kept faces, aligned with ``kept_indices``.
        modifier: Attribute + Skill.
        total: Sum of the kept faces + modifier.
    """

    attribute: int
    skill: int
    pool: Pool
    dice: tuple[int, ...]
    kept_indices: tuple[int, ...]
    kept: tuple[int, ...]
    modifier: int
    total: int
    critical_success: bool
    critical_failure: bool


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A roll against a TN, with its label, outcome and (on a critical success) one effect."""

    roll: PoolRoll
    tn: int
    difficulty: Difficulty
    success: bool
    scale: Scale | None = None
    action: Action | None = None
    critical_effect: str | None = None


class Side(StrEnum):
    """A side of an opposed roll."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


@dataclass(frozen=True, slots=True)
class OpposedResult:
    """Both sides of an opposed roll; the higher total wins and a tie goes to the defender."""

    attacker: PoolRoll
    defender: PoolRoll
    winner: Side

    @property
    def margin(self) -> int:
        """Return attacker total minus defender total."""
        return self.attacker.total - self.defender.total


def _kept_indices(dice: tuple[int, ...], which: Keep) -> tuple[int, ...]:
    """Return the positions of the kept dice in roll order; ties keep the earlier die."""
    sign = -1 if which is Keep.HIGHEST else 1
    best = sorted(range(len(dice)), key=lambda index: (sign * dice[index], index))
    return tuple(sorted(best[:KEPT_DICE]))


def _roll_pool(rng: Rng, attribute: int, skill: int, pool: Pool) -> PoolRoll:
    """Roll a pool and keep two; the caller has validated the modifiers."""
    dice = roll_dice(rng, pool.dice, DIE_SIDES)
    kept_indices = _kept_indices(dice, pool.keep)
    kept = tuple(dice[index] for index in kept_indices)
    modifier = attribute + skill
    return PoolRoll(
        attribute=attribute,
        skill=skill,
        pool=pool,
        dice=dice,
        kept_indices=kept_indices,
        kept=kept,
        modifier=modifier,
        total=sum(kept) + modifier,
        critical_success=all(face == DIE_SIDES for face in kept),
        critical_failure=all(face == 1 for face in kept),
    )


def roll(
    rng: Rng,
    *,
    attribute: int,
    skill: int,
    tn: int,
    advantage: int = 0,
    disadvantage: int = 0,
    scale: Scale | None = None,
    action: Action | None = None,
    effects: CriticalEffects | None = None,
) -> CheckResult:
    """Roll 2d10 (+ net advantage dice) keep two + Attribute + Skill against a TN.

    Everything is validated before any die is rolled. Give ``scale`` and ``action`` together (or
    neither); with them, a critical success names its one effect from ``effects``.

    Raises:
        RulesError: an input is out of range or the action is not of that scale.
        ValueError: a scale is given without the ``effects`` table (a bug in the caller).
    """
    pool = Pool(advantage, disadvantage)
    attribute, skill = require_modifiers(attribute, skill)
    label = difficulty(tn)
    if (scale is None) != (action is None):
        raise RulesError("Give both a scale and an action for critical effects, or neither.")
    if scale is not None and action is not None:
        check_scale_action(scale, action)
        if effects is None:
            raise ValueError("roll() needs the critical effects table when a scale is given")
    result = _roll_pool(rng, attribute, skill, pool)
    effect = None
    # One critical effect per roll, however many extra 10s were rolled.
    if result.critical_success and effects is not None and scale is not None and action is not None:
        effect = effects.effect(scale, action)
    return CheckResult(
        roll=result,
        tn=int(tn),
        difficulty=label,
        success=succeeds(
            result.total,
            tn,
            critical_success=result.critical_success,
            critical_failure=result.critical_failure,
        ),
        scale=scale,
        action=action,
        critical_effect=effect,
    )


def opposed(
    rng: Rng,
    *,
    attribute: int,
    skill: int,
    vs_attribute: int,
    vs_skill: int,
    advantage: int = 0,
    disadvantage: int = 0,
    vs_advantage: int = 0,
    vs_disadvantage: int = 0,
) -> OpposedResult:
    """Roll attacker against defender, each with their own pool; a tie goes to the defender.

    Only totals compare: criticals are reported on each side but do not override the totals.
    """
    attacker_pool = Pool(advantage, disadvantage)
    try:
        defender_pool = Pool(vs_advantage, vs_disadvantage)
    except RulesError as error:
        raise RulesError(f"Defender: {error}") from None
    attribute, skill = require_modifiers(attribute, skill)
    vs_attribute, vs_skill = require_modifiers(vs_attribute, vs_skill, side="Defender ")
    attacker = _roll_pool(rng, attribute, skill, attacker_pool)
    defender = _roll_pool(rng, vs_attribute, vs_skill, defender_pool)
    winner = Side.ATTACKER if attacker.total > defender.total else Side.DEFENDER
    return OpposedResult(attacker=attacker, defender=defender, winner=winner)
