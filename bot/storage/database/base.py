"""What every store talks to, whatever the database: a session's three calls, one transaction
per operation, and an outage warned once."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from bot.storage.errors import CannotSave, WriteFault

__all__ = ["ConstraintViolated", "Database", "Row", "Session", "WriteOutage", "utc_now"]


class Row(Protocol):
    """A result row: by column name or position (sqlite3.Row; asyncpg's Record alike)."""

    def __getitem__(self, key: str | int, /) -> Any: ...

    def keys(self) -> Any: ...

    def __iter__(self) -> Iterator[Any]: ...  # the values, in column order


def utc_now(ago: timedelta = timedelta()) -> str:
    """Now (or ``ago`` before now) in UTC as the database keeps times: ISO 8601 with
    milliseconds, e.g. 2026-11-23T16:40:05.123Z (what SQLite's strftime('%Y-%m-%dT%H:%M:%fZ')
    gives), so stored times compare as text."""
    moment = datetime.now(UTC) - ago
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


class ConstraintViolated(Exception):
    """A write broke a unique, foreign-key or check constraint (whatever the driver)."""


class Session(ABC):
    """What the body of a transaction (or a read) talks to: three calls, each one trip to the
    database, in SQL that SQLite and PostgreSQL both read (``?`` placeholders; new ids by
    ``RETURNING id``; times from ``utc_now``), so no store depends on the driver."""

    @abstractmethod
    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> int:
        """Run a statement; return how many rows it changed."""

    @abstractmethod
    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        """Run a query (or a statement ``RETURNING`` rows) and return its rows."""

    async def fetch_one(self, sql: str, parameters: Sequence[object] = ()) -> Row | None:
        """Run a query (or a statement ``RETURNING`` a row) and return its first row, if any."""
        return next(iter(await self.fetch_all(sql, parameters)), None)


class WriteOutage:
    """Tracks a write outage (disk full, read-only, lost connection) for one database, so each
    outage is logged once, not as a traceback per command, and its end once. Each backend
    passes its own logger, so the records keep naming the backend they come from."""

    def __init__(self, logger: logging.Logger) -> None:
        self._log = logger
        self._fault: WriteFault | None = None  # why the latest write failed, until one works

    def cannot_save(self, fault: WriteFault, detail: object) -> CannotSave:
        """Return CannotSave for a failed write, warning only when the outage is new."""
        if fault is not self._fault:
            self._log.warning("The database can't be written (%s): %s", fault.value, detail)
            self._fault = fault
        return CannotSave(fault)

    def saved(self) -> None:
        """A write worked: the outage, if any, is over."""
        if self._fault is not None:
            self._log.info("The database can be written again (it was %s)", self._fault.value)
            self._fault = None


class Database(ABC):
    """The bot's state: every operation is one transaction or one statement.

    ``transaction()`` runs its body as one write transaction, all of it or none of it, with
    this database's writers serialised (concurrent commands never interleave inside one or
    lose an update); reads see the latest committed state.
    """

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Session]:
        """One write transaction; its session is valid inside the block only."""

    async def insert(self, sql: str, parameters: Sequence[object] = ()) -> int:
        """Run one single-row ``INSERT … VALUES (…)`` and return the new row's id, committed."""
        return int((await self.insert_returning(sql, parameters))["id"])

    @abstractmethod
    async def insert_returning(
        self, sql: str, parameters: Sequence[object] = (), returning: str = ""
    ) -> Row:
        """``insert``, returning the new row: its ``id`` and the named expressions ``returning``
        (``expression AS name, …``: the new row's columns, or a scalar subquery over them),
        computed in the same statement (one trip to the database, not a read after it)."""

    @abstractmethod
    async def write_alone(
        self, sql: str, parameters: Sequence[object] = (), *, durable: bool = True
    ) -> Row | None:
        """Run one write statement that is atomic by itself (an upsert, a delete) in its own
        transaction, committed before it returns, and return its first ``RETURNING`` row.

        It takes no write lock beyond the rows it changes (on PostgreSQL, not the lock that
        serialises ``transaction()``s), so counters shared by every command stay cheap.
        ``durable=False``: a write whose loss in a server crash is harmless (the roll-limit
        count); PostgreSQL then commits it without waiting for the WAL flush
        (``synchronous_commit = off`` for that transaction alone). SQLite ignores it.
        """

    async def set_by_id(self, table: str, column: str, row_id: int, value: object) -> None:
        """Set one column of one row by its id (``UPDATE table SET column = ? WHERE id = ?``,
        atomic by itself), committed before it returns. ``table`` and ``column`` are the
        caller's constants, never user input."""
        await self.write_alone(f"UPDATE {table} SET {column} = ? WHERE id = ?", (value, row_id))

    @property
    @abstractmethod
    def reader(self) -> Session:
        """A session for reads outside transactions (the latest committed state)."""

    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        """Read rows from the latest committed state."""
        return await self.reader.fetch_all(sql, parameters)

    async def fetch_one(self, sql: str, parameters: Sequence[object] = ()) -> Row | None:
        """Read the first row from the latest committed state."""
        return await self.reader.fetch_one(sql, parameters)

    @abstractmethod
    async def close(self) -> None:
        """Close once the transaction under way is done."""
