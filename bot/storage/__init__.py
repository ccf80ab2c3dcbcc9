"""The only place with SQL: named operations, each in one transaction.

``Storage`` bundles the foundation's stores. A system's characters use the shared
``CharacterStore`` with the system's sheet codec; a system that needs tables of its own adds a
migration under ``data/migrations`` and a store module here, built by its cog from
``storage.database``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.config import Backend, DatabaseLocation
from bot.storage.campaigns import Campaign, CampaignStore, CharacterSummary, TrackSummary
from bot.storage.characters import Character, CharacterStore
from bot.storage.database import Database, DatabaseUnusable, SqliteDatabase, apply_migrations
from bot.storage.limits import RollWindowStore
from bot.storage.rolls import (
    Change,
    LoggedRoll,
    Revealer,
    RollEntry,
    RollLog,
    RollPage,
    SessionStart,
    Visibility,
    insert_roll,
)
from bot.storage.syncs import CommandSyncStore
from bot.storage.timed import DatabaseTimer, TimedDatabase
from bot.storage.tracks import TrackChange, TrackStore

__all__ = [
    "Campaign",
    "CampaignStore",
    "Change",
    "Character",
    "CharacterStore",
    "CharacterSummary",
    "CommandSyncStore",
    "Database",
    "DatabaseUnusable",
    "LoggedRoll",
    "Revealer",
    "RollEntry",
    "RollLog",
    "RollPage",
    "RollWindowStore",
    "SessionStart",
    "Storage",
    "TrackChange",
    "TrackStore",
    "TrackSummary",
    "Visibility",
    "apply_migrations",
    "insert_roll",
]


@dataclass(frozen=True, slots=True)
class Storage:
    """The database and the stores every cog may use."""

    database: Database
    campaigns: CampaignStore
    rolls: RollLog
    tracks: TrackStore
    roll_windows: RollWindowStore
    command_syncs: CommandSyncStore

    @classmethod
    async def open(
        cls,
        where: Path | DatabaseLocation,
        *,
        timer: DatabaseTimer | None = None,
        in_flight: Callable[[], int] = lambda: 0,
    ) -> Storage:
        """Migrate and open the database at ``where``: an SQLite file, or a location (DATABASE_URL:
        SQLite or PostgreSQL). With a ``timer``, every operation's time is reported to it
        (docs/hosting.md, "Metrics"). ``in_flight``: how many callers are at work that may write
        soon (the bot's interactions in flight): SQLite commits the roll log's writes of a caller
        alone at once, and groups those of several (``SqliteDatabase``); PostgreSQL runs a caller's
        statements alone on a connection kept for it (``KeptConnection``)."""
        database: Database
        if isinstance(where, DatabaseLocation) and where.kind is Backend.POSTGRESQL:
            from bot.storage.postgres import PostgresDatabase  # asyncpg: the postgresql extra

            assert where.url is not None
            database = await PostgresDatabase.open(where.url, in_flight=in_flight)
        else:
            path = where.path if isinstance(where, DatabaseLocation) else where
            assert path is not None
            database = await SqliteDatabase.open(path, in_flight=in_flight)
        if timer is not None:
            database = TimedDatabase(database, timer)
        return cls(
            database,
            CampaignStore(database),
            RollLog(database),
            TrackStore(database),
            RollWindowStore(database),
            CommandSyncStore(database),
        )

    async def close(self) -> None:
        """Close the database."""
        await self.database.close()
