"""What a test expects storage to hold: the row itself, or an AssertionError naming what's missing.

``RollLog.get`` and ``CampaignStore.active`` answer None for a missing row; a test that expects
the row reads it through these, so a missing one fails the test where it is read.
"""

from __future__ import annotations

from bot.storage import Campaign, LoggedRoll, Storage


async def logged_roll(storage: Storage, roll_id: int) -> LoggedRoll:
    """Return the logged roll ``roll_id``, which the test expects to exist."""
    roll = await storage.rolls.get(roll_id)
    assert roll is not None, f"roll #{roll_id} is not logged"
    return roll


async def active_campaign(storage: Storage, channel_id: int) -> Campaign:
    """Return the channel's running campaign, which the test expects to exist."""
    campaign = await storage.campaigns.active(channel_id)
    assert campaign is not None, f"no campaign runs in channel {channel_id}"
    return campaign
