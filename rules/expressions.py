"""Standard dice notation (`4d6kh3+2`, `2d20kl1`, `3d10`) for `/roll`, on avrae's d20 library.

d20 parses and evaluates the expression; this module adds the limits a public bot needs, the
injected random source, and a plain result object.

A roll runs on the event loop, so no expression may hold it for long. d20 alone lets a short
expression spend a quarter of a second or more: an explosion (`e`) or repeated reroll (`rr`) that
matches every face only stops at the dice cap, d20 rescans every die after each explosion or
reroll round, and `k` reselects the whole set once per die. So this module

- refuses an explosion or reroll that could never stop before any die is rolled
  (``_refuse_endless_loops``),
- refuses more than ``MAX_DICE`` dice across all terms before rolling,
- runs the set operations with d20's semantics but in one pass over the dice they touch
  (``_Operator``), and counts that work against ``MAX_DIE_CHECKS``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum

import d20
import d20.diceast
import d20.expression

from rules.errors import RulesError
from rules.randomness import Rng

__all__ = [
    "MAX_DICE",
    "MAX_DIE_CHECKS",
    "MAX_EXPRESSION_LENGTH",
    "MAX_SIDES",
    "ExpressionRoll",
    "Natural",
    "RequestRoll",
    "RollRequest",
    "parse_expression",
    "parse_request",
    "roll_expression",
    "roll_request",
]

MAX_EXPRESSION_LENGTH = 200
# Dice rolled in one expression, rerolls and explosions included (d20's max_rolls). The dice the
# terms ask for are also added up and refused before rolling. Rolling and rendering 1000 dice
# takes ~4 ms, a fifth of the 20 ms one roll may hold the event loop.
MAX_DICE = 1000
MAX_SIDES = 10_000
# Dice (or set values) checked by the set operations k, p, rr, ro, ra, e, mi and ma of one
# expression: each operation counts every die it applies to, each reroll or explosion round the
# dice it rolled. A check costs up to ~0.7 µs, so 1000 dice and 6,000 checks (six operations on
# all of them) stay under 10 ms, half the 20 ms budget, leaving room for a slower host; with no
# limit, 64 `mi`/`ma` on 1000 dice fit in 200 characters and take ~40 ms.
MAX_DIE_CHECKS = 6_000
EXAMPLES = "`4d6kh3+2`, `2d20kl1`, `3d10+5`, `1d20+1d4`"
SHOWN_TOKEN_MAX = 20  # how much of an unreadable part a syntax error repeats back


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
    breakdown: (
        str  # Markdown, e.g. "4d6kh3 (**6**, ~~1~~, **4**, **5**) + 2": bold kept, struck dropped
    )
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

    def faces(self, count: int, size: int | str) -> list[int]:
        """``count`` dice in one call: the faces ``count`` calls of randrange would give, in order.

        numpy draws a bounded array from the same stream as one bounded number at a time, so the
        seeded results do not change; one call instead of ``count`` saves ~2 µs a die.
        """
        if size == "%":  # d20 rolls `d%` as randrange(0, 100, 10)
            return (10 * self._rng.integers(0, 10, size=count)).tolist()
        return (1 + self._rng.integers(0, size, size=count)).tolist()


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


# ===== Selectors, and the values a die can show =====

_Span = tuple[int, int]  # the die values lo..hi, both included


def _normalise(spans: Iterable[_Span]) -> list[_Span]:
    """Sorted, merged, non-empty spans."""
    merged: list[_Span] = []
    for lo, hi in sorted(span for span in spans if span[0] <= span[1]):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _faces(size: int | str) -> list[_Span]:
    # d20 rolls `d%` as a tens die: randrange(0, 100, 10), so 0, 10, ..., 90.
    if size == "%":
        return [(face, face) for face in range(0, 100, 10)]
    assert isinstance(size, int)
    return [(1, size)]


def _die_name(size: int | str) -> str:
    return "d% (0, 10, …, 90)" if size == "%" else f"d{size}"


@dataclass(frozen=True, slots=True)
class _Selection:
    """The selectors of one operation merged: d20 picks the union of what each selector picks."""

    faces: frozenset[int]  # `6`: values equal to one of these
    below: int | None  # `<3`: values under the largest such number
    above: int | None  # `>4`: values over the smallest such number
    highest: int  # `h2`: the largest `h` count, since the top 3 include the top 2
    lowest: int  # `l2`: likewise

    @classmethod
    def of(cls, sels: Iterable[d20.diceast.SetSelector | d20.expression.SetSelector]) -> _Selection:
        sels = list(sels)

        def nums(cat: str | None) -> list[int]:
            return [sel.num for sel in sels if sel.cat == cat]

        return cls(
            faces=frozenset(nums(None)),
            below=max(nums("<"), default=None),
            above=min(nums(">"), default=None),
            highest=max(nums("h"), default=0),
            lowest=max(nums("l"), default=0),
        )

    @property
    def by_value(self) -> bool:
        """Whether there is a value selector (`6`, `<3`, `>4`)."""
        return bool(self.faces) or self.below is not None or self.above is not None

    @property
    def by_rank(self) -> bool:
        """Whether a highest/lowest selector picks something from any non-empty set."""
        return self.highest > 0 or self.lowest > 0

    def matches(self, value: float) -> bool:
        """Whether a value selector (`6`, `<3`, `>4`) picks this value."""
        return (
            value in self.faces
            or (self.below is not None and value < self.below)
            or (self.above is not None and value > self.above)
        )

    def matched(self, spans: list[_Span]) -> list[_Span]:
        """The values in ``spans`` a value selector picks."""
        picked = [(face, face) for face in self.faces if any(lo <= face <= hi for lo, hi in spans)]
        if self.below is not None:
            picked += [(lo, min(hi, self.below - 1)) for lo, hi in spans]
        if self.above is not None:
            picked += [(max(lo, self.above + 1), hi) for lo, hi in spans]
        return _normalise(picked)

    def missed(self, spans: list[_Span]) -> list[_Span]:
        """The values in ``spans`` no value selector picks."""
        left: list[_Span] = []
        for lo, hi in spans:
            if self.below is not None:
                lo = max(lo, self.below)
            if self.above is not None:
                hi = min(hi, self.above)
            for face in sorted(face for face in self.faces if lo <= face <= hi):
                left.append((lo, face - 1))
                lo = face + 1
            left.append((lo, hi))
        return _normalise(left)


# ===== Checks before rolling =====


def _refuse_endless_loops(node: d20.diceast.OperatedDice) -> None:
    """Refuse an `e` or `rr` that, once it starts, never stops.

    d20 explodes the new dice for as long as they match the selectors, and rerolls a die for as
    long as its new face matches. When the selectors match every face the loop can only end at the
    dice cap. `h`/`l` on `rr` pick a die again after every reroll; on `e` they only pick new dice
    that rank among the highest/lowest, which ends. Earlier operations can drop dice or force their
    values (`mi`, `ma`), so this follows the values the kept dice may show, operation by operation,
    and refuses only when the loop can start.
    """
    dice = node.value
    assert isinstance(dice, d20.diceast.Dice)
    faces = _faces(dice.size)
    values = faces if dice.num > 0 else []  # what a kept die may show now
    most: int | None = dice.num  # at most this many dice are kept; None: no bound
    for op in node.operations:
        selection = _Selection.of(op.sels)
        if op.op in ("mi", "ma"):
            if op.sels[-1].cat is not None:
                return  # d20 refuses the selector when it gets here
            limit = op.sels[-1].num
            force = max if op.op == "mi" else min
            values = _normalise((force(lo, limit), force(hi, limit)) for lo, hi in values)
            continue
        if not values or most == 0:
            return  # no die left: nothing below can pick or add one
        hit = selection.matched(values)
        picks = bool(hit) or selection.by_rank
        if op.op == "rr" and selection.by_rank:
            raise RulesError(
                f"`{node}` would reroll forever: `{op}` picks the "
                f"{'highest' if selection.highest else 'lowest'} dice again after every reroll. "
                "Reroll by face instead, e.g. `10d10rr1`."
            )
        if op.op in ("e", "rr") and picks and not selection.missed(faces):
            verb, example = ("explode", "1d6e6") if op.op == "e" else ("reroll", "10d10rr1")
            raise RulesError(
                f"`{node}` would {verb} forever: `{op}` {verb}s every face of a "
                f"{_die_name(dice.size)}. {verb.capitalize()} on fewer faces, e.g. `{example}`."
            )
        if op.op == "k":
            if not selection.by_rank:
                values = hit
            elif not hit and most is not None:
                most = min(most, selection.highest + selection.lowest)
        elif op.op == "p":
            values = selection.missed(values)
            if most is not None and selection.by_rank:
                most = max(0, most - max(selection.highest, selection.lowest))
        elif picks:  # rr, ro, ra, e
            if op.op == "rr":
                values = _normalise(selection.missed(values) + selection.missed(faces))
            else:
                values = _normalise(values + faces)
            if op.op == "ra" and most is not None:
                most += 1
            elif op.op == "e":
                most = None


def _check_limits(tree: d20.diceast.Node) -> None:
    nodes: list[d20.diceast.Node] = []
    stack = [tree]
    while stack:  # left to right, without recursion: 200 characters can nest 199 levels deep
        node = stack.pop()
        nodes.append(node)
        stack.extend(reversed(node.children))
    dice = [node for node in nodes if isinstance(node, d20.diceast.Dice)]
    for die in dice:
        if die.num > MAX_DICE:
            raise RulesError(f"At most {MAX_DICE} dice per roll (asked for {die.num}).")
        if die.size != "%" and die.size < 1:
            raise RulesError(f"A die needs at least 1 side (got d{die.size}).")
        if die.size != "%" and die.size > MAX_SIDES:
            raise RulesError(f"Dice can have at most {MAX_SIDES} sides (got d{die.size}).")
    for node in nodes:
        if isinstance(node, d20.diceast.OperatedDice):
            _refuse_endless_loops(node)
    asked = sum(die.num for die in dice)
    if asked > MAX_DICE:
        raise RulesError(
            f"That roll needs more than {MAX_DICE} dice (it asks for {asked} before any rerolls "
            "or explosions)."
        )


# ===== Rolling with bounded work =====


class _TooMuchWork(Exception):
    """The set operations of one roll checked more than MAX_DIE_CHECKS dice."""


class _Budget(d20.RollContext):
    """d20's count of dice rolled, plus a count of the dice that set operations check."""

    def __init__(self) -> None:
        self.checks = 0
        super().__init__(max_rolls=MAX_DICE)

    def reset(self) -> None:
        super().reset()
        self.checks = 0

    def count_checks(self, n: int) -> None:
        self.checks += n
        if self.checks > MAX_DIE_CHECKS:
            raise _TooMuchWork


def _weight(value: d20.expression.Number) -> int:
    """How many nodes computing ``value.total`` visits."""
    kind = type(value)  # not isinstance: d20's numbers are ABCs, and that check is slow
    if kind is d20.expression.Die or kind is d20.expression.Literal:
        return 1
    if kind is d20.expression.Dice:
        return 1 + len(value.values)
    return 1 + sum(_weight(child) for child in value.children)


class _Operator(d20.expression.SetOperator):
    """A d20 set operation with d20's results, in one pass over the dice it touches.

    d20 reselects over the whole set after every explosion or reroll round, and before every
    value `k` might drop. During one operation a value only changes by being rerolled, so after
    the first pick only the dice just rolled can newly match a `6`, `<3` or `>4`, and dropping the
    values `k` did not pick never changes what it picks: the same dice and the same draws, in
    linear time. (`h`/`l` on `e` still rank every die each round, counted as such.) One difference:
    d20 rerolls the picked dice in the order of a Python set, which follows memory addresses; this
    rerolls them in roll order, so a seed always gives the same result.
    """

    __slots__ = ("_budget", "_selection")

    def __init__(self, op: str, sels: list[d20.expression.SetSelector], budget: _Budget) -> None:
        super().__init__(op, sels)
        self._budget = budget
        self._selection = _Selection.of(sels)

    def operate(self, target: d20.expression.Number) -> None:
        kept = target.keptset
        if isinstance(target, d20.expression.Dice):
            weight = len(kept)
        else:
            weight = sum(_weight(value) for value in kept)
        if self.op == "ra":  # d20's own select, once per selector
            weight *= len(self.sels)
        self._budget.count_checks(max(weight, 1))
        super().operate(target)

    def _picked(self, kept: list[d20.expression.Number]) -> list[int]:
        """Positions in ``kept`` of the values d20's select picks, in order."""
        totals = [value.total for value in kept]
        selection = self._selection
        picked: set[int] = set()
        if selection.by_value:
            picked.update(i for i, total in enumerate(totals) if selection.matches(total))
        # d20 sorts stably by total, reversed for `h`: ties keep the earlier value.
        if selection.highest:
            ranked = sorted(range(len(totals)), key=totals.__getitem__, reverse=True)
            picked.update(ranked[: selection.highest])
        if selection.lowest:
            ranked = sorted(range(len(totals)), key=totals.__getitem__)
            picked.update(ranked[: selection.lowest])
        return sorted(picked)

    def select(
        self, target: d20.expression.Number, max_targets: int | None = None
    ) -> set[d20.expression.Number]:
        if max_targets is not None:
            return super().select(target, max_targets)
        kept = target.keptset
        return {kept[i] for i in self._picked(kept)}

    def keep(self, target: d20.expression.Number) -> None:
        # d20 picks again before each value it might drop; the answer never changes, so pick once.
        kept = target.keptset
        picked = set(self._picked(kept))
        for i, value in enumerate(kept):
            if i not in picked:
                value.drop()

    def reroll_once(self, target: d20.expression.Dice) -> None:
        kept = target.keptset
        for i in self._picked(kept):
            kept[i].reroll()

    def reroll(self, target: d20.expression.Dice) -> None:
        kept = target.keptset
        dice = [kept[i] for i in self._picked(kept)]
        while dice:
            for die in dice:
                die.reroll()
            if self._selection.by_rank:
                # Picks a die every round: refused before rolling unless no die is kept.
                self._budget.count_checks(len(kept))
                dice = [kept[i] for i in self._picked(kept)]
            else:
                self._budget.count_checks(len(dice))
                dice = [die for die in dice if self._selection.matches(die.total)]

    def explode(self, target: d20.expression.Dice) -> None:
        kept = target.keptset
        dice = [kept[i] for i in self._picked(kept)]
        exploded: set[d20.expression.Number] = set()
        while dice:
            first_new = len(target.values)
            for die in dice:
                die.explode()
                target.roll_another()
            if self._selection.by_rank:
                # A new die can push an older one out of the highest/lowest: rank them all.
                exploded.update(dice)
                kept = target.keptset
                self._budget.count_checks(len(kept))
                dice = [kept[i] for i in self._picked(kept) if kept[i] not in exploded]
            else:
                new = target.values[first_new:]
                self._budget.count_checks(len(new))
                dice = [die for die in new if self._selection.matches(die.total)]


class _Roller(d20.Roller):
    """d20's roller with ``_Operator`` for the set operations."""

    context: _Budget

    def _eval_dice(self, node: d20.diceast.Dice) -> d20.expression.Dice:
        source = d20.expression.random
        if not isinstance(source, _RandrangeFromGenerator):
            return super()._eval_dice(node)
        # d20's Dice.new, with the faces drawn at once; the sides were checked before rolling.
        self.context.count_roll(node.num)
        dice = [
            d20.expression.Die(node.size, [d20.expression.Literal(face)], context=self.context)
            for face in source.faces(node.num, node.size)
        ]
        return d20.expression.Dice(node.num, node.size, dice, context=self.context)

    def _eval_operatedset(self, node: d20.diceast.OperatedSet) -> d20.expression.Number:
        target = self._eval(node.value)
        for op in node.operations:
            sels = [d20.expression.SetSelector.from_ast(sel) for sel in op.sels]
            the_op = _Operator(op.op, sels, self.context)
            the_op.operate(target)
            target.operations.append(the_op)
        return target


_roller = _Roller(_Budget())


class _Breakdown(d20.MarkdownStringifier):
    """d20's Markdown without its total, where bold means what it means across the bot: kept.

    In a term that dropped dice (`4d6kh3`) the kept dice are bold and the dropped struck
    through; a term that keeps everything shows plain faces. d20's own bolding of each die's
    highest and lowest face is left out, so no die is ever bold and struck through at once.
    """

    def _str_expression(self, node: d20.expression.Expression) -> str:
        return self._stringify(node.roll)

    def _str_dice(self, node: d20.expression.Dice) -> str:
        dropped_any = any(not die.kept for die in node.values)
        faces = []
        for die in node.values:
            face = self._stringify(die)
            faces.append(f"**{face}**" if dropped_any and die.kept else face)
        return f"{node.num}d{node.size}{self._str_ops(node.operations)} ({', '.join(faces)})"

    def _str_die(self, node: d20.expression.Die) -> str:
        return ", ".join(self._stringify(value) for value in node.values)


_BREAKDOWN = _Breakdown()


# What players type (Dice Maiden's spelling) that d20 would read otherwise: keep or drop without
# a direction means the highest kept, the lowest dropped; `d` after a die drops.
_KEEP_COUNT = re.compile(r"k(\d)", re.IGNORECASE)  # k3 → kh3 (d20: "keep the 3s")
_DROP_COUNT = re.compile(r"p(\d)", re.IGNORECASE)  # p1 → pl1 (d20: "drop the 1s")
_DROP_AFTER_DIE = re.compile(r"(\d*d(?:\d+|%))d([hl]?)(\d+)", re.IGNORECASE)  # 4d6d1 → 4d6pl1


def players_spelling(text: str) -> str:
    """Return ``text`` with the keep/drop spellings players use turned into d20's.

    Nothing is silently misread: `4d6k3` keeps the highest 3 (d20 alone would keep the 3s),
    `4d6p1` and `4d6d1` drop the lowest 1, `4d6dh1` the highest 1.
    """
    text = _DROP_AFTER_DIE.sub(lambda m: f"{m[1]}p{(m[2] or 'l').lower()}{m[3]}", text)
    text = _KEEP_COUNT.sub(r"kh\1", text)
    return _DROP_COUNT.sub(r"pl\1", text)


def _refuse_negative_dice(node: d20.diceast.Node) -> None:
    """Refuse a minus in front of dice (`-d20`): the total would be negative, never what a
    player means; naming the spelling that works."""
    if isinstance(node, d20.diceast.UnOp) and node.op == "-" and _holds_dice(node.value):
        raise RulesError(
            f"A minus in front of dice makes the total negative (`{node}`). Roll the dice "
            "without it (`1d20`), or subtract them from something (`10-1d4`)."
        )
    for child in node.children:
        _refuse_negative_dice(child)


def _holds_dice(node: d20.diceast.Node) -> bool:
    if isinstance(node, d20.diceast.Dice | d20.diceast.OperatedDice):
        return True
    return any(_holds_dice(child) for child in node.children)


def parse_expression(expression: str) -> d20.diceast.Expression:
    """Parse and check an expression; raise RulesError saying what is wrong and what is allowed."""
    text = players_spelling(expression.strip())
    if not text:
        raise RulesError(f"Give a dice expression, for example {EXAMPLES}.")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise RulesError(
            f"Dice expressions can be at most {MAX_EXPRESSION_LENGTH} characters (got {len(text)})."
        )
    try:
        tree = _roller.parse(text)
    except d20.RollSyntaxError as error:
        got = str(getattr(error.got, "value", error.got))
        if not got:  # the parser reached the end still wanting a number or a die
            problem = "the expression ends too soon (something must follow the last operator)"
        else:
            shown = got if len(got) <= SHOWN_TOKEN_MAX else got[:SHOWN_TOKEN_MAX] + "…"
            problem = f"unexpected `{shown}` at character {error.col}"
        raise RulesError(
            f"Couldn't read `{text}` as dice: {problem}. Examples: {EXAMPLES}."
        ) from None
    _check_limits(tree)
    _refuse_negative_dice(tree)
    return tree


def roll_expression(expression: str, rng: Rng) -> ExpressionRoll:
    """Roll a standard dice expression with dice from ``rng``."""
    return _roll_parsed(expression, parse_expression(expression), rng)


def _roll_parsed(expression: str, tree: d20.diceast.Expression, rng: Rng) -> ExpressionRoll:
    """Roll an expression already parsed and checked by ``parse_expression``."""
    try:
        with _dice_from(rng):
            result = _roller.roll(tree, stringifier=_BREAKDOWN)
        total, breakdown = result.total, result.result  # d20 evaluates these lazily
    except d20.TooManyRolls:
        raise RulesError(
            f"That roll needs more than {MAX_DICE} dice (rerolls and explosions count)."
        ) from None
    except _TooMuchWork:
        raise RulesError(
            f"That roll asks too much of its operations (k, p, rr, ro, ra, e, mi, ma): they may "
            f"check at most {MAX_DIE_CHECKS} dice in all, each operation every die it applies to. "
            "Use fewer dice or fewer operations."
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


# --- Requests: several rolls in one (`;`), roll sets (`6 4d6kh3`), and a comment (`! fireball`)

MAX_EXPRESSIONS_PER_REQUEST = 6  # every set and `;` part counts: keeps a request quick
COMMENT_MAX = 100
_COMMENT = re.compile(r"\s+!(?:\s+(?P<comment>.*))?$|^(?P<lead>)!\s+(?P<only>.*)$", re.DOTALL)
# "6 4d6kh3": a count, a space, then dice (so "2 + 3" stays arithmetic).
_SETS = re.compile(r"(?P<sets>\d{1,2})\s+(?P<expression>\d*d.*)", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RollRequest:
    """What `/roll` was asked: each part's expression and how many sets, and a comment."""

    parts: tuple[tuple[int, str], ...]  # (sets, expression)
    comment: str | None = None

    @property
    def single(self) -> bool:
        """Whether this is one plain expression (shown as before)."""
        return len(self.parts) == 1 and self.parts[0][0] == 1 and self.comment is None


@dataclass(frozen=True, slots=True)
class RequestRoll:
    """Every roll of a request, part by part (a part's sets in order), and the comment."""

    request: RollRequest
    rolls: tuple[tuple[ExpressionRoll, ...], ...]


def parse_request(text: str) -> RollRequest:
    """Split a `/roll` request into parts, sets and a comment, checking every expression."""
    return _parsed_request(text)[0]


def _parsed_request(text: str) -> tuple[RollRequest, list[d20.diceast.Expression]]:
    """``parse_request``, and each part's parsed expression (so nothing is parsed twice)."""
    text = text.strip()
    comment = None
    found = _COMMENT.search(text)
    if found is not None:
        comment = (found["comment"] or "").strip() or None
        text = text[: found.start()].strip()
        if comment is not None and len(comment) > COMMENT_MAX:
            raise RulesError(f"A comment is at most {COMMENT_MAX} characters.")
    if not text:
        raise RulesError("Give dice before the comment, like `1d20+5 ! fireball`.")
    pieces = [piece.strip() for piece in text.split(";")]
    if any(not piece for piece in pieces):
        raise RulesError("Each `;` separates two rolls: none of them may be empty.")
    parts: list[tuple[int, str]] = []
    trees: list[d20.diceast.Expression] = []
    for piece in pieces:
        sets_match = _SETS.fullmatch(piece)
        sets, expression = (
            (int(sets_match["sets"]), sets_match["expression"].strip())
            if sets_match
            else (1, piece)
        )
        if sets < 1:
            raise RulesError("A roll set needs at least 1 set, like `6 4d6kh3`.")
        trees.append(parse_expression(expression))
        parts.append((sets, expression))
    if sum(sets for sets, _ in parts) > MAX_EXPRESSIONS_PER_REQUEST:
        raise RulesError(
            f"One `/roll` rolls at most {MAX_EXPRESSIONS_PER_REQUEST} expressions in all "
            "(sets and `;` parts count), like `6 4d6kh3` or `1d20+5; 2d6+3`."
        )
    return RollRequest(tuple(parts), comment), trees


def roll_request(text: str, rng: Rng) -> RequestRoll:
    """Roll every part and set of a request."""
    request, trees = _parsed_request(text)
    rolls = tuple(
        tuple(_roll_parsed(expression, tree, rng) for _ in range(sets))
        for (sets, expression), tree in zip(request.parts, trees, strict=True)
    )
    return RequestRoll(request, rolls)
