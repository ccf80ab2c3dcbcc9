"""`/help` end to end: it lists every synced command, privately."""

from __future__ import annotations

import re

from bot.client import DiceBot
from bot.render.help import NOTATION_EXAMPLES
from rules.expressions import roll_request
from rules.randomness import new_rng
from tests.fakediscord.server import FakeDiscord


async def test_help_lists_every_synced_command_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("help", {}, user="player")
    assert reply.ephemeral
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    synced = {command["name"] for command in fake_discord.synced_commands(guild=True)}
    assert set(fields) == {f"/{name}" for name in synced}
    assert "`/campaign gm add` Make someone a co-GM" in fields["/campaign"]
    assert "`/cosmos challenge start`" in fields["/cosmos"]
    assert fields["/roll"].startswith("`/roll` Roll dice notation")


async def test_help_explains_dice_notation_with_examples_that_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("help", {"topic": "notation"}, user="player")
    assert reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == "🎲 Dice notation for /roll"
    shown = re.findall(r"^`([^`]+)`", embed["description"], flags=re.MULTILINE)
    assert shown == [example for example, _ in NOTATION_EXAMPLES]
    for example in shown:
        roll_request(example, new_rng(0))  # every example is a request /roll accepts
    limits = next(field["value"] for field in embed["fields"] if field["name"] == "Limits")
    assert "200 characters, 1,000 dice per `/roll`" in limits and "10,000 sides" in limits
