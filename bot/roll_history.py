"""The roll log's pages (docs/gms.md, "The roll log"): a page of `/campaign log`, its ← Newer
and Older → buttons (persistent: the page is all in their custom ids), and the names an export
gives the rollers."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from enum import Enum
from typing import Any

import discord

from bot.access import storage_of
from bot.asker import Asker
from bot.buttons import answer_component
from bot.options import ID_PATTERN, stored_id
from bot.render import campaign as render
from bot.storage import Storage
from rules.inputs import require_whole

__all__ = [
    "EXPORT_NAMES_MAX",
    "HISTORY_PAGE_MAX",
    "HistoryButton",
    "LogDirection",
    "LogPage",
    "member_names",
    "show_history",
]

HISTORY_PAGE_MAX = 25
EXPORT_NAMES_MAX = 50  # rollers an export looks up by name (one request each when not cached)


class LogDirection(Enum):
    """Which way a page of the roll log was turned from its boundary id."""

    OLDER = "older"  # the newest rolls before the boundary
    NEWER = "newer"  # the oldest rolls after it


@dataclass(frozen=True, slots=True)
class LogPage:
    """A page of the roll log, all of it in its buttons' custom ids: fixed by a boundary id
    (None: the newest page), so rolls logged meanwhile don't shift it, and answered after a
    restart."""

    boundary: int | None
    direction: LogDirection
    user_id: int  # 0: everyone's rolls
    limit: int


async def show_history(
    interaction: discord.Interaction, storage: Storage, asked: LogPage, *, edit: bool
) -> None:
    """Show a page of the channel's campaign log to the asker (a GM sees hidden and blind
    rolls), with ← Newer and Older → (disabled at either end)."""
    asker = await Asker.of(interaction, storage)
    campaign = asker.require_campaign()
    limit = require_whole("Limit", asked.limit, 1, HISTORY_PAGE_MAX)
    older = asked.direction is LogDirection.OLDER
    page = await storage.rolls.page(
        campaign.id,
        before=asked.boundary if older else None,
        after=None if older else asked.boundary,
        user_id=asked.user_id or None,
        include_secret=asker.is_gm,
        limit=limit,
    )
    page = render.fit_page(page, gm_view=asker.is_gm, older=older)
    embed = render.history(page, gm_view=asker.is_gm)
    view = None
    if page.older or page.newer:
        view = discord.ui.View(timeout=None)
        newest, oldest = page.rolls[0].id, page.rolls[-1].id
        view.add_item(HistoryButton(LogPage(newest, LogDirection.NEWER, asked.user_id, limit),
                                    enabled=page.newer))  # fmt: skip
        view.add_item(HistoryButton(LogPage(oldest, LogDirection.OLDER, asked.user_id, limit),
                                    enabled=page.older))  # fmt: skip
        view.stop()
    if edit:
        await interaction.response.edit_message(embed=embed, view=view)
    else:
        await interaction.response.send_message(
            embed=embed, view=view or discord.utils.MISSING, ephemeral=True
        )


class HistoryButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"campaign:log:(?:(?P<direction>older|newer):)?(?P<boundary>{ID_PATTERN})"
    rf":(?P<user>{ID_PATTERN}):(?P<limit>[0-9]{{1,2}})",
):
    """← Newer / Older → under a page of the roll log: the next page that way, for whoever
    pressed (persistent). A button from before ← Newer existed has no direction: Older."""

    def __init__(self, page: LogPage, *, enabled: bool = True) -> None:
        newer = page.direction is LogDirection.NEWER
        super().__init__(
            discord.ui.Button(
                label="← Newer" if newer else "Older →",
                style=discord.ButtonStyle.secondary,
                custom_id=f"campaign:log:{page.direction.value}:{page.boundary}"
                f":{page.user_id}:{page.limit}",
                disabled=not enabled,
            )
        )
        self.page = page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HistoryButton:
        limit = max(1, min(int(match["limit"]), HISTORY_PAGE_MAX))
        direction = LogDirection(match["direction"] or LogDirection.OLDER.value)
        return cls(LogPage(int(match["boundary"]), direction, int(match["user"]), limit))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def press() -> None:
            page = self.page
            if page.boundary is not None:
                stored_id(page.boundary, "roll")
            if page.user_id:  # user 0: everyone's rolls (the page was not filtered by user)
                stored_id(page.user_id, "member")
            await show_history(interaction, storage_of(interaction), page, edit=True)

        await answer_component(interaction, press)


async def member_names(guild: discord.Guild | None, user_ids: set[int]) -> dict[int, str]:
    """The display names the rollers have in the server now; one who left (or past
    ``EXPORT_NAMES_MAX`` rollers) is not named, and an export shows their id."""
    if guild is None:
        return {}

    async def name(user_id: int) -> str | None:
        member = guild.get_member(user_id)
        if member is None:
            try:
                member = await guild.fetch_member(user_id)
            except discord.HTTPException:
                return None  # not a member any more (or Discord can't say): the id stands
        return member.display_name

    wanted = sorted(user_ids)[:EXPORT_NAMES_MAX]
    found = await asyncio.gather(*(name(user_id) for user_id in wanted))
    return {user_id: shown for user_id, shown in zip(wanted, found, strict=True) if shown}
