"""Counters kept per campaign or per character (Pressure, challenge progress, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import CommandError
from bot.storage.database import Database, fetch_one

__all__ = ["TrackChange", "TrackStore"]


@dataclass(frozen=True, slots=True)
class TrackChange:
    """A track's value before and after one change."""

    name: str
    before: int
    after: int


class TrackStore:
    """Named operations on tracks; a change is read, checked and written in one transaction."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def change(
        self,
        campaign_id: int,
        name: str,
        delta: int,
        *,
        minimum: int,
        maximum: int,
        character_id: int | None = None,
        start: int = 0,
    ) -> TrackChange:
        """Add ``delta`` to a track (created at ``start``); refuse to leave minimum..maximum."""
        async with self._database.transaction() as connection:
            await connection.execute(
                "INSERT OR IGNORE INTO tracks (campaign_id, character_id, name, value, minimum,"
                " maximum) VALUES (?, ?, ?, ?, ?, ?)",
                (campaign_id, character_id, name, start, minimum, maximum),
            )
            row = await fetch_one(
                connection,
                "SELECT id, value FROM tracks WHERE campaign_id = ?"
                " AND ifnull(character_id, 0) = ifnull(?, 0) AND name = ?",
                (campaign_id, character_id, name),
            )
            assert row is not None
            before = row["value"]
            after = before + delta
            if not minimum <= after <= maximum:
                raise CommandError(
                    f"{name} is {before}; changing it by {delta:+d} would leave "
                    f"{minimum}–{maximum}."
                )
            await connection.execute("UPDATE tracks SET value = ? WHERE id = ?", (after, row["id"]))
        return TrackChange(name=name, before=before, after=after)

    async def value(
        self, campaign_id: int, name: str, *, character_id: int | None = None
    ) -> int | None:
        """Return a track's value, or None if it was never set."""
        row = await self._database.fetch_one(
            "SELECT value FROM tracks WHERE campaign_id = ?"
            " AND ifnull(character_id, 0) = ifnull(?, 0) AND name = ?",
            (campaign_id, character_id, name),
        )
        return None if row is None else row["value"]
