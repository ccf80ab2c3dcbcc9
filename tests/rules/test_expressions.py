"""`/roll` notation: seeded results, limits and clear errors."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import NoReturn, cast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import expressions
from rules.errors import RulesError
from rules.expressions import Natural, roll_expression
from rules.randomness import Rng, new_rng


def test_seeded_keep_highest_gives_known_dice() -> None:
    # new_rng(7) draws 6, 4, 5, 6: keep the three highest, plus 2.
    roll = roll_expression("4d6kh3+2", new_rng(7))
    assert roll.total == 6 + 5 + 6 + 2
    assert roll.breakdown == "4d6kh3 (**6**, ~~4~~, **5**, **6**) + 2"  # bold: kept


@pytest.mark.parametrize("seed", range(6))
def test_a_fate_die_forced_past_its_faces_shows_the_forced_number(seed: int) -> None:
    # Every face of dF (-1, 0, +1) is below 2, so `mi2` forces each to 2: the face is struck,
    # then the number it became (a value no Fate face has a symbol for).
    roll = roll_expression("dFmi2", new_rng(seed))
    assert roll.total == 2
    assert re.fullmatch(r"1dFmi2 \(~~[-0+]~~ 2\)", roll.breakdown), roll.breakdown


def test_seeded_keep_lowest_of_two_d20() -> None:
    rng = new_rng(7)
    roll_expression("4d6kh3+2", rng)
    roll = roll_expression("2d20kl1", rng)
    assert (roll.total, roll.breakdown) == (12, "2d20kl1 (**12**, ~~16~~)")


def test_natural_one_and_twenty_are_flagged() -> None:
    rng = new_rng(7)
    faces = [roll_expression("1d20", rng) for _ in range(40)]
    assert {roll.natural for roll in faces if roll.total == 1} == {Natural.ONE}
    assert {roll.natural for roll in faces if roll.total not in (1, 20)} == {Natural.NONE}
    twenties = [
        roll for roll in (roll_expression("1d20", rng) for _ in range(200)) if roll.total == 20
    ]
    assert twenties and {roll.natural for roll in twenties} == {Natural.TWENTY}
    assert roll_expression("3d6", new_rng(1)).natural is Natural.NONE


def test_ruling_dice_come_from_the_injected_source_never_global_random() -> None:
    random.seed(1)
    first = roll_expression("10d6", new_rng(3))
    random.seed(2)
    second = roll_expression("10d6", new_rng(3))
    assert first == second


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1000000d6", "At most 1000 dice per roll"),
        ("d0", "at least 1 side"),
        ("1d100000", "at most 10000 sides"),
        ("abc", "Couldn't read `abc` as dice"),
        ("1/0", "divide by zero"),
        ("   ", "Give a dice expression"),
        ("1" * 201, "at most 200 characters"),
        ("600d6e6+600d6", "more than 1000 dice"),
        ("4d6kh>3", "keep or drop by rank (`kh3`) or by face (`k>3`), not both"),
        ("4d6r1ir2", "A dice term takes one reroll modifier"),
        ("6d10t", "`t` needs a number: `6d10t7` counts each 7 or more"),
        ("4d6k", "keep and drop take a count, like `4d6k3`"),
        ("4d6k>", "keep and drop take a count"),
        ("(1d4, 3)e", "`e` applies to dice: a set `(…)` is kept or dropped"),
        ("1d6 3", "unexpected `3` at character 5"),
        ("1d20>=10", "Couldn't read `1d20>=10` as dice"),
        ("(1d4, 3", "the expression ends too soon"),
    ],
)
def test_bad_expressions_explain_what_is_allowed(expression: str, message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        roll_expression(expression, new_rng(0))


@given(
    count=st.integers(1, 50),
    sides=st.integers(1, 100),
    modifier=st.integers(-20, 20),
    seed=st.integers(0, 2**32),
)
def test_totals_stay_within_the_dice_range(
    count: int, sides: int, modifier: int, seed: int
) -> None:
    roll = roll_expression(f"{count}d{sides}{modifier:+d}", new_rng(seed))
    assert count + modifier <= roll.total <= count * sides + modifier


@given(st.text(max_size=40))
def test_any_text_either_rolls_or_raises_rules_error(text: str) -> None:
    try:
        roll = roll_expression(text, new_rng(0))
    except RulesError:
        return
    assert isinstance(roll.total, int)


# ===== Endless loops, and rolls that end =====
# How much CPU one `/roll` takes (20 ms at most, docs/benchmarks.md) is measured by
# bench/bench_budgets.py over HOSTILE_EXPRESSIONS below: the tests check that each one ends,
# rolled or refused, never how fast.


class _NoDice:
    """A dice source that fails the test as soon as anything draws a die from it."""

    def integers(self, *args: object, **kwargs: object) -> NoReturn:
        raise AssertionError(f"a die was drawn: integers{args}")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1d1ie1", "`1d1ie1` would explode forever: it explodes every face of a d1."),
        ("1d2ie<3", "`1d2ie<=2` would explode forever: it explodes every face of a d2."),
        ("1d1!>0", "`1d1ie1` would explode forever"),
        ("3d6!>=1", "it explodes every face of a d6"),
        ("d%ie1", "`1d%ie1` would explode forever: it explodes every face of a d%."),
        ("4dFie<2", "`4dFie<=1` would explode forever: it explodes every face of a dF."),
        ("1d20+1d1!", "`1d1ie1` would explode forever"),
        ("4d6ir<7", "`4d6ir6` would reroll forever: it rerolls every face of a d6."),
        ("1d1rr1", "`1d1ir1` would reroll forever"),
        ("2d4ir>0", "it rerolls every face of a d4"),
    ],
)
def test_endless_explosions_and_rerolls_are_refused_before_any_die_is_drawn(
    expression: str, message: str
) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        roll_expression(expression, cast(Rng, _NoDice()))


def test_endless_loop_refusal_says_what_to_do_instead() -> None:
    with pytest.raises(RulesError) as explode:
        roll_expression("1d1ie1", cast(Rng, _NoDice()))
    assert str(explode.value) == (
        "`1d1ie1` would explode forever: it explodes every face of a d1. "
        "Explode on fewer faces, e.g. `1d6ie6`."
    )
    with pytest.raises(RulesError) as reroll:
        roll_expression("2d4ir<5", cast(Rng, _NoDice()))
    assert str(reroll.value) == (
        "`2d4ir4` would reroll forever: it rerolls every face of a d4. "
        "Reroll on fewer faces, e.g. `10d10ir1`."
    )


@pytest.mark.parametrize(
    ("expression", "total"),
    [
        ("1d1e1", 2),  # `e` explodes once: the die and one more, both 1
        ("3d1e1", 6),
        ("1d1r1", 1),  # `r` rerolls once: a d1 shows 1 again
        ("2d6e7", None),  # no face reaches 7: nothing explodes
    ],
)
def test_once_only_explosions_and_rerolls_on_every_face_are_not_endless(
    expression: str, total: int | None
) -> None:
    rolled = roll_expression(expression, new_rng(1))
    if total is not None:
        assert rolled.total == total
    else:
        assert "!" not in rolled.breakdown


@pytest.mark.parametrize(
    "expression", ["1d6ie6", "1d2ie2", "8d6!", "10d10ir1", "1d6ir<6", "3d6e", "4d%ie90", "4dF!"]
)
def test_loops_that_can_stop_still_roll(expression: str) -> None:
    for seed in range(20):
        roll = roll_expression(expression, new_rng(seed))
        assert isinstance(roll.total, int)


def test_dice_asked_for_across_terms_are_refused_before_rolling() -> None:
    with pytest.raises(RulesError, match=re.escape("needs more than 1000 dice (it asks for 1200")):
        roll_expression("600d6+600d6", cast(Rng, _NoDice()))
    assert roll_expression("500d6+500d6", new_rng(0)).total > 0


def test_rerolls_and_explosions_count_against_the_dice_cap() -> None:
    # 1000 d2 that explode on 2: about 1000 more dice, far past the cap.
    with pytest.raises(RulesError, match=re.escape("more than 1000 dice (rerolls and explosions")):
        roll_expression("1000d2!", new_rng(0))


def test_one_die_explodes_at_most_a_hundred_times() -> None:
    class _AlwaysHighest:
        """Every die shows its highest face."""

        def integers(self, low: int, high: int, size: int) -> np.ndarray:
            return np.full(size, high - 1)

    rolled = roll_expression("1d6!", cast(Rng, _AlwaysHighest()))
    # The die and 100 explosions, each a 6; the hundredth new die explodes no more.
    assert rolled.total == 6 * (1 + expressions.MAX_REPEATS) == 606
    assert rolled.breakdown.count("6!") == 100


# ===== Each modifier on seeded dice, the faces replayed from numpy by hand =====


def _faces(seed: int, *batches: tuple[int, int]) -> list[list[int]]:
    """numpy's default_rng(seed) drawing each (count, sides) batch of dice in turn."""
    rng = np.random.default_rng(seed)
    return [(1 + rng.integers(0, sides, size=count)).tolist() for count, sides in batches]


def test_explode_once_adds_a_die_that_does_not_explode_again() -> None:
    assert _faces(4, (2, 6), (1, 6)) == [[5, 6], [6]]  # the new die is a 6 too
    rolled = roll_expression("2d6 e6", new_rng(4))
    assert (rolled.total, rolled.breakdown) == (5 + 6 + 6, "2d6e6 (5, 6!, 6)")
    assert roll_expression("2d6e", new_rng(4)).total == 17  # `e` alone: the highest face


def test_explode_indefinitely_goes_on_while_the_new_die_explodes() -> None:
    assert _faces(13, (1, 6), (1, 6), (1, 6)) == [[6], [6], [5]]
    for spelling in ("1d6ie6", "1d6!", "1d6ie", "1d6!6", "1d6ie>5"):
        rolled = roll_expression(spelling, new_rng(13))
        assert (rolled.total, rolled.breakdown) == (17, "1d6ie6 (6!, 6!, 5)"), spelling


def test_reroll_once_keeps_the_second_face_even_when_it_is_low() -> None:
    assert _faces(3, (2, 4), (1, 4)) == [[4, 1], [1]]
    for spelling in ("2d4r1", "2d4ro1", "2d4 r<2"):
        rolled = roll_expression(spelling, new_rng(3))
        assert (rolled.total, rolled.breakdown) == (5, "2d4r1 (4, ~~1~~ 1)"), spelling


def test_reroll_indefinitely_goes_on_until_the_face_is_not_picked() -> None:
    assert _faces(11, (1, 4), (1, 4), (1, 4)) == [[1], [1], [4]]
    for spelling in ("1d4ir1", "1d4rr1", "1d4 ir <2"):
        rolled = roll_expression(spelling, new_rng(11))
        assert (rolled.total, rolled.breakdown) == (4, "1d4ir1 (~~1~~ ~~1~~ 4)"), spelling


def test_reroll_number_is_the_highest_face_rerolled_as_dice_maiden_reads_it() -> None:
    # `r2` rerolls 1s and 2s (d20 read it as "the 2s only").
    assert _faces(2, (4, 4))[0] == [4, 2, 1, 2]
    rng = np.random.default_rng(2)
    first = (1 + rng.integers(0, 4, size=4)).tolist()
    second = (1 + rng.integers(0, 4, size=3)).tolist()  # the 2, the 1 and the 2 rerolled
    rolled = roll_expression("4d4r2", new_rng(2))
    assert rolled.total == first[0] + sum(second)
    assert rolled.breakdown == f"4d4r2 (4, ~~2~~ {second[0]}, ~~1~~ {second[1]}, ~~2~~ {second[2]})"


def test_success_counting_counts_and_subtracts_failures_and_reports_botches() -> None:
    assert _faces(0, (6, 10)) == [[9, 7, 6, 3, 4, 1]]
    rolled = roll_expression("6d10 t7 f1 b1", new_rng(0))
    # 9 and 7 succeed (2), the 1 fails (-1): 1 success; the 1 is also a botch.
    assert rolled.total == 1
    assert rolled.breakdown == "6d10t7f1b1 (**9**, **7**, 6, 3, 4, __1__: 1 success, 1 botch)"
    assert roll_expression("6d10t7", new_rng(0)).total == 2
    assert roll_expression("6d10t7+1", new_rng(0)).total == 3  # arithmetic on the count
    assert roll_expression("6d10 b", new_rng(0)).total == 9 + 7 + 6 + 3 + 4 + 1  # botches only


def test_fudge_dice_show_minus_blank_plus_and_add_up() -> None:
    rng = np.random.default_rng(3)
    faces = (-1 + rng.integers(0, 3, size=4)).tolist()
    assert faces == [1, -1, -1, -1]
    rolled = roll_expression("4dF", new_rng(3))
    assert (rolled.total, rolled.breakdown) == (-2, "4dF (+, -, -, -)")


def test_percentile_is_a_d100_not_a_tens_die() -> None:
    rng = np.random.default_rng(5)
    assert (1 + rng.integers(0, 100, size=2)).tolist() == [68, 81]
    assert roll_expression("2d%", new_rng(5)).total == 68 + 81
    assert roll_expression("d%", new_rng(5)).breakdown == "1d% (68)"


def test_minimum_and_maximum_show_the_face_they_replaced() -> None:
    assert _faces(0, (3, 6)) == [[6, 4, 4]]
    rolled = roll_expression("3d6mi5ma5", new_rng(0))
    assert (rolled.total, rolled.breakdown) == (15, "3d6mi5ma5 (~~6~~ 5, ~~4~~ 5, ~~4~~ 5)")


def test_modifiers_apply_in_one_order_whatever_order_they_are_typed_in() -> None:
    # reroll, explode, mi/ma, keep/drop, count: `k2e6` explodes first, then keeps.
    for spelling in ("3d6 k2 e6", "3d6e6kh2", "3d6 e kh2"):
        assert roll_expression(spelling, new_rng(0)).breakdown.startswith("3d6e6kh2 ("), spelling
    assert (
        roll_expression("3d6 k2 e6", new_rng(0)).total
        == roll_expression("3d6e6kh2", new_rng(0)).total
    )


def test_spaces_between_dice_and_modifiers_are_optional() -> None:
    assert expressions.parse_expression("4d6 k3 + 2").spelled() == "4d6kh3+2"
    assert expressions.parse_expression(" 6 d10 t 7 f 1 ").spelled() == "6d10t7f1"


HOSTILE_EXPRESSIONS = [
    # explosions and rerolls that run long
    "1d10000ie>1",
    "1000d10000ie>2",
    "1000d2!",
    "999d6+1d1e1",
    "1d10000ir<10000",
    "10d10000ir<10000",
    "500d10000mi10000r<10000e<10000",
    "500d2ie2",
    "1000d2ir1",
    "1d2ie2",
    # the most dice, rendered
    "1000d6",
    "1000d%",
    "1000dF",
    "999d2",
    "1000d1",
    "1000d10000",
    # every modifier on the most dice
    "1000d6kh1",
    "1000d6kl999",
    "1000d6ir1ie6mi2ma5kh999t4f1b1",
    "1000d6 r<6 e>1 mi6 ma1 dl500 t>=1 f<=6 b=3",
    "500d6e6+500d6!",
    # long, deep or large
    "-" * 100 + "1000d6kh999t3" + "+1" * 40,
    "(" * 50 + "1000d6r1e6kh999" + ")" * 50,
    "(" * 99 + "1" + ")" * 99,
    "-" * 199 + "1",
    "1+" * 99 + "1",
    "1d6+" * 39 + "1d6",
    "9" * 99 + "*" + "9" * 99,
    "9" * 198 + "/7",
    # requests: sets and parts
    "20 50d6ie6",
    "4 250d6; 4 250d6",
    "20 1d6; 20 1d6; 20 1d6; 20 1d6",
    # a label after the dice: each word is one more reading of the dice to try (at most 6)
    "1+ " + "d1+ " * 40 + "x y z w v",
    "1+1d6 " + "d1 " * 60 + "y",
    "1d6 " + "fire " * 39,
    "+d20 " + "adv " * 48,
]


def test_breakdown_bolds_kept_dice_only_where_dice_were_dropped_and_has_no_total() -> None:
    # numpy's default_rng(3) draws 5, 1, 2, 2 for four d6 (checked by hand below).
    faces = (1 + new_rng(3).integers(0, 6, size=4)).tolist()
    assert faces == [5, 1, 2, 2]
    kept = roll_expression("4d6kh3+2", new_rng(3))
    assert kept.breakdown == "4d6kh3 (**5**, ~~1~~, **2**, **2**) + 2"
    assert kept.total == 11
    plain = roll_expression("4d6+2", new_rng(3))
    assert plain.breakdown == "4d6 (5, 1, 2, 2) + 2"
    assert "=" not in plain.breakdown


def test_an_expression_that_ends_too_soon_says_so() -> None:
    with pytest.raises(RulesError, match="the expression ends too soon"):
        roll_expression("4d6kh3+", new_rng(0))
    with pytest.raises(RulesError, match=r"unexpected `\)` at character 8"):
        roll_expression("4d6kh3+)", new_rng(0))


@pytest.mark.parametrize("expression", HOSTILE_EXPRESSIONS)
def test_hostile_expressions_roll_or_are_refused_saying_why(expression: str) -> None:
    assert len(expression) <= 200
    try:
        rolled = expressions.roll_request(expression, new_rng(0))
    except RulesError as error:
        assert str(error)
    else:
        assert all(isinstance(roll.total, int) for rolls in rolled.rolls for roll in rolls)


_NUMBER = st.sampled_from([0, 1, 2, 3, 5, 6, 7, 10, 20, 100, 999, 1000, 10000]) | st.integers(
    0, 10**6
)
_MODIFIER = st.builds(
    "{}{}{}{}".format,
    st.sampled_from(["", " "]),
    st.sampled_from(
        [
            "k",
            "kh",
            "kl",
            "d",
            "dh",
            "dl",
            "p",
            "pl",
            "ph",
            "e",
            "ie",
            "!",
            "r",
            "ro",
            "ir",
            "rr",
            "t",
            "f",
            "b",
            "mi",
            "ma",
            "K",
            "IE",
            "x",
        ]
    ),
    st.sampled_from(["", "", "", "<", ">", "<=", ">=", "=", "h"]),
    st.sampled_from([""]) | _NUMBER.map(str),
)
_DICE = st.builds(
    "{}d{}{}".format,
    st.sampled_from(["", "0", "1", "2", "10", "100", "500", "999", "1000", "1001"])
    | st.integers(0, 1000).map(str),
    st.sampled_from(["1", "2", "6", "20", "100", "%", "F", "f", "10000", "0", "10001"])
    | st.integers(1, 10000).map(str),
    st.lists(_MODIFIER, max_size=8).map("".join),
)
_LITERAL = st.integers(0, 10**12).map(str) | st.sampled_from(["1.5", "0", "007"])


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = ["+", "-", "*", "/", "//", " + ", "%", "<", "=="]
    return (
        st.builds("{}{}{}".format, inner, st.sampled_from(binary), inner)
        | st.builds("{}{}".format, st.sampled_from(["-", "+"]), inner)
        | st.builds("({})".format, inner)
        | st.builds("({},{})".format, inner, inner)
    )


_EXPRESSION = st.recursive(_DICE | _LITERAL, _compound, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(expression=_EXPRESSION, seed=st.integers(0, 2**32))
def test_any_expression_from_the_grammar_rolls_or_is_refused(expression: str, seed: int) -> None:
    try:
        roll = roll_expression(expression, new_rng(seed))
    except RulesError as error:
        assert str(error)
    else:
        assert isinstance(roll.total, int)


@pytest.mark.parametrize(
    ("typed", "read_as"),
    [
        ("4d6k3", "4d6kh3"),  # d20 kept the 3s
        ("4d6k3+2", "4d6kh3+2"),
        ("4d6p1", "4d6dl1"),  # d20 dropped the 1s
        ("4d6d1", "4d6dl1"),  # Dice Maiden: drop the lowest 1
        ("4d6pl1", "4d6dl1"),
        ("4d6ph1", "4d6dh1"),
        ("4d6kh3", "4d6kh3"),  # already explicit: unchanged
        ("2d20kl1", "2d20kl1"),
        ("1d20+1d4", "1d20+1d4"),
        ("d20", "1d20"),
        ("8d6e6", "8d6e6"),  # once, as in Dice Maiden (d20 exploded again and again)
        ("8d6!", "8d6ie6"),
        ("10d10rr1", "10d10ir1"),
        ("10d10ro<3", "10d10r2"),
        ("6d10e>8", "6d10e9"),
        ("6d10 t>=7", "6d10t7"),
        ("6d10 t<3", "6d10t<=2"),
        ("6d10e=7", "6d10e=7"),
    ],
)
def test_players_spelling_is_never_misread(typed: str, read_as: str) -> None:
    assert expressions.parse_expression(typed).spelled() == read_as
    # Same dice, read the players' way: 4, 3, 6, 3 keeps 6, 4, 3 (not the two 3s).
    assert roll_expression(typed, new_rng(5)).total == roll_expression(read_as, new_rng(5)).total


def test_keep_three_keeps_the_highest_three_not_the_threes() -> None:
    rolled = roll_expression("4d6k3", new_rng(1))  # seed 1 rolls 3, 4, 5, 6
    assert rolled.breakdown == "4d6kh3 (~~3~~, **4**, **5**, **6**)" and rolled.total == 15


@pytest.mark.parametrize("expression", ["-d20", "-1d20+5", "-(2d6)", "2*-1d4", "1d8+-1d4", "-4dF"])
def test_minus_in_front_of_dice_is_refused_naming_the_right_spelling(expression: str) -> None:
    with pytest.raises(RulesError, match=r"A minus in front of dice .* \(`10-1d4`\)"):
        roll_expression(expression, new_rng(0))
    assert roll_expression("10-1d4", new_rng(0)).total <= 9  # subtraction still works
    assert roll_expression("-3+1d4", new_rng(0)).total <= 1  # a negative number is fine


@pytest.mark.parametrize(
    ("typed", "parts", "labels"),
    [
        ("6 4d6kh3", ((6, "4d6kh3"),), (None,)),
        ("1d20+5 ! fireball", ((1, "1d20+5"),), ("fireball",)),
        ("1d20+5; 2d6+3", ((1, "1d20+5"), (1, "2d6+3")), (None, None)),
        ("2 d20 ! two attacks", ((2, "d20"),), ("two attacks",)),
        ("2 + 3", ((1, "2 + 3"),), (None,)),  # arithmetic, not two sets of "+ 3"
        ("1d20 + 5", ((1, "1d20 + 5"),), (None,)),
        ("3d6! ! boom", ((1, "3d6!"),), ("boom",)),  # `!` on the dice explodes; ` ! ` labels
        ("20 1d6; 1d4; 1d4; 1d4", ((20, "1d6"), (1, "1d4"), (1, "1d4"), (1, "1d4")), (None,) * 4),
        # each `;` roll has its own label
        ("1d20+5 ! Attack; 2d6+3 ! Damage", ((1, "1d20+5"), (1, "2d6+3")), ("Attack", "Damage")),
    ],
)
def test_requests_split_into_parts_sets_and_labels(
    typed: str, parts: tuple[tuple[int, str], ...], labels: tuple[str | None, ...]
) -> None:
    request = expressions.parse_request(typed)
    assert tuple((part.sets, part.expression) for part in request.parts) == parts
    assert tuple(part.label for part in request.parts) == labels


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("21 1d6", "A roll set has 1 to 20 sets"),
        ("1d20; 1d20; 1d20; 1d20; 1d20", "at most 4 rolls separated by `;` (got 5)"),
        ("1d20;;1d6", "none of them may be empty"),
        ("! fireball", "Give dice before the label"),
        ("0 1d6", "A roll set has 1 to 20 sets"),
        ("1d20; 1d", "Couldn't read `1d`"),
        ("20 60d6", "needs more than 1000 dice (it asks for 1200"),
        ("1d6 ! " + "x" * 101, "A label is at most 100 characters"),
    ],
)
def test_bad_requests_are_refused_clearly(typed: str, message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        expressions.parse_request(typed)


@pytest.mark.parametrize("form", ["1d6 ! {}", "1d6 # {}", "1d6 [{}]", "1d6 {}"])
def test_rule_roll_label_of_exactly_100_characters_is_kept_whole(form: str) -> None:
    label = "a" + "x" * 99  # a plain-word label starts with a letter
    assert len(label) == 100
    request = expressions.parse_request(form.format(label))
    assert request.parts[0].label == label
    with pytest.raises(RulesError, match="A label is at most 100 characters"):
        expressions.parse_request(form.format(label + "x"))


@pytest.mark.parametrize(
    ("operator", "holds_at"),
    [
        (">=", lambda total: total >= 4),
        ("<=", lambda total: total <= 4),
        (">", lambda total: total > 4),
        ("<", lambda total: total < 4),
        ("=", lambda total: total == 4),
        ("==", lambda total: total == 4),  # read as `=`
    ],
)
def test_rule_roll_comparison_holds_exactly_where_its_operator_says(
    operator: str, holds_at: Callable[[int], bool]
) -> None:
    comparison = expressions.parse_request(f"1d6{operator}4").parts[0].comparison
    assert comparison is not None
    assert [comparison.holds(total) for total in range(1, 7)] == [
        holds_at(total) for total in range(1, 7)
    ]


@pytest.mark.parametrize(
    ("typed", "total"),
    [("13 % 2", 1), ("13%2", 1), ("-7 % 3", 2), ("2 * 7 % 4", 2), ("(2 + 13) % 4", 3)],
)
def test_rule_roll_percent_between_numbers_is_the_remainder(typed: str, total: int) -> None:
    # As avrae/d20 reads it (Python's %: the remainder takes the divisor's sign), left to right
    # with * and /. Hand-computed: 13 = 6*2 + 1; -7 = -3*3 + 2; 14 % 4 = 2; 15 % 4 = 3.
    rolled = expressions.roll_request(typed, new_rng(0))
    assert rolled.rolls[0][0].total == total
    assert rolled.request.parts[0].label is None


def test_rule_roll_percent_remainder_of_dice_and_by_zero() -> None:
    faces = [roll_expression("1d20", new_rng(seed)).total for seed in range(20)]
    assert [roll_expression("1d20 % 7", new_rng(seed)).total for seed in range(20)] == [
        face % 7 for face in faces
    ]
    with pytest.raises(RulesError, match="Can't divide by zero"):
        roll_expression("1d20 % 0", new_rng(0))


@pytest.mark.parametrize("typed", ["13 & 2", "1d20 🔥fire", '1d20 "sneak"', "1d20 5th"])
def test_rule_roll_label_words_start_with_a_letter(typed: str) -> None:
    with pytest.raises(RulesError, match="A label after the dice starts with a letter"):
        expressions.parse_request(typed)
    assert expressions.parse_request("1d20 sneak 5th").parts[0].label == "sneak 5th"
    assert expressions.parse_request("1d20 ! 🔥 fire").parts[0].label == "🔥 fire"


def test_roll_sets_roll_each_set_with_fresh_dice() -> None:
    rolled = expressions.roll_request("3 1d6", new_rng(7))
    reference = new_rng(7)
    assert [roll.total for roll in rolled.rolls[0]] == [
        roll_expression("1d6", reference).total for _ in range(3)
    ]


def test_a_whole_request_draws_at_most_the_dice_cap() -> None:
    # Each set asks 50 dice (1000 in all) and explodes past the cap between them.
    with pytest.raises(RulesError, match="more than 1000 dice"):
        expressions.roll_request("20 50d2!", new_rng(0))


_REQUEST = st.builds(
    "{}{}".format,
    st.lists(
        st.builds(
            "{}{}".format, st.sampled_from(["", "2 ", "3 ", "0 ", "20 ", "21 "]), _EXPRESSION
        ),
        min_size=1,
        max_size=5,
    ).map("; ".join),
    st.sampled_from(
        [
            *("", " ! fireball", " !", " ! " + "x" * 120, " attack", " # dex save", " adv"),
            *(" dis s", ">=15", " <3 fire", " [fire]", " adv attack", " s s", "[a]+1"),
        ]
    ),
)


@settings(max_examples=200, deadline=None)
@given(request=_REQUEST, seed=st.integers(0, 2**32))
def test_any_request_rolls_every_part_or_is_refused_clearly(request: str, seed: int) -> None:
    try:
        rolled = expressions.roll_request(request, new_rng(seed))
    except RulesError as error:
        assert str(error)  # a message, never an empty refusal
    else:
        assert len(rolled.rolls) <= expressions.MAX_PARTS
        assert all(len(rolls) <= expressions.MAX_SETS for rolls in rolled.rolls)
        assert all(isinstance(roll.total, int) for rolls in rolled.rolls for roll in rolls)
