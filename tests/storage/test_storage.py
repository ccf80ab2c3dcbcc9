"""Storage on a real SQLite file: migrations, pragmas, transactions and the named operations."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.errors import CommandError
from bot.storage import RollEntry, Storage, apply_migrations
from bot.storage.database import MIGRATIONS_DIRECTORY
from rules.campaigns import CampaignSettings
from rules.systems import System

CHANNEL = 1001
OTHER_CHANNEL = 1002
GM = 11
PLAYER = 22


@pytest.fixture
async def storage(tmp_path: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(tmp_path / "bot.db")
    yield opened
    await opened.close()


async def start_campaign(storage: Storage, channel_id: int = CHANNEL):
    return await storage.campaigns.start(
        guild_id=1,
        channel_id=channel_id,
        user_id=GM,
        settings=CampaignSettings.create(System.COSMOS, "Voidrunners"),
    )


def test_migrations_second_start_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    every_migration = sorted(file.stem for file in MIGRATIONS_DIRECTORY.glob("*.sql"))
    assert every_migration[:2] == ["0001_foundation", "0002_cosmos"]
    assert apply_migrations(path) == every_migration
    assert apply_migrations(path) == []


def test_migrations_upgrade_an_older_database(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    shutil.copy(MIGRATIONS_DIRECTORY / "0001_foundation.sql", old)
    shutil.copytree(old, new)
    (new / "0002_example.sql").write_text("CREATE TABLE example (id INTEGER PRIMARY KEY);\n")
    path = tmp_path / "bot.db"
    assert apply_migrations(path, old) == ["0001_foundation"]
    assert apply_migrations(path, new) == ["0002_example"]
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    assert {"campaigns", "rolls", "example"} <= tables


async def test_connection_uses_wal_foreign_keys_and_busy_timeout(storage: Storage) -> None:
    pragmas = {}
    for name in ("journal_mode", "foreign_keys", "busy_timeout"):
        pragmas[name] = (await storage.database.fetch_one(f"PRAGMA {name}"))[0]
    assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 5000}


async def test_two_hundred_concurrent_track_changes_end_exactly_right(storage: Storage) -> None:
    campaign = await start_campaign(storage)

    async def bump() -> None:
        await storage.tracks.change(campaign.id, "counter", 1, minimum=0, maximum=1000)

    await asyncio.gather(*(bump() for _ in range(200)))
    assert await storage.tracks.value(campaign.id, "counter") == 200


async def test_concurrent_spends_never_go_below_the_minimum(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    await storage.tracks.change(campaign.id, "tokens", 5, minimum=0, maximum=10)

    async def spend() -> bool:
        try:
            await storage.tracks.change(campaign.id, "tokens", -1, minimum=0, maximum=10)
        except CommandError:
            return False
        return True

    outcomes = await asyncio.gather(*(spend() for _ in range(50)))
    assert outcomes.count(True) == 5
    assert await storage.tracks.value(campaign.id, "tokens") == 0


async def test_track_change_out_of_range_changes_nothing(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    await storage.tracks.change(campaign.id, "pressure", 3, minimum=0, maximum=5)
    with pytest.raises(CommandError, match="would leave 0–5"):
        await storage.tracks.change(campaign.id, "pressure", 3, minimum=0, maximum=5)
    assert await storage.tracks.value(campaign.id, "pressure") == 3


async def test_failed_transaction_leaves_no_half_change(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    with pytest.raises(RuntimeError):
        async with storage.database.transaction() as connection:
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign.id, PLAYER, GM),
            )
            raise RuntimeError("crash between two writes")
    assert (await storage.campaigns.active(CHANNEL)).gm_ids == {GM}


async def test_failed_commit_is_rolled_back_and_later_writes_work(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    # A deferred foreign key is checked at COMMIT, which then fails and leaves the
    # transaction open unless it is rolled back.
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        async with storage.database.transaction() as connection:
            await connection.execute("PRAGMA defer_foreign_keys = ON")
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign.id + 999, PLAYER, GM),
            )
    updated = await storage.campaigns.add_gm(campaign, PLAYER, GM)
    assert updated.gm_ids == {GM, PLAYER}
    rows = await storage.database.fetch_all("SELECT campaign_id FROM campaign_gms")
    assert sorted(row["campaign_id"] for row in rows) == [campaign.id, campaign.id]


async def test_cancellation_while_begin_runs_leaves_no_open_transaction(
    storage: Storage,
) -> None:
    campaign = await start_campaign(storage)

    async def write() -> None:
        async with storage.database.transaction() as connection:
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign.id, PLAYER, GM),
            )

    task = asyncio.create_task(write())
    await asyncio.sleep(0)  # the task now waits on BEGIN IMMEDIATE in aiosqlite's thread
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # The next operation starts its own transaction; with BEGIN left open it would fail.
    updated = await storage.campaigns.add_gm(campaign, 33, GM)
    assert updated.gm_ids == {GM, 33}


async def test_second_campaign_in_a_channel_is_refused(storage: Storage) -> None:
    await start_campaign(storage)
    with pytest.raises(CommandError, match="already runs the Cosmos Engine campaign"):
        await start_campaign(storage)
    other = await start_campaign(storage, OTHER_CHANNEL)
    assert other.channel_id == OTHER_CHANNEL


async def test_ending_frees_the_channel_and_keeps_the_record(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    await storage.campaigns.end(campaign, GM)
    assert await storage.campaigns.active(CHANNEL) is None
    with pytest.raises(CommandError, match="already ended"):
        await storage.campaigns.end(campaign, GM)
    again = await start_campaign(storage)
    assert again.id != campaign.id


async def test_gm_add_and_remove(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    with_player = await storage.campaigns.add_gm(campaign, PLAYER, GM)
    assert with_player.gm_ids == {GM, PLAYER}
    with pytest.raises(CommandError, match="already a GM"):
        await storage.campaigns.add_gm(campaign, PLAYER, GM)
    without = await storage.campaigns.remove_gm(campaign, PLAYER)
    assert without.gm_ids == {GM}
    with pytest.raises(CommandError, match="not a co-GM"):
        await storage.campaigns.remove_gm(campaign, PLAYER)
    with pytest.raises(CommandError, match="always stays its GM"):
        await storage.campaigns.remove_gm(campaign, GM)


async def test_reveal_checks_channel_hidden_and_once(storage: Storage) -> None:
    def record(hidden: bool, channel_id: int = CHANNEL):
        return storage.rolls.record(
            RollEntry(
                campaign_id=None,
                guild_id=1,
                channel_id=channel_id,
                user_id=GM,
                kind="dice",
                hidden=hidden,
                payload={"result": {"total": 7}, "embed": {"title": "2d6"}},
            )
        )

    hidden_id, public_id, elsewhere_id = (
        await record(True),
        await record(False),
        await record(True, OTHER_CHANNEL),
    )

    def reveal(roll_id: int, channel_id: int = CHANNEL):
        return storage.rolls.reveal(roll_id, channel_id, GM, manages_server=True)

    with pytest.raises(CommandError, match="another channel"):
        await reveal(elsewhere_id)
    with pytest.raises(CommandError, match="was not hidden"):
        await reveal(public_id)
    with pytest.raises(CommandError, match="no roll #999"):
        await reveal(999)
    revealed = await reveal(hidden_id)
    assert revealed.revealed_at is not None
    assert revealed.payload["result"] == {"total": 7}
    with pytest.raises(CommandError, match="already revealed"):
        await reveal(hidden_id)


async def test_reveal_only_by_a_gm_of_the_campaign_the_roll_was_made_in(
    storage: Storage,
) -> None:
    old = await start_campaign(storage)
    entry = RollEntry(
        campaign_id=old.id,
        guild_id=1,
        channel_id=CHANNEL,
        user_id=GM,
        kind="dice",
        hidden=True,
        payload={"result": {"total": 765432}, "embed": {"title": "1d1+765431"}},
    )
    roll_id = await storage.rolls.record(entry)
    await storage.campaigns.end(old, GM)
    # A player starts the next campaign in the same channel and is its GM, not the old one's.
    await storage.campaigns.start(
        guild_id=1,
        channel_id=CHANNEL,
        user_id=PLAYER,
        settings=CampaignSettings.create(System.COSMOS, "Next"),
    )
    with pytest.raises(CommandError, match="Only a GM of the campaign roll #1 was made in"):
        await storage.rolls.reveal(roll_id, CHANNEL, PLAYER, manages_server=False)
    assert (await storage.rolls.get(roll_id)).revealed_at is None
    revealed = await storage.rolls.reveal(roll_id, CHANNEL, GM, manages_server=False)
    assert revealed.payload["result"] == {"total": 765432}


async def test_reveal_of_a_roll_made_outside_campaigns_needs_manage_server(
    storage: Storage,
) -> None:
    roll_id = await storage.rolls.record(
        RollEntry(None, 1, CHANNEL, GM, "dice", True, {"result": {}, "embed": {}})
    )
    await start_campaign(storage)  # GM runs a campaign here now, but the roll predates it
    with pytest.raises(CommandError, match="outside any campaign: a member with Manage Server"):
        await storage.rolls.reveal(roll_id, CHANNEL, GM, manages_server=False)
    assert (await storage.rolls.reveal(roll_id, CHANNEL, GM, manages_server=True)).revealed_at
