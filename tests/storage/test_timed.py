"""A timed database (METRICS_PORT, docs/hosting.md, "Metrics") reports each operation's time and
otherwise behaves as the database it wraps, on both backends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config import DatabaseLocation
from bot.storage import Storage
from bot.storage.database import SqliteDatabase
from bot.storage.limits import RollWindow
from bot.storage.timed import DatabaseOperation, TimedDatabase

Timed = list[tuple[DatabaseOperation, float]]


@pytest.fixture(params=["sqlite", "postgresql"])
async def timed(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Storage, Timed]]:
    times: Timed = []
    where: Path | DatabaseLocation
    if request.param == "postgresql":
        where = DatabaseLocation.postgresql(request.getfixturevalue("migrated_postgres_url"))
    else:
        where = request.getfixturevalue("migrated_sqlite")
    opened = await Storage.open(where, timer=lambda operation, s: times.append((operation, s)))
    yield opened, times
    await opened.close()


async def test_each_operation_is_timed_once_by_its_kind(timed: tuple[Storage, Timed]) -> None:
    storage, times = timed
    assert isinstance(storage.database, TimedDatabase)
    async with storage.database.transaction() as session:
        await session.execute("INSERT INTO roll_limits VALUES (1, 1000, 1)")
        await session.execute("INSERT INTO roll_limits VALUES (2, 1000, 1)")
    assert await storage.roll_windows.count_roll(1, 2_000, 10_000) == RollWindow(1_000, 2)
    rows = await storage.database.fetch_all("SELECT user_id FROM roll_limits ORDER BY user_id")
    assert [row["user_id"] for row in rows] == [1, 2]
    assert [operation for operation, _ in times] == [
        DatabaseOperation.TRANSACTION,  # two statements, one transaction
        DatabaseOperation.STATEMENT,
        DatabaseOperation.READ,
    ]
    assert all(seconds > 0 for _, seconds in times)


async def test_a_failed_transaction_is_timed_and_rolled_back(
    timed: tuple[Storage, Timed],
) -> None:
    storage, times = timed
    with pytest.raises(RuntimeError, match="the body failed"):
        async with storage.database.transaction() as session:
            await session.execute("INSERT INTO roll_limits VALUES (1, 1000, 1)")
            raise RuntimeError("the body failed")
    assert await storage.database.fetch_all("SELECT * FROM roll_limits") == []
    assert [operation for operation, _ in times] == [
        DatabaseOperation.TRANSACTION,
        DatabaseOperation.READ,
    ]


async def test_without_a_timer_the_stores_use_the_database_itself(migrated_sqlite: Path) -> None:
    storage = await Storage.open(migrated_sqlite)
    try:
        assert type(storage.database) is SqliteDatabase  # no wrapper, nothing timed
    finally:
        await storage.close()
