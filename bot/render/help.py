"""Rendering of `/help`: every command the bot has, from its own command tree."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands

from bot.render.style import FIELD_LIMIT, Colour, truncate
from rules.expressions import MAX_DICE, MAX_EXPRESSION_LENGTH, MAX_REPEATS, MAX_SIDES
from rules.systems import System

__all__ = [
    "EMBED_TOTAL_LIMIT",
    "FIELDS_MAX",
    "NOTATION_EXAMPLES",
    "HelpPage",
    "command_line",
    "help_embed",
    "help_pages",
    "notation_guide",
]


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
    ("(1d8+2)*2", "arithmetic and parentheses: + - * / (rounds down) and % (the remainder)"),
    ("6 4d6k3", "six sets, a line each (up to 20)"),
    ("1d20+5 adv", "advantage on the d20: `2d20kh1+5` (`dis`, and Dice Maiden's `+d20+5`, too)"),
    ("1d20+5>=15", "a comparison: success or failure"),
    ("1d20+5 ! Attack; 2d6+3 ! Damage", "up to 4 rolls, each with its label"),
    ("2d6+3 fire", "a label after the dice (or after `#`, or `[fire]`)"),
    ("4d6 s", "the dice shown sorted"),
    ("4cod", "Dice Maiden's game modes, a success count: also `4wod8`, `sr6`, `6yz`, `ex5`"),
)


# Discord's limits on one embed (docs/players/index.md, "Help"); a page stays under them.
EMBED_TOTAL_LIMIT = 6000
FIELDS_MAX = 25
PAGE_BUDGET = 5500  # of EMBED_TOTAL_LIMIT: room for the title, footer and page numbers


@dataclass(frozen=True, slots=True)
class HelpPage:
    """One page of `/help`: its title, text and (name, value) fields."""

    title: str
    description: str
    fields: tuple[tuple[str, str], ...] = ()

    @property
    def size(self) -> int:
        """Return the characters Discord counts against an embed's 6,000."""
        return (
            len(self.title) + len(self.description) + sum(len(n) + len(v) for n, v in self.fields)
        )


Command = app_commands.Command[Any, ..., Any] | app_commands.Group
TABLE_TITLE = "🎲 Dice, macros and campaigns"


def _leaves(commands: Iterable[Command]) -> Iterator[app_commands.Command[Any, ..., Any]]:
    for command in commands:
        if isinstance(command, app_commands.Group):
            yield from _leaves(command.commands)
        else:
            yield command


def command_line(command: app_commands.Command[Any, ..., Any]) -> str:
    """One command as a help line: its name, its options ([optional]) and what it does."""
    options = " ".join(
        parameter.display_name if parameter.required else f"[{parameter.display_name}]"
        for parameter in command.parameters
    )
    usage = f"`/{command.qualified_name}`" + (f" `{options}`" if options else "")
    return f"{usage}\n{command.description}"


def _fields(command: Command) -> list[tuple[str, str]]:
    """A command's help lines, a field per group of subcommands, each within FIELD_LIMIT."""
    groups: dict[str, list[str]] = {}
    children = command.commands if isinstance(command, app_commands.Group) else [command]
    for child in children:
        name = child.qualified_name if isinstance(child, app_commands.Group) else command.name
        groups.setdefault(f"/{name}", []).extend(command_line(leaf) for leaf in _leaves([child]))
    fields: list[tuple[str, str]] = []
    for name, lines in groups.items():
        chunk: list[str] = []
        for line in lines:
            line = truncate(line, FIELD_LIMIT)
            if chunk and len("\n".join([*chunk, line])) > FIELD_LIMIT:
                fields.append((name, "\n".join(chunk)))
                chunk = []
            chunk.append(line)
        fields.append((name, "\n".join(chunk)))
    return fields


def _paged(title: str, description: str, fields: list[tuple[str, str]]) -> list[HelpPage]:
    """Split one section's fields over as many pages as Discord's limits need."""
    pages: list[HelpPage] = []
    chunk: list[tuple[str, str]] = []
    for field in fields:
        candidate = HelpPage(title, description, (*chunk, field))
        if chunk and (candidate.size > PAGE_BUDGET or len(candidate.fields) > FIELDS_MAX):
            pages.append(HelpPage(title, description, tuple(chunk)))
            chunk = []
        chunk.append(field)
    pages.append(HelpPage(title, description, tuple(chunk)))
    if len(pages) > 1:
        pages = [
            HelpPage(f"{page.title} ({number}/{len(pages)})", page.description, page.fields)
            for number, page in enumerate(pages, start=1)
        ]
    return pages


def _overview(sections: Sequence[tuple[str, list[HelpPage]]], creates: Sequence[str]) -> HelpPage:
    """The first page: what a player and a GM type first, and what each page holds."""
    create = " or ".join(creates)
    player = (
        "**A player**\n"
        "1. `/campaign info`: what this channel's campaign plays.\n"
        f"2. Make your character: {create or 'your system page shows how'}.\n"
        "3. Roll with your system's commands, or any dice with `/roll 1d20+5` "
        "(`/help topic:notation` explains the notation); `/macro save` keeps a roll.\n"
    )
    gm = (
        "**A GM**\n"
        "1. `/campaign start`: pick the system and a name; you GM this channel's campaign.\n"
        "2. `/campaign settings`: a private GM log channel, notices; `/campaign gm add` a co-GM.\n"
        "3. Any roll takes `hidden` (you alone see it; `/campaign reveal` shows it later).\n"
    )
    contents: list[str] = []
    number = 2  # the overview is page 1
    for title, pages in sections:
        contents.append(f"{number}. {title}" + (f" ({len(pages)} pages)" if len(pages) > 1 else ""))
        number += len(pages)
    return HelpPage(
        "📖 Help: start here",
        f"{player}\n{gm}\nTurn the pages with ◀ ▶; each lists its commands, "
        "`[options]` being optional.",
        (("Pages", "\n".join(contents)),),
    )


def help_pages(commands: Iterable[Command], systems: Mapping[str, System]) -> list[HelpPage]:
    """Every page of `/help`: an overview, the table's commands, then one page per system.

    ``commands`` are the bot's top-level commands (its command tree); ``systems`` maps a
    system's key (its top-level command) to the system. A system's page that would pass
    Discord's limits continues on the next one.
    """
    by_name = sorted(commands, key=lambda command: command.name)
    general = [command for command in by_name if command.name not in systems]
    own = [command for command in by_name if command.name in systems]
    sections: list[tuple[str, list[HelpPage]]] = []
    general_fields = [field for command in general for field in _fields(command)]
    sections.append((TABLE_TITLE, _paged(TABLE_TITLE, "", general_fields)))
    for command in own:
        system = systems[command.name]
        title = f"🎲 {system.display_name}"
        description = f"In {system.with_article} campaign's channel."
        sections.append((title, _paged(title, description, _fields(command))))
    creates = [
        f"`/{leaf.qualified_name}`"
        for leaf in _leaves(own)
        if leaf.qualified_name.endswith(" character create")
    ]
    overview = _overview(sections, creates)
    return [overview, *(page for _, pages in sections for page in pages)]


def help_embed(page: HelpPage, number: int, total: int) -> discord.Embed:
    """Render one page, numbered."""
    embed = discord.Embed(title=page.title, description=page.description, colour=Colour.ROLL)
    for name, value in page.fields:
        embed.add_field(name=name, value=value, inline=False)
    embed.set_footer(text=f"Page {number} of {total}")
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
            "dropped or rerolled, __underlined__ dice failed. Where `/roll` reads a form as "
            "Dice Maiden does and avrae/d20 reads it otherwise, a 💡 line gives d20's form "
            "(`4d6k3` keeps the highest three; d20's keep-the-3s is `4d6k=3`)."
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
