"""The database every store talks to: the shared interface (``base``), the SQLite file and its
migrations (``migrations``), and SQLite itself (``sqlite``); PostgreSQL is ``bot.storage.postgres``.
Every operation is one transaction or one statement."""

from bot.storage.database.base import (
    ConstraintViolated,
    Database,
    Row,
    Session,
    WriteOutage,
    utc_now,
)
from bot.storage.database.migrations import (
    MIGRATIONS_DIRECTORY,
    DatabaseUnusable,
    apply_migrations,
    check_database_path,
)
from bot.storage.database.sqlite import (
    CHECKPOINT_EVERY,
    SqliteDatabase,
    SqliteSession,
    write_fault,
)

__all__ = [
    "CHECKPOINT_EVERY",
    "MIGRATIONS_DIRECTORY",
    "ConstraintViolated",
    "Database",
    "DatabaseUnusable",
    "Row",
    "Session",
    "SqliteDatabase",
    "SqliteSession",
    "WriteOutage",
    "apply_migrations",
    "check_database_path",
    "utc_now",
    "write_fault",
]
