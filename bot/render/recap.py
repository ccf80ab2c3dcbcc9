"""`/campaign recap`: one embed (a line per player and one for the table) and one PNG chart.

docs/gms.md, "Campaign recap". The chart is built as a ``RecapChart`` by the pure ``recap_chart``
(tests check it) and painted by ``draw_recap``: one horizontal bar per player, the table last, each
as long as its luck score, with the line of average luck at 50%. 1000 px wide with 22-30 px type, as
the odds charts, so it reads on a phone; painted with numpy and PIL (``bot.render.raster``) in a few
milliseconds, off the event loop.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import discord

from bot.render.grammar import plural, possessive
from bot.render.raster import GRID, INK, MUTED, Canvas, text_size
from bot.render.style import EMBED_TOTAL_LIMIT, Colour, shown, truncate
from rules.recap import AVERAGE_LUCK, Recap, RecapRoll, Tally

__all__ = [
    "CHART_FILENAME",
    "ChartBar",
    "RecapChart",
    "bar_middle",
    "chart_height",
    "draw_recap",
    "luck_phrase",
    "luck_sentence",
    "recap_chart",
    "recap_embed",
    "share_text",
]

CHART_FILENAME = "recap.png"
MAX_PLAYER_FIELDS = 20  # of Discord's 25 fields; the rest are summed up in one line
MORE_PLAYERS_ROOM = len("…") + len("and 1,000,000 more players")
MAX_CHART_PLAYERS = 12
LUCKY_COLOUR = f"#{Colour.SUCCESS.value:06x}"  # the embeds' green success, as the odds charts
UNLUCKY_COLOUR = f"#{Colour.FAILURE.value:06x}"  # and their grey
TABLE_COLOUR = "#5865f2"  # Discord's blurple: the table's own bar
AVERAGE_COLOUR = INK  # near-white on the dark background, as the odds charts' target line
TABLE_NAME = "The table"
AXIS, ON_BAR = MUTED, "#ffffff"  # ON_BAR: words inside a bar, on its opaque colour
# Pixels. Discord shows the image at full width on a phone (~360-400 pt): 1000 px is scaled by ~0.4,
# so 22 px text stays about 9 pt (the odds charts' sizes, docs/players/index.md, "Odds charts").
WIDTH = 1000
MARGIN = 16
TITLE_SIZE, NAME_SIZE, BAR_TEXT_SIZE, TICK_SIZE = 30, 24, 24, 22
MIN_NAME_SIZE = 22
HEADER = 100  # the title, then the average line's caption above the first bar
ROW, BAR_HEIGHT = 64, 44
FOOTER = 56  # the axis and its ticks under the last bar
PLOT_LEFT, PLOT_RIGHT = 290, WIDTH - 44  # 0% and 100% (room for the names, and "100%")
BAR_TEXT_GAP = 10
TICKS = (0, 25, 50, 75, 100)
LABEL_MAX = 13  # characters of a name beside its bar


def share_text(share: Fraction) -> str:
    """A share as a whole percentage: ``18%``; under 1% (but not none) as ``1%``."""
    whole = round(share * 100)
    return f"{max(whole, 1) if share > 0 else 0}%"


def luck_phrase(luck: Fraction) -> str:
    """``top 18%`` (a luck of 82%), or ``bottom 30%`` below average: the chart's words too."""
    if luck >= AVERAGE_LUCK:
        return f"top {share_text(1 - luck)}"
    return f"bottom {share_text(luck)}"


def luck_sentence(name: str, luck: Fraction) -> str:
    """How someone's dice ran, as the table would say it: "Wren's dice ran hot: **top 18%**",
    "Bo's dice ran cold: **bottom 30%**" ("ran even" when it rounds to 50%)."""
    phrase = luck_phrase(luck)
    temper = "even" if phrase.endswith(" 50%") else "hot" if luck >= AVERAGE_LUCK else "cold"
    return f"{possessive(name)} dice ran {temper}: **{phrase}**"


def _roll_ref(roll: RecapRoll) -> str:
    return f"`#{roll.id}`"


def _counts(tally: Tally) -> str:
    parts = [plural(tally.rolls, "roll")]
    if tally.criticals:
        parts.append(f"✨ {plural(tally.criticals, 'crit')}")
    if tally.fumbles:
        parts.append(f"💥 {plural(tally.fumbles, 'fumble')}")
    if tally.luck_spends:
        parts.append(f"🍀 {plural(tally.luck_spends, 'Luck spend')}")
    if tally.pressure:
        parts.append(f"🌀 +{tally.pressure} Pressure")
    if tally.contests_won or tally.contests_lost:
        parts.append(f"⚔️ contests {tally.contests_won} won, {tally.contests_lost} lost")
    if tally.challenges_won or tally.challenges_lost:
        parts.append(f"🏁 challenges {tally.challenges_won} won, {tally.challenges_lost} lost")
    if tally.crises:
        parts.append(f"💀 {plural(tally.crises, 'Crisis', 'Crises')}")
    return " · ".join(parts)


def _details(tally: Tally, name: str) -> str:
    lines = [_counts(tally)]
    if tally.luck is not None:
        lines.append(
            f"🎯 {luck_sentence(name, tally.luck)} ({plural(tally.scored, 'scored roll')})"
        )
    if tally.too_large:  # counted, unscored: never a silent approximation
        lines.append(f"🧮 {plural(tally.too_large, 'roll')} too large to score")
    if tally.biggest is not None and tally.biggest.total is not None:
        lines.append(f"⬆️ Biggest: **{tally.biggest.total}** {_roll_ref(tally.biggest)}")
    if tally.unlikeliest is not None and tally.unlikeliest.chance is not None:
        lines.append(
            f"🎲 Most unlikely: {_roll_ref(tally.unlikeliest)}, "
            f"only {share_text(tally.unlikeliest.chance)} of such rolls land this far out"
        )
    return "\n".join(lines)


def _name(names: Mapping[int, str], user_id: int | None) -> str:
    return TABLE_NAME if user_id is None else names.get(user_id, f"Player {user_id}")


def recap_embed(
    made: Recap, names: Mapping[int, str], *, gm_view: bool, capped: bool = False
) -> discord.Embed:
    """The recap: the table's line first, then one field per player (most rolls first), as
    many as Discord's 6,000 characters an embed hold, then how many more players rolled;
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
    footer = "GM view: hidden and blind rolls included" if gm_view else "Public and revealed rolls"
    if made.first_id is not None:
        latest = "a long session's latest " if capped else ""
        footer += f" · {latest}rolls #{made.first_id}–#{made.last_id}"
    footer += " · luck: 50% is average"
    # 20 busy players with long names pass Discord's 6,000 characters: as many as fit, then
    # "…and N more players" (the title, description and footer take their part first).
    room = EMBED_TOTAL_LIMIT - len(f"{embed.title}{embed.description}{footer}") - MORE_PLAYERS_ROOM
    fields = 0
    for tally in made.players[:MAX_PLAYER_FIELDS]:
        name = shown(_name(names, tally.user_id))
        field_name, value = truncate(name, 256), truncate(_details(tally, name), 1024)
        room -= len(field_name) + len(value)
        if room < 0:
            break
        embed.add_field(name=field_name, value=value, inline=False)
        fields += 1
    hidden_players = len(made.players) - fields
    if hidden_players > 0:
        embed.add_field(name="…", value=f"and {plural(hidden_players, 'more player')}")
    embed.set_footer(text=footer)
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
    return ChartBar(label, float(luck * 100), colour, luck_phrase(luck))


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


def _x(percent: float) -> int:
    """The x pixel of a luck score on the plot."""
    return PLOT_LEFT + round(percent / 100 * (PLOT_RIGHT - PLOT_LEFT))


def _name_fitted(label: str, width: int) -> tuple[str, int]:
    """A name cut to ``LABEL_MAX`` characters, then at a size (or cut further) to fit."""
    if len(label) > LABEL_MAX:
        label = label[: LABEL_MAX - 1].rstrip() + "…"
    for size in (NAME_SIZE, MIN_NAME_SIZE):
        if text_size(label, size)[0] <= width:
            return label, size
    while len(label) > 2 and text_size(label, MIN_NAME_SIZE)[0] > width:
        label = label[:-2].rstrip() + "…"
    return label, MIN_NAME_SIZE


def _axes(canvas: Canvas, bottom: int) -> None:
    """The grid, the axis under the bars and its percentage ticks."""
    for tick in TICKS:
        x = _x(tick)
        canvas.rectangle(x, HEADER, x + 1, bottom, AXIS if tick == 0 else GRID)
        canvas.rectangle(x, bottom, x + 2, bottom + 8, AXIS)
        canvas.text(f"{tick}%", x, bottom + 12, size=TICK_SIZE, anchor="mt")
    canvas.rectangle(PLOT_LEFT, bottom, PLOT_RIGHT + 1, bottom + 2, AXIS)


def _words(canvas: Canvas, bar: ChartBar, middle: int, *, table: bool) -> None:
    """A row's words: the name left of the plot, and the bar's words at its end (inside the
    bar when there is no room after it)."""
    name, size = _name_fitted(bar.label, PLOT_LEFT - MARGIN - 14)
    canvas.text(name, PLOT_LEFT - 14, middle, size=size, bold=table, anchor="rm")
    end = _x(bar.percent)
    width, _ = text_size(bar.text, BAR_TEXT_SIZE, bold=True)
    if end + BAR_TEXT_GAP + width <= WIDTH - MARGIN:
        canvas.text(bar.text, end + BAR_TEXT_GAP, middle, size=BAR_TEXT_SIZE, bold=True,
                    anchor="lm")  # fmt: skip
    else:
        canvas.text(bar.text, end - BAR_TEXT_GAP, middle, size=BAR_TEXT_SIZE, bold=True,
                    anchor="rm", colour=ON_BAR, on=bar.colour)  # fmt: skip


def chart_height(rows: int) -> int:
    """The height in pixels of a recap chart of ``rows`` bars."""
    return HEADER + rows * ROW + FOOTER


def bar_middle(row: int) -> int:
    """The y pixel through the middle of the ``row``-th bar (0: the top one)."""
    return HEADER + row * ROW + ROW // 2


def _paint(chart: RecapChart) -> bytes:
    rows = len(chart.bars)
    bottom = HEADER + rows * ROW
    canvas = Canvas(WIDTH, chart_height(rows))
    canvas.text(chart.title, WIDTH // 2, 14, size=TITLE_SIZE, bold=True, anchor="mt")
    _axes(canvas, bottom)
    half = BAR_HEIGHT // 2
    for row, bar in enumerate(chart.bars):
        middle = bar_middle(row)
        canvas.rectangle(PLOT_LEFT, middle - half, _x(bar.percent), middle + half, bar.colour)
    # The average line over the bars, the words over everything.
    average = _x(float(AVERAGE_LUCK * 100))
    canvas.dashed_vertical(average, HEADER - 6, bottom, AVERAGE_COLOUR)
    canvas.text("average luck", average, HEADER - 10, size=TICK_SIZE, anchor="mb")
    for row, bar in enumerate(chart.bars):
        _words(canvas, bar, bar_middle(row), table=row == rows - 1)
    return canvas.png()


async def draw_recap(chart: RecapChart) -> discord.File:
    """Paint the chart in a worker thread (off the event loop) as the embed's attachment."""
    data = await asyncio.to_thread(_paint, chart)
    return discord.File(io.BytesIO(data), filename=CHART_FILENAME)
