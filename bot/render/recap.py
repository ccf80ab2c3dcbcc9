"""`/campaign recap`: one embed (a line per player and one for the table) and one PNG chart.

README, "Campaign recap". The chart is built as a ``RecapChart`` by the pure ``recap_chart``
(tests check it) and painted by ``draw_recap``: one horizontal bar per player, the table last,
each as long as its luck score, with the line of average luck at 50%. Big type on a tall
image, so it reads on a phone. matplotlib's object-oriented API on the Agg canvas, never
pyplot (its global figure registry is not thread-safe), drawn off the event loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot.render.style import Colour, shown, truncate
from rules.recap import AVERAGE_LUCK, Recap, RecapRoll, Tally

__all__ = [
    "CHART_FILENAME",
    "ChartBar",
    "RecapChart",
    "draw_recap",
    "luck_phrase",
    "recap_chart",
    "recap_embed",
    "share_text",
]

CHART_FILENAME = "recap.png"
MAX_PLAYER_FIELDS = 20  # of Discord's 25 fields; the rest are summed up in one line
MAX_CHART_PLAYERS = 12
LUCKY_COLOUR = f"#{Colour.SUCCESS.value:06x}"  # the embeds' green success, as the odds charts
UNLUCKY_COLOUR = f"#{Colour.FAILURE.value:06x}"  # and their grey
TABLE_COLOUR = "#5865f2"  # Discord's blurple: the table's own bar
AVERAGE_COLOUR = "#23272a"
TABLE_NAME = "The table"
FIGURE_WIDTH = 6.4  # inches at DPI: 640 px wide, Discord's full preview width on a phone
ROW_INCHES = 0.62
HEADER_INCHES = 1.0
DPI = 100
FONT_SIZE = 15
LABEL_MAX = 13  # characters of a name beside its bar


def share_text(share: Fraction) -> str:
    """A share as a whole percentage: ``18%``; under 1% (but not none) as ``1%``."""
    whole = round(share * 100)
    return f"{max(whole, 1) if share > 0 else 0}%"


def luck_phrase(luck: Fraction) -> str:
    """``in the top 18%`` (a luck of 82%), or ``in the bottom 30%`` below average."""
    if luck >= AVERAGE_LUCK:
        return f"in the top {share_text(1 - luck)}"
    return f"in the bottom {share_text(luck)}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _roll_ref(roll: RecapRoll) -> str:
    return f"`#{roll.id}`"


def _counts(tally: Tally) -> str:
    parts = [_plural(tally.rolls, "roll")]
    if tally.criticals:
        parts.append(f"✨ {_plural(tally.criticals, 'crit')}")
    if tally.fumbles:
        parts.append(f"💥 {_plural(tally.fumbles, 'fumble')}")
    if tally.luck_spends:
        parts.append(f"🍀 {_plural(tally.luck_spends, 'Luck spend')}")
    if tally.pressure:
        parts.append(f"🌀 +{tally.pressure} Pressure")
    if tally.contests_won or tally.contests_lost:
        parts.append(f"⚔️ contests {tally.contests_won} won, {tally.contests_lost} lost")
    if tally.challenges_won or tally.challenges_lost:
        parts.append(f"🏁 challenges {tally.challenges_won} won, {tally.challenges_lost} lost")
    if tally.crises:
        crises = "1 Crisis" if tally.crises == 1 else f"{tally.crises} Crises"
        parts.append(f"💀 {crises}")
    return " · ".join(parts)


def _details(tally: Tally, name: str) -> str:
    lines = [_counts(tally)]
    if tally.luck is not None:
        lines.append(
            f"🎯 {name} rolled **{luck_phrase(tally.luck)}** "
            f"({_plural(tally.scored, 'scored roll')})"
        )
    if tally.biggest is not None and tally.biggest.total is not None:
        lines.append(f"⬆️ Biggest: **{tally.biggest.total}** {_roll_ref(tally.biggest)}")
    if tally.unlikeliest is not None and tally.unlikeliest.chance is not None:
        lines.append(
            f"🎲 Most unlikely: {_roll_ref(tally.unlikeliest)}, "
            f"a result this far out {share_text(tally.unlikeliest.chance)} of the time"
        )
    return "\n".join(lines)


def _name(names: Mapping[int, str], user_id: int | None) -> str:
    return TABLE_NAME if user_id is None else names.get(user_id, f"Player {user_id}")


def recap_embed(
    made: Recap, names: Mapping[int, str], *, gm_view: bool, capped: bool = False
) -> discord.Embed:
    """The recap: the table's line first, then one field per player (most rolls first);
    ``capped``: the session is longer than the recap reads, so these are its latest rolls."""
    if made.table.rolls == 0:
        description = "No rolls in this session yet."
    else:
        description = _details(made.table, TABLE_NAME)
    embed = discord.Embed(
        title="📊 Session recap",
        description=truncate(description, 4000),
        colour=Colour.CAMPAIGN,
    )
    for tally in made.players[:MAX_PLAYER_FIELDS]:
        name = shown(_name(names, tally.user_id))
        embed.add_field(name=truncate(name, 256), value=truncate(_details(tally, name), 1024),
                        inline=False)  # fmt: skip
    hidden_players = len(made.players) - MAX_PLAYER_FIELDS
    if hidden_players > 0:
        embed.add_field(name="…", value=f"and {_plural(hidden_players, 'more player')}")
    footer = "GM view: hidden and blind rolls included" if gm_view else "Public and revealed rolls"
    if made.first_id is not None:
        latest = "a long session's latest " if capped else ""
        footer += f" · {latest}rolls #{made.first_id}–#{made.last_id}"
    embed.set_footer(text=footer + " · luck: 50% is average")
    if made.table.scored:
        embed.set_image(url=f"attachment://{CHART_FILENAME}")
    return embed


@dataclass(frozen=True, slots=True)
class ChartBar:
    """One bar: whose, how long (luck, 0-100), its colour and the words at its end."""

    label: str
    percent: float
    colour: str
    text: str


@dataclass(frozen=True, slots=True)
class RecapChart:
    """What the recap chart shows: the title and its bars, top to bottom."""

    title: str
    bars: tuple[ChartBar, ...]


def _bar(label: str, luck: Fraction, colour: str) -> ChartBar:
    words = f"top {share_text(1 - luck)}" if luck >= AVERAGE_LUCK else f"bottom {share_text(luck)}"
    return ChartBar(label, float(luck * 100), colour, words)


def recap_chart(made: Recap, names: Mapping[int, str]) -> RecapChart | None:
    """The chart of the scored players and the table; None when no roll was scored."""
    if made.table.luck is None:
        return None
    bars = [
        _bar(
            _name(names, tally.user_id),
            tally.luck,
            LUCKY_COLOUR if tally.luck >= AVERAGE_LUCK else UNLUCKY_COLOUR,
        )
        for tally in made.players
        if tally.luck is not None
    ][:MAX_CHART_PLAYERS]
    bars.append(_bar(TABLE_NAME, made.table.luck, TABLE_COLOUR))
    return RecapChart("Luck this session (50% = average)", tuple(bars))


def _paint(chart: RecapChart) -> bytes:
    # matplotlib is imported on the first recap (in a worker thread), not at start.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = len(chart.bars)
    figure = Figure(figsize=(FIGURE_WIDTH, HEADER_INCHES + ROW_INCHES * rows), dpi=DPI)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    positions = list(range(rows))[::-1]  # the first bar on top
    axes.barh(positions, [bar.percent for bar in chart.bars], height=0.7,
              color=[bar.colour for bar in chart.bars])  # fmt: skip
    axes.axvline(50, color=AVERAGE_COLOUR, linestyle="--", linewidth=1.5)
    for position, bar in zip(positions, chart.bars, strict=True):
        inside = bar.percent > 62
        axes.text(bar.percent + (-1.5 if inside else 1.5), position, bar.text,
                  va="center", ha="right" if inside else "left", fontsize=FONT_SIZE,
                  color="white" if inside else AVERAGE_COLOUR, fontweight="bold")  # fmt: skip
    labels = [bar.label if len(bar.label) <= LABEL_MAX else bar.label[: LABEL_MAX - 1] + "…"
              for bar in chart.bars]  # fmt: skip
    axes.set_yticks(positions, labels, fontsize=FONT_SIZE)
    axes.set_xlim(0, 100)
    axes.set_xticks([0, 25, 50, 75, 100], ["0%", "25%", "50%", "75%", "100%"], fontsize=12)
    axes.set_title(chart.title, fontsize=FONT_SIZE + 1)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    # Fixed margins in inches (tight_layout would measure every label: most of the time).
    height = HEADER_INCHES + ROW_INCHES * rows
    figure.subplots_adjust(left=0.33, right=0.94, top=1 - 0.45 / height, bottom=0.4 / height)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


async def draw_recap(chart: RecapChart) -> discord.File:
    """Paint the chart off the event loop and return it as the embed's attachment."""
    data = await asyncio.to_thread(_paint, chart)
    return discord.File(io.BytesIO(data), filename=CHART_FILENAME)
