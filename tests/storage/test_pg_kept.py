"""PostgreSQL's statements of a caller working alone, on a connection kept out of the pool
(``bot.storage.postgres.KeptConnection``): no pool round per statement, a refused statement
keeps it, a cancelled one gives it back, and with others at work the pool serves as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from bot.config import DatabaseLocation
from bot.storage import Storage
from bot.storage.database import ConstraintViolated
from bot.storage.postgres import KEPT_IDLE_SECONDS, PostgresDatabase
from tests.storage.writes import roll_entry as entry


class Busy:
    """How many interactions the bot would have in flight."""

    def __init__(self) -> None:
        self.in_flight = 1

    def __call__(self) -> int:
        return self.in_flight


@pytest.fixture
def busy() -> Busy:
    return Busy()


@pytest.fixture
async def pg_storage(migrated_postgres_url: str, busy: Busy) -> AsyncIterator[Storage]:
    opened = await Storage.open(DatabaseLocation.postgresql(migrated_postgres_url), in_flight=busy)
    yield opened
    await opened.close()


def count_takes(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Name the pool ('synced' or 'unsynced') of every connection taken from now on."""
    database = storage.database
    assert isinstance(database, PostgresDatabase)
    names = {id(database._pool): "synced", id(database._unsynced_pool): "unsynced"}
    taken: list[str] = []
    original = asyncpg.Pool.acquire

    def acquire(pool: asyncpg.Pool, *arguments: Any, **options: Any) -> Any:
        taken.append(names.get(id(pool), "another pool"))
        return original(pool, *arguments, **options)

    monkeypatch.setattr(asyncpg.Pool, "acquire", acquire)  # its instances have slots
    return taken


async def a_roll(storage: Storage, n: int) -> int:
    """What a `/roll` with the roll limit asks: the count, the row, the message id."""
    await storage.roll_windows.count_roll(3, 1_000 + n, 60_000)
    roll_id = (await storage.rolls.record_noting_previous(entry(n))).id
    await storage.rolls.set_message(roll_id, 7_000 + n)
    return roll_id


async def test_a_caller_alone_takes_one_connection_of_each_pool_once(
    pg_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = count_takes(pg_storage, monkeypatch)
    ids = [await a_roll(pg_storage, n) for n in range(5)]
    assert sorted(taken) == ["synced", "unsynced"]  # once each, kept for all 15 statements
    for n, roll_id in enumerate(ids):
        logged = await pg_storage.rolls.get(roll_id)
        assert logged is not None and logged.message_id == 7_000 + n
    window = await pg_storage.roll_windows.count_roll(3, 2_000, 60_000)
    assert window.rolls == 6  # every count counted


async def test_with_others_at_work_every_statement_goes_through_the_pool(
    pg_storage: Storage, busy: Busy, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy.in_flight = 5
    taken = count_takes(pg_storage, monkeypatch)
    await asyncio.gather(*(a_roll(pg_storage, n) for n in range(4)))
    assert sorted(taken) == ["synced"] * 8 + ["unsynced"] * 4


async def test_a_statement_the_server_refuses_keeps_the_connection(
    pg_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    await a_roll(pg_storage, 0)
    taken = count_takes(pg_storage, monkeypatch)
    with pytest.raises(ConstraintViolated):  # no such campaign: the roll log's foreign key
        await pg_storage.rolls.record(entry(1, campaign_id=999_999))
    await a_roll(pg_storage, 2)
    assert taken == []


async def test_a_cancelled_statement_gives_its_connection_back_and_the_next_takes_another(
    pg_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = pg_storage.database
    assert isinstance(database, PostgresDatabase)
    await a_roll(pg_storage, 0)
    taken = count_takes(pg_storage, monkeypatch)
    sleeping = asyncio.ensure_future(database.write_alone("SELECT pg_sleep(30)"))
    await asyncio.sleep(0.2)
    sleeping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sleeping
    roll_id = await a_roll(pg_storage, 1)
    assert taken == ["synced"]  # a new one, for the rest
    logged = await pg_storage.rolls.get(roll_id)
    assert logged is not None and logged.message_id == 7_001
    # The cancelled one went back to the pool: closing (in the fixture) finds every
    # connection returned, and the server runs nothing of ours any more.
    async with database._pool.acquire() as connection:
        running = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'"
            " AND state = 'active'"
        )
    assert running == 0


async def test_a_connection_kept_idle_too_long_goes_back_and_a_fresh_one_is_taken(
    pg_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    database = pg_storage.database
    assert isinstance(database, PostgresDatabase)
    now = [1_000.0]
    monkeypatch.setattr(database._kept, "_clock", lambda: now[0])
    await pg_storage.rolls.record(entry(0))  # taken at 1,000 s
    taken = count_takes(pg_storage, monkeypatch)
    now[0] += KEPT_IDLE_SECONDS  # not yet too long
    await pg_storage.rolls.record(entry(1))
    assert taken == []
    now[0] += KEPT_IDLE_SECONDS + 1
    await pg_storage.rolls.record(entry(2))
    assert taken == ["synced"]
