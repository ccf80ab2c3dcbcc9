"""Damage expressions: a small, safe notation, and how strikes split between targets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.errors import RulesError
from rules.odds import Distribution, dice_sum
from rules.randomness import Rng, roll_dice
from rules.realms.states import (
    ATTACK_DICE_MAX,
    DAMAGE_DICE_MAX,
    DAMAGE_MODIFIER_MAX,
    DAMAGE_SIDES,
    DAMAGE_TEXT_MAX,
)

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
