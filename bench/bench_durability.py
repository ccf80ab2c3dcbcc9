"""Durability: rolls acknowledged to Discord survive `kill -9`; concurrent counter changes add up.

Run: ``.venv/bin/python bench/bench_durability.py [--quick] [--rounds N] [--no-pin]``

1. Crash rounds: `python -m bot` runs against the fake Discord while IN_FLIGHT `/roll` commands
   are outstanding at all times; after a random 0.5-2 s the bot is killed with SIGKILL, then
   restarted on the same DATABASE_PATH. Every roll whose answer reached the fake carries
   "Roll #N" in its embed footer; afterwards the database (read with sqlite3, table ``rolls``)
   must hold every acknowledged N, with the same dice as shown, and no N may have been shown
   twice. A roll answered after each restart must get a new id (ids are never reused).
2. Counters: 500 concurrent ``TrackStore.change`` calls on one counter through two separate
   connections (as two bot processes would), unbounded and then against a maximum, must end
   exactly right, with every intermediate value handed out once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from harness import BotProcess, FakeDiscord, Reply, any_answered, freeze_garbage, pin_self

from bot.storage import CharacterStore, Storage
from bot.storage.errors import StorageError
from rules.campaigns import CampaignSettings
from rules.errors import RulesError
from rules.sheets import DataclassSheet
from rules.sinew import PRESSURE_MAX
from rules.systems import System

IN_FLIGHT = 128
EXPRESSION = "4d6kh3+2"
CHANGES = 500


@dataclass
class Round:
    sent: int = 0
    acknowledged: int = 0
    restart_ms: float = 0.0
    next_id_ok: bool = True


def roll_id(reply: Reply) -> int | None:
    """Return N from the "Roll #N" footer of an answered roll, else None."""
    if reply.message is None or not reply.message.embeds:
        return None
    footer = str(reply.message.embeds[0].get("footer", {}).get("text", ""))
    return int(footer.removeprefix("Roll #")) if footer.startswith("Roll #") else None


def shown_dice(reply: Reply) -> str | None:
    """Return the embed description (the dice and total) the answer showed."""
    assert reply.message is not None
    return reply.message.embeds[0].get("description")


async def load_then_kill(fake: FakeDiscord, bot: BotProcess, seconds: float) -> list[Reply]:
    """Keep IN_FLIGHT rolls outstanding for ``seconds``, then kill -9 the bot mid-load."""
    replies: list[Reply] = []
    pending: list[Reply] = []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        while len(pending) < IN_FLIGHT:
            reply = await fake.send("roll", {"expression": EXPRESSION}, user="player")
            replies.append(reply)
            pending.append(reply)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.05):
                await fake.wait_until(
                    partial(any_answered, pending),
                    "a roll to be answered",
                )
        pending = [r for r in pending if r.raw is None]
    await bot.kill()
    await asyncio.sleep(0.3)  # callbacks already on the wire may still arrive
    return replies


async def crash_rounds(rounds: int, pin: bool) -> list[str]:
    pin_self(pin)
    fake = FakeDiscord(timeout=30)
    await fake.start()
    lines: list[str] = []
    acknowledged: dict[int, list[Reply]] = {}  # roll id -> every reply that showed it
    answered_without_id = 0
    results: list[Round] = []
    rng = random.Random()
    with tempfile.TemporaryDirectory(prefix="bench-durability-") as tmp:
        bot = BotProcess(fake, Path(tmp), pin=pin)
        try:
            await bot.start()
            for warm in range(2):  # open discord.py's HTTP connections before the first round
                replies = [await fake.send("roll", {"expression": "1d6"}) for _ in range(200)]
                await fake.wait_answered(replies)
                for reply in replies:
                    rid = roll_id(reply)
                    assert rid is not None, f"warm-up roll {warm} unanswered"
                    acknowledged.setdefault(rid, []).append(reply)
            freeze_garbage()
            for _ in range(rounds):
                round_ = Round()
                replies = await load_then_kill(fake, bot, rng.uniform(0.5, 2.0))
                round_.sent = len(replies)
                for reply in replies:
                    if reply.raw is None:
                        continue
                    rid = roll_id(reply)
                    if rid is None:
                        answered_without_id += 1
                        continue
                    round_.acknowledged += 1
                    acknowledged.setdefault(rid, []).append(reply)
                round_.restart_ms = await bot.start() * 1000
                after = await fake.invoke("roll", {"expression": "1d6"}, user="player")
                new_id = roll_id(after)
                round_.next_id_ok = new_id is not None and new_id > max(acknowledged)
                if new_id is not None:
                    acknowledged.setdefault(new_id, []).append(after)
                results.append(round_)
            await bot.stop()
        finally:
            if bot.process is not None and bot.process.returncode is None:
                await bot.kill()
            await fake.stop()
        log_errors = bot.log_errors()  # the last run's; killed runs can't log an orderly exit
        stored = read_rolls(bot.database)

    found = [rid for rid in acknowledged if rid in stored]
    lost = sorted(set(acknowledged) - set(stored))
    doubled = sorted(rid for rid, shown in acknowledged.items() if len(shown) > 1)
    mismatched = sorted(rid for rid in found if stored[rid] != shown_dice(acknowledged[rid][0]))
    unacknowledged = len(set(stored) - set(acknowledged))
    for number, round_ in enumerate(results, 1):
        lines.append(
            f"round {number}: sent {round_.sent}, acknowledged {round_.acknowledged}, "
            f"killed with {round_.sent - round_.acknowledged} unanswered; restart "
            f"{round_.restart_ms:.0f} ms; next id new: {round_.next_id_ok}"
        )
    ok = (
        not lost
        and not doubled
        and not mismatched
        and not answered_without_id
        and all(r.next_id_ok for r in results)
        and not log_errors
    )
    lines += [
        f"acknowledged roll ids:        {len(acknowledged)}",
        f"found in the database:        {len(found)}",
        f"lost:                         {len(lost)} {lost[:10] if lost else ''}",
        f"shown twice (duplicate ids):  {len(doubled)} {doubled[:10] if doubled else ''}",
        f"stored dice differ from shown: {len(mismatched)}",
        f"answered without a roll id:   {answered_without_id}",
        f"committed, never acknowledged: {unacknowledged} (fine: killed before answering)",
        f"ERRORs in the last run's log: {len(log_errors)}",
        f"crash rounds: {'PASS' if ok else 'FAIL'}",
    ]
    return lines


def read_rolls(database: Path) -> dict[int, str | None]:
    """Return every stored roll id with the embed description it was logged with."""
    connection = sqlite3.connect(database)
    try:
        rows = connection.execute(
            "SELECT id, json_extract(payload, '$.embed.description') FROM rolls"
        ).fetchall()
    finally:
        connection.close()
    return dict(rows)


@dataclass(frozen=True, slots=True)
class CounterSheet:
    """A character sheet holding one counter, capped like a pool of points."""

    value: int
    maximum: int

    def __post_init__(self) -> None:
        if not 0 <= self.value <= self.maximum:
            raise RulesError(f"the counter must stay within 0..{self.maximum}")


def bump(sheet: CounterSheet) -> CounterSheet:
    return replace(sheet, value=sheet.value + 1)


async def counters() -> list[str]:
    """500 concurrent changes of one character, and of one declared track, through two
    connections (as two processes would), end exactly right."""
    lines = []
    with tempfile.TemporaryDirectory(prefix="bench-counter-") as tmp:
        path = Path(tmp) / "bot.db"
        first = await Storage.open(path)
        second = await Storage.open(path)  # a second process's connection, in effect
        try:
            settings = CampaignSettings.create(System.SINEW, "Counters")
            campaign = await first.campaigns.start(
                guild_id=1, channel_id=2, user_id=3, settings=settings
            )
            codec = DataclassSheet(CounterSheet)
            stores = [CharacterStore(first.database, codec), CharacterStore(second.database, codec)]
            for user, maximum in ((10, 10_000), (11, 300)):
                character = await stores[0].create(
                    campaign, user, f"counter {maximum}", CounterSheet(0, maximum)
                )

                async def change(index: int, character=character) -> int | None:
                    try:
                        changed = await stores[index % 2].update(character, bump)
                    except RulesError:
                        return None
                    return changed.after.sheet.value

                lines.append(
                    await _measure(
                        f"character counter (max {maximum})",
                        change,
                        lambda character=character: stores[0].find(campaign, name=character.name),
                        lambda found: found.sheet.value,
                        min(CHANGES, maximum),
                    )
                )

            tracks = [first.tracks, second.tracks]

            async def add_pressure(index: int) -> int | None:
                try:
                    changed = await tracks[index % 2].change(campaign, "pressure", +1)
                except StorageError:
                    return None
                return changed.after

            lines.append(
                await _measure(
                    f"party Pressure (max {PRESSURE_MAX})",
                    add_pressure,
                    lambda: first.tracks.value(campaign, "pressure"),
                    lambda value: value,
                    min(CHANGES, PRESSURE_MAX),
                )
            )
        finally:
            await first.close()
            await second.close()
    return lines


async def _measure(name, change, read, value_of, expected) -> str:
    """Fire CHANGES concurrent +1 changes and report whether the serial result came out."""
    started = time.perf_counter()
    afters = await asyncio.gather(*(change(index) for index in range(CHANGES)))
    elapsed = time.perf_counter() - started
    value = value_of(await read())
    done = [after for after in afters if after is not None]
    repeats = sum(count - 1 for count in Counter(done).values() if count > 1)
    ok = value == expected and len(done) == expected and not repeats
    ok = ok and sorted(done) == list(range(1, expected + 1))
    return (
        f"{name}: {CHANGES} concurrent +1 → value {value} (expected {expected}), applied "
        f"{len(done)}, refused {CHANGES - len(done)}, values handed out twice {repeats}; "
        f"{elapsed * 1000:.0f} ms: {'PASS' if ok else 'FAIL'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one crash round instead of five")
    parser.add_argument("--rounds", type=int, help="crash rounds (default 5)")
    parser.add_argument("--no-pin", action="store_true", help="don't pin the bot to one core")
    arguments = parser.parse_args()
    rounds = arguments.rounds or (1 if arguments.quick else 5)
    lines = asyncio.run(crash_rounds(rounds, not arguments.no_pin))
    lines += asyncio.run(counters())
    print("\n".join(lines))
    return 0 if all("FAIL" not in line for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
