"""Load the game tables in `data/` once per process, and fail loudly on a bad one."""

from __future__ import annotations

import functools
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
    """Read a TOML table under ``data/`` and validate it with the rules' ``parse`` function.

    A table read before is not read again while its file is unchanged: the parsed tables are
    frozen values, and every bot a process starts (the tests start hundreds) shares them.
    """
    path = directory / relative_path
    try:
        version = path.stat()
    except FileNotFoundError:
        raise TableError(f"{path}: the table is missing") from None
    return _parsed(path, version.st_mtime_ns, version.st_size, parse)


@functools.lru_cache(maxsize=64)
def _parsed(path: Path, _mtime_ns: int, _size: int, parse: Callable[[Mapping[str, Any]], T]) -> T:
    """The table at ``path`` as ``parse`` makes it; the file's version is part of the key."""
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
