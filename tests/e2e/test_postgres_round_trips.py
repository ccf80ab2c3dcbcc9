"""Issue 38: what one `/roll` asks of PostgreSQL, in round trips (each a wait for the server, and on
a small machine a context switch or two): counted on the wire, between the bot and the test server,
by a proxy (tests/pgwire.py). docs/benchmarks.md and docs/hosting.md, "Several processes
(shards)"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

from bot.client import DiceBot, create_bot
from bot.config import DatabaseLocation, Settings
from bot.ratelimit import RollLimit
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord
from tests.pgwire import RoundTrip, WireRecorder

COUNT = "INSERT INTO roll_limits"
LOG = "INSERT INTO rolls"
MESSAGE = "UPDATE rolls SET message_id"


@asynccontextmanager
async def bot_on_the_wire(
    fake: FakeDiscord, tmp_path: Path, url: str, limit: RollLimit | None
) -> AsyncIterator[tuple[DiceBot, WireRecorder]]:
    server = urlsplit(url)
    assert server.hostname is not None and server.port is not None
    async with WireRecorder(server.hostname, server.port) as wire:
        settings = Settings(
            token=fake.token,
            database_path=tmp_path / "unused.db",
            database=DatabaseLocation.postgresql(wire.url(url)),
            guild_id=fake.guild_id,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            roll_limit=limit,
        )
        bot = create_bot(settings, rng=new_rng(DICE_SEED))
        async with run_bot(fake, bot):
            yield bot, wire


async def roll_once(fake: FakeDiscord, bot: DiceBot, wire: WireRecorder) -> list[RoundTrip]:
    """One public /roll, its work done to the end (the message remembered); its round trips."""
    wire.take()
    reply = await fake.invoke("roll", {"expression": "4d6kh3+2"})
    assert not reply.ephemeral and reply.embeds, reply.content
    await fake.wait_until(lambda: not bot.in_flight, "the bot to finish the roll")
    return wire.take()


def first_words(trips: list[RoundTrip]) -> list[tuple[str, ...]]:
    """Each round trip's statements, by what they begin with (their SQL's first words)."""
    known = (COUNT, LOG, MESSAGE)
    return [
        tuple(
            next((word for word in known if sql.lstrip().startswith(word)), sql)
            for sql in trip.statements
        )
        for trip in trips
    ]


async def test_a_roll_under_the_shared_limit_is_three_round_trips_on_postgresql(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_postgres_url: str
) -> None:
    """The count (one upsert, no BEGIN, SET LOCAL or COMMIT around it), the log row (one
    INSERT), the message it is shown in (one UPDATE, after the reply); no reset query when a
    connection goes back to the pool, no read of the campaign (cached)."""
    async with bot_on_the_wire(
        fake_discord, tmp_path, migrated_postgres_url, RollLimit(1_000, 3_600)
    ) as (bot, wire):
        for _ in range(2):  # each connection prepares its statements once; the first prunes
            await roll_once(fake_discord, bot, wire)
        trips = await roll_once(fake_discord, bot, wire)
        assert first_words(trips) == [(COUNT,), (LOG,), (MESSAGE,)]
        assert all(trip.prepared == () for trip in trips)  # prepared once, run by name since
        # The count went over a connection of its own (synchronous_commit off for its session).
        count, log, _ = trips
        assert count.connection != log.connection
        window = await bot.storage.database.fetch_one("SELECT rolls FROM roll_limits")
        assert window is not None and window["rolls"] == 3
        logged = await bot.storage.rolls.get(3)
        assert logged is not None and logged.message_id is not None


async def test_a_roll_with_no_limit_is_two_round_trips_on_postgresql(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_postgres_url: str
) -> None:
    async with bot_on_the_wire(fake_discord, tmp_path, migrated_postgres_url, None) as (bot, wire):
        await roll_once(fake_discord, bot, wire)
        trips = await roll_once(fake_discord, bot, wire)
        assert first_words(trips) == [(LOG,), (MESSAGE,)]
        assert await bot.storage.database.fetch_all("SELECT * FROM roll_limits") == []
