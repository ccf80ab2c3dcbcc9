"""`RollLog.session_rolls`: a campaign's latest session (after the last pause of three hours),
or the rolls since an id or a time, read on the (campaign_id, id) index, on both backends."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.storage import RollEntry, SessionStart, Storage, Visibility
from bot.storage import rolls as roll_log
from bot.storage.cosmos import ChallengeStore
from bot.storage.rolls import log as roll_log_store
from rules import cosmos
from rules.campaigns import CampaignSettings
from rules.cosmos import ChallengeStatus

GM, PLAYER = 11, 22


async def campaign_in(storage: Storage, channel_id: int) -> int:
    started = await storage.campaigns.start(
        guild_id=1,
        channel_id=channel_id,
        user_id=GM,
        settings=CampaignSettings.create(cosmos.SYSTEM, f"Table {channel_id}"),
    )
    return started.id


async def logged_at(
    storage: Storage,
    campaign_id: int,
    at: str,
    visibility: Visibility = Visibility.PUBLIC,
) -> int:
    entry = RollEntry(campaign_id, 1, 1, PLAYER, "dice", visibility, {"result": {}, "embed": {}})
    roll_id = await storage.rolls.record(entry)
    await storage.database.write_alone(
        "UPDATE rolls SET created_at = ? WHERE id = ?", (f"2026-11-20T{at}:00.000Z", roll_id)
    )
    return roll_id


async def ids(
    storage: Storage, campaign_id: int, start: SessionStart, **options: bool
) -> list[int]:
    return [roll.id for roll in await storage.rolls.session_rolls(campaign_id, start, **options)]


async def test_the_session_starts_after_the_last_pause_of_three_hours_or_more(
    storage: Storage,
) -> None:
    ours, theirs = await campaign_in(storage, 1), await campaign_in(storage, 2)
    early = await logged_at(storage, ours, "10:00")
    await logged_at(storage, theirs, "12:00")  # another campaign: no pause in ours, not read
    second = await logged_at(storage, ours, "10:30")
    tonight = await logged_at(storage, ours, "13:30")  # exactly three hours: a new session
    later = await logged_at(storage, ours, "16:29")  # 2 h 59 after: the same session
    secret = await logged_at(storage, ours, "16:40", Visibility.HIDDEN)
    assert await ids(storage, ours, SessionStart()) == [tonight, later]
    assert await ids(storage, ours, SessionStart(), include_secret=True) == [
        tonight, later, secret,
    ]  # fmt: skip
    # A GM's secret roll in the middle of a long pause: a player's recap still sees the pause
    # (it says nothing of when secret rolls were made); the GM's view has no pause there.
    blind = await logged_at(storage, ours, "18:30", Visibility.BLIND)
    last = await logged_at(storage, ours, "20:30")
    assert await ids(storage, ours, SessionStart()) == [last]
    assert await ids(storage, ours, SessionStart(), include_secret=True) == [
        tonight, later, secret, blind, last,
    ]  # fmt: skip
    assert await ids(storage, ours, SessionStart(roll_id=second)) == [
        second, tonight, later, last,
    ]  # fmt: skip
    since = SessionStart(at=datetime(2026, 11, 20, 10, 15, tzinfo=UTC))
    assert await ids(storage, ours, since) == [second, tonight, later, last]
    assert await ids(storage, ours, SessionStart(at=datetime(2026, 11, 21, tzinfo=UTC))) == []
    assert await ids(storage, theirs, SessionStart()) == [early + 1]
    assert await ids(storage, await campaign_in(storage, 3), SessionStart()) == []


async def test_the_walk_back_to_the_pause_crosses_pages(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(roll_log_store, "_SESSION_PAGE", 3)  # where the walk reads it
    ours = await campaign_in(storage, 1)
    await logged_at(storage, ours, "08:00")
    session = [await logged_at(storage, ours, f"12:{minute:02d}") for minute in range(8)]
    assert await ids(storage, ours, SessionStart()) == session
    everything = SessionStart(at=datetime(2026, 11, 20, tzinfo=UTC))
    assert len(await ids(storage, ours, everything)) == 9


async def test_a_session_longer_than_the_limit_gives_its_latest_rolls(storage: Storage) -> None:
    ours = await campaign_in(storage, 1)
    await logged_at(storage, ours, "08:00")
    session = [await logged_at(storage, ours, f"12:{minute:02d}") for minute in range(6)]
    limited = await storage.rolls.session_rolls(ours, SessionStart(), limit=4)
    assert [roll.id for roll in limited] == session[-4:]
    since = SessionStart(at=datetime(2026, 11, 20, tzinfo=UTC))
    assert [roll.id for roll in await storage.rolls.session_rolls(ours, since, limit=2)] == (
        session[-2:]
    )


async def test_the_session_as_text_is_the_same_rolls_with_their_payloads_undecoded(
    storage: Storage,
) -> None:
    # The recap decodes the payloads in its worker process (docs/gms.md, "Campaign recap").
    ours = await campaign_in(storage, 1)
    await logged_at(storage, ours, "08:00")
    for minute in range(3):
        await logged_at(storage, ours, f"12:{minute:02d}", Visibility.HIDDEN if minute else
                        Visibility.PUBLIC)  # fmt: skip
    for options in ({}, {"include_secret": True}):
        rolls = await storage.rolls.session_rolls(ours, SessionStart(), **options)
        texts = await storage.rolls.session_texts(ours, SessionStart(), **options)
        assert [(roll_id, user_id, kind, json.loads(payload), made_at)
                for roll_id, user_id, kind, payload, made_at in texts] == [
            (roll.id, roll.user_id, roll.kind, roll.payload, roll.created_at) for roll in rolls
        ]  # fmt: skip
        assert len(texts) == (3 if options else 1)


def test_the_session_queries_use_the_campaign_index_on_sqlite(migrated_sqlite: Path) -> None:
    every_query = [
        roll_log.session_walk_sql(include_secret=False),
        roll_log.session_walk_sql(include_secret=True),
    ] + [
        roll_log.session_rows_sql(by_time=by_time, include_secret=secret)
        for by_time in (False, True)
        for secret in (False, True)
    ]
    with sqlite3.connect(migrated_sqlite) as connection:
        for sql in every_query:
            plan = connection.execute(f"EXPLAIN QUERY PLAN {sql}", (1,) * sql.count("?"))
            details = " ".join(row[3] for row in plan)
            assert "USING INDEX rolls_by_campaign (campaign_id=?" in details, details
            assert "TEMP B-TREE" not in details, details  # ordered by the index itself
            assert "SCAN" not in details, details


async def test_challenges_ended_won_or_lost_since_a_time(storage: Storage) -> None:
    campaign = await storage.campaigns.start(
        guild_id=1, channel_id=5, user_id=GM,
        settings=CampaignSettings.create(cosmos.SYSTEM, "Challenges"),
    )  # fmt: skip
    challenges = ChallengeStore(storage.database)
    for name in ("Vault", "Bridge", "Gate"):
        await challenges.open(campaign, cosmos.start_challenge(name, 10, 2, 3), GM)
    await challenges.change(campaign, "Vault", lambda c: replace(c, status=ChallengeStatus.WON))
    await challenges.change(campaign, "bridge", cosmos.abandon_challenge)  # neither won nor lost
    ended = await challenges.ended_since(campaign.id, "2000-01-01T00:00:00.000Z")
    assert [(challenge.name, challenge.won) for challenge in ended] == [("Vault", True)]
    assert await challenges.ended_since(campaign.id, "2999-01-01T00:00:00.000Z") == []
