"""The limits, the target numbers and their labels, and the dice pool (sources in, dice out)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.odds import Keep

# --- Limits and constants (docs/players/cosmos.md, "Rules notes")

ATTRIBUTE_MIN, ATTRIBUTE_MAX = 0, 5
SKILL_MIN, SKILL_MAX = 0, 5
TN_MIN, TN_MAX = 2, 40
DIE_SIDES = 10
BASE_DICE = 2
KEPT_DICE = 2
ADVANTAGE_CAP = 5
"""Most net advantage or disadvantage dice after cancellation: pools run 2d10 to 7d10."""
ADVANTAGE_SOURCES_MAX = 20
"""Most advantage (or disadvantage) sources one roll accepts; an input limit, not a rule."""

# Two kept d10 sum to 20 only when both show 10, and to 2 only when both show 1, so on the
# distribution of kept sums the criticals are exactly its two ends.
CRITICAL_SUCCESS_SUM = KEPT_DICE * DIE_SIDES
CRITICAL_FAILURE_SUM = KEPT_DICE * 1

# Extended challenges: points per roll (critical failure -1 is a house ruling) and input limits.
SUCCESS_POINTS = 1
CRITICAL_SUCCESS_POINTS = 2
CRITICAL_FAILURE_POINTS = -1
CHALLENGE_NAME_MAX = 100
CHALLENGE_SUCCESSES_MAX = 20
CHALLENGE_ROLLS_MAX = 50

# Conversion input limits: the document's top bands are open-ended, these only stop nonsense.
SITUATIONAL_LIMIT = 20
RATING_MAX = 50


def require_modifiers(attribute: object, skill: object, side: str = "") -> tuple[int, int]:
    """Return Attribute and Skill checked against 0-5; ``side`` prefixes the messages."""
    return (
        require_whole(f"{side}Attribute".capitalize(), attribute, ATTRIBUTE_MIN, ATTRIBUTE_MAX),
        require_whole(f"{side}Skill".capitalize(), skill, SKILL_MIN, SKILL_MAX),
    )


def _require_count(label: str, value: object) -> int:
    """Return an advantage/disadvantage source count, refusing negatives with a hint."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool) and value < 0:
        opposite = "disadvantage" if label == "Advantage" else "advantage"
        raise RulesError(
            f"{label} can't be negative (got {value}): it counts sources, from 0 to "
            f"{ADVANTAGE_SOURCES_MAX}; use {opposite} instead."
        )
    return require_whole(label, value, 0, ADVANTAGE_SOURCES_MAX)


# --- Target numbers


class Difficulty(StrEnum):
    """The label of a TN: Easy <= 10, Moderate 11-14, Hard 15-18, Extreme >= 19."""

    EASY = "Easy"
    MODERATE = "Moderate"
    HARD = "Hard"
    EXTREME = "Extreme"


# The highest TN of each label (docs/players/cosmos.md, "TN labels"); anything above
# the last is Extreme.
DIFFICULTY_BANDS: tuple[tuple[Difficulty, int], ...] = (
    (Difficulty.EASY, 10),
    (Difficulty.MODERATE, 14),
    (Difficulty.HARD, 18),
)


def difficulty(tn: int) -> Difficulty:
    """Return the label of a legal TN."""
    tn = require_whole("TN", tn, TN_MIN, TN_MAX)
    for label, highest in DIFFICULTY_BANDS:
        if tn <= highest:
            return label
    return Difficulty.EXTREME


def describe_difficulties() -> str:
    """Return the TN labels as a line of help: "Easy ≤10, Moderate 11–14, …, Extreme ≥19"."""
    parts, low = [], None
    for label, highest in DIFFICULTY_BANDS:
        parts.append(f"{label} ≤{highest}" if low is None else f"{label} {low}–{highest}")
        low = highest + 1
    return ", ".join([*parts, f"{Difficulty.EXTREME} ≥{low}"])


def succeeds(total: int, tn: int, *, critical_success: bool, critical_failure: bool) -> bool:
    """Return whether a roll succeeds: total >= TN, but criticals decide alone (house)."""
    if critical_success:
        return True
    if critical_failure:
        return False
    return total >= tn


# --- Dice pool


class PoolMode(StrEnum):
    """Whether a pool rolls extra dice, and which two it keeps."""

    NORMAL = "normal"
    ADVANTAGE = "advantage"
    DISADVANTAGE = "disadvantage"


@dataclass(frozen=True, slots=True)
class Pool:
    """The dice for one roll: sources given, then 1:1 cancellation, then the cap of 5.

    Attributes:
        advantage: Advantage sources given (0-20).
        disadvantage: Disadvantage sources given (0-20).
    """

    advantage: int = 0
    disadvantage: int = 0

    def __post_init__(self) -> None:
        _require_count("Advantage", self.advantage)
        _require_count("Disadvantage", self.disadvantage)

    @property
    def uncapped_net(self) -> int:
        """Return advantage minus disadvantage, before the cap."""
        return self.advantage - self.disadvantage

    @property
    def net(self) -> int:
        """Return the net extra dice after the cap: positive advantage, negative disadvantage."""
        return max(-ADVANTAGE_CAP, min(ADVANTAGE_CAP, self.uncapped_net))

    @property
    def capped(self) -> bool:
        """Return whether the cap of 5 removed some net dice."""
        return self.net != self.uncapped_net

    @property
    def dice(self) -> int:
        """Return how many d10 are rolled (2-7)."""
        return BASE_DICE + abs(self.net)

    @property
    def keep(self) -> Keep:
        """Return which two dice are kept."""
        return Keep.LOWEST if self.net < 0 else Keep.HIGHEST

    @property
    def mode(self) -> PoolMode:
        """Return whether this is a normal, advantage or disadvantage roll."""
        if self.net > 0:
            return PoolMode.ADVANTAGE
        if self.net < 0:
            return PoolMode.DISADVANTAGE
        return PoolMode.NORMAL
