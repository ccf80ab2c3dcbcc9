"""Exact probability distributions over integers: a tiny cousin of icepool.

A ``Distribution`` is an offset (its smallest outcome) and a numpy array of exact integer weights,
one per outcome from the offset upwards. Nothing here samples: sums are convolutions, kept dice
come from counting (order statistics by dynamic programming over the faces), and every
probability the module returns is an exact ``Fraction``. ``probabilities()`` gives floats for
charts.

Building blocks the systems reuse::

    die(10)                                   # one d10
    dice_sum(3, 6)                            # 3d6
    keep(7, 10, 2, Keep.HIGHEST) + 8          # 7d10 keep the two highest, +8
    keep(2, 20, 1, Keep.LOWEST)               # d20 roll-under with advantage (lower of two)
    Distribution.from_faces([-1, 0, 0, 0, 0, 0, 0, 1, 1, 1]).repeated(100)
                                              # net successes of a 100-die d10 pool
    kept_all_equal(7, 10, 2, Keep.HIGHEST, face=10)   # both kept dice are 10

A system says how each outcome counts with ``Outcome`` (critical success, success, failure,
critical failure), so a chart colours its bars by the same rule that gives the chances.

Weights are ``int64`` while the total weight fits comfortably, and Python integers (``object``
arrays) beyond that, so a 100d10 pool stays exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

__all__ = [
    "MAX_DICE",
    "Distribution",
    "Keep",
    "Outcome",
    "dice_sum",
    "die",
    "keep",
    "kept_all_equal",
]

MAX_DICE = 1000
"""Most dice one distribution may describe; beyond this is a bug, not a roll."""

# Below this total weight every partial sum and product of two weights still fits in int64,
# because each term of a convolution or of the keep counting is at most the final total.
_INT64_LIMIT = 2**62


def _weight_dtype(total: int) -> type:
    """Return int64 when weights up to ``total`` fit, else ``object`` (Python integers)."""
    return np.int64 if total < _INT64_LIMIT else object


class Keep(StrEnum):
    """Which dice of a pool are kept."""

    HIGHEST = "highest"
    LOWEST = "lowest"


class Outcome(StrEnum):
    """How one result counts against its target."""

    CRITICAL_SUCCESS = "critical success"
    SUCCESS = "success"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical failure"

    @property
    def succeeds(self) -> bool:
        """Return whether this outcome is a success, critical or not."""
        return self is Outcome.SUCCESS or self is Outcome.CRITICAL_SUCCESS


@dataclass(frozen=True, slots=True, eq=False)
class Distribution:
    """A finite distribution over consecutive integers, with exact integer weights.

    Attributes:
        offset: The smallest outcome; ``weights[i]`` is the weight of ``offset + i``.
        weights: Non-negative integer weights (read-only), trimmed so both ends are non-zero.
    """

    offset: int
    weights: np.ndarray

    def __post_init__(self) -> None:
        weights = np.asarray(self.weights)
        if weights.ndim != 1 or weights.size == 0:
            raise ValueError("weights must be a non-empty one-dimensional array")
        if weights.dtype != object and not np.issubdtype(weights.dtype, np.integer):
            raise ValueError(f"weights must be integers (got dtype {weights.dtype})")
        if (weights < 0).any():
            raise ValueError("weights must not be negative")
        nonzero = np.flatnonzero(weights)
        if nonzero.size == 0:
            raise ValueError("weights must not all be zero")
        first, last = int(nonzero[0]), int(nonzero[-1])
        total = int(weights.sum())
        trimmed: np.ndarray = np.array(weights[first : last + 1], dtype=_weight_dtype(total))
        # Frozen means frozen: a shared (cached) distribution must not be editable in place.
        trimmed.flags.writeable = False
        object.__setattr__(self, "offset", int(self.offset) + first)
        object.__setattr__(self, "weights", trimmed)

    @classmethod
    def constant(cls, value: int) -> Distribution:
        """Return the distribution that is always ``value``."""
        return cls(value, np.ones(1, dtype=np.int64))

    @classmethod
    def from_faces(cls, faces: Iterable[int]) -> Distribution:
        """Return a fair die whose faces show ``faces`` (repeats allowed, e.g. success counts)."""
        values = np.fromiter((int(face) for face in faces), dtype=np.int64)
        if values.size == 0:
            raise ValueError("a die needs at least one face")
        low = int(values.min())
        return cls(low, np.bincount(values - low))

    @classmethod
    def from_counts(cls, counts: Mapping[int, int]) -> Distribution:
        """Return the distribution with integer weight ``counts[outcome]`` for each outcome."""
        if not counts:
            raise ValueError("counts must not be empty")
        low, high = min(counts), max(counts)
        total = sum(int(weight) for weight in counts.values())
        weights: np.ndarray = np.zeros(high - low + 1, dtype=_weight_dtype(total))
        for outcome, weight in counts.items():
            weights[outcome - low] = int(weight)
        return cls(low, weights)

    @property
    def min_value(self) -> int:
        """Return the smallest possible outcome."""
        return self.offset

    @property
    def max_value(self) -> int:
        """Return the largest possible outcome."""
        return self.offset + len(self.weights) - 1

    @property
    def total_weight(self) -> int:
        """Return the sum of the weights: the denominator of every probability."""
        return int(self.weights.sum())

    def outcomes(self) -> np.ndarray:
        """Return every outcome from the smallest to the largest, as an int64 array."""
        return np.arange(self.min_value, self.max_value + 1, dtype=np.int64)

    def probabilities(self) -> np.ndarray:
        """Return the probability of each outcome as float64, aligned with ``outcomes()``."""
        # Python-int true division rounds correctly even for weights far beyond float range.
        return np.array(self.weights / self.total_weight, dtype=np.float64)

    def as_fractions(self) -> dict[int, Fraction]:
        """Return ``{outcome: exact probability}`` for every outcome with non-zero weight."""
        total = self.total_weight
        return {
            self.offset + index: Fraction(int(weight), total)
            for index, weight in enumerate(self.weights)
            if weight
        }

    def probability(self, outcome: int) -> Fraction:
        """Return the exact probability of exactly ``outcome``."""
        index = outcome - self.offset
        if not 0 <= index < len(self.weights):
            return Fraction(0)
        return Fraction(int(self.weights[index]), self.total_weight)

    def at_least(self, threshold: int) -> Fraction:
        """Return the exact probability that the outcome is ``>= threshold``."""
        start = min(max(threshold - self.offset, 0), len(self.weights))
        return Fraction(int(self.weights[start:].sum()), self.total_weight)

    def at_most(self, threshold: int) -> Fraction:
        """Return the exact probability that the outcome is ``<= threshold``."""
        stop = min(max(threshold - self.offset + 1, 0), len(self.weights))
        return Fraction(int(self.weights[:stop].sum()), self.total_weight)

    def probability_where(self, mask: np.ndarray) -> Fraction:
        """Return the exact probability of the outcomes where ``mask`` (aligned with outcomes)."""
        return Fraction(int(self.weights[np.asarray(mask, dtype=bool)].sum()), self.total_weight)

    def mean(self) -> Fraction:
        """Return the exact mean."""
        # Python integers: an int64 dot product could overflow for large totals.
        positions = np.arange(len(self.weights), dtype=object)
        weighted = int(np.dot(self.weights.astype(object), positions))
        return self.offset + Fraction(weighted, self.total_weight)

    def __add__(self, other: Distribution | int) -> Distribution:
        """Return the distribution of the sum (convolution), or shifted by a constant."""
        if isinstance(other, Distribution):
            dtype = _weight_dtype(self.total_weight * other.total_weight)
            weights = np.convolve(self.weights.astype(dtype), other.weights.astype(dtype))
            return Distribution(self.offset + other.offset, weights)
        if isinstance(other, int | np.integer):
            return Distribution(self.offset + int(other), self.weights)
        return NotImplemented

    def __radd__(self, other: int) -> Distribution:
        """Return the distribution shifted by a constant on the left."""
        return self.__add__(other)

    def repeated(self, count: int) -> Distribution:
        """Return the distribution of the sum of ``count`` independent copies."""
        if not 0 <= count <= MAX_DICE:
            raise ValueError(f"count must be between 0 and {MAX_DICE} (got {count})")
        # Repeated squaring: about log2(count) convolutions instead of count.
        result = Distribution.constant(0)
        power: Distribution = self
        while count:
            if count & 1:
                result = result + power
            count >>= 1
            if count:
                power = power + power
        return result

    def __eq__(self, other: object) -> bool:
        """Return whether both describe the same probabilities (weights may differ by a factor)."""
        if not isinstance(other, Distribution):
            return NotImplemented
        if self.offset != other.offset or len(self.weights) != len(other.weights):
            return False
        left = self.weights.astype(object) * other.total_weight
        right = other.weights.astype(object) * self.total_weight
        return bool((left == right).all())

    __hash__ = None  # type: ignore[assignment]  # equal distributions may hold different arrays


def _check_dice(count: int, sides: int) -> None:
    """Raise ValueError unless ``count`` dice with ``sides`` faces make sense."""
    if not 0 <= count <= MAX_DICE:
        raise ValueError(f"count must be between 0 and {MAX_DICE} (got {count})")
    if sides < 1:
        raise ValueError(f"sides must be at least 1 (got {sides})")


@lru_cache(maxsize=64)
def die(sides: int) -> Distribution:
    """Return one fair die numbered 1 to ``sides``."""
    _check_dice(1, sides)
    return Distribution(1, np.ones(sides, dtype=np.int64))


@lru_cache(maxsize=256)
def dice_sum(count: int, sides: int) -> Distribution:
    """Return the sum of ``count`` fair dice with ``sides`` faces (e.g. 3d6)."""
    _check_dice(count, sides)
    return die(sides).repeated(count)


@lru_cache(maxsize=256)
def keep(count: int, sides: int, kept: int, which: Keep) -> Distribution:
    """Return the sum of the ``kept`` highest or lowest of ``count`` dice with ``sides`` faces.

    Exact, by counting: the weights are numbers of ordered rolls out of ``sides ** count``.
    Results are cached; they are immutable, so sharing them is safe.
    """
    _check_dice(count, sides)
    if not 0 <= kept <= count:
        raise ValueError(f"kept must be between 0 and count={count} (got {kept})")
    highest = _highest_die(count, sides) if kept == 1 else _keep_highest(count, sides, kept)
    if which is Keep.HIGHEST:
        return highest
    # Reflect each face f to sides + 1 - f: the lowest dice become the highest, so the kept-lowest
    # sum L equals kept * (sides + 1) - H for the kept-highest sum H of the reflected roll.
    return Distribution(kept * (sides + 1) - highest.max_value, highest.weights[::-1].copy())


def _highest_die(count: int, sides: int) -> Distribution:
    """Return the highest of ``count`` dice: it is at most ``face`` in ``face ** count`` rolls."""
    # The closed form of keeping one die (d20 advantage and the like): ~20x faster than counting.
    at_most = [face**count for face in range(sides + 1)]
    weights = [at_most[face] - at_most[face - 1] for face in range(1, sides + 1)]
    return Distribution(1, np.array(weights, dtype=_weight_dtype(sides**count)))


def _keep_highest(count: int, sides: int, kept: int) -> Distribution:
    """Return the sum of the ``kept`` highest of ``count`` dice, by counting over the faces."""
    max_sum = kept * sides
    dtype = _weight_dtype(sides**count)
    # ways[used, total]: ordered ways to put `used` dice on the faces seen so far (all higher than
    # the current face), whose kept part sums to `total`. Faces go from high to low, so the first
    # `kept` dice placed are exactly the kept ones.
    ways: np.ndarray = np.zeros((count + 1, max_sum + 1), dtype=dtype)
    ways[0, 0] = 1
    for face in range(sides, 0, -1):
        after = np.zeros_like(ways)
        for used in range(count + 1):
            row = ways[used]
            if not row.any():
                continue
            free_slots = max(kept - used, 0)
            remaining = count - used
            for showing in range(remaining + 1):
                gain = face * min(showing, free_slots)
                # comb(remaining, showing): which of the remaining dice show this face.
                after[used + showing, gain:] += row[: max_sum + 1 - gain] * comb(remaining, showing)
        ways = after
    return Distribution(0, ways[count])


def kept_all_equal(count: int, sides: int, kept: int, which: Keep, face: int) -> Fraction:
    """Return the exact probability that every kept die shows ``face``.

    With ``face=sides`` and ``Keep.HIGHEST`` this is "all kept dice are the top face" (a Cosmos
    critical success); ``face=1`` gives the bottom face. The kept ``Keep.HIGHEST`` dice all show
    ``face`` exactly when no die is higher and at least ``kept`` dice show it (mirrored for
    ``Keep.LOWEST``).
    """
    _check_dice(count, sides)
    if not 0 <= kept <= count:
        raise ValueError(f"kept must be between 0 and count={count} (got {kept})")
    if not 1 <= face <= sides:
        raise ValueError(f"face must be between 1 and {sides} (got {face})")
    if kept == 0:
        return Fraction(1)  # vacuously true: no kept die can differ
    # Faces the other dice may show: below `face` when keeping the highest, above when lowest.
    others = face - 1 if which is Keep.HIGHEST else sides - face
    ways = sum(
        comb(count, showing) * others ** (count - showing) for showing in range(kept, count + 1)
    )
    return Fraction(ways, sides**count)
