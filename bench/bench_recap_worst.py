"""`/campaign recap` of a session of worst-case rolls: loop hold, wall time, memory; printed.

Run: ``.venv/bin/python bench/bench_recap_worst.py [--rolls N]``

The session: ``--rolls`` (2,000: ``MAX_RECAP_ROLLS``, the most one recap reads) `/roll` rolls by
three players, rolled by the real bot through the fake Discord (one process, as
``bench_budgets.py`` runs it). Each roll is a dice shape of its own, padded with `+1` terms to
the 200 characters an expression may have: three in four estimated just within the bound for
one shape (``SHAPE_SECONDS_MAX``: `37d1000`, `1000d6`...), one in four 1,000 dice of up to
10,000 faces (the largest payload a roll logs, ~11 kB, each die shown). No shape is shared, so
the cache never helps and the recap's budget is what bounds its work, and reading and sending
each roll to the recap's worker costs the most too (docs/gms.md, "Campaign recap").

Three recaps of it: ``cold`` (the recap's worker process forked by this recap), ``new shapes``
(the worker running, no shape computed: ``clear_cache`` run in it first) and ``again`` (the
shapes placed before are cached; the recap's budget computes as many new ones). Each prints
the longest the event loop stood still (a task sleeping 1 ms records how late it wakes:
anything of the bot's, the fake's or the garbage collector's that held the loop), the wall
time from sending the recap to its reply, the recap worker's peak memory (Linux ``VmHWM``,
reset before each recap), and the latency of `/roll 1d20` sent one at a time meanwhile by
another player in another channel, p50 / p99 / max, beside the same with no recap running.

Targets (docs/benchmarks.md): no command holds the loop over 20 ms; the recap's wall time at
most 5 s. Exit status 0 whatever the numbers, 1 only if the measurement failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

# Runnable as a plain script from anywhere: make the project (and the tests' fake) importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import freeze_garbage, percentiles

from bot import offload
from bot.client import create_bot
from rules import expressions
from rules import recap_placement as placement
from rules.expressions.terms import MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_SIDES
from rules.randomness import new_rng
from rules.recap import MAX_RECAP_ROLLS
from tests.e2e.conftest import bot_settings
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

LOOP_HOLD_TARGET_SECONDS = 0.020
WALL_TARGET_SECONDS = 5.0
PLAYERS = ("player", "gm", "admin")
TICK_SECONDS = 0.001
BASELINE_ROLLS = 200


def _most_dice(faces: int, extra: int | None) -> int:
    """The most dice of ``faces`` faces (with one die of ``extra`` faces) whose shape is
    estimated within the bound for one shape, at most the dice one /roll may throw."""
    low, high = 1, MAX_DICE - (extra is not None)
    while low < high:  # the estimate grows with the dice: the last count within the bound
        middle = (low + high + 1) // 2
        sums = {faces: middle} | ({} if extra is None else {extra: 1})
        shape = placement.Shape(tuple(sorted(sums.items())))
        low, high = (
            (middle, high) if shape.seconds <= placement.SHAPE_SECONDS_MAX else (low, middle - 1)
        )
    return low


def forget_everything() -> None:
    """Empty every cache a recap reads through: the computed shapes, each expression's shape
    and the notation's parse cache (run in the recap's worker: a cold recap)."""
    placement.clear_cache()
    expressions._parse.cache_clear()
    expressions._read_part.cache_clear()


def _padded(text: str) -> str:
    return text + "+1" * ((MAX_EXPRESSION_LENGTH - len(text)) // 2)


def worst_expressions(count: int) -> list[str]:
    """``count`` /roll expressions, each a shape of its own, padded with `+1` to the longest
    expression there is: three in four just within the bound for one shape (``NdF``, then
    ``NdF+1dE``), one in four the largest payload a roll logs (1,000 dice of up to 10,000
    faces, each shown: too large to score)."""
    placed: list[str] = []
    extras: list[int | None] = [None, *range(2, 1000)]
    for extra in extras:
        for faces in range(1000, 1, -1):
            if faces != extra and len(placed) < count:
                dice = _most_dice(faces, extra)
                placed.append(_padded(f"{dice}d{faces}" + ("" if extra is None else f"+1d{extra}")))
    found = []
    for number in range(count):
        heavy = number % 4 == 3
        found.append(_padded(f"{MAX_DICE}d{MAX_SIDES - number}") if heavy else placed[number])
    return found


@dataclass
class Measured:
    hold: float  # seconds: the loop's longest stall
    wall: float  # seconds: the recap sent to its reply
    latencies: list[float]  # /roll 1d20 one at a time meanwhile
    peak_kib: int | None  # the recap worker's VmHWM
    before_kib: int | None  # its VmRSS before the recap (None: forked by it)
    description: str


def _worker_status() -> dict[str, int]:
    """The recap worker's memory lines from /proc (kB), empty when there is none or no /proc."""
    pool = offload._executor(offload.RECAP)
    for pid in list(pool._processes):
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            return {}
        return {
            key: int(value.split()[0])
            for key, _, value in (line.partition(":") for line in lines)
            if key in ("VmHWM", "VmRSS")
        }
    return {}


def _reset_worker_peak() -> None:
    for pid in list(offload._executor(offload.RECAP)._processes):
        with contextlib.suppress(OSError):  # Linux: "5" resets the peak to the current RSS
            Path(f"/proc/{pid}/clear_refs").write_text("5")


async def _rolls_meanwhile(fake: FakeDiscord, until: Callable[[], bool]) -> list[float]:
    """/roll 1d20 one at a time by another player, in the other channel, until ``until()``."""
    latencies: list[float] = []
    while not until():
        reply = await fake.invoke(
            "roll", {"expression": "1d20"}, user="admin", channel=fake.other_channel_id
        )
        if reply.latency is not None:
            latencies.append(reply.latency)
        fake.forget([reply])
    return latencies


async def _measure(fake: FakeDiscord, prepare: Callable[[], Awaitable[None]]) -> Measured:
    await prepare()
    loop = asyncio.get_running_loop()
    stalls: list[float] = []

    async def ticker() -> None:
        while True:
            before = loop.time()
            await asyncio.sleep(TICK_SECONDS)
            stalls.append(loop.time() - before - TICK_SECONDS)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    started = time.perf_counter()
    before = _worker_status().get("VmRSS") if offload.RECAP in offload._pools else None
    if before is not None:
        _reset_worker_peak()
    reply = await fake.send("campaign recap", {}, user="player")
    meanwhile = asyncio.create_task(
        _rolls_meanwhile(fake, lambda: reply.settled(wait_deferred=True))
    )
    await fake.wait_answered([reply])
    wall = time.perf_counter() - started
    latencies = await meanwhile
    ticking.cancel()
    status = _worker_status()
    embed = reply.embeds[0] if reply.embeds else {}
    description = str(embed.get("description", "")).replace("\n", " | ")
    fake.forget([reply])
    hold = max(stalls, default=0.0)
    return Measured(hold, wall, latencies, status.get("VmHWM"), before, description)


def _print(name: str, measured: Measured, baseline: dict[str, float]) -> None:
    hold_verdict = "ok" if measured.hold <= LOOP_HOLD_TARGET_SECONDS else "OVER"
    wall_verdict = "ok" if measured.wall <= WALL_TARGET_SECONDS else "OVER"
    print(f"{name}:")
    print(f"  loop hold {measured.hold * 1000:8.1f} ms   (target 20 ms) {hold_verdict}")
    print(f"  wall      {measured.wall:8.2f} s    (target 5 s) {wall_verdict}")
    if measured.peak_kib is not None:
        before = (
            "forked by it"
            if measured.before_kib is None
            else (f"{measured.before_kib / 1024:.0f} MiB before")
        )
        print(f"  recap worker peak memory {measured.peak_kib / 1024:.0f} MiB (VmHWM; {before})")
    if measured.latencies:
        shown = percentiles(measured.latencies)
        print(
            f"  /roll 1d20 meanwhile ({len(measured.latencies)}): p50 {shown['p50']:.1f}, "
            f"p99 {shown['p99']:.1f}, max {shown['max']:.1f} ms (no recap: p50 "
            f"{baseline['p50']:.1f}, p99 {baseline['p99']:.1f}, max {baseline['max']:.1f} ms)"
        )
    print(f"  the table: {measured.description[:200]}")


async def bench(rolls: int) -> None:
    fake = FakeDiscord(timeout=600.0)
    await fake.start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-recap-worst-") as folder:
            settings = bot_settings(fake, Path(folder) / "bot.db")
            async with run_bot(fake, create_bot(settings, rng=new_rng(0))):
                await _session(fake, rolls)
                await _recaps(fake)
    finally:
        offload.shutdown(offload.RECAP)
        await fake.stop()


async def _session(fake: FakeDiscord, rolls: int) -> None:
    started = time.perf_counter()
    expressions = worst_expressions(rolls)
    estimated = [placement.shape_of(text) for text in expressions]
    costs = [shaped.shape.seconds for shaped in estimated if shaped is not None]
    within = [cost for cost in costs if cost <= placement.SHAPE_SECONDS_MAX]
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Worst"}, user="gm")
    for first in range(0, len(expressions), 20):
        batch = [
            await fake.send("roll", {"expression": text}, user=PLAYERS[number % len(PLAYERS)])
            for number, text in enumerate(expressions[first : first + 20], start=first)
        ]
        await fake.wait_answered(batch)
        fake.forget(batch)
    print(
        f"session: {len(expressions)} /roll rolls, {len(set(estimated))} shapes, {len(within)} "
        f"within the bound for one ({placement.SHAPE_SECONDS_MAX:.1f} s), estimated "
        f"{sum(within):.0f} s to place them all (one recap's new shapes: "
        f"{placement.RECAP_SECONDS_MAX:.1f} s); e.g. {expressions[0][:24]}…, "
        f"{expressions[3][:24]}… (rolled in {time.perf_counter() - started:.0f} s)"
    )


async def _recaps(fake: FakeDiscord) -> None:
    freeze_garbage()  # the fake's and the session's objects: no full collection mid-measure
    baseline_latencies = []
    for _ in range(BASELINE_ROLLS):
        reply = await fake.invoke(
            "roll", {"expression": "1d20"}, user="admin", channel=fake.other_channel_id
        )
        if reply.latency is not None:
            baseline_latencies.append(reply.latency)
        fake.forget([reply])
    baseline = percentiles(baseline_latencies)

    async def nothing() -> None:
        offload.shutdown(offload.RECAP)  # the worker is forked by the recap measured
        forget_everything()  # from this process (the bot's), so from the fork too

    async def new_shapes() -> None:
        await offload.in_process(forget_everything, worker=offload.RECAP)

    async def again() -> None:
        return None

    for name, prepare in (("cold", nothing), ("new shapes", new_shapes), ("again", again)):
        gc.collect()
        _print(name, await _measure(fake, prepare), baseline)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=MAX_RECAP_ROLLS, help="rolls in the session")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # the bot's INFO lines would bury the numbers
    started = time.perf_counter()
    asyncio.run(bench(arguments.rolls))
    print(f"({time.perf_counter() - started:.0f} s, {time.strftime('%Y-%m-%d %H:%M')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
