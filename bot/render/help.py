"""Rendering of `/help`: every command the bot has, from its own command tree."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import discord
from discord import app_commands

from bot.render.style import Colour, truncate

__all__ = ["command_list"]

FIELD_LIMIT = 1024


def _leaves(
    commands: Iterable[app_commands.Command | app_commands.Group],
) -> Iterator[app_commands.Command]:
    for command in commands:
        if isinstance(command, app_commands.Group):
            yield from _leaves(command.commands)
        else:
            yield command


def command_list(commands: Iterable[app_commands.Command | app_commands.Group]) -> discord.Embed:
    """List each top-level command's subcommands with their one-line descriptions."""
    embed = discord.Embed(
        title="🎲 Commands",
        description=(
            "Every roll takes `hidden` (GMs only): the result goes to you alone and "
            "`/campaign reveal` shows it later. Mistakes get a private explanation."
        ),
        colour=Colour.ROLL,
    )
    for command in sorted(commands, key=lambda command: command.name):
        lines = [f"`/{leaf.qualified_name}` {leaf.description}" for leaf in _leaves([command])]
        embed.add_field(
            name=f"/{command.name}", value=truncate("\n".join(lines), FIELD_LIMIT), inline=False
        )
    return embed
