"""What the tests of the roll log's writes share: a roll to log, and the trips a write makes to
SQLite's writer thread."""

from __future__ import annotations

import pytest

from bot.storage import RollEntry, Storage, Visibility
from bot.storage.database import SqliteDatabase

__all__ = ["roll_entry", "trips_to_the_writer"]


def roll_entry(n: int, campaign_id: int | None = None) -> RollEntry:
    """A public `/roll` of one user in one channel, its payload naming ``n``."""
    return RollEntry(
        campaign_id=campaign_id,
        guild_id=1,
        channel_id=2,
        user_id=3,
        kind="dice",
        visibility=Visibility.PUBLIC,
        payload={"result": {"n": n}},
    )


def trips_to_the_writer(storage: Storage, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Name every function aiosqlite runs on the writer's thread from now on."""
    database = storage.database
    assert isinstance(database, SqliteDatabase)
    writer = database._writer
    original = writer._execute
    trips: list[str] = []

    def counted(function, *arguments):
        trips.append(getattr(function, "__name__", repr(function)))
        return original(function, *arguments)

    monkeypatch.setattr(writer, "_execute", counted)
    return trips
