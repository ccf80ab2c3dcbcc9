"""Checks of what a user typed, shared by every system: the refusal says what is allowed."""

from __future__ import annotations

import numpy as np

from rules.errors import RulesError

__all__ = ["require_whole"]


def require_whole(label: str, value: object, low: int, high: int) -> int:
    """Return ``value`` as an int, or raise RulesError saying the allowed range."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise RulesError(
            f"{label} must be a whole number between {low} and {high} (got {value!r})."
        )
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high} (got {value}).")
    return int(value)
