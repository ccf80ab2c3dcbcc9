"""Shared by the bench scripts: the fake Discord, and `python -m bot` as a subprocess against it.

The bot runs as its own process (as DESIGN.md's targets assume), so its CPU is not the load
generator's. With two or more CPUs the bot is pinned to one core and this process to the others,
so "on one core" in the targets means exactly that; ``pin=False`` leaves scheduling to the OS.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
import signal
import sys
import time
from pathlib import Path

import numpy as np

# Runnable as a plain script from anywhere: make the project (and tests.fakediscord) importable.
PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from tests.fakediscord import FakeDiscord, Reply  # noqa: E402

__all__ = [
    "BotProcess",
    "CpuMeter",
    "FakeDiscord",
    "Reply",
    "freeze_garbage",
    "millis",
    "percentiles",
    "pin_self",
]

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")
ERROR_LEVEL = re.compile(r"\[(ERROR|CRITICAL) *\]")  # discord.py's log format: "[ERROR   ]"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
BOT_CPU = 0
CAN_PIN = len(os.sched_getaffinity(0)) > 1 and BOT_CPU in os.sched_getaffinity(0)


def any_answered(replies: list[Reply]) -> bool:
    """Whether the bot has answered any of these interactions."""
    return any(reply.raw is not None for reply in replies)


def pin_self(pin: bool) -> None:
    """Keep this process (the load generator) off the bot's core, if there is another core."""
    if pin and CAN_PIN:
        os.sched_setaffinity(0, os.sched_getaffinity(0) - {BOT_CPU})


def freeze_garbage() -> None:
    """Keep the load generator's garbage collector from stalling it for tens of milliseconds.

    A full collection over the fake's objects takes ~70 ms here, long enough to bunch an open-loop
    load into bursts and to delay the fake's timestamps; freezing what exists now and collecting
    the young generations less often keeps every pause to a few milliseconds.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)


def millis(seconds: list[float]) -> np.ndarray:
    return np.array(seconds, dtype=float) * 1000


def percentiles(seconds: list[float]) -> dict[str, float]:
    """Return p50, p99 and max in milliseconds."""
    values = millis(seconds)
    return {
        "p50": float(np.percentile(values, 50)),
        "p99": float(np.percentile(values, 99)),
        "max": float(values.max()),
    }


class CpuMeter:
    """CPU used by the bot and by this process (the fake, the load) since creation."""

    def __init__(self, bot: BotProcess) -> None:
        self.bot = bot
        self.wall = time.perf_counter()
        self.bot_cpu = bot.cpu_seconds()
        self.own_cpu = time.process_time()

    def bot_seconds(self) -> float:
        return self.bot.cpu_seconds() - self.bot_cpu

    def summary(self, wall: float | None = None) -> str:
        """Return "bot CPU x% of a core, load generator y%" over ``wall`` (default: so far)."""
        wall = wall if wall is not None else time.perf_counter() - self.wall
        own = time.process_time() - self.own_cpu
        return f"bot CPU {self.bot_seconds() / wall:.0%} of a core, load generator {own / wall:.0%}"


class BotProcess:
    """`python -m bot` against ``fake``, with its database and log under ``workdir``."""

    bot_args: tuple[str, ...] = ("-m", "bot")  # after the interpreter: e.g. a patched runner

    def __init__(
        self,
        fake: FakeDiscord,
        workdir: Path,
        *,
        database: Path | None = None,
        pin: bool = True,
        cprofile: Path | None = None,
        environment: dict[str, str] | None = None,
    ) -> None:
        self.fake = fake
        self.environment = environment or {}  # more variables, e.g. DATABASE_URL
        self.workdir = workdir
        self.database = database or workdir / "bot.db"
        self.log_path = workdir / "bot.log"
        self.pin = pin and CAN_PIN
        self.cprofile = cprofile  # run under cProfile, stats written here at exit
        self.process: asyncio.subprocess.Process | None = None
        self.started_at = 0.0
        self._log_offset = 0

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    async def start(self, wait_seconds: float = 30.0) -> float:
        """Start the bot; return seconds from spawning it to its first gateway IDENTIFY, or to
        its command sync if that came later.

        The bot decides on the sync before it connects (``setup_hook``): an IDENTIFY means the
        sync is done, or was skipped because the commands are as last synced (a restart)."""
        environment = {
            key: value for key, value in os.environ.items() if not key.startswith("DISCORD_")
        }
        environment.update(
            DISCORD_TOKEN=self.fake.token,
            DISCORD_API_BASE=self.fake.api_base,
            DISCORD_GATEWAY_URL=self.fake.gateway_url,
            DATABASE_PATH=str(self.database),
            GUILD_ID=str(self.fake.guild_id),
            ROLL_RATE_LIMIT="off",  # the benches send one user's rolls by the thousand
        )
        environment.update(self.environment)
        self._log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        pin = self.pin

        def pin_to_one_core() -> None:  # runs in the child before exec
            if pin:
                os.sched_setaffinity(0, {BOT_CPU})

        profile = ["-m", "cProfile", "-o", str(self.cprofile.resolve())] if self.cprofile else []
        self.started_at = time.perf_counter()
        self.process = process = await asyncio.create_subprocess_exec(
            sys.executable,
            *profile,
            *self.bot_args,
            cwd=self.workdir,
            env=environment,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            preexec_fn=pin_to_one_core,
        )
        log.close()
        started = self.started_at
        fake = self.fake
        saved = fake.timeout
        fake.timeout = wait_seconds
        try:
            await fake.wait_until(
                lambda: (
                    process.returncode is not None
                    or ((fake.identified_at or 0) > started and fake.bot_connected)
                ),
                "the bot to identify",
            )
        finally:
            fake.timeout = saved
        if self.process.returncode is not None:
            raise RuntimeError(f"the bot exited with {self.process.returncode}:\n{self.new_log()}")
        assert fake.identified_at is not None
        return max(fake.identified_at, fake.synced_at or 0.0) - started

    async def stop(self) -> int:
        """Stop the bot as Ctrl+C would; return its exit code."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGINT)
        try:
            return await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            await self.kill()
            raise

    async def kill(self) -> None:
        """kill -9."""
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    def status(self, field: str) -> int:
        """Return a /proc/PID/status field in kB (VmRSS, VmHWM)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def cpu_seconds(self) -> float:
        """Return the bot's user + system CPU time so far."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def context_switches(self) -> int:
        """Return how often the bot's threads have been switched out so far, waiting or
        preempted (voluntary + nonvoluntary, summed over /proc/PID/task/*/status)."""
        total = 0
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            try:
                lines = (task / "status").read_text().splitlines()
            except FileNotFoundError:  # a thread that just ended
                continue
            total += sum(int(line.split()[1]) for line in lines if "ctxt_switches:" in line)
        return total

    def new_log(self) -> str:
        """Return the bot's log since its latest start, without colour codes."""
        if not self.log_path.exists():
            return ""
        with self.log_path.open("rb") as log:
            log.seek(self._log_offset)
            return ANSI_ESCAPE.sub("", log.read().decode(errors="replace"))

    def log_errors(self) -> list[str]:
        """Return the log lines at ERROR or CRITICAL, and tracebacks, since the latest start."""
        return [
            line
            for line in self.new_log().splitlines()
            if ERROR_LEVEL.search(line) or line.startswith("Traceback")
        ]
