"""The yardsticks: a bare discord.py bot that answers `/roll` with one line, or (BARE_REPLY=embed)
with the kind of reply our roll gets: an embed and one persistent-style button.

bench_latency.py runs both against the same fake Discord, in the same run, as `python -m bot`:
their latency and throughput are discord.py's own cost per interaction (one line: the least a
bot can answer; embed: what a roll reply costs discord.py), the ceilings our bot is measured
against (a ratio, since the absolute numbers depend on the machine). It reads the same
environment as the bot (DISCORD_TOKEN, DISCORD_API_BASE, DISCORD_GATEWAY_URL, GUILD_ID).
"""

from __future__ import annotations

import itertools
import os

import discord
import yarl
from discord import app_commands

discord.http.Route.BASE = os.environ["DISCORD_API_BASE"].rstrip("/")
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])

EMBED_REPLY = os.environ.get("BARE_REPLY", "line") == "embed"


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
roll_ids = itertools.count(1)  # stands in for the roll log's id, in the footer and custom_id


def roll_reply(
    interaction: discord.Interaction, expression: str
) -> tuple[discord.Embed, discord.ui.View]:
    """What an idiomatic discord.py bot sends for a roll: an embed (title, breakdown, a field,
    footer) and a View holding one button whose custom_id names the roll."""
    roll_id = next(roll_ids)
    embed = discord.Embed(
        title=f"🎲 {interaction.user.display_name} rolls {expression}",
        description="4d6kh3 (~~1~~, 3, 4, 6) + 2\n**Total: 15**",
        colour=0x5865F2,
    )
    embed.add_field(name="Total", value="15")
    embed.set_footer(text=f"Roll #{roll_id}")
    view = discord.ui.View(timeout=None)
    view.add_item(
        discord.ui.Button(
            label="Roll again",
            emoji="🎲",
            style=discord.ButtonStyle.primary,
            custom_id=f"roll:again:{roll_id}",
        )
    )
    # As ours: a press would be answered by a dynamic item, so discord.py keeps no view per
    # message.
    view.stop()
    return embed, view


@bot.tree.command(description="Answer with one line, or an embed and a button")
async def roll(interaction: discord.Interaction, expression: str) -> None:
    if EMBED_REPLY:
        embed, view = roll_reply(interaction, expression)
        await interaction.response.send_message(embed=embed, view=view)
    else:
        await interaction.response.send_message(f"{expression}: 7")


@campaign.command(description="Answer privately with one line")
async def info(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("No campaign here.", ephemeral=True)


bot.tree.add_command(campaign)

if __name__ == "__main__":
    bot.run(os.environ["DISCORD_TOKEN"], log_level=30)
