"""Checks for game tables read from `data/` (TOML): each error names the bad key's path.

A system's ``parse_*`` function validates its table with these and freezes it; the loader in
``bot/data_tables.py`` reports the ValueError with the file's name, and start-up stops.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["require_int", "require_keys", "require_table"]


def require_table(path: str, value: object) -> Mapping[str, object]:
    """Return ``value`` if it is a table, else raise ValueError naming ``path``."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected a table (got {type(value).__name__})")
    return value


def require_keys(path: str, table: Mapping[str, object], expected: list[str]) -> None:
    """Raise ValueError naming the first unknown or missing key of ``table``."""
    prefix = f"{path}." if path else ""
    for key in table:
        if key not in expected:
            raise ValueError(f"{prefix}{key}: unknown key; expected one of: {', '.join(expected)}")
    for key in expected:
        if key not in table:
            raise ValueError(f"{prefix}{key}: missing")


def require_int(path: str, value: object, low: int, high: int) -> int:
    """Return ``value`` if it is an int in range, else raise ValueError naming ``path``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{path}: expected a whole number from {low} to {high} (got {value!r})")
    return value
