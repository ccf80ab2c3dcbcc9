"""Six-pool d20 DC scale: the document's labels, shown with every DC.

docs/players/sixpool.md, "Rules notes": 5 Trivial, 10 Easy, 15 Medium, 20 Hard, 25 Very Hard,
30 Nearly Impossible. A DC between two labels reads as both ("Medium–Hard" for 17); below 5 it
is Trivial and above 30 Nearly Impossible.
"""

from __future__ import annotations

import itertools

__all__ = ["DC_LABELS", "dc_label"]

DC_LABELS: tuple[tuple[int, str], ...] = (
    (5, "Trivial"),
    (10, "Easy"),
    (15, "Medium"),
    (20, "Hard"),
    (25, "Very Hard"),
    (30, "Nearly Impossible"),
)


def dc_label(dc: int) -> str:
    """Return the DC scale's label for ``dc``: the label itself, or the two it falls between."""
    lowest, highest = DC_LABELS[0], DC_LABELS[-1]
    if dc <= lowest[0]:
        return lowest[1]
    if dc >= highest[0]:
        return highest[1]
    for (low, low_label), (high, high_label) in itertools.pairwise(DC_LABELS):
        if dc == low:
            return low_label
        if low < dc < high:
            return f"{low_label}–{high_label}"
    raise AssertionError(dc)  # every DC between the lowest and highest label is covered above
