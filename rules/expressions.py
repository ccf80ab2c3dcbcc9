"""Standard dice notation (`4d6kh3+2`, `2d20kl1`, `3d10`) for `/roll`, on avrae's d20 library.

d20 parses and evaluates the expression; this module adds the limits a public bot needs, the
injected random source, and a plain result object.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

import d20
import d20.diceast
import d20.expression

from rules.errors import RulesError
from rules.randomness import Rng

__all__ = [
    "MAX_DICE",
    "MAX_EXPRESSION_LENGTH",
    "MAX_SIDES",
    "ExpressionRoll",
    "Natural",
    "parse_expression",
    "roll_expression",
]

MAX_EXPRESSION_LENGTH = 200
MAX_DICE = 1000  # dice rolled in one expression, rerolls and explosions included
MAX_SIDES = 10_000
EXAMPLES = "`4d6kh3+2`, `2d20kl1`, `3d10+5`, `1d20+1d4`"


class Natural(Enum):
    """A natural 20 or natural 1 on an expression whose first term keeps one d20."""

    NONE = "none"
    TWENTY = "natural 20"
    ONE = "natural 1"


@dataclass(frozen=True, slots=True)
class ExpressionRoll:
    """One evaluated expression: every die is in the breakdown, struck-through when dropped."""

    expression: str
    total: int
    breakdown: str  # d20's Markdown rendering, e.g. "4d6kh3 (6, ~~1~~, 4, 5) + 2 = `17`"
    natural: Natural


class _RandrangeFromGenerator:
    """Expose ``randrange`` over a numpy Generator, the only call d20 makes for a die."""

    __slots__ = ("_rng",)

    def __init__(self, rng: Rng) -> None:
        self._rng = rng

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        if stop is None:
            start, stop = 0, start
        return start + step * int(self._rng.integers(0, (stop - start + step - 1) // step))


@contextlib.contextmanager
def _dice_from(rng: Rng) -> Iterator[None]:
    # d20 draws every die from its module-level ``random``. Evaluation is synchronous, so swapping
    # that name for the duration of one roll is safe under asyncio and keeps the source injectable.
    original = d20.expression.random
    d20.expression.random = _RandrangeFromGenerator(rng)  # type: ignore[assignment]
    try:
        yield
    finally:
        d20.expression.random = original


_roller = d20.Roller(d20.RollContext(max_rolls=MAX_DICE))


def _check_limits(node: d20.diceast.Node) -> None:
    if isinstance(node, d20.diceast.Dice):
        if node.num > MAX_DICE:
            raise RulesError(f"At most {MAX_DICE} dice per roll (asked for {node.num}).")
        if node.size != "%" and node.size < 1:
            raise RulesError(f"A die needs at least 1 side (got d{node.size}).")
        if node.size != "%" and node.size > MAX_SIDES:
            raise RulesError(f"Dice can have at most {MAX_SIDES} sides (got d{node.size}).")
    for child in node.children:
        _check_limits(child)


def parse_expression(expression: str) -> d20.diceast.Expression:
    """Parse and check an expression; raise RulesError saying what is wrong and what is allowed."""
    text = expression.strip()
    if not text:
        raise RulesError(f"Give a dice expression, for example {EXAMPLES}.")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise RulesError(
            f"Dice expressions can be at most {MAX_EXPRESSION_LENGTH} characters (got {len(text)})."
        )
    try:
        tree = _roller.parse(text)
    except d20.RollSyntaxError as error:
        raise RulesError(
            f"Couldn't read `{text}` as dice: unexpected `{error.got}` at character {error.col}. "
            f"Examples: {EXAMPLES}."
        ) from None
    _check_limits(tree)
    return tree


def roll_expression(expression: str, rng: Rng) -> ExpressionRoll:
    """Roll a standard dice expression with dice from ``rng``."""
    tree = parse_expression(expression)
    try:
        with _dice_from(rng):
            result = _roller.roll(tree)
        total, breakdown = result.total, result.result  # d20 evaluates these lazily
    except d20.TooManyRolls:
        raise RulesError(
            f"That roll needs more than {MAX_DICE} dice (rerolls and explosions count)."
        ) from None
    except d20.RollValueError as error:
        raise RulesError(f"Can't roll `{expression.strip()}`: {error}") from None
    natural = {
        d20.CritType.CRIT: Natural.TWENTY,
        d20.CritType.FAIL: Natural.ONE,
    }.get(result.crit, Natural.NONE)
    return ExpressionRoll(
        expression=expression.strip(),
        total=total,
        breakdown=breakdown,
        natural=natural,
    )
