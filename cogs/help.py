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

    @app_commands.command(name="help", description="List every command and what it does")
    async def show_help(self, interaction: discord.Interaction) -> None:
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
