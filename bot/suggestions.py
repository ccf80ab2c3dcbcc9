"""Suggestions every system shares while typing: the campaign's characters by name.

docs/players/index.md, "Suggestions while typing". Every text option called ``character`` (a
character by name, in any system's commands) suggests this channel's campaign's characters, the
asker's own first. ``suggest_characters`` wires it into every command that has one when the bot
starts, so a new command gets it without a decorator of its own. Every suggestion from a
campaign reads it through ``bot.asker.campaign_here``, as commands do: outside a server with the
bot, nothing of a campaign is suggested.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType

from bot.access import storage_of
from bot.asker import campaign_here
from bot.options import matching, suggest
from bot.storage.characters import CharacterStore, RosterEntry, roster
from bot.storage.errors import CharacterNotFound, WhichCharacter
from rules.systems import System

__all__ = [
    "CHARACTER_OPTION",
    "character_choices",
    "own_first",
    "sheet_being_typed_for",
    "suggest_characters",
]

CHARACTER_OPTION = "character"
S = TypeVar("S")


def own_first(typed: str, entries: Sequence[RosterEntry], user_id: int) -> list[str]:
    """The names that contain what was typed: the asker's own characters first, then those
    starting with it, then the rest, each by name."""
    own = {entry.name for entry in entries if entry.user_id == user_id}
    found = matching(typed, [entry.name for entry in entries])
    return sorted(found, key=lambda name: name not in own)  # stable: keeps matching's order


@suggest
async def character_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Suggest the characters of this channel's campaign, the asker's own first (none outside
    a server with the bot: ``campaign_here``)."""
    storage = storage_of(interaction)
    campaign = await campaign_here(interaction, storage)
    if campaign is None:
        return []
    entries = await roster(storage.database, campaign)
    names = own_first(current, entries, interaction.user.id)
    return [app_commands.Choice(name=name, value=name) for name in names]


def suggest_characters(tree: app_commands.CommandTree[Any]) -> None:
    """Give every command's ``character`` text option the campaign's characters as suggestions
    (an option that suggests something of its own keeps it)."""
    for command in tree.walk_commands():
        if not isinstance(command, app_commands.Command):
            continue
        for parameter in command.parameters:
            if (
                parameter.name == CHARACTER_OPTION
                and parameter.type is AppCommandOptionType.string
                and not parameter.autocomplete
            ):
                command.autocomplete(parameter.name)(character_choices)


async def sheet_being_typed_for(
    interaction: discord.Interaction,
    characters: CharacterStore[S],
    system: System,
    *,
    owner_option: str | None = None,
) -> S | None:
    """The sheet a command being typed will use: the character named in its ``character``
    option so far, else the asker's own; with ``owner_option`` (a member option, such as an
    opponent's ``vs_user``), the character of the member chosen there. None outside a campaign
    of ``system`` (or outside a server with the bot: ``campaign_here``), or when there is no
    such character yet."""
    campaign = await campaign_here(interaction, storage_of(interaction))
    if campaign is None or campaign.system != system:
        return None
    if owner_option is not None:
        owner = getattr(interaction.namespace, owner_option, None)
        if not isinstance(owner, discord.abc.User):
            return None
        named, user_id = None, owner.id
    else:
        named, user_id = getattr(interaction.namespace, CHARACTER_OPTION, None), interaction.user.id
    try:
        if isinstance(named, str) and named.strip():
            return (await characters.find(campaign, name=named)).sheet
        return (await characters.find(campaign, user_id=user_id)).sheet
    except (CharacterNotFound, WhichCharacter):
        return None
