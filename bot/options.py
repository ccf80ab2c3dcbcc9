"""Helpers for slash-command options: enum choices, and checking what arrived on the wire.

Discord's client only sends options that match the synced commands, but discord.py trusts the
payload: a client holding an outdated command list, or a forged request, can send a string where
an integer belongs, an integer past 2^63, an unresolved user or a 6,000-character name. Each of
those would fail deep inside a command. ``check_payload`` refuses them first, with a message the
user can act on.
"""

from __future__ import annotations

import functools
import logging
import math
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping
from enum import Enum
from typing import Any, ParamSpec, TypeVar

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType as OptionType

from bot.discord_private import AddedOption, add_options
from rules.declarations import Setting
from rules.inputs import checked_name

__all__ = [
    "BLIND_HELP",
    "CHARACTER_NAME_HELP",
    "CHARACTER_NAME_MAX",
    "DISCORD_INTEGER_MAX",
    "HIDDEN_HELP",
    "ID_PATTERN",
    "NEW_NAME_HELP",
    "STALE_COMMAND_MESSAGE",
    "STORED_ID_MAX",
    "WHOSE_CHARACTER_HELP",
    "Answer",
    "CharacterName",
    "IdOutOfRange",
    "MalformedOptions",
    "StaleCommand",
    "character_name",
    "check_payload",
    "choices_of",
    "command_with_settings",
    "insert_command",
    "matching",
    "stored_id",
    "suggest",
]

E = TypeVar("E", bound=Enum)

log = logging.getLogger(__name__)

# Discord's integer options lie within ±(2^53 - 1), "any integer between -2^53+1 and 2^53-1"
# (Discord's application-commands documentation): a command whose min_value or max_value lies
# past it is refused, and with it the whole sync. Number options are held to the same bound.
DISCORD_INTEGER_MAX = 2**53 - 1
SNOWFLAKE_MAX_DIGITS = 20
# Ids are stored as signed 64-bit integers (SQLite's INTEGER, PostgreSQL's bigint): past this the
# database driver raises OverflowError. Discord's own snowflakes stay below it.
STORED_ID_MAX = 2**63 - 1
# An id in a button's custom id: as many digits as a snowflake has, so that the button's handler
# reads a forged id past STORED_ID_MAX and refuses it (stored_id), rather than leave the click
# unanswered because the custom id matched no button.
ID_PATTERN = f"[0-9]{{1,{SNOWFLAKE_MAX_DIGITS}}}"
# Discord's own ceiling for a string option without max_length.
DISCORD_STRING_MAX = 6_000
HIDDEN_HELP = "GMs: only you see it, until /campaign reveal shows it"
CHARACTER_NAME_MAX = 60
CharacterName = app_commands.Range[str, 1, CHARACTER_NAME_MAX]
CHARACTER_NAME_HELP = f"Your character's name (up to {CHARACTER_NAME_MAX} characters)"
# The `character rename|delete|edit` options of every system with characters.
WHOSE_CHARACTER_HELP = "GMs: whose character, by name (default: yours)"
NEW_NAME_HELP = f"The new name (up to {CHARACTER_NAME_MAX} characters)"
BLIND_HELP = "Only the GMs see the result; you see that you rolled"
STALE_COMMAND_MESSAGE = (
    "This command changed since your Discord app loaded it: reload Discord "
    "(Ctrl+R, or restart the app) and try again."
)


# A command's handler, taking its options (those of a command built with its settings too).
Answer = Callable[..., Coroutine[Any, Any, None]]


def command_with_settings(
    name: str, description: str, declared: Answer, settings: Iterable[Setting[Any]], answer: Answer
) -> app_commands.Command[Any, ..., None]:
    """The command ``name``: ``declared``'s options, then one optional option per campaign
    setting (its help, and for a choice its values). ``declared`` only declares; ``answer``
    answers, taking ``declared``'s parameters and the settings as ``**chosen``.

    Built when a cog is set up, from the systems the bot found (``cogs.campaign``): a new
    setting is declared only in its system.
    """
    command: app_commands.Command[Any, ..., None]
    command = app_commands.Command(name=name, description=description, callback=declared)
    options = [
        AddedOption(
            setting.name,
            setting.help,
            bool if setting.kind is bool else str,
            tuple(choices_of(setting.kind)) if issubclass(setting.kind, Enum) else (),
        )
        for setting in settings
    ]
    add_options(command, options, answer)
    return command


def insert_command(
    group: app_commands.Group, command: app_commands.Command[Any, ..., Any], *, before: str
) -> None:
    """Add ``command`` to ``group`` just before its subcommand ``before``: Discord lists them in
    the order they are added."""
    children = group.commands
    moved = children[[child.name for child in children].index(before) :]
    for child in moved:
        group.remove_command(child.name)
    group.add_command(command)
    for child in moved:
        group.add_command(child)


CHOICES_MAX = 25  # Discord shows at most this many suggestions
CHOICE_NAME_MAX = CHOICE_VALUE_MAX = 100  # ... each with a name and a text value this long


P = ParamSpec("P")
ChoiceT = TypeVar("ChoiceT", str, int, float)
Suggestions = Coroutine[Any, Any, list[app_commands.Choice[ChoiceT]]]


def suggest(complete: Callable[P, Suggestions[ChoiceT]]) -> Callable[P, Suggestions[ChoiceT]]:
    """Wrap an autocomplete callback so a failure suggests nothing instead of logging an ERROR.

    Suggestions are a convenience while typing: on any error the user just sees none, and the
    command itself still checks what they finally send. At most 25 go back, each within
    Discord's 100 characters: a longer name is cut with "…", and a suggestion whose value is
    longer (a stored name that grew past it) is left out, as Discord would refuse the answer.
    """

    @functools.wraps(complete)
    async def safe(*args: P.args, **kwargs: P.kwargs) -> list[app_commands.Choice[ChoiceT]]:
        try:
            choices = await complete(*args, **kwargs)
        except Exception:
            log.warning(
                "Autocomplete %s failed; suggesting nothing", complete.__qualname__, exc_info=True
            )
            return []
        return [
            app_commands.Choice(name=_fitted(choice.name), value=choice.value)
            for choice in choices
            if not isinstance(choice.value, str) or len(choice.value) <= CHOICE_VALUE_MAX
        ][:CHOICES_MAX]

    return safe


def _fitted(name: str) -> str:
    """A suggestion's name within Discord's 100 characters, cut with "…" when longer."""
    return name if len(name) <= CHOICE_NAME_MAX else name[: CHOICE_NAME_MAX - 1] + "…"


def matching(text: object, names: Iterable[str]) -> list[str]:
    """Return the names that contain what was typed so far (any case), best matches first."""
    typed = str(text or "").strip().casefold()
    found = [name for name in names if typed in name.casefold()]
    return sorted(found, key=lambda name: not name.casefold().startswith(typed))


def character_name(text: str) -> str:
    """Return a new character's name as stored, or refuse it: the check every name users give
    passes (``rules.inputs.checked_name``; docs/players/index.md, "Names"), at most
    ``CHARACTER_NAME_MAX`` characters once normalised."""
    return checked_name(text, "Character name", CHARACTER_NAME_MAX)


def choices_of(
    enum: type[E], label: Callable[[E], str] = lambda member: str(member.value)
) -> list[app_commands.Choice[str]]:
    """Offer an enum's members as choices whose values are the members' values."""
    return [app_commands.Choice(name=label(member), value=str(member.value)) for member in enum]


class StaleCommand(app_commands.AppCommandError):
    """The options don't match the command as the bot defines it now."""

    def __init__(self) -> None:
        super().__init__(STALE_COMMAND_MESSAGE)


class MalformedOptions(app_commands.AppCommandError):
    """An option's value is of the wrong kind or size; the message names the option."""


class IdOutOfRange(MalformedOptions):
    """An id in a button's custom id or an option that no row of the database can have."""


def stored_id(value: int, what: str) -> int:
    """Return ``value`` if it can name a row of the database, else refuse it.

    Every id read from a button's custom id or a command's option passes through here before
    it reaches the database (docs/players/index.md, "Input Discord's client wouldn't send"). Only a
    forged or broken request carries another: it gets a private refusal, not an OverflowError.
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= STORED_ID_MAX:
        raise IdOutOfRange(
            f"There is no {what} {value}: ids run from 1 to "
            f"{STORED_ID_MAX}, so this button or option wasn't made by the bot. "
            "Nothing was changed."
        )
    return value


_RESOLVED_KEYS: Mapping[OptionType, tuple[str, ...]] = {
    OptionType.user: ("users",),
    OptionType.channel: ("channels",),
    OptionType.role: ("roles",),
    OptionType.mentionable: ("users", "roles"),
    OptionType.attachment: ("attachments",),
}
_NOT_FOUND: Mapping[OptionType, str] = {
    OptionType.user: "member",
    OptionType.channel: "channel",
    OptionType.role: "role",
    OptionType.mentionable: "member or role",
    OptionType.attachment: "attachment",
}


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_value(
    parameter: app_commands.Parameter, value: Any, resolved: Mapping[str, Any]
) -> None:
    name = parameter.display_name
    kind = parameter.type
    if kind is OptionType.string:
        if not isinstance(value, str):
            raise MalformedOptions(f"`{name}` must be text.")
        limit = parameter.max_value if parameter.max_value is not None else DISCORD_STRING_MAX
        if len(value) > limit:
            raise MalformedOptions(
                f"`{name}` can be at most {int(limit)} characters (got {len(value):,})."
            )
    elif kind is OptionType.integer:
        if not _is_integer(value) or abs(value) > DISCORD_INTEGER_MAX:
            raise MalformedOptions(
                f"`{name}` must be a whole number within ±{DISCORD_INTEGER_MAX:,}."
            )
    elif kind is OptionType.number:
        number_ok = _is_integer(value) or isinstance(value, float)
        if not number_ok or not math.isfinite(value) or abs(value) > DISCORD_INTEGER_MAX:
            raise MalformedOptions(f"`{name}` must be a number within ±{DISCORD_INTEGER_MAX:,}.")
    elif kind is OptionType.boolean:
        if not isinstance(value, bool):
            raise MalformedOptions(f"`{name}` must be true or false.")
    elif kind in _RESOLVED_KEYS:
        digits = isinstance(value, str) and value.isdigit() and len(value) <= SNOWFLAKE_MAX_DIGITS
        known = [resolved.get(key) for key in _RESOLVED_KEYS[kind]]
        if not digits or not any(isinstance(ids, dict) and value in ids for ids in known):
            raise MalformedOptions(
                f"`{name}`: Discord didn't say which {_NOT_FOUND[kind]} that is."
            )
        stored_id(int(value), _NOT_FOUND[kind])


def _leaf(
    command: app_commands.Command[Any, ..., Any] | app_commands.Group, options: list[Any]
) -> tuple[app_commands.Command[Any, ..., Any], list[Any]]:
    """Follow subcommand groups down to the command that runs, and return its options."""
    while isinstance(command, app_commands.Group):
        if len(options) != 1 or not isinstance(options[0], dict):
            raise StaleCommand()
        child = command.get_command(str(options[0].get("name")))
        if child is None:
            raise StaleCommand()
        command, options = child, options[0].get("options") or []
        if not isinstance(options, list):
            raise StaleCommand()
    return command, options


# A command's parameters by the name Discord sends: discord.py builds its ``parameters`` list
# anew on each access, and a command's options never change once it is in the tree.
_PARAMETERS: weakref.WeakKeyDictionary[
    app_commands.Command[Any, ..., Any], dict[str, app_commands.Parameter]
] = weakref.WeakKeyDictionary()


def _parameters(command: app_commands.Command[Any, ..., Any]) -> dict[str, app_commands.Parameter]:
    parameters = _PARAMETERS.get(command)
    if parameters is None:
        parameters = {parameter.display_name: parameter for parameter in command.parameters}
        _PARAMETERS[command] = parameters
    return parameters


def check_payload(tree: app_commands.CommandTree[Any], interaction: discord.Interaction) -> None:
    """Refuse a slash command whose options Discord's client would not have sent.

    Raises StaleCommand for unknown, missing or mistyped options (an outdated client), and
    MalformedOptions for a value of the wrong kind or size. Ranges and choices are left to the
    commands, which explain them in the game's own words.
    """
    data: Mapping[str, Any] = interaction.data or {}
    guild = discord.Object(interaction.guild_id) if interaction.guild_id else None
    command = tree.get_command(str(data.get("name")), guild=guild) or tree.get_command(
        str(data.get("name"))
    )
    options = data.get("options") or []
    if command is None or not isinstance(options, list):
        raise StaleCommand()
    leaf, options = _leaf(command, options)
    parameters = _parameters(leaf)
    resolved = data.get("resolved")
    resolved = resolved if isinstance(resolved, dict) else {}
    seen: set[str] = set()
    for option in options:
        if not isinstance(option, dict):
            raise StaleCommand()
        parameter = parameters.get(str(option.get("name")))
        if parameter is None or option.get("type") != parameter.type.value or "value" not in option:
            raise StaleCommand()
        seen.add(parameter.display_name)
        _check_value(parameter, option["value"], resolved)
    if any(p.required and p.display_name not in seen for p in parameters.values()):
        raise StaleCommand()
