"""`RollLog.page`: a page of a campaign's roll log either way from a boundary id, and whether
rolls lie beyond each end, for the asker's view (docs/gms.md, "The roll log")."""

from __future__ import annotations

from bot.storage import RollEntry, RollPage, Storage, Visibility
from tests.storage.test_storage import CHANNEL, GM, PLAYER, start_campaign


def ids(page: RollPage) -> list[int]:
    return [roll.id for roll in page.rolls]


async def log_rolls(storage: Storage, campaign_id: int) -> list[int]:
    """Seven rolls: the GM's 3rd is hidden, the GM's 6th public, the rest the player's."""
    made = []
    for number in range(1, 8):
        user, visibility = PLAYER, Visibility.PUBLIC
        if number in (3, 6):
            user = GM
            visibility = Visibility.HIDDEN if number == 3 else Visibility.PUBLIC
        entry = RollEntry(campaign_id, 1, CHANNEL, user, "dice", visibility, {"result": {}})
        made.append(await storage.rolls.record(entry))
    return made


async def test_pages_turn_both_ways_from_their_boundary_and_know_their_ends(
    storage: Storage,
) -> None:
    campaign = await start_campaign(storage)
    r = await log_rolls(storage, campaign.id)
    newest = await storage.rolls.page(campaign.id, limit=2)
    assert (ids(newest), newest.older, newest.newer) == ([r[6], r[5]], True, False)
    older = await storage.rolls.page(campaign.id, before=r[5], limit=2)
    assert (ids(older), older.older, older.newer) == ([r[4], r[3]], True, True)
    # A player's view skips the GM's hidden 3rd roll.
    oldest = await storage.rolls.page(campaign.id, before=r[3], limit=2)
    assert (ids(oldest), oldest.older, oldest.newer) == ([r[1], r[0]], False, True)
    back = await storage.rolls.page(campaign.id, after=r[1], limit=2)
    assert (ids(back), back.older, back.newer) == ([r[4], r[3]], True, True)
    gm_view = await storage.rolls.page(campaign.id, after=r[1], include_secret=True, limit=2)
    assert ids(gm_view) == [r[3], r[2]]
    players = await storage.rolls.page(campaign.id, after=r[4], user_id=PLAYER, limit=2)
    assert (ids(players), players.older, players.newer) == ([r[6]], True, False)
    beyond = await storage.rolls.page(campaign.id, before=r[0], limit=2)
    assert (ids(beyond), beyond.older, beyond.newer) == ([], False, False)
