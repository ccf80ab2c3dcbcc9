"""Cosmos Engine: 2d10 keep-two with advantage/disadvantage dice (README, Rules notes: Cosmos).

Total = the two kept d10 + Attribute (0-5) + Skill (0-5); success when total >= TN (2-40).
Advantage and disadvantage are counts of sources: they cancel 1:1, the net is capped at 5, and the
pool is 2 + |net| d10, keeping the two highest (advantage) or the two lowest (disadvantage).
Both kept dice 10 is a critical success, both 1 a critical failure, at any pool. A critical
success always succeeds and a critical failure always fails (house).

Tables (critical effects, conversion) are data: the bot loads ``data/cosmos/*.toml`` and passes
the mappings to ``parse_critical_effects`` / ``parse_conversion``; this module does no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.odds import Distribution, Keep, Outcome, keep, kept_all_equal
from rules.randomness import Rng, roll_dice
from rules.tables import require_int, require_keys, require_table

__all__ = [
    "ACTIONS_BY_SCALE",
    "ADVANTAGE_CAP",
    "ADVANTAGE_SOURCES_MAX",
    "ATTRIBUTE_MAX",
    "ATTRIBUTE_MIN",
    "BASE_DICE",
    "CHALLENGE_NAME_MAX",
    "CHALLENGE_ROLLS_MAX",
    "CHALLENGE_SUCCESSES_MAX",
    "CRITICAL_FAILURE_POINTS",
    "CRITICAL_SUCCESS_POINTS",
    "DIE_SIDES",
    "DIFFICULTY_BANDS",
    "KEPT_DICE",
    "RATING_MAX",
    "SITUATIONAL_LIMIT",
    "SKILL_MAX",
    "SKILL_MIN",
    "SUCCESS_POINTS",
    "TN_MAX",
    "TN_MIN",
    "Action",
    "Band",
    "Challenge",
    "ChallengeStatus",
    "CheckResult",
    "Conversion",
    "ConversionTables",
    "CosmosOdds",
    "CriticalEffects",
    "Difficulty",
    "Era",
    "OpposedResult",
    "Pool",
    "PoolMode",
    "PoolRoll",
    "Scale",
    "Side",
    "abandon_challenge",
    "advance_challenge",
    "challenge_points",
    "check_challenge_roll",
    "check_scale_action",
    "convert",
    "describe_difficulties",
    "difficulty",
    "odds",
    "opposed",
    "parse_action",
    "parse_conversion",
    "parse_critical_effects",
    "parse_scale",
    "roll",
    "start_challenge",
    "succeeds",
]

# --- Limits and constants (README, Rules notes: Cosmos Engine)

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
_CRITICAL_SUCCESS_SUM = KEPT_DICE * DIE_SIDES
_CRITICAL_FAILURE_SUM = KEPT_DICE * 1

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


def _require_modifiers(attribute: object, skill: object, side: str = "") -> tuple[int, int]:
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


# The highest TN of each label (README, Rules notes: Cosmos Engine, "TN labels"); anything above
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


# --- Scales, actions and critical effects


class Scale(StrEnum):
    """The scale of an action, which picks its critical effects."""

    PERSONAL = "personal"
    VEHICLE = "vehicle"
    STARSHIP = "starship"
    CAPITAL = "capital"

    @property
    def display_name(self) -> str:
        """Return the name as users read it."""
        return self.value.capitalize()


class Action(StrEnum):
    """A kind of action; each scale allows three (see ``ACTIONS_BY_SCALE``)."""

    COMBAT = "combat"
    SKILL = "skill"
    SOCIAL = "social"
    PILOTING = "piloting"
    OPERATIONS = "operations"
    FLEET = "fleet"
    NAVIGATION = "navigation"
    DIPLOMACY = "diplomacy"
    STRATEGY = "strategy"
    POLITICS = "politics"
    ECONOMICS = "economics"

    @property
    def display_name(self) -> str:
        """Return the name as the rule document spells it."""
        return _ACTION_TITLES.get(self, self.value.capitalize())


_ACTION_TITLES = {Action.SKILL: "Skill Use", Action.FLEET: "Fleet Command"}

ACTIONS_BY_SCALE: Mapping[Scale, tuple[Action, ...]] = MappingProxyType(
    {
        Scale.PERSONAL: (Action.COMBAT, Action.SKILL, Action.SOCIAL),
        Scale.VEHICLE: (Action.COMBAT, Action.PILOTING, Action.OPERATIONS),
        Scale.STARSHIP: (Action.FLEET, Action.NAVIGATION, Action.DIPLOMACY),
        Scale.CAPITAL: (Action.STRATEGY, Action.POLITICS, Action.ECONOMICS),
    }
)


def _names(members: tuple[StrEnum, ...] | type[StrEnum]) -> str:
    """Return enum values as a comma-separated list for messages."""
    return ", ".join(member.value for member in members)


def parse_scale(name: str) -> Scale:
    """Return the scale called ``name`` (any case), or raise RulesError listing the scales."""
    try:
        return Scale(name.strip().lower())
    except ValueError:
        raise RulesError(f"Unknown scale {name!r}; choose one of: {_names(Scale)}.") from None


def parse_action(scale: Scale, name: str) -> Action:
    """Return the action called ``name`` for ``scale``, or raise RulesError listing its actions."""
    try:
        action = Action(name.strip().lower())
    except ValueError:
        raise RulesError(
            f"Unknown action {name!r} for the {scale.value} scale; "
            f"choose one of: {_names(ACTIONS_BY_SCALE[scale])}."
        ) from None
    check_scale_action(scale, action)
    return action


def check_scale_action(scale: Scale, action: Action) -> None:
    """Raise RulesError unless ``action`` belongs to ``scale``, listing that scale's actions."""
    allowed = ACTIONS_BY_SCALE[scale]
    if action not in allowed:
        raise RulesError(
            f"{action.value!r} is not a {scale.value} action; choose one of: {_names(allowed)}."
        )


@dataclass(frozen=True, slots=True)
class CriticalEffects:
    """The critical success effect text of every scale and action."""

    texts: Mapping[Scale, Mapping[Action, str]]

    def effect(self, scale: Scale, action: Action) -> str:
        """Return the effect text, or raise RulesError if the action is not of that scale."""
        check_scale_action(scale, action)
        return self.texts[scale][action]


def parse_critical_effects(mapping: Mapping[str, object]) -> CriticalEffects:
    """Validate a ``{scale: {action: text}}`` mapping (critical_effects.toml) and freeze it.

    Raises:
        ValueError: naming the bad key (e.g. ``vehicle.social``) when a scale or action is
            unknown or missing, or a text is empty.
    """
    require_keys("", require_table("critical effects", mapping), [scale.value for scale in Scale])
    texts: dict[Scale, Mapping[Action, str]] = {}
    for scale in Scale:
        table = require_table(scale.value, mapping[scale.value])
        require_keys(scale.value, table, [action.value for action in ACTIONS_BY_SCALE[scale]])
        by_action: dict[Action, str] = {}
        for action in ACTIONS_BY_SCALE[scale]:
            text = table[action.value]
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{scale.value}.{action.value}: expected non-empty text")
            by_action[action] = text.strip()
        texts[scale] = MappingProxyType(by_action)
    return CriticalEffects(MappingProxyType(texts))


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
    attribute, skill = _require_modifiers(attribute, skill)
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
    attribute, skill = _require_modifiers(attribute, skill)
    vs_attribute, vs_skill = _require_modifiers(vs_attribute, vs_skill, side="Defender ")
    attacker = _roll_pool(rng, attribute, skill, attacker_pool)
    defender = _roll_pool(rng, vs_attribute, vs_skill, defender_pool)
    winner = Side.ATTACKER if attacker.total > defender.total else Side.DEFENDER
    return OpposedResult(attacker=attacker, defender=defender, winner=winner)


# --- Exact odds


@dataclass(frozen=True, slots=True)
class CosmosOdds:
    """Exact chances of one roll; probabilities are Fractions, ``totals`` is for the chart.

    Attributes:
        success: Chance of success, with the house rule that criticals decide alone.
        critical_success: Chance that both kept dice are 10.
        critical_failure: Chance that both kept dice are 1.
        mean_total: Mean of kept dice + modifier.
        totals: Distribution of kept dice + modifier.
        outcomes: How each total counts, aligned with ``totals.outcomes()``; ``success`` is
            the chance of the totals whose outcome succeeds. Each total comes from exactly one
            kept sum (the modifier is fixed), and the criticals are the kept sums 20 and 2, so
            every roll with the same total counts the same way.
    """

    attribute: int
    skill: int
    tn: int
    pool: Pool
    difficulty: Difficulty
    success: Fraction
    critical_success: Fraction
    critical_failure: Fraction
    mean_total: Fraction
    totals: Distribution
    outcomes: tuple[Outcome, ...]

    @property
    def failure(self) -> Fraction:
        """Return the chance of failure."""
        return 1 - self.success


def odds(
    attribute: int, skill: int, tn: int, advantage: int = 0, disadvantage: int = 0
) -> CosmosOdds:
    """Return the exact chances of success and criticals for one roll (no sampling)."""
    pool = Pool(advantage, disadvantage)
    attribute, skill = _require_modifiers(attribute, skill)
    modifier = attribute + skill
    label = difficulty(tn)
    kept = keep(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep)
    outcomes, wins = _kept_sum_outcomes(kept.min_value, kept.max_value, modifier, int(tn))
    totals = kept + modifier
    return CosmosOdds(
        attribute=attribute,
        skill=skill,
        tn=int(tn),
        pool=pool,
        difficulty=label,
        success=kept.probability_where(wins),
        critical_success=kept_all_equal(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep, DIE_SIDES),
        critical_failure=kept_all_equal(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep, 1),
        mean_total=totals.mean(),
        totals=totals,
        outcomes=outcomes,
    )


# Kept sums run 2-20 whatever the pool, so 11 modifiers x 39 TNs are every case there is.
@lru_cache(maxsize=512)
def _kept_sum_outcomes(
    low: int, high: int, modifier: int, tn: int
) -> tuple[tuple[Outcome, ...], np.ndarray]:
    """Return the outcome of each kept sum from ``low`` to ``high``, and which ones succeed."""
    outcomes = tuple(_kept_sum_outcome(kept_sum, modifier, tn) for kept_sum in range(low, high + 1))
    wins = np.array([outcome.succeeds for outcome in outcomes], dtype=bool)
    wins.flags.writeable = False  # shared by every call with these arguments
    return outcomes, wins


def _kept_sum_outcome(kept_sum: int, modifier: int, tn: int) -> Outcome:
    """Return how a roll whose kept dice sum to ``kept_sum`` counts, by the rule of a roll."""
    # Two kept d10 sum to 20 only when both are 10 and to 2 only when both are 1.
    critical_success = kept_sum == _CRITICAL_SUCCESS_SUM
    critical_failure = kept_sum == _CRITICAL_FAILURE_SUM
    success = succeeds(
        kept_sum + modifier,
        tn,
        critical_success=critical_success,
        critical_failure=critical_failure,
    )
    if success:
        return Outcome.CRITICAL_SUCCESS if critical_success else Outcome.SUCCESS
    return Outcome.CRITICAL_FAILURE if critical_failure else Outcome.FAILURE


# --- Conversion


class Era(StrEnum):
    """Technology era of equipment, converted to advantage dice."""

    PRIMITIVE = "primitive"
    MODERN = "modern"
    ADVANCED = "advanced"
    FUTURISTIC = "futuristic"
    COSMIC = "cosmic"


@dataclass(frozen=True, slots=True)
class Band:
    """An inclusive range of values giving a number of dice; ``high`` None is open-ended."""

    low: int
    high: int | None
    dice: int

    def contains(self, value: int) -> bool:
        """Return whether ``value`` falls in this band."""
        return self.low <= value and (self.high is None or value <= self.high)


@dataclass(frozen=True, slots=True)
class ConversionTables:
    """Conversion tables: era to dice, situational size bands, rating bands."""

    era: Mapping[Era, int]
    situational: tuple[Band, ...]
    rating: tuple[Band, ...]


def _parse_bands(path: str, value: object) -> tuple[Band, ...]:
    """Validate a list of ``{from, to, dice}`` bands: from 0, contiguous, only the last open."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"{path}: expected a non-empty list of bands")
    bands: list[Band] = []
    expected_low = 0
    for index, entry in enumerate(value):
        where = f"{path}[{index}]"
        table = require_table(where, entry)
        last = index == len(value) - 1
        if last and "to" in table:
            raise ValueError(f"{where}.to: the last band must be open-ended (no 'to')")
        require_keys(where, table, ["from", "dice"] if last else ["from", "to", "dice"])
        low = require_int(f"{where}.from", table["from"], expected_low, expected_low)
        dice = require_int(f"{where}.dice", table["dice"], 0, ADVANTAGE_CAP)
        high = None if last else require_int(f"{where}.to", table["to"], low, 10**6)
        bands.append(Band(low, high, dice))
        if high is not None:
            expected_low = high + 1
    return tuple(bands)


def parse_conversion(mapping: Mapping[str, object]) -> ConversionTables:
    """Validate the conversion mapping (conversion.toml) and freeze it.

    Raises:
        ValueError: naming the bad key (e.g. ``era.cosmic`` or ``rating[2].from``).
    """
    require_keys("", require_table("conversion", mapping), ["era", "situational", "rating"])
    era_table = require_table("era", mapping["era"])
    require_keys("era", era_table, [era.value for era in Era])
    era = {
        member: require_int(f"era.{member.value}", era_table[member.value], 0, ADVANTAGE_CAP)
        for member in Era
    }
    return ConversionTables(
        era=MappingProxyType(era),
        situational=_parse_bands("situational", mapping["situational"]),
        rating=_parse_bands("rating", mapping["rating"]),
    )


@dataclass(frozen=True, slots=True)
class Conversion:
    """Legacy modifiers converted to dice, and the pool they make after cancellation and cap.

    Attributes:
        situational_dice: Positive for advantage dice, negative for disadvantage dice.
        pool: All advantage (era + positive situational + rating) and disadvantage dice.
    """

    era: Era | None
    situational: int
    rating: int
    era_dice: int
    situational_dice: int
    rating_dice: int
    pool: Pool


def _band_dice(bands: tuple[Band, ...], value: int) -> int:
    """Return the dice of the band holding ``value`` (bands cover every value from 0)."""
    return next(band.dice for band in bands if band.contains(value))


def convert(
    tables: ConversionTables, *, era: Era | None = None, situational: int = 0, rating: int = 0
) -> Conversion:
    """Convert an equipment era, a situational modifier and a system rating to dice."""
    situational = require_whole(
        "Situational modifier", situational, -SITUATIONAL_LIMIT, SITUATIONAL_LIMIT
    )
    rating = require_whole("Rating", rating, 0, RATING_MAX)
    era_dice = 0 if era is None else tables.era[era]
    size = _band_dice(tables.situational, abs(situational))
    situational_dice = size if situational >= 0 else -size
    rating_dice = _band_dice(tables.rating, rating)
    return Conversion(
        era=era,
        situational=situational,
        rating=rating,
        era_dice=era_dice,
        situational_dice=situational_dice,
        rating_dice=rating_dice,
        pool=Pool(
            advantage=era_dice + max(situational_dice, 0) + rating_dice,
            disadvantage=max(-situational_dice, 0),
        ),
    )


# --- Extended challenges


class ChallengeStatus(StrEnum):
    """Whether an extended challenge still takes rolls."""

    OPEN = "open"
    WON = "won"
    LOST = "lost"
    ABANDONED = "abandoned"  # ended early by a GM, neither won nor lost


@dataclass(frozen=True, slots=True)
class Challenge:
    """An extended challenge: reach ``successes_needed`` within ``max_rolls`` rolls at ``tn``."""

    name: str
    tn: int
    successes_needed: int
    max_rolls: int
    successes: int = 0
    rolls_used: int = 0
    status: ChallengeStatus = ChallengeStatus.OPEN

    @property
    def rolls_left(self) -> int:
        """Return how many rolls remain."""
        return self.max_rolls - self.rolls_used


def start_challenge(name: str, tn: int, successes_needed: int, max_rolls: int) -> Challenge:
    """Return a new open challenge after validating it can be won at all."""
    name = name.strip()
    if not 1 <= len(name) <= CHALLENGE_NAME_MAX:
        raise RulesError(
            f"Challenge name must be 1 to {CHALLENGE_NAME_MAX} characters (got {len(name)})."
        )
    difficulty(tn)
    needed = require_whole("Successes needed", successes_needed, 1, CHALLENGE_SUCCESSES_MAX)
    rolls = require_whole("Max rolls", max_rolls, 1, CHALLENGE_ROLLS_MAX)
    if needed > rolls * CRITICAL_SUCCESS_POINTS:
        raise RulesError(
            f"{needed} successes can't be reached in {rolls} rolls (at most "
            f"{CRITICAL_SUCCESS_POINTS} per roll); allow at least "
            f"{-(-needed // CRITICAL_SUCCESS_POINTS)} rolls."
        )
    return Challenge(name=name, tn=int(tn), successes_needed=needed, max_rolls=rolls)


def _require_open(challenge: Challenge) -> None:
    if challenge.status is not ChallengeStatus.OPEN:
        raise RulesError(
            f"Challenge {challenge.name!r} has ended ({challenge.status.value}); "
            "start a new one to keep rolling."
        )


def check_challenge_roll(challenge: Challenge, tn: int) -> None:
    """Raise RulesError unless a roll at ``tn`` may count towards the challenge."""
    _require_open(challenge)
    if tn != challenge.tn:
        raise RulesError(
            f"Challenge {challenge.name!r} is at TN {challenge.tn}; roll against TN "
            f"{challenge.tn} (got {tn})."
        )


def abandon_challenge(challenge: Challenge) -> Challenge:
    """Return the challenge ended early by its GM, neither won nor lost."""
    _require_open(challenge)
    return replace(challenge, status=ChallengeStatus.ABANDONED)


def challenge_points(result: CheckResult) -> int:
    """Return what a roll adds to a challenge: +2, +1, 0 or -1 for a critical failure."""
    if result.roll.critical_success:
        return CRITICAL_SUCCESS_POINTS
    if result.roll.critical_failure:
        return CRITICAL_FAILURE_POINTS
    return SUCCESS_POINTS if result.success else 0


def advance_challenge(challenge: Challenge, result: CheckResult) -> Challenge:
    """Return the challenge after one roll counts towards it.

    Success +1, critical success +2, critical failure -1 (house), plain failure 0. The tally
    never goes below 0 (house): a critical failure with no successes banked costs nothing more
    than the roll. Reaching the successes wins, even on the last allowed roll; otherwise using
    the last roll loses.

    Raises:
        RulesError: the challenge has ended, or the roll was made against another TN.
    """
    check_challenge_roll(challenge, result.tn)
    successes = max(0, challenge.successes + challenge_points(result))
    rolls_used = challenge.rolls_used + 1
    if successes >= challenge.successes_needed:
        status = ChallengeStatus.WON
    elif rolls_used >= challenge.max_rolls:
        status = ChallengeStatus.LOST
    else:
        status = ChallengeStatus.OPEN
    return replace(challenge, successes=successes, rolls_used=rolls_used, status=status)
