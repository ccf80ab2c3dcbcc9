"""The bot behind an interaction, typed.

discord.py types ``interaction.client`` as a plain ``discord.Client``; every interaction this
project handles is one the ``DiceBot`` received, so these accessors say so once instead of at
every use of its storage, its command tree or its cogs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, cast

import discord

if TYPE_CHECKING:
    from bot.client import DiceBot
    from bot.storage import Storage

__all__ = ["PostableChannel", "dice_bot", "loaded_cog", "postable_channel", "storage_of"]

C = TypeVar("C")

# The channels whose messages the bot can post and fetch by id (``get_partial_message``).
PostableChannel = (
    discord.TextChannel
    | discord.VoiceChannel
    | discord.StageChannel
    | discord.Thread
    | discord.DMChannel
    | discord.PartialMessageable
)


def dice_bot(interaction: discord.Interaction) -> DiceBot:
    """Return the bot that received the interaction (always a ``DiceBot`` here)."""
    return cast("DiceBot", interaction.client)


def postable_channel(interaction: discord.Interaction) -> PostableChannel | None:
    """Return the interaction's channel when it is one the bot posts and edits messages in."""
    channel = interaction.channel
    return channel if isinstance(channel, PostableChannel) else None


def storage_of(interaction: discord.Interaction) -> Storage:
    """Return the storage of the bot that received the interaction."""
    return dice_bot(interaction).storage


def loaded_cog(interaction: discord.Interaction, kind: type[C], name: str, system: str) -> C:
    """Return the bot's cog called ``name`` (of ``kind``), which a persistent button hands its
    press to; refuse while it isn't loaded (a press arriving as the bot starts or stops)."""
    from bot.errors import CommandError  # bot.errors needs the rendering, which needs us

    cog = dice_bot(interaction).get_cog(name)
    if not isinstance(cog, kind):
        raise CommandError(f"{system} is not loaded; try again in a moment.")
    return cog
