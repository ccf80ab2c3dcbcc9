"""The traits a GM gives in an Enchanted Realms campaign (docs/players/realms.md, "The reroll is a
trait"), on both backends."""

from __future__ import annotations

import pytest

from bot.storage import Storage
from bot.storage.errors import CampaignEnded
from bot.storage.realms import TraitAlreadyHeld, TraitNotHeld, TraitStore
from rules import realms
from rules.campaigns import CampaignSettings
from rules.realms import Trait

GM = 1


def start(storage: Storage, channel_id: int):
    return storage.campaigns.start(
        guild_id=1,
        channel_id=channel_id,
        user_id=GM,
        settings=CampaignSettings.create(realms.SYSTEM, f"Vale {channel_id}"),
    )


async def test_ruling_realms_reroll_trait_is_granted_and_revoked_per_campaign(
    storage: Storage,
) -> None:
    vale, moor = await start(storage, 10), await start(storage, 11)
    traits = TraitStore(storage.database)
    await traits.grant_trait(vale, 7, Trait.REROLL, GM)
    await traits.grant_trait(vale, 5, Trait.REROLL, GM)
    assert await traits.holders(vale, Trait.REROLL) == [5, 7]
    assert await traits.has_trait(vale, 7, Trait.REROLL)
    assert not await traits.has_trait(moor, 7, Trait.REROLL)  # another campaign: not given there
    assert await traits.holders(moor, Trait.REROLL) == []
    with pytest.raises(TraitAlreadyHeld):
        await traits.grant_trait(vale, 7, Trait.REROLL, GM)
    await traits.revoke_trait(vale, 7, Trait.REROLL)
    assert not await traits.has_trait(vale, 7, Trait.REROLL)
    with pytest.raises(TraitNotHeld):
        await traits.revoke_trait(vale, 7, Trait.REROLL)
    assert await traits.holders(vale, Trait.REROLL) == [5]


async def test_ruling_realms_reroll_trait_of_an_ended_campaign_changes_nothing(
    storage: Storage,
) -> None:
    vale = await start(storage, 10)
    traits = TraitStore(storage.database)
    await traits.grant_trait(vale, 5, Trait.REROLL, GM)
    await storage.campaigns.end(vale, GM)
    with pytest.raises(CampaignEnded):
        await traits.grant_trait(vale, 7, Trait.REROLL, GM)
    with pytest.raises(CampaignEnded):
        await traits.revoke_trait(vale, 5, Trait.REROLL)
    assert await traits.holders(vale, Trait.REROLL) == [5]  # kept, as the campaign's records
