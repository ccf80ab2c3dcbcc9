"""Six-pool d20's trained-only skills in storage, on both backends: listed and unlisted in one
transaction each, N at once ending in the serial result (docs/players/sixpool.md, "Rules notes")."""

from __future__ import annotations

from bot.storage import Storage
from bot.storage.sixpool import TrainedOnlyStore
from rules import sixpool
from rules.campaigns import CampaignSettings
from tests.storage.concurrency import fire, succeeded

CHANNEL = 7101
N = 30


async def campaign_of(storage: Storage, channel_id: int = CHANNEL):
    return await storage.campaigns.start(
        guild_id=1,
        channel_id=channel_id,
        user_id=1,
        settings=CampaignSettings.create(sixpool.SYSTEM, f"Six {channel_id}"),
    )


async def test_trained_only_skills_are_none_by_default_and_kept_per_campaign(
    storage: Storage,
) -> None:
    store = TrainedOnlyStore(storage.database)
    first, second = await campaign_of(storage), await campaign_of(storage, CHANNEL + 1)
    assert await store.skills(first) == frozenset()
    assert await store.set(first, "arcana", True) == {"arcana"}
    assert await store.set(first, "arcana", True) == {"arcana"}  # listing twice: once
    assert await store.skills(second) == frozenset()
    assert await store.set(first, "medicine", True) == {"arcana", "medicine"}
    assert await store.set(first, "arcana", False) == {"medicine"}
    assert await store.set(first, "arcana", False) == {"medicine"}  # unlisting twice: no error


async def test_concurrent_trained_only_lists_end_in_the_serial_result(storage: Storage) -> None:
    store = TrainedOnlyStore(storage.database)
    campaign = await campaign_of(storage)
    skills = ("arcana", "medicine", "history")
    succeeded(await fire(N, lambda n: store.set(campaign, skills[n % 3], True)))
    assert await store.skills(campaign) == set(skills)
    # N at once: half unlist arcana, half list it again; the last word is one of them and
    # the other skills are untouched (no lost update, no duplicate row).
    outcomes = succeeded(await fire(N, lambda n: store.set(campaign, "arcana", n % 2 == 0)))
    assert len(outcomes) == N
    assert await store.skills(campaign) - {"arcana"} == {"medicine", "history"}
    succeeded(await fire(N, lambda n: store.set(campaign, skills[n % 3], False)))
    assert await store.skills(campaign) == frozenset()
