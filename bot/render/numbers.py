"""Numbers as players read them: chances as percentages, modifiers with their sign."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import overload

import numpy as np

from rules.modular import ExactChances

__all__ = [
    "ChancesOf",
    "by_chance",
    "chance_floats",
    "float_mean",
    "more_values",
    "percent",
    "ranked",
    "signed",
]

# Below 0.001 % a decimal has too many zeros to read at a glance: say "1 in N" instead.
_TINY = Fraction(1, 10**5)
# Below 0.01 % two decimals would show 0.00 % (or 100.00 % for the complement): show two
# significant digits instead.
_SMALL = Fraction(1, 10**4)


def percent(chance: Fraction) -> str:
    """Show an exact chance as a percentage that never rounds to 0 % or 100 % unless exact.

    ``0%`` and ``100%`` only when exact; below 0.001 % ``< 0.001% (1 in 100,000)`` and above
    99.999 % ``> 99.999% (all but 1 in 100,000)``; below 0.01 % (and above 99.99 %) two
    significant digits of the chance (of its complement), like ``0.0015%`` or ``99.9985%``;
    otherwise two decimals, like ``85.03%``.
    """
    miss = 1 - chance
    if chance == 0:
        return "0%"
    if miss == 0:
        return "100%"
    if chance < _TINY:
        return f"< 0.001% ({_one_in(chance)})"
    if miss < _TINY:
        return f"> 99.999% (all but {_one_in(miss)})"
    if chance < _SMALL:
        return f"{_significant(chance)}%"
    if miss < _SMALL:
        # As many decimals as the complement needs, so 100 - miss never rounds up to 100.
        decimals = len(_significant(miss).partition(".")[2])
        return f"{float(chance) * 100:.{decimals}f}%"
    return f"{float(chance) * 100:.2f}%"


def _significant(chance: Fraction) -> str:
    """Return a chance between 0.001 % and 0.01 % in percent, to two significant digits."""
    # In this range the "g" format writes plain decimals (it switches to 1e-05 below 0.0001).
    return f"{float(chance) * 100:.2g}"


def _one_in(chance: Fraction) -> str:
    """Return a chance as "1 in N", with "about" when N is not a whole number."""
    against = 1 / chance
    if against.denominator == 1:
        return f"1 in {against.numerator:,}"
    return f"about 1 in {round(against):,}"


def signed(number: int) -> str:
    """Show a modifier with its sign and a true minus: +2, 0, −1."""
    return f"{number:+d}".replace("-", "−") if number else "0"


def more_values(dropped: Sequence[Fraction], together: Fraction) -> str | None:
    """Say what a list of chances left out: "… 3 more values at 0.40% each" when they are
    equally likely, else "… 12 more values, 3.20% together, each at most 0.50%" (so a value
    as likely as a listed one is seen to be left out); ``None`` when nothing was left out
    (docs/players/index.md, "Odds charts": a list never drops values silently).

    Args:
        dropped: The chances left out, most likely first.
        together: Their sum (the caller knows it cheaply: one minus the listed ones; a sum of
            a thousand 200-bit Fractions is milliseconds).
    """
    if not dropped:
        return None
    count = len(dropped)
    values = "value" if count == 1 else "values"
    if dropped[0] == dropped[-1]:
        each = "" if count == 1 else " each"
        return f"… {count} more {values} at {percent(dropped[0])}{each}"
    return (
        f"… {count} more {values}, {percent(together)} together, each at most {percent(dropped[0])}"
    )


def chance_floats(chances: Mapping[int, Fraction]) -> list[tuple[int, float]]:
    """Return (value, chance as a float) pairs in the mapping's order: a correctly rounded
    division per chance, or the floats an ``ExactChances`` holds already (no Fraction built)."""
    if isinstance(chances, ExactChances):
        return chances.float_items()
    return [(value, chance.numerator / chance.denominator) for value, chance in chances.items()]


def ranked(chances: Mapping[int, Fraction]) -> list[int]:
    """Return the values, most likely first (ties by value), ordered by the chances as floats:
    comparing a thousand 200-bit Fractions exactly is milliseconds, and chances a float can't
    tell apart are as good as equal in a list rounded to two decimals."""
    if isinstance(chances, ExactChances):  # numpy sorts a thousand values at once
        order = np.lexsort((chances.outcome_array, -chances.float_array))
        return [int(value) for value in chances.outcome_array[order].tolist()]
    return [value for value, _ in sorted(chance_floats(chances), key=lambda i: (-i[1], i[0]))]


def by_chance(chances: Mapping[int, Fraction]) -> list[tuple[int, Fraction]]:
    """Return (value, chance) pairs, most likely first (ties by value): see ``ranked``."""
    return [(value, chances[value]) for value in ranked(chances)]


def float_mean(chances: Mapping[int, Fraction]) -> float:
    """Return the mean value as a float (for display; no Fraction sum of big integers)."""
    if isinstance(chances, ExactChances):
        return float(chances.outcome_array @ chances.float_array)
    return sum(value * chance for value, chance in chance_floats(chances))


class ChancesOf(Sequence[Fraction]):
    """The chances of some values, each read from ``chances`` only when asked for (an exact
    chance of ``ExactChances`` is built on reading: a list dropping a thousand values reads
    only its first and last)."""

    def __init__(self, values: Sequence[int], chances: Mapping[int, Fraction]) -> None:
        self._values, self._chances = values, chances

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> Fraction: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Fraction]: ...
    def __getitem__(self, index: int | slice) -> Fraction | Sequence[Fraction]:
        if isinstance(index, slice):
            return ChancesOf(self._values[index], self._chances)
        return self._chances[self._values[index]]
