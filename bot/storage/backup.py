"""`python -m bot backup PATH`: a consistent copy of the live database, safe while the bot runs.

SQLite's online backup copies the database as one snapshot: the bot keeps its WAL-mode database,
so the copy's reader never blocks the bot's writer, and a write that lands during the copy is
simply not in it. The copy is written beside the target and renamed into place only after
SQLite's integrity check passes, so PATH is always either the old backup or a whole new one.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from bot.storage.errors import StorageError

__all__ = ["BackupFailed", "BackupReport", "backup_database"]

COUNTED_TABLES = ("campaigns", "characters", "tracks", "rolls", "macros")


@dataclass(frozen=True, slots=True)
class BackupReport:
    """Where the copy went, its size, and the rows of the main tables (to compare, and to log)."""

    target: Path
    size: int
    rows: dict[str, int]


@dataclass(eq=False)
class BackupFailed(StorageError):
    reason: str

    def __str__(self) -> str:
        return self.reason


def backup_database(database: Path, target: Path) -> BackupReport:
    """Copy ``database`` to ``target`` consistently; raise BackupFailed saying why not."""
    if not database.is_file():
        raise BackupFailed(f"There is no database at {database} (DATABASE_PATH) to back up.")
    if target.resolve() == database.resolve():
        raise BackupFailed("The backup must go to another file than the database itself.")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    try:
        source = sqlite3.connect(database, timeout=30)
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)  # one step: one snapshot of the whole database
            verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
            present = {
                row[0] for row in copy.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            rows = {
                table: copy.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in COUNTED_TABLES
                if table in present
            }
        finally:
            copy.close()
            source.close()
    except sqlite3.Error as error:
        partial.unlink(missing_ok=True)
        raise BackupFailed(f"SQLite could not copy {database}: {error}") from error
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise BackupFailed(f"The copy failed SQLite's integrity check ({verdict}); nothing kept.")
    os.replace(partial, target)
    return BackupReport(target, target.stat().st_size, rows)
