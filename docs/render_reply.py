"""Draw the documentation's pictures of replies: docs/reply.png and docs/replies/*.png.

A documentation tool, not the bot: each picture is one real reply of a system (README's and
docs/players/sixpool.md's six-pool check; a Cosmos Engine roll, a Sinew & Steel test, an
Enchanted Realms attack and an Aethelgard pool roll on their pages), a seeded roll through the
same rules and render functions the cog calls, with the buttons the bot sends under it, and
draws its ``discord.Embed`` the way Discord's dark theme shows it, with PIL and the type the
charts use (``bot.render.raster``: DejaVu Sans).

Discord's markdown in the embed is drawn: ``**bold**``, ``~~struck~~``, ``\\`` escapes and
`` `code` ``. The type has no colour emoji, so the reply's emoji (✅ ❌ ✨ 💀 🎲 🔒 🔓 🍀) are
small drawn glyphs.

Run ``python docs/render_reply.py`` after changing a reply's layout, and commit the pictures;
``tests/render/test_reply_picture.py`` checks each committed one is what this draws, and
``tests/e2e/test_readme.py`` that the bot, asked the same command with the same seed, answers
each example's embed and buttons. The output is deterministic: fixed type, no timestamp, a
palette PNG without metadata.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import discord
from PIL import Image, ImageDraw, ImageFont

from bot.asker import Asker
from bot.buttons import register_reroll, roll_buttons
from bot.data_tables import load_table
from bot.publish import set_roll_footer
from bot.render import aethelgard as aethelgard_render
from bot.render import cosmos as cosmos_render
from bot.render import realms as realms_render
from bot.render import sinew as sinew_render
from bot.render.raster import SYSTEM_FONTS, font_face
from bot.storage import Character, Visibility
from cogs.aethelgard import _bare as bare_pool
from cogs.realms import DieButton, decide
from cogs.sinew.common import roller_label
from cogs.sinew.luck_buttons import luck_buttons
from cogs.sixpool.buttons import reroll_buttons
from cogs.sixpool.rolls import RollStep
from rules import aethelgard, cosmos, realms, sinew, sixpool
from rules.randomness import new_rng
from rules.sixpool import EdgeOption, Pool, RollAsked, RollKind, Sheet, Training

__all__ = ["EXAMPLES", "OUTPUT", "Example", "example", "main", "render"]

OUTPUT = Path(__file__).with_name("reply.png")  # README's picture: the six-pool check
REPLIES = Path(__file__).with_name("replies")  # each other system's, on its page

ROLL_ID = 42
Reply = tuple[discord.Embed, list[dict[str, Any]]]


def _never_rerolled(*_: object) -> Any:
    raise AssertionError("a picture's Roll again is never pressed")


@dataclass(slots=True)
class _Rerollers:
    """Where ``register_reroll`` keeps a bot's rerollers (the pictures have no bot)."""

    rerollers: dict[str, Any]


def _as_published(
    embed: discord.Embed, kind: str, roll_id: int, extra: Sequence[discord.ui.Item[Any]] = ()
) -> Reply:
    """A public roll's embed and buttons as ``publish_roll`` sends them: the embed read back
    from the roll log's payload with its footer, Roll again (the cog registers its kind to be
    rolled again) and the system's own buttons."""
    register_reroll(_Rerollers({}), kind, _never_rerolled)
    shown = discord.Embed.from_dict(embed.to_dict())  # as logged_roll reads it back
    set_roll_footer(shown, roll_id, Visibility.PUBLIC)
    view = roll_buttons(roll_id, kind, Visibility.PUBLIC, extra=extra)
    return shown, [] if view is None else view.to_components()


def _player(user_id: int = 1) -> Asker:
    return Asker(
        guild_id=1, channel_id=1, user_id=user_id, campaign=None, is_gm=False, manages_server=False
    )


# --- the six-pool check: README's picture, rolled as the cog rolls it

SEED = 327  # the seed whose two d20 are 8 and 13, README's example
ROLLER = "Rin"


def _rin() -> Sheet:
    """A level-1 rogue: DEX primary, every pool 8, Edge 1 in DEX, trained in stealth, holding
    inspiration."""
    sheet = sixpool.new_sheet(1, Pool.DEX, dict.fromkeys(Pool, 8))
    edges = {**sheet.edges, Pool.DEX.field: 1}
    return replace(sheet, edges=edges, skills={"stealth": Training.TRAINED}, inspired=True)


def example(roller: str = ROLLER, roll_id: int = ROLL_ID) -> Reply:
    """Return README's reply and its buttons' components, as the bot sends them.

    ``/sixpool check pool:dex dc:15 skill:stealth spend:2 inspiration:true`` in a campaign
    with Edge option B: the roll step of ``cogs.sixpool.rolls`` spends, rolls and renders it
    (seeded), the footer is the one ``publish_roll`` sets, and the buttons are ``roll_buttons``'s
    for a public six-pool check (the cog registers its checks to be rolled again).
    """
    kind = RollKind.CHECK
    register_reroll(_Rerollers({}), f"sixpool.{kind.value}", _never_rerolled)
    asked = RollAsked(kind=kind, pool=Pool.DEX, dc=15, spend=2, skill="stealth", inspiration=True)
    step = RollStep(
        new_rng(SEED), asked, EdgeOption.B, _player(), Visibility.PUBLIC, roller, character=None
    )
    after = step.spend_and_roll(_rin())
    entry = step.log(Character(id=1, campaign_id=1, user_id=1, name=roller, sheet=after))
    embed = discord.Embed.from_dict(entry.payload["embed"])  # as logged_roll reads it back
    set_roll_footer(embed, roll_id, Visibility.PUBLIC)
    result = step.rolled[-1].result
    rerolls = reroll_buttons(roll_id, result) if after.inspired else []
    view = roll_buttons(roll_id, entry.kind, Visibility.PUBLIC, extra=rerolls)
    return embed, [] if view is None else view.to_components()


# --- the other systems: one roll each, as its cog rolls it


def cosmos_example(roller: str, roll_id: int = ROLL_ID) -> Reply:
    """``/cosmos roll attribute:3 skill:2 tn:15 advantage:1`` (``CosmosCog.roll_check``)."""
    effects = load_table("cosmos/critical_effects.toml", cosmos.parse_critical_effects)
    result = cosmos.roll(
        new_rng(COSMOS_SEED), attribute=3, skill=2, tn=15, advantage=1, effects=effects
    )
    return _as_published(cosmos_render.roll_result(result, roller), "cosmos.roll", roll_id)


SINEW_SCORES = {"str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
SINEW_CHARACTER = "Wren"


def sinew_example(roller: str, roll_id: int = ROLL_ID) -> Reply:
    """``/sinew test attribute:str`` by Wren (STR 12, 10 Luck tokens), a failure: the Luck
    buttons that turn it (``SinewCog.run_test``, ``_publish_with_luck``)."""
    del roller  # a character's test shows the character's name
    scores = SINEW_SCORES
    sheet = sinew.create_sheet(
        strength=scores["str"],
        reflex=scores["ref"],
        intellect=scores["int"],
        empathy=scores["emp"],
        luck=scores["lck"],
        stamina=scores["sta"],
    )
    attribute = sinew.Score.STR
    result = sinew.attribute_test(new_rng(SINEW_SEED), sheet, attribute)
    label = roller_label(attribute, npc=False)
    embed = sinew_render.test_result(result, SINEW_CHARACTER, f"{attribute.value} test", label)
    luck = luck_buttons(roll_id, result, pressure=0, held=sheet.luck_tokens)
    return _as_published(embed, "sinew.test", roll_id, extra=luck)


def realms_example(roller: str, roll_id: int = ROLL_ID) -> Reply:
    """``/realms attack dice:2 to_hit:12 damage:1d8+1``, outside a campaign: a button per die
    to reroll it (``RealmsCog.run_attack``, ``_publish``)."""
    decision = decide(0, 0, None, _player())
    damage = realms.parse_damage("1d8+1")
    result = realms.attack(new_rng(REALMS_SEED), 2, 12, damage, decision)
    dice = [DieButton(roll_id, n, face) for n, face in enumerate(result.dice, start=1)]
    return _as_published(realms_render.attack(result, roller), "realms.attack", roll_id, dice)


def aethelgard_example(roller: str, roll_id: int = ROLL_ID) -> Reply:
    """``/aethelgard roll pool:6 dc:2`` (``AethelgardCog.run_roll``)."""
    built = bare_pool(6)
    result = aethelgard.roll_pool(new_rng(AETHELGARD_SEED), built, 2)
    embed = aethelgard_render.roll_result(result, built, "pool roll", roller)
    return _as_published(embed, "aethelgard.roll", roll_id)


@dataclass(frozen=True, slots=True)
class Example:
    """One picture: a system's reply to a command as a player types it."""

    system: str
    typed: str  # the command with its options, as the pages give it
    roller: str  # the player's display name
    seed: int  # the bot's dice: the seed the e2e test gives a bot to get the same reply
    output: Path
    build: Callable[[str, int], Reply]  # (the roller's display name, the roll's id)

    @property
    def command(self) -> str:
        """The command's name, as Discord shows it above the reply ("used /cosmos roll")."""
        return " ".join(word for word in self.typed.split() if ":" not in word)

    def reply(self, roll_id: int = ROLL_ID) -> Reply:
        return self.build(self.roller, roll_id)


COSMOS_SEED, SINEW_SEED, REALMS_SEED, AETHELGARD_SEED = 5, 3, 8, 53
EXAMPLES: dict[str, Example] = {
    example.system: example
    for example in (
        Example(
            "cosmos",
            "/cosmos roll attribute:3 skill:2 tn:15 advantage:1",
            "Ash",
            COSMOS_SEED,
            REPLIES / "cosmos.png",
            cosmos_example,
        ),
        Example(
            "sinew",
            "/sinew test attribute:str",
            "Wren",
            SINEW_SEED,
            REPLIES / "sinew.png",
            sinew_example,
        ),
        Example(
            "realms",
            "/realms attack dice:2 to_hit:12 damage:1d8+1",
            "Pip",
            REALMS_SEED,
            REPLIES / "realms.png",
            realms_example,
        ),
        Example(
            "aethelgard",
            "/aethelgard roll pool:6 dc:2",
            "Kael",
            AETHELGARD_SEED,
            REPLIES / "aethelgard.png",
            aethelgard_example,
        ),
        Example(
            "sixpool",
            "/sixpool check pool:DEX dc:15 skill:stealth spend:2 inspiration:true",
            ROLLER,
            SEED,
            OUTPUT,
            example,
        ),
    )
}


# --- Discord's dark theme, at about 1.6 times its size

WIDTH = 1000
MARGIN = 24
AVATAR = 64
CONTENT_LEFT = MARGIN + AVATAR + 26
EMBED_MAX = WIDTH - CONTENT_LEFT - MARGIN
BAR = 6
PAD = 22
FIELD_GAP = 12

BACKGROUND = "#313338"
EMBED = "#2b2d31"
HEADER = "#f2f3f5"
TEXT = "#dbdee1"
MUTED = "#b5bac1"
CODE = "#1e1f22"
BLURPLE = "#5865f2"
BUTTON_COLOURS = {1: BLURPLE, 2: "#4e5058", 3: "#248046", 4: "#da373c", 5: "#4e5058"}

TITLE_SIZE = 25
TEXT_SIZE = 22
FOOTER_SIZE = 19
LINE = 1.375  # Discord's line height, as a share of the type's size


@dataclass(frozen=True, slots=True)
class Style:
    size: int
    colour: str
    bold: bool = False
    struck: bool = False
    code: bool = False
    fenced: bool = False  # a line of a ``` block: the block has the background, not the piece


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of text in one style, or one emoji (drawn, not typed)."""

    text: str
    style: Style
    emoji: bool = False


def _face(style: Style) -> tuple[ImageFont.FreeTypeFont | ImageFont.ImageFont, int]:
    """The type of a style and the stroke that makes it bold when it has no bold face."""
    if style.code:
        mono = SYSTEM_FONTS / "DejaVuSansMono.ttf"
        if mono.is_file():
            return ImageFont.truetype(str(mono), style.size - 2), 0
    face = font_face(style.size, style.bold)
    return face.font, face.stroke


def _width(piece: Piece) -> int:
    if piece.emoji:
        return round(piece.style.size * 1.15)
    font, stroke = _face(piece.style)
    return round(font.getlength(piece.text)) + 2 * stroke


# --- Discord's markdown, as far as replies use it

EMOJI = "✅❌✨💀🎲🔒🔓🍀🔁"
_TOKEN = re.compile(r"\\(.)|(\*\*)|(~~)|(`)|([" + EMOJI + r"])\ufe0f?|([^\\*~`" + EMOJI + "]+|.)")


def parse(text: str, base: Style) -> list[Piece]:
    """Split one line of markdown into styled pieces: ``**`` bold, ``~~`` struck, `` ` ``
    code, a backslash shows the next character as it is."""
    pieces: list[Piece] = []
    bold = struck = code = False
    for escaped, star, tilde, tick, emoji, plain in _TOKEN.findall(text):
        style = replace(base, bold=base.bold or bold, struck=struck, code=code)
        if star and not code:
            bold = not bold
        elif tilde and not code:
            struck = not struck
        elif tick:
            code = not code
        elif emoji:
            pieces.append(Piece(emoji, style, emoji=True))
        else:
            pieces.append(Piece(escaped or star or tilde or plain, style))
    return pieces


def wrap(pieces: Sequence[Piece], width: int) -> list[list[Piece]]:
    """Break styled pieces into lines of at most ``width`` pixels, at spaces."""
    words: list[list[Piece]] = [[]]
    for piece in pieces:
        if piece.emoji:
            words[-1].append(piece)
            continue
        for part in re.findall(r"\S+\s*|\s+", piece.text):
            words[-1].append(Piece(part, piece.style))
            if part[-1].isspace():
                words.append([])
    lines: list[list[Piece]] = [[]]
    used = 0
    for word in words:
        size = sum(_width(piece) for piece in word)
        if lines[-1] and used + size > width:
            lines.append([])
            used = 0
        lines[-1].extend(word)
        used += size
    return lines


def measure(line: Sequence[Piece]) -> int:
    """The width of a line of pieces, without its trailing space."""
    if not line:
        return 0
    last = replace(line[-1], text=line[-1].text.rstrip())
    return sum(_width(piece) for piece in (*line[:-1], last))


# --- the emoji, drawn in a square of side ``s`` at (x, y)

Glyph = Callable[[ImageDraw.ImageDraw, float, float, float], None]


def _check(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    draw.rounded_rectangle((x, y, x + s, y + s), radius=s / 6, fill="#77b255")
    points = [
        (x + s * 0.22, y + s * 0.52),
        (x + s * 0.42, y + s * 0.72),
        (x + s * 0.78, y + s * 0.3),
    ]
    draw.line(points, fill="#ffffff", width=max(2, round(s / 7)), joint="curve")


def _cross(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    width = max(2, round(s / 5))
    a, b = s * 0.15, s * 0.85
    draw.line([(x + a, y + a), (x + b, y + b)], fill="#dd2e44", width=width)
    draw.line([(x + a, y + b), (x + b, y + a)], fill="#dd2e44", width=width)


def _star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    inner = r * 0.28
    return [
        (cx, cy - r),
        (cx + inner, cy - inner),
        (cx + r, cy),
        (cx + inner, cy + inner),
        (cx, cy + r),
        (cx - inner, cy + inner),
        (cx - r, cy),
        (cx - inner, cy - inner),
    ]


def _sparkles(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    draw.polygon(_star(x + s * 0.4, y + s * 0.58, s * 0.4), fill="#ffac33")
    draw.polygon(_star(x + s * 0.8, y + s * 0.22, s * 0.2), fill="#ffcc4d")


def _skull(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    bone = "#ccd6dd"
    draw.ellipse((x + s * 0.1, y + s * 0.05, x + s * 0.9, y + s * 0.75), fill=bone)
    draw.rounded_rectangle((x + s * 0.28, y + s * 0.55, x + s * 0.72, y + s * 0.95), s / 10, bone)
    for left in (0.24, 0.56):
        draw.ellipse((x + s * left, y + s * 0.32, x + s * (left + 0.2), y + s * 0.52), "#292f33")
    draw.polygon(
        [(x + s * 0.5, y + s * 0.56), (x + s * 0.44, y + s * 0.66), (x + s * 0.56, y + s * 0.66)],
        fill="#292f33",
    )


def _die(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    draw.rounded_rectangle(
        (x + s * 0.05, y + s * 0.05, x + s * 0.95, y + s * 0.95), s / 5, fill="#e1e8ed"
    )
    r = s * 0.09
    for px, py in ((0.28, 0.28), (0.72, 0.28), (0.5, 0.5), (0.28, 0.72), (0.72, 0.72)):
        cx, cy = x + s * px, y + s * py
        draw.ellipse(
            (cx - r, cy - r, cx + r, cy + r), fill="#dd2e44" if px == py == 0.5 else "#292f33"
        )


def _lock(opened: bool) -> Glyph:
    def lock(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
        shift = s * 0.22 if opened else 0
        draw.arc(
            (x + s * 0.25 + shift, y + s * 0.04, x + s * 0.75 + shift, y + s * 0.6),
            180,
            360,
            fill="#aab8c2",
            width=max(2, round(s / 8)),
        )
        if not opened:
            for side in (0.25, 0.75):
                draw.line(
                    [(x + s * side, y + s * 0.32), (x + s * side, y + s * 0.5)],
                    fill="#aab8c2",
                    width=max(2, round(s / 8)),
                )
        draw.rounded_rectangle(
            (x + s * 0.15, y + s * 0.45, x + s * 0.85, y + s * 0.95), s / 10, fill="#ffac33"
        )

    return lock


def _clover(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    green = "#77b255"
    draw.line(
        [(x + s * 0.5, y + s * 0.5), (x + s * 0.72, y + s * 0.95)], fill=green, width=round(s / 10)
    )
    for cx, cy in ((0.33, 0.3), (0.67, 0.3), (0.33, 0.62), (0.67, 0.62)):
        r = s * 0.2
        draw.ellipse((x + s * cx - r, y + s * cy - r, x + s * cx + r, y + s * cy + r), fill=green)


def _repeat(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    draw.rounded_rectangle((x, y, x + s, y + s), radius=s / 6, fill="#3b88c3")
    width = max(2, round(s / 9))
    draw.arc((x + s * 0.2, y + s * 0.22, x + s * 0.8, y + s * 0.78), 200, 340, "#ffffff", width)
    draw.arc((x + s * 0.2, y + s * 0.22, x + s * 0.8, y + s * 0.78), 20, 160, "#ffffff", width)
    for tip, sign in (((0.78, 0.38), -1), ((0.22, 0.62), 1)):
        tx, ty = x + s * tip[0], y + s * tip[1]
        draw.polygon(
            [(tx, ty + sign * s * 0.16), (tx - s * 0.12, ty), (tx + s * 0.12, ty)], fill="#ffffff"
        )


GLYPHS: Mapping[str, Glyph] = {
    "✅": _check,
    "❌": _cross,
    "✨": _sparkles,
    "💀": _skull,
    "🎲": _die,
    "🔒": _lock(opened=False),
    "🔓": _lock(opened=True),
    "🍀": _clover,
    "🔁": _repeat,
}


# --- drawing

SUPERSAMPLE = 4  # a glyph is drawn this many times larger, then scaled down (smooth edges)


def draw_glyph(image: Image.Image, emoji: str, x: float, y: float, side: int) -> None:
    """Draw an emoji's glyph in the square of ``side`` pixels at (x, y), anti-aliased."""
    big = Image.new("RGBA", (side * SUPERSAMPLE, side * SUPERSAMPLE), (0, 0, 0, 0))
    GLYPHS[emoji](ImageDraw.Draw(big), 0, 0, side * SUPERSAMPLE)
    small = big.resize((side, side), Image.Resampling.LANCZOS)
    image.paste(small, (round(x), round(y)), small)


def draw_line(image: Image.Image, line: Sequence[Piece], x: int, y: int) -> None:
    """Draw one line of pieces with its top at ``y``."""
    draw = ImageDraw.Draw(image)
    for piece in line:
        style = piece.style
        height = round(style.size * LINE)
        width = _width(piece)
        if piece.emoji:
            side = style.size
            draw_glyph(image, piece.text, x + 1, y + (height - side) / 2, side)
            x += width
            continue
        font, stroke = _face(style)
        text_top = y + (height - style.size) / 2 - style.size * 0.08
        if style.code and not style.fenced:
            shown = piece.text.rstrip()
            draw.rounded_rectangle(
                (x, y + 2, x + _width(replace(piece, text=shown)), y + height - 2), 4, fill=CODE
            )
        draw.text(
            (x, text_top),
            piece.text,
            font=font,
            fill=style.colour,
            stroke_width=stroke,
            stroke_fill=style.colour,
        )
        if style.struck:
            shown_width = _width(replace(piece, text=piece.text.rstrip()))
            middle = round(y + height * 0.52)
            draw.line([(x, middle), (x + shown_width, middle)], fill=style.colour, width=2)
        x += width


@dataclass(frozen=True, slots=True)
class Block:
    """Lines of text laid out to a width, with the space before them."""

    lines: list[list[Piece]]
    gap: int
    left: int = 0  # from the embed's text edge (an inline field's column)
    fenced: bool = False  # a ``` code block: monospaced on a dark box

    @property
    def height(self) -> int:
        lines = sum(round(line[0].style.size * LINE) if line else 0 for line in self.lines)
        return lines + (2 * FENCE_PAD if self.fenced else 0)


FENCE_PAD = 10


def _text_block(text: str, style: Style, width: int, gap: int, left: int = 0) -> Block:
    lines = [line for row in text.split("\n") for line in wrap(parse(row, style), width)]
    return Block([line for line in lines if line], gap, left)


def _text_blocks(text: str, style: Style, width: int, gap: int, left: int = 0) -> list[Block]:
    """Markdown text as blocks: its ``` code blocks monospaced, line for line, each on a box."""
    blocks: list[Block] = []
    for number, part in enumerate(re.split(r"^```[a-z]*\n?", text, flags=re.MULTILINE)):
        if number % 2 == 0:
            part = part.strip("\n")
            if part:
                blocks.append(_text_block(part, style, width, gap if not blocks else 4, left))
            continue
        code = replace(style, code=True, fenced=True)
        lines = [[Piece(row, code)] for row in part.rstrip("\n").split("\n")]
        blocks.append(Block(lines, gap if not blocks else 6, left, fenced=True))
    return blocks


TITLE, DICE, BREAKDOWN, FOOTER = 1, 2, 3, 4
"""The layout's parts, numbered as README's list (and docs/players/index.md's) numbers them."""


def _embed_blocks(embed: discord.Embed, width: int) -> list[tuple[int, list[Block]]]:
    """The embed's rows of blocks, each with its part of the layout: title, description (the
    dice), fields (the breakdown; inline ones side by side, up to three), footer."""
    rows: list[tuple[int, list[Block]]] = []
    if embed.title:
        title = _text_block(embed.title, Style(TITLE_SIZE, HEADER, bold=True), width, 0)
        rows.append((TITLE, [title]))
    if embed.description:
        style = Style(TEXT_SIZE, TEXT)
        rows.append((DICE, _text_blocks(embed.description, style, width, 8 if rows else 0)))
    inline: list[Any] = []

    def flush() -> None:
        if inline:
            column = width // len(inline)
            rows.append((BREAKDOWN, []))
            for index, field in enumerate(inline):
                rows[-1][1].extend(_field(field, column - 12, index * column))
            inline.clear()

    for field in embed.fields:
        if field.inline and len(inline) < 3:
            inline.append(field)
            continue
        flush()
        if field.inline:
            inline.append(field)
        else:
            rows.append((BREAKDOWN, _field(field, width, 0)))
    flush()
    if embed.footer.text:
        footer = _text_block(embed.footer.text, Style(FOOTER_SIZE, MUTED), width, 14)
        rows.append((FOOTER, [footer]))
    return rows


def _field(field: Any, width: int, left: int) -> list[Block]:
    name = _text_block(str(field.name), Style(TEXT_SIZE, HEADER, bold=True), width, FIELD_GAP, left)
    value = _text_block(str(field.value), Style(TEXT_SIZE, TEXT), width, 2, left)
    return [name, value]


def _stack(row: list[Block]) -> Iterator[tuple[Block, int]]:
    """Each block of a row and its top from the row's top: a field's value under its name."""
    tops: dict[int, int] = {}
    for block in row:
        top = tops.get(block.left, 0) + block.gap
        yield block, top
        tops[block.left] = top + block.height


def _buttons(components: Sequence[Mapping[str, Any]]) -> list[tuple[list[Piece], str]]:
    """Each button's label (its emoji first) and colour, in order."""
    found = []
    for row in components:
        for item in row.get("components", []):
            if item.get("type") != 2:
                continue
            style = Style(TEXT_SIZE - 1, "#ffffff", bold=True)
            pieces = []
            if item.get("emoji"):
                pieces += [Piece(item["emoji"]["name"], style, emoji=True), Piece(" ", style)]
            pieces.append(Piece(item.get("label", ""), style))
            found.append((pieces, BUTTON_COLOURS[item.get("style", 2)]))
    return found


def draw_message(
    embed: discord.Embed,
    components: Sequence[Mapping[str, Any]],
    roller: str = ROLLER,
    command: str = "/sixpool check",
    *,
    callouts: bool = True,
) -> Image.Image:
    """Draw a bot's message: who used which command, the bot's name, the embed, the buttons;
    ``callouts``: the layout's parts numbered beside the embed (README's picture)."""
    inner = EMBED_MAX - BAR - 2 * PAD
    rows = _embed_blocks(embed, inner)
    widest = max(
        (
            measure(line) + block.left + (2 * FENCE_PAD if block.fenced else 0)
            for _, row in rows
            for block in row
            for line in block.lines
        ),
        default=0,
    )
    embed_width = min(EMBED_MAX, widest + BAR + 2 * PAD)
    row_heights = [max(top + block.height for block, top in _stack(row)) for _, row in rows]
    embed_height = sum(row_heights) + 2 * PAD - 4
    buttons = _buttons(components)
    button_height = 50
    top = MARGIN + 34  # the "used /command" line
    name_height = 36
    embed_top = top + name_height + 6
    height = embed_top + embed_height + (14 + button_height if buttons else 0) + MARGIN
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)

    # Who used the command, above the reply (Discord's interaction line).
    small = Style(FOOTER_SIZE + 1, MUTED)
    draw.line(
        [
            (MARGIN + AVATAR / 2, top - 8),
            (MARGIN + AVATAR / 2, top - 16),
            (CONTENT_LEFT - 12, top - 16),
        ],
        fill="#4e5058",
        width=3,
    )
    used = [
        Piece(roller, replace(small, colour=HEADER, bold=True)),
        Piece(" used ", small),
        Piece(command, replace(small, colour="#c9cdfb")),
    ]
    draw_line(image, used, CONTENT_LEFT, top - 30)
    # The bot: avatar, name, APP badge.
    draw.ellipse((MARGIN, top, MARGIN + AVATAR, top + AVATAR), fill=BLURPLE)
    draw_glyph(image, "🎲", MARGIN + AVATAR * 0.22, top + AVATAR * 0.22, round(AVATAR * 0.56))
    name = Style(TITLE_SIZE, HEADER, bold=True)
    draw_line(image, [Piece("Dice Bot", name)], CONTENT_LEFT, top)
    badge_left = CONTENT_LEFT + _width(Piece("Dice Bot", name)) + 10
    badge = Style(15, "#ffffff", bold=True)
    badge_width = _width(Piece("APP", badge)) + 12
    draw.rounded_rectangle(
        (badge_left, top + 8, badge_left + badge_width, top + 30), 4, fill=BLURPLE
    )
    draw_line(image, [Piece("APP", badge)], badge_left + 6, top + 5)

    # The embed: its colour's bar on the left, then its rows.
    colour = f"#{embed.colour.value:06x}" if embed.colour else "#1e1f22"
    box = (CONTENT_LEFT, embed_top, CONTENT_LEFT + embed_width, embed_top + embed_height)
    draw.rounded_rectangle(box, 8, fill=colour)
    draw.rounded_rectangle((box[0] + BAR, box[1], box[2], box[3]), 8, fill=EMBED)
    draw.rectangle((box[0] + BAR, box[1], box[0] + BAR + 8, box[3]), fill=EMBED)
    y = embed_top + PAD - 4
    spans: dict[int, tuple[int, int]] = {}
    for (part, row), row_height in zip(rows, row_heights, strict=True):
        text_top = y + min(top for _, top in _stack(row))
        spans[part] = (spans.get(part, (text_top, 0))[0], y + row_height)
        for block, block_top in _stack(row):
            line_top = y + block_top
            left = CONTENT_LEFT + BAR + PAD + block.left
            if block.fenced:
                box = (left, line_top, left + embed_width - BAR - 2 * PAD, line_top + block.height)
                draw.rounded_rectangle(box, 6, fill=CODE)
                line_top += FENCE_PAD
                left += FENCE_PAD
            for line in block.lines:
                draw_line(image, line, left, line_top)
                line_top += round(line[0].style.size * LINE)
        y += row_height
    if callouts:
        _callouts(image, spans, CONTENT_LEFT + embed_width + 20)

    # The buttons under it: rounded, in their style's colour, emoji then label.
    x, y = CONTENT_LEFT, embed_top + embed_height + 14
    for pieces, fill in buttons:
        width = sum(_width(piece) for piece in pieces) + 32
        draw.rounded_rectangle((x, y, x + width, y + button_height), 6, fill=fill)
        draw_line(image, pieces, x + 16, y + (button_height - round((TEXT_SIZE - 1) * LINE)) // 2)
        x += width + 12
    return image


def _callouts(image: Image.Image, spans: Mapping[int, tuple[int, int]], x: int) -> None:
    """Number the layout's parts right of the embed, as README's list does: a bracket the
    height of each part and its number in a circle."""
    draw = ImageDraw.Draw(image)
    number = Style(FOOTER_SIZE, "#ffffff", bold=True)
    radius = 15
    for part, (top, bottom) in sorted(spans.items()):
        draw.line(
            [(x, top + 3), (x + 8, top + 3), (x + 8, bottom - 3), (x, bottom - 3)],
            fill=MUTED,
            width=2,
        )
        cx, cy = x + 8 + 12 + radius, (top + bottom) / 2
        draw.line([(x + 8, cy), (cx - radius, cy)], fill=MUTED, width=2)
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill="#f0b232")
        label = Piece(str(part), number)
        height = round(number.size * LINE)
        draw_line(image, [label], round(cx - _width(label) / 2), round(cy - height / 2))


def render(system: str = "sixpool") -> bytes:
    """Return the picture of ``system``'s example as PNG bytes: a palette image, no metadata
    (the six-pool check, README's, numbers the layout's parts)."""
    shown = EXAMPLES[system]
    embed, components = shown.reply()
    image = draw_message(
        embed, components, shown.roller, shown.command, callouts=shown.output == OUTPUT
    )
    palette = image.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    """Write every picture (or those named); ``--check``: say whether each is up to date."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("systems", nargs="*", choices=[[], *EXAMPLES], help="default: all")
    parser.add_argument("--check", action="store_true", help="compare, don't write; 1 if stale")
    options = parser.parse_args(argv)
    if not (SYSTEM_FONTS / "DejaVuSans.ttf").is_file():
        print(
            f"the pictures are drawn with DejaVu Sans; install it ({SYSTEM_FONTS})",
            file=sys.stderr,
        )
        return 2
    stale = False
    for system in options.systems or EXAMPLES:
        output = EXAMPLES[system].output
        drawn = render(system)
        if options.check:
            current = output.read_bytes() if output.is_file() else b""
            stale = stale or current != drawn
            state = "stale, run docs/render_reply.py" if current != drawn else "up to date"
            print(f"{output}: {state}")
            continue
        output.parent.mkdir(exist_ok=True)
        output.write_bytes(drawn)
        print(f"{output}: {len(drawn):,} bytes")
    return int(stale)


if __name__ == "__main__":
    sys.exit(main())
