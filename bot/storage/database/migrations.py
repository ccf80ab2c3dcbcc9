"""The SQLite file: where it may live, whether it is one, and its migrations."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from yoyo import get_backend, read_migrations

from bot.config import PROJECT_ROOT
from bot.storage.migrate import apply_quietly

__all__ = [
    "MIGRATIONS_DIRECTORY",
    "NOT_A_DATABASE",
    "DatabaseUnusable",
    "apply_migrations",
    "check_database_path",
    "unusable",
]

MIGRATIONS_DIRECTORY = PROJECT_ROOT / "data" / "migrations"
SQLITE_HEADER = b"SQLite format 3\x00"  # the first bytes of every SQLite database file
NOT_A_DATABASE = "the file is not an SQLite database (corrupt, or another kind of file)"


class DatabaseUnusable(Exception):
    """The database file can't be opened or created; the message names DATABASE_PATH."""


def unusable(path: Path, problem: str) -> DatabaseUnusable:
    return DatabaseUnusable(f"DATABASE_PATH={path} can't be used: {problem}.")


def check_database_path(path: Path) -> None:
    """Create the database's folder; raise DatabaseUnusable saying plainly what is wrong."""
    if path.is_dir():
        raise unusable(path, "it is a folder; give the path of a file, e.g. data/bot.db")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise unusable(path, f"its folder {path.parent} can't be created ({reason})") from None
    if path.exists() and not path.is_file():
        raise unusable(path, "it is not a regular file")
    if path.is_file() and path.stat().st_size > 0:
        try:
            with path.open("rb") as file:
                header = file.read(len(SQLITE_HEADER))
        except OSError as error:
            raise unusable(path, error.strerror or type(error).__name__) from None
        if header != SQLITE_HEADER:  # caught here, before the migration tool retries its lock
            raise unusable(path, NOT_A_DATABASE)


def apply_migrations(path: Path, directory: Path = MIGRATIONS_DIRECTORY) -> list[str]:
    """Apply the migrations not yet applied to the database at ``path``; return their ids."""
    check_database_path(path)
    if _all_applied(path, directory):
        return []
    backend = get_backend(f"sqlite:///{path.resolve()}")
    try:
        with backend.lock():
            pending = backend.to_apply(read_migrations(str(directory)))
            apply_quietly(backend, pending)
        return [migration.id for migration in pending]
    finally:
        backend.connection.close()


def _all_applied(path: Path, directory: Path) -> bool:
    """Whether the database records every migration in ``directory`` as applied: the usual
    start, answered by one read. The migration tool would parse every migration file and take
    its lock first (~0.1 s of CPU on each start); it still does whenever one is missing."""
    wanted = {migration.stem for migration in directory.glob("*.sql")}
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as connection:
            rows = connection.execute("SELECT migration_id FROM _yoyo_migration").fetchall()
    except sqlite3.Error:  # a new file, or one the tool has never migrated
        return False
    return wanted <= {migration_id for (migration_id,) in rows}
