"""The exact-odds core against brute force and hand-computed values."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.odds import (
    MAX_DICE,
    Distribution,
    Keep,
    Outcome,
    _keep_highest,
    dice_sum,
    die,
    keep,
    kept_all_equal,
)
from tests.rules.brute_force import kept_counts, kept_counts_by_grid, kept_counts_by_product


def _sum_counts(counts: Counter[tuple[int, ...]]) -> dict[int, int]:
    """Collapse kept-face counts to counts of the kept sum."""
    sums: Counter[int] = Counter()
    for faces, ways in counts.items():
        sums[sum(faces)] += ways
    return dict(sums)


def _weights_by_outcome(distribution: Distribution) -> dict[int, int]:
    """Return ``{outcome: integer weight}`` for non-zero weights."""
    return {
        int(outcome): int(weight)
        for outcome, weight in zip(distribution.outcomes(), distribution.weights, strict=True)
        if weight
    }


@pytest.mark.parametrize("count", [2, 3, 4])
@pytest.mark.parametrize("which", list(Keep))
def test_brute_force_enumerators_agree(count: int, which: Keep) -> None:
    assert kept_counts_by_product(count, 10, 2, which) == kept_counts_by_grid(count, 10, 2, which)


@pytest.mark.parametrize("count", range(2, 8))
@pytest.mark.parametrize("which", list(Keep))
def test_ruling_exact_odds_keep_two_of_d10_pool_equals_brute_force(count: int, which: Keep) -> None:
    counts = kept_counts(count, 10, 2, which)
    distribution = keep(count, 10, 2, which)
    assert distribution.total_weight == 10**count
    assert _weights_by_outcome(distribution) == _sum_counts(counts)
    brute_mean = Fraction(sum(sum(faces) * ways for faces, ways in counts.items()), 10**count)
    assert distribution.mean() == brute_mean
    tens = sum(ways for faces, ways in counts.items() if faces == (10, 10))
    ones = sum(ways for faces, ways in counts.items() if faces == (1, 1))
    assert kept_all_equal(count, 10, 2, which, face=10) == Fraction(tens, 10**count)
    assert kept_all_equal(count, 10, 2, which, face=1) == Fraction(ones, 10**count)


@pytest.mark.parametrize(
    ("count", "sides", "kept"),
    [
        (3, 6, 1),
        (4, 6, 3),
        (5, 4, 2),
        (3, 8, 3),
        (4, 5, 0),
        (6, 3, 4),
        (1, 6, 1),
        (2, 20, 1),
        (3, 20, 1),
    ],
)
@pytest.mark.parametrize("which", list(Keep))
def test_keep_other_shapes_equal_brute_force(
    count: int, sides: int, kept: int, which: Keep
) -> None:
    counts = kept_counts_by_product(count, sides, kept, which)
    assert _weights_by_outcome(keep(count, sides, kept, which)) == _sum_counts(counts)
    for face in range(1, sides + 1):
        hits = sum(ways for faces, ways in counts.items() if all(f == face for f in faces))
        assert kept_all_equal(count, sides, kept, which, face) == Fraction(hits, sides**count)


@pytest.mark.parametrize("count", [1, 5, 14, 15, 30])
def test_keeping_one_die_agrees_with_the_general_counting_past_int64(count: int) -> None:
    # keep(..., kept=1) takes a closed form; the face-by-face counting it skips (checked against
    # brute force above) must give the same weights, in int64 (20**14) and beyond it (20**15).
    expected = _keep_highest(count, 20, 1)
    for which, weights in ((Keep.HIGHEST, expected.weights), (Keep.LOWEST, expected.weights[::-1])):
        distribution = keep(count, 20, 1, which)
        assert distribution.offset == 1
        assert distribution.weights.tolist() == weights.tolist()
        assert distribution.total_weight == 20**count


def test_hand_values_of_the_cosmos_pools() -> None:
    assert keep(2, 10, 2, Keep.HIGHEST).mean() == 11
    assert keep(3, 10, 2, Keep.HIGHEST).mean() == Fraction(539, 40)  # 13.475
    assert keep(3, 10, 2, Keep.LOWEST).mean() == Fraction(341, 40)  # 8.525 = 22 - 13.475
    assert kept_all_equal(2, 10, 2, Keep.HIGHEST, face=10) == Fraction(1, 100)
    assert kept_all_equal(3, 10, 2, Keep.HIGHEST, face=10) == Fraction(28, 1000)
    # Keeping the highest two, both are 1 only when every die is 1.
    assert kept_all_equal(3, 10, 2, Keep.HIGHEST, face=1) == Fraction(1, 1000)


def test_well_known_values() -> None:
    # 4d6 drop lowest and d20 with advantage, as published everywhere.
    assert keep(4, 6, 3, Keep.HIGHEST).mean() == Fraction(15869, 1296)
    assert keep(2, 20, 1, Keep.HIGHEST).mean() == Fraction(553, 40)
    assert keep(2, 20, 1, Keep.LOWEST).mean() == Fraction(287, 40)
    assert keep(2, 20, 1, Keep.HIGHEST).at_least(20) == Fraction(39, 400)


def test_dice_sum_is_the_triangle_for_2d10() -> None:
    expected = {total: 10 - abs(total - 11) for total in range(2, 21)}
    assert _weights_by_outcome(dice_sum(2, 10)) == expected
    assert dice_sum(2, 10) == keep(2, 10, 2, Keep.HIGHEST)


def test_dice_sum_equals_brute_force_3d6() -> None:
    counts = Counter(sum(faces) for faces in itertools.product(range(1, 7), repeat=3))
    assert _weights_by_outcome(dice_sum(3, 6)) == dict(counts)


def test_tail_probabilities_at_every_threshold() -> None:
    distribution = dice_sum(2, 10)
    fractions = distribution.as_fractions()
    for threshold in range(-5, 30):
        assert distribution.at_least(threshold) == sum(
            (p for outcome, p in fractions.items() if outcome >= threshold), Fraction(0)
        )
        assert distribution.at_most(threshold) == sum(
            (p for outcome, p in fractions.items() if outcome <= threshold), Fraction(0)
        )


def test_adding_a_constant_shifts_and_convolution_adds() -> None:
    base = die(6)
    assert (base + 3).min_value == 4
    assert (3 + base).max_value == 9
    assert (base + 3).mean() == base.mean() + 3
    assert base + base == dice_sum(2, 6)


def test_custom_faces_and_repeated_sum() -> None:
    success_die = Distribution.from_faces([-1, 0, 0, 0, 0, 0, 0, 1, 1, 1])
    pool = success_die.repeated(2)
    assert pool.as_fractions() == {
        -2: Fraction(1, 100),
        -1: Fraction(12, 100),
        0: Fraction(42, 100),
        1: Fraction(36, 100),
        2: Fraction(9, 100),
    }
    assert success_die.repeated(0) == Distribution.constant(0)


def test_large_pool_stays_exact_with_python_integers() -> None:
    pool = Distribution.from_faces([-1, 0, 0, 0, 0, 0, 0, 1, 1, 1]).repeated(100)
    assert pool.weights.dtype == object
    assert pool.total_weight == 10**100
    assert pool.mean() == 20  # 100 * (3 - 1) / 10
    assert pool.probability(100) == Fraction(3**100, 10**100)
    assert np.isclose(pool.probabilities().sum(), 1.0)


def test_distribution_is_immutable_and_trimmed() -> None:
    distribution = Distribution(0, np.array([0, 0, 1, 2, 0]))
    assert (distribution.min_value, distribution.max_value) == (2, 3)
    with pytest.raises(ValueError):
        distribution.weights[0] = 5
    assert distribution == Distribution(2, np.array([2, 4]))
    assert distribution != Distribution(2, np.array([1, 1]))
    assert Distribution.from_counts({3: 2, 2: 1}) == distribution


@pytest.mark.parametrize(
    "weights", [np.array([]), np.array([0, 0]), np.array([1, -1]), np.array([0.5, 0.5])]
)
def test_bad_weights_are_refused(weights: np.ndarray) -> None:
    with pytest.raises(ValueError):
        Distribution(0, weights)


def test_bad_dice_are_refused() -> None:
    with pytest.raises(ValueError):
        keep(2, 10, 3, Keep.HIGHEST)
    with pytest.raises(ValueError):
        dice_sum(MAX_DICE + 1, 6)
    with pytest.raises(ValueError):
        die(0)
    with pytest.raises(ValueError):
        kept_all_equal(3, 10, 2, Keep.HIGHEST, face=11)


@given(
    count=st.integers(1, 8),
    sides=st.integers(1, 12),
    data=st.data(),
    which=st.sampled_from(list(Keep)),
)
def test_keep_is_a_proper_distribution(
    count: int, sides: int, data: st.DataObject, which: Keep
) -> None:
    kept = data.draw(st.integers(0, count))
    distribution = keep(count, sides, kept, which)
    assert distribution.total_weight == sides**count
    assert distribution.min_value == kept
    assert distribution.max_value == kept * sides
    assert np.isclose(distribution.probabilities().sum(), 1.0, rtol=0, atol=1e-12)
    # Keeping the highest never averages less than keeping the lowest.
    assert (
        keep(count, sides, kept, Keep.HIGHEST).mean()
        >= keep(count, sides, kept, Keep.LOWEST).mean()
    )


def test_outcome_succeeds_on_success_and_critical_success_only() -> None:
    assert {outcome for outcome in Outcome if outcome.succeeds} == {
        Outcome.SUCCESS,
        Outcome.CRITICAL_SUCCESS,
    }
