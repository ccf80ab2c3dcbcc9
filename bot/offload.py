"""Heavy pure-Python work in a worker process, off the event loop and off its GIL.

A worker thread keeps the event loop's thread waiting for the GIL for as long as it runs Python
between short numpy calls (Realms' attack odds: a transform per prime, the Chinese remainder
digits, then the exact Fractions the reply lists): the loop's callbacks stall in 5 ms slices.
``in_process`` runs such a function in one forked worker process instead; only its arguments
and result cross (pickled). The worker is forked on first use (a fork of the running bot:
everything already imported, ~10-30 ms once) and serves the bot's lifetime; queries queue.

Two workers, each a queue of its own: ``ODDS`` (docs/players/index.md, "Odds charts": `/realms odds`
for attacks, the heaviest exact odds, answered within Discord's 3 s) and ``RECAP`` (docs/gms.md,
"Campaign recap": `/campaign recap` reads and places its rolls there, up to a few seconds of work,
deferred first), so a long recap never delays an odds reply.

A worker reads the systems the bot installed (``rules.systems.current``: a recap reads rolls of a
SYSTEM_PACKAGES system through its declaration): forked from the bot, it has the same registry,
and a worker forked for other packages (another bot in this process) is replaced.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Literal, TypeVar

from rules.systems import current

__all__ = ["ODDS", "RECAP", "Worker", "in_process", "shutdown"]

T = TypeVar("T")
Worker = Literal["odds", "recap"]
ODDS: Worker = "odds"
RECAP: Worker = "recap"

_pools: dict[Worker, ProcessPoolExecutor] = {}
_packages: dict[Worker, tuple[str, ...]] = {}  # the extra rules packages each pool's worker reads


def _forget_the_bots_signals() -> None:
    """In the worker: default signal handling, and no writes to the bot loop's wakeup fd.

    A fork inherits asyncio's handlers, which would pass a SIGTERM sent to the whole service
    on to the bot's loop (through the shared wakeup fd) rather than end the worker.
    """
    signal.set_wakeup_fd(-1)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_DFL)


def _executor(worker: Worker = ODDS) -> ProcessPoolExecutor:
    packages = current().packages
    if worker in _pools and _packages[worker] != packages:
        shutdown(worker)  # forked for another registry (another bot in this process)
    pool = _pools.get(worker)
    if pool is None:
        # fork: the worker starts from the running bot, no imports to repeat (spawn would
        # import discord.py, numpy and the rules again, ~1 s, inside Discord's 3 s deadline).
        pool = _pools[worker] = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_forget_the_bots_signals,
        )
        _packages[worker] = packages
    return pool


async def in_process(function: Callable[..., T], *arguments: object, worker: Worker = ODDS) -> T:
    """Return ``function(*arguments)`` computed in the ``worker`` process.

    ``function`` must be a module-level function, its arguments and result picklable, and it
    should not raise: validate the inputs first (an exception crosses back only if it pickles).
    """
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_executor(worker), function, *arguments)
    except BrokenProcessPool:  # the worker died (killed, out of memory): fork a new one, once
        shutdown(worker)
        return await loop.run_in_executor(_executor(worker), function, *arguments)


def shutdown(worker: Worker | None = None) -> None:
    """Stop the worker process (every one: None); a new one is forked on the next use."""
    for name in [worker] if worker is not None else list(_pools):
        pool = _pools.pop(name, None)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
