"""Enchanted Realms: the extra or lost die, multi-strike attacks, single-die rolls.

The rules and our decisions: README, Rules notes: Enchanted Realms.

Advantage and disadvantage never stack: any number of advantages is "at advantage", any mix of
both is neither. In combat advantage adds a d20 (and +2 damage once per target struck),
disadvantage removes one (and -2); an attack left with 0 dice rolls two d20 and keeps the lower,
one strike. Each d20 at or above the to-hit number is a strike that hits; a natural 20 always
hits. A target whose net damage is 0 or less is missed (no riders), unless a strike on it was a
natural 20: then it takes 1 damage and riders apply. Single-die rolls (saves, checks,
competitions, reactions, stealth, concentration) roll two dice and keep the better or worse.
Disadvantage always means half movement this round.

Everything here is pure: dice come from an injected generator and odds are exact.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from math import comb
from typing import NamedTuple

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.odds import Distribution, Keep, dice_sum, die, keep
from rules.randomness import Rng, roll_dice

__all__ = [
    "ATTACK_DICE_MAX",
    "AttackResult",
    "CheckKind",
    "CheckResult",
    "DamageExpression",
    "Decision",
    "Rerolled",
    "RollKind",
    "SingleDie",
    "SpellKind",
    "State",
    "StealthResult",
    "TargetResult",
    "attack",
    "attack_odds",
    "check",
    "check_odds",
    "decide",
    "parse_damage",
    "parse_split",
    "reroll",
    "reroll_logged",
    "spell",
    "stealth",
]

D20 = 20
STEALTH_DIE = 6
COMBAT_DAMAGE_SHIFT = 2  # +2 at advantage, -2 at disadvantage, once per target struck
NATURAL_20_DAMAGE = 1  # the zero-damage exception
ATTACK_DICE_MAX = 10  # (house) input limits
STEALTH_DICE_MAX = 20
SOURCES_MAX = 10
TO_HIT_MIN, TO_HIT_MAX = 1, 30
TARGET_MAX = 120
SPELL_COST_MAX = 50
DAMAGE_TEXT_MAX = 40
DAMAGE_DICE_MAX = 4  # dice in one damage expression (exact odds stay well under 50 ms)
DAMAGE_SIDES = (2, 3, 4, 6, 8, 10, 12, 20)
DAMAGE_MODIFIER_MAX = 50
HALF_MOVEMENT = "half movement this round"


class State(StrEnum):
    ADVANTAGE = "advantage"
    DISADVANTAGE = "disadvantage"
    NORMAL = "normal"


@dataclass(frozen=True, slots=True)
class Decision:
    """The state that applies and why (counts of sources in, one state out)."""

    state: State
    reason: str


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def decide(advantages: int, disadvantages: int) -> Decision:
    """Return the state: never stacking, and any mix of both cancels (README: Enchanted Realms)."""
    advantages = require_whole("Advantages", advantages, 0, SOURCES_MAX)
    disadvantages = require_whole("Disadvantages", disadvantages, 0, SOURCES_MAX)
    if advantages and disadvantages:
        reason = (
            f"{_plural(advantages, 'advantage')} + {_plural(disadvantages, 'disadvantage')} "
            "→ straight roll (any mix cancels)"
        )
        return Decision(State.NORMAL, reason)
    if advantages:
        extra = " (they never stack)" if advantages > 1 else ""
        return Decision(
            State.ADVANTAGE, f"{_plural(advantages, 'advantage')} → at advantage{extra}"
        )
    if disadvantages:
        extra = " (they never stack)" if disadvantages > 1 else ""
        return Decision(
            State.DISADVANTAGE,
            f"{_plural(disadvantages, 'disadvantage')} → at disadvantage{extra}; {HALF_MOVEMENT}",
        )
    return Decision(State.NORMAL, "no advantage or disadvantage → straight roll")


# --- Damage expressions: a small, safe notation (NdS and whole numbers added or subtracted)

_TERM = re.compile(r"([+-]?)\s*(?:(\d{1,3})?d(\d{1,3})|(\d{1,3}))", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class DamageExpression:
    """Dice groups (count, sides, sign) and a whole-number modifier, e.g. ``1d8+1``."""

    text: str
    dice: tuple[tuple[int, int, int], ...]  # (count, sides, +1 or -1)
    modifier: int

    def roll(self, rng: Rng) -> tuple[int, tuple[int, ...]]:
        """Return the total and every die rolled."""
        faces: list[int] = []
        total = self.modifier
        for count, sides, sign in self.dice:
            rolled = roll_dice(rng, count, sides)
            faces.extend(rolled)
            total += sign * sum(rolled)
        return total, tuple(faces)

    def distribution(self) -> Distribution:
        """Return the exact distribution of the total."""
        result = Distribution.constant(self.modifier)
        for count, sides, sign in self.dice:
            part = dice_sum(count, sides)
            if sign < 0:
                part = Distribution.from_counts(
                    {-int(v): int(w) for v, w in zip(part.outcomes(), part.weights, strict=True)}
                )
            result = result + part
        return result


DAMAGE_HELP = (
    f"dice like 1d8+1 or 2d6+1d4-1: up to {DAMAGE_DICE_MAX} dice of "
    f"{', '.join(f'd{s}' for s in DAMAGE_SIDES)}, whole numbers up to {DAMAGE_MODIFIER_MAX}"
)


def parse_damage(text: str) -> DamageExpression:
    """Parse a damage expression, refusing anything beyond the small notation (naming it)."""
    cleaned = "".join(str(text).split())
    if not cleaned or len(cleaned) > DAMAGE_TEXT_MAX:
        raise RulesError(f"A damage expression is 1–{DAMAGE_TEXT_MAX} characters: {DAMAGE_HELP}.")
    position, dice, modifier, total_dice = 0, [], 0, 0
    for match in _TERM.finditer(cleaned):
        if match.start() != position or (position and not match.group(1)):
            break
        position = match.end()
        sign = -1 if match.group(1) == "-" else 1
        if match.group(4) is not None:
            modifier += sign * int(match.group(4))
            continue
        count, sides = int(match.group(2) or 1), int(match.group(3))
        if sides not in DAMAGE_SIDES or count < 1:
            raise RulesError(f"Unsupported dice {match.group(0)!r}: {DAMAGE_HELP}.")
        total_dice += count
        dice.append((count, sides, sign))
    if position != len(cleaned) or not dice:
        raise RulesError(f"Can't read damage {cleaned[:40]!r}: {DAMAGE_HELP}.")
    if total_dice > DAMAGE_DICE_MAX or abs(modifier) > DAMAGE_MODIFIER_MAX:
        raise RulesError(f"Damage {cleaned!r} is too big: {DAMAGE_HELP}.")
    return DamageExpression(cleaned, tuple(dice), modifier)


def parse_split(text: str | None, strikes: int, base: int) -> tuple[int, ...]:
    """Return strikes per target from "2,1"; it sums to the dice rolled or to the base dice.

    Default: every strike on one target. A split of the base dice meets advantage's extra die
    on the first target and loses disadvantage's die from the last (house).
    """
    if text is None or not text.strip():
        return (strikes,)
    try:
        parts = [int(part) for part in text.replace(" ", "").split(",")]
    except ValueError:
        raise RulesError("Write the split as strikes per target, like 2,1.") from None
    if not parts or any(part < 1 for part in parts) or len(parts) > ATTACK_DICE_MAX + 1:
        raise RulesError("Each target in the split takes at least 1 strike, like 2,1.")
    total = sum(parts)
    if total == strikes:
        return tuple(parts)
    if total == base and strikes == base + 1:
        return (parts[0] + 1, *parts[1:])
    if total == base and strikes == base - 1:
        trimmed = [*parts[:-1], parts[-1] - 1]
        return tuple(part for part in trimmed if part > 0)
    raise RulesError(
        f"The split {text.strip()[:30]} assigns {total} strikes; this attack has {strikes}."
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

    @property
    def half_movement(self) -> bool:
        return self.decision.state is State.DISADVANTAGE


def _strike_dice(base: int, state: State) -> int:
    return base + (1 if state is State.ADVANTAGE else -1 if state is State.DISADVANTAGE else 0)


def _hits(face: int, to_hit: int) -> bool:
    return face == D20 or face >= to_hit


class _AttackPlan(NamedTuple):
    """What an attack and its odds both work out before any die: one place, so they agree."""

    to_hit: int
    strikes: int  # d20 left after the state's extra or lost die (0: two rolled, keep the lower)
    kept_lower: bool
    shares: tuple[int, ...]  # strikes per target
    shift: int  # damage added to each target struck


def _plan_attack(dice: int, to_hit: int, decision: Decision, split: str | None) -> _AttackPlan:
    """Check the inputs and work out strikes, split and damage shift for ``decision``."""
    dice = require_whole("Attack dice", dice, 1, ATTACK_DICE_MAX)
    to_hit = require_whole("To-hit", to_hit, TO_HIT_MIN, TO_HIT_MAX)
    strikes = _strike_dice(dice, decision.state)
    shares = parse_split(split, max(strikes, 1), dice)
    shift = {State.ADVANTAGE: COMBAT_DAMAGE_SHIFT, State.DISADVANTAGE: -COMBAT_DAMAGE_SHIFT}.get(
        decision.state, 0
    )
    return _AttackPlan(to_hit, strikes, strikes == 0, shares, shift)


def attack(
    rng: Rng,
    dice: int,
    to_hit: int,
    damage: DamageExpression,
    decision: Decision,
    split: str | None = None,
) -> AttackResult:
    """Roll an attack of ``dice`` d20 (each a strike) with the state's extra or lost die."""
    plan = _plan_attack(dice, to_hit, decision, split)
    rolled = roll_dice(rng, 2 if plan.kept_lower else plan.strikes, D20)
    faces = (min(rolled),) if plan.kept_lower else rolled
    made: list[Strike] = []
    for face in faces:
        if _hits(face, plan.to_hit):
            total, damage_dice = damage.roll(rng)
            made.append(Strike(face, True, total, damage_dice))
        else:
            made.append(Strike(face, False))
    targets, start = [], 0
    for share in plan.shares:
        targets.append(TargetResult(tuple(made[start : start + share]), plan.shift))
        start += share
    return AttackResult(decision, plan.to_hit, damage.text, rolled, plan.kept_lower, tuple(targets))


# --- Single-die rolls


class CheckKind(StrEnum):
    SAVE = "save"
    CHECK = "check"
    COMPETITION = "competition"
    REACTION = "reaction"
    STEALTH = "stealth"
    CONCENTRATION = "concentration"  # as a save


class SingleDie(StrEnum):
    D4 = "d4"
    D6 = "d6"
    D8 = "d8"
    D10 = "d10"
    D12 = "d12"
    D20 = "d20"

    @property
    def sides(self) -> int:
        return int(self.value[1:])


# The die each kind uses when it fixes one (reactions use the skill's die).
KIND_DIE = {
    CheckKind.SAVE: SingleDie.D20,
    CheckKind.CHECK: SingleDie.D20,
    CheckKind.COMPETITION: SingleDie.D12,
    CheckKind.STEALTH: SingleDie.D20,
    CheckKind.CONCENTRATION: SingleDie.D20,
}
# Disadvantage on these also halves movement; we always report it (README: Enchanted Realms).


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A single-die roll: one die, or two with the better or worse kept; against a target."""

    die: SingleDie
    kind: CheckKind
    decision: Decision
    dice: tuple[int, ...]
    target: int | None = None

    @property
    def result(self) -> int:
        if self.decision.state is State.ADVANTAGE:
            return max(self.dice)
        if self.decision.state is State.DISADVANTAGE:
            return min(self.dice)
        return self.dice[0]

    @property
    def success(self) -> bool | None:
        return None if self.target is None else self.result >= self.target

    @property
    def natural_max(self) -> bool:
        return self.die is SingleDie.D20 and self.result == D20


def _die_for(die: SingleDie, kind: CheckKind) -> SingleDie:
    fixed = KIND_DIE.get(kind)
    if fixed is not None and die is not fixed:
        raise RulesError(f"A {kind.value} uses a {fixed.value} (got {die.value}).")
    return die


def check(
    rng: Rng, die: SingleDie, kind: CheckKind, decision: Decision, target: int | None = None
) -> CheckResult:
    """Roll one die, or two keeping the better (advantage) or worse (disadvantage)."""
    die = _die_for(SingleDie(die), CheckKind(kind))
    if target is not None:
        target = require_whole("Target", target, 1, TARGET_MAX)
    count = 1 if decision.state is State.NORMAL else 2
    return CheckResult(die, kind, decision, roll_dice(rng, count, die.sides), target)


@dataclass(frozen=True, slots=True)
class StealthResult:
    """The d6 pool that sets the Awareness target number."""

    decision: Decision
    dice: tuple[int, ...]
    kept_lower: bool

    @property
    def total(self) -> int:
        return min(self.dice) if self.kept_lower else sum(self.dice)


def stealth(rng: Rng, dice: int, decision: Decision) -> StealthResult:
    """Roll the stealth d6 pool: advantage +1 d6, disadvantage -1 (0 → two d6, keep lower)."""
    dice = require_whole("Stealth dice", dice, 1, STEALTH_DICE_MAX)
    count = _strike_dice(dice, decision.state)
    if count == 0:
        return StealthResult(decision, roll_dice(rng, 2, STEALTH_DIE), True)
    return StealthResult(decision, roll_dice(rng, count, STEALTH_DIE), False)


class SpellKind(StrEnum):
    INCANTATION = "incantation"  # divine: spirit cost -1 / +1
    AXIOM = "axiom"  # sorcery: lowest oversiphoning at normal cost / double casting time


@dataclass(frozen=True, slots=True)
class SpellResult:
    kind: SpellKind
    decision: Decision
    cost: int | None  # spirit cost after the state (incantations)
    effect: str


def spell(kind: SpellKind, decision: Decision, cost: int | None = None) -> SpellResult:
    """Apply the state to a spell: incantation cost ∓1 (never below 0); axiom effects."""
    kind = SpellKind(kind)
    state = decision.state
    if kind is SpellKind.INCANTATION:
        if cost is None:
            raise RulesError("An incantation needs its spirit `cost`.")
        cost = require_whole("Spirit cost", cost, 0, SPELL_COST_MAX)
        after = (
            max(cost - 1, 0)
            if state is State.ADVANTAGE
            else cost + (1 if state is State.DISADVANTAGE else 0)
        )
        return SpellResult(kind, decision, after, f"spirit cost {cost} → {after}")
    if cost is not None:
        raise RulesError("An axiom has no spirit cost; leave `cost` out.")
    effect = {
        State.ADVANTAGE: "lowest oversiphoning at normal cost",
        State.DISADVANTAGE: "casting time doubled",
        State.NORMAL: "cast as normal",
    }[state]
    return SpellResult(kind, decision, None, effect)


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
        if not _hits(face, result.to_hit):
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


# --- Exact odds


@dataclass(frozen=True, slots=True)
class CheckOdds:
    normal: Fraction
    advantage: Fraction
    disadvantage: Fraction


def check_odds(single: SingleDie, target: int) -> CheckOdds:
    """Return the chance to reach ``target`` straight, at advantage and at disadvantage."""
    sides = SingleDie(single).sides
    target = require_whole("Target", target, 1, TARGET_MAX)
    return CheckOdds(
        die(sides).at_least(target),
        keep(2, sides, 1, Keep.HIGHEST).at_least(target),
        keep(2, sides, 1, Keep.LOWEST).at_least(target),
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


def attack_odds(
    dice: int, to_hit: int, damage: DamageExpression, decision: Decision, split: str | None = None
) -> AttackOdds:
    """Return the exact distribution of hits, and each target's miss chance and damage."""
    plan = _plan_attack(dice, to_hit, decision, split)
    faces = keep(2, D20, 1, Keep.LOWEST) if plan.kept_lower else die(D20)
    weights = dict(zip(map(int, faces.outcomes()), map(int, faces.weights), strict=True))
    counts = _StrikeCounts(
        total=faces.total_weight,
        hit=sum(w for face, w in weights.items() if _hits(face, plan.to_hit)),
        natural_20=weights.get(D20, 0),
    )
    hit_chance = Fraction(counts.hit, counts.total)
    hits = _binomial(max(plan.strikes, 1), hit_chance)
    per_hit = damage.distribution()
    targets = tuple(_target_odds(share, counts, per_hit, plan.shift) for share in plan.shares)
    return AttackOdds(decision, hits, targets)


@dataclass(frozen=True, slots=True)
class _StrikeCounts:
    """Of ``total`` equally likely strike outcomes: how many hit, how many are natural 20s."""

    total: int
    hit: int
    natural_20: int


def _binomial(count: int, chance: Fraction) -> dict[int, Fraction]:
    return {k: comb(count, k) * chance**k * (1 - chance) ** (count - k) for k in range(count + 1)}


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
    summed = Distribution.constant(0)
    for k in range(1, strikes + 1):
        if hit == 0:
            break
        base = comb(strikes, k) * (miss * damage_total) ** (strikes - k)
        summed = summed + per_hit  # the k-fold sum, one convolution at a time
        factor = base * hit**k
        at_most_zero = 0
        for value, weight in zip(summed.outcomes().tolist(), summed.weights.tolist(), strict=True):
            raw = value + shift
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


# --- Rebuilding logged results (the roll log keeps ``dataclasses.asdict`` of them)


def _decision(data: dict[str, object]) -> Decision:
    return Decision(State(data["state"]), str(data["reason"]))


def attack_from_dict(data: dict[str, object]) -> AttackResult:
    targets = tuple(
        TargetResult(
            tuple(
                Strike(s["face"], s["hit"], s["damage"], tuple(s["damage_dice"]))  # type: ignore[index]
                for s in target["strikes"]  # type: ignore[index,union-attr]
            ),
            target["shift"],  # type: ignore[index]
        )
        for target in data["targets"]  # type: ignore[union-attr]
    )
    return AttackResult(
        _decision(data["decision"]),  # type: ignore[arg-type]
        data["to_hit"],  # type: ignore[arg-type]
        str(data["damage"]),
        tuple(data["dice"]),  # type: ignore[arg-type]
        bool(data["kept_lower"]),
        targets,
    )


def check_from_dict(data: dict[str, object]) -> CheckResult:
    return CheckResult(
        SingleDie(data["die"]),
        CheckKind(data["kind"]),
        _decision(data["decision"]),  # type: ignore[arg-type]
        tuple(data["dice"]),  # type: ignore[arg-type]
        data["target"],  # type: ignore[arg-type]
    )


def stealth_from_dict(data: dict[str, object]) -> StealthResult:
    return StealthResult(
        _decision(data["decision"]),  # type: ignore[arg-type]
        tuple(data["dice"]),  # type: ignore[arg-type]
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
    rng: Rng,
    kind: str,
    data: Mapping[str, object],
    options: Mapping[str, object],
    position: int,
) -> Rerolled:
    """Reroll the die at ``position`` of a logged roll (its kind, result data and options).

    An attack keeps the damage dice of strikes that still hit (its damage text is an option);
    a check keeps its die, kind and target; a stealth pool keeps whether it kept the lower die.
    """
    roll_kind = RollKind(kind)
    result = dict(data)
    before: RerollableResult
    after: RerollableResult
    if roll_kind is RollKind.ATTACK:
        before = attack_from_dict(result)
        after = reroll_attack(rng, before, position, parse_damage(str(options["damage"])))
    elif roll_kind is RollKind.CHECK:
        before = check_from_dict(result)
        after = replace(before, dice=reroll(rng, before.dice, position, before.die.sides))
    else:
        before = stealth_from_dict(result)
        after = replace(before, dice=reroll(rng, before.dice, position, STEALTH_DIE))
    return Rerolled(before, after, before.dice[position - 1], after.dice[position - 1])
