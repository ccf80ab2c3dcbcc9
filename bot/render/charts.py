"""PNG bar charts of exact distributions, attached to odds replies.

Uses matplotlib's object-oriented API on the Agg canvas, never ``pyplot``: pyplot keeps a global
figure registry (not thread-safe, and figures leak unless closed).

Speed (an odds reply has a 60 ms budget): building a figure, its axes and tick objects costs as
much as drawing it, so each thread keeps one figure and only updates its artists per chart (no
state is shared between threads, and the figure count is bounded by the thread count). The bot
draws on one dedicated thread (``draw_chart``): off the event loop, with one figure built once
(``warm_up``) rather than a new one on each pool thread's first chart. The bars
are one polygon collection rather than a patch each, ticks are fixed (at most eight on x, four
on y), the title position and margins are fixed (no tight_layout), PNG compression is fast, and
a repeated chart comes from a small cache.
"""

from __future__ import annotations

import asyncio
import io
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache, partial

import numpy as np

from rules.odds import Distribution

__all__ = ["distribution_chart", "draw_chart", "warm_up"]

# Same hues as the embed colours (green success, dark grey failure) so chart and embed agree.
SUCCESS_COLOUR = "#2ecc71"
FAILURE_COLOUR = "#607d8b"
MARKER_COLOUR = "#e74c3c"
# 640x320 px: readable in Discord's preview and quick to draw.
FIGURE_INCHES = (6.4, 3.2)
DPI = 100
BAR_HALF_WIDTH = 0.42
MAX_X_TICKS = 8
Y_TICKS = 4
# Round percentage steps; three of the largest reach 100%.
Y_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 40.0)


def distribution_chart(
    distribution: Distribution, *, title: str, marker: int | None, marker_label: str
) -> bytes:
    """Render a bar per total, success bars (total >= marker) coloured, and return PNG bytes."""
    weights = tuple(int(weight) for weight in distribution.weights)
    return _render(distribution.offset, weights, title, marker, marker_label)


# Drawing holds the GIL almost throughout, so more threads would not draw faster.
_chart_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="charts")


async def draw_chart(
    distribution: Distribution, *, title: str, marker: int | None, marker_label: str
) -> bytes:
    """Render ``distribution_chart`` on the chart thread, keeping the event loop free."""
    draw = partial(
        distribution_chart, distribution, title=title, marker=marker, marker_label=marker_label
    )
    return await asyncio.get_running_loop().run_in_executor(_chart_thread, draw)


async def warm_up() -> None:
    """Import matplotlib and build the chart thread's figure, so the first odds reply is quick."""
    await asyncio.get_running_loop().run_in_executor(_chart_thread, _chart_for_this_thread)


class _Chart:
    """One figure with every artist a chart needs, updated in place for each chart."""

    def __init__(self) -> None:
        # matplotlib is imported on the first chart (in a worker thread), not at start: it
        # costs ~0.8 s and ~35 MB that a bot which never draws a chart should not pay.
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=FIGURE_INCHES, dpi=DPI)
        FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_subplot()
        self.bars = PolyCollection([], edgecolors="none")
        self.axes.add_collection(self.bars)
        self.line = self.axes.axvline(0, color=MARKER_COLOUR, linestyle="--", linewidth=1.5)
        self.label = self.axes.text(
            0,
            1.0,
            "",
            transform=self.axes.get_xaxis_transform(),
            color=MARKER_COLOUR,
            va="top",
            fontsize="small",
        )
        self.title = self.axes.set_title("", fontsize="medium", y=1.02)
        self.axes.set_xlabel("Total")
        self.axes.spines[["top", "right"]].set_visible(False)
        self.figure.subplots_adjust(left=0.08, right=0.98, top=0.88, bottom=0.15)

    def draw(
        self, distribution: Distribution, title: str, marker: int | None, marker_label: str
    ) -> bytes:
        """Update every artist for this distribution and return the PNG bytes."""
        outcomes = distribution.outcomes()
        percents = distribution.probabilities() * 100
        left, right = outcomes - BAR_HALF_WIDTH, outcomes + BAR_HALF_WIDTH
        zeros = np.zeros_like(percents)
        # One (4, 2) rectangle per outcome: bottom-left, top-left, top-right, bottom-right.
        corners = [(left, zeros), (left, percents), (right, percents), (right, zeros)]
        self.bars.set_verts(np.stack([np.column_stack(pair) for pair in corners], axis=1))
        successes = np.zeros(outcomes.shape, bool) if marker is None else outcomes >= marker
        self.bars.set_facecolors(np.where(successes, SUCCESS_COLOUR, FAILURE_COLOUR).tolist())

        low, high = distribution.min_value, distribution.max_value
        self.line.set_visible(marker is not None)
        self.label.set_visible(marker is not None)
        if marker is not None:
            # Between bars: everything right of the line reaches the marker. A marker beyond
            # the bars widens the axis so the line (and the gap to it) stays visible.
            position = marker - 0.5
            low, high = min(low, math.floor(position)), max(high, math.ceil(position))
            self.line.set_xdata([position, position])
            # Label on the side with more room, so it never runs off the image.
            on_left = position > (low + high) / 2
            self.label.set_x(position)
            self.label.set_horizontalalignment("right" if on_left else "left")
            self.label.set_text(f"{marker_label} " if on_left else f" {marker_label}")

        self.axes.set_xlim(low - 1, high + 1)
        step = max(1, math.ceil((high - low + 1) / MAX_X_TICKS))
        x_ticks = list(range(low, high + 1, step))
        self.axes.set_xticks(x_ticks, [str(tick) for tick in x_ticks])
        y_step = next(step for step in Y_STEPS if step * (Y_TICKS - 1) >= percents.max())
        y_ticks = [y_step * index for index in range(Y_TICKS)]
        self.axes.set_ylim(0, y_ticks[-1] * 1.08)
        self.axes.set_yticks(y_ticks, [f"{tick:g}%" for tick in y_ticks])
        self.title.set_text(title)

        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", pil_kwargs={"compress_level": 1})
        return buffer.getvalue()


_per_thread = threading.local()


def _chart_for_this_thread() -> _Chart:
    chart: _Chart | None = getattr(_per_thread, "chart", None)
    if chart is None:
        chart = _per_thread.chart = _Chart()
    return chart


# The same odds query asked again (a table checking one roll) costs nothing; bytes are immutable
# and 256 charts of ~17 kB stay under 5 MB.
@lru_cache(maxsize=256)
def _render(
    offset: int, weights: tuple[int, ...], title: str, marker: int | None, marker_label: str
) -> bytes:
    """Draw the chart of the distribution ``offset``/``weights`` on this thread's figure."""
    chart = _chart_for_this_thread()
    distribution = Distribution(offset, np.array(weights, dtype=object))
    return chart.draw(distribution, title, marker, marker_label)
