"""Colours and wording shared by every system's rendering."""

from __future__ import annotations

import re
from collections.abc import Sequence

import discord

__all__ = [
    "CHOICE_NAME_MAX",
    "CONTENT_LIMIT",
    "EMBED_DESCRIPTION_LIMIT",
    "EMBED_TOTAL_LIMIT",
    "FIELD_LIMIT",
    "TITLE_LIMIT",
    "Colour",
    "joined",
    "listed",
    "shown",
    "truncate",
]

EMBED_DESCRIPTION_LIMIT = 4096
TITLE_LIMIT = 256  # an embed title
FIELD_LIMIT = 1024  # an embed field value
CONTENT_LIMIT = 2000  # a message's text; Discord refuses a longer one
CHOICE_NAME_MAX = 100  # an autocomplete suggestion's name
EMBED_TOTAL_LIMIT = 6000  # all of an embed's text: title, description, fields, footer, author


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
    if limit <= len(marker):
        return text[: limit - 1] + "…"
    return text[: limit - len(marker)] + marker


def listed(lines: list[str], limit: int = EMBED_DESCRIPTION_LIMIT, *, more: str = "more") -> str:
    """Join ``lines`` one a line within ``limit`` characters: every line if they fit, else as
    many as fit followed by "…and N more" (a list that grows with use never breaks a limit of
    Discord's). ``more`` names what was left out: "more challenges"."""
    text = "\n".join(lines)
    kept = len(lines)
    while len(text) > limit and kept > 0:
        kept -= 1
        text = "\n".join([*lines[:kept], f"…and {len(lines) - kept} {more}"])
    return truncate(text, limit)


def joined(
    items: Sequence[str],
    limit: int = EMBED_DESCRIPTION_LIMIT,
    *,
    sep: str = ", ",
    more: str = "more",
) -> str:
    """``listed`` on one line: the items joined by ``sep`` within ``limit`` characters, every
    one if they fit, else as many as fit followed by "…and N more" (``more``: "more items")."""
    text = sep.join(items)
    if len(text) <= limit:
        return text
    kept, size = 0, 0  # the first ``kept`` items and their separators take ``size``
    for item in items:
        tail = f"…and {len(items) - kept - 1} {more}"
        grown = size + len(item) + len(sep)  # this item, then the separator before the tail
        if grown + len(tail) > limit:
            break
        kept, size = kept + 1, grown
    return truncate(sep.join([*items[:kept], f"…and {len(items) - kept} {more}"]), limit)


# What Discord reads as markup in an embed's title, description or field, or in a message:
# formatting (* _ ~ | `), masked links ([text](url): both brackets), mentions and other <…>
# references (<@id>, <@&id>, <#id>, </command:id>), @everyone and @here, and a heading, quote
# or list at the start of a line. A backslash before any of them shows it as it is.
_MARKUP = re.compile(r"[\\*_~|`\[\]<>]|@(?=everyone|here)|^[ \t]*[#>-]", re.MULTILINE)


def shown(text: str) -> str:
    """Return user text (a name, label or comment) to be shown as plain text.

    Every string a user typed, and every display name, passes through here before it reaches an
    embed or a public message: it can't make a link (a masked ``[free nitro](https://…)`` shows as
    typed), ping or render a mention, or format the bot's message (docs/players/index.md, "User
    text"). Not for footers and author names, where Discord shows a backslash as it is.
    """
    return _MARKUP.sub(lambda found: found[0][:-1] + "\\" + found[0][-1], text)
