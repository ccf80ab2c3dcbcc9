"""Two bot processes on one PostgreSQL database (issue 24): each has its own connection pool,
as two shards' processes do; their concurrent changes end in exactly the serial state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest

from bot.config import DatabaseLocation
from bot.storage import Campaign, CharacterStore, Storage
from bot.storage.errors import TrackOutOfRange
from bot.storage.tracks import track_spec
from rules import sinew
from rules.campaigns import CampaignSettings
from rules.errors import RulesError

CHANNEL, GM, PLAYER = 9001, 1, 2
SPENDS = 500


@pytest.fixture
async def two_pools(migrated_postgres_url: str) -> AsyncIterator[tuple[Storage, Storage]]:
    location = DatabaseLocation.postgresql(migrated_postgres_url)
    first = await Storage.open(location)
    second = await Storage.open(location)
    yield first, second
    await first.close()
    await second.close()


async def sinew_campaign(storage: Storage) -> Campaign:
    return await storage.campaigns.start(
        guild_id=1, channel_id=CHANNEL, user_id=GM,
        settings=CampaignSettings.create(sinew.SYSTEM, "Iron Age"),
    )  # fmt: skip


async def test_500_luck_spends_through_two_pools_lose_nothing_and_never_go_negative(
    two_pools: tuple[Storage, Storage],
) -> None:
    campaign = await sinew_campaign(two_pools[0])
    sheet = sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)
    stores = [CharacterStore(storage.database, sinew.SHEET_CODEC) for storage in two_pools]
    brakka = await stores[0].create(campaign, PLAYER, "Brakka", sheet)
    seen: list[int] = []

    def spend_one(current: sinew.Sheet) -> sinew.Sheet:
        seen.append(current.luck_tokens)  # what each spend found, as stored then
        return replace(current, luck_tokens=current.luck_tokens - 1)  # below 0: RulesError

    async def spend(number: int) -> bool:
        try:
            await stores[number % 2].update(brakka, spend_one)
        except RulesError:
            return False
        return True

    outcomes = await asyncio.gather(*(spend(n) for n in range(SPENDS)))
    # Serially: the first ten spends pay one token each (10 → 0), every later one is refused.
    assert outcomes.count(True) == sheet.luck_tokens == 10
    assert sorted(found for found in seen if found > 0) == list(range(1, 11))  # each once
    assert all(found >= 0 for found in seen)
    for store in stores:  # both processes read the same, final state
        assert (await store.find(campaign, user_id=PLAYER)).sheet.luck_tokens == 0


async def test_500_pressure_adds_through_two_pools_stop_exactly_at_the_maximum(
    two_pools: tuple[Storage, Storage],
) -> None:
    one, _ = two_pools
    campaign = await sinew_campaign(one)
    spec = track_spec(campaign, "pressure", on_character=False)

    async def add(number: int) -> int | None:
        try:
            change = await two_pools[number % 2].tracks.change(campaign, spec.name, 1)
        except TrackOutOfRange:
            return None
        return change.after

    afters = await asyncio.gather(*(add(n) for n in range(SPENDS)))
    assert sorted(a for a in afters if a is not None) == list(range(1, spec.maximum + 1))
    assert afters.count(None) == SPENDS - spec.maximum
    assert await one.tracks.value(campaign, spec.name) == spec.maximum


async def test_500_rolls_of_one_user_through_two_pools_are_each_counted_once(
    two_pools: tuple[Storage, Storage],
) -> None:
    # The shared roll rate limit: two processes count one user's rolls in one window.
    counted = await asyncio.gather(
        *(two_pools[n % 2].roll_windows.count_roll(PLAYER, 1_000, 10_000) for n in range(500))
    )
    assert sorted(window.rolls for window in counted) == list(range(1, 501))
