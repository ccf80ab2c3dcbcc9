"""Rendering of `/help`: every command the bot has, from its own command tree."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import discord
from discord import app_commands

from bot.render.style import Colour, truncate
from rules.expressions import MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_SIDES

__all__ = ["NOTATION_EXAMPLES", "command_list", "notation_guide"]

FIELD_LIMIT = 1024

# Each example is rolled by a test, so the guide never shows notation `/roll` refuses.
NOTATION_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("1d20+5", "one twenty-sided die, plus 5"),
    ("3d6", "three six-sided dice, added up"),
    ("4d6kh3", "roll four, **k**eep the **h**ighest three (ability scores)"),
    ("2d20kh1", "advantage: two d20, keep the higher"),
    ("2d20kl1", "disadvantage: two d20, keep the lower"),
    ("4d6pl1", "**p**op (drop) the lowest; `ph1` drops the highest"),
    ("8d6e6", "**e**xplode: every 6 rolls another die (shown with !)"),
    ("10d10rr1", "**r**e**r**oll 1s until they aren't; `ro1` rerolls once"),
    ("4d6mi2", "every die counts at least 2 (`ma5`: at most 5)"),
    ("(1d8+2)*2", "arithmetic and parentheses: + - * / //"),
    ("1d20+1d4+2", "several terms in one roll"),
)


def _leaves(
    commands: Iterable[app_commands.Command | app_commands.Group],
) -> Iterator[app_commands.Command]:
    for command in commands:
        if isinstance(command, app_commands.Group):
            yield from _leaves(command.commands)
        else:
            yield command


def command_list(commands: Iterable[app_commands.Command | app_commands.Group]) -> discord.Embed:
    """List each top-level command's subcommands with their one-line descriptions."""
    embed = discord.Embed(
        title="🎲 Commands",
        description=(
            "Every roll takes `hidden` (GMs only): the result goes to you alone and "
            "`/campaign reveal` shows it later. Mistakes get a private explanation."
        ),
        colour=Colour.ROLL,
    )
    for command in sorted(commands, key=lambda command: command.name):
        lines = [f"`/{leaf.qualified_name}` {leaf.description}" for leaf in _leaves([command])]
        embed.add_field(
            name=f"/{command.name}", value=truncate("\n".join(lines), FIELD_LIMIT), inline=False
        )
    return embed


def notation_guide() -> discord.Embed:
    """Explain `/roll`'s dice notation with examples and its limits."""
    lines = [f"`{example}` {meaning}" for example, meaning in NOTATION_EXAMPLES]
    embed = discord.Embed(
        title="🎲 Dice notation for /roll",
        description="\n".join(lines),
        colour=Colour.ROLL,
    )
    embed.add_field(
        name="Selectors",
        value=(
            "After `rr`, `ro`, `e`: a number (`e6`) or `<`/`>` a number (`rr<3`); after `k`, `p`: "
            "`h`/`l` and a count (`kh3`), or a bare count as players write it: `k3` keeps the "
            "highest 3, `p1` or `d1` drops the lowest 1, `dh1` the highest. A minus in front of "
            "dice (`-d20`) is refused. In the result, **bold** dice were kept and ~~struck~~ "
            "dice dropped or rerolled."
        ),
        inline=False,
    )
    embed.add_field(
        name="Limits",
        value=(
            f"{MAX_EXPRESSION_LENGTH} characters, {MAX_DICE:,} dice per roll (rerolls and "
            f"explosions count), {MAX_SIDES:,} sides per die. An explosion or reroll that "
            "could never stop (`1d1e1`) is refused."
        ),
        inline=False,
    )
    return embed
