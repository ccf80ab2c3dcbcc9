"""A full disk or a read-only database: writes refused as CannotSave, whole, and then work again.

The faults are real SQLite errors on the bot's writer connection (see tests/storage/faults.py).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.storage import RollEntry, Storage, Visibility, insert_roll
from bot.storage.errors import CannotSave, WriteFault
from bot.storage.tracks import change_track, track_spec
from rules.campaigns import CampaignSettings
from rules.systems import System
from tests.expect import active_campaign, logged_roll
from tests.storage.faults import FILLER_CHANNEL, disk_full, read_only

CHANNEL = 7001
GM = 1


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(tmp_path / "bot.db")
    yield opened
    await opened.close()


async def start(storage: Storage):
    settings = CampaignSettings.create(System.SINEW, "Iron Age")
    return await storage.campaigns.start(
        guild_id=1, channel_id=CHANNEL, user_id=GM, settings=settings
    )


def entry(campaign_id: int) -> RollEntry:
    return RollEntry(
        campaign_id, 1, CHANNEL, GM, "dice", Visibility.PUBLIC, {"result": {"total": 7}}
    )


async def rolls_in_channel(storage: Storage) -> int:
    [row] = await storage.database.fetch_all(
        "SELECT count(*) FROM rolls WHERE channel_id != ?", (FILLER_CHANNEL,)
    )
    return row[0]


async def change_and_log(storage: Storage, campaign, delta: int) -> None:
    """One transaction: the party's Pressure changes and a roll is logged with it."""
    spec = track_spec(campaign, "pressure", on_character=False)
    async with storage.database.transaction() as connection:
        await change_track(connection, campaign.id, spec, delta)
        await insert_roll(connection, entry(campaign.id))


async def test_a_full_disk_refuses_a_transaction_whole_and_the_next_one_works_with_room(
    storage: Storage,
) -> None:
    campaign = await start(storage)
    await change_and_log(storage, campaign, 1)
    async with disk_full(storage.database):
        with pytest.raises(CannotSave) as refused:
            await change_and_log(storage, campaign, 2)  # the track changes, then the log fails
        assert refused.value.fault is WriteFault.FULL
        with pytest.raises(CannotSave):
            await storage.rolls.record(entry(campaign.id))
        # Nothing half-done: the track change went with the roll that could not be logged.
        assert await storage.tracks.value(campaign, "pressure") == 1
        assert await rolls_in_channel(storage) == 1
    await change_and_log(storage, campaign, 2)  # the same connection, no reopening
    assert await storage.tracks.value(campaign, "pressure") == 3
    assert await storage.rolls.record(entry(campaign.id)) > 0
    assert await rolls_in_channel(storage) == 3


async def test_a_read_only_database_refuses_writes_while_reads_go_on(storage: Storage) -> None:
    campaign = await start(storage)
    roll_id = await storage.rolls.record(entry(campaign.id))
    async with read_only(storage.database):
        for write in (
            lambda: storage.rolls.record(entry(campaign.id)),
            lambda: storage.tracks.change(campaign, "pressure", 1),
            lambda: storage.campaigns.add_gm(campaign, 2, GM),
        ):
            with pytest.raises(CannotSave) as refused:
                await write()
            assert refused.value.fault is WriteFault.READ_ONLY
        assert (await logged_roll(storage, roll_id)).payload == {"result": {"total": 7}}
        assert (await active_campaign(storage, CHANNEL)).gm_ids == campaign.gm_ids
    await storage.campaigns.add_gm(campaign, 2, GM)
    assert 2 in (await active_campaign(storage, CHANNEL)).gm_ids


async def test_an_outage_is_warned_once_and_its_end_noted(
    storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    campaign = await start(storage)
    caplog.set_level(logging.INFO, logger="bot.storage.database")
    async with read_only(storage.database):
        for _ in range(3):
            with pytest.raises(CannotSave):
                await storage.rolls.record(entry(campaign.id))
    await storage.rolls.record(entry(campaign.id))
    await storage.rolls.record(entry(campaign.id))
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        (
            "WARNING",
            "The database can't be written (read-only): attempt to write a readonly database",
        ),
        ("INFO", "The database can be written again (it was read-only)"),
    ]
    assert all(record.exc_info is None for record in caplog.records)  # no tracebacks


async def test_a_mistake_in_sql_is_not_taken_for_a_disk_fault(storage: Storage) -> None:
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        async with storage.database.transaction() as connection:
            await connection.execute("UPDATE no_such_table SET x = 1")
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await storage.database.insert("INSERT INTO no_such_table VALUES (1)")
