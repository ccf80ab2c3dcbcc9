"""SQLite's group-committed writes on the event loop's own thread (``SqliteDatabase._flush_here``):
a roll's log row and its message id make no trip to the writer's thread while it is free, are
committed before their callers hear of it, and go to the writer's thread whenever they can't be
written at once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.storage import Storage
from bot.storage.database import CHECKPOINT_EVERY, SqliteDatabase
from tests.storage.concurrency import fire, succeeded
from tests.storage.writes import roll_entry as entry
from tests.storage.writes import trips_to_the_writer


@contextlib.contextmanager
def another_process_writing(path: Path) -> Iterator[sqlite3.Connection]:
    """Hold SQLite's write lock on ``path`` from a connection of its own, as another process
    writing the same file would; let it go (rolled back) at the end."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield other
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()


def committed_rows(path: Path) -> list[tuple[int, int | None, str]]:
    """What another connection (another process) finds in the roll log: committed rows only."""
    with contextlib.closing(sqlite3.connect(path)) as other:
        return other.execute("SELECT id, message_id, payload FROM rolls ORDER BY id").fetchall()


async def test_a_roll_and_its_message_id_make_no_trip_to_the_writers_thread_when_it_is_free(
    sqlite_storage: Storage, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trips = trips_to_the_writer(sqlite_storage, monkeypatch)
    recorded = await sqlite_storage.rolls.record_noting_previous(entry(1))
    # Committed before the caller heard of it: another connection sees it at once.
    assert [row[:2] for row in committed_rows(migrated_sqlite)] == [(recorded.id, None)]
    await sqlite_storage.rolls.set_message(recorded.id, 4242)
    assert [row[:2] for row in committed_rows(migrated_sqlite)] == [(recorded.id, 4242)]
    second = await sqlite_storage.rolls.record_noting_previous(entry(2))
    assert (second.id, second.previous_kind) == (recorded.id + 1, "dice")
    assert trips == []


async def test_writes_that_arrive_in_one_turn_of_the_loop_are_one_transaction_there(
    sqlite_storage: Storage, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = sqlite_storage.database
    assert isinstance(database, SqliteDatabase)
    traced: list[str] = []
    database._here.set_trace_callback(traced.append)
    trips = trips_to_the_writer(sqlite_storage, monkeypatch)
    ids = succeeded(await fire(50, lambda n: sqlite_storage.rolls.record(entry(n))))
    assert sorted(ids) == list(range(1, 51))
    # One statement of 50 rows: in autocommit, a transaction by itself.
    assert [statement.split()[0] for statement in traced] == ["INSERT"]
    # A roll and another's message id in one turn: two statements, one transaction.
    traced.clear()
    both = [sqlite_storage.rolls.record(entry(50)), sqlite_storage.rolls.set_message(ids[0], 9)]
    await asyncio.gather(*both)
    assert [statement.split()[0] for statement in traced] == [
        "BEGIN",
        "UPDATE",
        "INSERT",
        "COMMIT",
    ]
    assert trips == []
    # Each caller got its own row.
    payloads = {row[0]: json.loads(row[2]) for row in committed_rows(migrated_sqlite)}
    assert [payloads[roll_id] for roll_id in ids] == [{"result": {"n": n}} for n in range(50)]
    assert committed_rows(migrated_sqlite)[0][1] == 9


async def test_a_roll_logged_while_another_process_writes_waits_for_it_on_the_writers_thread(
    sqlite_storage: Storage, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trips = trips_to_the_writer(sqlite_storage, monkeypatch)
    with another_process_writing(migrated_sqlite):
        logging = asyncio.ensure_future(sqlite_storage.rolls.record(entry(7)))
        await asyncio.sleep(0.05)  # the loop's connection was refused at once; the writer waits
        assert not logging.done()
        assert committed_rows(migrated_sqlite) == []
    roll_id = await logging
    assert [row[:2] for row in committed_rows(migrated_sqlite)] == [(roll_id, None)]
    assert trips  # the writer's thread wrote it


async def test_a_roll_logged_while_a_transaction_of_ours_writes_goes_in_after_it(
    sqlite_storage: Storage, migrated_sqlite: Path
) -> None:
    database = sqlite_storage.database
    async with database.transaction() as session:
        await session.execute("INSERT INTO rolls (channel_id, user_id, kind, visibility, payload)"
                              " VALUES (2, 3, 'first', 'public', '{}')")  # fmt: skip
        logging = asyncio.ensure_future(sqlite_storage.rolls.record(entry(8)))
        await asyncio.sleep(0)
        assert not logging.done()
    roll_id = await logging
    assert [row[0] for row in committed_rows(migrated_sqlite)] == [roll_id - 1, roll_id]


def wal_pages(path: Path) -> int:
    wal = path.with_name(path.name + "-wal")
    return wal.stat().st_size // 4096 if wal.exists() else 0


async def test_the_write_ahead_log_is_checkpointed_while_the_loop_writes_alone(
    sqlite_storage: Storage, migrated_sqlite: Path
) -> None:
    # The loop's connection never checkpoints (it must not wait on the disk); every
    # CHECKPOINT_EVERY of its transactions the writer's thread does. A roll and its message id
    # are two transactions of about two pages each: without the checkpoints the log would grow
    # to ~4 x CHECKPOINT_EVERY pages here, with them it starts again after ~2 x CHECKPOINT_EVERY.
    largest = 0
    for n in range(2 * CHECKPOINT_EVERY):
        roll_id = await sqlite_storage.rolls.record(entry(n))
        await sqlite_storage.rolls.set_message(roll_id, n)
        largest = max(largest, wal_pages(migrated_sqlite))
    assert largest < 3 * CHECKPOINT_EVERY
    assert len(committed_rows(migrated_sqlite)) == 2 * CHECKPOINT_EVERY


async def test_with_others_at_work_writes_wait_for_the_writers_thread_and_go_in_together(
    migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As PostgreSQL's commit_siblings: with others in flight (the bot's interactions), a commit
    # of their writes together costs less than one each on the loop's thread.
    in_flight = 5
    storage = await Storage.open(migrated_sqlite, in_flight=lambda: in_flight)
    try:
        trips = trips_to_the_writer(storage, monkeypatch)
        ids = succeeded(await fire(20, lambda n: storage.rolls.record(entry(n))))
        assert sorted(ids) == list(range(1, 21))
        assert trips == ["_execute_fetchall"]  # one INSERT of all 20, on the writer's thread
        trips.clear()
        in_flight = 1  # alone again: at once, on the loop's thread
        await storage.rolls.set_message(ids[0], 99)
        assert trips == []
        assert committed_rows(migrated_sqlite)[0][:2] == (ids[0], 99)
    finally:
        await storage.close()
