"""The documentation's pictures of replies (docs/players/index.md, "Reading a reply"; issue 37
must 1): README's six-pool check (docs/reply.png) and one reply of each other system
(docs/replies/*.png, on its page).

``docs/render_reply.py`` draws each real reply as Discord's dark theme shows it. The committed
pictures must be exactly what it draws today, so a picture can't drift from the code: change
the layout, run the script, commit the pictures. (tests/e2e/test_readme.py checks that the bot
answers each example's command, with the same dice, with the example's embed and buttons.)
"""

from __future__ import annotations

import io
import struct
import zlib
from types import ModuleType

import pytest
from PIL import Image

from bot.render.raster import SYSTEM_FONTS
from tests.docs import DOCS, ROOT, docs_script

PICTURE = ROOT / "docs" / "reply.png"
SYSTEMS = ["cosmos", "sinew", "realms", "aethelgard", "sixpool"]

pytestmark = pytest.mark.skipif(
    not (SYSTEM_FONTS / "DejaVuSans.ttf").is_file(),
    reason="the committed pictures are drawn with DejaVu Sans (fonts-dejavu-core)",
)


def _renderer() -> ModuleType:
    """docs/render_reply.py, loaded once (a script, not a package: by its path)."""
    return docs_script("render_reply")


def _chunks(png: bytes) -> list[bytes]:
    """The PNG's chunk types, in order (each checked against its CRC)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    kinds, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + data) == crc, kind
        kinds.append(kind)
        at += 12 + length
    return kinds


def test_every_system_has_a_picture() -> None:
    assert sorted(_renderer().EXAMPLES) == sorted(SYSTEMS)
    assert _renderer().EXAMPLES["sixpool"].output == PICTURE  # README's


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_reply_picture_is_what_the_renderer_draws_today(system: str) -> None:
    shown = _renderer().EXAMPLES[system]
    drawn = _renderer().render(system)
    relative = shown.output.relative_to(ROOT)
    assert drawn == shown.output.read_bytes(), f"{relative} is stale: run docs/render_reply.py"


def test_readme_reply_picture_is_what_the_renderer_draws_today() -> None:
    drawn = _renderer().render()
    assert drawn == PICTURE.read_bytes(), "docs/reply.png is stale: run docs/render_reply.py"


@pytest.mark.parametrize("system", SYSTEMS)
def test_each_reply_picture_is_a_small_palette_png_without_metadata(system: str) -> None:
    png = _renderer().EXAMPLES[system].output.read_bytes()
    assert 5_000 < len(png) < 60_000, len(png)
    assert _chunks(png) == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]  # no time, no text
    image = Image.open(io.BytesIO(png))
    assert image.mode == "P"
    width, height = image.size
    assert width == 1000 and 300 <= height <= 900, image.size
    colours = image.convert("RGB").getcolors(256)
    assert colours is not None and len(colours) > 8  # text, the embed, its bar, glyphs


def test_readme_reply_picture_shows_a_real_six_pool_check_with_its_buttons() -> None:
    embed, components = _renderer().example()
    shown = embed.to_dict()
    # README's example, part by part, as the real roll step renders it (seeded).
    assert shown["title"] == "✅ Success · Rin: DEX check (stealth) · total 19"
    assert shown["description"] == (
        "🎲 2d20, keep the higher (advantage): ~~8~~, **13** + 2 [proficiency (stealth)] + 4 "
        "[2 DEX points spent (Edge 1, option B)] vs DC 15 (Medium)\n"
        "Inspiration spent for advantage."
    )
    # One field: the state the roll changed (issue 53: nothing restates the title's total).
    assert [(field["name"], field["value"]) for field in shown["fields"]] == [
        ("DEX pool", "2 spent: 6/8 left"),
    ]
    assert shown["footer"]["text"] == "Roll #42"
    # Inspiration was spent on the advantage, so no die can be rerolled: Roll again alone.
    [[button]] = [row["components"] for row in components]
    assert (button["label"], button["style"], button["custom_id"]) == (
        "Roll again",
        1,
        "roll:again:42",
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "![A six-pool check's reply](docs/reply.png)" in readme
    assert shown["title"] in readme
    reading = (DOCS / "players" / "index.md").read_text(encoding="utf-8")
    assert "![A six-pool check's reply](../reply.png)" in reading
    assert shown["title"] in reading


def test_readme_reply_picture_draws_discord_markdown() -> None:
    renderer = _renderer()
    base = renderer.Style(22, "#ffffff")
    pieces = renderer.parse("🎲 ~~8~~, **13** \\*x\\* `1d6`", base)
    styled = [
        (piece.text.strip(), piece.emoji, piece.style.bold, piece.style.struck, piece.style.code)
        for piece in pieces
        if piece.text.strip()
    ]
    assert styled == [
        ("🎲", True, False, False, False),
        ("8", False, False, True, False),
        (",", False, False, False, False),
        ("13", False, True, False, False),
        ("*", False, False, False, False),
        ("x", False, False, False, False),
        ("*", False, False, False, False),
        ("1d6", False, False, False, True),
    ]


def test_readme_reply_picture_wraps_a_long_line_at_spaces_as_discord_does() -> None:
    renderer = _renderer()
    text = "d20 13 + modifiers +6 = **19** vs DC 15 (Medium): margin +4 " * 3
    lines = renderer.wrap(renderer.parse(text, renderer.Style(22, "#ffffff")), 300)
    assert len(lines) > 3
    assert all(renderer.measure(line) <= 300 for line in lines)
    assert "".join(piece.text for line in lines for piece in line) == text.replace("**", "")


def test_a_fenced_code_block_is_drawn_monospaced_on_its_box() -> None:
    renderer = _renderer()
    style = renderer.Style(22, "#ffffff")
    blocks = renderer._text_blocks("🎲 6d10\n```\nRoll: [8, 1]\n→ 1 Success\n```", style, 600, 8)
    assert [block.fenced for block in blocks] == [False, True]
    assert [[piece.text for piece in line] for line in blocks[1].lines] == [
        ["Roll: [8, 1]"],
        ["→ 1 Success"],
    ]
    assert all(line[0].style.code and line[0].style.fenced for line in blocks[1].lines)
