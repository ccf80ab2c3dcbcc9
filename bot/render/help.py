"""Rendering of `/help`: every command the bot has, from its own command tree."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import discord
from discord import app_commands

from bot.render.style import FIELD_LIMIT, Colour, truncate
from rules.expressions import MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_REPEATS, MAX_SIDES

__all__ = ["NOTATION_EXAMPLES", "command_list", "notation_guide"]


# Each example is rolled by a test, so the guide never shows notation `/roll` refuses.
NOTATION_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("1d20+5", "one twenty-sided die, plus 5"),
    ("4d6 k3", "roll four, **k**eep the highest three (`kl1`: the lowest one)"),
    ("4d6 d1", "**d**rop the lowest one (`dh1`: the highest)"),
    ("2d20kh1", "advantage: two d20, keep the higher (`2d20kl1`: disadvantage)"),
    ("8d6 e6", "**e**xplode once: every 6 rolls one more die (shown with !)"),
    ("3d6 ie", "explode again and again on the highest face; `3d6!` is the same"),
    ("10d10 r2", "**r**eroll 1s and 2s once; `ir2` until they aren't"),
    ("6d10 t7 f1 b1", "count successes (7+), take one off per 1, count botches (1s)"),
    ("4dF", "Fudge dice: −, 0 or +"),
    ("d%", "a d100"),
    ("4d6mi2", "every die counts at least 2 (`ma5`: at most 5)"),
    ("(1d8+2)*2", "arithmetic and parentheses: + - * / (rounds down)"),
    ("6 4d6k3", "six sets, a line each (up to 20)"),
    ("1d20+5 adv", "advantage on the d20: `2d20kh1+5` (`dis`, and Dice Maiden's `+d20+5`, too)"),
    ("1d20+5>=15", "a comparison: success or failure"),
    ("1d20+5 ! Attack; 2d6+3 ! Damage", "up to 4 rolls, each with its label"),
    ("2d6+3 fire", "a label after the dice (or after `#`, or `[fire]`)"),
    ("4d6 s", "the dice shown sorted"),
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
        name="How modifiers read",
        value=(
            "Spaces are optional (`4d6 k3` = `4d6k3`). A number after `r`/`ir` is the highest face "
            "rerolled, after `e`/`ie`/`t` the lowest face that explodes or succeeds; `<3`, `>=5`, "
            "`=2` pick others (`e>4`, `t<3`). Whatever the order typed, rerolls come first, then "
            "explosions, `mi`/`ma`, keep/drop, and counting. A minus in front of dice (`-1d20`) "
            "is refused. In the result, **bold** dice were kept (or succeeded), ~~struck~~ dice "
            "dropped or rerolled, __underlined__ dice failed."
        ),
        inline=False,
    )
    embed.add_field(
        name="Limits",
        value=(
            f"{MAX_EXPRESSION_LENGTH} characters, {MAX_DICE:,} dice per `/roll` (rerolls and "
            f"explosions count), {MAX_SIDES:,} sides per die, {MAX_REPEATS} explosions or "
            "rerolls of one die. An explosion or reroll that could never stop (`1d1ie1`) is "
            "refused."
        ),
        inline=False,
    )
    return embed
