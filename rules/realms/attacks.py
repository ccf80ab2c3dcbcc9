"""Multi-strike attacks: every d20 a strike, the extra or lost die, ±2 per target struck."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.realms.damage import DamageExpression, parse_split
from rules.realms.states import (
    ATTACK_DICE_MAX,
    COMBAT_DAMAGE_SHIFT,
    D20,
    NATURAL_20_DAMAGE,
    TO_HIT_MAX,
    TO_HIT_MIN,
    Decision,
    State,
)

# --- Attacks


@dataclass(frozen=True, slots=True)
class Strike:
    """One d20 of an attack and the damage it rolled if it hit."""

    face: int
    hit: bool
    damage: int = 0
    damage_dice: tuple[int, ...] = ()

    @property
    def natural_20(self) -> bool:
        return self.face == D20


@dataclass(frozen=True, slots=True)
class TargetResult:
    """One target's strikes, the ±2 once, and the net damage after the zero-damage rule."""

    strikes: tuple[Strike, ...]
    shift: int  # +2, -2 or 0, applied once if any strike hit

    @property
    def hits(self) -> int:
        return sum(strike.hit for strike in self.strikes)

    @property
    def rolled(self) -> int:
        return sum(strike.damage for strike in self.strikes if strike.hit)

    @property
    def natural_20(self) -> bool:
        return any(strike.hit and strike.natural_20 for strike in self.strikes)

    @property
    def raw(self) -> int:
        return self.rolled + self.shift if self.hits else 0

    @property
    def damage(self) -> int:
        """Return the damage taken: net, or 1 for a natural 20 when net is 0 or less."""
        if not self.hits:
            return 0
        if self.raw <= 0:
            return NATURAL_20_DAMAGE if self.natural_20 else 0
        return self.raw

    @property
    def zero_damage_miss(self) -> bool:
        """Return whether hits came to nothing: a miss, and no riders apply."""
        return self.hits > 0 and self.raw <= 0 and not self.natural_20

    @property
    def riders(self) -> bool:
        return self.damage > 0


@dataclass(frozen=True, slots=True)
class AttackResult:
    """An attack: the decision, the d20s (a kept one when two were rolled for 0 dice), targets."""

    decision: Decision
    to_hit: int
    damage: str
    dice: tuple[int, ...]  # every d20 rolled
    kept_lower: bool  # 0 dice left: two rolled, the lower is the one strike
    targets: tuple[TargetResult, ...]
    primary: bool = True  # a secondary attack (off-hand, opportunity) gets no ±2 damage

    @property
    def half_movement(self) -> bool:
        return self.decision.state is State.DISADVANTAGE


def strike_dice(base: int, state: State) -> int:
    return base + (1 if state is State.ADVANTAGE else -1 if state is State.DISADVANTAGE else 0)


def strike_hits(face: int, to_hit: int) -> bool:
    return face == D20 or face >= to_hit


class _AttackPlan(NamedTuple):
    """What an attack and its odds both work out before any die: one place, so they agree."""

    to_hit: int
    strikes: int  # d20 left after the state's extra or lost die (0: two rolled, keep the lower)
    kept_lower: bool
    shares: tuple[int, ...]  # strikes per target
    shift: int  # damage added to each target struck


def damage_shift(state: State, primary: bool) -> int:
    """Return the damage added to each target struck: ±2 for the primary attack only."""
    if not primary:
        return 0
    return {State.ADVANTAGE: COMBAT_DAMAGE_SHIFT, State.DISADVANTAGE: -COMBAT_DAMAGE_SHIFT}.get(
        state, 0
    )


def plan_attack(
    dice: int, to_hit: int, decision: Decision, split: str | None, primary: bool = True
) -> _AttackPlan:
    """Check the inputs and work out strikes, split and damage shift for ``decision``."""
    dice = require_whole("Attack dice", dice, 1, ATTACK_DICE_MAX)
    to_hit = require_whole("To-hit", to_hit, TO_HIT_MIN, TO_HIT_MAX)
    strikes = strike_dice(dice, decision.state)
    shares = parse_split(split, max(strikes, 1), dice)
    shift = damage_shift(decision.state, primary)
    return _AttackPlan(to_hit, strikes, strikes == 0, shares, shift)


def attack(
    rng: Rng,
    dice: int,
    to_hit: int,
    damage: DamageExpression,
    decision: Decision,
    split: str | None = None,
    primary: bool = True,
) -> AttackResult:
    """Roll an attack of ``dice`` d20 (each a strike) with the state's extra or lost die.

    A secondary attack (``primary`` false: off-hand, opportunity) still gains or loses the die
    but gets no ±2 damage.
    """
    plan = plan_attack(dice, to_hit, decision, split, primary)
    rolled = roll_dice(rng, 2 if plan.kept_lower else plan.strikes, D20)
    faces = (min(rolled),) if plan.kept_lower else rolled
    made: list[Strike] = []
    for face in faces:
        if strike_hits(face, plan.to_hit):
            total, damage_dice = damage.roll(rng)
            made.append(Strike(face, True, total, damage_dice))
        else:
            made.append(Strike(face, False))
    targets, start = [], 0
    for share in plan.shares:
        targets.append(TargetResult(tuple(made[start : start + share]), plan.shift))
        start += share
    return AttackResult(
        decision, plan.to_hit, damage.text, rolled, plan.kept_lower, tuple(targets), primary
    )
