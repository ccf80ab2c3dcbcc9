"""`/help`: the command list, read from the bot's own command tree so it is always current."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.render import help as render


class HelpCog(commands.Cog):
    """What the bot can do."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="List every command, or explain dice notation")
    @app_commands.describe(
        topic="What to explain: every command (default) or /roll's dice notation"
    )
    @app_commands.choices(
        topic=[
            app_commands.Choice(name="Commands", value="commands"),
            app_commands.Choice(name="Dice notation (/roll)", value="notation"),
        ]
    )
    async def show_help(self, interaction: discord.Interaction, topic: str = "commands") -> None:
        if topic == "notation":
            await interaction.response.send_message(embed=render.notation_guide(), ephemeral=True)
            return
        commands_here = [
            command
            for command in self.bot.tree.get_commands()
            if isinstance(command, app_commands.Command | app_commands.Group)
        ]
        await interaction.response.send_message(
            embed=render.command_list(commands_here), ephemeral=True
        )


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(HelpCog(bot))
