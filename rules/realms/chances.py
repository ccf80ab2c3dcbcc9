"""Exact odds of single-die rolls and attacks."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb

from rules.inputs import require_whole
from rules.odds import Distribution, Keep, die, keep
from rules.realms.attacks import plan_attack, strike_hits
from rules.realms.checks import SingleDie
from rules.realms.damage import DamageExpression
from rules.realms.states import D20, NATURAL_20_DAMAGE, TARGET_MAX, Decision, State

# --- Exact odds


@dataclass(frozen=True, slots=True)
class CheckOdds:
    normal: Fraction
    advantage: Fraction
    disadvantage: Fraction

    def of(self, state: State) -> Fraction:
        """Return the chance in ``state``."""
        return {
            State.NORMAL: self.normal,
            State.ADVANTAGE: self.advantage,
            State.DISADVANTAGE: self.disadvantage,
        }[state]


def single_die(single: SingleDie, state: State) -> Distribution:
    """Return the result of a single-die roll in ``state``: one die, or two keeping one."""
    sides = SingleDie(single).sides
    if state is State.ADVANTAGE:
        return keep(2, sides, 1, Keep.HIGHEST)
    if state is State.DISADVANTAGE:
        return keep(2, sides, 1, Keep.LOWEST)
    return die(sides)


def check_odds(single: SingleDie, target: int) -> CheckOdds:
    """Return the chance to reach ``target`` straight, at advantage and at disadvantage."""
    target = require_whole("Target", target, 1, TARGET_MAX)
    return CheckOdds(
        single_die(single, State.NORMAL).at_least(target),
        single_die(single, State.ADVANTAGE).at_least(target),
        single_die(single, State.DISADVANTAGE).at_least(target),
    )


@dataclass(frozen=True, slots=True)
class TargetOdds:
    """One target's exact outcome: P(missed), and the distribution of damage taken."""

    strikes: int
    missed: Fraction
    damage: dict[int, Fraction]

    @property
    def mean(self) -> Fraction:
        return sum((value * chance for value, chance in self.damage.items()), Fraction(0))


@dataclass(frozen=True, slots=True)
class AttackOdds:
    decision: Decision
    hits: dict[int, Fraction]  # number of hitting strikes → chance
    targets: tuple[TargetOdds, ...]
    primary: bool = True


def attack_odds(
    dice: int,
    to_hit: int,
    damage: DamageExpression,
    decision: Decision,
    split: str | None = None,
    primary: bool = True,
) -> AttackOdds:
    """Return the exact distribution of hits, and each target's miss chance and damage
    (a secondary attack, ``primary`` false, has no ±2)."""
    plan = plan_attack(dice, to_hit, decision, split, primary)
    faces = keep(2, D20, 1, Keep.LOWEST) if plan.kept_lower else die(D20)
    weights = dict(zip(map(int, faces.outcomes()), map(int, faces.weights), strict=True))
    counts = _StrikeCounts(
        total=faces.total_weight,
        hit=sum(w for face, w in weights.items() if strike_hits(face, plan.to_hit)),
        natural_20=weights.get(D20, 0),
    )
    hit_chance = Fraction(counts.hit, counts.total)
    hits = _binomial(max(plan.strikes, 1), hit_chance)
    per_hit = damage.distribution()
    targets = tuple(_target_odds(share, counts, per_hit, plan.shift) for share in plan.shares)
    return AttackOdds(decision, hits, targets, primary)


@dataclass(frozen=True, slots=True)
class _StrikeCounts:
    """Of ``total`` equally likely strike outcomes: how many hit, how many are natural 20s."""

    total: int
    hit: int
    natural_20: int


def _binomial(count: int, chance: Fraction) -> dict[int, Fraction]:
    return {k: comb(count, k) * chance**k * (1 - chance) ** (count - k) for k in range(count + 1)}


class _PackedSums:
    """The k-fold sums of one hit's damage, k = 1, 2, ..., as exact integer weights.

    Each sum is one more convolution with the damage of a hit. The weights outgrow int64 after
    a few hits, and numpy's convolution of Python integers ran at Python speed (most of an
    11-strike query). Here both polynomials are packed into one Python integer each, ``width``
    bytes per coefficient (Kronecker substitution), so a convolution is one big-integer product
    in C and unpacking is a slice per coefficient. The k-th sum's weights are at most the total
    weight to the power k, so ``width`` grows with k and no coefficient overflows into the next.
    """

    def __init__(self, per_hit: Distribution) -> None:
        self.step_offset = per_hit.min_value
        self.step_weights = [int(weight) for weight in per_hit.weights.tolist()]
        self.total = per_hit.total_weight
        self.weights = [1]  # the 0-fold sum: value 0 with weight 1
        self.count = 0

    def next(self) -> tuple[int, list[int]]:
        """Return the next sum's smallest value and its weights, one per value upwards."""
        self.count += 1
        width = ((self.total**self.count).bit_length() + 8) // 8

        def packed(weights: list[int]) -> int:
            data = b"".join(weight.to_bytes(width, "little") for weight in weights)
            return int.from_bytes(data, "little")

        product = packed(self.weights) * packed(self.step_weights)
        length = len(self.weights) + len(self.step_weights) - 1
        data = product.to_bytes(length * width, "little")
        self.weights = [
            int.from_bytes(data[index : index + width], "little")
            for index in range(0, length * width, width)
        ]
        return self.step_offset * self.count, self.weights


def _target_odds(
    strikes: int, counts: _StrikeCounts, per_hit: Distribution, shift: int
) -> TargetOdds:
    """One target's damage, exactly, as integer numerators over (strike total · damage total)
    to the power of the strikes: by the number of hits k (binomial), the k-fold damage sum
    (integer convolution), and whether a natural 20 is among the k hits (zero-damage rule)."""
    hit, plain = counts.hit, counts.hit - counts.natural_20
    miss = counts.total - hit
    damage_total = per_hit.total_weight
    denominator = (counts.total * damage_total) ** strikes
    numerators: dict[int, int] = {0: (miss * damage_total) ** strikes}
    sums = _PackedSums(per_hit)
    for k in range(1, strikes + 1):
        if hit == 0:
            break
        base = comb(strikes, k) * (miss * damage_total) ** (strikes - k)
        offset, weights = sums.next()  # the k-fold sum, one convolution at a time
        factor = base * hit**k
        at_most_zero = 0
        for raw, weight in enumerate(weights, start=offset + shift):
            if raw > 0:
                numerators[raw] = numerators.get(raw, 0) + factor * weight
            else:
                at_most_zero += weight
        if at_most_zero:  # hits that came to nothing: 1 damage if one was a natural 20
            with_natural = base * (hit**k - plain**k) * at_most_zero
            numerators[NATURAL_20_DAMAGE] = numerators.get(NATURAL_20_DAMAGE, 0) + with_natural
            numerators[0] += base * plain**k * at_most_zero
    damage = {
        value: Fraction(numerator, denominator)
        for value, numerator in sorted(numerators.items())
        if numerator
    }
    return TargetOdds(strikes, damage.get(0, Fraction(0)), damage)
