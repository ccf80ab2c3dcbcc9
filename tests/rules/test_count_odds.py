"""Exact odds of success counts (docs/players/dice.md, "Game modes"), as the recap places them:
each checked against an enumeration of the dice, never against the code under test."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from rules import recap_placement as placement


def _placed(expression: str) -> dict[int, Fraction]:
    """P(total <= x) for each x, from the recap's counts."""
    shaped = placement.shape_of(expression)
    assert shaped is not None, expression
    counts = placement.counts_of(shaped.shape)
    low, high = shaped.offset + counts.low, shaped.offset + counts.low + counts.length - 1
    return {
        x: Fraction(counts.at_most(x - shaped.offset), counts.total) for x in range(low, high + 1)
    }


def _cumulative(totals: Counter[int]) -> dict[int, Fraction]:
    everything = sum(totals.values())
    return {
        x: Fraction(sum(n for t, n in totals.items() if t <= x), everything)
        for x in range(min(totals), max(totals) + 1)
    }


def _count(faces: tuple[int, ...], target: int, *, double: int = 99, failure: int = 0) -> int:
    return sum((f >= target) + (f >= double) - (f <= failure) for f in faces)


@pytest.mark.parametrize(
    ("expression", "dice", "sides", "rule"),
    [
        ("3d10 t8 f1", 3, 10, lambda d: _count(d, 8, failure=1)),  # 3wod8
        ("6d6 t5", 6, 6, lambda d: _count(d, 5)),  # sr6
        ("5d6 t6", 5, 6, lambda d: _count(d, 6)),  # 5yz
        ("4d10 t7t10", 4, 10, lambda d: _count(d, 7, double=10)),  # ex4: a 10 counts twice
        ("4d6 t4t6", 4, 6, lambda d: _count(d, 4, double=6)),  # wng 4d6
        ("10 - 3d6 t4", 3, 6, lambda d: 10 - _count(d, 4)),  # 3wh4+, subtracted
    ],
)
def test_a_success_count_is_placed_exactly_as_enumerated(
    expression: str, dice: int, sides: int, rule: object
) -> None:
    assert callable(rule)
    totals = Counter(rule(faces) for faces in itertools.product(range(1, sides + 1), repeat=dice))
    assert _placed(expression) == _cumulative(totals)


def test_rote_quality_rerolls_each_failure_once_as_enumerated() -> None:
    # `2codr` is `2d10 r7 t8`: each die's two draws, the second kept when the first is 7 or less.
    totals: Counter[int] = Counter()
    for draws in itertools.product(range(1, 11), repeat=4):
        finals = [
            second if first <= 7 else first
            for first, second in zip(draws[::2], draws[1::2], strict=True)
        ]
        totals[sum(face >= 8 for face in finals)] += 1
    assert _placed("2d10 r7 t8") == _cumulative(totals)


def test_ten_again_counts_each_ten_and_rolls_again_in_closed_form() -> None:
    # `1cod`: k successes (below the 100-explosion cap) are k 10s in a row, then a 1 to 7
    # (0.7), or k - 1 10s, then an 8 or 9 (0.2).
    def exactly(k: int) -> Fraction:
        tens = Fraction(1, 10)
        return tens**k * Fraction(7, 10) + (tens ** (k - 1) * Fraction(2, 10) if k else 0)

    one = _placed("1d10 t8 ie10")
    for k in range(6):
        assert one[k] == sum(exactly(j) for j in range(k + 1))
    two = _placed("2d10 t8 ie10")  # `2cod`: two such dice, at most 3 successes
    assert two[3] == sum(exactly(a) * exactly(b) for a in range(4) for b in range(4 - a))


def test_what_is_not_a_plain_count_is_still_not_placed() -> None:
    for expression in ("8d6 e6", "4d10 t8 kh2", "4d10 t8 mi2", "1d6 ra1 t4"):
        assert placement.shape_of(expression) is None, expression


def _reference(
    sides: int, worth: dict[int, int], reroll: set[int], explode: set[int]
) -> dict[int, Fraction]:
    """One die's value distribution, by the rules as rolled, by recursion on what is left: its
    first draw rerolled while in ``reroll`` (at most 100 times), each face worth ``worth[face]``,
    and a face in ``explode`` adding a new die that may explode again (at most 100 rounds)."""
    faces, rounds = range(1, sides + 1), 100
    first: dict[int, Fraction] = {face: Fraction(1, sides) for face in faces}
    for _ in range(rounds):  # each pass rerolls what still shows a rerolled face
        moved = sum((first[face] for face in reroll), Fraction(0))
        first = {face: (0 if face in reroll else first[face]) + moved / sides for face in faces}
    added: dict[int, Fraction] = {0: Fraction(1)}  # a new die with no explosion left adds it
    for _ in range(rounds):
        deeper: dict[int, Fraction] = {}
        for face in faces:
            for more, chance in (added.items() if face in explode else [(0, Fraction(1))]):
                value = worth[face] + more
                deeper[value] = deeper.get(value, Fraction(0)) + chance / sides
        added = deeper
    value_of: dict[int, Fraction] = {}
    for face, chance in first.items():
        for more, further in (added.items() if face in explode else [(0, Fraction(1))]):
            value = worth[face] + more
            value_of[value] = value_of.get(value, Fraction(0)) + chance * further
    return value_of


def test_rerolls_again_and_explosions_again_on_several_faces_as_the_rules_roll_them() -> None:
    # `1d6 t4t6 f1 ir2 ie5`: 1 and 2 rerolled until they aren't (at most 100 times), 4 and up a
    # success, a 6 a second one, a 1 takes one off, and a 5 or 6 adds a die that may explode again.
    worth = {face: (face >= 4) + (face >= 6) - (face <= 1) for face in range(1, 7)}
    expected = _reference(6, worth, {1, 2}, {5, 6})
    values = sorted(value for value, chance in expected.items() if chance)
    cumulative, running = {}, Fraction(0)
    for x in range(values[0], values[-1] + 1):  # every value up to the 100th explosion
        running += expected.get(x, Fraction(0))
        cumulative[x] = running
    assert _placed("1d6 t4t6 f1 ir2 ie5") == cumulative


def test_a_d10000_exploding_on_half_its_faces_reads_as_a_d2_with_the_same_faces() -> None:
    # 1 to 5,000 are worth nothing; 5,001 and up are a success and explode again: the same odds
    # as a d2 whose 1 is worth nothing and whose 2 succeeds and explodes (the faces are read by
    # their groups, so the d10,000 costs what the d2 does).
    assert _placed("1d10000 t5001 ie>5000") == _placed("1d2 t2 ie>1")
