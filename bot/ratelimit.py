"""A per-user limit on rolling commands, so one user can't flood a channel.

One window per user, shared by every roll command (any command with a `hidden` option), kept in
discord.py's own cooldown buckets. `ROLL_RATE_LIMIT` in `.env` sets it (default 20 rolls per 10
seconds; `off` disables it). A refusal is an ephemeral message saying when to try again. Kept in
process memory: one process serves one set of users.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import discord
from discord import app_commands

__all__ = ["DEFAULT_ROLL_LIMIT", "RollLimit", "RollLimiter"]

PRUNE_AT = 10_000  # users with a bucket before the idle ones are dropped
_SHAPE = re.compile(r"\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*s?\s*")


@dataclass(frozen=True, slots=True)
class RollLimit:
    """At most ``rolls`` roll commands per user in any ``seconds``."""

    rolls: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> RollLimit | None:
        """`20/10` (20 rolls per 10 seconds), or `off`; raise ValueError saying the shape."""
        if text.strip().lower() in ("off", "0", "none"):
            return None
        found = _SHAPE.fullmatch(text)
        if found is None or int(found[1]) < 1 or float(found[2]) <= 0:
            raise ValueError(f"give rolls/seconds like 20/10, or off (got {text!r})")
        return cls(int(found[1]), float(found[2]))

    def __str__(self) -> str:
        return f"{self.rolls} rolls per {self.seconds:g} seconds"


DEFAULT_ROLL_LIMIT = RollLimit(20, 10.0)


class RollLimiter:
    """The check every roll command runs first: refuses a user past their limit."""

    def __init__(self, limit: RollLimit) -> None:
        self.limit = limit
        self._buckets: dict[int, app_commands.Cooldown] = {}

    async def check(self, interaction: discord.Interaction) -> bool:
        # A macro runs a roll command inside `/macro roll`: one interaction, one roll counted.
        if interaction.extras.get("roll_counted"):
            return True
        interaction.extras["roll_counted"] = True
        user_id = interaction.user.id
        bucket = self._buckets.get(user_id)
        if bucket is None:
            if len(self._buckets) >= PRUNE_AT:
                self._prune()
            bucket = self._buckets[user_id] = app_commands.Cooldown(
                self.limit.rolls, self.limit.seconds
            )
        retry_after = bucket.update_rate_limit()
        if retry_after is not None:
            raise app_commands.CommandOnCooldown(bucket, retry_after)
        return True

    def _prune(self) -> None:
        """Forget users whose window is full again (idle long enough to roll the whole limit)."""
        idle = [
            user for user, bucket in self._buckets.items() if bucket.get_tokens() == bucket.rate
        ]
        for user in idle:
            del self._buckets[user]
