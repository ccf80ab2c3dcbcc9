"""Roll commands saved in a macro: `/cosmos roll attribute:3 skill:2 tn:15`.

A macro that holds a command keeps its name, its options as typed, and the *shape* the command's
options had when it was saved (names, types, whether required, choices, ranges). Rolling the
macro checks the shape again, so a command whose options have changed since fails with a clear
message instead of rolling something else; then the options are checked as Discord would check
them and the command runs as if the user had typed it (its own permission checks included).

Only roll commands can be saved (those declared with ``bot.publish.roll_command``), except
`/macro roll` itself.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

import discord
from discord import app_commands

from bot.access import dice_bot
from bot.anywhere import refuse_outside_server
from bot.discord_private import invoke_with_options
from bot.errors import CommandError
from bot.publish import is_roll_command
from bot.storage import Visibility

__all__ = ["SavedCommand", "parse_command_line", "run_saved_command"]

OptionValue = str | int | float | bool
_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_SAVABLE_TYPES = {
    discord.AppCommandOptionType.string,
    discord.AppCommandOptionType.integer,
    discord.AppCommandOptionType.number,
    discord.AppCommandOptionType.boolean,
}


@dataclass(frozen=True, slots=True)
class SavedCommand:
    """A roll command with its options, and the shape of the command's options when saved."""

    name: str  # qualified, e.g. "cosmos roll"
    options: tuple[tuple[str, OptionValue], ...]
    shape: str

    def text(self) -> str:
        """The command as a user would type it: `/cosmos roll attribute:3 skill:2 tn:15`."""
        options = " ".join(f"{name}:{_shown(value)}" for name, value in self.options)
        return f"/{self.name} {options}".rstrip()

    def secrecy(self) -> tuple[bool | None, bool]:
        """The ``hidden`` and ``blind`` it was saved with (None: ``hidden`` not said)."""
        options = dict(self.options)
        hidden, blind = options.get("hidden"), options.get("blind")
        return (hidden if isinstance(hidden, bool) else None), blind is True

    def encode(self) -> str:
        return json.dumps({"name": self.name, "options": dict(self.options), "shape": self.shape})

    @classmethod
    def decode(cls, stored: str) -> SavedCommand:
        data = json.loads(stored)
        return cls(data["name"], tuple(data["options"].items()), data["shape"])


def _shown(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _shape(command: app_commands.Command) -> str:
    """A digest of what the command's options are: any change to them changes it."""
    options = [
        [
            parameter.display_name,
            parameter.type.value,
            parameter.required,
            sorted(str(choice.value) for choice in parameter.choices),
            parameter.min_value,
            parameter.max_value,
        ]
        for parameter in command.parameters
    ]
    return hashlib.sha256(json.dumps(options).encode()).hexdigest()[:16]


def _savable(command: app_commands.Command) -> bool:
    return is_roll_command(command) and command.qualified_name != "macro roll"


def _roll_commands(tree: app_commands.CommandTree) -> dict[str, app_commands.Command]:
    """Every roll command by qualified name."""
    found: dict[str, app_commands.Command] = {}
    stack: list[app_commands.Command | app_commands.Group | app_commands.ContextMenu]
    stack = list(tree.get_commands())
    while stack:
        command = stack.pop()
        if isinstance(command, app_commands.Group):
            stack.extend(command.commands)
        elif isinstance(command, app_commands.Command) and _savable(command):
            found[command.qualified_name] = command
    return found


def parse_command_line(tree: app_commands.CommandTree, text: str) -> SavedCommand:
    """Read `/cosmos roll attribute:3 skill:2 tn:15` against the bot's commands, checking the
    options as Discord would; raise CommandError saying what is wrong."""
    words = text.strip().removeprefix("/").split()
    commands = _roll_commands(tree)
    for length in range(min(3, len(words)), 0, -1):  # the longest name that is a command
        name = " ".join(words[:length]).lower()
        if name in commands:
            command = commands[name]
            rest = text.strip().removeprefix("/").split(None, length)[length:]
            options = _read_options(command, rest[0] if rest else "")
            return SavedCommand(command.qualified_name, options, _shape(command))
    examples = ", ".join(f"`/{name}`" for name in sorted(commands)[:6])
    raise CommandError(
        f"`{text.strip()[:60]}` isn't a roll command. A macro holds dice (`1d20+7`) or a roll "
        f"command with its options, like `/cosmos roll attribute:3 skill:2 tn:15` ({examples}, …)."
    )


def _read_options(
    command: app_commands.Command,
    text: str,
) -> tuple[tuple[str, OptionValue], ...]:
    """Split `attribute:3 skill:2` at the command's option names, then check the values."""
    names = "|".join(
        re.escape(parameter.display_name)
        for parameter in sorted(command.parameters, key=lambda p: len(p.display_name), reverse=True)
    )
    marks = list(re.finditer(rf"(?:^|\s)({names}):", text, flags=re.IGNORECASE))
    leading = text[: marks[0].start()] if marks else text
    if leading.strip():
        raise CommandError(
            f"Give `/{command.qualified_name}`'s options as name:value (`{leading.strip()[:30]}` "
            f"isn't one): {_usage(command)}"
        )
    typed: dict[str, str] = {}
    for mark, following in zip(marks, [*marks[1:], None], strict=True):
        name = mark[1].lower()
        if name in typed:
            raise CommandError(f"`{name}` is given twice.")
        typed[name] = text[mark.end() : following.start() if following else len(text)].strip()
    return _checked_options(command, typed)


def _usage(command: app_commands.Command) -> str:
    return " ".join(f"{parameter.display_name}:…" for parameter in command.parameters)


def _checked_options(
    command: app_commands.Command,
    typed: dict[str, str],
) -> tuple[tuple[str, OptionValue], ...]:
    """Each typed option's value, checked against the command as it is now."""
    parameters = {parameter.display_name: parameter for parameter in command.parameters}
    values = {name: _option_value(command, parameters[name], raw) for name, raw in typed.items()}
    missing = [
        p.display_name for p in command.parameters if p.required and p.display_name not in values
    ]
    if missing:
        raise CommandError(
            f"`/{command.qualified_name}` needs {', '.join(f'`{name}`' for name in missing)}: "
            f"{_usage(command)}"
        )
    return tuple(values.items())


def _option_value(
    command: app_commands.Command,
    parameter: app_commands.Parameter,
    raw: str,
) -> OptionValue:
    """One option's value, checked as Discord checks what a user types."""
    where = f"`{parameter.display_name}` of `/{command.qualified_name}`"
    kind = parameter.type
    if kind not in _SAVABLE_TYPES:
        raise CommandError(f"{where} can't be saved in a macro (it is a {kind.name}).")
    if not raw:
        raise CommandError(f"{where} has no value.")
    value: OptionValue
    if parameter.choices:
        choice = next(
            (
                c
                for c in parameter.choices
                if raw.casefold() in (str(c.value).casefold(), c.name.casefold())
            ),
            None,
        )
        if choice is None:
            allowed = ", ".join(f"`{c.value}`" for c in parameter.choices)
            raise CommandError(f"{where} is one of {allowed} (got `{raw[:30]}`).")
        return choice.value
    if kind is discord.AppCommandOptionType.boolean:
        if raw.lower() not in _TRUE | _FALSE:
            raise CommandError(f"{where} is true or false (got `{raw[:30]}`).")
        return raw.lower() in _TRUE
    size: float  # a string's length, a number's value
    if kind is discord.AppCommandOptionType.string:
        value, size = raw, len(raw)
    else:
        try:
            value = int(raw) if kind is discord.AppCommandOptionType.integer else float(raw)
        except ValueError:
            raise CommandError(f"{where} is a number (got `{raw[:30]}`).") from None
        size = value
    low, high = parameter.min_value, parameter.max_value
    if (low is not None and size < low) or (high is not None and size > high):
        measure = "length" if kind is discord.AppCommandOptionType.string else "value"
        raise CommandError(f"{where}: the {measure} must be {low}–{high} (got {size}).")
    return value


async def run_saved_command(
    interaction: discord.Interaction,
    saved: SavedCommand,
    visibility: Visibility,
) -> None:
    """Run a saved command for ``interaction``'s user, if the command is still what it was,
    as secret as ``/macro roll`` decided (``Asker.visibility``)."""
    assert interaction.client is not None
    tree = dice_bot(interaction).tree
    command = _roll_commands(tree).get(saved.name)
    if command is None or _shape(command) != saved.shape:
        raise CommandError(
            f"`/{saved.name}` has changed since this macro was saved, so it won't guess what "
            "the old options mean. Save it again with `/macro save`."
        )
    # A macro may hold a command that needs the channel's campaign: not outside a server.
    refuse_outside_server(interaction, command)
    options = dict(saved.options)
    # Checked again: the shape says the options are the same, this says the values still fit.
    _checked_options(command, {name: _shown(value) for name, value in options.items()})
    takes = {parameter.display_name for parameter in command.parameters}
    # Said again as the command's own options, for its handler to decide the same (the decision
    # took the saved `hidden` and `blind` where `/macro roll` said neither): both said, so no
    # default of `gm_rolls` applies twice. A command without `hidden` (a Luck spend, a reroll)
    # is as secret as the roll it changes.
    if visibility is Visibility.BLIND and "blind" not in takes:
        raise CommandError(f"`/{saved.name}` can't be rolled blind.")
    if "hidden" in takes:
        options["hidden"] = visibility is Visibility.HIDDEN
    if "blind" in takes:
        options["blind"] = visibility is Visibility.BLIND
    # discord.py's own path for a typed command: its checks, the options' transformers and
    # defaults, then the callback (private: bot/discord_private.py).
    await invoke_with_options(command, interaction, options)
