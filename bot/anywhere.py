"""Where a command works: anywhere, or only in a server channel where the bot is installed.

The bot installs to a server and to a user (docs/hosting.md, "Create the application and invite the
bot"). Commands that need no campaign (`/roll`, each system's stateless rolls and odds, personal
macros, `/help`) work anywhere: in a server with or without the bot, in DMs and group DMs.
Everything else (campaigns, characters, tracks) needs the channel's campaign, so it works only in a
server channel where the bot is installed (docs/players/index.md, "Where commands work").

A command works anywhere only when it says so (``anywhere`` on a command, ``anywhere_group`` on
a command group or GroupCog): the tree's defaults offer every other command to server installs
in servers only, and ``refuse_outside_server`` refuses it in one line when it is used elsewhere
anyway (a subcommand of a group that works anywhere, an outdated client, a macro).
"""

from __future__ import annotations

from typing import Any, TypeVar
from urllib.parse import urlencode

import discord
from discord import app_commands

from bot.errors import CommandError

__all__ = [
    "INVITE_PERMISSIONS",
    "INVITE_PERMISSION_FLAGS",
    "INVITE_SCOPES",
    "anywhere",
    "anywhere_group",
    "copy_as_guild_commands",
    "in_server",
    "invite_url",
    "is_anywhere",
    "refuse_outside_server",
    "server_contexts",
    "server_installs",
    "server_only_line",
    "user_install_url",
]

C = TypeVar("C", bound=app_commands.Command[Any, Any, Any])
T = TypeVar("T")

_ANYWHERE = "anywhere"  # the key of ``anywhere`` in a command's extras

# The bot permissions the invite asks for, by their discord.Permissions names (docs/hosting.md,
# "Create the application"): the one list the invite's permissions integer is computed from.
INVITE_PERMISSION_FLAGS: tuple[str, ...] = (
    "view_channel",  # View Channels: see the channel it is asked in
    "send_messages",  # Send Messages: announcements, a contest's prompt, a GM log channel copy
    "send_messages_in_threads",  # the same in a thread, which plays in its parent's campaign
    "embed_links",  # every roll's reply is an embed
    "attach_files",  # the odds and recap charts (PNG)
)
INVITE_PERMISSIONS = discord.Permissions(**dict.fromkeys(INVITE_PERMISSION_FLAGS, True))
# A server install: the bot user and its slash commands.
INVITE_SCOPES: tuple[str, ...] = ("bot", "applications.commands")


def server_installs() -> app_commands.AppInstallationType:
    """What Discord offers a command that says nothing: server installs only (a new object:
    discord.py's decorators change the one they are given)."""
    return app_commands.AppInstallationType(guild=True, user=False)


def server_contexts() -> app_commands.AppCommandContext:
    """... and where: servers only."""
    return app_commands.AppCommandContext(guild=True, dm_channel=False, private_channel=False)


def copy_as_guild_commands(tree: app_commands.CommandTree[Any], guild: discord.Object) -> None:
    """Make every command of ``tree`` a command of ``guild`` only (what ``GUILD_ID`` asks: the
    commands show there at once), synced without ``contexts`` and ``integration_types``.

    Discord documents both as "only for globally-scoped commands": a guild command is offered in
    its server, to the server install. discord.py writes them on every command it syncs, so the
    tree's defaults and each command's own are cleared; a bot that syncs to a guild never syncs
    globally, and where a command works is still checked by ``refuse_outside_server``.
    """
    tree.copy_global_to(guild=guild)
    tree.allowed_contexts = app_commands.AppCommandContext()
    tree.allowed_installs = app_commands.AppInstallationType()
    for command in tree.get_commands(guild=guild):
        command.allowed_contexts = None
        command.allowed_installs = None


def anywhere(command: C) -> C:
    """Declare a command that works anywhere (above ``app_commands.command``): Discord offers
    it to both installs in every context (a top-level command; a subcommand takes its group's),
    and ``refuse_outside_server`` lets it through."""
    command.extras[_ANYWHERE] = True
    command.allowed_installs = app_commands.AppInstallationType(guild=True, user=True)
    command.allowed_contexts = app_commands.AppCommandContext(
        guild=True, dm_channel=True, private_channel=True
    )
    return command


def anywhere_group(group: T) -> T:
    """Offer a command group (a GroupCog class) to both installs in every context: the
    subcommands that work anywhere say so with ``anywhere``; the others are refused there."""
    offered = app_commands.allowed_installs(guilds=True, users=True)(group)
    return app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)(offered)


def is_anywhere(command: object) -> bool:
    """Whether ``command`` was declared with ``anywhere``."""
    return isinstance(command, app_commands.Command) and command.extras.get(_ANYWHERE) is True


def in_server(interaction: discord.Interaction) -> bool:
    """Whether the interaction comes from a server channel where the bot is installed (not a
    DM, a group DM, or a server where only the user installed it)."""
    return interaction.is_guild_integration()


def invite_url(application_id: int) -> str:
    """The link that installs the bot to a server, with the permissions it needs."""
    return discord.utils.oauth_url(
        application_id,
        permissions=INVITE_PERMISSIONS,
        scopes=INVITE_SCOPES,
    )


def user_install_url(application_id: int) -> str:
    """The link that adds the bot's commands to a user's own account (a user install)."""
    query = urlencode(
        {"client_id": application_id, "integration_type": 1, "scope": "applications.commands"}
    )
    return f"https://discord.com/oauth2/authorize?{query}"


def server_only_line(interaction: discord.Interaction, what_works: str) -> str:
    """The one line that says where something works: ``what_works`` is its subject and verb
    ("`/campaign start` works", "Campaigns work")."""
    return (
        f"{what_works} only in a server channel where the bot is installed (campaigns, "
        "characters and tracks live there; /roll, each system's rolls and odds, your macros "
        f"and /help work anywhere): invite it with <{invite_url(interaction.application_id)}>"
    )


def refuse_outside_server(interaction: discord.Interaction, command: object) -> None:
    """Refuse a command that needs a server with the bot when used anywhere else."""
    if in_server(interaction) or is_anywhere(command):
        return
    name = command.qualified_name if isinstance(command, app_commands.Command) else "This"
    raise CommandError(server_only_line(interaction, f"`/{name}` works"))
