"""Enchanted Realms state: rerolling one die of the roller's latest roll, once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.database import Database
from bot.storage.errors import StorageError
from bot.storage.rolls import LoggedRoll, RollEntry, insert_roll, latest_roll

__all__ = ["AlreadyRerolled", "NoRollToReroll", "RerollLog"]

# In the payload of a reroll: the id of the roll it replaced (a reroll can't be rerolled).
REROLLED_FROM = "rerolled_from"


@dataclass(eq=False)
class NoRollToReroll(StorageError):
    """The user's latest roll in the channel is not an Enchanted Realms roll."""


@dataclass(eq=False)
class AlreadyRerolled(StorageError):
    """The latest roll is a reroll already: once per roll."""

    roll_id: int


class RerollLog:
    """Reroll one die of a user's latest roll in a channel: read and write in one transaction,
    so the latest roll is the stored one (it survives a restart) and only one reroll lands."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def reroll(
        self,
        channel_id: int,
        user_id: int,
        kinds: tuple[str, ...],
        apply: Callable[[LoggedRoll], RollEntry],
    ) -> tuple[LoggedRoll, int]:
        """Return the roll rerolled and the new roll's id."""
        async with self._database.transaction() as connection:
            latest = await latest_roll(connection, channel_id, user_id)
            if latest is None or latest.kind not in kinds:
                raise NoRollToReroll()
            if REROLLED_FROM in latest.payload:
                raise AlreadyRerolled(int(latest.payload[REROLLED_FROM]))
            entry = apply(latest)
            entry = replace(entry, payload={**entry.payload, REROLLED_FROM: latest.id})
            return latest, await insert_roll(connection, entry)
