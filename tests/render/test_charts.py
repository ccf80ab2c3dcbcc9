"""The odds chart renders a PNG of sensible size, with or without a marker."""

from __future__ import annotations

import io
import threading

import pytest
from matplotlib.image import imread

from bot.render import charts as charts_module
from bot.render.charts import distribution_chart
from rules import cosmos
from rules.odds import Distribution

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("distribution", "marker"),
    [
        (cosmos.odds(3, 2, 15, advantage=3).totals, 15),
        (cosmos.odds(0, 0, 40, disadvantage=5).totals, 40),  # marker far right of the bars
        (cosmos.odds(5, 5, 2).totals, 2),  # marker left of every bar
        (Distribution.constant(7), None),
    ],
)
def test_distribution_chart_is_a_png(distribution: Distribution, marker: int | None) -> None:
    png = distribution_chart(
        distribution, title="Cosmos odds", marker=marker, marker_label=f"TN {marker}"
    )
    assert png.startswith(PNG_SIGNATURE)
    assert 2_000 < len(png) < 200_000
    height, width, _ = imread(io.BytesIO(png), format="png").shape
    assert (width, height) == (640, 320)


def _draw_in_new_thread(charts: list[tuple[Distribution, int | None]]) -> list[bytes]:
    """Draw charts in order on a fresh thread (a fresh figure), bypassing the bytes cache."""
    results: list[bytes] = []

    def work() -> None:
        for distribution, marker in charts:
            weights = tuple(int(weight) for weight in distribution.weights)
            results.append(
                charts_module._render.__wrapped__(
                    distribution.offset, weights, "Odds", marker, f"TN {marker}"
                )
            )

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    return results


def test_reused_figure_carries_nothing_over_between_charts() -> None:
    marked = (cosmos.odds(3, 2, 15, advantage=3).totals, 15)
    plain = (cosmos.odds(0, 0, 10, disadvantage=2).totals, None)
    wide = (cosmos.odds(0, 0, 40, disadvantage=5).totals, 40)
    (fresh_plain,) = _draw_in_new_thread([plain])
    (fresh_marked,) = _draw_in_new_thread([marked])
    after = _draw_in_new_thread([wide, marked, plain])
    assert after[1] == fresh_marked
    assert after[2] == fresh_plain


def test_repeated_chart_is_served_from_the_cache() -> None:
    distribution = cosmos.odds(1, 1, 12).totals
    first = distribution_chart(distribution, title="Cached", marker=12, marker_label="TN 12")
    again = distribution_chart(distribution, title="Cached", marker=12, marker_label="TN 12")
    assert again is first
