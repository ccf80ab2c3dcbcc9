"""What the shared roll rate limit costs a roll command: one atomic upsert in the database.

Run: ``.venv/bin/python bench/bench_roll_limit.py [--database URL] [--count N] [--log]``

With several processes (PostgreSQL, or SHARD_IDS naming only some shards) every roll command
first counts itself in ``roll_limits`` (bot/ratelimit.py, SharedRollLimiter). This times that
count, one at a time and with 64 in flight, on the database given (default: a new SQLite file;
give ``postgresql://…`` to measure a server), and prints percentiles in milliseconds.

``--log``: each step is also the rest of what a `/roll` asks of the database, in its order: the
count, the roll's log row (``RollLog.record_noting_previous``), then the message it is shown in
(``RollLog.set_message``); no Discord, no dice, so what it times is the database's part alone.
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
from bot.storage import RollEntry, Storage, Visibility

IN_FLIGHT = 64
USERS = 1_000  # rolls are spread over this many users, each with their own row
# A logged /roll's payload, about its size (``--log``).
PAYLOAD = {"result": {"expression": "4d6kh3+2", "total": 16, "rolls": [[6, 5, 3, 1]]},
           "embed": {"title": "🎲 player: 4d6kh3+2 · total 16", "description": "x" * 200},
           "options": {"expression": "4d6kh3+2"}}  # fmt: skip


def show(label: str, seconds: list[float], wall: float) -> None:
    numbers = ", ".join(f"{name} {value:.2f}" for name, value in percentiles(seconds).items())
    print(f"{label:<24} {numbers} ms; {len(seconds) / wall:,.0f} counts/s")


async def measure(where: Path | DatabaseLocation, count: int, *, log: bool = False) -> None:
    storage = await Storage.open(where)
    try:
        limiter = SharedRollLimiter(RollLimit(10**6, 10), storage.roll_windows)

        async def timed(user: int, into: list[float]) -> None:
            start = time.perf_counter()
            await limiter.count(user % USERS)
            if log:
                entry = RollEntry(None, 1, 2, user % USERS, "dice", Visibility.PUBLIC, PAYLOAD)
                recorded = await storage.rolls.record_noting_previous(entry)
                await storage.rolls.set_message(recorded.id, 10**18 + recorded.id)
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
    parser.add_argument(
        "--log", action="store_true", help="each count followed by a roll logged, as a /roll"
    )
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        where: Path | DatabaseLocation = (
            DatabaseLocation.postgresql(arguments.database)
            if arguments.database
            else Path(folder) / "bot.db"
        )
        steps = "counts and roll-log rows" if arguments.log else "counts"
        print(f"Shared roll limit on {where}: {arguments.count:,} {steps} per phase")
        asyncio.run(measure(where, arguments.count, log=arguments.log))


if __name__ == "__main__":
    main()
