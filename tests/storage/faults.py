"""Make the bot's database unwritable while it runs, and writable again, without a restart.

Changing the file's permissions can't do this: SQLite keeps its files open, and an open file
stays writable whatever its mode becomes (and root ignores modes altogether). So the faults are
made on the bot's own writer connection, and raise the very errors a real fault raises:

- ``read_only``: ``PRAGMA query_only``, so writes fail with SQLITE_READONLY ("attempt to write
  a readonly database"), as they do on a file SQLite could only open read-only.
- ``disk_full``: ``PRAGMA max_page_count`` at the file's current size, then the roll log padded
  until a row no longer fits, so the next roll logged needs a new page and fails with
  SQLITE_FULL ("database or disk is full"), as on a full disk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import aiosqlite

from bot.storage import Database
from bot.storage.database import SqliteDatabase

__all__ = ["FILLER_CHANNEL", "disk_full", "read_only"]

FILLER_CHANNEL = 0  # padding rows are logged in a channel no test uses
_FILLER = (
    "INSERT INTO rolls (campaign_id, guild_id, channel_id, user_id, kind, visibility, payload)"
    f" VALUES (NULL, NULL, {FILLER_CHANNEL}, 0, 'filler', 'public', ?)"
)
_FILLER_SIZES = (2048, 256, 0)  # big rows first, then ever smaller ones into the gaps left
_MOST_FILLER_ROWS = 10_000


def _writer(database: Database) -> aiosqlite.Connection:
    assert isinstance(database, SqliteDatabase)  # the faults are SQLite's
    return database._writer  # the connection every write goes through but the loop's own


def _here(database: Database) -> sqlite3.Connection:
    assert isinstance(database, SqliteDatabase)
    return database._here  # the loop's own: a roll's log row and message id when it is free


async def _pragma(connection: aiosqlite.Connection, pragma: str) -> int:
    [row] = await connection.execute_fetchall(f"PRAGMA {pragma}")
    return int(row[0])


@asynccontextmanager
async def read_only(database: Database) -> AsyncIterator[None]:
    """Make every write fail with SQLITE_READONLY inside the block."""
    writer, here = _writer(database), _here(database)
    await writer.execute("PRAGMA query_only = ON")
    here.execute("PRAGMA query_only = ON")
    try:
        yield
    finally:
        here.execute("PRAGMA query_only = OFF")
        await writer.execute("PRAGMA query_only = OFF")


@asynccontextmanager
async def disk_full(database: Database) -> AsyncIterator[None]:
    """Fill the database to a size it may not pass: logging a roll fails with SQLITE_FULL."""
    writer, here = _writer(database), _here(database)
    limit = await _pragma(writer, "max_page_count")
    full = await _pragma(writer, "page_count")
    await writer.execute(f"PRAGMA max_page_count = {full}")
    here.execute(f"PRAGMA max_page_count = {full}")
    for size in _FILLER_SIZES:
        for _ in range(_MOST_FILLER_ROWS):
            try:
                await writer.execute(_FILLER, ("x" * size,))
            except sqlite3.OperationalError as error:
                assert error.sqlite_errorcode == sqlite3.SQLITE_FULL, error
                break
        else:
            raise AssertionError(f"{_MOST_FILLER_ROWS} rows of {size} bytes never filled it")
    try:
        yield
    finally:
        here.execute(f"PRAGMA max_page_count = {limit}")
        await writer.execute(f"PRAGMA max_page_count = {limit}")
