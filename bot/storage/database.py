"""The SQLite connection, its settings, migrations and the one-transaction-per-operation rule."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite
from yoyo import get_backend, read_migrations

from bot.config import PROJECT_ROOT

__all__ = ["MIGRATIONS_DIRECTORY", "Database", "apply_migrations"]

log = logging.getLogger(__name__)

MIGRATIONS_DIRECTORY = PROJECT_ROOT / "data" / "migrations"
BUSY_TIMEOUT_MS = 5_000


def apply_migrations(path: Path, directory: Path = MIGRATIONS_DIRECTORY) -> list[str]:
    """Apply the migrations not yet applied to the database at ``path``; return their ids."""
    path.parent.mkdir(parents=True, exist_ok=True)
    backend = get_backend(f"sqlite:///{path.resolve()}")
    try:
        with backend.lock():
            pending = backend.to_apply(read_migrations(str(directory)))
            backend.apply_migrations(pending)
        return [migration.id for migration in pending]
    finally:
        backend.connection.close()


class Database:
    """One aiosqlite connection; every operation runs inside ``transaction()`` or ``read()``.

    A single connection with an asyncio lock serialises this process's transactions (SQLite
    allows one writer anyway), so concurrent commands can never interleave inside one transaction
    or lose an update; ``BEGIN IMMEDIATE`` and the busy timeout cover a second process.
    """

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection
        self._lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: Path) -> Database:
        """Migrate the database at ``path`` to the newest schema and connect to it."""
        applied = await asyncio.to_thread(apply_migrations, path)
        if applied:
            log.info("Applied migrations %s to %s", ", ".join(applied), path)
        connection = await aiosqlite.connect(path, isolation_level=None)
        connection.row_factory = aiosqlite.Row
        # WAL lets readers work beside the writer; NORMAL sync in WAL mode keeps every committed
        # transaction through a crash of this process (kill -9); only a power cut may lose the
        # last few, and the database stays consistent either way.
        for pragma in (
            "PRAGMA journal_mode = WAL",
            "PRAGMA synchronous = NORMAL",
            "PRAGMA foreign_keys = ON",
            f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
        ):
            await connection.execute(pragma)
        return cls(connection)

    async def close(self) -> None:
        """Close the connection once pending transactions are done."""
        async with self._lock:
            await self._connection.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run the body as one write transaction: all of it commits, or none of it."""
        async with self._lock:
            await self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                await self._connection.execute("ROLLBACK")
                raise
            await self._connection.execute("COMMIT")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        """Run the body's queries against one consistent snapshot."""
        async with self._lock:
            await self._connection.execute("BEGIN")
            try:
                yield self._connection
            finally:
                await self._connection.execute("COMMIT")
