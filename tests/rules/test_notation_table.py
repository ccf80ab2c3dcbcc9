"""Exact distributions of `/roll` expressions, table-driven (issue 22).

Each expression's distribution as the bot rolls it is found by enumerating every path of dice
the roller asks for (a generator that answers each draw with every face in turn, re-running the
roll until all paths are seen), and compared with an independent reference: what each die can
turn into (rerolled, exploded, with the documented cap of 100), multiplied out over the dice of
each term, with `mi`/`ma`, keep and drop applied by sorting and successes counted, term by term.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

import numpy as np
import pytest

from rules.expressions import roll_expression, roll_request
from rules.randomness import Rng
from tests.expect import as_rng

T = TypeVar("T")


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
    return enumerated(lambda rng: roll_expression(expression, rng).total)


def enumerated(roll: Callable[[Rng], T]) -> dict[T, Fraction]:
    """Every outcome ``roll`` can give and its exact chance, by enumerating every dice path."""
    # A path's chance is 1 over the product of its draws' radices: count the paths of each
    # outcome by that product, and add the fractions up once at the end (exact all the same).
    paths: Counter[tuple[T, int]] = Counter()
    prefix: list[int] = []
    while True:
        path = _Path(prefix)
        total = roll(as_rng(path))
        paths[total, math.prod(path.radices)] += 1
        # Next path: the last draw that can still grow grows; everything after it restarts.
        position = len(path.values) - 1
        while position >= 0 and path.values[position] == path.radices[position] - 1:
            position -= 1
        if position < 0:
            break
        prefix = [*path.values[:position], path.values[position] + 1]
    chances: dict[T, Fraction] = {}
    for (total, ways), count in paths.items():
        chances[total] = chances.get(total, Fraction(0)) + Fraction(count, ways)
    return chances


_TERM = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<count>\d+)d(?P<sides>\d+|%|F)"
    r"(?:(?P<reroll>ir|r)(?P<reroll_at>\d+))?(?:(?P<explode>ie|e)(?P<explode_at>\d+))?"
    r"(?:mi(?P<least>\d+))?(?:ma(?P<most>\d+))?(?:(?P<keep>kh|kl|dh|dl)(?P<amount>\d+))?"
    r"(?:t(?P<success>\d+))?(?:f(?P<failure>\d+))?|(?P<constant>\d+))"
)
REPEATS = 100  # the roller's documented cap on explosions, or rerolls, of one die

Outcomes = dict[tuple[int, ...], Fraction]  # the dice a die turns into, and their chance


def _die(term: dict[str, str]) -> Outcomes:
    """What one die of ``term`` becomes, rerolls and explosions included, and with what chance."""
    sides = term["sides"]
    faces = {"%": range(1, 101), "F": range(-1, 2)}.get(sides) or range(1, int(sides) + 1)
    each = Fraction(1, len(faces))

    def rerolled(depth: int) -> dict[int, Fraction]:  # the face after `depth` rerolls
        result: dict[int, Fraction] = {}
        for face in faces:
            again = term["reroll"] and face <= int(term["reroll_at"])
            if again and (depth == 0 or (term["reroll"] == "ir" and depth < REPEATS)):
                for value, chance in rerolled(depth + 1).items():
                    result[value] = result.get(value, Fraction(0)) + each * chance
            else:
                result[face] = result.get(face, Fraction(0)) + each
        return result

    def exploded(face: int, depth: int) -> Outcomes:  # a die showing ``face``, `depth` new dice in
        limit = REPEATS if term["explode"] == "ie" else 1
        if not term["explode"] or face < int(term["explode_at"]) or depth == limit:
            return {(face,): Fraction(1)}
        result: Outcomes = {}
        for new in faces:
            for dice, chance in exploded(new, depth + 1).items():
                key = (face, *dice)
                result[key] = result.get(key, Fraction(0)) + each * chance
        return result

    outcomes: Outcomes = {}
    for face, chance in rerolled(0).items():
        for dice, more in exploded(face, 0).items():
            outcomes[dice] = outcomes.get(dice, Fraction(0)) + chance * more
    return outcomes


def _worth(term: dict[str, str], pool: list[int]) -> int:
    """A pool of dice after `mi`/`ma`, keep or drop, and success counting."""
    if term["least"]:
        pool = [max(value, int(term["least"])) for value in pool]
    if term["most"]:
        pool = [min(value, int(term["most"])) for value in pool]
    ordered, amount = sorted(pool), int(term["amount"] or 0)
    kept = {
        None: ordered,
        "kh": ordered[len(ordered) - amount :],
        "kl": ordered[:amount],
        "dh": ordered[: max(0, len(ordered) - amount)],
        "dl": ordered[amount:],
    }[term["keep"]]
    if term["success"] or term["failure"]:
        successes = sum(value >= int(term["success"]) for value in kept) if term["success"] else 0
        failures = sum(value <= int(term["failure"]) for value in kept) if term["failure"] else 0
        return successes - failures
    return sum(kept)


def reference_distribution(expression: str) -> dict[int, Fraction]:
    """The same expression computed independently: every die's outcomes, multiplied out."""
    result: dict[int, Fraction] = {0: Fraction(1)}
    for match in _TERM.finditer(expression):
        term = match.groupdict()
        factor = -1 if term["sign"] == "-" else 1
        if term["constant"]:
            distribution = {factor * int(term["constant"]): Fraction(1)}
        else:
            die = _die(term)
            distribution = {}
            for dice in itertools.product(die.items(), repeat=int(term["count"])):
                chance = Fraction(1)
                for _, each in dice:
                    chance *= each
                value = factor * _worth(term, [value for pool, _ in dice for value in pool])
                distribution[value] = distribution.get(value, Fraction(0)) + chance
        combined: dict[int, Fraction] = {}
        for a, pa in result.items():
            for b, pb in distribution.items():
                combined[a + b] = combined.get(a + b, Fraction(0)) + pa * pb
        result = combined
    return result


def _table() -> list[str]:
    expressions = []
    for count, sides in itertools.product((1, 2, 3, 4), (2, 4, 6)):
        expressions.append(f"{count}d{sides}")
        for operation in ("kh", "kl", "dh", "dl"):
            for amount in range(1, count):
                expressions.append(f"{count}d{sides}{operation}{amount}")
    expressions += [
        "1d4+1d6", "2d6-1d4+3", "1d6+1d6+1d6", "3d6kh2+1", "4d6kh3", "4d6kl1-1", "2d4dl1+2d4dh1",
        "1d2+1d4-1d6+5", "2d6kh1-2", "3d4dl2+1d2",
        # explode once, and again and again (one face, so every path can be enumerated)
        "1d6e6", "2d6e6", "2d6e5", "1d4e3+1", "3d6e6kh2", "3d4e4dl1", "1d6ie6", "1d4ie4",
        "1d2ie2", "1d10ie10-5",
        # reroll once, and until the face is gone
        "2d4r1", "3d4r2", "2d6r1kh1", "1d6r3", "1d4ir1", "1d6ir1", "2d6r1e6",
        # success counting, failures taken away
        "5d6t5", "4d6t5f1", "3d10t7f1", "2d6e6t5", "4d6kh3t4+1", "3d6f2",
        # Fudge and percentile dice
        "4dF", "3dF+2", "4dFkh2", "1d%", "2d%", "1d%-1d10",
        # minimum and maximum
        "3d6mi3", "2d8ma5", "2d6mi2ma5+1", "2d4r1mi2",
    ]  # fmt: skip
    return expressions


TABLE = _table()


def test_the_table_is_big_enough() -> None:
    assert len(TABLE) >= 60


@pytest.mark.parametrize("expression", TABLE)
def test_rolled_distribution_is_exactly_the_reference(expression: str) -> None:
    assert rolled_distribution(expression) == reference_distribution(expression)


@pytest.mark.parametrize(
    ("typed", "spelled"),
    [
        ("4d6k3", "4d6kh3"),
        ("4d6 k3", "4d6kh3"),
        ("3d6p1", "3d6dl1"),
        ("3d6d1", "3d6dl1"),
        ("3d6ph1", "3d6dh1"),
        ("1d6!", "1d6ie6"),
        ("1d6 ie", "1d6ie6"),
        ("2d6ro1", "2d6r1"),
        ("1d4rr1", "1d4ir1"),
        ("2d6e>4", "2d6e5"),
        ("2d6e", "2d6e6"),
        ("2d6r<3", "2d6r2"),
        ("3d6 t>=5", "3d6t5"),
        ("3d6 t>4 f<2", "3d6t5f1"),
        ("d%", "1d%"),
        ("4df", "4dF"),
    ],
)
def test_players_spellings_have_the_explicit_distribution(typed: str, spelled: str) -> None:
    assert rolled_distribution(typed) == reference_distribution(spelled)


@pytest.mark.parametrize(
    ("typed", "spelled"),
    [
        ("1d20+5 adv", "2d20kh1+5"),
        ("d20 dis", "2d20kl1"),
        ("+d20+5", "2d20kh1+5"),  # Dice Maiden's advantage
        ("-d20+5", "2d20kl1+5"),
        ("1d20+5 adv ! attack", "2d20kh1+5"),
        ("4d6 s", "4d6"),  # sorting shows the dice in order, the total is the same
        ("2d6+3 fire", "2d6+3"),
    ],
)
def test_rule_advantage_words_and_labels_keep_the_exact_distribution(
    typed: str, spelled: str
) -> None:
    rolled = enumerated(lambda rng: roll_request(typed, rng).rolls[0][0].total)
    assert rolled == reference_distribution(spelled)


@pytest.mark.parametrize(
    ("typed", "chance"),
    [
        ("1d20+5>=15", Fraction(11, 20)),  # 10..20 on the d20
        ("1d20+5>=15 adv", 1 - Fraction(9, 20) ** 2),  # both d20 under 10 fail
        ("1d20>=15 dis", Fraction(6, 20) ** 2),  # both d20 15 or more
        ("2d6>7", Fraction(15, 36)),  # 8: 5 ways, 9: 4, 10: 3, 11: 2, 12: 1
        ("2d6=7", Fraction(6, 36)),
        ("1d6<3", Fraction(2, 6)),
    ],
)
def test_rule_comparison_succeeds_with_the_exact_chance(typed: str, chance: Fraction) -> None:
    def success(rng: Rng) -> bool:
        rolled = roll_request(typed, rng)
        comparison = rolled.request.parts[0].comparison
        assert comparison is not None
        return comparison.holds(rolled.rolls[0][0].total)

    assert enumerated(success)[True] == chance
