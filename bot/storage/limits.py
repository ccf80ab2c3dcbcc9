"""Each user's roll-rate window in the database, shared by every process of the bot."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.database import Database

__all__ = ["RollWindow", "RollWindowStore"]

# One statement, atomic on both backends with no lock of the bot's own: a user's row is the
# window that began at their first roll; a roll after it has passed starts a new one. Every
# expression in SET reads the row as it was, so both CASEs test the old window.
_COUNT_ROLL = """
INSERT INTO roll_limits (user_id, window_start_ms, rolls) VALUES (?, ?, 1)
ON CONFLICT (user_id) DO UPDATE SET
    rolls = CASE WHEN roll_limits.window_start_ms <= ? THEN 1 ELSE roll_limits.rolls + 1 END,
    window_start_ms = CASE WHEN roll_limits.window_start_ms <= ?
                           THEN excluded.window_start_ms ELSE roll_limits.window_start_ms END
RETURNING window_start_ms, rolls
"""


@dataclass(frozen=True, slots=True)
class RollWindow:
    """A user's current window: when it began (Unix ms) and the rolls counted in it so far."""

    start_ms: int
    rolls: int


class RollWindowStore:
    """Counts roll commands per user in fixed-length windows, one atomic upsert per roll."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def count_roll(self, user_id: int, now_ms: int, window_ms: int) -> RollWindow:
        """Count one roll of ``user_id`` at ``now_ms`` and return the window it counted in."""
        ended_before = now_ms - window_ms  # a window that began at or before this has passed
        # Not durable: a count lost in a server crash only lets a user roll a little more
        # (docs/hosting.md, "Shared state").
        row = await self._database.write_alone(
            _COUNT_ROLL, (user_id, now_ms, ended_before, ended_before), durable=False
        )
        assert row is not None
        return RollWindow(int(row["window_start_ms"]), int(row["rolls"]))

    async def forget_ended(self, now_ms: int, window_ms: int) -> None:
        """Drop the windows that have passed (a user's next roll would start afresh anyway).

        Not durable either: a delete lost in a server crash leaves windows that have passed, which
        count as none and go with the next one (docs/hosting.md, "Shared state"). A roll command
        that runs it (one a window per process) waits for no disk."""
        await self._database.write_alone(
            "DELETE FROM roll_limits WHERE window_start_ms <= ?",
            (now_ms - window_ms,),
            durable=False,
        )
