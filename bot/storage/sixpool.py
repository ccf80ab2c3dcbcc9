"""Six-pool d20 state beyond characters: contests waiting for the defender's declaration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import aiosqlite

from bot.storage.campaigns import Campaign
from bot.storage.characters import Character, CharacterStore
from bot.storage.database import Database, fetch_one
from bot.storage.errors import StorageError
from bot.storage.rolls import RollEntry, insert_roll
from rules.sheets import SheetCodec

__all__ = ["Contest", "ContestClosed", "ContestNotFound", "ContestOutcome", "ContestStore"]


@dataclass(frozen=True, slots=True)
class Contest:
    """A contest against another player's character, as stored."""

    id: int
    campaign_id: int
    channel_id: int
    challenger_id: int
    defender_id: int
    pool: str
    defender_pool: str
    spend: int
    advantage: bool
    disadvantage: bool
    status: str  # pending, resolved, expired
    expires_at: float
    message_id: int | None


@dataclass(eq=False)
class ContestNotFound(StorageError):
    contest_id: int


@dataclass(eq=False)
class ContestClosed(StorageError):
    """The contest was resolved or expired already (``status`` says which)."""

    contest_id: int
    status: str


_COLUMNS = (
    "id, campaign_id, channel_id, challenger_id, defender_id, pool, defender_pool, spend,"
    " advantage, disadvantage, status, expires_at, message_id"
)


def _contest(row: aiosqlite.Row) -> Contest:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (a Row iterates values)
    values.update(advantage=bool(row["advantage"]), disadvantage=bool(row["disadvantage"]))
    return Contest(**values)


@dataclass(frozen=True, slots=True)
class ContestOutcome:
    """What resolving a contest writes: both sheets after their spends, and the roll."""

    challenger_sheet: object
    defender_sheet: object
    entry: RollEntry


class ContestStore:
    """Open contests, and resolve each one exactly once in one transaction."""

    def __init__(self, database: Database, codec: SheetCodec[object]) -> None:
        self._database = database
        self._characters: CharacterStore[object] = CharacterStore(database, codec)

    async def open(
        self,
        campaign: Campaign,
        channel_id: int,
        challenger: Character[object],
        defender: Character[object],
        *,
        pool: str,
        defender_pool: str,
        spend: int,
        advantage: bool,
        disadvantage: bool,
        expires_at: float,
    ) -> Contest:
        async with self._database.transaction() as connection:
            cursor = await connection.execute(
                "INSERT INTO sixpool_contests (campaign_id, channel_id, challenger_id,"
                " defender_id, pool, defender_pool, spend, advantage, disadvantage, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    campaign.id,
                    channel_id,
                    challenger.id,
                    defender.id,
                    pool,
                    defender_pool,
                    spend,
                    advantage,
                    disadvantage,
                    expires_at,
                ),
            )
            contest_id = cursor.lastrowid
            assert contest_id is not None
            return await self._get(connection, contest_id)

    async def _get(self, connection: aiosqlite.Connection, contest_id: int) -> Contest:
        row = await fetch_one(
            connection, f"SELECT {_COLUMNS} FROM sixpool_contests WHERE id = ?", (contest_id,)
        )
        if row is None:
            raise ContestNotFound(contest_id)
        return _contest(row)

    async def get(self, contest_id: int) -> Contest:
        return await self._get(self._database.reader, contest_id)

    async def set_message(self, contest_id: int, message_id: int) -> None:
        async with self._database.transaction() as connection:
            await connection.execute(
                "UPDATE sixpool_contests SET message_id = ? WHERE id = ?", (message_id, contest_id)
            )

    async def expire(self, contest_id: int, now: float) -> bool:
        """Mark a pending contest past its time as expired; return whether this call did."""
        async with self._database.transaction() as connection:
            cursor = await connection.execute(
                "UPDATE sixpool_contests SET status = 'expired'"
                " WHERE id = ? AND status = 'pending' AND expires_at <= ?",
                (contest_id, now),
            )
            return cursor.rowcount == 1

    async def resolve(
        self,
        contest_id: int,
        now: float,
        decide: Callable[[Contest, Character[object], Character[object]], ContestOutcome],
    ) -> tuple[Contest, int]:
        """Resolve a pending contest: ``decide`` spends and rolls; all is written at once.

        Raises ContestClosed when it was resolved or expired already (a second press, a race,
        or too late: then it is marked expired and nothing is spent).
        """
        async with self._database.transaction() as connection:
            contest = await self._get(connection, contest_id)
            if contest.status == "pending" and contest.expires_at <= now:
                await connection.execute(
                    "UPDATE sixpool_contests SET status = 'expired' WHERE id = ?", (contest_id,)
                )
                contest = replace(contest, status="expired")
            if contest.status != "pending":
                raise ContestClosed(contest_id, contest.status)
            challenger = await self._characters.by_id_in(connection, contest.challenger_id)
            defender = await self._characters.by_id_in(connection, contest.defender_id)
            outcome = decide(contest, challenger, defender)
            await self._characters.save_in(
                connection, replace(challenger, sheet=outcome.challenger_sheet)
            )
            await self._characters.save_in(
                connection, replace(defender, sheet=outcome.defender_sheet)
            )
            roll_id = await insert_roll(connection, outcome.entry)
            await connection.execute(
                "UPDATE sixpool_contests SET status = 'resolved' WHERE id = ?", (contest_id,)
            )
        return replace(contest, status="resolved"), roll_id
