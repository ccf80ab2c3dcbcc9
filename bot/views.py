"""The base of every button and select view: tracked for a clean shutdown, one error path."""

from __future__ import annotations

import discord

from bot.client import DiceBot
from bot.errors import RESTARTING_MESSAGE, reply_ephemeral, report_error

__all__ = ["TableView"]


class TableView(discord.ui.View):
    """A view whose clicks are answered like commands: admitted (or refused while the bot
    shuts down), and their errors reported the one way."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        bot = interaction.client
        if isinstance(bot, DiceBot) and not bot.admit(interaction):
            await reply_ephemeral(interaction, RESTARTING_MESSAGE)
            return False
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item
    ) -> None:
        await report_error(interaction, error)
