"""The bot behind an interaction, typed.

discord.py types ``interaction.client`` as a plain ``discord.Client``; every interaction this
project handles is one the ``DiceBot`` received, so these accessors say so once instead of at
every use of its storage, its command tree or its cogs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

if TYPE_CHECKING:
    from bot.client import DiceBot
    from bot.storage import Storage

__all__ = ["dice_bot", "storage_of"]


def dice_bot(interaction: discord.Interaction) -> DiceBot:
    """Return the bot that received the interaction (always a ``DiceBot`` here)."""
    return cast("DiceBot", interaction.client)


def storage_of(interaction: discord.Interaction) -> Storage:
    """Return the storage of the bot that received the interaction."""
    return dice_bot(interaction).storage
