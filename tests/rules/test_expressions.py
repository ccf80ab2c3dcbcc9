"""`/roll` notation: seeded results, limits and clear errors."""

from __future__ import annotations

import random

import d20.expression
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.errors import RulesError
from rules.expressions import Natural, roll_expression
from rules.randomness import new_rng


def test_seeded_keep_highest_gives_known_dice() -> None:
    # new_rng(7) draws 6, 4, 5, 6: keep the three highest, plus 2.
    roll = roll_expression("4d6kh3+2", new_rng(7))
    assert roll.total == 6 + 5 + 6 + 2
    assert roll.breakdown == "4d6kh3 (**6**, ~~4~~, 5, **6**) + 2 = `19`"


def test_seeded_keep_lowest_of_two_d20() -> None:
    rng = new_rng(7)
    roll_expression("4d6kh3+2", rng)
    roll = roll_expression("2d20kl1", rng)
    assert (roll.total, roll.breakdown) == (12, "2d20kl1 (12, ~~16~~) = `12`")


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
    assert d20.expression.random is random


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
    ],
)
def test_bad_expressions_explain_what_is_allowed(expression: str, message: str) -> None:
    with pytest.raises(RulesError, match=message):
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
