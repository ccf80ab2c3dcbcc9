"""The yardstick: a bare discord.py bot that answers `/roll` with one line and nothing else.

bench_latency.py runs it against the same fake Discord, in the same run, as `python -m bot`:
its latency and throughput are discord.py's own cost per interaction, the ceiling our bot is
measured against (a ratio, since the absolute numbers depend on the machine). It reads the same
environment as the bot (DISCORD_TOKEN, DISCORD_API_BASE, DISCORD_GATEWAY_URL, GUILD_ID).
"""

from __future__ import annotations

import os

import discord
import yarl
from discord import app_commands

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"].rstrip("/")
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])


class BareBot(discord.Client):
    def __init__(self) -> None:
        super().__init__(intents=discord.Intents.none())
        self.tree = app_commands.CommandTree(self)

    async def setup_hook(self) -> None:
        guild = discord.Object(id=int(os.environ["GUILD_ID"]))
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


bot = BareBot()
campaign = app_commands.Group(name="campaign", description="The trivial baseline")


@bot.tree.command(description="Answer with one line")
async def roll(interaction: discord.Interaction, expression: str) -> None:
    await interaction.response.send_message(f"{expression}: 7")


@campaign.command(description="Answer privately with one line")
async def info(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("No campaign here.", ephemeral=True)


bot.tree.add_command(campaign)

if __name__ == "__main__":
    bot.run(os.environ["DISCORD_TOKEN"], log_level=30)
