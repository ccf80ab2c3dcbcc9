"""Chances read at a glance: never 1e-05%, never 0.00% or 100.00% for a chance that isn't."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.render.numbers import by_chance, float_mean, percent, ranked, signed
from rules import cosmos, realms
from rules.modular import ExactChances


@pytest.mark.parametrize(
    ("chance", "expected"),
    [
        (Fraction(0), "0%"),
        (Fraction(1), "100%"),
        (Fraction(1, 2), "50.00%"),
        (Fraction(1, 3), "33.33%"),
        (Fraction(2, 3), "66.67%"),
        (Fraction(1, 100), "1.00%"),
        (Fraction(523, 10**4), "5.23%"),
        (Fraction(1, 10**4), "0.01%"),
        (Fraction(9999, 10**4), "99.99%"),
    ],
)
def test_percent_shows_two_decimals_between_one_in_ten_thousand_and_its_complement(
    chance: Fraction, expected: str
) -> None:
    assert percent(chance) == expected


@pytest.mark.parametrize(
    ("chance", "expected"),
    [
        (Fraction(1, 10**5), "0.001%"),  # exactly 0.001 %: not below it
        (Fraction(15, 10**6), "0.0015%"),
        (Fraction(1, 20_000), "0.005%"),
        (Fraction(99, 10**6), "0.0099%"),
        (Fraction(1, 10**6), "< 0.001% (1 in 1,000,000)"),
        (Fraction(1, 10**7), "< 0.001% (1 in 10,000,000)"),
        (Fraction(3, 10**7), "< 0.001% (about 1 in 3,333,333)"),
        (Fraction(1, 2**40), "< 0.001% (1 in 1,099,511,627,776)"),
    ],
)
def test_percent_shows_tiny_chances_in_plain_words(chance: Fraction, expected: str) -> None:
    assert percent(chance) == expected


@pytest.mark.parametrize(
    ("chance", "expected"),
    [
        (1 - Fraction(1, 10**5), "99.999%"),
        (1 - Fraction(15, 10**6), "99.9985%"),
        (1 - Fraction(1, 20_000), "99.995%"),
        (1 - Fraction(51, 10**6), "99.9949%"),
        (1 - Fraction(1, 10**6), "> 99.999% (all but 1 in 1,000,000)"),
        (1 - Fraction(1, 10**7), "> 99.999% (all but 1 in 10,000,000)"),
    ],
)
def test_percent_never_rounds_an_almost_certain_chance_to_100(
    chance: Fraction, expected: str
) -> None:
    assert percent(chance) == expected


@given(
    st.fractions(min_value=0, max_value=1, max_denominator=10**12).filter(
        lambda chance: 0 < chance < 1
    )
)
def test_percent_of_a_chance_strictly_between_0_and_1_never_looks_like_0_or_100(
    chance: Fraction,
) -> None:
    text = percent(chance)
    number, sign, words = text.lstrip("<> ").partition("%")
    assert sign == "%" and words in ("", f" ({words[2:-1]})")
    assert "e" not in number  # no scientific notation
    assert 0 < float(number) < 100


def test_percent_of_cosmos_criticals_with_five_extra_dice() -> None:
    advantaged = cosmos.odds(5, 5, 2, advantage=5)
    assert percent(advantaged.critical_failure) == "< 0.001% (1 in 10,000,000)"
    assert percent(advantaged.success) == "> 99.999% (all but 1 in 10,000,000)"
    disadvantaged = cosmos.odds(5, 5, 8, disadvantage=5)
    assert percent(disadvantaged.critical_success) == "< 0.001% (1 in 10,000,000)"
    assert percent(disadvantaged.success) == "85.03%"


def test_signed_uses_a_true_minus() -> None:
    assert (signed(2), signed(0), signed(-1)) == ("+2", "0", "−1")


def test_ranked_and_mean_of_exact_chances_match_those_of_the_same_fractions() -> None:
    # Realms' damage odds (an ExactChances, floats precomputed) rank and average as a dict of
    # the same Fractions does: most likely first, ties by value.
    result = realms.attack_odds(3, 11, realms.parse_damage("1d4+1"), realms.decide(0, 1))
    [target] = result.targets
    exact = target.damage
    assert isinstance(exact, ExactChances)
    fractions = dict(exact.items())
    assert ranked(exact) == ranked(fractions) == [value for value, _ in by_chance(fractions)]
    assert float_mean(exact) == pytest.approx(float_mean(fractions), rel=1e-12)
    assert float_mean(exact) == pytest.approx(
        float(sum(value * chance for value, chance in fractions.items())), rel=1e-12
    )
