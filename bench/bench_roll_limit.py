"""What the shared roll rate limit costs a roll command: one atomic upsert in the database.

Run: ``.venv/bin/python bench/bench_roll_limit.py [--database URL] [--count N]``

With several processes (PostgreSQL, or SHARD_IDS naming only some shards) every roll command
first counts itself in ``roll_limits`` (bot/ratelimit.py, SharedRollLimiter). This times that
count, one at a time and with 64 in flight, on the database given (default: a new SQLite file;
give ``postgresql://…`` to measure a server), and prints percentiles in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path

from harness import percentiles

from bot.config import DatabaseLocation, RollLimit
from bot.ratelimit import SharedRollLimiter
from bot.storage import Storage

IN_FLIGHT = 64
USERS = 1_000  # rolls are spread over this many users, each with their own row


def show(label: str, seconds: list[float], wall: float) -> None:
    numbers = ", ".join(f"{name} {value:.2f}" for name, value in percentiles(seconds).items())
    print(f"{label:<24} {numbers} ms; {len(seconds) / wall:,.0f} counts/s")


async def measure(where: Path | DatabaseLocation, count: int) -> None:
    storage = await Storage.open(where)
    try:
        limiter = SharedRollLimiter(RollLimit(10**6, 10), storage.roll_windows)

        async def timed(user: int, into: list[float]) -> None:
            start = time.perf_counter()
            await limiter.count(user % USERS)
            into.append(time.perf_counter() - start)

        alone: list[float] = []
        started = time.perf_counter()
        for user in range(count):
            await timed(user, alone)
        show("one at a time", alone, time.perf_counter() - started)

        together: list[float] = []
        gate = asyncio.Semaphore(IN_FLIGHT)

        async def gated(user: int) -> None:
            async with gate:
                await timed(user, together)

        started = time.perf_counter()
        await asyncio.gather(*(gated(user) for user in range(count)))
        show(f"{IN_FLIGHT} in flight", together, time.perf_counter() - started)
    finally:
        await storage.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="postgresql://… (default: a new SQLite file)")
    parser.add_argument("--count", type=int, default=5_000, help="counts per phase")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        where: Path | DatabaseLocation = (
            DatabaseLocation.postgresql(arguments.database)
            if arguments.database
            else Path(folder) / "bot.db"
        )
        print(f"Shared roll limit on {where}: {arguments.count:,} counts per phase")
        asyncio.run(measure(where, arguments.count))


if __name__ == "__main__":
    main()
