"""The injectable random source every roll takes.

Production builds one generator from OS entropy; tests pass ``new_rng(seed)`` so seeded dice give
known results. Nothing in ``rules`` touches the global ``random`` module.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Rng", "new_rng", "roll_dice", "roll_die"]

Rng = np.random.Generator


def new_rng(seed: int | None = None) -> Rng:
    """Return a generator seeded with ``seed``, or from OS entropy when it is None."""
    return np.random.default_rng(seed)


def roll_dice(rng: Rng, count: int, sides: int) -> tuple[int, ...]:
    """Roll ``count`` dice with ``sides`` faces and return the faces in the order rolled."""
    return tuple(int(face) for face in rng.integers(1, sides + 1, size=count))


def roll_die(rng: Rng, sides: int) -> int:
    """Roll one die with ``sides`` faces."""
    return int(rng.integers(1, sides + 1))
