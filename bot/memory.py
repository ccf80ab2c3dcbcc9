"""The garbage collector, tuned for a long-running bot, and a log line for each long pause.

CPython's full collections walk every object the process holds: once the bot is up that is
over a hundred thousand long-lived objects (discord.py, numpy, PIL, the command tree),
and during a burst another ~50 per interaction in flight. Full collections of 57-234 ms
happened during bursts, and every interaction in flight waited for them. So:

- once start-up is done, what exists is frozen out of the collector's sight for good;
- the youngest generation is collected after 3,000 new objects rather than CPython's 700, and
  the middle one after 3 of those rather than 10: with 64 interactions in flight each young
  collection walks their live objects too, so at 700 one ran every ~10 rolls and the collector
  took ~8% of the bot's CPU under load (~4% now). A collection of the middle generation walks
  what survived the young ones since the last: 3 of 3,000 is about CPython's 10 of 700, so its
  pauses during bursts stay as they were (10 of 3,000 made them two to four times longer);
- full collections no longer start by themselves in the middle of work: when the last
  interaction in flight is answered, ``collect_if_due`` runs the one CPython would have run by
  now, while nobody waits; under load that never pauses, ``collect_overdue`` runs one anyway
  once OVERDUE young collections have passed, so cyclic garbage is always freed and memory
  stays bounded.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any

__all__ = [
    "LONG_PAUSE_MS",
    "collect_if_due",
    "collect_overdue",
    "freeze_after_start",
    "log_long_collections",
]

log = logging.getLogger(__name__)

LONG_PAUSE_MS = 10.0  # a collection at least this long, with work waiting, is logged (at INFO)
# Generations 0 and 1 (CPython's defaults: 700 and 10). Measured over 6,000 rolls with 64 in
# flight (docs/benchmarks.md): the collector's CPU 8% at (700, 10), 6% at (2000, 3), 4% at
# (3000, 3), 3% at (3000, 10) but with generation 1's pauses in bursts up to 60-90 ms.
YOUNG_THRESHOLDS = (3000, 3)
NEVER = 1_000_000_000  # a generation-2 threshold no count reaches: no automatic full collection
# CPython runs a full collection after 10 collections of generation 1 (about 70,000 new
# objects; ~90,000 with ours); without a pause in the work, ours waits for five times as many.
DUE = 10
OVERDUE = 5 * DUE
OVERDUE_CHECK_SECONDS = 0.1


def freeze_after_start() -> None:
    """Collect once, then freeze every object alive now (modules, the command tree, the chart
    renderer) so no later collection walks them; full collections are left to
    ``collect_if_due`` and ``collect_overdue``."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*YOUNG_THRESHOLDS, NEVER)
    log.debug("Froze %d objects out of the garbage collector's sight", gc.get_freeze_count())


def _full_collections_due() -> int:
    # Collections of generation 1 since the last full one: what CPython's own trigger counts.
    return gc.get_count()[2]


def collect_if_due() -> None:
    """Run the full collection CPython would have run by now, if any: call it when no
    interaction is in flight, so no one waits for it."""
    global _quiet
    if _full_collections_due() >= DUE:
        _quiet = True
        try:
            gc.collect()
        finally:
            _quiet = False


async def collect_overdue() -> None:
    """Forever: run a full collection when OVERDUE young collections have passed without one
    (work that never pauses), so memory stays bounded whatever the load."""
    while True:
        await asyncio.sleep(OVERDUE_CHECK_SECONDS)
        if _full_collections_due() >= OVERDUE:
            gc.collect()


_quiet = False  # a collection run by collect_if_due: no interaction waits for it
_started: list[float] = []


def _time_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started.append(time.perf_counter())
        return
    if not _started:
        return
    elapsed = (time.perf_counter() - _started.pop()) * 1000
    if elapsed >= LONG_PAUSE_MS and not _quiet and _loop_running():
        log.info(
            "Garbage collection of generation %d took %.1f ms (%d objects freed)",
            info["generation"],
            elapsed,
            info["collected"],
        )


def _loop_running() -> bool:
    """Whether an event loop runs here, so something may be waiting (not at start or exit)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def log_long_collections() -> None:
    """Log every collection that stops the bot for LONG_PAUSE_MS or more (idempotent)."""
    if _time_collection not in gc.callbacks:
        gc.callbacks.append(_time_collection)
