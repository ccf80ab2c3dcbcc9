"""Load the game tables in `data/` once, at start, and fail loudly on a bad one."""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from bot.config import PROJECT_ROOT

__all__ = ["DATA_DIRECTORY", "TableError", "load_table"]

DATA_DIRECTORY = PROJECT_ROOT / "data"

T = TypeVar("T")


class TableError(Exception):
    """A data table is missing or invalid; the message names the file (and line when known)."""


def load_table(
    relative_path: str,
    parse: Callable[[Mapping[str, Any]], T],
    directory: Path = DATA_DIRECTORY,
) -> T:
    """Read a TOML table under ``data/`` and validate it with the rules' ``parse`` function."""
    path = directory / relative_path
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableError(f"{path}: the table is missing") from None
    except tomllib.TOMLDecodeError as error:  # its message gives the line and column
        raise TableError(f"{path}: {error}") from None
    try:
        return parse(raw)
    except (ValueError, KeyError, TypeError) as error:
        raise TableError(f"{path}: {error}") from None
