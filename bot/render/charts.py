"""PNG bar charts of exact distributions, attached to odds replies.

Uses matplotlib's object-oriented API on the Agg canvas, never ``pyplot``: pyplot keeps a global
figure registry (not thread-safe, and figures leak unless closed), whereas a ``Figure`` made here
is garbage once the bytes are returned.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from rules.odds import Distribution

__all__ = ["distribution_chart"]

# Same hues as the embed colours (green success, dark grey failure) so chart and embed agree.
SUCCESS_COLOUR = "#2ecc71"
FAILURE_COLOUR = "#607d8b"
MARKER_COLOUR = "#e74c3c"
# 640x320 px: readable in Discord's preview and small enough to render in a few milliseconds.
FIGURE_INCHES = (6.4, 3.2)
DPI = 100


def distribution_chart(
    distribution: Distribution, *, title: str, marker: int | None, marker_label: str
) -> bytes:
    """Render a bar per total, success bars (total >= marker) coloured, and return PNG bytes."""
    figure = Figure(figsize=FIGURE_INCHES, dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    outcomes = distribution.outcomes()
    percents = distribution.probabilities() * 100
    if marker is None:
        colours = np.full(outcomes.shape, FAILURE_COLOUR, dtype=object)
    else:
        colours = np.where(outcomes >= marker, SUCCESS_COLOUR, FAILURE_COLOUR)
    axes.bar(outcomes, percents, width=0.85, color=list(colours))
    if marker is not None:
        # Between bars: everything right of the line reaches the marker.
        axes.axvline(marker - 0.5, color=MARKER_COLOUR, linestyle="--", label=marker_label)
        axes.legend(loc="upper left", frameon=False, fontsize="small")
    axes.set_title(title, fontsize="medium")
    axes.set_xlabel("Total")
    axes.set_ylabel("Chance (%)")
    axes.set_ylim(bottom=0)
    axes.spines[["top", "right"]].set_visible(False)
    # Fixed margins instead of tight_layout, which costs a second text layout pass.
    figure.subplots_adjust(left=0.09, right=0.98, top=0.88, bottom=0.16)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()
