"""`/macro`: saved rolls, personal or campaign-wide, rolled by name (also blind), after restarts."""

from __future__ import annotations

from bot.client import DiceBot
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.fakediscord.server import FakeDiscord


async def test_save_roll_list_and_delete_a_personal_macro(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    saved = await fake_discord.invoke(
        "macro save", {"name": "Sword", "expression": "1d20+7"}, user="player"
    )
    assert saved.ephemeral and "Saved your macro **Sword**: `1d20+7`" in saved.content
    dicebot.rng = new_rng(3)
    rolled = await fake_discord.invoke("macro roll", {"name": "sword"}, user="player")
    assert not rolled.ephemeral
    assert roll_expression("1d20+7", new_rng(3)).breakdown in rolled.embeds[0]["description"]
    listed = await fake_discord.invoke("macro list", {}, user="player")
    assert "👤 **Sword**: `1d20+7`" in listed.embeds[0]["description"]
    others = await fake_discord.invoke("macro roll", {"name": "Sword"}, user="gm")
    assert others.ephemeral and "No macro called **Sword**" in others.content
    suggested = await fake_discord.autocomplete("macro roll", {"name": "sw"}, "name", user="player")
    assert [choice["value"] for choice in suggested] == ["Sword"]
    twice = await fake_discord.invoke(
        "macro save", {"name": "sword", "expression": "1d6"}, user="player"
    )
    assert twice.ephemeral and "exists already" in twice.content
    await fake_discord.invoke("macro delete", {"name": "Sword"}, user="player")
    gone = await fake_discord.invoke("macro roll", {"name": "Sword"}, user="player")
    assert gone.ephemeral


async def test_bad_expressions_are_refused_when_saved(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    bad = await fake_discord.invoke("macro save", {"name": "Oops", "expression": "1d"})
    assert bad.ephemeral and "Couldn't read" in bad.content
    listed = await fake_discord.invoke("macro list", {})
    assert listed.embeds[0]["description"].startswith("None yet")


async def test_campaign_macros_by_the_gm_survive_a_restart_and_roll_blind(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    refused = await fake_discord.invoke(
        "macro save", {"name": "Ambush", "expression": "2d6", "campaign": True}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    await fake_discord.invoke(
        "macro save", {"name": "Ambush", "expression": "2d6", "campaign": True}, user="gm"
    )
    async with restarted(fake_discord, dicebot, seed=1):
        listed = await fake_discord.invoke("macro list", {}, user="player")
        assert "🏰 **Ambush**: `2d6`" in listed.embeds[0]["description"]
        blind = await fake_discord.invoke(
            "macro roll", {"name": "Ambush", "blind": True}, user="player"
        )
        assert blind.ephemeral and "You rolled in secret" in blind.content
        not_yours = await fake_discord.invoke("macro delete", {"name": "Ambush"}, user="player")
        assert not_yours.ephemeral and "GM" in not_yours.content
