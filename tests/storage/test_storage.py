"""Storage on a real SQLite file: migrations, pragmas, transactions and the named operations."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from bot.storage import Revealer, RollEntry, Storage, Visibility, apply_migrations
from bot.storage.database import MIGRATIONS_DIRECTORY
from bot.storage.database import sqlite as sqlite_database
from bot.storage.errors import (
    AlreadyGM,
    CampaignAlreadyRunning,
    CampaignEnded,
    FounderStaysGM,
    NotCoGM,
    RevealNotAllowed,
    RollAlreadyRevealed,
    RollInAnotherServer,
    RollNotFound,
    RollNotHidden,
    TrackOutOfRange,
    UnknownTrack,
)
from rules import cosmos, sinew, sixpool
from rules.campaigns import CampaignSettings
from rules.systems import System
from tests.expect import active_campaign, logged_roll

CHANNEL = 1001
OTHER_CHANNEL = 1002
GM = 11
PLAYER = 22


async def start_campaign(
    storage: Storage, channel_id: int = CHANNEL, system: System = cosmos.SYSTEM
):
    return await storage.campaigns.start(
        guild_id=1,
        channel_id=channel_id,
        user_id=GM,
        settings=CampaignSettings.create(system, "Voidrunners"),
    )


def test_migrations_second_start_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "bot.db"
    every_migration = sorted(file.stem for file in MIGRATIONS_DIRECTORY.glob("*.sql"))
    assert every_migration[:2] == ["0001_foundation", "0002_cosmos"]
    assert apply_migrations(path) == every_migration
    assert apply_migrations(path) == []


def test_migrating_a_fresh_database_prints_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # The migration tool prints what a step's statement returns as a table; SQLite's DROP
    # COLUMN (0003_system_settings) returns its schema check's empty result.
    assert apply_migrations(tmp_path / "bot.db")
    assert capfd.readouterr() == ("", "")


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


async def test_migration_moves_system_settings_into_the_declared_json(tmp_path: Path) -> None:
    before = tmp_path / "before"
    before.mkdir()
    for name in ("0001_foundation.sql", "0002_cosmos.sql"):
        shutil.copy(MIGRATIONS_DIRECTORY / name, before)
    path = tmp_path / "bot.db"
    apply_migrations(path, before)
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO campaigns (channel_id, system, name, skin, edge_option, lingering_taint,"
            " created_by) VALUES (?, ?, ?, 'fantasy', ?, ?, 1)",
            [
                (1, "sixpool", "Pools", "B", 0),
                (2, "sinew", "Grit", None, 1),
                (3, "cosmos", "X", None, 0),
            ],
        )
    assert apply_migrations(path)[0] == "0003_system_settings"
    opened = await Storage.open(path)
    try:
        pools, grit, cosmos_campaign = [
            await active_campaign(opened, channel) for channel in (1, 2, 3)
        ]
    finally:
        await opened.close()
    assert pools.settings.get(sixpool.EDGE_OPTION) is sixpool.EdgeOption.B
    assert grit.settings.get(sinew.LINGERING_TAINT) is True
    assert cosmos_campaign.settings.options == {}
    assert grit.settings.info_lines() == [
        "Skin: fantasy",
        "Lingering taint: on (a Crisis leaves Pressure at 1)",
    ]


async def test_migration_0012_gives_each_logged_roll_its_one_visibility(tmp_path: Path) -> None:
    # Before 0012 a roll had a 0/1 `hidden` flag, and a blind roll also `"blind": true` in its
    # payload: public, hidden and blind become the one stored value.
    before = tmp_path / "before"
    before.mkdir()
    for migration in sorted(MIGRATIONS_DIRECTORY.glob("00*.sql")):
        if migration.name < "0012":
            shutil.copy(migration, before)
    path = tmp_path / "bot.db"
    apply_migrations(path, before)
    payloads = ['{"n": 1}', '{"n": 2}', '{"n": 3, "blind": true}', '{"n": 4, "blind": false}']
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO rolls (guild_id, channel_id, user_id, kind, hidden, payload)"
            " VALUES (1, ?, ?, 'dice', ?, ?)",
            [
                (CHANNEL, PLAYER, hidden, payload)
                for hidden, payload in zip((0, 1, 1, 1), payloads, strict=True)
            ],
        )
    assert apply_migrations(path)[0] == "0012_roll_visibility"  # and any later ones
    opened = await Storage.open(path)
    try:
        rolls = [await logged_roll(opened, roll_id) for roll_id in (1, 2, 3, 4)]
    finally:
        await opened.close()
    assert [roll.visibility for roll in rolls] == [
        Visibility.PUBLIC, Visibility.HIDDEN, Visibility.BLIND, Visibility.HIDDEN,
    ]  # fmt: skip
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(rolls)")]
        assert "hidden" not in columns
        with pytest.raises(sqlite3.IntegrityError):  # nothing but the three values
            connection.execute("UPDATE rolls SET visibility = 'secret' WHERE id = 1")


async def test_migration_0014_moves_a_sinew_campaigns_skin_into_its_settings(
    tmp_path: Path,
) -> None:
    # Before 0014 every campaign had a `skin` column; only Sinew & Steel used it. A Sinew
    # campaign keeps its skin as its setting (beside lingering_taint); the column goes.
    before = tmp_path / "before"
    before.mkdir()
    for migration in sorted(MIGRATIONS_DIRECTORY.glob("00*.sql")):
        if migration.name < "0014":
            shutil.copy(migration, before)
    path = tmp_path / "bot.db"
    apply_migrations(path, before)
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO campaigns (channel_id, system, name, skin, settings, created_by)"
            " VALUES (?, ?, 'c', ?, ?, 1)",
            [
                (1, "sinew", "scifi", '{"lingering_taint": true}'),
                (2, "sinew", "fantasy", "{}"),
                (3, "cosmos", "scifi", "{}"),
            ],
        )
    assert apply_migrations(path) == [
        "0014_sinew_skin",
        "0015_roll_messages",
        "0016_log37_roll_log_index",
        "0017_realms_traits",
        "0018_character_rolled",
        "0019_sixpool_contest_sides",
        "0020_command_syncs",
    ]
    opened = await Storage.open(path)
    try:
        scifi, fantasy, stars = [await active_campaign(opened, channel) for channel in (1, 2, 3)]
    finally:
        await opened.close()
    assert scifi.settings.options == {"lingering_taint": True, "skin": "scifi"}
    assert scifi.settings.get(sinew.SKIN) is sinew.Skin.SCIFI
    assert fantasy.settings.get(sinew.SKIN) is sinew.Skin.FANTASY
    assert stars.settings.options == {}
    with sqlite3.connect(path) as connection:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(campaigns)")]
        assert "skin" not in columns


async def test_connection_uses_wal_foreign_keys_and_busy_timeout(sqlite_storage: Storage) -> None:
    pragmas: dict[str, object] = {}
    for name in ("journal_mode", "foreign_keys", "busy_timeout"):
        row = await sqlite_storage.database.fetch_one(f"PRAGMA {name}")
        assert row is not None
        pragmas[name] = row[0]
    assert pragmas == {"journal_mode": "wal", "foreign_keys": 1, "busy_timeout": 5000}


async def test_closing_twice_waits_for_the_one_close_not_for_the_write_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # discord.py closes the bot twice on the way out; the first close keeps the write lock. A
    # second close that waited for it would wait out the close timeout (made endless here).
    monkeypatch.setattr(sqlite_database, "CLOSE_TIMEOUT_SECONDS", 3600.0)
    opened = await Storage.open(tmp_path / "bot.db")
    await opened.campaigns.active(CHANNEL)
    async with asyncio.timeout(30):  # generous: it ends as soon as both closes return
        await asyncio.gather(opened.close(), opened.close())
        await opened.close()
    with pytest.raises(ValueError, match="Connection closed"):
        await opened.database.fetch_one("SELECT 1")


async def test_concurrent_pressure_adds_stop_exactly_at_the_declared_maximum(
    storage: Storage,
) -> None:
    campaign = await start_campaign(storage, system=sinew.SYSTEM)

    async def add() -> bool:
        try:
            await storage.tracks.change(campaign, "pressure", 1)
        except TrackOutOfRange:
            return False
        return True

    outcomes = await asyncio.gather(*(add() for _ in range(50)))
    assert outcomes.count(True) == 5  # PRESSURE_MAX, declared by Sinew & Steel
    assert await storage.tracks.value(campaign, "pressure") == 5


async def test_concurrent_removals_never_go_below_the_minimum(storage: Storage) -> None:
    campaign = await start_campaign(storage, system=sinew.SYSTEM)
    await storage.tracks.change(campaign, "pressure", 4)

    async def remove() -> bool:
        try:
            await storage.tracks.change(campaign, "pressure", -1)
        except TrackOutOfRange:
            return False
        return True

    outcomes = await asyncio.gather(*(remove() for _ in range(50)))
    assert outcomes.count(True) == 4
    assert await storage.tracks.value(campaign, "pressure") == 0


async def test_track_change_out_of_range_changes_nothing(storage: Storage) -> None:
    campaign = await start_campaign(storage, system=sinew.SYSTEM)
    await storage.tracks.change(campaign, "pressure", 3)
    with pytest.raises(TrackOutOfRange) as refused:
        await storage.tracks.change(campaign, "pressure", 3)
    assert (refused.value.before, refused.value.minimum, refused.value.maximum) == (3, 0, 5)
    assert await storage.tracks.value(campaign, "pressure") == 3


async def test_a_track_the_system_does_not_declare_is_refused(storage: Storage) -> None:
    cosmos_campaign = await start_campaign(storage)
    with pytest.raises(UnknownTrack) as refused:
        await storage.tracks.change(cosmos_campaign, "pressure", 1)
    assert refused.value.known == ()
    sinew_campaign = await start_campaign(storage, OTHER_CHANNEL, sinew.SYSTEM)
    with pytest.raises(UnknownTrack) as mistyped:
        await storage.tracks.change(sinew_campaign, "presure", 1)
    assert mistyped.value.known == ("pressure",)
    rows = await storage.database.fetch_all("SELECT name FROM tracks")
    assert rows == []


async def test_failed_transaction_leaves_no_half_change(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    with pytest.raises(RuntimeError):
        async with storage.database.transaction() as connection:
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign.id, PLAYER, GM),
            )
            raise RuntimeError("crash between two writes")
    assert (await active_campaign(storage, CHANNEL)).gm_ids == {GM}


async def test_failed_commit_is_rolled_back_and_later_writes_work(sqlite_storage: Storage) -> None:
    campaign = await start_campaign(sqlite_storage)
    # A deferred foreign key is checked at COMMIT, which then fails and leaves the
    # transaction open unless it is rolled back.
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        async with sqlite_storage.database.transaction() as connection:
            await connection.execute("PRAGMA defer_foreign_keys = ON")
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign.id + 999, PLAYER, GM),
            )
    updated = await sqlite_storage.campaigns.add_gm(campaign, PLAYER, GM)
    assert updated.gm_ids == {GM, PLAYER}
    rows = await sqlite_storage.database.fetch_all("SELECT campaign_id FROM campaign_gms")
    assert sorted(row["campaign_id"] for row in rows) == [campaign.id, campaign.id]


async def test_cancellation_while_begin_runs_leaves_no_open_transaction(
    sqlite_storage: Storage,
) -> None:
    campaign = await start_campaign(sqlite_storage)

    async def write() -> None:
        async with sqlite_storage.database.transaction() as connection:
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
    updated = await sqlite_storage.campaigns.add_gm(campaign, 33, GM)
    assert updated.gm_ids == {GM, 33}


async def test_second_campaign_in_a_channel_is_refused(storage: Storage) -> None:
    await start_campaign(storage)
    with pytest.raises(CampaignAlreadyRunning):
        await start_campaign(storage)
    other = await start_campaign(storage, OTHER_CHANNEL)
    assert other.channel_id == OTHER_CHANNEL


async def test_ending_frees_the_channel_and_keeps_the_record(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    await storage.campaigns.end(campaign, GM)
    assert await storage.campaigns.active(CHANNEL) is None
    with pytest.raises(CampaignEnded):
        await storage.campaigns.end(campaign, GM)
    again = await start_campaign(storage)
    assert again.id != campaign.id


async def test_gm_add_and_remove(storage: Storage) -> None:
    campaign = await start_campaign(storage)
    with_player = await storage.campaigns.add_gm(campaign, PLAYER, GM)
    assert with_player.gm_ids == {GM, PLAYER}
    with pytest.raises(AlreadyGM):
        await storage.campaigns.add_gm(campaign, PLAYER, GM)
    without = await storage.campaigns.remove_gm(campaign, PLAYER)
    assert without.gm_ids == {GM}
    with pytest.raises(NotCoGM):
        await storage.campaigns.remove_gm(campaign, PLAYER)
    with pytest.raises(FounderStaysGM):
        await storage.campaigns.remove_gm(campaign, GM)


async def test_reveal_checks_server_secrecy_and_once(storage: Storage) -> None:
    def record(visibility: Visibility, guild_id: int = 1):
        return storage.rolls.record(
            RollEntry(
                campaign_id=None,
                guild_id=guild_id,
                channel_id=CHANNEL,
                user_id=GM,
                kind="dice",
                visibility=visibility,
                payload={"result": {"total": 7}, "embed": {"title": "2d6"}},
            )
        )

    hidden_id, public_id, other_server_id = (
        await record(Visibility.HIDDEN),
        await record(Visibility.PUBLIC),
        await record(Visibility.HIDDEN, guild_id=2),
    )

    def reveal(roll_id: int):
        return storage.rolls.reveal(roll_id, Revealer(1, GM, manages_server=True))

    # Manage Server in server 1 reveals nothing of server 2's, whatever the channel.
    with pytest.raises(RollInAnotherServer):
        await reveal(other_server_id)
    assert (await logged_roll(storage, other_server_id)).revealed_at is None
    with pytest.raises(RollNotHidden):
        await reveal(public_id)
    with pytest.raises(RollNotFound):
        await reveal(999)
    revealed = await reveal(hidden_id)
    assert revealed.revealed_at is not None
    assert revealed.payload["result"] == {"total": 7}
    with pytest.raises(RollAlreadyRevealed):
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
        visibility=Visibility.HIDDEN,
        payload={"result": {"total": 765432}, "embed": {"title": "1d1+765431"}},
    )
    roll_id = await storage.rolls.record(entry)
    await storage.campaigns.end(old, GM)
    # A player starts the next campaign in the same channel and is its GM, not the old one's.
    await storage.campaigns.start(
        guild_id=1,
        channel_id=CHANNEL,
        user_id=PLAYER,
        settings=CampaignSettings.create(cosmos.SYSTEM, "Next"),
    )
    with pytest.raises(RevealNotAllowed):
        await storage.rolls.reveal(roll_id, Revealer(1, PLAYER, manages_server=False))
    assert (await logged_roll(storage, roll_id)).revealed_at is None
    revealed = await storage.rolls.reveal(roll_id, Revealer(1, GM, manages_server=False))
    assert revealed.payload["result"] == {"total": 765432}


async def test_reveal_of_a_roll_made_outside_campaigns_needs_manage_server(
    storage: Storage,
) -> None:
    roll_id = await storage.rolls.record(
        RollEntry(None, 1, CHANNEL, GM, "dice", Visibility.HIDDEN, {"result": {}, "embed": {}})
    )
    await start_campaign(storage)  # GM runs a campaign here now, but the roll predates it
    with pytest.raises(RevealNotAllowed) as refused:
        await storage.rolls.reveal(roll_id, Revealer(1, GM, manages_server=False))
    assert refused.value.outside_campaigns
    # Manage Server in another server is not Manage Server in the roll's.
    with pytest.raises(RollInAnotherServer):
        await storage.rolls.reveal(roll_id, Revealer(2, GM, manages_server=True))
    assert (await storage.rolls.reveal(roll_id, Revealer(1, GM, manages_server=True))).revealed_at


async def test_latest_roll_before_a_roll_is_the_rollers_previous_one_in_the_channel(
    storage: Storage,
) -> None:
    # What takes the buttons off a roller's older message (docs/players/index.md, "Buttons and
    # announcements").
    def entry(user: int, channel: int = CHANNEL) -> RollEntry:
        return RollEntry(None, 1, channel, user, "dice", Visibility.PUBLIC, {"result": {}})

    first = await storage.rolls.record(entry(PLAYER))
    await storage.rolls.record(entry(GM))  # another roller's
    await storage.rolls.record(entry(PLAYER, CHANNEL + 1))  # another channel's
    second = await storage.rolls.record(entry(PLAYER))
    before = await storage.rolls.latest(CHANNEL, PLAYER, before=second)
    assert before is not None and before.id == first
    assert await storage.rolls.latest(CHANNEL, PLAYER, before=first) is None
    latest = await storage.rolls.latest(CHANNEL, PLAYER)
    assert latest is not None and latest.id == second


async def test_recording_a_roll_names_the_rollers_previous_public_roll_here(
    storage: Storage,
) -> None:
    # What says whether a /roll must retire an older message's buttons (docs/players/index.md,
    # "Buttons and announcements"): the kind of the roller's previous roll in the channel, if
    # public.
    def entry(kind: str, user: int = PLAYER, channel: int = CHANNEL, secret: bool = False):
        visibility = Visibility.HIDDEN if secret else Visibility.PUBLIC
        return RollEntry(None, 1, channel, user, kind, visibility, {"result": {}})

    first = await storage.rolls.record_noting_previous(entry("sinew.test"))
    assert first.previous_kind is None  # the roller's first roll here
    await storage.rolls.record(entry("cosmos.roll", user=GM))  # another roller's
    await storage.rolls.record(entry("cosmos.roll", channel=CHANNEL + 1))  # another channel's
    second = await storage.rolls.record_noting_previous(entry("dice"))
    assert second.previous_kind == "sinew.test" and second.id > first.id
    logged = await storage.rolls.get(second.id)
    assert logged is not None and logged.kind == "dice" and logged.user_id == PLAYER
    await storage.rolls.record(entry("realms.check", secret=True))
    after_secret = await storage.rolls.record_noting_previous(entry("dice"))
    assert after_secret.previous_kind is None  # a secret roll shows no buttons to retire


async def test_a_database_of_the_oldest_migration_upgrades_at_start_with_nothing_lost(
    tmp_path: Path,
) -> None:
    oldest = tmp_path / "oldest"
    oldest.mkdir()
    shutil.copy(MIGRATIONS_DIRECTORY / "0001_foundation.sql", oldest)
    path = tmp_path / "bot.db"
    apply_migrations(path, oldest)
    tables = ("campaigns", "campaign_gms", "characters", "tracks", "rolls")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO campaigns (guild_id, channel_id, system, name, skin, created_by)"
            " VALUES (1, ?, 'cosmos', 'Old Stars', 'scifi', ?)",
            (CHANNEL, GM),
        )
        connection.execute("INSERT INTO campaign_gms VALUES (1, ?, ?)", (PLAYER, GM))
        connection.execute(
            "INSERT INTO characters (campaign_id, user_id, name) VALUES (1, ?, 'Ash')", (PLAYER,)
        )
        connection.execute(
            "INSERT INTO tracks (campaign_id, character_id, name, value, minimum, maximum)"
            " VALUES (1, NULL, 'pressure', 3, 0, 5)"
        )
        connection.executemany(
            "INSERT INTO rolls (campaign_id, guild_id, channel_id, user_id, kind, hidden, payload)"
            " VALUES (1, 1, ?, ?, 'dice', ?, ?)",
            [(CHANNEL, PLAYER, hidden, f'{{"n": {n}}}') for n, hidden in ((1, 0), (2, 1), (3, 0))],
        )
        connection.row_factory = sqlite3.Row
        before = {
            table: [dict(row) for row in connection.execute(f"SELECT * FROM {table} ORDER BY 1")]
            for table in tables
        }
    opened = await Storage.open(path)  # every later migration, at start
    try:
        campaign = await active_campaign(opened, CHANNEL)
        rolls = [await logged_roll(opened, roll_id) for roll_id in (1, 2, 3)]
    finally:
        await opened.close()
    assert campaign is not None and campaign.settings.name == "Old Stars"
    assert PLAYER in campaign.gm_ids
    assert [(roll.visibility, roll.payload) for roll in rolls] == [
        (Visibility.PUBLIC, {"n": 1}), (Visibility.HIDDEN, {"n": 2}), (Visibility.PUBLIC, {"n": 3}),
    ]  # fmt: skip
    with sqlite3.connect(path) as connection:
        connection.row_factory = sqlite3.Row
        for table, rows in before.items():
            after = [dict(row) for row in connection.execute(f"SELECT * FROM {table} ORDER BY 1")]
            # Every column the oldest schema had and still has keeps its values (0003 moved
            # edge_option and lingering_taint into settings: the test above checks that move).
            kept = [name for name in rows[0] if name in after[0]]
            assert [{k: row[k] for k in kept} for row in after] == [
                {k: row[k] for k in kept} for row in rows
            ], table
            # 0012 replaced `hidden` with `visibility`, 0014 moved a Sinew campaign's `skin` into
            # settings: the tests above check the mapping and the move.
            assert set(rows[0]) - set(kept) <= {"edge_option", "lingering_taint", "hidden", "skin"}


def count_campaign_reads(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the running-campaign lookups that reach the database, by channel."""
    reads: list[int] = []
    original = storage.database.fetch_all

    async def counted(sql: str, parameters=()):
        if "WHERE c.channel_id = ?" in sql:
            reads.append(parameters[0])
        return await original(sql, parameters)

    monkeypatch.setattr(storage.database, "fetch_all", counted)
    return reads


async def test_campaign_cache_reads_once_and_follows_start_gm_changes_switches_and_end(
    storage: Storage, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    reads = count_campaign_reads(storage, monkeypatch)
    assert await storage.campaigns.active(CHANNEL) is None
    assert await storage.campaigns.active(CHANNEL) is None
    assert reads == [CHANNEL]  # the second lookup came from memory
    campaign = await start_campaign(storage)
    assert await active_campaign(storage, CHANNEL) == campaign
    await storage.campaigns.add_gm(campaign, PLAYER, GM)
    assert (await active_campaign(storage, CHANNEL)).gm_ids == {GM, PLAYER}
    await storage.campaigns.remove_gm(campaign, PLAYER)
    assert (await active_campaign(storage, CHANNEL)).gm_ids == {GM}
    await storage.campaigns.set_switches(campaign, lambda s: replace(s, gm_rolls_hidden=True))
    assert (await active_campaign(storage, CHANNEL)).switches.gm_rolls_hidden
    await storage.campaigns.end(campaign, GM)
    assert await storage.campaigns.active(CHANNEL) is None
    assert reads == [CHANNEL]  # every change updated the cache: no lookup went to the file
    # What the cache says is what the file says.
    fresh = await Storage.open(tmp_path / "bot.db")
    try:
        assert await fresh.campaigns.active(CHANNEL) is None
    finally:
        await fresh.close()


async def test_a_lookup_racing_an_end_does_not_cache_the_ended_campaign(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await start_campaign(storage)
    storage.campaigns.forget()
    read_done, release = asyncio.Event(), asyncio.Event()
    original = storage.database.fetch_all

    async def slow(sql: str, parameters=()):
        row = await original(sql, parameters)  # reads the campaign while it still runs
        read_done.set()
        await release.wait()
        return row

    monkeypatch.setattr(storage.database, "fetch_all", slow)
    lookup = asyncio.create_task(storage.campaigns.active(CHANNEL))
    await read_done.wait()
    monkeypatch.setattr(storage.database, "fetch_all", original)
    await storage.campaigns.end(campaign, GM)
    release.set()
    assert await lookup == campaign  # it raced the end: it may answer as before it
    assert await storage.campaigns.active(CHANNEL) is None  # but didn't stick
