"""Brute-force enumerators: every ordered roll counted, to check the exact odds against.

Two enumerators of the same outcomes: ``itertools.product`` in plain Python (clear, slow) and a
numpy grid (the same Cartesian product, vectorised) for pools too big to loop over in a test.
A test checks that both agree where both are cheap.
"""

from __future__ import annotations

import itertools
from collections import Counter
from functools import cache

import numpy as np

from rules.odds import Keep

__all__ = ["kept_counts", "kept_counts_by_grid", "kept_counts_by_product"]

# Above this many outcomes the plain-Python product is too slow for a unit test.
_PRODUCT_LIMIT = 10**5


def kept_counts_by_product(
    count: int, sides: int, kept: int, which: Keep
) -> Counter[tuple[int, ...]]:
    """Count every ordered roll by its kept faces (sorted ascending), with itertools.product."""
    counts: Counter[tuple[int, ...]] = Counter()
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        ordered = sorted(faces)
        chosen = ordered[count - kept :] if which is Keep.HIGHEST else ordered[:kept]
        counts[tuple(chosen)] += 1
    return counts


def kept_counts_by_grid(count: int, sides: int, kept: int, which: Keep) -> Counter[tuple[int, ...]]:
    """Count every ordered roll by its kept faces (sorted ascending), with a numpy grid."""
    grid = np.indices((sides,) * count, dtype=np.int8).reshape(count, -1) + 1
    grid.sort(axis=0)
    chosen = grid[count - kept :] if which is Keep.HIGHEST else grid[:kept]
    # Encode each kept tuple as one integer in base sides+1 so bincount can count them.
    codes = np.zeros(chosen.shape[1], dtype=np.int64)
    for row in chosen:
        codes = codes * (sides + 1) + row
    tallies = np.bincount(codes)
    counts: Counter[tuple[int, ...]] = Counter()
    for code in np.flatnonzero(tallies):
        faces = []
        rest = int(code)
        for _ in range(kept):
            rest, face = divmod(rest, sides + 1)
            faces.append(face)
        counts[tuple(reversed(faces))] = int(tallies[code])
    return counts


@cache
def kept_counts(count: int, sides: int, kept: int, which: Keep) -> Counter[tuple[int, ...]]:
    """Count all ``sides ** count`` ordered rolls by their kept faces (sorted ascending)."""
    if sides**count <= _PRODUCT_LIMIT:
        return kept_counts_by_product(count, sides, kept, which)
    return kept_counts_by_grid(count, sides, kept, which)
