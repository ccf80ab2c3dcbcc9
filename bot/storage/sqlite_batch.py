"""The SQLite writer's group commit, apart from its queue (``SqliteDatabase``): the one
statement each group of waiting inserts or updates becomes, and several statements in one
transaction, in one trip to the database thread."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import aiosqlite

if TYPE_CHECKING:
    from bot.storage.database import Row

__all__ = [
    "PendingInsert",
    "PendingUpdate",
    "answer_inserted",
    "insert_statement",
    "run_in_transaction",
    "run_on_connection",
    "update_statement",
]


def _first(row: Row) -> Any:
    return row[0]


# A row waiting for a group-committed INSERT (its values, and its caller's answer), and an
# update waiting for a group-committed ``set_by_id`` (the row's id, its new value, the answer).
PendingInsert = tuple[Sequence[object], "asyncio.Future[Row]"]
PendingUpdate = tuple[int, object, "asyncio.Future[None]"]


@functools.lru_cache(maxsize=256)  # the same few statements and group sizes, again and again
def insert_statement(sql: str, returning: str, rows: int) -> str:
    """``sql`` (one row's ``INSERT … VALUES (…)``) for ``rows`` rows, returning each one's id
    and ``returning``."""
    values = sql[sql.upper().rindex("VALUES") + len("VALUES") :].strip()
    extra = f", {returning}" if returning else ""
    return f"{sql}{f', {values}' * (rows - 1)} RETURNING rowid AS id{extra}"


def answer_inserted(group: list[PendingInsert], rows: Iterable[Row]) -> None:
    """Give each caller of a group-committed INSERT its own new row."""
    # The rows are inserted in the order of their VALUES, taking rowids in ascending order
    # (RETURNING itself promises no order).
    for new, (_, future) in zip(sorted(rows, key=_first), group, strict=True):
        if not future.done():
            future.set_result(new)


def update_statement(
    table: str, column: str, group: list[PendingUpdate]
) -> tuple[str, list[object]]:
    """One statement setting ``column`` of every row of ``group``, and its parameters."""
    # One value per row: the latest asked for a row wins, as it would one by one.
    values = {row_id: value for row_id, value, _ in group}
    if len(values) == 1:
        [(row_id, value)] = values.items()
        return f"UPDATE {table} SET {column} = ? WHERE id = ?", [value, row_id]
    # SQLite 3.33+ (UPDATE … FROM); VALUES names its columns column1, column2
    rows = ", ".join(["(?, ?)"] * len(values))
    statement = (
        f"UPDATE {table} SET {column} = v.column2 FROM (VALUES {rows}) AS v"
        f" WHERE {table}.id = v.column1"
    )
    return statement, [item for pair in values.items() for item in pair]


def run_in_transaction(
    connection: sqlite3.Connection, statements: list[tuple[str, Sequence[object]]]
) -> list[list[Row]]:
    """On the connection's thread: run ``statements`` as one transaction and return each one's
    rows; when any of them (or the commit) fails, nothing is kept and the error is raised.

    One statement alone runs in autocommit, which SQLite makes atomic by itself: no BEGIN and
    COMMIT around it (a roll's row or message id written alone on the event loop's thread, two
    statements fewer each: ~13% of what a roll's two writes cost there, docs/benchmarks.md)."""
    if len(statements) == 1:
        [(sql, parameters)] = statements
        return [connection.execute(sql, parameters).fetchall()]
    try:
        connection.execute("BEGIN IMMEDIATE")
        results: list[list[Row]] = [
            connection.execute(sql, parameters).fetchall() for sql, parameters in statements
        ]
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return results


T = TypeVar("T")


async def run_on_connection(
    connection: aiosqlite.Connection, function: Callable[..., T], *arguments: object
) -> T:
    """Call ``function(sqlite3_connection, *arguments)`` on the connection's own thread: several
    statements in one trip there, where each aiosqlite call is a trip of its own (~0.1 ms of
    the bot's CPU, waking its event loop).

    aiosqlite has no public call for this: ``_execute`` and ``_conn`` are its private queue to
    the thread and its sqlite3 connection (as of aiosqlite 0.22; the storage tests fail if they
    go).
    """
    execute: Callable[..., Awaitable[T]] = connection._execute  # unannotated in aiosqlite
    return await execute(function, connection._conn, *arguments)
