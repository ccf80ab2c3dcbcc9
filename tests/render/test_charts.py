"""The odds chart: bars coloured by the rules' outcomes (checked by brute force), legend, headline.

The chart is drawn from a pure ``chart_spec``; most tests check the spec against every roll
enumerated, and a few check that the drawing paints exactly the spec and makes a PNG.
"""

from __future__ import annotations

import io
import threading
from collections import defaultdict
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from PIL import Image

from bot.render import charts as charts_module
from bot.render.charts import (
    OUTCOME_COLOURS,
    PLAIN_COLOUR,
    ChartSpec,
    chart_spec,
    distribution_chart,
    encode_png,
)
from bot.render.numbers import percent
from bot.render.raster import encode_indexed_png, rgb
from bot.render.style import Colour
from rules import cosmos
from rules.odds import Distribution, Keep, Outcome
from tests.rules.brute_force import kept_counts

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
GOLD, RED, GREEN, GREY = "#f1c40f", "#e74c3c", "#2ecc71", "#607d8b"
LEGEND_SQUARE_PIXELS = 24

# (attribute, skill, tn, advantage, disadvantage): the two examples and a normal roll.
ALWAYS_BELOW_TN = (5, 5, 40, 0, 0)
ALWAYS_ABOVE_TN = (5, 5, 8, 0, 5)
NORMAL = (3, 2, 15, 2, 0)
EXAMPLES = [ALWAYS_BELOW_TN, ALWAYS_ABOVE_TN, NORMAL]


def _brute_force_bars(
    attribute: int, skill: int, tn: int, advantage: int, disadvantage: int
) -> tuple[dict[int, Outcome], Fraction]:
    """Enumerate every roll: return each total's one outcome and the exact success chance.

    Decides each roll from its kept faces as the house rule says (both 10 succeeds, both 1
    fails, else total >= TN), without calling the rules module, and checks that all rolls
    with the same total count the same way (so a bar is never part success, part failure).
    """
    net = max(-5, min(5, advantage - disadvantage))
    count = 2 + abs(net)
    which = Keep.LOWEST if net < 0 else Keep.HIGHEST
    seen: dict[int, set[Outcome]] = defaultdict(set)
    wins = 0
    for (low, high), ways in kept_counts(count, 10, 2, which).items():
        total = low + high + attribute + skill
        if (low, high) == (10, 10):
            outcome = Outcome.CRITICAL_SUCCESS
        elif (low, high) == (1, 1):
            outcome = Outcome.CRITICAL_FAILURE
        else:
            outcome = Outcome.SUCCESS if total >= tn else Outcome.FAILURE
        seen[total].add(outcome)
        wins += ways if outcome in (Outcome.SUCCESS, Outcome.CRITICAL_SUCCESS) else 0
    assert all(len(outcomes) == 1 for outcomes in seen.values()), seen
    return {total: outcomes.pop() for total, outcomes in seen.items()}, Fraction(wins, 10**count)


def _odds_chart(
    attribute: int, skill: int, tn: int, advantage: int, disadvantage: int
) -> ChartSpec:
    """Return the spec of the chart ``/cosmos odds`` draws for this roll."""
    result = cosmos.odds(attribute, skill, tn, advantage, disadvantage)
    return chart_spec(
        result.totals, result.outcomes, title="Odds", marker=tn, marker_label=f"TN {tn}"
    )


def test_outcome_colours_are_the_embed_colours() -> None:
    assert OUTCOME_COLOURS == {
        Outcome.SUCCESS: GREEN,
        Outcome.FAILURE: GREY,
        Outcome.CRITICAL_SUCCESS: GOLD,
        Outcome.CRITICAL_FAILURE: RED,
    }
    hexes = {
        f"#{colour.value:06x}"
        for colour in (
            Colour.SUCCESS,
            Colour.FAILURE,
            Colour.CRITICAL_SUCCESS,
            Colour.CRITICAL_FAILURE,
        )
    }
    assert hexes == {GREEN, GREY, GOLD, RED}


@pytest.mark.parametrize("roll", EXAMPLES)
def test_every_bar_has_the_colour_of_its_outcome_by_brute_force(
    roll: tuple[int, int, int, int, int],
) -> None:
    expected, success = _brute_force_bars(*roll)
    spec = _odds_chart(*roll)
    assert [bar.value for bar in spec.bars] == sorted(expected)
    for bar in spec.bars:
        assert bar.outcome is expected[bar.value], bar
        assert bar.colour == OUTCOME_COLOURS[expected[bar.value]], bar
    assert spec.headline == f"Success {percent(success)}"
    assert cosmos.odds(*roll).success == success


def test_chart_of_a_tn_above_every_total_shows_only_the_critical_success_green() -> None:
    spec = _odds_chart(*ALWAYS_BELOW_TN)
    colours = {bar.value: bar.colour for bar in spec.bars}
    assert colours[30] == GOLD  # both dice 10: succeeds although 30 < TN 40
    assert colours[12] == RED
    assert {colour for total, colour in colours.items() if total not in (12, 30)} == {GREY}
    assert spec.headline == "Success 1.00%"
    assert spec.legend == (
        ("Failure", GREY),
        ("Critical success", GOLD),
        ("Critical failure", RED),
    )


def test_chart_of_a_tn_below_every_total_shows_the_critical_failure_red() -> None:
    spec = _odds_chart(*ALWAYS_ABOVE_TN)
    colours = {bar.value: bar.colour for bar in spec.bars}
    assert colours[12] == RED  # both dice 1: fails although 12 >= TN 8
    assert colours[30] == GOLD  # every one of seven dice 10
    assert {colour for total, colour in colours.items() if total not in (12, 30)} == {GREEN}
    assert spec.headline == "Success 85.03%"
    assert spec.legend == (
        ("Success", GREEN),
        ("Critical success", GOLD),
        ("Critical failure", RED),
    )


def test_chart_of_a_normal_roll_has_all_four_outcomes_in_the_legend() -> None:
    spec = _odds_chart(*NORMAL)
    assert [bar.outcome for bar in spec.bars] == (
        [Outcome.CRITICAL_FAILURE]
        + [Outcome.FAILURE] * (14 - 8 + 1)
        + [Outcome.SUCCESS] * (24 - 15 + 1)
        + [Outcome.CRITICAL_SUCCESS]
    )
    assert spec.headline == "Success 93.44%"
    assert [label for label, _ in spec.legend] == [
        "Success",
        "Failure",
        "Critical success",
        "Critical failure",
    ]


def test_bar_heights_are_the_exact_chances_in_percent() -> None:
    result = cosmos.odds(*NORMAL)
    spec = _odds_chart(*NORMAL)
    exact = result.totals.as_fractions()
    for bar in spec.bars:
        assert bar.percent == pytest.approx(float(exact[bar.value] * 100), rel=1e-12)


def test_chart_without_outcomes_has_plain_bars_no_legend_and_no_headline() -> None:
    spec = chart_spec(cosmos.odds(1, 1, 12).totals, title="Plain")
    assert {bar.colour for bar in spec.bars} == {PLAIN_COLOUR}
    assert spec.legend == ()
    assert spec.headline is None


def test_chart_spec_refuses_outcomes_that_do_not_match_the_totals() -> None:
    result = cosmos.odds(1, 1, 12)
    with pytest.raises(ValueError, match="one outcome per total"):
        chart_spec(result.totals, result.outcomes[:-1], title="Odds")


# --- Drawing


def _pixels(png: bytes) -> np.ndarray:
    """Decode a PNG into (h, w, 3) RGB pixels."""
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"))


def _count(pixels: np.ndarray, colour: str) -> int:
    """Return how many pixels are exactly ``colour``."""
    return int((pixels == rgb(colour)).all(axis=2).sum())


@pytest.mark.parametrize("roll", EXAMPLES)
def test_drawing_paints_every_bar_colour_and_legend_square(
    roll: tuple[int, int, int, int, int],
) -> None:
    spec = _odds_chart(*roll)
    pixels = _pixels(charts_module._render.__wrapped__(spec))
    legend_square = LEGEND_SQUARE_PIXELS**2
    for label, colour in spec.legend:
        assert _count(pixels, colour) > legend_square, label  # its square and its bars
    painted = {colour for colour in OUTCOME_COLOURS.values() if _count(pixels, colour)}
    assert painted == {bar.colour for bar in spec.bars}


def test_a_one_in_ten_million_bar_is_still_visible() -> None:
    spec = _odds_chart(*ALWAYS_ABOVE_TN)
    assert spec.bars[-1].outcome is Outcome.CRITICAL_SUCCESS
    assert spec.bars[-1].percent == pytest.approx(1e-5)
    pixels = _pixels(charts_module._render.__wrapped__(spec))
    # The legend's square, plus a bar at least 3 px tall and several wide.
    assert _count(pixels, GOLD) >= LEGEND_SQUARE_PIXELS**2 + 3 * 10


@pytest.mark.parametrize(
    ("distribution", "outcomes", "marker"),
    [
        (cosmos.odds(*NORMAL).totals, cosmos.odds(*NORMAL).outcomes, 15),
        # marker far right of the bars
        (cosmos.odds(0, 0, 40, disadvantage=5).totals, cosmos.odds(0, 0, 40, 0, 5).outcomes, 40),
        (cosmos.odds(5, 5, 2).totals, cosmos.odds(5, 5, 2).outcomes, 2),  # left of every bar
        (Distribution.constant(7), None, None),
    ],
)
def test_distribution_chart_is_a_phone_sized_png(
    distribution: Distribution, outcomes: tuple[Outcome, ...] | None, marker: int | None
) -> None:
    png = distribution_chart(
        distribution, outcomes, title="Cosmos odds", marker=marker, marker_label=f"TN {marker}"
    )
    assert png.startswith(PNG_SIGNATURE)
    assert 2_000 < len(png) < 200_000
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1000, 560)
        assert image.format == "PNG"


def test_encode_png_round_trips_rgb_and_rgba_pixels() -> None:
    generator = np.random.default_rng(7)
    for channels, mode in ((3, "RGB"), (4, "RGBA")):
        pixels = generator.integers(0, 256, size=(37, 53, channels), dtype=np.uint8)
        with Image.open(io.BytesIO(encode_png(pixels))) as image:
            assert image.mode == mode
            assert np.array_equal(np.asarray(image), pixels)


@pytest.mark.parametrize(("colours", "width"), [(1, 8), (2, 53), (16, 53), (17, 52), (256, 37)])
def test_encode_indexed_png_round_trips_every_pixel_and_the_palette(
    colours: int, width: int
) -> None:
    # At most 16 colours pack two pixels a byte (an odd width pads the last); more take a byte.
    generator = np.random.default_rng(colours)
    indices = generator.integers(0, colours, size=(29, width), dtype=np.uint8)
    palette = [(i, 255 - i, (7 * i) % 256) for i in range(colours)]
    png = encode_indexed_png(indices, palette)
    assert png[24] == (4 if colours <= 16 else 8)  # IHDR's bit depth
    with Image.open(io.BytesIO(png)) as image:
        assert image.mode == "P" and image.size == (width, 29)
        assert np.array_equal(np.asarray(image), indices)
        flat = image.getpalette()
        assert flat is not None
        assert [tuple(flat[i : i + 3]) for i in range(0, 3 * colours, 3)] == palette


def _draw_in_new_thread(specs: list[ChartSpec]) -> list[bytes]:
    """Draw specs in order on a fresh thread (a fresh figure), bypassing the bytes cache."""
    results: list[bytes] = []

    def work() -> None:
        results.extend(charts_module._render.__wrapped__(spec) for spec in specs)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return results


def test_reused_figure_carries_nothing_over_between_charts() -> None:
    marked = _odds_chart(*NORMAL)
    plain = chart_spec(cosmos.odds(0, 0, 10, disadvantage=2).totals, title="Odds")
    wide = _odds_chart(0, 0, 40, 0, 5)
    (fresh_plain,) = _draw_in_new_thread([plain])
    (fresh_marked,) = _draw_in_new_thread([marked])
    after = _draw_in_new_thread([wide, marked, plain])
    assert after[1] == fresh_marked
    assert after[2] == fresh_plain


def test_repeated_chart_is_served_from_the_cache() -> None:
    result = cosmos.odds(1, 1, 12)
    arguments: dict[str, Any] = {"title": "Cached", "marker": 12, "marker_label": "TN 12"}
    first = distribution_chart(result.totals, result.outcomes, **arguments)
    again = distribution_chart(result.totals, result.outcomes, **arguments)
    assert again is first


@pytest.mark.parametrize("length", [1, 5, 40, 71, 72, 73, 200])
def test_a_title_or_headline_of_any_length_is_fitted_and_ends(length: int) -> None:
    text = ("Success > 99.999% (all but about 1 in 124,760,960,600,640) · " * 5)[:length]
    fitted, size = charts_module._fitted(text, 28, 900, True)
    width, _ = charts_module.text_size(fitted, size, True)
    assert width <= 900 and size >= 20
    assert fitted == text or (fitted.endswith("…") and text.startswith(fitted[:-1]))
