"""A `/roll` total placed on its exact distribution, computed once per dice shape, bounded.

docs/gms.md, "Campaign recap". The recap places a `/roll` total of dice sums, keep and drop, Fudge
dice, numbers, + and - on its exact distribution. Every such expression is a constant plus a
sum of independent parts: plain dice of ``faces`` faces (each 0 to faces - 1 once its lowest
face is moved into the constant) and kept dice (the ``kept`` highest or lowest of ``dice``
dice with faces 1 to ``faces``; a subtracted keep-highest is a keep-lowest moved down by the
constant). That multiset of parts is the expression's ``Shape``: `12d1000`, `12d1000+5`,
`1d1000+11d1000` and `20-12d1000` share one, so its counts are computed once for all of them.

The counts are exact integers, computed in decimal arithmetic (``decimal``'s integer products
are number-theoretic transforms, n log n in the digits): each part's weights are packed into
one integer, ``width`` digits a slot (Kronecker substitution; no count exceeds the total
weight, which fits one slot, so no slot carries into the next), the parts multiplied, and the
product turned into its running sums by one exact division. The recap then reads the number of
rolls at most ``x`` out of its slot of digits: a placement is a slice and a ``Fraction``.

Bounded: a shape's work is estimated before it is computed (``Shape.seconds``, from the digits
of its counts and the keep counting's steps); one estimated past ``SHAPE_SECONDS_MAX`` is not
computed, and a recap computes new shapes, cheapest first, up to ``RECAP_SECONDS_MAX`` in all.
A roll of a shape not computed counts, unscored, as "too large to score". The counts kept
between recaps are bounded too (``CACHE_DIGITS_MAX``, least recently used dropped first).
"""

from __future__ import annotations

import decimal
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from math import prod

import numpy as np

from rules.count_odds import counted_die
from rules.errors import RulesError
from rules.expressions.parser import parse_expression
from rules.expressions.terms import (
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_SIDES,
    Binary,
    DiceTerm,
    Die,
    Group,
    Node,
    Number,
    Signed,
)
from rules.expressions.terms import Keep as TermKeep
from rules.odds import Keep, keep

__all__ = [
    "CACHE_DIGITS_MAX",
    "RECAP_SECONDS_MAX",
    "SHAPE_SECONDS_MAX",
    "Counts",
    "Shape",
    "Shaped",
    "admitted",
    "cache_builds",
    "clear_cache",
    "counts_of",
    "is_cached",
    "place",
    "shape_by_grammar",
    "shape_of",
]

# Estimated seconds (see Shape.seconds): one shape at most, and the new shapes of one recap.
SHAPE_SECONDS_MAX = 1.0
RECAP_SECONDS_MAX = 2.0
SHAPES_KEPT = 4096  # expressions whose shape is kept: a recap reads at most 2,000 rolls
CACHE_DIGITS_MAX = 64_000_000  # digits of counts kept between recaps (a byte each)

# The cost model, measured on the 2-vCPU VM of docs/benchmarks.md and rounded up:
# decimal products and the running-sum division per digit of the counts, per part; and the
# keep counting (rules.odds.keep), per numpy call and per element (int64, or Python integers).
_DIGIT_SECONDS = 1.2e-7
_KEEP_CALL_SECONDS = 5e-6
_KEEP_INT64_SECONDS = 3e-9
_KEEP_OBJECT_SECONDS = 9e-8
_INT64_LIMIT = 2**62  # rules.odds counts in int64 below this total weight

# Exact integer arithmetic: every digit kept; a rounding would raise rather than pass unseen.
_EXACT = decimal.Context(
    prec=decimal.MAX_PREC,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    traps=[decimal.Inexact, decimal.Rounded, decimal.InvalidOperation, decimal.DivisionByZero],
)


class _Unplaceable(Exception):
    """An expression with what the recap doesn't place (rerolls, explosions, ×, ÷...)."""


@dataclass(frozen=True, slots=True)
class Shape:
    """The dice of an expression, less its constant.

    Attributes:
        sums: (faces, dice) of plain dice, each showing 0 to faces - 1, by faces.
        kept: (dice, faces, kept, highest) of kept dice, each face 1 to faces, sorted.
    """

    sums: tuple[tuple[int, int], ...] = ()
    kept: tuple[tuple[int, int, int, bool], ...] = ()
    # (weights, dice) of success-counting dice (rules.count_odds): a die is worth 0 to
    # len(weights) - 1 with these integer weights (docs/players/dice.md, "Game modes").
    counted: tuple[tuple[tuple[int, ...], int], ...] = ()

    @property
    def low(self) -> int:
        """The smallest value: every plain die 0, every kept die 1."""
        return sum(kept for _, _, kept, _ in self.kept)

    @property
    def length(self) -> int:
        """How many values from the smallest to the largest."""
        plain = sum(dice * (faces - 1) for faces, dice in self.sums)
        plain += sum(dice * (len(weights) - 1) for weights, dice in self.counted)
        return 1 + plain + sum(kept * (faces - 1) for _, faces, kept, _ in self.kept)

    @property
    def total(self) -> int:
        """The number of equally likely rolls: every count's denominator."""
        dice = [(faces, count) for faces, count in self.sums]
        dice += [(faces, count) for count, faces, _, _ in self.kept]
        counted = prod(sum(weights) ** count for weights, count in self.counted)
        return int(counted * prod(faces**count for faces, count in dice))

    @property
    def width(self) -> int:
        """Digits of a slot: those of the total weight, the largest count."""
        return _decimal_digits(self.total)

    @property
    def digits(self) -> int:
        """Digits of the counts: a slot per value."""
        return self.length * self.width

    @property
    def seconds(self) -> float:
        """The estimated time to compute the counts (the cost model above)."""
        parts = len(self.sums) + len(self.kept) + len(self.counted)
        work = self.digits * (1 + parts) * _DIGIT_SECONDS
        return work + sum(_keep_seconds(dice, faces, kept) for dice, faces, kept, _ in self.kept)


def _decimal_digits(number: int) -> int:
    """The decimal digits of a positive ``number`` (without ``str``: no digit limit applies)."""
    digits = max(1, number.bit_length() * 30103 // 100000)  # log10(2) ~ 0.30103, from below
    while 10**digits <= number:
        digits += 1
    return digits


def _keep_seconds(dice: int, faces: int, kept: int) -> float:
    """The keep counting's estimated time: per face, a numpy call per (used, showing) pair,
    each over the kept sums so far; keeping one die is a closed form (a power per face)."""
    if kept == 1:
        return faces * (1 + dice * faces.bit_length() // 64) * _KEEP_CALL_SECONDS
    calls = faces * (dice + 1) * (dice + 2) // 2
    element = _KEEP_INT64_SECONDS if faces**dice < _INT64_LIMIT else _KEEP_OBJECT_SECONDS
    return calls * (_KEEP_CALL_SECONDS + (kept * faces + 1) * element)


@dataclass(frozen=True, slots=True)
class Shaped:
    """An expression as its shape and constant: its total is ``offset`` + the shape's value."""

    shape: Shape
    offset: int


@dataclass
class _Parts:
    sums: dict[int, int] = field(default_factory=dict)
    kept: list[tuple[int, int, int, bool]] = field(default_factory=list)
    counted: list[tuple[tuple[int, ...], int]] = field(default_factory=list)
    offset: int = 0


def _add_term(term: DiceTerm, sign: int, parts: _Parts) -> None:
    if term.counts:  # a success count: each die's exact odds (rules/count_odds.py)
        read = counted_die(term)
        if read is None:
            raise _Unplaceable(term.spelled())
        low, weights = read
        if sign < 0:  # -(low + u) = -(low + n - 1) + (n - 1 - u): the weights reversed
            low, weights = -(low + len(weights) - 1), weights[::-1]
        parts.offset += term.count * low
        if len(weights) > 1 and term.count:
            parts.counted.append((weights, term.count))
        return
    modified = (term.reroll, term.explode, term.minimum, term.maximum, term.success,
                term.failure, term.botch)  # fmt: skip
    if any(part is not None for part in modified) or term.selections:
        raise _Unplaceable(term.spelled())
    low, faces, count = term.die.low, term.die.size, term.count
    kept, highest = count, True
    if term.keep is not None:
        kept = term.keep.count if not term.keep.drop else count - term.keep.count
        kept = max(0, min(count, kept))
        highest = term.keep.highest != term.keep.drop
    if kept == 0:
        return
    if kept == count or faces == 1:  # a plain sum: each die low + (0 to faces - 1)
        # Subtracted: -(low + u) = -(low + faces - 1) + (faces - 1 - u), a plain die again.
        parts.offset += kept * (low if sign > 0 else -(low + faces - 1))
        if faces > 1:
            parts.sums[faces] = parts.sums.get(faces, 0) + kept
        return
    # Kept dice of faces 1..faces, then moved by low - 1 each. Subtracted: the sum of the kept
    # highest of f is kept · (faces + 1) less the kept lowest of faces + 1 - f, a fair die too.
    parts.offset += sign * kept * (low - 1)
    if sign < 0:
        parts.offset -= kept * (faces + 1)
        highest = not highest
    parts.kept.append((count, faces, kept, highest))


def _add(node: Node, sign: int, parts: _Parts) -> None:
    match node:
        case Number(value=value):
            parts.offset += sign * value
        case DiceTerm():
            _add_term(node, sign, parts)
        case Group(inner=inner):
            _add(inner, sign, parts)
        case Signed(minus=minus, operand=operand):
            _add(operand, -sign if minus else sign, parts)
        case Binary(left=left, operator=operator, right=right) if operator in "+-":
            _add(left, sign, parts)
            _add(right, -sign if operator == "-" else sign, parts)
        case _:
            raise _Unplaceable(type(node).__name__)


def _shaped(parts: _Parts) -> Shaped:
    shape = Shape(
        tuple(sorted(parts.sums.items())), tuple(sorted(parts.kept)), tuple(sorted(parts.counted))
    )
    return Shaped(shape, parts.offset)


def shape_by_grammar(expression: str) -> Shaped | None:
    """``shape_of`` through the notation's own parser (``rules/notation.lark``)."""
    parts = _Parts()
    try:
        _add(parse_expression(expression).root, 1, parts)
    except (_Unplaceable, RulesError, ValueError):
        return None
    return _shaped(parts)


@lru_cache(maxsize=SHAPES_KEPT)
def shape_of(expression: str) -> Shaped | None:
    """Return an expression's shape and constant, or None when it uses what the recap doesn't
    place (rerolls, explosions, success counting, minimum, maximum, × and ÷) or doesn't read.

    Read quickly when it can be: the notation's parser takes ~1.3 ms for a 200-character
    expression, 2.7 s for a recap of 2,000 such; a reader of what the recap places (numbers,
    dice with keep or drop, + and -, brackets) by regular expressions takes under 0.4 ms, and
    leaves anything it doesn't know to the parser (tests/rules/test_recap.py checks they agree).
    """
    try:
        return _QuickReader(expression).shaped()
    except _Unplaceable:
        return None
    except _NotQuick:
        return shape_by_grammar(expression)


class _NotQuick(Exception):
    """Something the quick reader doesn't read: the notation's parser decides."""


_OPERATOR = re.compile(r"\s*([-+*/%()])")
_NUMBER = re.compile(r"\s*([0-9]+)")
_DIE = re.compile(r"\s*[dD]")
_SIDES = re.compile(r"\s*([0-9]+|%|[fF])")
# The grammar's MODIFIER, split: keep and drop (with their count), and the rest (never placed).
_KEEP = re.compile(r"\s*(kh|kl|k|dh|dl|d|ph|pl|p)\s*([0-9]+)", re.IGNORECASE)
_UNPLACED = re.compile(r"\s*(ie|e|!|ir|rr|ro|r|t|f|b|mi|ma)", re.IGNORECASE)
_KEEPS = {  # spelling: (highest, drop), as rules.expressions.parser reads them
    "k": (True, False), "kh": (True, False), "kl": (False, False),
    "d": (False, True), "dl": (False, True), "p": (False, True), "pl": (False, True),
    "dh": (True, True), "ph": (True, True),
}  # fmt: skip


class _QuickReader:
    """Recursive descent over the grammar's sum, unary and atom, for the placed subset."""

    def __init__(self, expression: str) -> None:
        self.text = expression.strip()
        self.at = 0
        self.parts = _Parts()
        self.dice = 0  # dice terms read, and their dice
        self.thrown = 0

    def shaped(self) -> Shaped:
        if not self.text or len(self.text) > MAX_EXPRESSION_LENGTH:
            raise _NotQuick
        self.sum(1)
        if self.at != len(self.text) or self.thrown > MAX_DICE:
            raise _NotQuick
        return _shaped(self.parts)

    def operator(self) -> str | None:
        found = _OPERATOR.match(self.text, self.at)
        return None if found is None else found.group(1)

    def take(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        found = pattern.match(self.text, self.at)
        if found is not None:
            self.at = found.end()
        return found

    def sum(self, sign: int) -> None:
        self.unary(sign)
        while (operator := self.operator()) is not None and operator not in "()":
            if operator not in "+-":
                raise _Unplaceable(operator)  # ×, ÷, %: never placed
            self.take(_OPERATOR)
            self.unary(-sign if operator == "-" else sign)

    def unary(self, sign: int) -> None:
        operator = self.operator()
        if operator is not None and operator in "+-":
            self.take(_OPERATOR)
            dice = self.dice
            self.unary(-sign if operator == "-" else sign)
            if operator == "-" and self.dice != dice:
                raise _NotQuick  # the parser refuses a minus in front of dice
            return
        self.atom(sign)

    def atom(self, sign: int) -> None:
        if self.operator() == "(":
            self.take(_OPERATOR)
            self.sum(sign)
            if self.operator() != ")":
                raise _NotQuick
            self.take(_OPERATOR)
            return
        number = self.take(_NUMBER)
        if self.take(_DIE) is not None:
            self.term(1 if number is None else int(number.group(1)), sign)
        elif number is not None:
            self.parts.offset += sign * int(number.group(1))
        else:
            raise _NotQuick

    def term(self, count: int, sign: int) -> None:
        sides = self.take(_SIDES)
        if sides is None:
            raise _NotQuick
        spelled = sides.group(1)
        if spelled == "%":
            die = Die(1, 100, "%")
        elif spelled in "fF":
            die = Die(-1, 1, "F")
        elif 1 <= int(spelled) <= MAX_SIDES:
            die = Die(1, int(spelled), spelled)
        else:
            raise _NotQuick
        kept: TermKeep | None = None
        while (found := self.take(_KEEP)) is not None:
            if kept is not None:
                raise _NotQuick  # a second keep or drop: the parser refuses it
            highest, drop = _KEEPS[found.group(1).lower()]
            kept = TermKeep(int(found.group(2)), highest, drop)
        if _UNPLACED.match(self.text, self.at) is not None:
            raise _NotQuick  # counted dice are placed (rules/count_odds.py): the parser decides
        self.dice += 1
        self.thrown += count
        _add_term(DiceTerm(count, die, keep=kept), sign, self.parts)


@dataclass(frozen=True, slots=True, eq=False)
class Counts:
    """A shape's exact counts: of its ``total`` rolls, how many give at most each value."""

    low: int
    length: int
    width: int
    total: int
    digits: str  # slot t (from the right) is the number of rolls at most low + t

    def at_most(self, value: int) -> int:
        """The number of rolls whose value is at most ``value``."""
        index = value - self.low
        if index < 0:
            return 0
        if index >= self.length:
            return self.total
        end = len(self.digits) - index * self.width
        return int(self.digits[end - self.width : end])


def place(counts: Counts, value: int, *, higher_is_better: bool) -> tuple[Fraction, Fraction]:
    """The luck of ``value`` (its mid-rank: P(worse) + P(same) / 2) and its smaller tail
    (min(P(at most), P(at least))), as ``rules.recap.luck_of`` and ``tail_of`` give them."""
    below, upto, total = counts.at_most(value - 1), counts.at_most(value), counts.total
    if higher_is_better:
        luck = Fraction(below + upto, 2 * total)
    else:
        luck = Fraction(2 * total - upto - below, 2 * total)
    return luck, Fraction(min(upto, total - below), total)


def _packed(weights: Iterable[int], width: int) -> Decimal:
    """The integer with ``weights[i]`` in slot i (``width`` digits a slot, slot 0 lowest)."""
    return Decimal("".join(str(weight).zfill(width) for weight in reversed(list(weights))))


def _computed(shape: Shape) -> Counts:
    width, length = shape.width, shape.length
    with decimal.localcontext(_EXACT):
        product = Decimal(1)
        one = "1".zfill(width)
        for faces, dice in shape.sums:
            product *= Decimal(one * faces) ** dice
        for dice, faces, kept, highest in shape.kept:
            weights = keep(dice, faces, kept, Keep.HIGHEST if highest else Keep.LOWEST).weights
            product *= _packed((int(weight) for weight in np.asarray(weights)), width)
        for each, dice in shape.counted:
            product *= _packed(each, width) ** dice
        # Running sums: product · (1 + B + ... + B^(length - 1)) with B = 10^width, that is
        # product · (B^length - 1) / (B - 1): its lowest `length` slots are the sums.
        running = (product.scaleb(length * width) - product) // Decimal("9" * width)
    digits = str(running)[-length * width :].rjust(length * width, "0")
    return Counts(shape.low, length, width, shape.total, digits)


class _Cache:
    """Counts by shape, least recently used dropped first past ``CACHE_DIGITS_MAX`` digits."""

    def __init__(self) -> None:
        self.counts: OrderedDict[Shape, Counts] = OrderedDict()
        self.digits = 0
        self.builds = 0  # counts computed (cache misses), for the tests

    def get(self, shape: Shape) -> Counts:
        found = self.counts.get(shape)
        if found is not None:
            self.counts.move_to_end(shape)
            return found
        computed = _computed(shape)
        self.builds += 1
        self.counts[shape] = computed
        self.digits += len(computed.digits)
        while self.digits > CACHE_DIGITS_MAX and len(self.counts) > 1:
            _, dropped = self.counts.popitem(last=False)
            self.digits -= len(dropped.digits)
        return computed


_CACHE = _Cache()


def counts_of(shape: Shape) -> Counts:
    """The shape's counts, computed once (cached): call only for an admitted shape."""
    return _CACHE.get(shape)


def is_cached(shape: Shape) -> bool:
    """Whether the shape's counts are computed already."""
    return shape in _CACHE.counts


def cache_builds() -> int:
    """How many shapes' counts were computed since the cache was last cleared."""
    return _CACHE.builds


def clear_cache() -> None:
    """Forget every computed shape (the tests' and benchmarks' cold start)."""
    shape_of.cache_clear()
    _CACHE.counts.clear()
    _CACHE.digits = 0
    _CACHE.builds = 0


def admitted(shapes: Iterable[Shape], seconds: float = RECAP_SECONDS_MAX) -> frozenset[Shape]:
    """The shapes one recap places: every one computed already, and new ones, cheapest first,
    each estimated within ``SHAPE_SECONDS_MAX`` and all within ``seconds``."""
    chosen: set[Shape] = set()
    new: list[tuple[float, Shape]] = []
    for shape in set(shapes):
        if is_cached(shape):
            chosen.add(shape)
            continue
        cost = shape.seconds
        if cost <= SHAPE_SECONDS_MAX:
            new.append((cost, shape))
    spent = 0.0
    for cost, shape in sorted(new, key=lambda pair: pair[0]):
        if spent + cost > seconds:
            break
        spent += cost
        chosen.add(shape)
    return frozenset(chosen)
