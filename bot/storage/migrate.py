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
from yoyo.connections import BadConnectionURI

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
    migration once; every migration runs in its own transaction.
    """
    target = yoyo_url(url)
    try:
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
