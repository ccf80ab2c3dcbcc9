"""`/help` end to end: it lists every synced command, privately."""

from __future__ import annotations

from bot.client import DiceBot
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
