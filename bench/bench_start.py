"""How fast a many-shard process starts: spawn → every shard identified, against the fake Discord.

Run: ``.venv/bin/python bench/bench_start.py [--shards 25] [--max-concurrency 16] [--restarts 3]
[--guilds-per-shard 4] [--database URL] [--no-pin]``

`python -m bot` runs as ``SHARD_COUNT=N SHARD_IDS=0-(N-1)`` against the fake Discord, which
allows ``--max-concurrency`` identifies at once (GET /gateway/bot). The first start is on a new
database (migrations, and the command sync: the commands were never synced); each restart
(SIGINT, then the same command again) is on the same database with the same commands, so it
must make no sync call, and the bench fails if one does. For each start it prints, from the
spawn: the first IDENTIFY, the last (every shard connected: each answers its servers'
interactions from its READY on), a `/roll` answered in a guild of the last shard, and
discord.py's ready event (the bot's "Ready as" line, which discord.py holds back until
``guild_ready_timeout`` has passed without a GUILD_CREATE on every shard).

The floor is Discord's identify limit (docs/hosting.md, "Several processes (shards)"): shard
``i`` is in bucket ``i % max_concurrency`` and a bucket identifies once per 5 s, so the last
shard identifies at least ``(ceil(N / max_concurrency) - 1) × 5 s`` after the first; the bench
prints that floor added to the measured first IDENTIFY, and the last IDENTIFY's excess over it.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
import time
from pathlib import Path

from harness import BotProcess, FakeDiscord, freeze_garbage, pin_self

from bot.client import IDENTIFY_INTERVAL_SECONDS

READY_LINE = "Ready as "
WAIT_SECONDS = 120.0


async def wait_for_log(bot: BotProcess, text: str, seconds: float) -> float:
    """Seconds from the bot's spawn until ``text`` appears in its log (polled every 5 ms)."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        if text in bot.new_log():
            return time.perf_counter() - bot.started_at
        await asyncio.sleep(0.005)
    raise TimeoutError(f"{text!r} not in the bot's log after {seconds} s:\n{bot.new_log()}")


async def one_start(
    fake: FakeDiscord, bot: BotProcess, shards: int, last_guild_channel: int
) -> dict[str, float]:
    """Start the bot, wait for every shard and a /roll on the last one; return the figures (s)."""
    syncs = fake.sync_count
    await bot.start(WAIT_SECONDS)
    started = bot.started_at
    fake.timeout = WAIT_SECONDS
    await fake.wait_until(
        lambda: (
            len(fake.connected_shards) == shards
            and all(fake.shard_identified_at.get(k, 0.0) > started for k in range(shards))
        ),
        f"all {shards} shards to identify",
    )
    identified = sorted(fake.shard_identified_at[k] - started for k in range(shards))
    reply = await fake.invoke("roll", {"expression": "2d6"}, channel=last_guild_channel)
    assert reply.answered_at is not None and "2d6" in str(reply.embeds[0]["title"])
    ready = await wait_for_log(bot, READY_LINE, WAIT_SECONDS)
    return {
        "first": identified[0],
        "last": identified[-1],
        "roll": reply.answered_at - started,
        "ready": ready,
        "syncs": float(fake.sync_count - syncs),
    }


async def run(arguments: argparse.Namespace) -> int:
    shards: int = arguments.shards
    concurrency: int = arguments.max_concurrency
    pin_self(not arguments.no_pin)
    fake = FakeDiscord()
    fake.max_concurrency = concurrency
    guilds = [
        fake.add_guild(f"Table {shard}.{n}", shard=(shard, shards))
        for shard in range(shards)
        for n in range(arguments.guilds_per_shard)
    ]
    last_channel = guilds[-1].channel_id  # a guild of the last shard to identify
    freeze_garbage()
    await fake.start()
    failed = False
    try:
        with tempfile.TemporaryDirectory(prefix="bench-start-") as folder:
            environment = {
                "SHARD_COUNT": str(shards),
                "SHARD_IDS": f"0-{shards - 1}",
                "GUILD_ID": "",  # global commands: every guild's /roll, as in production
            }
            if arguments.database:
                environment["DATABASE_URL"] = arguments.database
            bot = BotProcess(fake, Path(folder), pin=not arguments.no_pin, environment=environment)
            rounds = math.ceil(shards / concurrency)
            print(
                f"{shards} shards in one process, max_concurrency {concurrency}: "
                f"{rounds} identify rounds, {IDENTIFY_INTERVAL_SECONDS:.0f} s apart; "
                f"{len(fake.guilds)} guilds; database "
                f"{'PostgreSQL' if arguments.database else 'a new SQLite file'}"
            )
            for index in range(1 + arguments.restarts):
                label = "fresh database" if index == 0 else f"restart {index}"
                figures = await one_start(fake, bot, shards, last_channel)
                if await bot.stop() != 0 or bot.log_errors():
                    print("\n".join(bot.log_errors()) or "the bot exited with an error")
                    failed = True
                await fake.wait_until(lambda: not fake.connected_shards, "the shards to close")
                floor = figures["first"] + (rounds - 1) * IDENTIFY_INTERVAL_SECONDS
                syncs = int(figures["syncs"])
                print(
                    f"{label:<15} first IDENTIFY {figures['first'] * 1000:5.0f} ms, "
                    f"last {figures['last'] * 1000:5.0f} ms "
                    f"(floor {floor * 1000:.0f} ms, +{(figures['last'] - floor) * 1000:.0f}), "
                    f"/roll on the last shard {figures['roll'] * 1000:5.0f} ms, "
                    f"ready event {figures['ready'] * 1000:5.0f} ms, syncs {syncs}"
                )
                if index > 0 and syncs:
                    print(f"FAIL: {label} synced the commands, which had not changed")
                    failed = True
    finally:
        await fake.stop()
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=25)
    parser.add_argument("--max-concurrency", type=int, default=16)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--guilds-per-shard", type=int, default=4)
    parser.add_argument("--database", help="postgresql://… (default: a new SQLite file)")
    parser.add_argument("--no-pin", action="store_true", help="don't pin the bot to one core")
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
