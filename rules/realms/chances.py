"""Exact odds of single-die rolls and attacks."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb, gcd

import numpy as np

from rules.inputs import require_whole
from rules.modular import ExactChances, Residues, moduli_above, powers
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
    damage: Mapping[int, Fraction]  # rules.modular.ExactChances: exact, read lazily

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
    # Targets with the same strikes have the same odds: each number of strikes once.
    by_strikes = _targets_odds(sorted(set(plan.shares)), counts, per_hit, plan.shift)
    targets = tuple(by_strikes[share] for share in plan.shares)
    return AttackOdds(decision, hits, targets, primary)


@dataclass(frozen=True, slots=True)
class _StrikeCounts:
    """Of ``total`` equally likely strike outcomes: how many hit, how many are natural 20s."""

    total: int
    hit: int
    natural_20: int


def _binomial(count: int, chance: Fraction) -> dict[int, Fraction]:
    return {k: comb(count, k) * chance**k * (1 - chance) ** (count - k) for k in range(count + 1)}


def _targets_odds(
    strikes: list[int], counts: _StrikeCounts, per_hit: Distribution, shift: int
) -> dict[int, TargetOdds]:
    """Each target's damage for each number of strikes, exactly, as integer counts over
    (strike total · damage total) to the power of the strikes.

    A strike misses (``miss`` of the strike total, no damage: weight miss · T, T the damage's
    total weight) or hits (``hit`` of it, times the damage's weights D), so by the binomial
    theorem the raw damage sums of every number of hits are the coefficients of
    (miss·T + hit·D(x)) ** strikes; its constant (miss·T) ** strikes is no hit at all (0 damage,
    not shifted). The ±2 shifts every other sum once. A shifted sum of 0 or less is 1 damage if
    a hit was a natural 20, else 0: those without a natural 20 are the same power with only the
    plain hits, (miss·T + plain·D(x)) ** strikes. The counts exceed int64 (about 2^238 for 11
    strikes of 4d20), so the powers are taken modulo a few primes in numpy (rules.modular),
    every power of the query from one transform, after dividing every weight by their greatest
    common divisor (fewer primes: the counts of 11 strikes that all hit are 20^11 times smaller).
    """
    hit, plain = counts.hit, counts.hit - counts.natural_20
    weights = [int(weight) for weight in per_hit.weights.tolist()]
    lowest = per_hit.min_value
    # Whether some hits can come to nothing (the least raw sum of the most strikes, shifted):
    # then the plain hits' power is needed as well.
    nothing_possible = hit > 0 and min(lowest, max(strikes) * lowest) + shift <= 0
    common = gcd(
        (counts.total - hit) * per_hit.total_weight,
        hit * gcd(*weights),
        plain * gcd(*weights) if nothing_possible else 0,
    )
    miss_weight = (counts.total - hit) * per_hit.total_weight // common
    outcome_weight = counts.total * per_hit.total_weight // common  # of one strike, all told
    moduli = moduli_above(outcome_weight ** max(strikes))
    column = np.array(moduli, dtype=np.int64).reshape(-1, 1)

    def polynomial(hitting: int) -> dict[int, int]:
        terms = {lowest + i: hitting * weight // common for i, weight in enumerate(weights)}
        terms[0] = terms.get(0, 0) + miss_weight
        return terms

    found: list[list[tuple[int, Residues]]] = []  # [hit or plain][strikes]: (low, counts)
    if hit:
        found = powers(
            [polynomial(hit), *([polynomial(plain)] if nothing_possible else [])], strikes, moduli
        )
    odds: dict[int, TargetOdds] = {}
    for j, count in enumerate(strikes):
        no_hit = np.array([pow(miss_weight, count, prime) for prime in moduli], dtype=np.int64)
        top = 0  # the largest damage
        if hit:
            low, raw = found[0][j][0], found[0][j][1].values
            raw[:, -low] = (raw[:, -low] - no_hit) % column[:, 0]  # no hit at all: apart
            top = max(low + raw.shape[1] - 1 + shift, NATURAL_20_DAMAGE)
        counts_by_value = np.zeros((len(moduli), top + 1), dtype=np.int64)
        counts_by_value[:, 0] = no_hit
        if hit:
            first = max(1 - shift - low, 0)  # raw sum low + first is the first above 0 shifted
            if first < raw.shape[1]:
                counts_by_value[:, low + first + shift :] = raw[:, first:]
            if first and nothing_possible:  # hits that came to nothing: 1 if a natural 20
                nothing = raw[:, :first].sum(axis=1)
                plain_raw = found[1][j][1].values  # the same exponents: the same lowest sum
                plain_raw[:, -low] = (plain_raw[:, -low] - no_hit) % column[:, 0]
                without = plain_raw[:, :first].sum(axis=1)
                counts_by_value[:, 0] += without
                counts_by_value[:, NATURAL_20_DAMAGE] += nothing - without
                counts_by_value %= column
        denominator = outcome_weight**count
        damage = ExactChances(np.arange(top + 1), Residues(moduli, counts_by_value), denominator)
        odds[count] = TargetOdds(count, damage.get(0, Fraction(0)), damage)
    return odds
