"""SQLite: a writer, a reader and the event loop's own connection; the group commit."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.storage.database.base import ConstraintViolated, Database, Row, Session, WriteOutage
from bot.storage.database.migrations import NOT_A_DATABASE, apply_migrations, unusable
from bot.storage.errors import CannotSave, WriteFault
from bot.storage.sqlite_batch import (
    PendingInsert,
    PendingUpdate,
    answer_inserted,
    insert_statement,
    run_in_transaction,
    run_on_connection,
    update_statement,
)

__all__ = ["CHECKPOINT_EVERY", "SqliteDatabase", "SqliteSession", "write_fault"]

# The package's logger: its records keep the name they have always had.
log = logging.getLogger(__package__)

BUSY_TIMEOUT_MS = 5_000
CLOSE_TIMEOUT_SECONDS = 2.0
# Rows in one group-committed INSERT: 7 parameters each stays far under SQLite's 32,766.
MAX_GROUP = 500
# Transactions committed on the event loop's thread (``SqliteDatabase._flush_here``) between two
# checkpoints of the write-ahead log on the writer's thread. A roll's row, or its message id,
# writes about two pages: the log is copied into the database about as often as SQLite's own
# default would (every 1,000 pages). Each checkpoint holds the writer for two syncs of the disk,
# which the writes meanwhile wait for: more often, and they showed in `/roll`'s p99.
CHECKPOINT_EVERY = 500


# SQLite's primary result codes for a write that failed for reasons outside the bot: the
# statement or transaction is rolled back and the connection stays usable, so the next write
# simply tries again (the disk has room again, the file system is writable again).
_WRITE_FAULTS = {
    sqlite3.SQLITE_FULL: WriteFault.FULL,
    sqlite3.SQLITE_READONLY: WriteFault.READ_ONLY,
    sqlite3.SQLITE_IOERR: WriteFault.IO,
    sqlite3.SQLITE_CANTOPEN: WriteFault.IO,  # e.g. the -wal file can't be created
    sqlite3.SQLITE_BUSY: WriteFault.BUSY,
}


def write_fault(error: sqlite3.Error) -> WriteFault | None:
    """Return why a write failed if the cause lies outside the bot, else None (a bug)."""
    code = getattr(error, "sqlite_errorcode", None)
    return None if code is None else _WRITE_FAULTS.get(code & 0xFF)  # extended → primary


class SqliteSession(Session):
    """A session on one aiosqlite connection."""

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self._connection = connection

    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> int:
        """Run a statement; return how many rows it changed."""
        try:
            cursor = await self._connection.execute(sql, parameters)
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(str(error)) from error
        return cursor.rowcount

    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        """Run a query (or a statement ``RETURNING`` rows) and return its rows."""
        try:
            return list(await self._connection.execute_fetchall(sql, parameters))
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(str(error)) from error


async def _connect(path: Path, *pragmas: str) -> aiosqlite.Connection:
    connection = await aiosqlite.connect(path, isolation_level=None)
    connection.row_factory = aiosqlite.Row
    for pragma in (
        "PRAGMA foreign_keys = ON",
        f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
        *pragmas,
    ):
        await connection.execute(pragma)
    return connection


def _connect_here(path: Path) -> sqlite3.Connection:
    """The connection the event loop's thread writes with when nothing else writes.

    It never waits: a lock held by another process (or by this process's writer thread) fails
    at once with SQLITE_BUSY (busy timeout 0), and it never checkpoints the write-ahead log (the
    writer's thread does, ``CHECKPOINT_EVERY``). With ``synchronous = NORMAL`` in WAL mode a
    commit appends to the log without syncing it: what is left on this thread is SQLite's own
    work on pages in memory and a write into the OS's page cache.
    """
    connection = sqlite3.connect(path, isolation_level=None)
    connection.row_factory = sqlite3.Row
    for pragma in (
        "PRAGMA foreign_keys = ON",
        "PRAGMA busy_timeout = 0",
        "PRAGMA synchronous = NORMAL",
        "PRAGMA wal_autocheckpoint = 0",
    ):
        connection.execute(pragma)
    return connection


T = TypeVar("T")


def _chunks(group: list[T]) -> Iterator[list[T]]:
    """``group`` in statements of at most MAX_GROUP rows."""
    for start in range(0, len(group), MAX_GROUP):
        yield group[start : start + MAX_GROUP]


def _group_statements(
    inserts: dict[tuple[str, str], list[PendingInsert]],
    updates: dict[tuple[str, str], list[PendingUpdate]],
) -> tuple[list[tuple[str, Sequence[object]]], list[list[PendingInsert]]]:
    """The statements that write every group waiting in one transaction (the updates first,
    then the inserts), and the inserts' chunks, in the order of their statements."""
    statements: list[tuple[str, Sequence[object]]] = []
    for (table, column), waiting in updates.items():
        for chunk in _chunks(waiting):
            statements.append(update_statement(table, column, chunk))
    chunks: list[list[PendingInsert]] = []
    for (sql, returning), group in inserts.items():
        for rows in _chunks(group):
            chunks.append(rows)
            parameters = [value for row, _ in rows for value in row]
            statements.append((insert_statement(sql, returning, len(rows)), parameters))
    return statements, chunks


class SqliteDatabase(Database):
    """A writer and a reader connection; every operation is one transaction or one statement.

    Writes go through one connection under an asyncio lock, which serialises this process's
    transactions (SQLite allows one writer anyway): concurrent commands never interleave inside
    a transaction or lose an update, and ``BEGIN IMMEDIATE`` with the busy timeout covers a
    second process. Reads use their own connection: in WAL mode each statement sees the latest
    committed state without waiting for a writer.

    Each call into aiosqlite is a round trip to its thread (~0.1 ms of CPU), so operations use
    the one-trip helpers (``fetch_all``, ``fetch_one``, ``insert``) and read in single queries.
    The group-committed writes (``insert``, ``set_by_id``: a roll's log row and its message id)
    of a caller working alone make no trip at all: a third connection commits them on the event
    loop's own thread (``_flush_here``), and hands them to the writer's thread whenever it can't
    do so at once. With others at work (``in_flight``, e.g. the bot's interactions in flight)
    they wait for the writer's thread as before, where the writes arriving meanwhile go in
    together: per write that costs less than a commit of its own.
    """

    def __init__(
        self,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        here: sqlite3.Connection,
        in_flight: Callable[[], int],
    ) -> None:
        self._writer = writer
        self._reader = reader
        self._here = here  # the event loop's own (``_connect_here``)
        self._in_flight = in_flight  # how many callers are at work that may write soon
        self._written_here = 0  # transactions committed through it, for ``CHECKPOINT_EVERY``
        self._writing = SqliteSession(writer)
        self._reading = SqliteSession(reader)
        self._lock = asyncio.Lock()
        # Group commit: single-row inserts waiting for the writer, by statement, and the tasks
        # flushing them.
        self._inserts: dict[tuple[str, str], list[PendingInsert]] = {}  # (statement, returning)
        self._flushes: set[asyncio.Task[None]] = set()
        # Group commit of ``set_by_id``: the rows waiting, by (table, column).
        self._updates: dict[tuple[str, str], list[PendingUpdate]] = {}
        self._flush_scheduled = False  # a flush will take what waits (``_flush``)
        self._outage = WriteOutage(log)
        # The one close, shared by every caller: discord.py closes the bot a second time itself
        # (its shards' connections ending), and that close must not wait for the write lock the
        # first one took and keeps, as the connections are gone.
        self._closing: asyncio.Task[None] | None = None

    @classmethod
    async def open(cls, path: Path, *, in_flight: Callable[[], int]) -> SqliteDatabase:
        """Migrate the database at ``path`` to the newest schema and connect to it.
        ``in_flight``: how many callers are at work that may write soon (the bot's interactions
        in flight); a write of a caller alone is committed at once on the event loop's thread.

        Raises DatabaseUnusable, naming DATABASE_PATH, when the file can't be created, opened or
        read as an SQLite database.
        """
        try:
            applied = await asyncio.to_thread(apply_migrations, path)
            if applied:
                log.info("Applied migrations %s to %s", ", ".join(applied), path)
            # WAL lets readers work beside the writer; NORMAL sync in WAL mode keeps every
            # committed transaction through a crash of this process (kill -9); only a power cut
            # may lose the last few, and the database stays consistent either way.
            writer = await _connect(
                path, "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"
            )
            reader = await _connect(path, "PRAGMA query_only = ON")
            here = _connect_here(path)
        except sqlite3.DatabaseError as error:
            problem = str(error)
            if "not a database" in problem or "malformed" in problem:
                problem = NOT_A_DATABASE
            raise unusable(path, problem) from None
        except OSError as error:
            raise unusable(path, error.strerror or str(error)) from None
        return cls(writer, reader, here, in_flight)

    async def close(self) -> None:
        """Close both connections once the transaction under way is done (a few seconds at
        most: past that it is rolled back, as closing SQLite does with an open transaction).

        Closing again, or while a close is under way, waits for that one close.
        """
        if self._closing is None:
            self._closing = asyncio.create_task(self._close(), name="database-close")
        await self._closing

    async def _close(self) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                    await self._lock.acquire()
        finally:
            # Even when cancelled (a second Ctrl-C): aiosqlite's threads would keep the process
            # alive, and closing commits nothing half-done (an open transaction rolls back).
            await self._reader.close()
            self._here.close()  # before the writer: the last to close checkpoints the log
            await self._writer.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        """Run the body as one write transaction: all of it commits, or none of it.

        Whatever fails, BEGIN itself (or a cancellation while it runs), the body, or COMMIT (a
        deferred constraint, a full disk), the transaction is rolled back before the lock is
        released: the next operation always starts on a clean connection.
        """
        async with self._lock:
            try:
                await self._writer.execute("BEGIN IMMEDIATE")
                yield self._writing
                await self._writer.execute("COMMIT")
            except sqlite3.OperationalError as error:
                await self._roll_back()
                if (cannot := self._cannot_save(error)) is None:
                    raise
                raise cannot from error
            except BaseException:
                await self._roll_back()
                raise
            self._outage.saved()

    async def _roll_back(self) -> None:
        # Shielded: a second cancellation must not leave the transaction open. aiosqlite runs
        # statements in order on its thread, so this comes after a BEGIN still in flight.
        # OperationalError: no transaction was open (BEGIN never ran, or COMMIT ended it).
        with contextlib.suppress(sqlite3.OperationalError):
            await asyncio.shield(self._writer.execute("ROLLBACK"))

    async def insert_returning(
        self, sql: str, parameters: Sequence[object] = (), returning: str = ""
    ) -> Row:
        """Run one single-row ``INSERT … VALUES (…)`` and return the new row (its id and
        ``returning``), once committed.

        Group commit: inserts of one statement that arrive while the writer is busy wait
        together and then go in as one multi-row INSERT (one statement, so one atomic commit,
        and one trip to the database thread instead of one each). Every caller still gets its
        answer only after its row is committed, so durability is as with one INSERT each.
        """
        future: asyncio.Future[Row] = asyncio.get_running_loop().create_future()
        self._inserts.setdefault((sql, returning), []).append((parameters, future))
        self._schedule_flush()
        return await future

    def _schedule_flush(self) -> None:
        """Arrange the flush that takes every insert and update waiting, unless one is due: on
        the event loop's thread at the end of this turn of the loop when the writer is free and
        its caller works alone (what else arrives in the turn goes along); else on the writer's
        thread once it is free, with everything that arrived meanwhile.

        Alone is what PostgreSQL's ``commit_siblings`` decides by: with others at work, a commit of
        their writes together is cheaper than one each. Measured (docs/benchmarks.md), a commit per
        turn of the loop cost 2-12% more CPU a `/roll` with 64 in flight than the writer's thread
        grouping ~20 rows a commit.

        At the end of the turn, never right away inside the call: every write still lets the
        loop turn, as a trip to the thread did. Written at once, a caller writing in a loop
        (a test rolling while a backup runs) never let the other tasks run, and its log grew
        by gigabytes before anything stopped it."""
        if not self._flush_scheduled:
            self._flush_scheduled = True
            if self._lock.locked() or self._in_flight() > 1:
                self._start_flush()
            else:
                asyncio.get_running_loop().call_soon(self._flush_here)

    def _start_flush(self) -> None:
        """Start the flush on the writer's thread (``_flush``)."""
        self._background(self._flush(), "database-group-commit")

    def _background(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    def _flush_here(self) -> None:
        """Write what waits as one transaction on the event loop's own thread, with no trip to
        the writer's: each caller answered once it is committed.

        Only while nothing else of this process writes (the lock is free): then nothing is
        interleaved, and the writer's own connection holds no transaction. When SQLite can't
        write at once (another process holds its lock), or anything fails (a bad row, a full
        disk), nothing is kept and ``_flush`` writes the same groups on the writer's thread,
        which waits for the lock and gives each caller the answer it always had.
        """
        if self._lock.locked() or self._closing is not None:
            self._start_flush()  # the writer was taken since this was arranged
            return
        statements, chunks = _group_statements(self._inserts, self._updates)
        try:
            results = run_in_transaction(self._here, statements)
        except sqlite3.Error:
            self._start_flush()
            return
        self._flush_scheduled = False
        inserts, self._inserts = self._inserts, {}
        updates, self._updates = self._updates, {}
        self._answer_together(inserts, updates, chunks, results)
        self._written_here += 1
        if self._written_here % CHECKPOINT_EVERY == 0:
            self._background(self._checkpoint(), "database-checkpoint")

    async def _checkpoint(self) -> None:
        """Copy the write-ahead log into the database on the writer's thread, as SQLite does
        after a commit of its own (the loop's connection never checkpoints).

        Holding the writer, as SQLite's own checkpoint holds its connection: the next write
        then finds the log copied whole and starts it again from its beginning (a write in
        between, on the loop's connection, would leave the log growing). Passive: it waits for
        no reader; what it can't copy now, the next one does.

        Measured (docs/benchmarks.md, "What a /roll costs"): what a checkpoint costs `/roll`'s p99
        is its own copying and syncing, not the wait for the writer. Copying first without the
        writer (another connection, in a thread) held it 1.6-3.5 ms rather than 10-25 ms and left
        the p99 as it was."""
        async with self._lock:
            with contextlib.suppress(sqlite3.Error, ValueError):  # ValueError: closed meanwhile
                # Its row read to the end: a statement left with a row unread keeps the
                # connection reading, and every later checkpoint of it would fail (SQLITE_LOCKED).
                await self._writer.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")

    async def _flush(self) -> None:
        """Write what waits once the writer is free: the inserts and updates that arrived
        meanwhile, each caller answered once its row is committed.

        When both inserts and updates wait (under load: the rolls just made, and the message
        ids of those just shown), they go in together, as one transaction in one trip to the
        database thread (``_write_together``); otherwise, and whenever that fails, each group
        as one statement of its own, in its own commit.
        """
        async with self._lock:
            self._flush_scheduled = False  # what arrives from now on waits for the next flush
            inserts, self._inserts = self._inserts, {}
            updates, self._updates = self._updates, {}
            try:
                if inserts and updates and await self._write_together(inserts, updates):
                    return
                for (table, column), waiting in updates.items():
                    await self._flush_updates(table, column, waiting)
                for (sql, returning), group in inserts.items():
                    await self._flush_inserts(sql, returning, group)
            except BaseException as error:  # every caller not yet answered hears of it
                pending: list[asyncio.Future[Any]] = [
                    *(future for group in inserts.values() for _, future in group),
                    *(future for group in updates.values() for _, _, future in group),
                ]
                for future in pending:
                    if not future.done():
                        future.set_exception(error)
                if not isinstance(error, Exception):
                    raise

    async def _write_together(
        self,
        inserts: dict[tuple[str, str], list[PendingInsert]],
        updates: dict[tuple[str, str], list[PendingUpdate]],
    ) -> bool:
        """Write every group waiting as one transaction, in one trip to the database thread
        (the trip and the commit are most of what a group's write costs the bot); answer its
        callers and return True. When anything in it fails, SQLite rolls it all back and this
        returns False: the groups then go in one by one (``_flush``), which gives each caller
        the answer it would have had without this (a bad row fails alone, a full disk refuses).
        """
        statements, chunks = _group_statements(inserts, updates)
        try:
            results = await run_on_connection(self._writer, run_in_transaction, statements)
        except Exception:  # sqlite3.Error, or the connection closed: as the groups alone say
            return False
        self._answer_together(inserts, updates, chunks, results)
        return True

    def _answer_together(
        self,
        inserts: dict[tuple[str, str], list[PendingInsert]],
        updates: dict[tuple[str, str], list[PendingUpdate]],
        chunks: list[list[PendingInsert]],
        results: list[list[Row]],
    ) -> None:
        """Answer every caller of groups written together (``_group_statements``)."""
        self._outage.saved()
        for waiting in updates.values():
            for _, _, waiter in waiting:
                if not waiter.done():
                    waiter.set_result(None)
        for rows, inserted in zip(chunks, results[len(results) - len(chunks) :], strict=True):
            answer_inserted(rows, inserted)

    async def _flush_inserts(self, sql: str, returning: str, group: list[PendingInsert]) -> None:
        try:
            for chunk in _chunks(group):
                try:
                    await self._insert_group(sql, returning, chunk)
                except ConstraintViolated:
                    if len(chunk) == 1:
                        raise
                    for row in chunk:  # one bad row must not refuse the others
                        await self._insert_one(sql, returning, row)
        except Exception as error:  # every caller hears of it; nothing was written
            for _, future in group:
                if not future.done():
                    future.set_exception(error)

    async def _insert_one(self, sql: str, returning: str, row: PendingInsert) -> None:
        try:
            await self._insert_group(sql, returning, [row])
        except ConstraintViolated as error:
            if not row[1].done():
                row[1].set_exception(error)

    async def _insert_group(self, sql: str, returning: str, group: list[PendingInsert]) -> None:
        statement = insert_statement(sql, returning, len(group))
        parameters = [value for row, _ in group for value in row]
        try:  # one statement in autocommit: SQLite rolls it back itself when it fails
            rows = await self._writer.execute_fetchall(statement, parameters)
        except sqlite3.IntegrityError as error:
            raise ConstraintViolated(str(error)) from error
        except sqlite3.OperationalError as error:
            if (cannot := self._cannot_save(error)) is None:
                raise
            raise cannot from error
        self._outage.saved()
        answer_inserted(group, rows)

    async def set_by_id(self, table: str, column: str, row_id: int, value: object) -> None:
        """Set one column of one row by id, committed before it returns.

        Group commit, as ``insert``: the updates of one column that arrive while the writer is
        busy go in together as one ``UPDATE … FROM (VALUES …)`` (one statement, so one atomic
        commit and one trip to the database thread; under load each `/roll` remembers its
        message this way, in the same trip as the rolls logged meanwhile). Every caller is
        answered once its row is committed.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._updates.setdefault((table, column), []).append((row_id, value, future))
        self._schedule_flush()
        await future

    async def _flush_updates(self, table: str, column: str, group: list[PendingUpdate]) -> None:
        try:
            for chunk in _chunks(group):
                await self._update_group(table, column, chunk)
                for _, _, waiter in chunk:
                    if not waiter.done():
                        waiter.set_result(None)
        except Exception as error:  # every caller not yet answered hears of it
            for _, _, waiter in group:
                if not waiter.done():
                    waiter.set_exception(error)

    async def _update_group(self, table: str, column: str, group: list[PendingUpdate]) -> None:
        statement, parameters = update_statement(table, column, group)
        try:  # one statement in autocommit: SQLite rolls it back itself when it fails
            await self._writer.execute(statement, parameters)
        except sqlite3.OperationalError as error:
            if (cannot := self._cannot_save(error)) is None:
                raise
            raise cannot from error
        self._outage.saved()

    async def write_alone(
        self, sql: str, parameters: Sequence[object] = (), *, durable: bool = True
    ) -> Row | None:
        async with self._lock:
            try:  # autocommit: SQLite makes one statement atomic by itself
                row = await self._writing.fetch_one(sql, parameters)
            except sqlite3.OperationalError as error:
                if (cannot := self._cannot_save(error)) is None:
                    raise
                raise cannot from error
        self._outage.saved()
        return row

    def _cannot_save(self, error: sqlite3.OperationalError) -> CannotSave | None:
        """Return CannotSave for a write that failed outside the bot (warned once until a write
        works again), None for any other error."""
        fault = write_fault(error)
        return None if fault is None else self._outage.cannot_save(fault, error)

    @property
    def reader(self) -> Session:
        """The read-only session: each statement sees the latest committed state."""
        return self._reading
