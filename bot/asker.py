"""Who is asking, where, and under which campaign: what every command needs first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import discord

from bot.anywhere import in_server, server_only_line
from bot.errors import CommandError
from bot.storage import Campaign, Character, CharacterStore, Revealer, Storage, Visibility
from rules.systems import System

__all__ = [
    "Asker",
    "campaign_channel_id",
    "campaign_here",
    "gms_to_ask",
    "is_gm",
    "manages_server",
]

S = TypeVar("S")


def campaign_channel_id(interaction: discord.Interaction) -> int:
    """Return the channel that owns this interaction's campaign: a thread's parent, else itself."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) and channel.parent_id is not None:
        return channel.parent_id
    assert interaction.channel_id is not None
    return interaction.channel_id


async def campaign_here(interaction: discord.Interaction, storage: Storage) -> Campaign | None:
    """The running campaign of the interaction's channel (a thread's parent), seen only in a
    server channel where the bot is installed: elsewhere there is none, even in a channel that
    had one before the bot left its server (docs/players/index.md, "Where commands work").

    The one gate between an interaction and its channel's campaign: commands (``Asker.of``)
    and every suggestion while typing go through it, so nothing is suggested that the command
    would refuse to use.
    """
    if not in_server(interaction):
        return None
    return await storage.campaigns.active(campaign_channel_id(interaction))


def manages_server(interaction: discord.Interaction) -> bool:
    """Whether the user has Manage Server here, which makes them a GM of every campaign."""
    return interaction.guild_id is not None and interaction.permissions.manage_guild


def is_gm(campaign: Campaign | None, interaction: discord.Interaction) -> bool:
    """GMs are the campaign's founder and co-GMs, and members who can manage the server."""
    if manages_server(interaction):
        return True
    return campaign is not None and interaction.user.id in campaign.gm_ids


GMS_NAMED_MAX = 10  # co-GMs a refusal names; the rest are counted


# A player's `hidden:true`: `blind` is the player's secret roll (docs/gms.md, "Hidden, blind and
# reveal"), and a blind roll needs a campaign's GMs to send it to.
PLAYER_HIDDEN = (
    "Only a GM can roll hidden. For a secret roll, use `blind:true` instead: the GMs see the "
    "result and you don't. Or roll without `hidden`."
)
HIDDEN_NO_CAMPAIGN = (
    "Only a GM can roll hidden, and there is no campaign here: roll without `hidden`. (A "
    "player's secret roll is `blind:true`, in a campaign's channel, where its GMs see it.)"
)


def gms_to_ask(campaign: Campaign | None) -> str:
    """Who to ask for what only a GM may do: the campaign's founder and co-GMs, by mention (a
    mention in a refusal, which only its reader sees, pings nobody), and members with Manage
    Server; outside a campaign, who would count."""
    if campaign is None:
        return "GMs are a campaign's founder, the co-GMs they add, and members with Manage Server."
    founder = campaign.created_by
    co_gms = [f"<@{user_id}>" for user_id in sorted(campaign.gm_ids - {founder})]
    named = co_gms[:GMS_NAMED_MAX]
    if len(co_gms) > GMS_NAMED_MAX:
        named.append(f"{len(co_gms) - GMS_NAMED_MAX} more co-GMs")
    gms = ", ".join([f"<@{founder}> (founder)", *named])
    return f"GMs are {gms} and members with Manage Server: ask one of them."


@dataclass(frozen=True, slots=True)
class Asker:
    """The asking user at their channel's table."""

    guild_id: int | None
    channel_id: int
    user_id: int
    campaign: Campaign | None
    is_gm: bool
    manages_server: bool
    # Outside a server channel where the bot is installed (a DM, a group DM, a server where
    # only the user installed it): the line saying where campaigns run (bot.anywhere).
    server_only: str | None = None

    @classmethod
    async def of(cls, interaction: discord.Interaction, storage: Storage) -> Asker:
        """Look up the campaign of the interaction's channel (a thread's parent); outside a
        server with the bot there is none (docs/players/index.md, "Where commands work")."""
        channel_id = campaign_channel_id(interaction)
        here = in_server(interaction)
        campaign = await campaign_here(interaction, storage)
        return cls(
            guild_id=interaction.guild_id,
            channel_id=channel_id,
            user_id=interaction.user.id,
            campaign=campaign,
            is_gm=is_gm(campaign, interaction),
            manages_server=manages_server(interaction),
            server_only=None if here else server_only_line(interaction, "Campaigns work"),
        )

    @classmethod
    async def visibility_asked(
        cls,
        interaction: discord.Interaction,
        storage: Storage,
        hidden: bool | None,
        blind: bool = False,
    ) -> Visibility:
        """The visibility a roll command's `hidden` and `blind` options ask for here (a
        handler's first step: past it, only the ``Visibility`` travels)."""
        return (await cls.of(interaction, storage)).visibility(hidden=hidden, blind=blind)

    @classmethod
    async def for_roll(
        cls, interaction: discord.Interaction, storage: Storage, visibility: Visibility
    ) -> Asker:
        """Return the asker's table, refusing before anything is rolled a visibility they may
        not roll here (``may_roll``)."""
        asker = await cls.of(interaction, storage)
        asker.may_roll(visibility)
        return asker

    def require_gm(self, action: str) -> None:
        """Refuse a GM-only action to a player, naming the campaign's GMs to ask instead."""
        if not self.is_gm:
            raise CommandError(f"Only a GM can {action}. {gms_to_ask(self.campaign)}")

    def require_campaign(self, system: System | None = None) -> Campaign:
        """Return the running campaign (of ``system``) or explain that there is none."""
        if self.server_only is not None:
            raise CommandError(self.server_only)
        if self.campaign is None:
            wanted = f"{system.with_article} campaign" if system else "a campaign"
            raise CommandError(
                f"This channel has no running campaign; this needs {wanted}. "
                "Start one with `/campaign start`."
            )
        if system is not None and self.campaign.system != system:
            self.refuse_if_not_installed(f"this needs {system.with_article} campaign")
            raise CommandError(
                f"This channel runs the {self.campaign.system.display_name} campaign "
                f"**{self.campaign.settings.name}**; this needs {system.display_name}: use a "
                f"channel running one, or start one with `/campaign start system:{system.value}`"
                " in a channel that has none."
            )
        return self.campaign

    def refuse_if_not_installed(self, needs: str) -> None:
        """Refuse (``needs``: what the command needs instead) in a channel whose campaign is of
        a system no installed package declares (docs/development.md, "Adding a system")."""
        if self.campaign is None or self.campaign.system.installed:
            return
        raise CommandError(
            f"This channel's campaign is of {self.campaign.system.with_article}; {needs}. "
            "A GM can end it with `/campaign end`, or the bot's host can install its system's "
            "package again (SYSTEM_PACKAGES)."
        )

    async def own_or_named(
        self, characters: CharacterStore[S], campaign: Campaign, name: str | None, action: str
    ) -> Character[S]:
        """Return the asker's character, or the one named (another player's only for a GM)."""
        if name is None:
            return await characters.find(campaign, user_id=self.user_id)
        found = await characters.find(campaign, name=name)
        if found.user_id != self.user_id:
            self.require_gm(f"{action} for another player's character")
        return found

    def visibility(self, *, hidden: bool | None, blind: bool = False) -> Visibility:
        """Decide a roll's visibility from the command's `hidden` (None: not said) and `blind`
        options and the campaign's settings: the one place it is decided.

        A GM's roll that says neither is hidden when the campaign's `gm_rolls` is hidden
        (docs/gms.md, "Campaigns"); `hidden:false` keeps it public. Only asking both is refused
        here (a player's `hidden` first); whoever rolls it asks ``may_roll`` before rolling.
        """
        if hidden is None:
            switches = self.campaign.switches if self.campaign is not None else None
            hidden = not blind and self.is_gm and switches is not None and switches.gm_rolls_hidden
        if hidden and blind:
            self.may_roll(Visibility.HIDDEN)
            raise CommandError(
                "Choose `hidden` (a GM's own secret) or `blind` (a player's), not both."
            )
        if hidden:
            return Visibility.HIDDEN
        return Visibility.BLIND if blind else Visibility.PUBLIC

    def may_roll(self, visibility: Visibility) -> Visibility:
        """Return ``visibility`` if the asker may roll it here, else refuse before anything is
        rolled: a player's hidden roll (pointing to blind), and a blind roll outside a campaign
        (it has no GMs to get it). Roll again asks it of the visibility it inherits."""
        if visibility is Visibility.HIDDEN and not self.is_gm:
            raise CommandError(PLAYER_HIDDEN if self.campaign is not None else HIDDEN_NO_CAMPAIGN)
        if visibility is Visibility.BLIND:
            self.require_campaign()
        return visibility

    @property
    def revealer(self) -> Revealer:
        """The asker, as the roll log decides a reveal (in the roll's own server)."""
        return Revealer(self.guild_id, self.user_id, self.manages_server)
