"""Whether a campaign's GM log channel is private to its GMs, as Discord computes permissions.

Hidden and blind rolls are copied to the GM log channel in full, so it must be one that only GMs can
read. GMs are the campaign's founder and co-GMs, and members with Manage Server (see the
docs/gms.md, "The GM log channel"). Without the members intent the bot can't list who holds a role,
so a role that lets its members view the channel counts as readable by players unless the role
itself makes them GMs (Manage Server or Administrator).
"""

from __future__ import annotations

import discord

from bot.errors import CommandError
from bot.render.style import joined, shown
from bot.storage import Campaign

__all__ = [
    "READERS_MAX",
    "readable_by_players",
    "require_can_post",
    "require_gm_channel",
    "require_private",
]

# The most characters the list of readers takes in a message to the GMs (whose own text, with
# the campaign's name, stays within the rest of Discord's 2,000): a server may let dozens of
# roles (each name up to 100 characters) or members read a channel.
READERS_MAX = 1_500


def readable_by_players(channel: discord.abc.GuildChannel, campaign: Campaign) -> str | None:
    """Return who, besides the campaign's GMs and this bot, can view ``channel`` (for a message
    to the GMs, e.g. "everyone" or "the role Players"), or None when nobody else can."""
    guild = channel.guild
    if channel.permissions_for(guild.default_role).view_channel:
        return "everyone"
    readers: list[str] = []
    me = guild.me
    for role in guild.roles:
        if role.is_default() or _makes_gms(role.permissions):
            continue
        if me is not None and role.tags is not None and role.tags.bot_id == me.id:
            continue  # this bot's own role: only the bot holds it
        # The default role's and this role's permissions, with both their overwrites here:
        # what a member holding only this role gets.
        if channel.permissions_for(role).view_channel:
            readers.append(f"the role {shown(role.name)}")
    gms = {campaign.created_by, *campaign.gm_ids}
    for target, overwrite in channel.overwrites.items():
        if isinstance(target, discord.Role) or target.id in gms:
            continue
        if me is not None and target.id == me.id:
            continue
        if overwrite.view_channel:  # a member let in by name
            readers.append(f"<@{target.id}>")
    return joined(readers, READERS_MAX, more="more roles and members") if readers else None


def _makes_gms(permissions: discord.Permissions) -> bool:
    return permissions.administrator or permissions.manage_guild


def require_gm_channel(channel: discord.TextChannel | None, campaign: Campaign) -> None:
    """Refuse a GM log channel the bot can't post in or that players can read (None: none)."""
    if channel is None:
        return
    require_can_post(channel)
    require_private(channel, campaign)


def require_can_post(channel: discord.TextChannel) -> None:
    """Refuse a GM log channel the bot can't post embeds in, saying which permission is missing."""
    me = channel.guild.me
    if me is None:
        return  # not cached: Discord will tell us when we post
    allowed = channel.permissions_for(me)
    missing = [
        name
        for name, ok in (
            ("View Channel", allowed.view_channel),
            ("Send Messages", allowed.send_messages),
            ("Embed Links", allowed.embed_links),
        )
        if not ok
    ]
    if missing:
        raise CommandError(
            f"I can't post in {channel.mention}: I need {', '.join(missing)} there. "
            "Give me those permissions, or choose another channel."
        )


def require_private(channel: discord.TextChannel, campaign: Campaign) -> None:
    """Refuse a GM log channel that members who aren't the campaign's GMs can read: every
    hidden and blind roll is copied there in full."""
    readers = readable_by_players(channel, campaign)
    if readers is not None:
        raise CommandError(
            f"{channel.mention} can be read by {readers}, who aren't GMs of this campaign, "
            "and every secret roll is copied there in full. Choose a channel only GMs can "
            "read (deny View Channel to @everyone and to players' roles), or make them GMs."
        )
