"""Every operation that changes state, fired N times at once, ends in the serial result.

Each operation reads, checks and writes in one transaction; without it, these interleave at
every await and lose updates or let two callers both pass a check.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot.storage import Revealer, RollEntry, Storage, Visibility
from bot.storage.cosmos import ChallengeNotFound, ChallengeStore
from bot.storage.database import ConstraintViolated, SqliteDatabase
from bot.storage.database import sqlite as sqlite_database
from bot.storage.errors import (
    AlreadyGM,
    CampaignAlreadyRunning,
    CampaignEnded,
    NotCoGM,
    RollAlreadyRevealed,
)
from bot.storage.realms import TraitAlreadyHeld, TraitNotHeld, TraitStore
from bot.storage.sqlite_batch import run_in_transaction
from rules import cosmos, realms
from rules.campaigns import CampaignSettings
from rules.realms import Trait
from tests.expect import active_campaign
from tests.storage.concurrency import fire, succeeded
from tests.storage.writes import trips_to_the_writer

CHANNEL = 7001
GM = 1
N = 30


def start(storage: Storage, user_id: int = GM):
    return storage.campaigns.start(
        guild_id=1,
        channel_id=CHANNEL,
        user_id=user_id,
        settings=CampaignSettings.create(cosmos.SYSTEM, f"Campaign of {user_id}"),
    )


def start_realms(storage: Storage):
    return storage.campaigns.start(
        guild_id=1,
        channel_id=CHANNEL,
        user_id=GM,
        settings=CampaignSettings.create(realms.SYSTEM, "Vale"),
    )


def entry(campaign_id: int | None, hidden: bool = False, payload: dict | None = None) -> RollEntry:
    visibility = Visibility.HIDDEN if hidden else Visibility.PUBLIC
    return RollEntry(campaign_id, 1, CHANNEL, GM, "dice", visibility, payload or {"result": {}})


async def test_concurrent_campaign_starts_in_one_channel_make_one(storage: Storage) -> None:
    outcomes = await fire(N, lambda user: start(storage, 100 + user))
    [campaign] = succeeded(outcomes)
    assert sum(isinstance(o, CampaignAlreadyRunning) for o in outcomes) == N - 1
    assert (await active_campaign(storage, CHANNEL)).id == campaign.id


async def test_concurrent_gm_adds_of_different_users_all_land(storage: Storage) -> None:
    campaign = await start(storage)
    succeeded(await fire(N, lambda user: storage.campaigns.add_gm(campaign, 100 + user, GM)))
    assert (await active_campaign(storage, CHANNEL)).gm_ids == {GM} | set(range(100, 100 + N))


async def test_concurrent_adds_of_one_user_add_them_once(storage: Storage) -> None:
    campaign = await start(storage)
    outcomes = await fire(N, lambda _: storage.campaigns.add_gm(campaign, 55, GM))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, AlreadyGM) for o in outcomes) == N - 1


async def test_concurrent_removals_of_one_co_gm_remove_them_once(storage: Storage) -> None:
    campaign = await start(storage)
    await storage.campaigns.add_gm(campaign, 55, GM)
    outcomes = await fire(N, lambda _: storage.campaigns.remove_gm(campaign, 55))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, NotCoGM) for o in outcomes) == N - 1
    assert (await active_campaign(storage, CHANNEL)).gm_ids == {GM}


async def test_concurrent_ends_end_the_campaign_once(storage: Storage) -> None:
    campaign = await start(storage)
    outcomes = await fire(N, lambda user: storage.campaigns.end(campaign, 100 + user))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, CampaignEnded) for o in outcomes) == N - 1
    row = await storage.database.fetch_one(
        "SELECT count(*) FROM campaigns WHERE ended_by IS NOT NULL"
    )
    assert row is not None and row[0] == 1


async def test_concurrent_trait_adds_of_one_user_leave_one_holder(storage: Storage) -> None:
    campaign = await start_realms(storage)
    traits = TraitStore(storage.database)
    outcomes = await fire(N, lambda gm: traits.grant_trait(campaign, 55, Trait.REROLL, 100 + gm))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, TraitAlreadyHeld) for o in outcomes) == N - 1
    rows = await storage.database.fetch_all("SELECT campaign_id, user_id, trait FROM realms_traits")
    assert [tuple(row) for row in rows] == [(campaign.id, 55, "reroll")]


async def test_concurrent_trait_removals_of_one_user_remove_it_once(storage: Storage) -> None:
    campaign = await start_realms(storage)
    traits = TraitStore(storage.database)
    await traits.grant_trait(campaign, 55, Trait.REROLL, GM)
    outcomes = await fire(N, lambda _: traits.revoke_trait(campaign, 55, Trait.REROLL))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, TraitNotHeld) for o in outcomes) == N - 1
    assert await traits.holders(campaign, Trait.REROLL) == []


async def test_concurrent_rolls_are_all_logged_with_distinct_ids(storage: Storage) -> None:
    ids = succeeded(await fire(N, lambda _: storage.rolls.record(entry(None))))
    assert sorted(ids) == list(range(1, N + 1))


async def test_concurrent_reveals_of_one_roll_reveal_it_once(storage: Storage) -> None:
    campaign = await start(storage)
    roll_id = await storage.rolls.record(entry(campaign.id, hidden=True))
    outcomes = await fire(
        N, lambda _: storage.rolls.reveal(roll_id, Revealer(1, GM, manages_server=False))
    )
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, RollAlreadyRevealed) for o in outcomes) == N - 1


async def test_concurrent_opens_of_one_challenge_name_open_one(storage: Storage) -> None:
    campaign = await start(storage)
    challenges = ChallengeStore(storage.database)
    challenge = cosmos.start_challenge("Escape", 12, 3, 5)
    outcomes = await fire(N, lambda user: challenges.open(campaign, challenge, 100 + user))
    assert len(succeeded(outcomes)) == 1
    assert len(await challenges.open_challenges(campaign)) == 1


async def test_concurrent_challenge_rolls_all_count_and_are_all_logged(
    storage: Storage,
) -> None:
    campaign = await start(storage)
    challenges = ChallengeStore(storage.database)
    await challenges.open(
        campaign, cosmos.start_challenge("Escape", 12, 20, cosmos.CHALLENGE_ROLLS_MAX), GM
    )

    def one_success(challenge: cosmos.Challenge) -> cosmos.Challenge:
        return replace(
            challenge, successes=challenge.successes + 1, rolls_used=challenge.rolls_used + 1
        )

    outcomes = await fire(
        N,
        lambda _: challenges.count_roll(
            campaign,
            "Escape",
            one_success,
            lambda after: entry(campaign.id, payload={"after": after.successes}),
        ),
    )
    changes = succeeded(outcomes)
    assert len(changes) == N
    challenge = await challenges.get_open(campaign, "Escape")
    assert (challenge.successes, challenge.rolls_used) == (N, N)
    # Each roll saw the tally left by the one before it: 1, 2, …, N, each logged once.
    assert sorted(change.after.successes for change in changes) == list(range(1, N + 1))
    rows = await storage.database.fetch_all("SELECT payload FROM rolls")
    assert len(rows) == N


async def test_concurrent_ends_of_one_challenge_end_it_once(storage: Storage) -> None:
    campaign = await start(storage)
    challenges = ChallengeStore(storage.database)
    await challenges.open(campaign, cosmos.start_challenge("Escape", 12, 3, 5), GM)
    outcomes = await fire(
        N, lambda _: challenges.change(campaign, "Escape", cosmos.abandon_challenge)
    )
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, ChallengeNotFound) for o in outcomes) == N - 1


def count_statements(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every write statement the database runs, on whichever connection: the groups
    written together (``run_in_transaction``: on the event loop's own connection when the
    writer is free, else on the writer's thread), and the writer's statements alone."""
    statements: list[str] = []
    database = storage.database
    assert isinstance(database, SqliteDatabase)  # the writer connection is SQLite's
    writer = database._writer

    def together(connection, statements_and_parameters):
        statements.extend(sql for sql, _ in statements_and_parameters)
        return run_in_transaction(connection, statements_and_parameters)

    def alone(original):
        def counted(sql, parameters=None):
            statements.append(sql)
            return original(sql, parameters)

        return counted

    monkeypatch.setattr(sqlite_database, "run_in_transaction", together)
    monkeypatch.setattr(writer, "execute_fetchall", alone(writer.execute_fetchall))
    monkeypatch.setattr(writer, "execute", alone(writer.execute))
    return statements


async def test_group_commit_logs_concurrent_rolls_in_few_statements_each_with_its_own_id(
    sqlite_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    statements = count_statements(sqlite_storage, monkeypatch)
    ids = succeeded(
        await fire(
            200, lambda n: sqlite_storage.rolls.record(entry(None, payload={"result": {"n": n}}))
        )
    )
    assert sorted(ids) == list(range(1, 201))
    # Each caller got the id of its own row, committed before it was told.
    for n, roll_id in enumerate(ids):
        logged = await sqlite_storage.rolls.get(roll_id)
        assert logged is not None and logged.payload == {"result": {"n": n}}
    # All 200 arrived in one turn of the loop, before it wrote: one INSERT of 200 rows.
    assert len(statements) == 1 and statements[0].count("(?, ?, ?, ?, ?, ?, ?)") == 200


async def test_one_bad_row_in_a_group_fails_alone(storage: Storage) -> None:
    campaign = await start(storage)
    no_such_campaign = campaign.id + 1000  # breaks the roll log's foreign key

    async def record(n: int) -> int:
        return await storage.rolls.record(entry(no_such_campaign if n == 5 else campaign.id))

    outcomes = await fire(20, record)
    failed = [n for n, outcome in enumerate(outcomes) if isinstance(outcome, BaseException)]
    assert failed == [5] and isinstance(outcomes[5], ConstraintViolated)
    ids = [o for o in outcomes if isinstance(o, int)]
    assert len(set(ids)) == 19  # (PostgreSQL's sequence skips the id the bad row drew)
    for roll_id in ids:
        logged = await storage.rolls.get(roll_id)
        assert logged is not None and logged.campaign_id == campaign.id


async def test_concurrent_rolls_noting_the_previous_each_log_once_and_name_a_real_kind(
    storage: Storage,
) -> None:
    kinds = [f"kind{n}" for n in range(N)]
    recorded = succeeded(
        await fire(
            N, lambda n: storage.rolls.record_noting_previous(replace(entry(None), kind=kinds[n]))
        )
    )
    assert len({each.id for each in recorded}) == N
    kind_of = {}
    for each in recorded:
        logged = await storage.rolls.get(each.id)
        assert logged is not None and logged.kind in kinds
        kind_of[each.id] = logged.kind
    for each in recorded:
        # Only a roll logged before it can be its previous one (PostgreSQL's concurrent
        # statements may not see each other's rows: then an older one, or none).
        older = {kind_of[other] for other in kind_of if other < each.id}
        assert each.previous_kind is None or each.previous_kind in older


async def test_a_group_of_rolls_noting_the_previous_ends_as_one_after_another(
    sqlite_storage: Storage,
) -> None:
    recorded = succeeded(
        await fire(
            N,
            lambda n: sqlite_storage.rolls.record_noting_previous(
                replace(entry(None), kind=f"kind{n}")
            ),
        )
    )
    ordered = sorted(recorded, key=lambda each: each.id)
    logged = [await sqlite_storage.rolls.get(each.id) for each in ordered]
    kinds = [None, *(roll.kind for roll in logged if roll is not None)][:-1]
    assert [each.previous_kind for each in ordered] == kinds  # the serial result


async def test_concurrent_message_ids_of_many_rolls_each_land_on_their_own_roll(
    storage: Storage,
) -> None:
    ids = succeeded(await fire(N, lambda _: storage.rolls.record(entry(None))))
    succeeded(await fire(N, lambda n: storage.rolls.set_message(ids[n], 900_000 + n)))
    for n, roll_id in enumerate(ids):
        logged = await storage.rolls.get(roll_id)
        assert logged is not None and logged.message_id == 900_000 + n


async def test_concurrent_message_ids_of_one_roll_leave_one_of_them(storage: Storage) -> None:
    roll_id = await storage.rolls.record(entry(None))
    other = await storage.rolls.record(entry(None))
    succeeded(await fire(N, lambda n: storage.rolls.set_message(roll_id, 500 + n)))
    logged = await storage.rolls.get(roll_id)
    assert logged is not None and logged.message_id in range(500, 500 + N)
    untouched = await storage.rolls.get(other)
    assert untouched is not None and untouched.message_id is None


async def test_a_group_of_message_ids_of_one_roll_ends_with_the_last_asked(
    sqlite_storage: Storage,
) -> None:
    roll_id = await sqlite_storage.rolls.record(entry(None))
    succeeded(await fire(N, lambda n: sqlite_storage.rolls.set_message(roll_id, 500 + n)))
    logged = await sqlite_storage.rolls.get(roll_id)
    assert logged is not None and logged.message_id == 500 + N - 1  # as if one after another


async def test_group_commit_remembers_concurrent_messages_in_one_statement(
    sqlite_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = succeeded(await fire(200, lambda _: sqlite_storage.rolls.record(entry(None))))
    statements = count_statements(sqlite_storage, monkeypatch)
    succeeded(await fire(200, lambda n: sqlite_storage.rolls.set_message(ids[n], 7_000 + n)))
    # All 200 arrived in one turn of the loop, before it wrote: one UPDATE of 200 rows.
    assert len(statements) == 1 and statements[0].count("(?, ?)") == 200
    for n, roll_id in enumerate(ids):
        logged = await sqlite_storage.rolls.get(roll_id)
        assert logged is not None and logged.message_id == 7_000 + n


async def _rolls_and_messages_at_once(
    storage: Storage, monkeypatch: pytest.MonkeyPatch, *, bad: int | None = None
) -> tuple[list[int | BaseException], list[BaseException | None], list[str], list[int]]:
    """Hold the writer while N rolls are logged and N earlier rolls get their message ids (as
    under load: the rolls just made, the messages of those just shown); then let it go.

    Returns the outcomes of both, the name of every function run on the writer's thread after
    the writer was let go, and the earlier rolls' ids. ``bad``: that roll names no campaign
    that exists (the roll log's foreign key refuses it)."""
    campaign = await start(storage)
    earlier = succeeded(await fire(N, lambda _: storage.rolls.record(entry(campaign.id))))
    database = storage.database
    trips = trips_to_the_writer(storage, monkeypatch)

    def roll(n: int) -> RollEntry:
        return entry(campaign.id + 1000 if n == bad else campaign.id, payload={"result": {"n": n}})

    async with database.transaction():  # the writer is busy while both arrive
        rolls = [asyncio.ensure_future(storage.rolls.record(roll(n))) for n in range(N)]
        messages = [
            asyncio.ensure_future(storage.rolls.set_message(earlier[n], 800_000 + n))
            for n in range(N)
        ]
        await asyncio.sleep(0)
        trips.clear()  # from here: the COMMIT, then what waited
    logged = await asyncio.gather(*rolls, return_exceptions=True)
    remembered = await asyncio.gather(*messages, return_exceptions=True)
    return logged, remembered, trips[1:], earlier


async def test_group_commit_writes_waiting_rolls_and_message_ids_in_one_trip(
    sqlite_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    logged, remembered, trips, earlier = await _rolls_and_messages_at_once(
        sqlite_storage, monkeypatch
    )
    ids = succeeded(logged)
    assert succeeded(remembered) == [None] * N
    # One trip to the database thread for both groups: one transaction, committed before any
    # caller was answered.
    assert trips == ["run_in_transaction"]
    # The serial result: each roll logged once with its own id and payload, each message id
    # on its own roll.
    assert len(set(ids)) == N and min(ids) > max(earlier)
    for n, roll_id in enumerate(ids):
        logged_roll = await sqlite_storage.rolls.get(roll_id)
        assert logged_roll is not None and logged_roll.payload == {"result": {"n": n}}
        assert logged_roll.message_id is None
    for n, roll_id in enumerate(earlier):
        earlier_roll = await sqlite_storage.rolls.get(roll_id)
        assert earlier_roll is not None and earlier_roll.message_id == 800_000 + n


async def test_one_bad_roll_among_waiting_rolls_and_message_ids_fails_alone(
    sqlite_storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    logged, remembered, trips, earlier = await _rolls_and_messages_at_once(
        sqlite_storage, monkeypatch, bad=5
    )
    # The transaction of both was rolled back whole, then each group went in alone: the bad
    # row fails alone, as it does without the message ids beside it.
    assert trips[0] == "run_in_transaction" and len(trips) > 2
    failed = [n for n, outcome in enumerate(logged) if isinstance(outcome, BaseException)]
    assert failed == [5] and isinstance(logged[5], ConstraintViolated)
    ids = [outcome for outcome in logged if isinstance(outcome, int)]
    assert len(set(ids)) == N - 1
    for roll_id in ids:
        assert await sqlite_storage.rolls.get(roll_id) is not None
    assert succeeded(remembered) == [None] * N
    for n, roll_id in enumerate(earlier):
        earlier_roll = await sqlite_storage.rolls.get(roll_id)
        assert earlier_roll is not None and earlier_roll.message_id == 800_000 + n
