"""Write the command reference, docs/commands.md, from the bot's own command tree.

A documentation tool, not the bot: it builds the tree the bot syncs to Discord and `/help` shows
(``DiceBot.load_commands``, against a throwaway SQLite database; Discord is never contacted),
takes each command's payload as discord.py sends it to Discord (``to_dict``), and writes every
command and option: its description, whether it is required, its type, its choices and its
bounds (numbers' minimum and maximum, text's length), and where the command works.

Run ``python docs/gen_commands.py`` after changing a command, and commit docs/commands.md;
``tests/test_docs.py`` fails while the committed file differs from what this writes, and
``tests/e2e/test_readme.py`` renders what the bot really synced to the fake Discord the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["OUTPUT", "command_tree", "main", "reference"]

OUTPUT = Path(__file__).with_name("commands.md")
JSON = Mapping[str, Any]

SUBCOMMAND, GROUP = 1, 2
TYPES = {
    3: "text",
    4: "whole number",
    5: "true/false",
    6: "user",
    7: "channel",
    8: "role",
    9: "user or role",
    10: "number",
    11: "file",
}
CHANNEL_TYPES = {
    0: "text channels",
    2: "voice channels",
    4: "categories",
    5: "announcement channels",
    10: "announcement threads",
    11: "threads",
    12: "private threads",
    13: "stage channels",
    15: "forums",
    16: "media channels",
}

HEADER = """\
# Command reference

Every command of the bot and each of its options: what it is for, whether it is required
(`name`) or optional (`[name]`), and what Discord lets a user give it. Written by
`python docs/gen_commands.py` from the bot's own command tree, the one `/help` shows and the bot
syncs to Discord: don't edit it by hand (a test fails when it differs from what the script
writes).

✈️ marks a command that works anywhere: in servers with or without the bot, in DMs and group
DMs. The others work only in a server channel where the bot is installed (see
[Where commands work](players/index.md#where-commands-work)). Who may use each (a GM, anyone) is
in the players' and GMs' pages.
"""


async def command_tree() -> tuple[list[dict[str, Any]], frozenset[str]]:
    """The payloads the bot syncs (global, as `python -m bot` without GUILD_ID), and the
    qualified names of the commands that work anywhere."""
    from bot.anywhere import is_anywhere
    from bot.client import DiceBot
    from bot.config import Settings
    from bot.storage import Storage

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(token="", database_path=Path(folder) / "bot.db")
        bot = DiceBot(settings)
        bot.storage = await Storage.open(settings.database_path)
        try:
            await bot.load_commands()
            tree = bot.tree
            payloads = [command.to_dict(tree) for command in tree.get_commands()]
            anywhere = frozenset(
                command.qualified_name for command in tree.walk_commands() if is_anywhere(command)
            )
        finally:
            await bot.storage.close()
    return payloads, anywhere


def _text(value: str) -> str:
    """A description as table text: no pipe ends a cell, no angle bracket opens HTML."""
    return " ".join(value.split()).replace("|", "\\|").replace("<", "&lt;")


def _number(value: float) -> str:
    text = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    return text.replace("-", "−")


def _allowed(option: JSON) -> str:
    """What a user may give an option: its choices, its range or length, suggestions."""
    parts: list[str] = []
    choices = option.get("choices") or []
    if choices:
        shown = []
        for choice in choices:
            value = str(choice["value"])
            name = str(choice["name"])
            shown.append(f"`{value}`" if name == value else f"`{value}` ({_text(name)})")
        parts.append(", ".join(shown))
    low, high = option.get("min_value"), option.get("max_value")
    if low is not None and high is not None:
        parts.append(f"{_number(low)} to {_number(high)}")
    elif low is not None:
        parts.append(f"at least {_number(low)}")
    elif high is not None:
        parts.append(f"at most {_number(high)}")
    shortest, longest = option.get("min_length"), option.get("max_length")
    if longest is not None:
        if shortest and shortest > 1:
            parts.append(f"{shortest}–{longest} characters")
        else:
            parts.append(f"up to {longest} characters")
    if option.get("channel_types"):
        kinds = [CHANNEL_TYPES.get(kind, str(kind)) for kind in option["channel_types"]]
        parts.append(", ".join(kinds))
    if option.get("autocomplete"):
        parts.append("suggested as you type")
    return "; ".join(parts)


def _leaves(command: JSON, path: tuple[str, ...] = ()) -> Iterator[tuple[str, JSON]]:
    """Each command a user types, by its full name, under a top-level command."""
    name = (*path, str(command["name"]))
    options = command.get("options") or []
    if any(option.get("type") in (SUBCOMMAND, GROUP) for option in options):
        for option in options:
            yield from _leaves(option, name)
    else:
        yield " ".join(name), command


def _command(name: str, command: JSON, anywhere: frozenset[str]) -> list[str]:
    lines = [f"### /{name}", "", _text(str(command["description"]))]
    if name in anywhere:
        lines[-1] += " ✈️"
    options = command.get("options") or []
    if options:
        lines += ["", "| option | type | description | allowed |", "|---|---|---|---|"]
        for option in options:
            shown = option["name"] if option.get("required") else f"[{option['name']}]"
            kind = TYPES.get(option["type"], str(option["type"]))
            description = _text(str(option["description"]))
            lines.append(f"| `{shown}` | {kind} | {description} | {_allowed(option)} |")
    return [*lines, ""]


def reference(payloads: Sequence[JSON], anywhere: frozenset[str]) -> str:
    """docs/commands.md for these command payloads (as the bot syncs them)."""
    lines = [HEADER]
    for command in sorted(payloads, key=lambda command: str(command["name"])):
        lines += [f"## /{command['name']}", ""]
        leaves = list(_leaves(command))
        if len(leaves) > 1 or leaves[0][0] != command["name"]:
            lines += [_text(str(command["description"])), ""]
        for name, leaf in leaves:
            lines += _command(name, leaf, anywhere)
    return "\n".join(lines).rstrip("\n") + "\n"


def render() -> str:
    """docs/commands.md as the bot's command tree gives it now."""
    payloads, anywhere = asyncio.run(command_tree())
    return reference(payloads, anywhere)


def main(argv: Sequence[str] | None = None) -> int:
    """Write docs/commands.md; ``--check``: say whether it is up to date (1 if not)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write it")
    parser.add_argument("--check", action="store_true", help="compare, don't write; 1 if stale")
    options = parser.parse_args(argv)
    written = render()
    if options.check:
        current = options.output.read_text(encoding="utf-8") if options.output.is_file() else ""
        stale = current != written
        print(f"{options.output}: {'stale, run docs/gen_commands.py' if stale else 'up to date'}")
        return int(stale)
    options.output.write_text(written, encoding="utf-8")
    print(f"{options.output}: {written.count(chr(10)):,} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
