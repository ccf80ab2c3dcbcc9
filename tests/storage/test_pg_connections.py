"""How many PostgreSQL connections one bot process holds (docs/hosting.md, "Moving to
PostgreSQL"): never more than its two pools' sizes, starting, under load past the pools, or
draining, and none once closed. Counted as the server counts them, in ``pg_stat_activity``,
by a sampler on a connection of its own (not counted)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import asyncpg

from bot.config import DatabaseLocation
from bot.storage import Storage
from bot.storage.postgres import CONNECTIONS_PER_PROCESS, POOL_SIZE, UNSYNCED_POOL_SIZE
from tests.docs import DOCS

SAMPLE_EVERY_SECONDS = 0.002
# Each statement holds its connection this long, so the load holds every connection at once.
HOLD = "SELECT pg_sleep(0.1)"
MORE_THAN_THE_POOLS = 3 * CONNECTIONS_PER_PROCESS


class Sampler:
    """The database's connections, other than its own, counted again and again until stopped."""

    def __init__(self, url: str) -> None:
        self._url = url
        self.counts: list[int] = []
        self._task: asyncio.Task[None] | None = None

    async def count(self, connection: asyncpg.Connection) -> int:
        name = urlsplit(self._url).path.lstrip("/")
        value = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            name,
        )
        return int(value)

    @contextlib.asynccontextmanager
    async def sampling(self) -> AsyncIterator[Sampler]:
        connection = await asyncpg.connect(self._url)

        async def sample() -> None:
            while True:
                self.counts.append(await self.count(connection))
                await asyncio.sleep(SAMPLE_EVERY_SECONDS)

        self._task = asyncio.create_task(sample())
        try:
            yield self
        finally:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self.counts.append(await self.count(connection))  # the last word, after it all
            await connection.close()


async def load_past_the_pools(storage: Storage) -> list[asyncio.Task[object]]:
    """Statements of both pools, more than they have connections, all started at once."""
    database = storage.database
    reads = [database.reader.fetch_all(HOLD) for _ in range(MORE_THAN_THE_POOLS)]
    unsynced = [database.write_alone(HOLD, durable=False) for _ in range(MORE_THAN_THE_POOLS)]
    tasks: list[asyncio.Task[object]] = [asyncio.ensure_future(c) for c in [*reads, *unsynced]]
    await asyncio.sleep(0)
    return tasks


def test_the_bound_is_both_pools_and_the_hosting_page_says_it() -> None:
    assert CONNECTIONS_PER_PROCESS == POOL_SIZE + UNSYNCED_POOL_SIZE
    hosting = (DOCS / "hosting.md").read_text()
    assert f"at most {CONNECTIONS_PER_PROCESS} connections" in hosting
    assert f"{POOL_SIZE} for its commands, {UNSYNCED_POOL_SIZE} for the roll limit" in hosting


async def test_starting_under_load_and_closing_a_process_never_holds_more_than_its_bound(
    postgres_url: str,
) -> None:
    """From a new database (the migrations' connection, then the pools) through a load that
    wants three times the pools' connections, to a close while that load is still running (a
    draining process): at most the bound at every sample, all of it under the load, and no
    connection left once closed."""
    sampler = Sampler(postgres_url)
    async with sampler.sampling():
        where = DatabaseLocation.postgresql(postgres_url)
        storage = await Storage.open(where, in_flight=lambda: 64)
        opened = len(sampler.counts)
        try:
            first = await load_past_the_pools(storage)
            await asyncio.gather(*first)
            under_load = max(sampler.counts[opened:])
            draining = await load_past_the_pools(storage)
            await asyncio.sleep(0.05)  # the pools full again
        finally:
            await storage.close()
        await asyncio.gather(*draining, return_exceptions=True)  # refused once closing began
        # The server ends a backend a moment after its client has gone.
        for _ in range(500):
            if sampler.counts[-1] == 0:
                break
            await asyncio.sleep(0.01)
    assert max(sampler.counts) <= CONNECTIONS_PER_PROCESS, sampler.counts
    assert under_load == CONNECTIONS_PER_PROCESS
    assert sampler.counts[-1] == 0
