"""Exact polynomial powers modulo primes (rules.modular) against multiplication by hand."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from rules import modular
from rules.modular import ExactChances, Residues, moduli_above, power, powers


def _power_by_hand(terms: dict[int, int], exponent: int) -> dict[int, int]:
    """Multiply the polynomial by itself term by term, Python integers throughout."""
    result = {0: 1}
    for _ in range(exponent):
        product: dict[int, int] = {}
        for at, weight in result.items():
            for other, factor in terms.items():
                product[at + other] = product.get(at + other, 0) + weight * factor
        result = product
    return result


@pytest.mark.parametrize(
    ("terms", "exponent"),
    [
        ({0: 3, 1: 1}, 1),
        ({0: 3, 1: 1}, 7),
        ({-2: 1, 0: 0, 3: 5}, 4),  # negative exponents and a zero weight
        ({5: 2}, 11),  # one term: a single coefficient
        # Realms' largest: a d20 miss/hit around 4d20+50 (weights near 2^22), 11 strikes, so
        # the coefficients reach about 2^238 and take nine primes.
        ({0: 3_200_000, **{50 + face: 20 * (face % 7 + 1) for face in range(4, 81)}}, 11),
    ],
)
@pytest.mark.parametrize("small_power_bits", [0, 10**9])  # transforms always; big integers
def test_power_equals_multiplication_by_hand(
    terms: dict[int, int], exponent: int, small_power_bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modular, "SMALL_POWER_BITS", small_power_bits)
    by_hand = _power_by_hand(terms, exponent)
    bound = sum(terms.values()) ** exponent
    low, found = power(terms, exponent, moduli_above(bound))
    assert low == exponent * min(terms)
    counts = found.integers()
    assert len(counts) == exponent * (max(terms) - min(terms)) + 1
    assert {low + index: count for index, count in enumerate(counts) if count} == {
        at: weight for at, weight in by_hand.items() if weight
    }


def test_moduli_are_primes_for_transforms_and_exceed_the_bound() -> None:
    bound = (20 * 20**4) ** 11  # Realms' largest count: 11 strikes of 4d20
    moduli = moduli_above(bound)
    product = 1
    for prime in moduli:
        assert prime < 2**29 and (prime - 1) % 2**21 == 0
        assert all(prime % divisor for divisor in range(2, int(prime**0.5) + 1))
        product *= prime
    assert product > bound and product // moduli[-1] <= bound  # the fewest that suffice


def test_exact_chances_read_exact_fractions_and_leave_out_impossible_values() -> None:
    moduli = moduli_above(10**40)
    counts = [0, 3 * 10**39, 0, 7 * 10**39 - 1, 1]  # over 10^40: outcomes 0-4
    residues = np.array([[count % prime for count in counts] for prime in moduli])
    chances = ExactChances(np.arange(5), Residues(moduli, residues), 10**40)
    assert list(chances) == [1, 3, 4] and len(chances) == 3 and 2 not in chances
    assert chances[1] == Fraction(3, 10) and chances[4] == Fraction(1, 10**40)
    assert chances.count(3) == 7 * 10**39 - 1 and chances.count(2) == 0
    assert dict(chances.items()) == {
        1: Fraction(3, 10),
        3: Fraction(7 * 10**39 - 1, 10**40),
        4: Fraction(1, 10**40),
    }
    for (outcome, close), exact in zip(chances.float_items(), chances.values(), strict=True):
        assert close == pytest.approx(float(exact), rel=1e-15), outcome
    with pytest.raises(KeyError):
        chances[2]


@pytest.mark.parametrize("small_power_bits", [0, 10**9])
def test_powers_of_several_polynomials_equal_each_power_alone(
    small_power_bits: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As a Realms split asks: two polynomials with the same exponents (all hits, plain hits),
    # several exponents (the targets' strikes); each as multiplied by hand.
    monkeypatch.setattr(modular, "SMALL_POWER_BITS", small_power_bits)
    polynomials = [{-3: 5, 0: 7, 2: 1}, {-3: 4, 0: 7, 2: 1}]
    exponents = [1, 2, 5]
    moduli = moduli_above(13**5)
    found = powers(polynomials, exponents, moduli)
    for terms, row in zip(polynomials, found, strict=True):
        for exponent, (low, residues) in zip(exponents, row, strict=True):
            assert low == -3 * exponent
            counts = residues.integers()
            assert {low + i: count for i, count in enumerate(counts) if count} == {
                at: weight for at, weight in _power_by_hand(terms, exponent).items() if weight
            }
