"""The PostgreSQL backend (DATABASE_URL=postgresql://…): asyncpg, a connection pool, and the
same one-transaction-per-operation rule as SQLite, across every bot process.

Every store's read-check-write transaction was written for SQLite, where one writer at a time
holds the database. Here each write transaction first takes one transaction-level advisory lock,
so writers are serialised the same way across all processes sharing the database (several
shards), and what a transaction reads stays true until it commits; readers never wait. The
stores' SQL is the portable subset (``?`` placeholders, ``RETURNING id``, ``ON CONFLICT``),
translated here to asyncpg's ``$n``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import TypeVar

import asyncpg

from bot.storage.database import (
    ConstraintViolated,
    Database,
    DatabaseUnusable,
    Row,
    Session,
    WriteOutage,
)
from bot.storage.errors import WriteFault
from bot.storage.migrate import apply_postgres_migrations

__all__ = ["CONNECTIONS_PER_PROCESS", "KeptConnection", "PostgresDatabase", "placeholders"]

log = logging.getLogger(__name__)
T = TypeVar("T")

# The advisory lock every write transaction holds: any 64-bit number the bot alone uses.
WRITE_LOCK = 0x44696365426F74  # "DiceBot"
POOL_SIZE = 10  # connections per bot process
# And for the writes that needn't wait for the disk (the roll-limit count): one statement
# each, well under a millisecond on the server, so a few connections keep up with the rest.
UNSYNCED_POOL_SIZE = 4
# The most a bot process holds, at any moment: its migrations' one connection at start is closed
# before the pools open (docs/hosting.md, "Moving to PostgreSQL").
CONNECTIONS_PER_PROCESS = POOL_SIZE + UNSYNCED_POOL_SIZE
CLOSE_TIMEOUT_SECONDS = 2.0
# A connection kept for statements alone (``KeptConnection``) idle this long goes back to the
# pool and a fresh one is taken: a long-idle connection may have been cut by the network, and
# the pool closes its own idle ones after 300 s.
KEPT_IDLE_SECONDS = 60.0
LOCK_TIMEOUT = "5s"  # as SQLite's busy timeout: past it, the write is refused, not hung

# What the server answered when a write failed for a reason outside the bot.
_WRITE_FAULTS: dict[type[Exception], WriteFault] = {
    asyncpg.DiskFullError: WriteFault.FULL,
    asyncpg.ReadOnlySQLTransactionError: WriteFault.READ_ONLY,
    asyncpg.LockNotAvailableError: WriteFault.BUSY,
    asyncpg.QueryCanceledError: WriteFault.BUSY,  # the lock timeout
    asyncpg.PostgresConnectionError: WriteFault.IO,
    asyncpg.InterfaceError: WriteFault.IO,  # the connection was lost mid-operation
    ConnectionError: WriteFault.IO,
    OSError: WriteFault.IO,
}


@lru_cache(maxsize=512)
def placeholders(sql: str) -> str:
    """``?`` → ``$1``, ``$2``, …, outside quoted strings and identifiers."""
    out: list[str] = []
    quote: str | None = None
    number = 0
    for char in sql:
        if quote is not None:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "?":
            number += 1
            out.append(f"${number}")
            continue
        out.append(char)
    return "".join(out)


def _rows_changed(status: str) -> int:
    """asyncpg's command status ("UPDATE 3", "INSERT 0 1", "DELETE 0") → the row count."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _fault(error: BaseException) -> WriteFault | None:
    for kind, fault in _WRITE_FAULTS.items():
        if isinstance(error, kind):
            return fault
    return None


class PostgresSession(Session):
    """A session on one pooled connection (a transaction's), or on the pool itself (reads)."""

    def __init__(self, connection: asyncpg.Connection | asyncpg.Pool) -> None:
        self._connection = connection

    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> int:
        try:
            status = await self._connection.execute(placeholders(sql), *parameters)
        except asyncpg.IntegrityConstraintViolationError as error:
            raise ConstraintViolated(str(error)) from error
        return _rows_changed(status)

    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        try:
            return list(await self._connection.fetch(placeholders(sql), *parameters))
        except asyncpg.IntegrityConstraintViolationError as error:
            raise ConstraintViolated(str(error)) from error


class KeptConnection(Session):
    """One connection of ``pool`` kept out of it, for the statements of a caller working alone.

    Through the pool a statement takes the connection, runs and gives it back: five turns of
    the event loop (asyncpg gives it back in a task of its own, shielded) and ~70-90 µs more of
    the bot's CPU on the 2-vCPU VM than on a connection held (docs/benchmarks.md), and a
    `/roll` with the roll limit runs three. Taken once and kept, it is one of the pool's own
    connections, taken and given back with the pool's public calls. A statement the server
    refused (a constraint, a lock timeout) leaves it as good as before; anything else (the
    connection lost, the statement cancelled) gives it back to the pool, which resets or
    replaces it, and the next statement alone takes another, as after ``KEPT_IDLE_SECONDS``
    without a statement.
    """

    def __init__(self, pool: asyncpg.Pool, clock: Callable[[], float] = time.monotonic) -> None:
        self._pool = pool
        self._clock = clock
        self._connection: asyncpg.pool.PoolConnectionProxy | None = None
        self._used = 0.0  # the clock's time of the kept connection's last statement
        self.busy = False  # a statement runs on it: the others go through the pool
        self._giving_back: set[asyncio.Task[None]] = set()

    async def execute(self, sql: str, parameters: Sequence[object] = ()) -> int:
        return await self._run(lambda session: session.execute(sql, parameters))

    async def fetch_all(self, sql: str, parameters: Sequence[object] = ()) -> list[Row]:
        return await self._run(lambda session: session.fetch_all(sql, parameters))

    async def _run(self, statement: Callable[[PostgresSession], Awaitable[T]]) -> T:
        self.busy = True
        try:
            now = self._clock()
            if self._connection is not None and now - self._used > KEPT_IDLE_SECONDS:
                connection, self._connection = self._connection, None
                self._give_back(connection)
            self._used = now
            if self._connection is None:
                self._connection = await self._pool.acquire()
            connection = self._connection
            try:
                return await statement(PostgresSession(connection))
            except (asyncpg.PostgresError, ConstraintViolated):
                raise  # the server's answer: the connection is as good as before
            except BaseException:
                self._connection = None
                self._give_back(connection)
                raise
        finally:
            self.busy = False

    def give_back(self) -> None:
        """Give the connection back to the pool (after an outage: the pool replaces it)."""
        if self._connection is not None and not self.busy:
            connection, self._connection = self._connection, None
            self._give_back(connection)

    def _give_back(self, connection: asyncpg.pool.PoolConnectionProxy) -> None:
        # In a task of its own: a cancelled caller can't wait for it.
        task = asyncio.ensure_future(self._pool.release(connection))
        self._giving_back.add(task)
        task.add_done_callback(self._giving_back.discard)

    async def close(self) -> None:
        """Give the connection back and wait for every one given back (the pool's close waits
        for all its connections)."""
        self.give_back()
        if self._giving_back:
            await asyncio.wait(self._giving_back)


class PostgresDatabase(Database):
    """A pool of connections to one PostgreSQL database.

    ``in_flight``: how many callers are at work that may write soon (the bot's interactions in
    flight). A caller working alone runs its statements outside transactions on a connection
    kept for it (``KeptConnection``), with others through the pool.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        unsynced_pool: asyncpg.Pool,
        in_flight: Callable[[], int],
    ) -> None:
        self._pool = pool
        self._reading = PostgresSession(pool)
        self._unsynced_pool = unsynced_pool  # sessions with synchronous_commit = off
        self._unsynced = PostgresSession(unsynced_pool)
        self._in_flight = in_flight
        self._kept = KeptConnection(pool)
        self._kept_unsynced = KeptConnection(unsynced_pool)
        self._outage = WriteOutage(log)

    @classmethod
    async def open(cls, url: str, *, in_flight: Callable[[], int]) -> PostgresDatabase:
        """Migrate the database at ``url`` to the newest schema and connect a pool to it.

        Raises DatabaseUnusable, naming DATABASE_URL (never its password), when the server
        can't be reached or refuses the bot.
        """
        pool: asyncpg.Pool | None = None
        try:
            applied = await asyncio.to_thread(apply_postgres_migrations, url)
            if applied:
                log.info("Applied PostgreSQL migrations %s", ", ".join(applied))
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                server_settings={"lock_timeout": LOCK_TIMEOUT},
                reset=_keep_session,
            )
            # Writes whose loss in a server crash is harmless (``write_alone(durable=False)``):
            # their own connections, whose sessions commit without waiting for the WAL flush,
            # so such a write is one statement, with no BEGIN, SET LOCAL and COMMIT around it.
            unsynced = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=UNSYNCED_POOL_SIZE,
                server_settings={"lock_timeout": LOCK_TIMEOUT, "synchronous_commit": "off"},
                reset=_keep_session,
            )
        except Exception as error:  # psycopg's, asyncpg's, the network's: say which, not the URL
            if pool is not None:
                pool.terminate()
            raise DatabaseUnusable(
                f"DATABASE_URL can't be used: {type(error).__name__}"
                f"{': ' + _first_line(error) if _safe_to_show(error) else ''}."
            ) from None
        assert pool is not None and unsynced is not None
        return cls(pool, unsynced, in_flight)

    async def close(self) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_TIMEOUT_SECONDS):
                await asyncio.gather(self._kept.close(), self._kept_unsynced.close())
                await asyncio.gather(self._pool.close(), self._unsynced_pool.close())
                return
        self._pool.terminate()
        self._unsynced_pool.terminate()

    @property
    def reader(self) -> Session:
        return self._reading

    def _alone(self, kept: KeptConnection, pooled: PostgresSession) -> Session:
        """The session for one statement run alone: the kept connection when its caller works
        alone and it is free, else the pool."""
        return kept if not kept.busy and self._in_flight() <= 1 else pooled

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Session]:
        """One write transaction, holding the bot's write lock until it commits or rolls back
        (a failure anywhere, COMMIT included, rolls all of it back)."""
        async with (
            self._writing(),
            self._pool.acquire() as connection,
            connection.transaction(),
        ):
            await connection.execute("SELECT pg_advisory_xact_lock($1)", WRITE_LOCK)
            yield PostgresSession(connection)

    async def insert_returning(
        self, sql: str, parameters: Sequence[object] = (), returning: str = ""
    ) -> Row:
        """One INSERT in its own (implicit) transaction: its id comes from the table's identity
        sequence, so it needs no write lock; committed before it returns."""
        extra = f", {returning}" if returning else ""
        session = self._alone(self._kept, self._reading)
        async with self._writing():
            row = await session.fetch_one(f"{sql} RETURNING id{extra}", parameters)
        assert row is not None
        return row

    async def write_alone(
        self, sql: str, parameters: Sequence[object] = (), *, durable: bool = True
    ) -> Row | None:
        # One statement in its own implicit transaction (PostgreSQL's row locks make it
        # atomic). Not durable: on a connection of the pool whose sessions don't wait for the
        # WAL flush at commit, so a server crash may lose this write (the last fraction of a
        # second's), never half of it; no other transaction's durability changes.
        if durable:
            session = self._alone(self._kept, self._reading)
        else:
            session = self._alone(self._kept_unsynced, self._unsynced)
        async with self._writing():
            return await session.fetch_one(sql, parameters)

    @asynccontextmanager
    async def _writing(self) -> AsyncIterator[None]:
        """A write: a failure from outside the bot (disk full, read-only, connection lost)
        becomes CannotSave, warned once per outage; the first write that works ends it."""
        try:
            yield
        except ConstraintViolated:
            raise
        except Exception as error:
            if (fault := _fault(error)) is None:
                raise
            if fault in (WriteFault.READ_ONLY, WriteFault.IO):
                # A server restarted, failed over or made read-only: the pool's connections are
                # stale; the next write gets fresh ones, so the bot recovers by itself.
                self._kept.give_back()
                self._kept_unsynced.give_back()
                await self._pool.expire_connections()
                await self._unsynced_pool.expire_connections()
            raise self._outage.cannot_save(fault, _first_line(error)) from error
        self._outage.saved()


async def _keep_session(connection: asyncpg.Connection) -> None:
    """What a connection going back to the pool needs beyond asyncpg's own rollback of an
    unfinished transaction: nothing. asyncpg's default reset (``RESET ALL``, ``CLOSE ALL``,
    ``UNLISTEN *``, ``pg_advisory_unlock_all()``) would be one more round trip per statement
    run on the pool, undoing what the bot never does: its settings are the pool's own
    (``server_settings``) or ``SET LOCAL``, its advisory lock is transaction-level, and it
    opens no cursor outside a transaction and listens to nothing."""


def _first_line(error: BaseException) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _safe_to_show(error: BaseException) -> bool:
    # Server, libpq and socket errors name the problem and the host, never the password; a
    # malformed-URL error from the migrations is already written without the URL.
    import psycopg  # the migrations' driver, of the same extra as asyncpg

    return isinstance(error, asyncpg.PostgresError | psycopg.Error | OSError | ValueError)
