"""Renders of lists that grow with use, built from objects at their limits: what Discord would
accept (``tests.fakediscord.limits``), ending with "…and N more" when not everything fits.

The end-to-end tests (tests/e2e/test_growing_lists.py) fill lists through commands and storage;
these are the ones a test can't fill quickly that way: a recap of many players with every count
a tally has, and a group check many players rolled in.
"""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.recap import MAX_PLAYER_FIELDS, recap_embed
from bot.render.sixpool import group_check
from bot.render.style import joined
from bot.storage.sixpool import GroupCheck, GroupRoll
from rules.recap import Recap, RecapRoll, Tally
from tests.fakediscord.limits import EMBEDS_TOTAL_MAX, message_problems

NAME_MAX = 32  # a Discord display name
LONG = 10**15  # roll ids and totals as long as a long campaign's


def accepted(embed: discord.Embed) -> dict[str, object]:
    """The embed as sent, after checking Discord would take it."""
    sent = embed.to_dict()
    assert message_problems({"embeds": [sent]}) == []
    return dict(sent)


def size(embed: dict[str, object]) -> int:
    """The characters an embed counts against Discord's 6,000."""
    fields = embed.get("fields", [])
    assert isinstance(fields, list)
    footer = embed.get("footer", {})
    assert isinstance(footer, dict)
    texts = [embed.get("title", ""), embed.get("description", ""), footer.get("text", "")]
    texts += [part for field in fields for part in (field["name"], field["value"])]
    return sum(len(str(text)) for text in texts)


def full_tally(user_id: int | None) -> Tally:
    """A player who did everything a recap counts, many times over."""
    roll = RecapRoll(LONG + 1, user_id or 0, "dice", total=LONG, chance=Fraction(1, 10**6))
    return Tally(
        user_id, rolls=1999, criticals=999, fumbles=999, luck_spends=999, pressure=999,
        crises=999, contests_won=999, contests_lost=999, challenges_won=999,
        challenges_lost=999, scored=1999, luck=Fraction(1, 3), biggest=roll, unlikeliest=roll,
    )  # fmt: skip


def test_recap_of_many_busy_players_stays_within_6000_and_counts_the_players_left_out() -> None:
    players = 30
    made = Recap(
        first_id=1,
        last_id=LONG,
        players=tuple(full_tally(user_id) for user_id in range(1, players + 1)),
        table=full_tally(None),
    )
    # Names all markup: each shows escaped, twice as long.
    names = {user_id: f"{user_id:02d}" + "_" * (NAME_MAX - 2) for user_id in range(1, players + 1)}
    sent = accepted(recap_embed(made, names, gm_view=True, capped=True))
    assert size(sent) <= EMBEDS_TOTAL_MAX
    fields = sent["fields"]
    assert isinstance(fields, list)
    *player_fields, last = fields
    assert 1 <= len(player_fields) < MAX_PLAYER_FIELDS  # 20 such players would pass 6,000
    assert last == {
        "name": "…",
        "value": f"and {players - len(player_fields)} more players",
        "inline": True,
    }
    assert [field["name"] for field in player_fields] == [
        f"{n:02d}" + "\\_" * (NAME_MAX - 2) for n in range(1, len(player_fields) + 1)
    ]


def test_recap_of_a_few_players_shows_each() -> None:
    made = Recap(1, 2, (full_tally(1), full_tally(2)), full_tally(None))
    sent = accepted(recap_embed(made, {1: "Wren", 2: "Bo"}, gm_view=False))
    fields = sent["fields"]
    assert isinstance(fields, list)
    assert [field["name"] for field in fields] == ["Wren", "Bo"]


def test_group_check_many_players_rolled_in_lists_what_fits_then_counts_the_rest() -> None:
    players = 40
    rolls = tuple(
        GroupRoll(n, f"{n:02d}" + "*" * 58, LONG + n, 30, n % 2 == 0) for n in range(players)
    )
    group = GroupCheck(
        id=1, campaign_id=1, channel_id=1, dc=15, pool="DEX", skill="s" * 40, status="closed",
        expires_at=0.0, message_id=None, leader_id=None, boosted_id=None, boost=0, rolls=rolls,
    )  # fmt: skip
    sent = accepted(group_check(group))
    fields = sent["fields"]
    assert isinstance(fields, list)
    [rolled] = fields
    assert rolled["name"] == f"Rolls ({players // 2}/{players} succeeded)"
    *lines, last = rolled["value"].split("\n")
    assert last == f"…and {players - len(lines)} more rolls"
    assert all(line.endswith(f"(roll #{LONG + n})") for n, line in enumerate(lines))


def test_joined_keeps_whole_items_and_counts_the_rest() -> None:
    items = [f"item {n}" for n in range(10)]  # 6 characters each
    assert joined(items[:2], 14) == "item 0, item 1"
    text = joined(items, 30, more="more items")
    # "item 0, item 1, …and 8 more items" is 33: one item fewer fits with the count after it.
    assert text == "item 0, …and 9 more items" and len(text) <= 30
    assert joined(items, 40, sep=" · ") == "item 0 · item 1 · item 2 · …and 7 more"
    for limit in range(1, 80):
        assert len(joined(items, limit)) <= limit
