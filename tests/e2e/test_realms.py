"""`/realms` end to end: attacks, checks, stealth, spells, rerolls, odds."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bot.client import DiceBot
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.expect import logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def d20s(seed: int, count: int) -> list[int]:
    return [int(f) for f in np.random.default_rng(seed).integers(1, 21, size=count)]


def seed_where(count: int, predicate: Callable[[list[int]], bool]) -> int:
    return next(s for s in range(20_000) if predicate(d20s(s, count)))


def fields(reply: Reply) -> dict[str, str]:
    return {f["name"]: f["value"] for f in reply.embeds[0]["fields"]}


async def test_ruling_realms_attack_extra_die_split_and_bonus_per_target(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(3, lambda faces: all(11 <= f <= 19 for f in faces))
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "realms attack",
        {"dice": 2, "to_hit": 11, "damage": "1d6+1", "split": "1,1", "advantage": 2},
        user="player",
    )
    embed = reply.embeds[0]
    assert embed["description"] == "**Advantage**: 2 advantages → at advantage (they never stack)"
    targets = fields(reply)
    assert set(targets) == {"Target 1", "Target 2"}
    assert targets["Target 1"].count("hits") == 2  # the extra die joins the first target
    assert "+2 (once for this target)" in targets["Target 1"]
    assert "+2 (once for this target)" in targets["Target 2"]
    assert (await logged_roll(dicebot.storage, 1)).kind == "realms.attack"


async def test_ruling_realms_zero_dice_and_half_movement(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "disadvantage": 1}
    )
    embed = reply.embeds[0]
    assert embed["author"]["name"] == "Disadvantage: half movement this round"
    assert "the lower is the strike" in fields(reply)["0 dice left"]


async def test_hidden_gm_attack_shows_nothing_to_the_channel(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    dicebot.rng = new_rng(seed_where(1, lambda faces: faces[0] == 20))
    hidden = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "hidden": True}, user="gm"
    )
    assert hidden.ephemeral and hidden.embeds[0]["title"].startswith("🌟 NATURAL 20")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    refused = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "hidden": True}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    bad = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1000d1000"}
    )
    assert bad.ephemeral and "dice like 1d8+1" in bad.content


async def test_ruling_realms_check_mix_cancels_and_natural_20_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    mixed = await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "advantage": 2, "disadvantage": 1}
    )
    assert "2 advantages + 1 disadvantage → straight roll" in mixed.embeds[0]["description"]
    assert mixed.embeds[0]["description"].count(",") == 0  # one die rolled
    dicebot.rng = new_rng(seed_where(2, lambda faces: max(faces) == 20))
    natural = await fake_discord.invoke(
        "realms check", {"die": "d20", "target": 15, "advantage": 1}, user="player"
    )
    assert "success" in natural.embeds[0]["description"]
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌟 NATURAL 20!"
    wrong = await fake_discord.invoke("realms check", {"die": "d20", "kind": "competition"})
    assert wrong.ephemeral and "A competition uses a d12" in wrong.content


async def test_stealth_and_spell(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    pool = await fake_discord.invoke("realms stealth", {"dice": 1, "disadvantage": 1})
    assert "the lower of two d6" in pool.embeds[0]["description"]
    cost = await fake_discord.invoke(
        "realms spell", {"kind": "incantation", "cost": 0, "advantage": 1}
    )
    assert "**Spirit cost 0 → 0**" in cost.embeds[0]["description"]
    axiom = await fake_discord.invoke("realms spell", {"kind": "axiom", "disadvantage": 1})
    assert "**Casting time doubled**" in axiom.embeds[0]["description"]


async def test_ruling_realms_reroll_one_die_once_of_your_latest_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    nothing = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert nothing.ephemeral and "your latest roll here" in nothing.content
    await fake_discord.invoke("realms check", {"die": "d12", "kind": "competition"}, user="player")
    dicebot.rng = new_rng(seed_where(2, lambda faces: True))
    await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "disadvantage": 1}, user="player"
    )
    seed = 3
    dicebot.rng = new_rng(seed)
    again = await fake_discord.invoke("realms reroll", {"position": 2}, user="player")
    assert not again.ephemeral
    rerolled = fields(again)["Rerolled die 2"]
    assert f"→ **{d20s(seed, 1)[0]}**" in rerolled  # the save (the latest roll), not the d12
    logged = await logged_roll(dicebot.storage, 3)
    assert logged.payload["rerolled_from"] == 2
    twice = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert twice.ephemeral and "rerolled already" in twice.content
    others = await fake_discord.invoke("realms reroll", {"position": 1}, user="gm")
    assert others.ephemeral  # the GM has no roll of their own here


async def test_reroll_works_after_a_restart(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await fake_discord.invoke("realms stealth", {"dice": 3}, user="player")
    async with restarted(fake_discord, dicebot, seed=9):
        again = await fake_discord.invoke("realms reroll", {"position": 3}, user="player")
        assert not again.ephemeral and "Rerolled die 3" in fields(again)


async def test_odds_for_a_check_and_an_attack_with_charts(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    check = await fake_discord.invoke("realms odds", {"die": "d20", "target": 15})
    assert check.embeds[0]["description"].startswith("Straight **30.00%**")
    name, png = check.attachments[0]
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)
    attack = await fake_discord.invoke(
        "realms odds", {"dice": 2, "to_hit": 11, "damage": "1d8+1", "split": "1,1"}
    )
    assert set(fields(attack)) == {"Hits", "Target 1 (1 strike)", "Target 2 (1 strike)"}
    assert "Missed: 50.00%" in fields(attack)["Target 1 (1 strike)"]  # 10 of 20 faces miss
    assert attack.attachments[0][1].startswith(PNG_SIGNATURE)
    incomplete = await fake_discord.invoke("realms odds", {"dice": 2})
    assert incomplete.ephemeral and "need `dice`, `to_hit` and `damage`" in incomplete.content
