"""`/help`: pages read from the bot's own command tree, so no command can be missing.

docs/players/index.md, "Help". An overview (what a player and a GM type first), the table's
commands, then a page per system; ◀ ▶ turn the pages. The buttons are persistent: the page
number is in their custom_id and the pages are built anew from the tree on each press, so they
work after a restart.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.access import loaded_cog
from bot.anywhere import anywhere
from bot.buttons import PersistentItem
from bot.client import DiceBot
from bot.options import ID_PATTERN
from bot.render import help as render
from bot.storage import Storage
from rules.systems import all_systems


def help_pages(bot: DiceBot) -> list[render.HelpPage]:
    """Every page of `/help`, from the bot's command tree and the systems it knows."""
    top = [
        command
        for command in bot.tree.get_commands()
        if isinstance(command, app_commands.Command | app_commands.Group)
    ]
    return render.help_pages(top, {system.value: system for system in all_systems()})


def help_view(number: int, total: int) -> discord.ui.View | None:
    """◀ and ▶ under page ``number`` (1-based), wrapping around; none for a single page."""
    if total <= 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(HelpPageButton("prev", number - 1 if number > 1 else total))
    view.add_item(HelpPageButton("next", number % total + 1))
    view.stop()  # the dynamic item answers every press; no view is kept per message
    return view


class HelpPageButton(
    PersistentItem[discord.ui.Button[Any]],
    template=rf"help:(?P<side>prev|next):(?P<page>{ID_PATTERN})",
):
    """◀ or ▶ under a page of `/help`: show page ``target_id`` in the same message."""

    id_kind = "help page"

    def __init__(self, side: str, page: int) -> None:
        super().__init__(
            page,
            discord.ui.Button(
                label="◀" if side == "prev" else "▶",
                style=discord.ButtonStyle.secondary,
                custom_id=f"help:{side}:{page}",
            ),
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HelpPageButton:
        return cls(match["side"], int(match["page"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        pages = loaded_cog(interaction, HelpCog, HelpCog.__cog_name__, "Help").pages
        number = min(self.target_id, len(pages))  # fewer pages since the message was sent
        await interaction.response.edit_message(
            embed=render.help_embed(pages[number - 1], number, len(pages)),
            view=help_view(number, len(pages)),
        )


class HelpCog(commands.Cog):
    """What the bot can do."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot

    @cached_property
    def pages(self) -> list[render.HelpPage]:
        """The pages, built at the first `/help` or page turn: the command tree is complete by
        then and doesn't change while the bot runs."""
        return help_pages(self.bot)

    @anywhere
    @app_commands.command(name="help", description="What to type first, and every command")
    @app_commands.describe(
        topic="What to show: the command pages (default) or /roll's dice notation"
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
        pages = self.pages
        view = help_view(1, len(pages))
        embed = render.help_embed(pages[0], 1, len(pages))
        if view is None:
            await interaction.response.send_message(embed=embed, ephemeral=True)
        else:
            await interaction.response.send_message(embed=embed, view=view, ephemeral=True)


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(HelpPageButton)
    await bot.add_cog(HelpCog(bot))
