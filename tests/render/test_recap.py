"""The recap's embed and chart: what each says, from a hand-made ``Recap``."""

from __future__ import annotations

from fractions import Fraction

from bot.render.recap import (
    LUCKY_COLOUR,
    TABLE_COLOUR,
    UNLUCKY_COLOUR,
    draw_recap,
    luck_phrase,
    recap_chart,
    recap_embed,
)
from rules.recap import RecapRoll, recap

NAMES = {10: "Wren", 20: "Bo"}
ROLLS = [
    RecapRoll(1, 10, "dice", total=12, luck=Fraction(82, 100), chance=Fraction(1, 10)),
    RecapRoll(2, 20, "dice", total=3, luck=Fraction(1, 4), chance=Fraction(1, 4), fumble=True),
    RecapRoll(3, 30, "sixpool.check"),  # a player with no scored roll: no bar
]


def test_rule_recap_luck_reads_top_or_bottom_share_in_whole_percent() -> None:
    assert luck_phrase(Fraction(82, 100)) == "in the top 18%"
    assert luck_phrase(Fraction(1, 2)) == "in the top 50%"
    assert luck_phrase(Fraction(3, 10)) == "in the bottom 30%"
    assert luck_phrase(Fraction(9999, 10000)) == "in the top 1%"  # never "top 0%"


def test_recap_embed_has_a_line_per_player_and_the_table() -> None:
    embed = recap_embed(recap(ROLLS), NAMES, gm_view=False).to_dict()
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert list(fields) == ["Wren", "Bo", "Player 30"]
    assert "Wren rolled **in the top 18%** (1 scored roll)" in fields["Wren"]
    assert fields["Bo"].startswith("1 roll · 💥 1 fumble")
    assert fields["Player 30"] == "1 roll"
    assert "The table rolled **in the top 46%**" in embed["description"]  # (82 + 25) / 2 = 53.5
    assert embed["footer"]["text"].startswith("Public and revealed rolls · rolls #1–#3")
    capped = recap_embed(recap(ROLLS), NAMES, gm_view=True, capped=True).to_dict()
    assert capped["footer"]["text"].startswith("GM view: hidden and blind rolls included · a long")


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


async def test_recap_chart_is_a_png_tall_enough_for_every_bar() -> None:
    chart = recap_chart(recap(ROLLS), NAMES)
    assert chart is not None
    data = (await draw_recap(chart)).fp.read()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 640 and height >= 3 * 50  # 62 px a bar, at least
