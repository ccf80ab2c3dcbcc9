"""Roll-rate windows in the database (issue 24: a rate limit shared by every process).

Expected values are worked out by hand from the rule: a user's window begins at their first
roll and lasts ``window_ms``; a roll at or after its end starts a new window at that roll.
"""

from __future__ import annotations

import asyncio

from bot.config import DatabaseLocation
from bot.ratelimit import RollLimit, SharedRollLimiter
from bot.storage import Storage
from bot.storage.limits import RollWindow
from tests.storage.faults import read_only

WINDOW_MS = 10_000
ALICE, BOB = 111, 222


async def test_a_users_rolls_count_in_one_window_until_it_has_passed(storage: Storage) -> None:
    windows = storage.roll_windows
    assert await windows.count_roll(ALICE, 1_000, WINDOW_MS) == RollWindow(1_000, 1)
    assert await windows.count_roll(ALICE, 5_000, WINDOW_MS) == RollWindow(1_000, 2)
    assert await windows.count_roll(BOB, 5_000, WINDOW_MS) == RollWindow(5_000, 1)  # his own
    assert await windows.count_roll(ALICE, 10_999, WINDOW_MS) == RollWindow(1_000, 3)
    # 1,000 + 10,000: the window has passed; this roll starts the next one.
    assert await windows.count_roll(ALICE, 11_000, WINDOW_MS) == RollWindow(11_000, 1)
    assert await windows.count_roll(BOB, 14_999, WINDOW_MS) == RollWindow(5_000, 2)


async def test_forgetting_ended_windows_keeps_the_running_ones(storage: Storage) -> None:
    windows = storage.roll_windows
    await windows.count_roll(ALICE, 1_000, WINDOW_MS)
    await windows.count_roll(BOB, 6_000, WINDOW_MS)
    await windows.forget_ended(12_000, WINDOW_MS)  # Alice's ended at 11,000; Bob's runs on
    rows = await storage.database.fetch_all(
        "SELECT user_id, window_start_ms, rolls FROM roll_limits"
    )
    assert [tuple(row) for row in rows] == [(BOB, 6_000, 1)]
    assert await windows.count_roll(BOB, 12_000, WINDOW_MS) == RollWindow(6_000, 2)


async def test_500_concurrent_rolls_of_one_user_are_each_counted_once(storage: Storage) -> None:
    windows = storage.roll_windows
    counted = await asyncio.gather(
        *(windows.count_roll(ALICE, 1_000, WINDOW_MS) for _ in range(500))
    )
    # Serially the counts are 1, 2, …, 500: a read-then-write would hand some out twice.
    assert sorted(window.rolls for window in counted) == list(range(1, 501))
    assert {window.start_ms for window in counted} == {1_000}


async def test_concurrent_rolls_at_the_limit_let_exactly_the_limit_through(
    storage: Storage,
) -> None:
    # 30 rolls of one user at once against a limit of 20 in the window: one after another the
    # first 20 pass and the last 10 are refused until the window ends (10 s from 100 s); at
    # once the same, and every roll is counted.
    limiter = SharedRollLimiter(RollLimit(20, 10), storage.roll_windows, Clock(100.0))
    answers = await asyncio.gather(*(limiter.count(ALICE) for _ in range(30)))
    assert sorted(answers, key=lambda wait: wait is not None) == [None] * 20 + [10.0] * 10
    row = await storage.database.fetch_one("SELECT window_start_ms, rolls FROM roll_limits")
    assert row is not None and tuple(row) == (100_000, 30)


class Clock:
    """Wall-clock seconds the test sets."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def test_the_shared_limiter_refuses_past_the_limit_until_the_window_ends(
    storage: Storage,
) -> None:
    clock = Clock(100.0)
    limiter = SharedRollLimiter(RollLimit(3, 10), storage.roll_windows, clock)
    for now in (100.0, 101.0, 102.0):  # three rolls in the window that began at 100 s
        clock.now = now
        assert await limiter.count(ALICE) is None
    clock.now = 103.5
    assert await limiter.count(ALICE) == 6.5  # the window ends at 110 s
    assert await limiter.count(BOB) is None  # another user's window is their own
    clock.now = 110.0
    assert await limiter.count(ALICE) is None  # a new window


async def test_two_processes_limiters_share_each_users_window(storage: Storage) -> None:
    # Two limiters on one database, as two shards' processes have: the limit is the bot's.
    clock = Clock(100.0)
    first, second = (
        SharedRollLimiter(RollLimit(3, 10), storage.roll_windows, clock) for _ in range(2)
    )
    assert [await limiter.count(ALICE) for limiter in (first, second, first)] == [None] * 3
    clock.now = 104.0
    assert await second.count(ALICE) == 6.0


async def test_a_database_that_cannot_save_lets_rolls_go_unlimited(
    sqlite_storage: Storage,
) -> None:
    # Rolls need nothing saved and keep working while the database can't be written; a limit
    # that can't be counted lets them through rather than refusing every roll.
    limiter = SharedRollLimiter(RollLimit(1, 10), sqlite_storage.roll_windows, Clock(100.0))
    async with read_only(sqlite_storage.database):
        assert [await limiter.count(ALICE) for _ in range(3)] == [None] * 3
    assert await limiter.count(ALICE) is None  # counting again: the first of a new window
    assert await limiter.count(ALICE) == 10.0


async def test_the_roll_limits_writes_alone_commit_without_waiting_for_the_wal_on_postgresql(
    migrated_postgres_url: str,
) -> None:
    """Issue 38: the count and the pruning of ended windows run with ``synchronous_commit =
    off`` (lost in a server crash, they are harmless); every other write keeps ``on``."""
    import psycopg  # the PostgreSQL extra, as the fixture's
    import psycopg.sql

    # The test server runs with synchronous_commit=off for speed: this database says on, as a
    # production server does. A trigger notes the setting each write of roll_limits runs under.
    with psycopg.connect(migrated_postgres_url, autocommit=True) as admin:
        admin.execute(
            psycopg.sql.SQL("ALTER DATABASE {} SET synchronous_commit = on").format(
                psycopg.sql.Identifier(admin.info.dbname)
            )
        )
        admin.execute("CREATE TABLE seen (setting text NOT NULL)")
        admin.execute(
            "CREATE FUNCTION note_setting() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "INSERT INTO seen VALUES (current_setting('synchronous_commit')); RETURN NEW; END $$"
        )
        admin.execute(
            "CREATE TRIGGER note_setting BEFORE INSERT OR UPDATE OR DELETE ON roll_limits "
            "FOR EACH ROW EXECUTE FUNCTION note_setting()"
        )
    storage = await Storage.open(DatabaseLocation.postgresql(migrated_postgres_url))
    try:
        windows = storage.roll_windows
        assert await windows.count_roll(ALICE, 1_000, WINDOW_MS) == RollWindow(1_000, 1)
        assert await windows.count_roll(ALICE, 2_000, WINDOW_MS) == RollWindow(1_000, 2)
        # The insert, then the upsert's BEFORE INSERT and BEFORE UPDATE: all off.
        noted = await storage.database.fetch_all("SELECT setting FROM seen")
        assert [row["setting"] for row in noted] == ["off", "off", "off"]
        # Every connection of the pool the other writes use says on (the count has its own).
        shown = await asyncio.gather(
            *(storage.database.fetch_all("SHOW synchronous_commit") for _ in range(20))
        )
        assert {rows[0]["synchronous_commit"] for rows in shown} == {"on"}
        async with storage.database.transaction() as session:
            row = await session.fetch_one("SHOW synchronous_commit")
            assert row is not None and row["synchronous_commit"] == "on"
        # Forgetting ended windows doesn't wait for the disk either (a lost delete leaves
        # windows that have passed, as good as none); any other write does.
        await windows.forget_ended(20_000, WINDOW_MS)
        await storage.database.write_alone(
            "INSERT INTO roll_limits (user_id, window_start_ms, rolls) VALUES (?, ?, ?)",
            (BOB, 30_000, 1),
        )
        noted = await storage.database.fetch_all("SELECT setting FROM seen")
        assert [row["setting"] for row in noted] == ["off", "off", "off", "off", "on"]
    finally:
        await storage.close()
