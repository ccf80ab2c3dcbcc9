"""`/help`'s pages: a system too big for one embed continues on the next page, within limits."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.render.help import EMBED_TOTAL_LIMIT, FIELDS_MAX, help_embed, help_pages
from bot.render.style import FIELD_LIMIT
from rules.systems import System


async def _callback(
    interaction: discord.Interaction,
    a_rather_long_option_name_one: str,
    a_rather_long_option_name_two: int = 0,
) -> None:
    """Stands in for a command."""


def big_system(commands: int) -> app_commands.Group:
    group = app_commands.Group(name="kazoo", description="Kazoo Quest")
    for sub in range(3):
        inner = app_commands.Group(name=f"part{sub}", description="A part", parent=group)
        for number in range(commands):
            inner.add_command(
                app_commands.Command(
                    name=f"toot{number}", description="x" * 100, callback=_callback
                )
            )
    return group


def test_a_system_too_big_for_one_page_continues_within_discords_limits() -> None:
    roll: app_commands.Command[Any, ..., None] = app_commands.Command(
        name="roll", description="Roll dice", callback=_callback
    )
    pages = help_pages([big_system(24), roll], {"kazoo": System("kazoo", "Kazoo Quest")})
    titles = [page.title for page in pages]
    kazoo = [title for title in titles if title.startswith("🎲 Kazoo Quest")]
    assert len(kazoo) >= 2 and kazoo[0] == f"🎲 Kazoo Quest (1/{len(kazoo)})"
    assert titles[1] == "🎲 Dice, macros and campaigns"
    assert f"3. 🎲 Kazoo Quest ({len(kazoo)} pages)" in pages[0].fields[0][1]
    text = "\n".join(value for page in pages for _, value in page.fields)
    for sub in range(3):
        for number in range(24):
            # Each command once, whole: its options in brackets when optional.
            line = (
                f"`/kazoo part{sub} toot{number}` "
                "`a_rather_long_option_name_one [a_rather_long_option_name_two]`"
            )
            assert text.count(line + "\n") == 1
    for number, page in enumerate(pages, start=1):
        embed = help_embed(page, number, len(pages))
        assert len(embed) <= EMBED_TOTAL_LIMIT and len(embed.fields) <= FIELDS_MAX
        assert all(len(field.value or "") <= FIELD_LIMIT for field in embed.fields)
