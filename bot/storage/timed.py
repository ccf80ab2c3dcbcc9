"""A database that reports how long each of its operations took (docs/hosting.md, "Metrics").

Only a bot with METRICS_PORT set wraps its database in one (``Storage.open(…, timer=…)``);
without it the stores talk to the SQLite or PostgreSQL database directly, at no cost.
"""

from __future__ import annotations

import enum
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from bot.storage.database import Database, Row, Session

__all__ = ["DatabaseOperation", "DatabaseTimer", "TimedDatabase"]


class DatabaseOperation(enum.Enum):
    """What was timed: a write transaction (the write lock's wait included), one write
    statement in its own transaction (``insert``, ``write_alone``), or a read."""

    TRANSACTION = "transaction"
    STATEMENT = "statement"
    READ = "read"


DatabaseTimer = Callable[[DatabaseOperation, float], None]  # (operation, seconds)


class _TimedReader(Session):
    def __init__(self, reader: Session, timer: DatabaseTimer) -> None:
        self._reader = reader
        self._timer = timer

    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> int:
        started = time.perf_counter()
        try:
            return await self._reader.execute(sql, parameters)
        finally:
            self._timer(DatabaseOperation.READ, time.perf_counter() - started)

    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        started = time.perf_counter()
        try:
            return await self._reader.fetch_all(sql, parameters)
        finally:
            self._timer(DatabaseOperation.READ, time.perf_counter() - started)


class TimedDatabase(Database):
    """``inner``, each operation timed into ``timer`` (failed ones too)."""

    def __init__(self, inner: Database, timer: DatabaseTimer) -> None:
        self.inner = inner
        self._timer = timer
        self._reader = _TimedReader(inner.reader, timer)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        started = time.perf_counter()
        try:
            async with self.inner.transaction() as session:
                yield session
        finally:
            self._timer(DatabaseOperation.TRANSACTION, time.perf_counter() - started)

    async def insert_returning(
        self, sql: str, parameters: Sequence[object] = (), returning: str = ""
    ) -> Row:
        started = time.perf_counter()
        try:
            return await self.inner.insert_returning(sql, parameters, returning)
        finally:
            self._timer(DatabaseOperation.STATEMENT, time.perf_counter() - started)

    async def write_alone(
        self, sql: str, parameters: Sequence[object] = (), *, durable: bool = True
    ) -> Row | None:
        started = time.perf_counter()
        try:
            return await self.inner.write_alone(sql, parameters, durable=durable)
        finally:
            self._timer(DatabaseOperation.STATEMENT, time.perf_counter() - started)

    @property
    def reader(self) -> Session:
        return self._reader

    async def close(self) -> None:
        await self.inner.close()
