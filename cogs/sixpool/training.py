"""Six-pool d20 training around rolls (docs/players/sixpool.md, "Rules notes"): the GM's list of
trained-only skills (none by default); and help, which gives the helped character advantage on
their next d20 roll of any kind; helping with a skill needs training in it, and a GM may always
help (with or without a character of their own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.errors import CommandError
from bot.render import sixpool as render
from bot.storage import Character
from bot.storage.errors import CharacterNotFound
from rules import sixpool
from rules.sixpool import Sheet

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = ["help_ally", "trained_only"]

GM_HELPER = "the GM"


async def help_ally(
    cog: SixpoolCog, interaction: discord.Interaction, user: discord.Member, skill: str | None
) -> None:
    """Give ``user``'s character advantage on their next roll, if the asker may help."""
    asker, campaign = await cog.asker(interaction)
    helper: Character[Sheet] | None
    try:
        helper = await cog.characters.find(campaign, user_id=asker.user_id)
    except CharacterNotFound:
        if not asker.is_gm:
            raise
        helper = None
    target = await cog.characters.find(campaign, user_id=user.id)
    if helper is not None and target.id == helper.id:
        raise CommandError("You can't help yourself; help an ally.")
    helper_sheet = None if helper is None else helper.sheet
    sixpool.require_help_training(helper_sheet, skill, gm=asker.is_gm)
    changed = await cog.characters.update(target, sixpool.receive_help)
    name = GM_HELPER if helper is None else helper.name
    with_skill = f" with {sixpool.skill_name(skill)}" if skill else ""
    embed = render.sheet_changed(
        changed.after, f"helped by {name}{with_skill}: advantage on the next roll"
    )
    await interaction.response.send_message(embed=embed)


async def trained_only(
    cog: SixpoolCog, interaction: discord.Interaction, skill: str | None, listed: bool
) -> None:
    """Show the campaign's trained-only skills, or (GM) list or unlist one."""
    asker, campaign = await cog.asker(interaction)
    if skill is None:
        skills = await cog.trained_only.skills(campaign)
        await interaction.response.send_message(embed=render.trained_only(skills))
        return
    asker.require_gm("list trained-only skills")
    name = sixpool.skill_name(skill)
    skills = await cog.trained_only.set(campaign, name, listed)
    what = f"{name} {'listed' if listed else 'unlisted'}"
    await interaction.response.send_message(embed=render.trained_only(skills, what))
