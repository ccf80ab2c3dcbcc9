"""Colours and wording shared by every system's rendering."""

from __future__ import annotations

import discord

__all__ = [
    "CHOICE_NAME_MAX",
    "CONTENT_LIMIT",
    "EMBED_DESCRIPTION_LIMIT",
    "FIELD_LIMIT",
    "TITLE_LIMIT",
    "Colour",
    "truncate",
]

EMBED_DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256  # an embed title
FIELD_LIMIT = 1024  # an embed field value
CONTENT_LIMIT = 2000  # a message's text; Discord refuses a longer one
CHOICE_NAME_MAX = 100  # an autocomplete suggestion's name


class Colour:
    """Embed colours: a crit or fumble must be unmistakable at a glance."""

    ROLL = discord.Colour.blurple()
    SUCCESS = discord.Colour.green()
    FAILURE = discord.Colour.dark_grey()
    CRITICAL_SUCCESS = discord.Colour.gold()
    CRITICAL_FAILURE = discord.Colour.red()
    HIDDEN = discord.Colour.dark_purple()
    CAMPAIGN = discord.Colour.teal()
    WARNING = discord.Colour.orange()


def truncate(text: str, limit: int = EMBED_DESCRIPTION_LIMIT) -> str:
    """Shorten text to Discord's limit, saying that it was cut."""
    if len(text) <= limit:
        return text
    marker = " … (cut to fit Discord)"
    return text[: limit - len(marker)] + marker
