"""Counters a system declares on the party or on characters (Pressure, ...).

Only tracks a system declares exist (``rules.declarations.TrackSpec``): their limits and start
come from the declaration, and any other name is refused with ``UnknownTrack``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.campaigns import Campaign
from bot.storage.database import Database, Session
from bot.storage.errors import TrackOutOfRange, UnknownTrack
from rules.declarations import TrackSpec, declaration

__all__ = ["TrackChange", "TrackStore", "change_track", "read_track", "track_spec"]


@dataclass(frozen=True, slots=True)
class TrackChange:
    """A track's value before and after one change."""

    name: str
    before: int
    after: int


def track_spec(campaign: Campaign, name: str, *, on_character: bool) -> TrackSpec:
    """Return the declared track ``name`` of the campaign's system; refuse any other."""
    system_declaration = declaration(campaign.system)
    spec = system_declaration.track(name)
    if spec is None or not (spec.per_character if on_character else spec.party):
        known = tuple(
            track.name
            for track in system_declaration.tracks
            if (track.per_character if on_character else track.party)
        )
        raise UnknownTrack(name, campaign.system.display_name, known)
    return spec


def _select_track(
    campaign_id: int, character_id: int | None, name: str
) -> tuple[str, tuple[object, ...]]:
    """The query of one track: a character's, or the party's (no character)."""
    if character_id is None:
        return (
            "SELECT id, value FROM tracks WHERE campaign_id = ? AND character_id IS NULL"
            " AND name = ?",
            (campaign_id, name),
        )
    return (
        "SELECT id, value FROM tracks WHERE campaign_id = ? AND character_id = ? AND name = ?",
        (campaign_id, character_id, name),
    )


async def read_track(
    connection: Session,
    campaign_id: int,
    spec: TrackSpec,
    character_id: int | None = None,
) -> int:
    """Return a declared track's value (its start if it never changed) on a connection."""
    row = await connection.fetch_one(*_select_track(campaign_id, character_id, spec.name))
    return spec.start if row is None else row["value"]


async def change_track(
    connection: Session,
    campaign_id: int,
    spec: TrackSpec,
    delta: int,
    character_id: int | None = None,
) -> TrackChange:
    """Add ``delta`` to a track inside the caller's transaction; refuse to leave its limits."""
    await connection.execute(
        "INSERT INTO tracks (campaign_id, character_id, name, value, minimum, maximum)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (campaign_id, character_id, spec.name, spec.start, spec.minimum, spec.maximum),
    )
    row = await connection.fetch_one(*_select_track(campaign_id, character_id, spec.name))
    assert row is not None
    before = row["value"]
    after = before + delta
    if not spec.check(after):
        raise TrackOutOfRange(spec.name, before, delta, spec.minimum, spec.maximum)
    await connection.execute("UPDATE tracks SET value = ? WHERE id = ?", (after, row["id"]))
    return TrackChange(name=spec.name, before=before, after=after)


class TrackStore:
    """Named operations on tracks; a change is read, checked and written in one transaction."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def change(
        self, campaign: Campaign, name: str, delta: int, *, character_id: int | None = None
    ) -> TrackChange:
        """Add ``delta`` to a declared track of the party or of a character."""
        spec = track_spec(campaign, name, on_character=character_id is not None)
        async with self._database.transaction() as connection:
            return await change_track(connection, campaign.id, spec, delta, character_id)

    async def value(self, campaign: Campaign, name: str, *, character_id: int | None = None) -> int:
        """Return a declared track's value (its start if it never changed)."""
        spec = track_spec(campaign, name, on_character=character_id is not None)
        return await read_track(self._database.reader, campaign.id, spec, character_id)
