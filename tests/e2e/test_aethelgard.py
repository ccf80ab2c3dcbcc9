"""`/aethelgard` end to end through the fake Discord: the display format, announcements, odds."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bot.client import DiceBot
from rules.aethelgard import PoolRoll, display_lines
from rules.randomness import new_rng
from tests.fakediscord.fixtures import settled
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def d10s(seed: int, count: int) -> tuple[int, ...]:
    """The d10s a seeded generator rolls in one call (as the bot rolls a pool)."""
    return tuple(int(face) for face in np.random.default_rng(seed).integers(1, 11, size=count))


def seed_where(count: int, predicate: Callable[[PoolRoll], bool]) -> int:
    return next(s for s in range(20_000) if predicate(PoolRoll(d10s(s, count))))


def block(lines: list[str]) -> str:
    return "```\n" + "\n".join(lines) + "\n```"


def dice_line(reply: Reply) -> str:
    """A pool reply's dice line: where its dice came from (the pool's size), after 🎲."""
    return reply.embeds[0]["description"].split("\n")[0].removeprefix("🎲 ")


def rolled_pools(reply: Reply) -> list[PoolRoll]:
    """Every pool a reply shows, read back from its display blocks' "Roll: [...]" lines."""
    return [
        PoolRoll(tuple(int(face) for face in line.removeprefix("Roll: [").rstrip("]").split(", ")))
        for line in reply.embeds[0]["description"].split("\n")
        if line.startswith("Roll: [")
    ]


async def test_ruling_aethelgard_roll_shows_the_display_format_to_the_letter(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(5, lambda r: not r.fumble and not r.critical)
    dice = d10s(seed, 5)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "aethelgard roll", {"pool": 4, "bonus": 2, "penalty": 1, "label": "Hack"}, user="player"
    )
    embed = reply.embeds[0]
    rolled = PoolRoll(dice, 1)
    assert embed["title"] == f"✅ Success · player: Hack vs DC 1 · {rolled.net} net"
    # Where the pool's dice came from, then the document's block; the net and the verdict
    # vs the DC are the title's, and nothing restates them (issue 53).
    pool = "pool: 4 dice + 2 bonus dice − 1 penalty die = 5d10"
    assert embed["description"] == f"🎲 {pool}\n" + block(display_lines(rolled))
    assert embed["description"].startswith(
        f"🎲 {pool}\n```\nRoll: [{', '.join(map(str, dice))}]\n→ "
    )
    assert "fields" not in embed
    assert await dicebot.storage.rolls.get(1) is not None
    await settled(fake_discord, dicebot)  # an announcement would have arrived by now
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_rule_aethelgard_fumble_is_in_the_title_and_never_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(2, lambda r: r.fumble)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("aethelgard roll", {"pool": 2}, user="player")
    assert "Result: FUMBLE\n\n[!] COGNITIVE GLITCH [!]" in reply.embeds[0]["description"]
    assert reply.embeds[0]["title"] == "💀 COGNITIVE GLITCH · player: pool roll vs DC 1 · 0 net"
    await fake_discord.invoke("campaign start", {"system": "aethelgard", "name": "Blight"})
    dicebot.rng = new_rng(seed)
    hidden = await fake_discord.invoke("aethelgard roll", {"pool": 2, "hidden": True}, user="gm")
    assert hidden.ephemeral and hidden.embeds[0]["title"].startswith("💀 COGNITIVE GLITCH")
    await settled(fake_discord, dicebot)  # a wrongly posted announcement would be there now
    # Neither the public fumble (its title says it) nor the hidden one is announced.
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    refused = await fake_discord.invoke(
        "aethelgard roll", {"pool": 2, "hidden": True}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content


async def test_rule_aethelgard_critical_is_in_the_title_without_asterisks(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(12, lambda r: r.critical)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("aethelgard roll", {"pool": 12, "dc": 2}, user="player")
    # The document's display format keeps its line in the code block (shown as typed there).
    assert reply.embeds[0]["description"].endswith("\n\n*** CRITICAL SUCCESS! ***\n```")
    title = reply.embeds[0]["title"]
    assert title.startswith("✨ CRITICAL SUCCESS · player: pool roll vs DC 2 · ")
    assert "*" not in title
    await settled(fake_discord, dicebot)
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_ruling_aethelgard_net_5_short_of_the_dc_is_a_failure_and_no_critical(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(6, lambda r: r.raw_net == 5)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("aethelgard roll", {"pool": 6, "dc": 6}, user="player")
    embed = reply.embeds[0]
    assert embed["title"].startswith("❌ Failure · player: pool roll vs DC 6 · 5 net"), embed
    assert "CRITICAL" not in embed["description"] and "CRITICAL" not in embed["title"]


async def test_pool_limits_are_refused(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    too_big = await fake_discord.invoke("aethelgard roll", {"pool": 100, "bonus": 5})
    assert too_big.ephemeral and "at most 100 dice" in too_big.content
    floored = await fake_discord.invoke("aethelgard roll", {"pool": 2, "penalty": 5})
    assert dice_line(floored) == "pool: 2 dice − 5 penalty dice = 1d10 (at least 1 die)"
    assert len(rolled_pools(floored)[0].dice) == 1


async def test_opposed_attack_and_craft(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    opposed = await fake_discord.invoke("aethelgard opposed", {"pool": 3, "vs_pool": 3})
    assert " wins" in opposed.embeds[0]["title"]
    # Each side's pool and block; their nets are the title's (issue 53).
    lines = opposed.embeds[0]["description"].split("\n")
    assert lines[0] == "🎲 gm's pool: 3d10" and "The defender's pool: 3d10" in lines
    mine, theirs = rolled_pools(opposed)
    assert opposed.embeds[0]["title"].endswith(f" · {mine.net} vs {theirs.net} net")
    won = mine.net > theirs.net  # a tie holds: the defender wins it
    tie = " (a tie holds)" if mine.net == theirs.net else ""
    assert opposed.embeds[0]["title"].startswith(
        "✅ gm wins · " if won else f"❌ The defender wins{tie} · "
    )
    assert "fields" not in opposed.embeds[0]
    rng = np.random.default_rng(7)
    accuracy = PoolRoll(tuple(int(f) for f in rng.integers(1, 11, size=6)), 1)
    dicebot.rng = new_rng(7)
    attack = await fake_discord.invoke(
        "aethelgard attack", {"accuracy": 6, "defense": 1, "damage": 4, "soak": 1}
    )
    hit = accuracy.success
    assert attack.embeds[0]["title"].startswith("✅ Hit · " if hit else "❌ Miss · ")
    craft = await fake_discord.invoke("aethelgard craft", {"pool": 6})
    assert " · gm: crafting · " in craft.embeds[0]["title"]


async def test_odds_for_a_hundred_dice_with_a_chart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("aethelgard odds", {"pool": 100, "dc": 20})
    assert reply.embeds[0]["title"] == "🎯 100d10 vs DC 20"
    assert "successes − botches: 20.000" in reply.embeds[0]["description"]
    name, png = reply.attachments[0]
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)


# --- characters


async def start_campaign(fake: FakeDiscord) -> None:
    reply = await fake.invoke("campaign start", {"system": "aethelgard", "name": "Blight"})
    assert not reply.ephemeral, reply.content


async def create(fake: FakeDiscord, user: str = "player") -> None:
    options = {
        "name": "Ysolde", "might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3,
        "skills": "System Bypass 3, Stealth 2",
    }  # fmt: skip
    reply = await fake.invoke("aethelgard character create", options, user=user)
    assert not reply.ephemeral, reply.content


async def test_character_sheet_and_a_check_built_from_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await create(fake_discord)
    sheet = await fake_discord.invoke("aethelgard character sheet", {}, user="player")
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    assert sheet.ephemeral and fields["Skills"] == "Stealth 2\nSystem Bypass 3"
    seed = 5
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "aethelgard check", {"attribute": "WITS", "skill": "system bypass", "bonus": 1},
        user="player",
    )  # fmt: skip
    embed = reply.embeds[0]
    assert " · Ysolde: WITS + System Bypass vs DC 1 · " in embed["title"]
    pool = "WITS: 8 dice + System Bypass (rank): 3 dice + 1 bonus die = 12d10"
    assert embed["description"] == (f"🎲 {pool}\n" + block(display_lines(PoolRoll(d10s(seed, 12)))))


async def test_rule_aethelgard_unknown_skill_is_refused_with_the_nearest_names(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await create(fake_discord)
    for typed, hint in (
        ("Hacking", "Known skills: Stealth, System Bypass, Acrobatics, Crafting, Rhetoric, "
         "Wasteland Survival."),
        ("stelth", "Did you mean Stealth?"),
        ("Acrobatic", "Did you mean Acrobatics?"),
    ):  # fmt: skip
        refused = await fake_discord.invoke(
            "aethelgard check", {"attribute": "WITS", "skill": typed}, user="player"
        )
        assert refused.ephemeral
        assert refused.content == (
            f"❌ There is no skill '{typed}' on the sheet or in Aethelgard's list. {hint}"
        )
    assert await dicebot.storage.rolls.get(1) is None  # nothing was rolled or logged
    # One of the document's skills that the sheet lacks is rolled at rank 0, and says so.
    reply = await fake_discord.invoke(
        "aethelgard check", {"attribute": "WILL", "skill": "rhetoric"}, user="player"
    )
    assert dice_line(reply) == "WILL: 5 dice + Rhetoric (rank): 0 dice = 5d10"


async def test_ruling_aethelgard_full_twenty_stress_costs_a_die(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await create(fake_discord)
    refused = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Ysolde", "amount": 20}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    added = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Ysolde", "amount": 20}, user="gm"
    )
    assert added.embeds[0]["title"] == "Ysolde: Psychic Stress 0 → 20"
    await fake_discord.invoke(
        "aethelgard corruption add", {"character": "Ysolde", "amount": 45}, user="gm"
    )
    reply = await fake_discord.invoke("aethelgard check", {"attribute": "WITS"}, user="player")
    assert dice_line(reply) == (
        "WITS: 8 dice − Psychic Stress 20: 1 die − Runic Blight Corruption 45: 2 dice = 5d10"
    )
    assert len(rolled_pools(reply)[0].dice) == 5
    below = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Ysolde", "amount": -30}, user="gm"
    )
    assert below.ephemeral
    healed = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Ysolde", "amount": -5}, user="gm"
    )
    assert healed.embeds[0]["title"] == "Ysolde: Psychic Stress 20 → 15"


async def test_hidden_gm_check_for_a_player_and_bad_input(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    none_yet = await fake_discord.invoke("aethelgard check", {"attribute": "WITS"}, user="player")
    assert none_yet.ephemeral  # no campaign
    await start_campaign(fake_discord)
    no_character = await fake_discord.invoke(
        "aethelgard check", {"attribute": "WITS"}, user="player"
    )
    assert no_character.ephemeral
    await create(fake_discord)
    hidden = await fake_discord.invoke(
        "aethelgard check", {"attribute": "WILL", "character": "Ysolde", "hidden": True}, user="gm"
    )
    assert hidden.ephemeral and " · Ysolde: WILL" in hidden.embeds[0]["title"]
    bad_skill = await fake_discord.invoke(
        "aethelgard character create",
        {"name": "Other", "might": 1, "finesse": 1, "wits": 1, "will": 1, "sturdiness": 1,
         "skills": "Stealth 9"},
        user="gm",
    )  # fmt: skip
    assert bad_skill.ephemeral and "Stealth rank must be between 0 and 5" in bad_skill.content
