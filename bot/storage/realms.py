"""Enchanted Realms state: rerolling one die of the roller's latest roll, once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.database import Database
from bot.storage.errors import StorageError
from bot.storage.rolls import LoggedRoll, RollEntry, insert_roll, latest_roll

__all__ = ["AlreadyRerolled", "NoRollToReroll", "NotLatestRoll", "RerollLog"]

# In the payload of a reroll: the id of the roll it replaced (a reroll can't be rerolled).
REROLLED_FROM = "rerolled_from"


@dataclass(eq=False)
class NoRollToReroll(StorageError):
    """The user's latest roll in the channel is not an Enchanted Realms roll."""


@dataclass(eq=False)
class AlreadyRerolled(StorageError):
    """The latest roll is a reroll already: once per roll."""

    roll_id: int


@dataclass(eq=False)
class NotLatestRoll(StorageError):
    """A die button under a roll that is no longer the presser's latest here (or not theirs)."""

    roll_id: int
    owner_id: int | None  # who made it (None: no such roll)


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
        roll_id: int | None = None,
    ) -> tuple[LoggedRoll, int]:
        """Return the roll rerolled and the new roll's id.

        ``roll_id``: a die button under that roll was pressed; it must still be the user's
        latest roll here (a button under a roll already rerolled says so).
        """
        async with self._database.transaction() as connection:
            latest = await latest_roll(connection, channel_id, user_id)
            if roll_id is not None and (latest is None or latest.id != roll_id):
                if latest is not None and latest.payload.get(REROLLED_FROM) == roll_id:
                    raise AlreadyRerolled(roll_id)
                row = await connection.fetch_one(
                    "SELECT user_id FROM rolls WHERE id = ?", (roll_id,)
                )
                raise NotLatestRoll(roll_id, None if row is None else int(row["user_id"]))
            if latest is None or latest.kind not in kinds:
                raise NoRollToReroll()
            if REROLLED_FROM in latest.payload:
                raise AlreadyRerolled(int(latest.payload[REROLLED_FROM]))
            entry = apply(latest)
            entry = replace(entry, payload={**entry.payload, REROLLED_FROM: latest.id})
            return latest, await insert_roll(connection, entry)
