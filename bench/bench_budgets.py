"""The time budgets of docs/benchmarks.md, measured and printed beside each budget.

Run: ``.venv/bin/python bench/bench_budgets.py [--quick] [--plot PNG]`` (``--quick``: about
20 s, as ``.ci/run`` runs it after the tests; reported, never failing CI; ``--plot``: also draw
each measurement against its budget, as docs/benchmarks.md shows it).

The test suite asserts what the bot does, never how fast (a busy machine must not fail it).
These are the numbers it used to assert, here measured and reported instead:

- ``/roll`` CPU: parse, roll, breakdown and total of each hostile expression of the tests
  (tests/rules/test_expressions.py), at most 20 ms of this thread's CPU, best of five, the parse
  cache emptied; scaled back by a calibration workload when this machine is slower or busier
  than the 2-vCPU machine the budget was set on (6 ms there).
- Sinew & Steel odds: every score, each state, at most 50 ms a query (far less in practice).
- Event-loop hold: the heaviest legal command of each system (tests/e2e/test_properties.py's
  ``HEAVIEST``) against the real bot and the fake Discord, in asyncio's debug mode: the longest
  callback of the bot's, net of garbage collection, at most 20 ms (best of three tries). Then
  ``/campaign recap`` of a session of worst-case rolls (``bench_recap_worst.py``'s: each a dice
  shape of its own, just within the recap's bound; 2,000, or 100 with ``--quick``), no shape
  computed yet in the recap's worker at each try (``--holds recap`` for this one alone).

Exit status 0 whatever the numbers (a line says OVER for each over its budget), 1 only if the
measurement itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import math
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Runnable as a plain script from anywhere: make the project (and the tests' tables) importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_recap_worst import forget_everything, worst_expressions
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot import offload
from bot.client import create_bot
from rules import expressions, sinew
from rules.errors import RulesError
from rules.randomness import new_rng
from rules.recap import MAX_RECAP_ROLLS
from tests.e2e.conftest import bot_settings
from tests.e2e.test_properties import HEAVIEST, SETUPS, SHARED
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord
from tests.rules.test_expressions import HOSTILE_EXPRESSIONS

ROLL_BUDGET_SECONDS = 0.020  # the most CPU one `/roll` may spend on the event loop
# A fixed pure-Python workload, timed beside each roll: 6 ms on the unloaded 2-vCPU machine the
# budget was set on. On a slower or busier machine both take longer by the same factor, so the
# roll's time is scaled back by it: the budget bounds the work, not this machine's speed.
CALIBRATION_SECONDS_HERE = 0.006
SINEW_ODDS_BUDGET_SECONDS = 0.050
LOOP_HOLD_BUDGET_SECONDS = 0.020


@dataclass(frozen=True, slots=True)
class Measured:
    """One measurement beside its budget, as printed (and plotted with ``--plot``)."""

    what: str
    seconds: float
    budget: float
    floor: float


MEASURED: list[Measured] = []


def _report(what: str, seconds: float, budget: float, *, floor: float = 0.0) -> bool:
    """Print one measurement beside its budget; ``floor``: the smallest time the measurement
    can see (asyncio's debug mode reports only callbacks over its threshold), shown as "<"."""
    MEASURED.append(Measured(what.strip(), seconds, budget, floor))
    verdict = "ok" if seconds <= budget else "OVER"
    shown = f"< {floor * 1000:.2f}" if seconds < floor else f"{seconds * 1000:.2f}"
    print(f"  {what:<58} {shown:>8} ms  (budget {budget * 1000:.0f} ms) {verdict}")
    return seconds <= budget


# --- /roll CPU


def _calibration_work() -> int:
    total = 0
    for number in range(100_000):
        total += number % 7
    return total


def seconds_to_roll(text: str, seed: int = 0, tries: int = 5) -> float:
    """The best of ``tries`` timings of a request, in this thread's CPU time (other processes
    don't count), scaled back when this machine is slower than the one the budget was set on
    (never the other way)."""
    best, calibration = math.inf, math.inf
    for _ in range(tries):
        start = time.thread_time()
        _calibration_work()
        calibration = min(calibration, time.thread_time() - start)
        expressions._parse.cache_clear()  # a hostile user never repeats an expression
        expressions._read_part.cache_clear()
        gc.collect()  # so no collection of earlier garbage is charged to this roll
        start = time.thread_time()
        with contextlib.suppress(RulesError):
            expressions.roll_request(text, new_rng(seed))
        best = min(best, time.thread_time() - start)
    return best * min(1.0, CALIBRATION_SECONDS_HERE / calibration)


def bench_rolls(quick: bool) -> None:
    print("/roll CPU per hostile expression (worst five):")
    timed = sorted(
        ((seconds_to_roll(text, tries=3 if quick else 5), text) for text in HOSTILE_EXPRESSIONS),
        reverse=True,
    )
    for seconds, text in timed[:5]:
        _report(text[:58], seconds, ROLL_BUDGET_SECONDS)
    over = sum(seconds > ROLL_BUDGET_SECONDS for seconds, _ in timed)
    print(f"  {len(timed)} expressions, {over} over budget")


# --- Sinew & Steel odds


def bench_sinew_odds() -> None:
    sinew.odds(10)  # warm the caches once, as the bot does on its first call
    started = time.perf_counter()
    for score in range(0, 21):
        for advantage, disadvantage in ((False, False), (True, False), (False, True)):
            sinew.odds(score, advantage=advantage, disadvantage=disadvantage)
            sinew.opposed_odds(score, 20 - score, attacker_advantage=advantage)
            sinew.luck_odds(score, 16, disadvantage=disadvantage, pressure=4)
    each = (time.perf_counter() - started) / (21 * 3 * 3)
    print("Sinew & Steel odds:")
    _report("odds + opposed + luck odds, per score and state", each, SINEW_ODDS_BUDGET_SECONDS)


# --- event-loop hold

# The tasks the bot's own work runs in: discord.py runs each slash command's handler in a
# "CommandTree-invoker" task, view callbacks in "discord-ui-view-*", events in "discord.py: *",
# and reads the gateway in the task run_bot starts. A plain callback (a Handle, not a task step)
# counts as the bot's when it is code of the bot's or discord.py's; the rest, socket reads
# mostly, could be either side's (the fake runs in this process) and are not counted.
BOT_TASK = re.compile(
    r"name='(CommandTree-invoker|discord-ui-view-[^']*|discord\.py: [^']*|fake-discord-bot)'"
)
BOT_CODE = re.compile(r"/(cogs|bot|discord)/[\w/]+\.py")


@dataclass(frozen=True)
class SlowCallback:
    handle: str
    seconds: float
    in_gc: float  # of those, seconds the garbage collector ran (it stops every thread)

    @property
    def bots(self) -> bool:
        return bool(BOT_TASK.search(self.handle) or BOT_CODE.search(self.handle))

    @property
    def net(self) -> float:
        return self.seconds - self.in_gc


class SlowCallbacks(logging.Handler):
    """Collects asyncio's debug-mode "Executing <handle> took N seconds" warnings.

    A full collection of this process's heap (the fake shares it with the bot) takes 50-150 ms
    and lands in whichever callback triggered it, so each collection is timed too
    (``gc.callbacks``) and what it took during a slow callback is taken off.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[SlowCallback] = []
        self.collections: list[tuple[float, float]] = []  # (start, end), perf_counter
        self._started = 0.0

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.collections.append((self._started, time.perf_counter()))

    def emit(self, record: logging.LogRecord) -> None:
        # asyncio logs right after the callback returns: it ran from end - seconds to end.
        end = time.perf_counter()
        if not record.getMessage().startswith("Executing ") or not record.args:
            return
        handle, seconds = record.args  # asyncio's: (the handle, its seconds)
        assert isinstance(seconds, float)
        start = end - float(seconds)
        in_gc = sum(
            max(0.0, min(end, gc_end) - max(start, gc_start))
            for gc_start, gc_end in self.collections
        )
        self.records.append(SlowCallback(str(handle), float(seconds), in_gc))

    def take_held(self) -> float:
        """The longest callback of the bot's since the last call, net of GC (0: none over the
        debug threshold), and start afresh."""
        held = max((r.net for r in self.records if r.bots), default=0.0)
        self.records.clear()
        self.collections.clear()
        return held


def _invoker_running() -> bool:
    return any(
        task.get_name() == "CommandTree-invoker" and not task.done() for task in asyncio.all_tasks()
    )


async def bench_loop_hold(quick: bool, systems: list[str] | None = None) -> None:
    original = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    fake = FakeDiscord()
    await fake.start()
    slow = SlowCallbacks()
    logging.getLogger("asyncio").addHandler(slow)
    gc.callbacks.append(slow.on_gc)
    loop = asyncio.get_running_loop()
    print("Event-loop hold of the heaviest legal commands (net of GC, best of tries):")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-budgets-") as folder:
            settings = bot_settings(fake, Path(folder) / "bot.db")
            async with run_bot(fake, create_bot(settings, rng=new_rng(0))) as bot:
                for group, heaviest in HEAVIEST.items():
                    if systems and group not in systems:
                        continue
                    await _hold_of_group(fake, loop, slow, group, heaviest, 1 if quick else 3)
                if not systems or RECAP_GROUP in systems:
                    await _hold_of_recap(fake, loop, slow, quick)
                await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
    finally:
        loop.set_debug(False)
        gc.callbacks.remove(slow.on_gc)
        logging.getLogger("asyncio").removeHandler(slow)
        await fake.stop()
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = original


async def _hold_of_group(
    fake: FakeDiscord,
    loop: asyncio.AbstractEventLoop,
    slow: SlowCallbacks,
    group: str,
    heaviest: list[tuple[str, dict[str, Any]]],
    tries: int,
) -> None:
    if group != SHARED or not fake.channel_messages(fake.channel_id):
        with contextlib.suppress(Exception):  # no campaign running yet: nothing to end
            prompt = await fake.invoke("campaign end", {}, user="admin")
            await fake.click(prompt, prompt.original.custom_ids()[0], user="admin")
        await SETUPS.get(group, SETUPS["cosmos"])(fake)
    for path, options in heaviest:
        # Unmeasured first: the first use of a code path imports, compiles and caches (fonts
        # for the first chart, the notation parser), which is start-up cost, not a command's.
        await fake.invoke(path, options, user="gm")
        await fake.wait_until(lambda: not _invoker_running(), f"/{path} to finish")
        held: list[float] = []
        for _ in range(tries):
            loop.slow_callback_duration = LOOP_HOLD_BUDGET_SECONDS / 4
            loop.set_debug(True)
            slow.take_held()
            await fake.invoke(path, options, user="gm")
            await fake.wait_until(lambda: not _invoker_running(), f"/{path} to finish")
            loop.set_debug(False)
            held.append(slow.take_held())
        shown = " ".join(f"{k}={v}" for k, v in options.items())
        _report(
            f"[{group}] /{path} {shown}"[:58],
            min(held),
            LOOP_HOLD_BUDGET_SECONDS,
            floor=LOOP_HOLD_BUDGET_SECONDS / 4,  # the debug threshold set above
        )


RECAP_GROUP = "recap"


async def _hold_of_recap(
    fake: FakeDiscord, loop: asyncio.AbstractEventLoop, slow: SlowCallbacks, quick: bool
) -> None:
    """The loop hold of `/campaign recap` of worst-case rolls (docs/gms.md, "Campaign recap"), each
    try with the recap's worker forked already but no shape computed in it."""
    rolls = 100 if quick else MAX_RECAP_ROLLS
    with contextlib.suppress(Exception):  # no campaign running yet: nothing to end
        prompt = await fake.invoke("campaign end", {}, user="admin")
        await fake.click(prompt, prompt.original.custom_ids()[0], user="admin")
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Worst rolls"}, user="gm")
    expressions = worst_expressions(rolls)
    for first in range(0, rolls, 20):
        batch = [await fake.send("roll", {"expression": text}, user="gm")
                 for text in expressions[first : first + 20]]  # fmt: skip
        await fake.wait_answered(batch)
        fake.forget(batch)
    held: list[float] = []
    for _ in range(1 if quick else 3):
        await offload.in_process(forget_everything, worker=offload.RECAP)
        loop.slow_callback_duration = LOOP_HOLD_BUDGET_SECONDS / 4
        loop.set_debug(True)
        slow.take_held()
        await fake.invoke("campaign recap", {}, user="gm")
        await fake.wait_until(lambda: not _invoker_running(), "/campaign recap to finish")
        loop.set_debug(False)
        held.append(slow.take_held())
    _report(
        f"[{RECAP_GROUP}] /campaign recap of {rolls} worst-case rolls",
        min(held),
        LOOP_HOLD_BUDGET_SECONDS,
        floor=LOOP_HOLD_BUDGET_SECONDS / 4,
    )


PLOT_WIDTH, ROW_HEIGHT, LABEL_WIDTH, MARGIN = 1100, 26, 560, 16


def plot(measured: list[Measured], path: Path) -> None:
    """Draw each measurement as a bar in percent of its budget (the dashed line: 100 %), on
    Discord's dark grey, as the bot's own charts are drawn (bot.render.raster)."""
    from bot.render.raster import Canvas

    scale_max = max(1.0, *(m.seconds / m.budget for m in measured))
    height = 2 * MARGIN + ROW_HEIGHT * (len(measured) + 2)
    canvas = Canvas(PLOT_WIDTH, height, background="#313338")
    plot_left, plot_right = LABEL_WIDTH + MARGIN, PLOT_WIDTH - 5 * MARGIN
    width = plot_right - plot_left
    canvas.text("each measurement in percent of its budget (dashed: the budget)", MARGIN,
                MARGIN, size=15, colour="#dbdee1", bold=True)  # fmt: skip
    for row, item in enumerate(measured, start=1):
        top = MARGIN + row * ROW_HEIGHT + 6
        share = item.seconds / item.budget
        canvas.text(item.what[:70], MARGIN, top + 2, size=13, colour="#dbdee1")
        colour = "#57f287" if share <= 1 else "#ed4245"
        right = plot_left + max(2, round(width * min(share, scale_max) / scale_max))
        canvas.rectangle(plot_left, top, right, top + ROW_HEIGHT - 8, colour)
        shown = f"< {item.floor / item.budget:.0%}" if item.seconds < item.floor else f"{share:.0%}"
        canvas.text(shown, right + 6, top + 2, size=13, colour="#dbdee1")
    budget_x = plot_left + round(width / scale_max)
    canvas.dashed_vertical(budget_x, MARGIN + ROW_HEIGHT, height - MARGIN, "#949ba4", width=2)
    path.write_bytes(canvas.png())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer tries (about 20 s)")
    parser.add_argument(
        "--holds",
        nargs="*",
        metavar="SYSTEM",
        help="only the event-loop holds (of these systems' commands; none named: all)",
    )
    parser.add_argument("--plot", type=Path, metavar="PNG", help="also draw the results here")
    arguments = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)  # the bot's INFO lines would bury the numbers
    logging.getLogger("asyncio").setLevel(logging.WARNING)  # but debug mode's slow callbacks
    logging.getLogger("asyncio").propagate = False
    started = time.perf_counter()
    if arguments.holds is None:
        bench_rolls(arguments.quick)
        bench_sinew_odds()
    asyncio.run(bench_loop_hold(arguments.quick, arguments.holds))
    print(f"({time.perf_counter() - started:.0f} s)")
    if arguments.plot is not None:
        plot(MEASURED, arguments.plot)
        print(f"plotted: {arguments.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
