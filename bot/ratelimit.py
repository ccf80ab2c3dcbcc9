"""A per-user limit on rolling commands, so one user can't flood a channel.

One window per user, shared by every roll command (any command with a `hidden` option).
`ROLL_RATE_LIMIT` in `.env` sets it (default 20 rolls per 10 seconds; `off` disables it). A
refusal is an ephemeral message saying when to try again.

Where the windows live depends on who else serves the bot: one process alone keeps them in
memory (discord.py's cooldown buckets, no I/O); when other processes may serve the same user
(PostgreSQL, or only some shards here) they live in the database, so the limit is the bot's,
not each process's.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable

import discord
from discord import app_commands

from bot.config import DEFAULT_ROLL_LIMIT, RollLimit
from bot.storage.errors import CannotSave
from bot.storage.limits import RollWindowStore

__all__ = [
    "DEFAULT_ROLL_LIMIT",
    "MemoryRollLimiter",
    "RollLimit",
    "RollLimiter",
    "SharedRollLimiter",
    "roll_limiter",
]

PRUNE_AT = 10_000  # users with a bucket in memory before the idle ones are dropped


class RollLimiter(ABC):
    """The check every roll command runs first: refuses a user past their limit."""

    def __init__(self, limit: RollLimit) -> None:
        self.limit = limit

    async def check(self, interaction: discord.Interaction) -> bool:
        # A macro runs a roll command inside `/macro roll`: one interaction, one roll counted.
        if interaction.extras.get("roll_counted"):
            return True
        interaction.extras["roll_counted"] = True
        retry_after = await self.count(interaction.user.id)
        if retry_after is not None:
            cooldown = app_commands.Cooldown(self.limit.rolls, self.limit.seconds)
            raise app_commands.CommandOnCooldown(cooldown, retry_after)
        return True

    @abstractmethod
    async def count(self, user_id: int) -> float | None:
        """Count one roll of ``user_id``; past the limit, return the seconds until the user's
        window ends (the roll is refused), else None."""


class MemoryRollLimiter(RollLimiter):
    """Windows in this process's memory: discord.py's cooldown bucket per user."""

    def __init__(self, limit: RollLimit) -> None:
        super().__init__(limit)
        self._buckets: dict[int, app_commands.Cooldown] = {}

    async def count(self, user_id: int) -> float | None:
        bucket = self._buckets.get(user_id)
        if bucket is None:
            if len(self._buckets) >= PRUNE_AT:
                self._prune()
            bucket = self._buckets[user_id] = app_commands.Cooldown(
                self.limit.rolls, self.limit.seconds
            )
        return bucket.update_rate_limit()

    def _prune(self) -> None:
        """Forget users whose window is full again (idle long enough to roll the whole limit)."""
        idle = [
            user for user, bucket in self._buckets.items() if bucket.get_tokens() == bucket.rate
        ]
        for user in idle:
            del self._buckets[user]


class SharedRollLimiter(RollLimiter):
    """Windows in the database, counted by every process of the bot alike.

    A window begins at a user's first roll and lasts ``limit.seconds`` (as a cooldown bucket
    does); each roll command is one atomic upsert. Processes read the wall clock, so hosts
    should keep theirs in sync (NTP), as a database server expects anyway.
    """

    def __init__(
        self,
        limit: RollLimit,
        windows: RollWindowStore,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(limit)
        self._windows = windows
        self._clock = clock
        self._window_ms = max(1, round(limit.seconds * 1000))
        self._pruned_ms = 0  # when this process last dropped the windows that have passed

    async def count(self, user_id: int) -> float | None:
        now_ms = int(self._clock() * 1000)
        try:
            window = await self._windows.count_roll(user_id, now_ms, self._window_ms)
            if now_ms - self._pruned_ms >= self._window_ms:  # once a window per process
                self._pruned_ms = now_ms
                await self._windows.forget_ended(now_ms, self._window_ms)
        except CannotSave:
            # The database can't count right now (its outage is warned once where it is
            # found): rolls need no saving, so they go on unlimited rather than all refused.
            return None
        if window.rolls <= self.limit.rolls:
            return None
        return max(0.0, (window.start_ms + self._window_ms - now_ms) / 1000)


def roll_limiter(
    limit: RollLimit | None, windows: RollWindowStore, *, shared: bool
) -> RollLimiter | None:
    """The limiter for this process: none when there is no limit, in the database when other
    processes may serve the same users (``shared``), else in memory."""
    if limit is None:
        return None
    return SharedRollLimiter(limit, windows) if shared else MemoryRollLimiter(limit)
