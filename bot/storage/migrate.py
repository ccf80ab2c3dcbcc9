"""The PostgreSQL migrations: data/migrations/postgresql, applied with yoyo.

One numbered set per backend: each file there is the PostgreSQL twin of the SQLite file of the
same name in data/migrations (tests/storage/test_pg_schema.py proves the schemas match), so a
migration id means the same change on both. ``apply_quietly`` serves both backends.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from yoyo import get_backend, read_migrations
from yoyo.connections import BadConnectionURI, parse_uri

from bot.config import PROJECT_ROOT

__all__ = [
    "POSTGRES_MIGRATIONS_DIRECTORY",
    "apply_postgres_migrations",
    "apply_quietly",
    "yoyo_url",
]

POSTGRES_MIGRATIONS_DIRECTORY = PROJECT_ROOT / "data" / "migrations" / "postgresql"

# yoyo's plain "postgresql" scheme needs psycopg2; "postgresql+psycopg" is its psycopg 3
# backend, the driver of the postgresql extra.
_YOYO_SCHEME = "postgresql+psycopg"


def apply_quietly(backend: Any, pending: Any) -> None:
    """Apply ``pending`` with yoyo, without what it prints. yoyo writes to standard output, as a
    table, whatever a step's statement returns: SQLite's DROP COLUMN returns the empty result of
    its own schema check, so a first start printed a stray "CASE WHEN quick_check …" table."""
    with contextlib.redirect_stdout(io.StringIO()):
        backend.apply_migrations(pending)


def yoyo_url(url: str) -> str:
    """The URL for yoyo: ``postgresql://`` or ``postgres://`` becomes ``postgresql+psycopg://``."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres", _YOYO_SCHEME):
        raise ValueError(f"not a PostgreSQL URL (scheme {parts.scheme!r})")
    return urlunsplit(parts._replace(scheme=_YOYO_SCHEME))


def apply_postgres_migrations(
    url: str, directory: Path = POSTGRES_MIGRATIONS_DIRECTORY
) -> list[str]:
    """Apply the migrations not yet applied to the PostgreSQL database at ``url``; return their ids.

    yoyo's lock (a row in its yoyo_lock table) makes processes starting together apply each
    migration once; every migration runs in its own transaction. A database that has them all
    (every start but an upgrade's) is answered by one read, without the lock.
    """
    target = yoyo_url(url)
    try:
        parse_uri(target)  # refuses a malformed URL as get_backend would, before connecting
        if _all_applied(url, directory):
            return []
        backend = get_backend(target)
    except (BadConnectionURI, ValueError):  # ValueError: e.g. urllib's for a port "abc"
        # yoyo's message repeats the URL, password included: never let it reach a log.
        raise ValueError("the PostgreSQL URL is malformed") from None
    try:
        with backend.lock():
            migrations = read_migrations(str(directory))
            pending = backend.to_apply(migrations)
            apply_quietly(backend, pending)
        return [migration.id for migration in pending]
    finally:
        backend.connection.close()


def _all_applied(url: str, directory: Path) -> bool:
    """Whether the database records every migration in ``directory`` as applied: one read on one
    connection, closed before the bot's pools open (docs/hosting.md, "Moving to PostgreSQL").

    yoyo would take its lock (a row inserted and deleted, two transactions) and parse every
    migration file first, ~40-60 ms of each start; processes starting together would also queue
    on the lock, each polling it every 0.5 s. It still does whenever a migration is missing.
    """
    import psycopg  # the postgresql extra, as yoyo's backend

    wanted = {migration.stem for migration in directory.glob("*.sql")}
    try:
        with psycopg.connect(url) as connection:
            rows = connection.execute("SELECT migration_id FROM _yoyo_migration").fetchall()
    except psycopg.errors.UndefinedTable:  # never migrated
        return False
    except psycopg.ProgrammingError:  # libpq couldn't parse the URL: its message may repeat it
        raise ValueError from None
    return wanted <= {migration_id for (migration_id,) in rows}
