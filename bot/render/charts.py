"""PNG bar charts of exact distributions, attached to odds replies.

A chart is drawn from a ``ChartSpec``, built by the pure ``chart_spec``: one bar per total, each
coloured by the ``Outcome`` the rules gave it (never recomputed here from the marker), the
legend of the outcomes present, and the success chance from those same outcomes. Tests check
the spec; the drawing only paints it.

Uses matplotlib's object-oriented API on the Agg canvas, never ``pyplot``: pyplot keeps a global
figure registry (not thread-safe, and figures leak unless closed).

Speed (an odds reply has a 60 ms budget): building a figure, its axes and tick objects costs as
much as drawing it, so each thread keeps one figure and only updates its artists per chart (no
state is shared between threads, and the figure count is bounded by the thread count). The bot
draws on one dedicated thread (``draw_chart``): off the event loop, with one figure built once
(``warm_up``) rather than a new one on each pool thread's first chart. The bars
are one polygon collection rather than a patch each, ticks are fixed (at most eight on x, four
on y), the title position and margins are fixed (no tight_layout), PNG compression is fast, and
a repeated chart comes from a small cache. The legend is pixels, not artists: each entry is
drawn once per figure into a small image, and a chart pastes the entries it shows into the
drawn figure before encoding it (a matplotlib legend lays itself out on every draw, ~10 ms).
"""

from __future__ import annotations

import asyncio
import io
import math
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial
from types import MappingProxyType

import discord
import numpy as np

from bot.render.numbers import percent
from bot.render.style import Colour
from rules.odds import Distribution, Outcome

__all__ = [
    "LEGEND_ORDER",
    "OUTCOME_COLOURS",
    "PLAIN_COLOUR",
    "Bar",
    "ChartSpec",
    "chart_spec",
    "distribution_chart",
    "draw_chart",
    "warm_up",
]


def _hex(colour: discord.Colour) -> str:
    """Return an embed colour as matplotlib's ``#rrggbb``."""
    return f"#{colour.value:06x}"


# The embed colours, so chart and embed agree: green success, grey failure, gold critical
# success, red critical failure.
OUTCOME_COLOURS: Mapping[Outcome, str] = MappingProxyType(
    {
        Outcome.SUCCESS: _hex(Colour.SUCCESS),
        Outcome.FAILURE: _hex(Colour.FAILURE),
        Outcome.CRITICAL_SUCCESS: _hex(Colour.CRITICAL_SUCCESS),
        Outcome.CRITICAL_FAILURE: _hex(Colour.CRITICAL_FAILURE),
    }
)
PLAIN_COLOUR = _hex(Colour.FAILURE)
"""Bars of a chart without a target: nothing succeeds or fails."""
LEGEND_ORDER = (
    Outcome.SUCCESS,
    Outcome.FAILURE,
    Outcome.CRITICAL_SUCCESS,
    Outcome.CRITICAL_FAILURE,
)
# Near-black: red would read as a critical failure.
MARKER_COLOUR = "#23272a"
# 640x320 px: readable in Discord's preview and quick to draw.
FIGURE_INCHES = (6.4, 3.2)
DPI = 100
BAR_HALF_WIDTH = 0.42
MAX_X_TICKS = 8
Y_TICKS = 4
# Round percentage steps; three of the largest reach 100%.
Y_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 40.0)
# Figure layout (fractions of the figure): title, then the success chance, then the axes; the
# legend stands in a column right of the axes.
AXES_LEFT, AXES_RIGHT, AXES_TOP, AXES_BOTTOM = 0.08, 0.76, 0.82, 0.15
TITLE_Y, HEADLINE_Y = 0.97, 0.895
LEGEND_X = 0.77
LEGEND_ENTRY_PIXELS = (140, 20)  # width, height of one legend row
X_LABEL_Y = -0.136  # axes units: where matplotlib would put it below the tick labels
# A longer title is drawn smaller so it fits the 640 px width.
TITLE_LONG = 70
# A possible total is never invisible: a bar is at least this share of the y axis tall (about
# 2 px), so a one-in-ten-million critical still shows its colour.
MIN_BAR_SHARE = 0.01


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: a total, its chance in percent and how it counts (``None``: no target)."""

    value: int
    percent: float
    outcome: Outcome | None

    @property
    def colour(self) -> str:
        """Return the bar's fill colour, that of its outcome."""
        return PLAIN_COLOUR if self.outcome is None else OUTCOME_COLOURS[self.outcome]


@dataclass(frozen=True, slots=True)
class ChartSpec:
    """Everything one chart shows; equal specs draw identical PNGs.

    Attributes:
        title: The line above the chart.
        bars: One bar per total, smallest first.
        headline: The success chance as written on the chart ("Success 85.03%"), or ``None``
            for a chart without outcomes.
        marker: The target: a dashed line left of this total's bar, or ``None``.
        marker_label: The marker's caption ("TN 15").
    """

    title: str
    bars: tuple[Bar, ...]
    headline: str | None = None
    marker: int | None = None
    marker_label: str = ""

    @property
    def legend(self) -> tuple[tuple[str, str], ...]:
        """Return (label, colour) for each outcome among the bars, in ``LEGEND_ORDER``."""
        shown = {bar.outcome for bar in self.bars}
        return tuple(
            (outcome.value.capitalize(), OUTCOME_COLOURS[outcome])
            for outcome in LEGEND_ORDER
            if outcome in shown
        )


def chart_spec(
    distribution: Distribution,
    outcomes: Sequence[Outcome] | None = None,
    *,
    title: str,
    marker: int | None = None,
    marker_label: str = "",
) -> ChartSpec:
    """Return the chart of ``distribution``, each bar coloured by its outcome from the rules.

    Args:
        distribution: The totals, one bar each.
        outcomes: How each total counts, aligned with ``distribution.outcomes()``, as the rules
            return them (e.g. ``CosmosOdds.outcomes``); the headline's success chance is the
            exact chance of the totals that succeed. ``None``: plain bars, no headline.
        title: The line above the chart.
        marker: The total to mark with a dashed line (the TN), or ``None``.
        marker_label: The marker's caption.

    Raises:
        ValueError: ``outcomes`` does not have one outcome per total.
    """
    if outcomes is not None and len(outcomes) != len(distribution.weights):
        raise ValueError(
            f"expected one outcome per total ({len(distribution.weights)}), got {len(outcomes)}"
        )
    values = distribution.outcomes().tolist()
    percents = (distribution.probabilities() * 100).tolist()
    kinds: Sequence[Outcome | None] = [None] * len(values) if outcomes is None else outcomes
    bars = tuple(
        Bar(value, share, kind) for value, share, kind in zip(values, percents, kinds, strict=True)
    )
    headline = None
    if outcomes is not None:
        succeeding = np.fromiter(
            (outcome.succeeds for outcome in outcomes), dtype=bool, count=len(outcomes)
        )
        headline = f"Success {percent(distribution.probability_where(succeeding))}"
    return ChartSpec(
        title=title, bars=bars, headline=headline, marker=marker, marker_label=marker_label
    )


def distribution_chart(
    distribution: Distribution,
    outcomes: Sequence[Outcome] | None = None,
    *,
    title: str,
    marker: int | None = None,
    marker_label: str = "",
) -> bytes:
    """Draw the ``chart_spec`` of these arguments (or take it from the cache) as PNG bytes."""
    spec = chart_spec(distribution, outcomes, title=title, marker=marker, marker_label=marker_label)
    return _render(spec)


# Drawing holds the GIL almost throughout, so more threads would not draw faster.
_chart_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="charts")


async def draw_chart(
    distribution: Distribution,
    outcomes: Sequence[Outcome] | None = None,
    *,
    title: str,
    marker: int | None = None,
    marker_label: str = "",
) -> bytes:
    """Render ``distribution_chart`` on the chart thread, keeping the event loop free."""
    draw = partial(
        distribution_chart,
        distribution,
        outcomes,
        title=title,
        marker=marker,
        marker_label=marker_label,
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
        self.canvas = FigureCanvasAgg(self.figure)  # the figure's canvas from now on
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
        self.title_size = "medium"
        self.title = self.figure.text(
            0.5, TITLE_Y, "", ha="center", va="top", fontsize=self.title_size
        )
        self.headline = self.figure.text(
            AXES_LEFT, HEADLINE_Y, "", ha="left", va="top", fontsize="medium", fontweight="bold"
        )
        # The legend: rows of pixels pasted on the blank margin right of the axes.
        self.legend_rows: dict[tuple[str, str], np.ndarray] = {}
        self.legend_entries: tuple[tuple[str, str], ...] = ()
        self.legend_pixels: np.ndarray | None = None
        for outcome in LEGEND_ORDER:
            self._legend_row(outcome.value.capitalize(), OUTCOME_COLOURS[outcome])
        self.axes.set_xlabel("Total")
        # Fixed label positions: otherwise each draw measures every tick label again to place
        # the axis labels (about 2 ms). The y axis has no label.
        self.axes.xaxis.set_label_coords(0.5, X_LABEL_Y)
        self.axes.yaxis.set_label_coords(0.0, 0.5)
        self.axes.spines[["top", "right"]].set_visible(False)
        self.figure.subplots_adjust(
            left=AXES_LEFT, right=AXES_RIGHT, top=AXES_TOP, bottom=AXES_BOTTOM
        )

    def _legend_row(self, label: str, colour: str) -> np.ndarray:
        """Return one legend row (a colour square and its label) as RGBA pixels, drawn once."""
        row = self.legend_rows.get((label, colour))
        if row is None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure
            from matplotlib.patches import Rectangle

            width, height = LEGEND_ENTRY_PIXELS
            # The main figure's background, so a row pasted on it looks drawn there.
            figure = Figure(
                figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=self.figure.get_facecolor()
            )
            canvas = FigureCanvasAgg(figure)
            square = height * 0.6 / width  # a square of 60% of the row height, in figure units
            figure.add_artist(
                Rectangle(
                    (0.02, 0.2),
                    square,
                    0.6,
                    facecolor=colour,
                    edgecolor="none",
                    transform=figure.transFigure,
                )
            )
            figure.text(0.06 + square, 0.5, label, va="center", fontsize="small")
            canvas.draw()
            row = self.legend_rows[label, colour] = np.asarray(canvas.buffer_rgba()).copy()
        return row

    def _paste_legend(self, image: np.ndarray, entries: tuple[tuple[str, str], ...]) -> None:
        """Paste these (label, colour) entries, one row each, on the drawn ``image`` (RGBA)."""
        self.legend_entries = entries
        self.legend_pixels = None
        if entries:
            pixels = np.concatenate([self._legend_row(*entry) for entry in entries])
            top = round((1 - AXES_TOP) * FIGURE_INCHES[1] * DPI)
            left = round(LEGEND_X * FIGURE_INCHES[0] * DPI)
            image[top : top + pixels.shape[0], left : left + pixels.shape[1]] = pixels
            self.legend_pixels = pixels

    def draw(self, spec: ChartSpec) -> bytes:
        """Update every artist for this spec and return the PNG bytes."""
        outcomes = np.array([bar.value for bar in spec.bars], dtype=np.float64)
        percents = np.array([bar.percent for bar in spec.bars], dtype=np.float64)
        y_step = next(step for step in Y_STEPS if step * (Y_TICKS - 1) >= percents.max())
        y_ticks = [y_step * index for index in range(Y_TICKS)]
        y_top = y_ticks[-1] * 1.08
        heights = np.where(percents > 0, np.maximum(percents, y_top * MIN_BAR_SHARE), 0.0)
        left, right = outcomes - BAR_HALF_WIDTH, outcomes + BAR_HALF_WIDTH
        zeros = np.zeros_like(heights)
        # One (4, 2) rectangle per outcome: bottom-left, top-left, top-right, bottom-right.
        corners = [(left, zeros), (left, heights), (right, heights), (right, zeros)]
        rectangles = np.stack([np.column_stack(pair) for pair in corners], axis=1)
        self.bars.set_verts(rectangles)  # type: ignore[arg-type]  # matplotlib's stubs: an (N, 4, 2) array is verts too
        self.bars.set_facecolor([bar.colour for bar in spec.bars])
        self.headline.set_text(spec.headline or "")

        marker = spec.marker
        low, high = spec.bars[0].value, spec.bars[-1].value
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
            self.label.set_text(f"{spec.marker_label} " if on_left else f" {spec.marker_label}")

        self.axes.set_xlim(low - 1, high + 1)
        step = max(1, math.ceil((high - low + 1) / MAX_X_TICKS))
        x_ticks = list(range(low, high + 1, step))
        self.axes.set_xticks(x_ticks, [str(tick) for tick in x_ticks])
        self.axes.set_ylim(0, y_top)
        self.axes.set_yticks(y_ticks, [f"{tick:g}%" for tick in y_ticks])
        self.title.set_text(spec.title)
        title_size = "medium" if len(spec.title) <= TITLE_LONG else "small"
        if title_size != self.title_size:  # a new font size costs its glyph cache
            self.title.set_fontsize(title_size)
            self.title_size = title_size

        from PIL import Image

        canvas = self.canvas
        canvas.draw()
        image = np.asarray(canvas.buffer_rgba())  # the renderer's own pixels, redrawn each time
        self._paste_legend(image, spec.legend)
        buffer = io.BytesIO()
        Image.fromarray(image).save(buffer, format="png", compress_level=1)
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
def _render(spec: ChartSpec) -> bytes:
    """Draw ``spec`` on this thread's figure."""
    return _chart_for_this_thread().draw(spec)
