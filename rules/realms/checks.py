"""Single-die rolls (one die; two, keeping one, at advantage or disadvantage), the stealth pool
and spells."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.realms.attacks import strike_dice
from rules.realms.states import (
    D20,
    SPELL_COST_MAX,
    STEALTH_DICE_MAX,
    STEALTH_DIE,
    TARGET_MAX,
    Decision,
    State,
)

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
# Disadvantage on these also halves movement; we always report it (docs/players/realms.md, "Rules
# notes").


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
    count = strike_dice(dice, decision.state)
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
    asked: int | None = None  # spirit cost before the state (incantations)


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
        return SpellResult(kind, decision, after, f"spirit cost {cost} → {after}", cost)
    if cost is not None:
        raise RulesError("An axiom has no spirit cost; leave `cost` out.")
    effect = {
        State.ADVANTAGE: "lowest oversiphoning at normal cost",
        State.DISADVANTAGE: "casting time doubled",
        State.NORMAL: "cast as normal",
    }[state]
    return SpellResult(kind, decision, None, effect)
