"""Exact distributions of `/roll` expressions, table-driven (issue 22).

Each expression's distribution as the bot rolls it is found by enumerating every path of dice
the roller asks for (a generator that answers each draw with every face in turn, re-running the
roll until all paths are seen), and compared with an independent reference: the product of every
die's faces, with keep and drop applied by sorting, term by term.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from rules.expressions import roll_expression


class _Path:
    """A generator that replays a prefix of choices and extends it with 0s, noting each radix."""

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.values: list[int] = []
        self.radices: list[int] = []

    def _draw(self, radix: int) -> int:
        index = len(self.values)
        value = self.prefix[index] if index < len(self.prefix) else 0
        self.values.append(value)
        self.radices.append(radix)
        return value

    def integers(self, low: int, high: int, size: int | None = None) -> object:
        if size is None:
            return low + self._draw(high - low)
        return np.array([low + self._draw(high - low) for _ in range(size)])


def rolled_distribution(expression: str) -> dict[int, Fraction]:
    """Every total the roller can give and its exact chance, by enumerating every dice path."""
    totals: Counter[int] = Counter()
    chances: dict[int, Fraction] = {}
    prefix: list[int] = []
    while True:
        path = _Path(prefix)
        total = roll_expression(expression, path).total  # type: ignore[arg-type]
        chance = Fraction(1)
        for radix in path.radices:
            chance /= radix
        chances[total] = chances.get(total, Fraction(0)) + chance
        totals[total] += 1
        # Next path: the last draw that can still grow grows; everything after it restarts.
        position = len(path.values) - 1
        while position >= 0 and path.values[position] == path.radices[position] - 1:
            position -= 1
        if position < 0:
            return chances
        prefix = [*path.values[:position], path.values[position] + 1]


_TERM = re.compile(r"([+-]?)(?:(\d+)d(\d+)(?:(kh|kl|ph|pl)(\d+))?|(\d+))")


def reference_distribution(expression: str) -> dict[int, Fraction]:
    """The same expression computed independently: each term's dice enumerated and kept by sort."""
    result: dict[int, Fraction] = {0: Fraction(1)}
    for sign, count, sides, operation, amount, constant in _TERM.findall(expression):
        factor = -1 if sign == "-" else 1
        if constant:
            term = {factor * int(constant): Fraction(1)}
        else:
            faces = range(1, int(sides) + 1)
            outcomes: Counter[int] = Counter()
            for dice in itertools.product(faces, repeat=int(count)):
                ordered = sorted(dice)
                kept = {
                    "": ordered,
                    "kh": ordered[len(ordered) - int(amount or 0) :],
                    "kl": ordered[: int(amount or 0)],
                    "ph": ordered[: len(ordered) - int(amount or 0)],
                    "pl": ordered[int(amount or 0) :],
                }[operation]
                outcomes[factor * sum(kept)] += 1
            total = int(sides) ** int(count)
            term = {value: Fraction(n, total) for value, n in outcomes.items()}
        combined: dict[int, Fraction] = {}
        for a, pa in result.items():
            for b, pb in term.items():
                combined[a + b] = combined.get(a + b, Fraction(0)) + pa * pb
        result = combined
    return result


def _table() -> list[str]:
    expressions = []
    for count, sides in itertools.product((1, 2, 3, 4), (2, 4, 6)):
        expressions.append(f"{count}d{sides}")
        for operation in ("kh", "kl", "ph", "pl"):
            for amount in range(1, count):
                expressions.append(f"{count}d{sides}{operation}{amount}")
    expressions += [
        "1d4+1d6", "2d6-1d4+3", "1d6+1d6+1d6", "3d6kh2+1", "4d6kh3", "4d6kl1-1", "2d4pl1+2d4ph1",
        "1d2+1d4-1d6+5", "2d6kh1-2", "3d4pl2+1d2",
    ]  # fmt: skip
    return expressions


TABLE = _table()


def test_the_table_is_big_enough() -> None:
    assert len(TABLE) >= 60


@pytest.mark.parametrize("expression", TABLE)
def test_rolled_distribution_is_exactly_the_reference(expression: str) -> None:
    assert rolled_distribution(expression) == reference_distribution(expression)


@pytest.mark.parametrize(
    ("typed", "spelled"), [("4d6k3", "4d6kh3"), ("3d6p1", "3d6pl1"), ("3d6d1", "3d6pl1")]
)
def test_players_spellings_have_the_explicit_distribution(typed: str, spelled: str) -> None:
    assert rolled_distribution(typed) == reference_distribution(spelled)
