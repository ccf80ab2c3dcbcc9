"""PNG bar charts of exact odds, attached to odds replies (docs/players/index.md, "Odds charts").

A chart is drawn from a ``ChartSpec`` (one panel) or a ``ChartSheet`` (several panels under one
title, e.g. one per target of a split attack). A spec is pure data, built by ``chart_spec`` or
by each system's renderer from the same exact odds as the text reply: one bar per value, each
coloured by the ``Outcome`` the rules gave it or by a ``Kind`` of its own (the six degrees of a
six-pool roll, a fumble, the sides of an opposed roll). Tests check the spec against the text;
the drawing only paints it.

The drawing is numpy and PIL (``bot.render.raster``): 1000×560 px with 22-30 px text, readable
on a phone, and a few milliseconds for a fresh chart. It runs on one chart thread, off the
event loop; a repeated chart comes from a small cache.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial
from types import MappingProxyType

import discord
import numpy as np

from bot.render.numbers import percent
from bot.render.raster import GRID, INK, MUTED, Box, Canvas, encode_png, text_size
from bot.render.style import Colour
from rules.odds import Distribution, Outcome

__all__ = [
    "LEGEND_ORDER",
    "OUTCOME_COLOURS",
    "PLAIN_COLOUR",
    "Bar",
    "ChartSheet",
    "ChartSpec",
    "Kind",
    "chart_spec",
    "distribution_chart",
    "draw_chart",
    "draw_spec",
    "encode_png",
    "render_png",
    "warm_up",
]


def _hex(colour: discord.Colour) -> str:
    """Return an embed colour as ``#rrggbb``."""
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
# The text's near-white on the dark background: red would read as a critical failure.
MARKER_COLOUR = INK
AXIS = MUTED
# Phone-readable: Discord shows the image at full width on a phone (about 360-400 pt), so a
# 1000 px wide chart is scaled by ~0.4 and 22 px text stays about 9 pt.
WIDTH, HEIGHT = 1000, 560
TITLE_SIZE, HEADLINE_SIZE, PANEL_TITLE_SIZE = 30, 28, 24
TICK_SIZE, LABEL_SIZE, LEGEND_SIZE, NOTE_SIZE = 22, 24, 24, 22
MARGIN = 16
HEADER = 100  # title and headline above the plot(s)
SHEET_HEADER = 140  # a sheet's legend has a row of its own under the headline
SHEET_LEGEND_Y = 116
LEGEND_WIDTH = 265  # the legend column right of a one-panel chart
LEGEND_ROW = 36
Y_LABEL_WIDTH = 84  # room for "100%" left of the plot
PANEL_HEIGHT = 330  # each panel of a sheet
BAR_HALF_WIDTH = 0.42
MAX_X_TICKS = 10
Y_TICKS = 4
# Round percentage steps; three of the largest reach 100%.
Y_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 40.0)
# A possible value is never invisible: a bar is at least this share of the y axis tall, so a
# one-in-ten-million critical still shows its colour.
MIN_BAR_SHARE = 0.01
MIN_BAR_PIXELS = 3


@dataclass(frozen=True, slots=True)
class Kind:
    """How a bar counts when the four ``Outcome``s are too few: its legend label and colour.

    ``rank`` orders the legend (smallest first); ``legend`` false keeps it out of the legend
    (bars labelled under the axis need none).
    """

    label: str
    colour: str
    rank: int = 0
    legend: bool = True


@dataclass(frozen=True, slots=True)
class Bar:
    """One bar: a value, its chance in percent and how it counts.

    Attributes:
        value: Where the bar stands on the x axis.
        percent: Its chance, 0-100.
        outcome: How it counts by the four outcomes (``None``: no target, or see ``kind``).
        kind: How it counts when it is none of the outcomes (it wins over ``outcome``).
        label: The text under the bar instead of its value (e.g. "Fumble").
        note: Text over the bar (its chance as the text reply writes it).
    """

    value: int
    percent: float
    outcome: Outcome | None
    kind: Kind | None = None
    label: str | None = None
    note: str | None = None

    @property
    def colour(self) -> str:
        """Return the bar's fill colour, that of its kind or outcome."""
        if self.kind is not None:
            return self.kind.colour
        return PLAIN_COLOUR if self.outcome is None else OUTCOME_COLOURS[self.outcome]

    @property
    def _legend_entry(self) -> tuple[int, str, str] | None:
        if self.kind is not None:
            return (self.kind.rank, self.kind.label, self.kind.colour) if self.kind.legend else None
        if self.outcome is None:
            return None
        return LEGEND_ORDER.index(self.outcome), self.outcome.value.capitalize(), self.colour


def _legend(bars: Sequence[Bar]) -> tuple[tuple[str, str], ...]:
    # One bar of each (kind, outcome): a Realms chart has a thousand bars of two kinds. Kinds
    # by identity (hashing a thousand dataclasses costs more): equal ones meet in the set.
    distinct = {(id(bar.kind), bar.outcome): bar for bar in bars}.values()
    entries = {entry for bar in distinct if (entry := bar._legend_entry) is not None}
    return tuple((label, colour) for _, label, colour in sorted(entries))


@dataclass(frozen=True, slots=True)
class ChartSpec:
    """Everything one chart (or one panel of a sheet) shows; equal specs draw identical PNGs.

    Attributes:
        title: The line above the chart.
        bars: One bar per value, smallest first.
        headline: The main chance as written on the chart ("Success 85.03%"), or ``None``.
        marker: The target: a dashed line left of this value's bar, or ``None``.
        marker_label: The marker's caption ("TN 15").
        x_label: What the x axis counts ("Total", "Kept d20 face", ...).
    """

    title: str
    bars: tuple[Bar, ...]
    headline: str | None = None
    marker: int | None = None
    marker_label: str = ""
    x_label: str = "Total"

    @property
    def legend(self) -> tuple[tuple[str, str], ...]:
        """Return (label, colour) for each outcome or kind among the bars, in legend order."""
        return _legend(self.bars)


@dataclass(frozen=True, slots=True)
class ChartSheet:
    """Several panels under one title: each panel's own title names what it shows."""

    title: str
    panels: tuple[ChartSpec, ...]
    headline: str | None = None

    @property
    def legend(self) -> tuple[tuple[str, str], ...]:
        """Return the legend of every panel's bars together."""
        return _legend([bar for panel in self.panels for bar in panel.bars])


def chart_spec(
    distribution: Distribution,
    outcomes: Sequence[Outcome] | None = None,
    *,
    title: str,
    marker: int | None = None,
    marker_label: str = "",
    x_label: str = "Total",
) -> ChartSpec:
    """Return the chart of ``distribution``, each bar coloured by its outcome from the rules.

    Args:
        distribution: The values, one bar each.
        outcomes: How each value counts, aligned with ``distribution.outcomes()``, as the rules
            return them (e.g. ``CosmosOdds.outcomes``); the headline's success chance is the
            exact chance of the values that succeed. ``None``: plain bars, no headline.
        title: The line above the chart.
        marker: The value to mark with a dashed line (the TN), or ``None``.
        marker_label: The marker's caption.
        x_label: What the x axis counts.

    Raises:
        ValueError: ``outcomes`` does not have one outcome per value.
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
        title=title,
        bars=bars,
        headline=headline,
        marker=marker,
        marker_label=marker_label,
        x_label=x_label,
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


def render_png(chart: ChartSpec | ChartSheet, *, cached: bool = True) -> bytes:
    """Draw a spec or sheet (or take it from the cache) as PNG bytes.

    ``cached`` false draws it anew without looking it up: hashing a spec of a thousand bars
    for the cache costs about as much as drawing it, when a repeat is unlikely anyway.
    """
    return _render(chart) if cached else _draw(chart)


# One thread: drawing is mostly numpy and PIL (which release the GIL only in part), and one
# thread keeps charts from competing with each other for the two cores.
_chart_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="charts")


async def draw_spec(
    chart: ChartSpec | ChartSheet | Callable[..., ChartSpec | ChartSheet], *arguments: object
) -> bytes:
    """Render a spec or sheet on the chart thread, keeping the event loop free.

    Given a builder instead (e.g. ``odds_charts.aethelgard_chart``), it is called with
    ``arguments`` on the chart thread too: building a spec of a hundred exact chances is
    itself milliseconds of Fraction arithmetic.
    """
    return await asyncio.get_running_loop().run_in_executor(
        _chart_thread, _build_and_render, chart, arguments
    )


def _build_and_render(
    chart: ChartSpec | ChartSheet | Callable[..., ChartSpec | ChartSheet],
    arguments: tuple[object, ...],
) -> bytes:
    if not isinstance(chart, ChartSpec | ChartSheet):
        chart = chart(*arguments)
    return _render(chart)


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


def _warm() -> None:
    """Load the fonts and PIL's PNG encoder with one small chart."""
    _draw(ChartSpec(title="warm-up", bars=(Bar(1, 50.0, Outcome.SUCCESS),), headline="Success"))


async def warm_up() -> None:
    """Load PIL and the fonts on the chart thread, so the first odds reply is quick."""
    await asyncio.get_running_loop().run_in_executor(_chart_thread, _warm)


# --- Drawing


def _fitted(text: str, size: int, width: int, bold: bool) -> tuple[str, int]:
    """Return ``text`` and a size at which it fits ``width`` px (smaller, then cut)."""
    for candidate in (size, size - 4, size - 8):
        if text_size(text, candidate, bold)[0] <= width:
            return text, candidate
    size -= 8
    while len(text) > 4 and text_size(text + "…", size, bold)[0] > width:
        estimate = len(text) * width // text_size(text + "…", size, bold)[0]
        text = text[: max(4, min(len(text) - 1, estimate))]  # always shorter: it ends
    return text + "…", size


def _y_axis(peak: float) -> tuple[list[float], float]:
    """Return the y ticks (percent) and the axis top for bars up to ``peak`` percent."""
    step = next((step for step in Y_STEPS if step * (Y_TICKS - 1) >= peak), 40.0)
    ticks = [step * index for index in range(Y_TICKS)]
    return ticks, ticks[-1] * 1.08


def _nice_step(span: int, most: int) -> int:
    """Return the smallest of 1, 2, 5, 10, 20, 25, 50, ... giving at most ``most`` ticks."""
    scale = 1
    while True:
        for base in (1, 2, 5, 10, 20, 25, 50):
            step = base * scale
            if math.ceil(span / step) <= most:
                return step
        scale *= 100


def _x_ticks(spec: ChartSpec, width: int, unit: float) -> list[tuple[int, str]]:
    """Return (value, text) of the x ticks: every labelled bar, round values between them as
    many as fit ``width`` px."""
    labelled = [(bar.value, bar.label) for bar in spec.bars if bar.label is not None]
    numeric = [bar.value for bar in spec.bars if bar.label is None]
    ticks: list[tuple[int, str]] = [(value, label) for value, label in labelled]
    if numeric:
        first, last = min(numeric), max(numeric)
        widest = max(text_size(str(value), TICK_SIZE)[0] for value in (first, last))
        most = max(2, min(MAX_X_TICKS, width // (widest + 24)))
        step = _nice_step(last - first + 1, most)
        start = first + (-first) % step
        for value in range(start, last + 1, step):
            width = text_size(str(value), TICK_SIZE)[0]
            clear = all(
                abs(value - other) * unit > (width + text_size(text, TICK_SIZE)[0]) / 2 + 10
                for other, text in labelled
            )
            if clear:
                ticks.append((value, str(value)))
    return ticks


def _panel(canvas: Canvas, box: Box, spec: ChartSpec, *, titled: bool) -> None:
    """Draw one panel's plot, axes, ticks, marker and notes inside ``box``."""
    top = box.top
    if titled:
        text, size = _fitted(spec.title, PANEL_TITLE_SIZE, box.right - box.left - 8, True)
        canvas.text(text, box.left + 8, top, size=size, bold=True)
        top += PANEL_TITLE_SIZE + 12
    tick_height = max(
        [text_size(bar.label, TICK_SIZE)[1] for bar in spec.bars if bar.label] + [TICK_SIZE]
    )
    label_height = LABEL_SIZE + 8 if spec.x_label else 0
    plot = Box(
        box.left + Y_LABEL_WIDTH,
        top + NOTE_SIZE + 14,
        box.right - 12,
        box.bottom - (12 + tick_height + 8 + label_height),
    )
    plot_height = plot.bottom - plot.top
    ticks, y_top = _y_axis(max(bar.percent for bar in spec.bars))
    for tick in ticks:
        y = plot.bottom - round(tick / y_top * plot_height)
        canvas.rectangle(plot.left, y, plot.right, y + 1, GRID)
        canvas.text(f"{tick:g}%", plot.left - 10, y, size=TICK_SIZE, anchor="rm")

    values = [bar.value for bar in spec.bars]
    low, high = min(values), max(values)
    marker = spec.marker
    if marker is not None:
        low, high = min(low, math.floor(marker - 0.5)), max(high, math.ceil(marker - 0.5))
    unit = (plot.right - plot.left) / (high - low + 2)

    def x_of(value: float) -> float:
        return plot.left + (value - low + 1) * unit

    half = max(MIN_BAR_PIXELS / 2, BAR_HALF_WIDTH * unit)
    centres = plot.left + (np.array(values, dtype=np.float64) - low + 1) * unit
    lefts = np.rint(centres - half)
    rights = np.maximum(lefts + 1, np.rint(centres + half))
    percents = np.array([bar.percent for bar in spec.bars], dtype=np.float64)
    shown = np.maximum(percents, y_top * MIN_BAR_SHARE) / y_top * plot_height
    heights = np.where(percents > 0, np.maximum(MIN_BAR_PIXELS, np.rint(shown)), 0)
    tops = plot.bottom - heights
    canvas.bars(plot.bottom, lefts, rights, tops, [bar.colour for bar in spec.bars])
    for bar, centre, top in zip(spec.bars, centres.tolist(), tops.tolist(), strict=True):
        if bar.note:
            x = round(centre)
            canvas.text(bar.note, x, int(top) - 4, size=NOTE_SIZE, bold=True, anchor="mb")
    canvas.rectangle(plot.left, plot.bottom, plot.right, plot.bottom + 2, AXIS)
    for value, text in _x_ticks(spec, plot.right - plot.left, unit):
        x = round(x_of(value))
        canvas.rectangle(x, plot.bottom + 2, x + 2, plot.bottom + 8, AXIS)
        canvas.text(text, x, plot.bottom + 10, size=TICK_SIZE, anchor="mt")
    if spec.x_label:
        middle = (plot.left + plot.right) // 2
        canvas.text(spec.x_label, middle, box.bottom - 6, size=LABEL_SIZE, anchor="mb")

    if marker is not None:
        x = round(x_of(marker - 0.5))
        canvas.dashed_vertical(x, plot.top - NOTE_SIZE - 6, plot.bottom, MARKER_COLOUR)
        # The caption on the side with more room, so it never runs off the image.
        on_left = x - plot.left > plot.right - x
        canvas.text(
            spec.marker_label,
            x - 10 if on_left else x + 10,
            plot.top - NOTE_SIZE - 8,
            size=NOTE_SIZE,
            anchor="rt" if on_left else "lt",
        )


def _legend_column(canvas: Canvas, entries: tuple[tuple[str, str], ...], left: int) -> None:
    """Draw the legend rows (a colour square and its label) from ``left``, under the header."""
    top = HEADER + 10
    for index, (label, colour) in enumerate(entries):
        y = top + index * LEGEND_ROW
        canvas.rectangle(left, y + 4, left + 24, y + 28, colour)
        canvas.text(label, left + 34, y + 16, size=LEGEND_SIZE, anchor="lm")


def _legend_row(canvas: Canvas, entries: tuple[tuple[str, str], ...], y: int) -> None:
    """Draw the legend entries side by side from the left margin, centred on ``y``."""
    left = MARGIN
    for label, colour in entries:
        canvas.rectangle(left, y - 12, left + 24, y + 12, colour)
        width, _ = canvas.text(label, left + 34, y, size=LEGEND_SIZE, anchor="lm")
        left += 34 + width + 30


def _header(canvas: Canvas, title: str, headline: str | None) -> None:
    text, size = _fitted(title, TITLE_SIZE, canvas.width - 2 * MARGIN, True)
    canvas.text(text, canvas.width // 2, 12, size=size, bold=True, anchor="mt")
    if headline:
        text, size = _fitted(headline, HEADLINE_SIZE, canvas.width - 2 * MARGIN, True)
        canvas.text(text, MARGIN, 56, size=size, bold=True)


def _draw(chart: ChartSpec | ChartSheet) -> bytes:
    """Paint a spec (one panel, legend in a column) or a sheet (a grid of panels)."""
    if isinstance(chart, ChartSpec):
        canvas = Canvas(WIDTH, HEIGHT)
        _header(canvas, chart.title, chart.headline)
        legend = chart.legend
        right = WIDTH - LEGEND_WIDTH if legend else WIDTH - MARGIN
        _panel(canvas, Box(MARGIN, HEADER, right, HEIGHT - MARGIN), chart, titled=False)
        if legend:
            _legend_column(canvas, legend, right + 12)
        return canvas.png()
    count = len(chart.panels)
    columns = 1 if count <= 2 else 2
    rows = math.ceil(count / columns)
    canvas = Canvas(WIDTH, SHEET_HEADER + rows * PANEL_HEIGHT + MARGIN)
    _header(canvas, chart.title, chart.headline)
    _legend_row(canvas, chart.legend, SHEET_LEGEND_Y)
    width = (WIDTH - 2 * MARGIN) // columns
    for index, panel in enumerate(chart.panels):
        row, column = divmod(index, columns)
        left, top = MARGIN + column * width, SHEET_HEADER + row * PANEL_HEIGHT
        _panel(canvas, Box(left, top, left + width, top + PANEL_HEIGHT), panel, titled=True)
    return canvas.png()


# The same odds query asked again (a table checking one roll) costs nothing; bytes are immutable
# and 256 charts of ~30 kB stay under 8 MB.
@lru_cache(maxsize=256)
def _render(chart: ChartSpec | ChartSheet) -> bytes:
    """Draw ``chart`` (cached)."""
    return _draw(chart)
