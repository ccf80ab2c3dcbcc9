"""Each system's odds chart shows what its text reply says, for the query it was asked.

For every system the chart spec (its bars' chances and labels) is compared with the numbers in
the embed built from the same odds, and a few chances with values enumerated here by hand. An
opposed, split or fumbling query must give a different chart than the plain one.
"""

from __future__ import annotations

import re
from fractions import Fraction

import discord
import pytest

from bot.render import aethelgard as aethelgard_render
from bot.render import cosmos as cosmos_render
from bot.render import realms as realms_render
from bot.render import sinew as sinew_render
from bot.render import sixpool as sixpool_render
from bot.render.charts import Bar, ChartSheet, ChartSpec
from bot.render.numbers import by_chance, more_values, percent
from bot.render.odds_charts import (
    DEGREE_KINDS,
    FUMBLE,
    aethelgard_chart,
    attack_chart,
    cosmos_chart,
    sinew_chart,
    sixpool_chart,
)
from rules import aethelgard, cosmos, realms, sinew, sixpool
from rules.odds import Outcome

# A chance as the text writes it, two decimals: the chart's float must round to it.
HALF_LAST_DIGIT = 0.005 + 1e-9


def _fields(embed: discord.Embed) -> dict[str, str]:
    return {str(field.name): str(field.value) for field in embed.fields}


def _number(text: str) -> float:
    """Return the one "12.34%" in ``text`` as 12.34."""
    (found,) = re.findall(r"(\d+(?:\.\d+)?)%", text)
    return float(found)


def _total(bars: tuple[Bar, ...] | list[Bar]) -> float:
    return sum(bar.percent for bar in bars)


def _succeeding(bars: tuple[Bar, ...]) -> list[Bar]:
    return [bar for bar in bars if bar.outcome is not None and bar.outcome.succeeds]


def _agrees(chart: float, text: str) -> bool:
    """Whether a chart's percent is the number the text writes (to its two decimals)."""
    return abs(chart - _number(text)) <= HALF_LAST_DIGIT


# --- Cosmos


def test_cosmos_chart_success_and_criticals_equal_the_text() -> None:
    result = cosmos.odds(3, 2, 15, 2, 0)
    fields = _fields(cosmos_render.odds(result))
    spec = cosmos_chart(result)
    by = {kind: [bar for bar in spec.bars if bar.outcome is kind] for kind in Outcome}
    assert spec.headline == f"Success {fields['Success']}"
    assert _agrees(_total(_succeeding(spec.bars)), fields["Success"])
    assert _agrees(_total(by[Outcome.CRITICAL_SUCCESS]), fields["Critical success"])
    assert _agrees(_total(by[Outcome.CRITICAL_FAILURE]), fields["Critical failure"])
    # By hand, 4d10 keep the two highest: both kept 10 when two or more of four dice are 10;
    # both kept 1 only when all four are 1.
    at_least_two_tens = 1 - Fraction(9, 10) ** 4 - 4 * Fraction(1, 10) * Fraction(9, 10) ** 3
    assert _total(by[Outcome.CRITICAL_SUCCESS]) == pytest.approx(float(at_least_two_tens * 100))
    assert _total(by[Outcome.CRITICAL_FAILURE]) == pytest.approx(100 / 10**4)
    assert spec.marker == 15 and spec.x_label == "Total"


# --- Sinew & Steel


def _opposed_by_hand(score: int, vs: int) -> tuple[Fraction, Fraction]:
    """Enumerate both straight d20s: (you succeed and they fail, both succeed and your margin
    is larger). For these scores a natural 1 or 20 changes nothing: 1 <= score < 20."""
    only = larger = 0
    for mine in range(1, 21):
        for theirs in range(1, 21):
            if mine <= score and theirs > vs:
                only += 1
            elif mine <= score and theirs <= vs and score - mine > vs - theirs:
                larger += 1
    return Fraction(only, 400), Fraction(larger, 400)


def test_sinew_vs_score_chart_shows_the_opposed_results_the_text_gives() -> None:
    result, versus = sinew.odds(12), sinew.opposed_odds(12, 10)
    embed = sinew_render.odds(result, versus, ())
    text = _fields(embed)["Opposed vs score 10"]
    chart = sinew_chart(result, versus)
    assert isinstance(chart, ChartSheet)
    test, opposed = chart.panels
    only, larger, defender = re.findall(r"(\d+\.\d+%)", text)[1:4]
    assert [bar.note for bar in opposed.bars] == [only, larger, defender]
    for bar, written in zip(opposed.bars, (only, larger, defender), strict=True):
        assert _agrees(bar.percent, written)
    assert [bar.label for bar in opposed.bars] == [
        "You succeed,\nthey fail",
        "Both succeed, your\nmargin larger",
        "Defender wins\n(ties included)",
    ]
    hand_only, hand_larger = _opposed_by_hand(12, 10)
    assert (hand_only, hand_larger) == (Fraction(3, 10), Fraction(65, 400))
    assert opposed.bars[0].percent == pytest.approx(30.0)
    assert opposed.bars[1].percent == pytest.approx(16.25)
    assert opposed.bars[2].percent == pytest.approx(100 - 30.0 - 16.25)
    assert f"you win {percent(hand_only + hand_larger)}" in str(chart.headline)
    # The test's own panel agrees with the description.
    assert _agrees(_total(_succeeding(test.bars)), "60.00%")
    assert f"Success: **{str(test.headline).removeprefix('Success ')}**" in str(embed.description)


def test_sinew_vs_score_chart_differs_from_the_plain_one() -> None:
    result = sinew.odds(12)
    plain = sinew_chart(result, None)
    versus = sinew_chart(result, sinew.opposed_odds(12, 10))
    assert isinstance(plain, ChartSpec) and isinstance(versus, ChartSheet)
    assert versus != plain and versus.panels[1].bars != plain.bars
    assert sinew_chart(result, sinew.opposed_odds(12, 15)) != versus


def test_sinew_chart_marks_the_score_right_of_the_faces_that_succeed() -> None:
    spec = sinew_chart(sinew.odds(12), None)
    assert isinstance(spec, ChartSpec)
    assert spec.marker == 13  # the line stands between faces 12 and 13
    assert spec.x_label == "Kept d20 face"
    assert {bar.value for bar in _succeeding(spec.bars)} == set(range(1, 13))


# --- Six-pool d20


@pytest.mark.parametrize(
    ("modifier", "dc", "advantage"), [(3, 15, True), (0, 10, False), (-5, 20, False)]
)
def test_rule_sixpool_chart_colours_each_degree_the_text_lists(
    modifier: int, dc: int, advantage: bool
) -> None:
    result = sixpool.odds(modifier, dc, advantage=advantage)
    lines = dict(
        line.split(": ") for line in _fields(sixpool_render.odds(result))["Degrees"].split("\n")
    )
    spec = sixpool_chart(result)
    assert set(lines) == {kind.label for kind in DEGREE_KINDS.values()}  # all six listed
    for kind in DEGREE_KINDS.values():
        bars = [bar for bar in spec.bars if bar.kind == kind]
        assert _agrees(_total(bars), lines[kind.label]), kind.label
    assert {label for label, _ in spec.legend} <= set(lines)
    assert spec.x_label.startswith("Kept d20 face")  # faces, not totals
    assert spec.headline == f"Success {percent(result.success)}"


def test_rule_sixpool_chart_degrees_by_hand_plus_3_vs_dc_15() -> None:
    spec = sixpool_chart(sixpool.odds(3, 15))
    # Straight d20, margin = face - 12: strong success at margin 5-9 (faces 17-20), success
    # 0-4 (12-16), failure -1..-4 (8-11), bad failure -5..-9 (3-7), critical failure -10 or
    # less (1-2); the natural 20 is strong already, the natural 1 fails already.
    expected = {
        "Strong success": 4,
        "Success": 5,
        "Failure": 4,
        "Bad failure": 5,
        "Critical failure": 2,
    }
    for label, faces in expected.items():
        bars = [bar for bar in spec.bars if bar.kind is not None and bar.kind.label == label]
        assert _total(bars) == pytest.approx(faces * 5.0), label
    assert [label for label, _ in spec.legend] == list(expected)


def test_rule_sixpool_chart_natural_20_is_a_plain_success_not_a_critical() -> None:
    spec = sixpool_chart(sixpool.odds(0, 30))  # every margin fails by 10 or more
    twenty = spec.bars[-1]
    assert twenty.value == 20 and twenty.kind == DEGREE_KINDS[sixpool.Degree.SUCCESS]
    assert {bar.kind for bar in spec.bars[:-1]} == {DEGREE_KINDS[sixpool.Degree.CRITICAL_FAILURE]}


# --- Aethelgard


def test_rule_aethelgard_chart_shows_the_fumble_as_its_own_bar() -> None:
    result = aethelgard.odds(10, 2)
    embed = aethelgard_render.odds(result)
    nets = _fields(embed)["Most likely nets"].split("\n")
    spec = aethelgard_chart(result)
    fumble = [bar for bar in spec.bars if bar.kind == FUMBLE]
    assert len(fumble) == 1 and fumble[0].label == "Fumble"
    # By hand: no success (7 faces of 10 per die) but not no botch (6 faces): 2.22%.
    by_hand = Fraction(7**10 - 6**10, 10**10)
    assert fumble[0].percent == pytest.approx(float(by_hand * 100))
    assert f"fumble {percent(by_hand)}" in str(embed.description)
    bars = {bar.value: bar for bar in spec.bars if bar.kind is None}
    zero_line = next(line for line in nets if line.startswith("0 net"))
    assert zero_line == f"0 net: {percent(result.shown[0])} (fumble {percent(by_hand)})"
    assert bars[0].percent + fumble[0].percent == pytest.approx(float(result.shown[0] * 100))
    for line in nets:
        net = int(line.split(" net")[0])
        if net:
            assert _agrees(bars[net].percent, line.split(": ")[1]), line
    assert ("Fumble", "#e74c3c") in spec.legend
    assert spec.headline == f"Success {percent(result.success)} · fumble {percent(by_hand)}"


def test_rule_aethelgard_chart_at_dc_0_net_0_succeeds_and_the_fumble_does_not() -> None:
    result = aethelgard.odds(3, 0)
    spec = aethelgard_chart(result)
    succeeding = _total([bar for bar in spec.bars if bar.outcome and bar.outcome.succeeds])
    by_hand = 1 - Fraction(7**3 - 6**3, 10**3)
    assert succeeding == pytest.approx(float(by_hand * 100))
    assert result.success == by_hand


# --- Enchanted Realms

DECISION = realms.decide(0, 0)


def _damage_lines(text: str) -> dict[int, str]:
    return {
        int(line.split(" damage")[0]): line.split(": ")[1]
        for line in text.split("\n")
        if " damage: " in line
    }


def test_realms_split_chart_has_a_panel_for_every_target() -> None:
    result = realms.attack_odds(4, 11, realms.parse_damage("2d6+1"), DECISION, "2,1,1")
    fields = _fields(realms_render.attack_odds(result, 4, 11, "2d6+1"))
    chart = attack_chart(result, 4, 11, "2d6+1")
    assert isinstance(chart, ChartSheet)
    first, rest = chart.panels
    assert first.title.startswith("Target 1: 2 strikes")
    assert rest.title.startswith("Targets 2, 3: 1 strike each")
    for panel, name in ((first, "Target 1 (2 strikes)"), (rest, "Target 2 (1 strike)")):
        text = fields[name]
        missed = re.search(r"Missed: (\S+%)", text)
        assert missed is not None and f"missed {missed.group(1)}" in panel.title
        bars = {bar.value: bar for bar in panel.bars}
        listed = _damage_lines(text)
        for value, written in listed.items():
            assert _agrees(bars[value].percent, written), (name, value)
        dropped = [bar.percent for value, bar in bars.items() if value not in listed]
        note = text.split("\n")[-1]
        assert note.startswith(f"… {len(dropped)} more values, ")
        assert _agrees(sum(dropped), note.split(", ")[1])
        assert sum(bar.percent for bar in panel.bars) == pytest.approx(100)
    # By hand: to hit 11 on a d20 hits on 11-20, half the time; two strikes both miss 1/4.
    assert first.bars[0].value == 0 and first.bars[0].percent == pytest.approx(25.0)
    assert rest.bars[0].percent == pytest.approx(50.0)


def test_realms_unsplit_chart_is_one_panel_and_differs_from_the_split_one() -> None:
    damage = realms.parse_damage("2d6+1")
    whole = attack_chart(realms.attack_odds(4, 11, damage, DECISION), 4, 11, "2d6+1")
    split = attack_chart(realms.attack_odds(4, 11, damage, DECISION, "2,2"), 4, 11, "2d6+1")
    assert isinstance(whole, ChartSpec)
    assert whole.headline is not None and whole.headline.startswith("Target 1: 4 strikes")
    # "2,2": two targets with the same strikes share one panel that names both.
    assert isinstance(split, ChartSpec) and split != whole
    assert split.headline is not None and split.headline.startswith("Targets 1, 2: 2 strikes")


# --- Lists that leave values out say so


def test_more_values_says_how_many_values_a_list_left_out() -> None:
    assert more_values([], Fraction(0)) is None
    assert more_values([Fraction(1, 250)] * 3, Fraction(3, 250)) == "… 3 more values at 0.40% each"
    assert more_values([Fraction(1, 250)], Fraction(1, 250)) == "… 1 more value at 0.40%"
    assert (
        more_values([Fraction(1, 50), Fraction(1, 100)], Fraction(3, 100))
        == "… 2 more values, 3.00% together, each at most 2.00%"
    )


def test_by_chance_ranks_most_likely_first_and_ties_by_value() -> None:
    chances = {3: Fraction(1, 4), 1: Fraction(1, 8), 2: Fraction(1, 4), 0: Fraction(3, 8)}
    assert by_chance(chances) == [
        (0, Fraction(3, 8)),
        (2, Fraction(1, 4)),
        (3, Fraction(1, 4)),
        (1, Fraction(1, 8)),
    ]


def test_aethelgard_odds_list_says_how_many_nets_it_left_out() -> None:
    result = aethelgard.odds(100, 20)
    lines = _fields(aethelgard_render.odds(result))["Most likely nets"].split("\n")
    assert len(lines) == aethelgard_render.SHOWN_NETS + 1
    left_out = len(result.shown) - aethelgard_render.SHOWN_NETS
    assert lines[-1].startswith(f"… {left_out} more values, ")


def test_sinew_luck_list_says_which_token_counts_add_nothing() -> None:
    # Score 10: each token turns one more failing face (11, 12, ...) into a success, +5 %,
    # until 19 is reached with 9 tokens (95 %: the natural 20 can't be turned); 10-16 add
    # nothing.
    rows = sinew.luck_odds(10, sinew.Score.LCK.maximum)
    lines = _fields(sinew_render.odds(sinew.odds(10), None, rows))[
        "Success holding Luck tokens (spent only to turn a failure)"
    ].split("\n")
    assert lines[0] == "0 tokens: 50.00%"
    assert lines[9] == "9 tokens: 95.00% (+5.00%)"
    assert lines[10:] == ["… 10–16 tokens: 95.00% each (no gain)"]
    assert len(rows) == 17
