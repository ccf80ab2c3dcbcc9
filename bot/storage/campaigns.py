"""Campaigns, their GMs and their characters."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta

from bot.storage.database import Database, Row, Session, utc_now
from bot.storage.errors import (
    AlreadyGM,
    CampaignAlreadyRunning,
    CampaignEnded,
    EndAnswer,
    EndPromptAnswered,
    FounderStaysGM,
    NotCoGM,
)
from rules.campaigns import CampaignSettings, TableSwitches
from rules.declarations import declaration
from rules.systems import System, system_named

__all__ = [
    "Campaign",
    "CampaignStore",
    "CharacterSummary",
    "EndAnswer",
    "TrackSummary",
    "answer_prompt_in",
]


@dataclass(frozen=True, slots=True)
class Campaign:
    """A running campaign in one channel."""

    id: int
    guild_id: int | None
    channel_id: int
    settings: CampaignSettings
    created_by: int
    gm_ids: frozenset[int]
    switches: TableSwitches = field(default_factory=TableSwitches)

    @property
    def system(self) -> System:
        return self.settings.system


@dataclass(frozen=True, slots=True)
class CharacterSummary:
    """A character as `/campaign info` lists it."""

    id: int
    user_id: int
    name: str


@dataclass(frozen=True, slots=True)
class TrackSummary:
    """A track as `/campaign info` lists it; ``character_name`` is None for a party track."""

    name: str
    character_name: str | None
    value: int
    maximum: int


CACHED_CHANNELS = 10_000  # running campaigns kept in memory (a few hundred bytes each)
# A prompt is answered within minutes; its answer is kept a day, for a client showing it late.
END_ANSWERS_KEPT = timedelta(days=1)

# One query per campaign, GMs included (a row per GM): each query is a trip to the database.
_SELECT_CAMPAIGN = (
    "SELECT c.id, c.guild_id, c.channel_id, c.system, c.name, c.settings, c.switches,"
    " c.created_by, g.user_id AS gm_id"
    " FROM campaigns AS c LEFT JOIN campaign_gms AS g ON g.campaign_id = c.id"
)
_ACTIVE_CAMPAIGN = f"{_SELECT_CAMPAIGN} WHERE c.channel_id = ? AND c.ended_at IS NULL"
_CAMPAIGN_BY_ID = f"{_SELECT_CAMPAIGN} WHERE c.id = ?"  # running or ended


def _campaign(rows: list[Row]) -> Campaign | None:
    """The campaign of ``_ACTIVE_CAMPAIGN``'s rows (one per GM), if any."""
    if not rows:
        return None
    row = rows[0]
    return Campaign(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        settings=CampaignSettings.stored(
            system_named(row["system"]), row["name"], json.loads(row["settings"])
        ),
        created_by=row["created_by"],
        gm_ids=frozenset(gm["gm_id"] for gm in rows if gm["gm_id"] is not None),
        switches=TableSwitches.from_json(json.loads(row["switches"])),
    )


async def _active_in(connection: Session, channel_id: int) -> Campaign | None:
    return _campaign(await connection.fetch_all(_ACTIVE_CAMPAIGN, (channel_id,)))


async def answer_prompt_in(connection: Session, prompt_id: int, answer: EndAnswer) -> None:
    """Record a confirmation prompt's answer (`/campaign end`'s, a character delete's: each
    prompt is the interaction that asked, so their ids never meet); refuse with
    EndPromptAnswered if it has one already (the first answer stands)."""
    recorded = await connection.execute(
        "INSERT INTO end_prompts (prompt_id, answer) VALUES (?, ?)"
        " ON CONFLICT (prompt_id) DO NOTHING",
        (prompt_id, answer.value),
    )
    if not recorded:
        row = await connection.fetch_one(
            "SELECT answer FROM end_prompts WHERE prompt_id = ?", (prompt_id,)
        )
        assert row is not None
        raise EndPromptAnswered(EndAnswer(row["answer"]))
    await connection.execute(
        "DELETE FROM end_prompts WHERE answered_at < ?", (utc_now(ago=END_ANSWERS_KEPT),)
    )


async def _require_running(connection: Session, campaign: Campaign) -> None:
    row = await connection.fetch_one(
        "SELECT 1 FROM campaigns WHERE id = ? AND ended_at IS NULL", (campaign.id,)
    )
    if row is None:
        raise CampaignEnded(campaign.settings.name)


async def _end(connection: Session, campaign: Campaign, ended_by: int) -> None:
    await _require_running(connection, campaign)
    await connection.execute(
        "UPDATE campaigns SET ended_at = ?, ended_by = ? WHERE id = ?",
        (utc_now(), ended_by, campaign.id),
    )


class CampaignStore:
    """Named operations on campaigns; each runs in one transaction.

    Every command looks up its channel's campaign (some twice), so the running campaign of each
    channel is cached: this store makes every change to campaigns and their GMs, and updates
    the cache when each commits. It holds while one process serves each guild's channels,
    which sharding guarantees (a guild belongs to one shard, a shard to one process), on SQLite
    or PostgreSQL alike; after changing campaigns behind a running bot, call ``forget``.
    """

    def __init__(self, database: Database) -> None:
        self._database = database
        # channel id -> its running campaign (None: none), least recently used first
        self._cache: OrderedDict[int, Campaign | None] = OrderedDict()
        self._changes = 0  # bumped by every change: a read that raced with one isn't cached

    async def active(self, channel_id: int) -> Campaign | None:
        """Return the running campaign of a channel, if any."""
        if channel_id in self._cache:
            self._cache.move_to_end(channel_id)
            return self._cache[channel_id]
        changes = self._changes
        campaign = _campaign(await self._database.fetch_all(_ACTIVE_CAMPAIGN, (channel_id,)))
        if changes == self._changes:
            self._remember(channel_id, campaign)
        return campaign

    def _remember(self, channel_id: int, campaign: Campaign | None) -> None:
        self._cache[channel_id] = campaign
        self._cache.move_to_end(channel_id)
        if len(self._cache) > CACHED_CHANNELS:
            self._cache.popitem(last=False)

    def _changed(self, channel_id: int, campaign: Campaign | None) -> Campaign | None:
        """Record a committed change of the channel's running campaign; return it."""
        self._changes += 1
        self._remember(channel_id, campaign)
        return campaign

    def forget(self) -> None:
        """Drop the cache (after the database was changed by something else)."""
        self._changes += 1
        self._cache.clear()

    async def start(
        self, *, guild_id: int | None, channel_id: int, user_id: int, settings: CampaignSettings
    ) -> Campaign:
        """Start a campaign in a channel with its starter as GM; refuse if one is running."""
        async with self._database.transaction() as connection:
            existing = await _active_in(connection, channel_id)
            if existing is not None:
                raise CampaignAlreadyRunning(existing.system.display_name, existing.settings.name)
            created = await connection.fetch_one(
                "INSERT INTO campaigns (guild_id, channel_id, system, name, settings, created_by)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    guild_id,
                    channel_id,
                    settings.system.value,
                    settings.name,
                    json.dumps(dict(settings.options)),
                    user_id,
                ),
            )
            assert created is not None
            campaign_id = created["id"]
            await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by) VALUES (?, ?, ?)",
                (campaign_id, user_id, user_id),
            )
            campaign = await _active_in(connection, channel_id)
        assert campaign is not None
        self._changed(channel_id, campaign)
        return campaign

    async def add_gm(self, campaign: Campaign, user_id: int, added_by: int) -> Campaign:
        """Make ``user_id`` a co-GM; refuse if they already are one."""
        async with self._database.transaction() as connection:
            await _require_running(connection, campaign)
            added = await connection.execute(
                "INSERT INTO campaign_gms (campaign_id, user_id, added_by)"
                " VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (campaign.id, user_id, added_by),
            )
            if added == 0:
                raise AlreadyGM(user_id)
            updated = await _active_in(connection, campaign.channel_id)
        assert updated is not None
        self._changed(campaign.channel_id, updated)
        return updated

    async def remove_gm(self, campaign: Campaign, user_id: int) -> Campaign:
        """Remove a co-GM; the campaign's founder always stays a GM."""
        if user_id == campaign.created_by:
            raise FounderStaysGM(user_id)
        async with self._database.transaction() as connection:
            await _require_running(connection, campaign)
            removed = await connection.execute(
                "DELETE FROM campaign_gms WHERE campaign_id = ? AND user_id = ?",
                (campaign.id, user_id),
            )
            if removed == 0:
                raise NotCoGM(user_id)
            updated = await _active_in(connection, campaign.channel_id)
        assert updated is not None
        self._changed(campaign.channel_id, updated)
        return updated

    async def set_switches(
        self,
        campaign: Campaign,
        change: Callable[[TableSwitches], TableSwitches],
        *,
        settle: Callable[[CampaignSettings], CampaignSettings] | None = None,
    ) -> Campaign:
        """Apply ``change`` to the campaign's table switches as stored now, and ``settle`` (if
        given) to its settings as stored now; save both."""
        async with self._database.transaction() as connection:
            await _require_running(connection, campaign)
            current = await _active_in(connection, campaign.channel_id)
            assert current is not None
            switches = change(current.switches)
            settings = settle(current.settings) if settle else current.settings
            await connection.execute(
                "UPDATE campaigns SET switches = ?, settings = ? WHERE id = ?",
                (json.dumps(switches.to_json()), json.dumps(dict(settings.options)), campaign.id),
            )
            updated = await _active_in(connection, campaign.channel_id)
        assert updated is not None
        self._changed(campaign.channel_id, updated)
        return updated

    async def drop_gm_channel(self, campaign: Campaign, channel_id: int) -> bool:
        """Stop copying secret rolls to ``channel_id`` if it is still the GM log channel;
        return whether this call stopped it (of several at once, exactly one does)."""
        dropped: list[bool] = []

        def change(switches: TableSwitches) -> TableSwitches:
            dropped.append(switches.gm_channel_id == channel_id)
            return replace(switches, gm_channel_id=None) if dropped[-1] else switches

        try:
            await self.set_switches(campaign, change)
        except CampaignEnded:
            return False
        return dropped[-1]

    async def end(self, campaign: Campaign, ended_by: int) -> None:
        """End a campaign; its rows stay for the audit trail, and the channel is free again."""
        async with self._database.transaction() as connection:
            await _end(connection, campaign, ended_by)
        self._changed(campaign.channel_id, None)

    async def end_prompt_answer(self, prompt_id: int) -> EndAnswer | None:
        """How the `/campaign end` prompt ``prompt_id`` was answered, if it was."""
        row = await self._database.fetch_one(
            "SELECT answer FROM end_prompts WHERE prompt_id = ?", (prompt_id,)
        )
        return None if row is None else EndAnswer(row["answer"])

    async def answer_end_prompt(self, prompt_id: int, answer: EndAnswer) -> None:
        """Record that the prompt was answered without ending (kept, expired); refuse with
        EndPromptAnswered if it was answered before."""
        async with self._database.transaction() as connection:
            await answer_prompt_in(connection, prompt_id, answer)

    async def end_as_answered(self, prompt_id: int, campaign_id: int, ended_by: int) -> Campaign:
        """End the campaign a prompt asked about, and record the prompt's answer, together:
        refused (nothing changed) if the prompt was answered or the campaign has ended."""
        async with self._database.transaction() as connection:
            await answer_prompt_in(connection, prompt_id, EndAnswer.ENDED)
            campaign = _campaign(await connection.fetch_all(_CAMPAIGN_BY_ID, (campaign_id,)))
            if campaign is None:
                raise CampaignEnded(None)
            await _end(connection, campaign, ended_by)
        self._changed(campaign.channel_id, None)
        return campaign

    async def characters(self, campaign: Campaign) -> list[CharacterSummary]:
        """List the campaign's characters by name."""
        rows = await self._database.fetch_all(
            "SELECT id, user_id, name FROM characters WHERE campaign_id = ? ORDER BY lower(name)",
            (campaign.id,),
        )
        return [CharacterSummary(row["id"], row["user_id"], row["name"]) for row in rows]

    async def tracks(self, campaign: Campaign) -> list[TrackSummary]:
        """List the campaign's declared tracks, party tracks first, then by character.

        A track that never changed is listed at its start value.
        """
        rows = await self._database.fetch_all(
            "SELECT name, character_id, value FROM tracks WHERE campaign_id = ?", (campaign.id,)
        )
        stored = {(row["name"], row["character_id"]): row["value"] for row in rows}
        characters = await self._database.fetch_all(
            "SELECT id, name FROM characters WHERE campaign_id = ? ORDER BY lower(name)",
            (campaign.id,),
        )
        specs = declaration(campaign.system).tracks
        party = [
            TrackSummary(spec.name, None, stored.get((spec.name, None), spec.start), spec.maximum)
            for spec in specs
            if spec.party
        ]
        own = [
            TrackSummary(
                spec.name,
                character["name"],
                stored.get((spec.name, character["id"]), spec.start),
                spec.maximum,
            )
            for character in characters
            for spec in specs
            if spec.per_character
        ]
        return party + own
