"""`/sixpool` end to end through the fake Discord: characters, spends, rolls, help, odds."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from bot.client import DiceBot
from bot.storage import Character, CharacterStore
from cogs.sixpool import SHEET_CODEC
from rules.randomness import new_rng
from rules.sixpool import Pool, Sheet
from tests.e2e.test_buttons import restarted
from tests.expect import logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

POOLS = {"str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def d20s(seed: int, count: int = 1) -> list[int]:
    """The d20s a seeded generator rolls in one call (as the bot rolls a check)."""
    return [int(face) for face in np.random.default_rng(seed).integers(1, 21, size=count)]


def seed_rolling(predicate: Any, count: int = 1) -> int:
    return next(seed for seed in range(10_000) if predicate(*d20s(seed, count)))


async def start(fake: FakeDiscord, **settings: Any) -> None:
    reply = await fake.invoke(
        "campaign start", {"system": "sixpool", "name": "Six", **settings}, user="gm"
    )
    assert not reply.ephemeral, reply.content


async def create(
    fake: FakeDiscord, name: str = "Rin", level: int = 1, user: str = "player"
) -> Reply:
    options = {"name": name, "level": level, "primary": "DEX", **POOLS}
    return await fake.invoke("sixpool character create", options, user=user)


async def character(fake: FakeDiscord, bot: DiceBot, name: str = "Rin") -> Character[Sheet]:
    campaign = await bot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    return await CharacterStore(bot.storage.database, SHEET_CODEC).find(campaign, name=name)


def fields(reply: Reply) -> dict[str, str]:
    return {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}


async def test_create_and_sheet_show_effort_with_the_primary_bonus(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    created = await create(fake_discord, level=5)
    assert not created.ephemeral
    sheet = await fake_discord.invoke("sixpool character sheet", {}, user="player")
    assert sheet.ephemeral
    assert "proficiency +3 · primary pool DEX" in sheet.embeds[0]["description"]
    pools = fields(sheet)["Pools"].splitlines()
    assert pools[0] == "**STR** 6/6 · Effort 4" and pools[1] == "**DEX** 8/8 · Effort 6"
    twice = await create(fake_discord, "Other")
    assert twice.ephemeral


async def test_ruling_sixpool_check_spends_points_whatever_the_result(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await fake_discord.invoke(
        "sixpool character set", {"skill": "Stealth", "training": "expert"}, user="player"
    )
    seed = seed_rolling(lambda face: 2 <= face <= 10)
    [face] = d20s(seed)
    dicebot.rng = new_rng(seed)
    options = {"pool": "DEX", "dc": 30, "spend": 3, "skill": "stealth"}
    reply = await fake_discord.invoke("sixpool check", options, user="player")
    assert not reply.ephemeral
    total = face + 2 + 2 + 3  # proficiency +2, expert +2, 3 points
    assert reply.embeds[0]["description"] == (
        f"🎲 1d20: **{face}** + 2 [proficiency (stealth)] + 2 [expert training] "
        "+ 3 [3 DEX points spent] vs DC 30 (Nearly Impossible)"
    )
    assert reply.embeds[0]["title"].endswith(f"· Rin: DEX check (stealth) · total {total}")
    assert fields(reply) == {"DEX pool": "3 spent: 5/8 left"}
    assert reply.embeds[0]["title"].startswith("❌")  # failed, and the points are gone
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 5
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "sixpool.check" and logged.payload["result"]["dice"] == [face]


async def test_rule_sixpool_unknown_skill_is_refused_with_the_nearest_names(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    own = "(A skill of your own: train it first with `/sixpool character set skill:`.)"
    for typed, hint in (
        ("Stelth", "Did you mean stealth?"),
        ("hacking", "Pick one of the suggestions while typing."),
    ):
        cases: list[tuple[str, dict[str, object]]] = [
            ("sixpool check", {"pool": "DEX", "dc": 10, "spend": 2, "skill": typed}),
            ("sixpool passive", {"pool": "DEX", "skill": typed}),
            ("sixpool take", {"pool": "DEX", "dc": 10, "value": 10, "skill": typed}),
        ]
        for command, options in cases:
            refused = await fake_discord.invoke(command, options, user="player")
            assert refused.ephemeral
            expected = f"There is no skill '{typed.lower()}' on the sheet or in the six-pool list."
            assert refused.content == f"❌ {expected} {hint} {own}", command
    assert await dicebot.storage.rolls.get(1) is None  # nothing rolled or logged
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 8  # none spent
    # A skill of the sheet's own, and one of the document's it doesn't train, are rolled.
    await fake_discord.invoke(
        "sixpool character set", {"skill": "Hacking", "training": "trained"}, user="player"
    )
    for skill in ("hacking", "Sleight of Hand"):
        asked = {"pool": "DEX", "dc": 10, "skill": skill}
        reply = await fake_discord.invoke("sixpool check", asked, user="player")
        assert not reply.ephemeral, reply.content
    # A trained-only skill of the GM's own is known: an untrained check is refused by that rule.
    await fake_discord.invoke("sixpool trained_only", {"skill": "Sailing"}, user="gm")
    sailing = {"pool": "DEX", "dc": 10, "skill": "sailing"}
    refused = await fake_discord.invoke("sixpool check", sailing, user="player")
    assert refused.ephemeral and "Trained-only skill: sailing" in refused.content


async def test_spends_above_effort_or_the_pool_are_refused_and_nothing_changes(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    over = await fake_discord.invoke(
        "sixpool check", {"pool": "STR", "dc": 10, "spend": 4}, user="player"
    )
    assert over.ephemeral and "at most 3 points per roll from STR" in over.content
    for _ in range(2):
        await fake_discord.invoke(
            "sixpool save", {"pool": "CHA", "dc": 10, "spend": 1}, user="player"
        )
    dry = await fake_discord.invoke(
        "sixpool save", {"pool": "CHA", "dc": 10, "spend": 2}, user="player"
    )
    assert dry.ephemeral and "CHA has 1 points left; you asked for 2" in dry.content
    sheet = (await character(fake_discord, dicebot)).sheet
    assert (sheet.points(Pool.STR), sheet.points(Pool.CHA)) == (6, 1)
    assert await dicebot.storage.rolls.get(3) is None


async def test_ruling_sixpool_naturals_and_non_stacking_advantage(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    dicebot.rng = new_rng(seed_rolling(lambda face: face == 20))
    natural = await fake_discord.invoke("sixpool attack", {"pool": "STR", "ac": 40}, user="player")
    assert natural.embeds[0]["title"].startswith("✨ NATURAL 20 · Success")
    both = await fake_discord.invoke(
        "sixpool check", {"pool": "STR", "dc": 10, "advantage": True, "disadvantage": True},
        user="player",
    )  # fmt: skip
    assert both.embeds[0]["description"].startswith("🎲 1d20:")
    assert "cancel" in both.embeds[0]["description"].split("\n")[1]


async def test_ruling_sixpool_help_gives_advantage_consumed_by_the_next_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await create(fake_discord, "Gm's Ally", user="gm")
    helped = await fake_discord.invoke(
        "sixpool help", {"user": fake_discord.users["player"]}, user="gm"
    )
    assert not helped.ephemeral and "advantage on the next roll" in helped.embeds[0]["title"]
    seed = seed_rolling(lambda a, b: a != b, 2)
    dicebot.rng = new_rng(seed)
    first = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 5}, user="player")
    assert first.embeds[0]["description"].startswith("🎲 2d20, keep the higher (advantage): ")
    assert f"**{max(d20s(seed, 2))}**" in first.embeds[0]["description"]
    second = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 5}, user="player")
    assert second.embeds[0]["description"].startswith("🎲 1d20:")
    self_help = await fake_discord.invoke(
        "sixpool help", {"user": fake_discord.users["player"]}, user="player"
    )
    assert self_help.ephemeral and "can't help yourself" in self_help.content


async def test_ruling_sixpool_inspiration_one_at_a_time_spent_for_advantage(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    player = fake_discord.users["player"]
    refused = await fake_discord.invoke("sixpool inspire", {"user": player}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    await fake_discord.invoke("sixpool inspire", {"user": player}, user="gm")
    again = await fake_discord.invoke("sixpool inspire", {"user": player}, user="gm")
    assert again.ephemeral and "one at a time" in again.content
    spent = await fake_discord.invoke(
        "sixpool save", {"pool": "WIS", "dc": 12, "inspiration": True}, user="player"
    )
    assert spent.embeds[0]["description"].startswith("🎲 2d20, keep the higher")
    assert not (await character(fake_discord, dicebot)).sheet.inspired
    none_left = await fake_discord.invoke(
        "sixpool save", {"pool": "WIS", "dc": 12, "inspiration": True}, user="player"
    )
    assert none_left.ephemeral and "no inspiration" in none_left.content


async def test_ruling_sixpool_edge_b_at_campaign_start(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, edge_option="B")
    await create(fake_discord)
    await fake_discord.invoke("sixpool character set", {"pool": "DEX", "edge": 2}, user="player")
    reply = await fake_discord.invoke(
        "sixpool check", {"pool": "DEX", "dc": 10, "spend": 4}, user="player"
    )
    # Edge 2, option B: the first 3 points are worth +2, the fourth +1: +7.
    assert (
        " + 7 [4 DEX points spent (Edge 2, option B)] vs DC 10 ("
        in (reply.embeds[0]["description"])
    )
    assert fields(reply)["DEX pool"] == "4 spent: 4/8 left"
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert "Edge option: B" in str(info.embeds[0])


async def test_take_passive_and_rest(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await fake_discord.invoke(
        "sixpool character set", {"skill": "perception", "training": "trained"}, user="player"
    )
    took = await fake_discord.invoke(
        "sixpool take", {"pool": "WIS", "dc": 22, "value": 20, "skill": "Perception"}, user="player"
    )
    assert took.embeds[0]["description"] == (
        "🎲 take 20 (no die rolled) + 2 [proficiency (perception)] vs DC 22 (Hard–Very Hard)"
    )
    assert took.embeds[0]["title"].endswith("· Rin: WIS check (perception) · total 22")
    assert took.embeds[0]["title"].startswith("✅ Success")  # not a natural 20
    spending = await fake_discord.invoke(
        "sixpool take", {"pool": "WIS", "dc": 22, "value": 20, "spend": 1}, user="player"
    )
    assert spending.ephemeral and "spends no pool points" in spending.content
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.WIS) == 4
    passive = await fake_discord.invoke(
        "sixpool passive", {"pool": "WIS", "skill": "perception"}, user="player"
    )
    assert passive.embeds[0]["title"] == "Rin: passive perception 12"
    await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 5, "spend": 5}, user="player")
    refused = await fake_discord.invoke("sixpool rest", {}, user="player")
    assert refused.ephemeral
    await fake_discord.invoke("sixpool rest", {}, user="gm")
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 8


async def test_odds_show_exact_chances_per_point_and_a_chart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("sixpool odds", {"modifier": 0, "dc": 15})
    embed = reply.embeds[0]
    assert embed["description"].startswith("Success **30.00%**")  # 15-20 of 20
    per_point = fields(reply)["Success by points spent (+1 each)"].splitlines()
    assert per_point[:2] == ["0 points: 30.00%", "1 point: 35.00% (+5.00%)"]
    name, png = reply.attachments[0]
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)


async def test_hundred_concurrent_spends_never_overspend_one_pool(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)  # DEX 8
    replies = await asyncio.gather(
        *(
            fake_discord.send("sixpool check", {"pool": "DEX", "dc": 10, "spend": 1}, user="player")
            for _ in range(100)
        )
    )
    await fake_discord.wait_answered(replies)
    assert sum(not reply.ephemeral for reply in replies) == 8
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 0
    logged = [await logged_roll(dicebot.storage, n) for n in range(1, 9)]
    lefts = sorted(
        {field["name"]: field["value"] for field in roll.payload["embed"]["fields"]}["DEX pool"]
        for roll in logged
    )
    assert lefts == sorted(f"1 spent: {n}/8 left" for n in range(8))
    assert await dicebot.storage.rolls.get(9) is None


async def test_sixpool_commands_need_a_sixpool_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "sinew", "name": "Iron"}, user="gm")
    reply = await create(fake_discord)
    assert reply.ephemeral and "Six-pool" in reply.content


async def test_character_set_refuses_bad_mixes(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    await create(fake_discord)
    for options, message in (
        ({}, "Say what to change"),
        ({"edge": 2}, "give `pool` too"),
        ({"pool": "DEX"}, "say what changes"),
        ({"skill": "stealth"}, "go together"),
    ):
        reply = await fake_discord.invoke("sixpool character set", options, user="player")
        assert reply.ephemeral and message in reply.content, reply.content
    ok = await fake_discord.invoke(
        "sixpool character set", {"pool": "CON", "save": "trained", "level": 9}, user="player"
    )
    assert not ok.ephemeral
    sheet = (await character(fake_discord, dicebot)).sheet
    assert sheet.level == 9 and sheet.save_training(Pool.CON).value == "trained"


# --- contests


async def test_contest_against_a_modifier_rolls_both_and_spends(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    seed = seed_rolling(lambda a, b: a + 2 != b + 4, 2)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sixpool contest", {"pool": "DEX", "vs_modifier": 4, "spend": 2}, user="player"
    )
    ours, theirs = d20s(seed, 1)[0], None
    rng = np.random.default_rng(seed)
    ours = int(rng.integers(1, 21, size=1)[0])
    theirs = int(rng.integers(1, 21, size=1)[0])
    winner = "Rin" if ours + 2 > theirs + 4 else "Opponent"
    assert reply.embeds[0]["title"].startswith(f"{'✅' if winner == 'Rin' else '❌'} {winner} wins")
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 6


async def contest_sent(fake: FakeDiscord, spend: int = 2) -> tuple[Reply, dict[str, Any]]:
    await start(fake)
    await create(fake)
    await create(fake, "Vex", user="gm")
    sent = await fake.invoke(
        "sixpool contest",
        {"pool": "DEX", "vs_user": fake.users["gm"], "vs_pool": "WIS", "spend": spend},
        user="player",
    )
    [prompt] = await fake.wait_channel_messages(fake.channel_id)
    return sent, prompt


async def test_ruling_sixpool_contest_defender_declares_privately_then_both_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    sent, prompt = await contest_sent(fake_discord)
    assert sent.ephemeral and "your spend (2) stays secret" in sent.content
    assert prompt["embeds"][0]["title"] == "⚔️ Rin challenges you: DEX vs WIS"
    assert "(2)" not in str(prompt)  # the challenger's spend is not shown
    message = fake_discord.channel_message(fake_discord.channel_id, prompt["id"])
    stranger = await fake_discord.click(message, "sixpool:contest:1", user="player")
    assert stranger.ephemeral and "declares a spend in this contest" in stranger.content
    choice = await fake_discord.click(message, "sixpool:contest:1", user="gm")
    assert choice.ephemeral and "Effort and your pool allow 3" in choice.content
    second = await fake_discord.click(message, "sixpool:contest:1", user="gm")  # another tab
    seed = 11
    dicebot.rng = new_rng(seed)
    picked = await fake_discord.click(choice, "sixpool:spend:1:3", user="gm", values=["1"])
    assert "You spend 1" in picked.content
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    result = posted[1]["embeds"][0]
    rng = np.random.default_rng(seed)
    ours, theirs = (int(rng.integers(1, 21, size=1)[0]) for _ in range(2))
    winner = "Rin" if ours + 2 > theirs + 1 else "Vex"  # a tie goes to the defender
    assert result["title"].startswith(f"{'✅' if winner == 'Rin' else '❌'} {winner} wins")
    # Two pools spent: each named by whose it is (issue 37, found 5).
    names = [field["name"] for field in result["fields"]]
    assert "Rin's DEX pool" in names and "Vex's WIS pool" in names
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 6
    assert (await character(fake_discord, dicebot, "Vex")).sheet.points(Pool.WIS) == 3
    assert message.custom_ids() == []  # the prompt's button is gone
    # ... and it no longer asks anyone to declare (issue 37, found 5)
    [settled_prompt] = message.embeds
    assert settled_prompt["title"] == "⚔️ Contest settled"
    assert settled_prompt["description"] == (  # each side its own roll, the challenger's first
        "Both declared: the dice are rolled (rolls #1 and #2, in the channel)."
    )
    assert not message.content
    again = await fake_discord.click(second, "sixpool:spend:1:3", user="gm", values=["3"])
    assert again.ephemeral and "settled already" in again.content
    assert (await character(fake_discord, dicebot, "Vex")).sheet.points(Pool.WIS) == 3


async def test_contest_times_out_cleanly_with_nothing_spent(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    _, prompt = await contest_sent(fake_discord)
    campaign = await dicebot.storage.campaigns.active(fake_discord.channel_id)
    assert campaign is not None
    async with dicebot.storage.database.transaction() as connection:  # ten minutes pass
        await connection.execute("UPDATE sixpool_contests SET expires_at = 0")
    message = fake_discord.channel_message(fake_discord.channel_id, prompt["id"])
    late = await fake_discord.click(message, "sixpool:contest:1", user="gm")
    assert late.ephemeral and "expired: nothing was spent" in late.content
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 8
    assert (await dicebot.storage.rolls.get(1)) is None


async def test_contest_prompt_survives_a_restart_and_refuses_yourself(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    _, prompt = await contest_sent(fake_discord)
    yourself = await fake_discord.invoke(
        "sixpool contest", {"pool": "DEX", "vs_user": fake_discord.users["player"]},
        user="player",
    )  # fmt: skip
    assert yourself.ephemeral and "can't contest yourself" in yourself.content
    async with restarted(fake_discord, dicebot, seed=4):
        message = fake_discord.channel_message(fake_discord.channel_id, prompt["id"])
        choice = await fake_discord.click(message, "sixpool:contest:1", user="gm")
        assert choice.ephemeral and "allow 3" in choice.content


# --- group checks


async def group_started(fake: FakeDiscord) -> Reply:
    await start(fake)
    await create(fake)  # Rin, the player's
    await create(fake, "Vex", user="gm")
    started = await fake.invoke("sixpool group", {"dc": 10, "pool": "DEX"}, user="gm")
    assert not started.ephemeral
    assert started.original.custom_ids() == ["sixpool:group:1:roll", "sixpool:group:1:close"]
    return started


async def shows_rolls(fake: FakeDiscord, group: Reply, heading: str) -> None:
    """Wait until the group check's message (edited after each roll) shows ``heading``."""
    await fake.wait_until(
        lambda: group.embeds[0]["fields"][-1]["name"] == heading, f"the group to show {heading}"
    )


async def roll_in_group(
    fake: FakeDiscord, bot: DiceBot, group: Reply, user: str, seed: int, spend: int = 0
) -> Reply:
    choice = await fake.click(group, "sixpool:group:1:roll", user=user)
    assert choice.ephemeral, choice.content
    most = choice.original.custom_ids()[0].rsplit(":", 1)[1]
    bot.rng = new_rng(seed)
    return await fake.click(choice, f"sixpool:groupspend:1:{most}", user=user, values=[str(spend)])


async def test_ruling_sixpool_group_half_rule_with_a_roll_button_and_gm_close(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    group = await group_started(fake_discord)
    passing = seed_rolling(lambda face: 10 <= face < 20)
    failing = seed_rolling(lambda face: 1 < face < 8)
    rolled = await roll_in_group(fake_discord, dicebot, group, "player", failing, spend=2)
    assert rolled.embeds[0]["title"].startswith("❌")
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 6
    twice = await fake_discord.click(group, "sixpool:group:1:roll", user="player")
    assert twice.ephemeral and "rolled in this group check already" in twice.content
    await roll_in_group(fake_discord, dicebot, group, "gm", passing)
    await shows_rolls(fake_discord, group, "Rolls (1/2 succeeded)")
    refused = await fake_discord.click(group, "sixpool:group:1:close", user="player")
    assert refused.ephemeral and "GM" in refused.content
    closed = await fake_discord.click(group, "sixpool:group:1:close", user="gm")
    assert closed.ephemeral and closed.content == "Closed: 1 of 2 succeeded."
    # The close is one edit of the check's own message, not also a new post.
    assert group.embeds[0]["description"].startswith(
        "**The group succeeds**: 1 of 2 succeeded (at least half must)."
    )
    assert group.original.custom_ids() == []
    await asyncio.sleep(0.05)
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_ruling_sixpool_leader_boost_only_before_any_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    group = await group_started(fake_discord)
    boosted = await fake_discord.invoke(
        "sixpool boost", {"user": fake_discord.users["player"], "points": 2}, user="gm"
    )
    assert not boosted.ephemeral and "+2 on Rin's roll" in boosted.content
    assert (await character(fake_discord, dicebot, "Vex")).sheet.points(Pool.DEX) == 6
    second = await fake_discord.invoke(
        "sixpool boost", {"user": fake_discord.users["gm"], "points": 1}, user="player"
    )
    assert second.ephemeral and "one leader, one boost" in second.content
    seed = seed_rolling(lambda face: 2 <= face <= 19)
    rolled = await roll_in_group(fake_discord, dicebot, group, "player", seed)
    assert rolled.embeds[0]["description"].startswith(
        f"🎲 1d20: **{d20s(seed)[0]}** + 2 [the leader's boost] vs DC "
    )
    assert rolled.embeds[0]["title"].endswith(f" · total {d20s(seed)[0] + 2}")


async def test_boost_after_rolls_began_is_refused_and_nothing_spent(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    group = await group_started(fake_discord)
    await roll_in_group(fake_discord, dicebot, group, "player", 3)
    late = await fake_discord.invoke(
        "sixpool boost", {"user": fake_discord.users["player"], "points": 2}, user="gm"
    )
    assert late.ephemeral and "Too late to boost" in late.content
    assert (await character(fake_discord, dicebot, "Vex")).sheet.points(Pool.DEX) == 8


async def test_group_check_survives_a_restart_and_times_out(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    group = await group_started(fake_discord)
    async with restarted(fake_discord, dicebot, seed=8) as bot:
        await roll_in_group(fake_discord, bot, group, "player", 5)
        await shows_rolls(fake_discord, group, f"Rolls ({int(d20s(5)[0] >= 10)}/1 succeeded)")
        async with bot.storage.database.transaction() as connection:  # half an hour passes
            await connection.execute("UPDATE sixpool_groups SET expires_at = 0")
        late = await fake_discord.click(group, "sixpool:group:1:roll", user="gm")
        assert late.ephemeral and "is closed" in late.content
        assert "of 1 succeeded" in group.embeds[0]["description"]  # edited, not posted anew
        assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_ruling_sixpool_inspiration_rerolls_one_die_by_button_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await fake_discord.invoke("sixpool inspire", {"user": fake_discord.users["player"]}, user="gm")
    dicebot.rng = new_rng(seed_rolling(lambda a, b: a != b, 2))
    old = await fake_discord.invoke(
        "sixpool check", {"pool": "DEX", "dc": 15, "disadvantage": True}, user="player"
    )
    assert old.original.custom_ids() == ["roll:again:1", "sixpool:reroll:1:0", "sixpool:reroll:1:1"]
    stranger = await fake_discord.click(old, "sixpool:reroll:1:0", user="gm")
    assert stranger.ephemeral and "who made roll #1, can reroll" in stranger.content
    reply = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 15}, user="player")
    assert reply.original.custom_ids() == ["roll:again:2", "sixpool:reroll:2:0"]
    # The older roll's die buttons no longer apply: its message loses them (issue 37).
    await fake_discord.wait_until(
        lambda: old.original.custom_ids() == ["roll:again:1"], "roll #1's reroll buttons to go"
    )
    from tests.e2e.test_secrecy import forged  # test_secrecy imports this module

    replayed = forged(fake_discord, fake_discord.channel_id, "sixpool:reroll:1:1")
    superseded = await fake_discord.click(replayed, "sixpool:reroll:1:1", user="player")
    assert superseded.ephemeral and "no longer your latest roll" in superseded.content
    seed = 21
    dicebot.rng = new_rng(seed)
    pressed = await fake_discord.click(reply, "sixpool:reroll:2:0", user="player")
    [new_face] = d20s(seed)
    note = pressed.embeds[0]["description"].split("\n")[1]
    assert note.startswith("Inspiration spent: die 1 rerolled, ") and note.endswith(
        f"→ {new_face}."
    )
    assert f"**{new_face}**" in pressed.embeds[0]["description"]
    # Inspiration is spent: no more die rerolls, only Roll again.
    assert pressed.original.custom_ids() == ["roll:again:3"]
    assert not (await character(fake_discord, dicebot)).sheet.inspired
    logged = await logged_roll(dicebot.storage, 3)
    assert logged.kind == "sixpool.check" and logged.payload["result"]["dice"] == [new_face]


async def test_a_contest_in_a_channel_that_refuses_the_bot_is_played_through_followups(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Nothing depends on the bot being able to post in the channel (docs/players/index.md, "Where
    # commands work"): the defender's prompt and the result come as public followups instead.
    fake = fake_discord
    await start(fake)
    await create(fake)
    await create(fake, "Vex", user="gm")
    fake.muted_channels.add(fake.channel_id)
    options = {"pool": "DEX", "vs_user": fake.users["gm"], "vs_pool": "WIS", "spend": 2}
    sent = await fake.invoke("sixpool contest", options, user="player")
    assert sent.ephemeral and "your spend (2) stays secret" in sent.content
    [prompt] = await fake.wait_followups(sent)
    assert not prompt.ephemeral and prompt.content == f"<@{fake.users['gm'].id}>"
    assert prompt.embeds[0]["title"] == "⚔️ Rin challenges you: DEX vs WIS"
    choice = await fake.click(prompt, "sixpool:contest:1", user="gm")
    assert choice.ephemeral and "Effort and your pool allow 3" in choice.content
    picked = await fake.click(choice, "sixpool:spend:1:3", user="gm", values=["1"])
    assert "You spend 1" in picked.content
    [result] = await fake.wait_followups(picked)
    assert not result.ephemeral and " wins" in result.embeds[0]["title"]
    assert fake.channel_messages(fake.channel_id) == []
    assert (await character(fake, dicebot)).sheet.points(Pool.DEX) == 6
    assert (await character(fake, dicebot, "Vex")).sheet.points(Pool.WIS) == 3
