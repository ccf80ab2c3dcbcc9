"""The recap's embed and chart: what each says, from a hand-made ``Recap``."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFont

from bot.render import raster
from bot.render import recap as recap_render
from bot.render.charts import render_png
from bot.render.odds_charts import cosmos_chart
from bot.render.recap import (
    LUCKY_COLOUR,
    TABLE_COLOUR,
    UNLUCKY_COLOUR,
    RecapChart,
    draw_recap,
    luck_phrase,
    luck_sentence,
    recap_chart,
    recap_embed,
)
from rules import cosmos
from rules.recap import RecapRoll, recap

NAMES = {10: "Wren", 20: "Bo"}
ROLLS = [
    RecapRoll(1, 10, "dice", total=12, luck=Fraction(82, 100), chance=Fraction(1, 10)),
    RecapRoll(2, 20, "dice", total=3, luck=Fraction(1, 4), chance=Fraction(1, 4), fumble=True),
    RecapRoll(3, 30, "sixpool.check"),  # a player with no scored roll: no bar
]


def test_rule_recap_luck_reads_top_or_bottom_share_in_whole_percent() -> None:
    assert luck_phrase(Fraction(82, 100)) == "top 18%"
    assert luck_phrase(Fraction(1, 2)) == "top 50%"
    assert luck_phrase(Fraction(3, 10)) == "bottom 30%"
    assert luck_phrase(Fraction(9999, 10000)) == "top 1%"  # never "top 0%"


def test_recap_luck_reads_as_a_sentence_about_whose_dice_ran_hot_or_cold() -> None:
    assert luck_sentence("Wren", Fraction(82, 100)) == "Wren's dice ran hot: **top 18%**"
    assert luck_sentence("Bo", Fraction(46, 100)) == "Bo's dice ran cold: **bottom 46%**"
    assert luck_sentence("Jess", Fraction(3, 10)) == "Jess's dice ran cold: **bottom 30%**"
    assert luck_sentence("The table", Fraction(1, 2)) == "The table's dice ran even: **top 50%**"
    assert luck_sentence("Cy", Fraction(499, 1000)) == "Cy's dice ran even: **bottom 50%**"


def test_recap_embed_has_a_line_per_player_and_the_table() -> None:
    embed = recap_embed(recap(ROLLS), NAMES, gm_view=False).to_dict()
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert list(fields) == ["Wren", "Bo", "Player 30"]
    assert "🎯 Wren's dice ran hot: **top 18%** (1 scored roll)" in fields["Wren"]
    assert fields["Bo"].startswith("1 roll · 💥 1 fumble")
    assert fields["Player 30"] == "1 roll"
    assert "The table's dice ran hot: **top 46%**" in embed["description"]  # (82 + 25) / 2 = 53.5
    assert embed["footer"]["text"].startswith("Public and revealed rolls · rolls #1–#3")
    assert "🎲 Most unlikely: `#1`, only 10% of such rolls land this far out" in fields["Wren"]
    capped = recap_embed(recap(ROLLS), NAMES, gm_view=True, capped=True).to_dict()
    assert capped["footer"]["text"].startswith("GM view: hidden and blind rolls included · a long")


def test_recap_embed_says_how_many_rolls_were_too_large_to_score() -> None:
    heavy = [RecapRoll(4, 10, "dice", total=40_000, too_large=True),
             RecapRoll(5, 20, "dice", total=50_000, too_large=True),
             RecapRoll(6, 20, "dice", total=60_000, too_large=True)]  # fmt: skip
    embed = recap_embed(recap(ROLLS + heavy), NAMES, gm_view=False).to_dict()
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert "1 roll too large to score" in fields["Wren"]
    assert "🎯 Wren's dice ran hot: **top 18%** (1 scored roll)" in fields["Wren"]  # unchanged
    assert "2 rolls too large to score" in fields["Bo"]
    assert "3 rolls too large to score" in embed["description"]
    assert "too large" not in fields["Player 30"]  # unscored by kind: nothing to say
    assert (
        "too large" not in recap_embed(recap(ROLLS), NAMES, gm_view=False).to_dict()["description"]
    )


def test_recap_chart_has_a_bar_per_scored_player_and_the_table_last() -> None:
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    assert [(bar.label, bar.text, bar.colour) for bar in chart.bars] == [
        ("Wren", "top 18%", LUCKY_COLOUR),
        ("Bo", "bottom 25%", UNLUCKY_COLOUR),
        ("The table", "top 46%", TABLE_COLOUR),
    ]
    assert chart.bars[0].percent == 82.0
    assert recap_chart(recap(ROLLS[2:]), NAMES) is None  # nothing scored: no chart


async def _pixels(chart: RecapChart) -> np.ndarray:
    """The chart drawn as the bot attaches it, decoded by PIL to an (h, w, 3) array."""
    data = (await draw_recap(chart)).fp.read()
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return np.asarray(image.convert("RGB"))


def _bar_end(pixels: np.ndarray, y: int, colour: str) -> int:
    """The x just right of the last pixel of ``colour`` on row ``y``."""
    (xs,) = np.nonzero((pixels[y] == raster.rgb(colour)).all(axis=1))
    return int(xs.max()) + 1


async def test_recap_chart_is_a_phone_sized_png_with_a_row_per_bar() -> None:
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    pixels = await _pixels(chart)
    rows = 3  # Wren, Bo, the table
    height = recap_render.HEADER + rows * recap_render.ROW + recap_render.FOOTER
    assert pixels.shape == (height, 1000, 3)  # as wide as the odds charts
    # Down the plot's left edge, the bars' colours top to bottom, one run each.
    column = pixels[:, recap_render.PLOT_LEFT + 3]
    runs: list[tuple[int, int, int]] = []
    for colour in column.tolist():
        if tuple(colour) in {raster.rgb(bar.colour) for bar in chart.bars}:
            if not runs or runs[-1] != tuple(colour):
                runs.append(tuple(colour))
        elif runs and runs[-1] != (-1, -1, -1):
            runs.append((-1, -1, -1))
    assert [run for run in runs if run != (-1, -1, -1)] == [
        raster.rgb(bar.colour) for bar in chart.bars
    ]


async def test_recap_chart_bars_are_as_long_as_the_luck_the_embed_writes() -> None:
    made = recap(ROLLS)
    embed = recap_embed(made, NAMES, gm_view=False).to_dict()
    written = {field["name"]: field["value"] for field in embed["fields"]}
    written["The table"] = embed["description"]
    chart = recap_chart(made, NAMES)
    assert chart is not None
    pixels = await _pixels(chart)
    plot = recap_render.PLOT_RIGHT - recap_render.PLOT_LEFT
    for row, bar in enumerate(chart.bars):
        # Along the bar's top edge, clear of the words written on it.
        y = recap_render.bar_middle(row) - recap_render.BAR_HEIGHT // 2 + 2
        luck = (_bar_end(pixels, y, bar.colour) - recap_render.PLOT_LEFT) / plot * 100
        phrase = re.search(r"dice ran \w+: \*\*(top|bottom) (\d+)%\*\*", written[bar.label])
        assert phrase is not None, bar.label
        side, share = phrase.groups()
        assert bar.text == f"{side} {share}%"  # the words on the chart are the embed's
        # The bar's length is the luck the embed rounds to a whole percent (to a pixel).
        drawn = 100 - luck if side == "top" else luck
        assert abs(drawn - int(share)) <= 0.5 + 100 / plot, bar.label
        assert abs(luck - bar.percent) <= 100 / plot, bar.label
    # By hand: Wren's one roll is 82% (top 18%), Bo's 25%, the table's their mean, 53.5%.
    ends = {bar.label: bar.percent for bar in chart.bars}
    assert ends == {"Wren": 82.0, "Bo": 25.0, "The table": 53.5}


async def test_recap_chart_draws_the_average_luck_line_at_50_percent() -> None:
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    pixels = await _pixels(chart)
    ink = (pixels == raster.rgb(recap_render.AVERAGE_COLOUR)).all(axis=2)
    half = (recap_render.PLOT_LEFT + recap_render.PLOT_RIGHT) // 2
    top, bottom = recap_render.HEADER, recap_render.HEADER + 3 * recap_render.ROW
    line = ink[top:bottom, half - 1 : half + 2].all(axis=1)
    assert 0.35 < line.mean() < 0.65  # dashes and gaps all down the plot
    # Between the bars (no words there) the line is the only ink, 3 px wide.
    gaps = [y for y in range(top, bottom) if (y - top) % recap_render.ROW < 8]
    assert ink[gaps][:, half - 1 : half + 2].any()
    assert not ink[gaps][:, half - 12 : half - 1].any()
    assert not ink[gaps][:, half + 2 : half + 13].any()


async def test_recap_chart_cuts_a_long_name_to_fit_left_of_its_bar() -> None:
    names = {10: "W" * 40, 20: "Bartholomew the Unlucky of Eastmarch"}
    chart = recap_chart(recap(ROLLS), names)
    assert chart is not None
    pixels = await _pixels(chart)
    rows = slice(recap_render.HEADER, recap_render.HEADER + 3 * recap_render.ROW)
    blank = (pixels[rows] == raster.rgb(raster.BACKGROUND)).all(axis=2)
    assert not blank[:, recap_render.PLOT_LEFT // 2].all()  # the names are there
    assert blank[:, : recap_render.MARGIN].all()  # and stop short of the image's edge
    assert blank[:, recap_render.PLOT_LEFT - 12 : recap_render.PLOT_LEFT - 1].all()


@pytest.fixture
def pillow_font_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No DejaVu on the system: the charts fall back to the face Pillow ships."""

    def forget() -> None:
        for cached in (raster.font_face, raster._cached_shades, raster._recent_long_shades):
            cached.cache_clear()

    monkeypatch.setattr(raster, "SYSTEM_FONTS", tmp_path)
    forget()
    yield
    monkeypatch.undo()
    forget()


@pytest.mark.usefixtures("pillow_font_only")
async def test_recap_chart_without_system_fonts_uses_pillows_own_with_a_stroked_bold() -> None:
    regular, bold = raster.font_face(24, False), raster.font_face(24, True)
    assert isinstance(regular.font, ImageFont.FreeTypeFont)  # scalable, not the old bitmap
    assert regular.font.getname() == ("Aileron", "Regular") and bold.font is not regular.font
    assert (regular.stroke, bold.stroke) == (0, 1)
    # The stroke makes bold heavier: more ink for the same words.
    assert (
        raster.text_bitmap("top 18%", 24, bold=True).sum() > raster.text_bitmap("top 18%", 24).sum()
    )
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    assert (await _pixels(chart)).shape[1] == 1000
    # The odds charts draw with it too.
    odds = render_png(cosmos_chart(cosmos.odds(3, 2, 15, 2, 0)), cached=False)
    with Image.open(io.BytesIO(odds)) as image:
        assert image.size == (1000, 560)


def test_charts_use_the_systems_dejavu_sans_when_it_is_installed() -> None:
    if not (raster.SYSTEM_FONTS / "DejaVuSans-Bold.ttf").is_file():
        pytest.skip("no DejaVu Sans on this system")
    bold = raster.font_face(24, True).font
    assert isinstance(bold, ImageFont.FreeTypeFont)
    assert bold.getname() == ("DejaVu Sans", "Bold")
    assert raster.font_face(22, False).stroke == 0


async def test_recap_chart_is_drawn_on_discords_dark_background_with_light_text() -> None:
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    pixels = await _pixels(chart)
    assert tuple(pixels[0, 0]) == (0x31, 0x33, 0x38)  # opaque: the same card in either theme
    colours = {tuple(colour) for colour in pixels.reshape(-1, 3).tolist()}
    assert (0xDB, 0xDE, 0xE1) in colours  # the names and words: Discord's text colour
    assert (0x4E, 0x50, 0x58) in colours  # the grid
    assert (0x23, 0x27, 0x2A) not in colours  # no near-black ink left from the white theme


def test_odds_chart_is_drawn_on_discords_dark_background_with_light_text() -> None:
    png = render_png(cosmos_chart(cosmos.odds(3, 2, 15, 2, 0)), cached=False)
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "P"  # a palette image: no alpha, never transparent
        pixels = np.asarray(image.convert("RGB"))
    assert tuple(pixels[0, 0]) == (0x31, 0x33, 0x38)
    colours = {tuple(colour) for colour in pixels.reshape(-1, 3).tolist()}
    assert (0xDB, 0xDE, 0xE1) in colours
    assert (0xFF, 0xFF, 0xFF) not in colours
