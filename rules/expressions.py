"""Dice notation for `/roll`, as players type it, with the limits a public bot needs.

The grammar is ``notation.lark`` (read by lark's LALR parser); this module turns its tree into
checked terms, rolls them with an injected random source and shows every die. It replaces avrae's
d20, whose spelling disagreed with the players' (`4d6k3` kept the 3s, `e6` exploded without end,
`d%` was a tens die) and whose set operations could hold the event loop for a quarter second.

What each dice modifier does, applied in this order whatever order it is typed in (the breakdown
spells the term in that order):

1. reroll: `r2` / `ro2` once, `ir2` / `rr2` until it shows something else (at most
   ``MAX_REPEATS`` times a die); the number is the highest face rerolled, `r<3` and `r=2` work too;
2. explode: `e` / `e6` once, `ie` / `ie6` / `!` again and again (at most ``MAX_REPEATS`` times a
   die); the number is the lowest face that explodes (`e` alone: the die's highest);
3. `mi2` / `ma5`: every die counts at least 2 / at most 5;
4. keep or drop: `k3` / `kh3` keep the highest 3, `kl1` the lowest 1, `d1` / `dl1` drop the lowest
   1, `dh1` the highest 1 (`p`, `pl`, `ph`: d20's spelling of drop);
5. count: `t7` counts each die of 7 or more as a success, `f1` takes one away for each 1 or less,
   `b1` (or `b`) counts botches of 1 or less beside the result. The term is then worth its
   successes instead of its sum.

Dice are `NdS` (1 ≤ S ≤ ``MAX_SIDES``), `d%` (d100) and `dF` (Fudge: −1, 0, +1). Every roll
draws at most ``MAX_DICE`` dice, rerolls and explosions included, so its work is bounded.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import lark

from rules.errors import RulesError
from rules.randomness import Rng

__all__ = [
    "MAX_DICE",
    "MAX_EXPRESSION_LENGTH",
    "MAX_PARTS",
    "MAX_REPEATS",
    "MAX_SETS",
    "MAX_SIDES",
    "DiceTerm",
    "Expression",
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
# Dice drawn by one `/roll` request, rerolls and explosions included; the dice its terms ask for
# are also added up and refused before anything is rolled. 1000 dice roll and render in ~1 ms.
MAX_DICE = 1000
MAX_SIDES = 10_000
MAX_REPEATS = 100  # explosions, or rerolls, of one die
MAX_PARTS = 4  # `;`-separated rolls in one request
MAX_SETS = 20  # `20 4d6kh3`
EXAMPLES = "`4d6kh3+2`, `2d20kl1`, `8d6 e6`, `6d10 t7`"
SHOWN_TOKEN_MAX = 20  # how much of an unreadable part a syntax error repeats back


class Natural(Enum):
    """A natural 20 or natural 1 on an expression whose first dice term keeps one d20."""

    NONE = "none"
    TWENTY = "natural 20"
    ONE = "natural 1"


# ===== The terms of an expression =====


@dataclass(frozen=True, slots=True)
class Die:
    """One kind of die: the faces low..high and how the notation names it."""

    low: int
    high: int
    name: str  # "6", "%", "F"

    @property
    def size(self) -> int:
        return self.high - self.low + 1

    def show(self, face: int) -> str:
        if self.name == "F":
            return {-1: "-", 0: "0", 1: "+"}[face]
        return str(face)


@dataclass(frozen=True, slots=True)
class Faces:
    """The face values a modifier picks: low..high, either end open."""

    low: int | None
    high: int | None

    def __contains__(self, face: int) -> bool:
        return (self.low is None or face >= self.low) and (self.high is None or face <= self.high)

    def cover(self, die: Die) -> bool:
        """Whether every face of ``die`` is picked."""
        return die.low in self and die.high in self

    def spelled(self, upward: bool) -> str:
        """`6` for "6 or more" when the modifier counts upward (`e`, `t`), else `>=6`."""
        if self.low is not None and self.high is not None:
            return f"={self.low}" if self.low == self.high else f">={self.low}<={self.high}"
        if self.low is not None:
            return str(self.low) if upward else f">={self.low}"
        return f"<={self.high}" if upward else str(self.high)


class _Family(Enum):
    """The kinds of modifier: a term takes at most one of each."""

    REROLL = "reroll"
    EXPLODE = "explode"
    MINIMUM = "minimum (`mi`)"
    MAXIMUM = "maximum (`ma`)"
    KEEP = "keep or drop"
    SUCCESS = "success (`t`)"
    FAILURE = "failure (`f`)"
    BOTCH = "botch (`b`)"


@dataclass(frozen=True, slots=True)
class Repeat:
    """A reroll or explosion: the faces it picks, and whether the new die can be picked again."""

    faces: Faces
    again: bool


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the ``count`` highest (or lowest) dice, or drop them."""

    count: int
    highest: bool
    drop: bool

    def spelled(self) -> str:
        return f"{'d' if self.drop else 'k'}{'h' if self.highest else 'l'}{self.count}"


@dataclass(frozen=True, slots=True)
class DiceTerm:
    """`NdS` and its modifiers, checked."""

    count: int
    die: Die
    reroll: Repeat | None = None
    explode: Repeat | None = None
    minimum: int | None = None
    maximum: int | None = None
    keep: Keep | None = None
    success: Faces | None = None
    failure: Faces | None = None
    botch: Faces | None = None

    @property
    def counts(self) -> bool:
        """Whether the term is worth its successes rather than its sum."""
        return self.success is not None or self.failure is not None

    def spelled(self) -> str:
        """The term in the order its modifiers apply: `10d10ir1e10kh3t7`."""
        text = f"{self.count}d{self.die.name}"
        if self.reroll is not None:
            text += f"{'ir' if self.reroll.again else 'r'}{self.reroll.faces.spelled(False)}"
        if self.explode is not None:
            text += f"{'ie' if self.explode.again else 'e'}{self.explode.faces.spelled(True)}"
        if self.minimum is not None:
            text += f"mi{self.minimum}"
        if self.maximum is not None:
            text += f"ma{self.maximum}"
        if self.keep is not None:
            text += self.keep.spelled()
        for letter, faces, upward in (
            ("t", self.success, True),
            ("f", self.failure, False),
            ("b", self.botch, False),
        ):
            if faces is not None:
                text += f"{letter}{faces.spelled(upward)}"
        return text


@dataclass(frozen=True, slots=True)
class Number:
    value: int


@dataclass(frozen=True, slots=True)
class Group:
    inner: Node


@dataclass(frozen=True, slots=True)
class Signed:
    minus: bool
    operand: Node


@dataclass(frozen=True, slots=True)
class Binary:
    left: Node
    operator: str  # + - * / //
    right: Node


Node = Number | Group | Signed | Binary | DiceTerm


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed and checked expression: its tree, and the dice its terms ask for."""

    root: Node
    dice: int

    def spelled(self) -> str:
        """The expression as the roller reads it: `4d6k3` is spelled `4d6kh3`."""
        return _spell(self.root)


# ===== From the grammar's tree to checked terms =====

# What each spelling means: its family, and what it is.
_KEEPS = {
    "k": Keep(0, highest=True, drop=False),
    "kh": Keep(0, highest=True, drop=False),
    "kl": Keep(0, highest=False, drop=False),
    "d": Keep(0, highest=False, drop=True),
    "dl": Keep(0, highest=False, drop=True),
    "p": Keep(0, highest=False, drop=True),
    "pl": Keep(0, highest=False, drop=True),
    "dh": Keep(0, highest=True, drop=True),
    "ph": Keep(0, highest=True, drop=True),
}
_REPEATS = {  # spelling: (family, again)
    "r": (_Family.REROLL, False),
    "ro": (_Family.REROLL, False),
    "ir": (_Family.REROLL, True),
    "rr": (_Family.REROLL, True),
    "e": (_Family.EXPLODE, False),
    "ie": (_Family.EXPLODE, True),
    "!": (_Family.EXPLODE, True),
}
_COUNTS = {"t": _Family.SUCCESS, "f": _Family.FAILURE, "b": _Family.BOTCH}


def _faces(compare: str | None, number: int, *, upward: bool) -> Faces:
    """The faces `<3`, `>=5`, `=2` pick; a bare number means `>=` upward, else `<=`."""
    compare = compare or (">=" if upward else "<=")
    return {
        "<": Faces(None, number - 1),
        "<=": Faces(None, number),
        ">": Faces(number + 1, None),
        ">=": Faces(number, None),
        "=": Faces(number, number),
    }[compare]


def _modify(
    fields: dict[str, object],
    typed: str,
    compare: str | None,
    number: int | None,
    die: Die,
    seen: dict[_Family, str],
) -> None:
    """Add one typed modifier to a term's fields, refusing what can't be meant."""
    spelling = typed.lower()
    shown = f"`{typed}{compare or ''}{'' if number is None else number}`"
    if spelling in _KEEPS:
        family = _Family.KEEP
        if compare is not None or number is None:
            raise RulesError(
                f"{shown}: keep and drop take a count, like `4d6k3` (keep the highest 3) or "
                "`4d6d1` (drop the lowest 1)."
            )
        rule = _KEEPS[spelling]
        value: object = Keep(number, rule.highest, rule.drop)
        name = "keep"
    elif spelling in ("mi", "ma"):
        family = _Family.MINIMUM if spelling == "mi" else _Family.MAXIMUM
        if compare is not None or number is None:
            raise RulesError(f"{shown}: `{spelling}` takes a number, like `4d6mi2`.")
        value, name = number, "minimum" if spelling == "mi" else "maximum"
    elif spelling in _REPEATS:
        family, again = _REPEATS[spelling]
        upward = family is _Family.EXPLODE
        default = die.high if upward else die.low
        faces = _faces(compare, default if number is None else number, upward=upward)
        value, name = Repeat(faces, again), "explode" if upward else "reroll"
    else:
        family = _COUNTS[spelling]
        if number is None and family is not _Family.BOTCH:
            example = (
                "`6d10t7` counts each 7 or more"
                if spelling == "t"
                else "`6d10t7f1` takes one away for each 1"
            )
            raise RulesError(f"{shown} needs a number: {example}.")
        upward = family is _Family.SUCCESS
        value = _faces(compare, die.low if number is None else number, upward=upward)
        name = family.name.lower()
    if family in seen:
        raise RulesError(
            f"A dice term takes one {family.value} modifier (got `{seen[family]}` and {shown}). "
            "Use one, like `4d6kh3`."
        )
    seen[family] = shown.strip("`")
    fields[name] = value


def _dice_term(
    count: int | None, sides: str, modifiers: list[tuple[str, str | None, int | None]]
) -> DiceTerm:
    count = 1 if count is None else count
    if count > MAX_DICE:
        raise RulesError(f"At most {MAX_DICE} dice per roll (asked for {count}).")
    if sides == "%":
        die = Die(1, 100, "%")
    elif sides.lower() == "f":
        die = Die(-1, 1, "F")
    else:
        size = int(sides)
        if size < 1:
            raise RulesError(f"A die needs at least 1 side (got d{size}).")
        if size > MAX_SIDES:
            raise RulesError(f"Dice can have at most {MAX_SIDES} sides (got d{size}).")
        die = Die(1, size, str(size))
    fields: dict[str, object] = {}
    seen: dict[_Family, str] = {}
    for typed, compare, number in modifiers:
        _modify(fields, typed, compare, number, die, seen)
    term = DiceTerm(count, die, **fields)  # type: ignore[arg-type]
    for repeat, verb, example in (
        (term.reroll, "reroll", "10d10ir1"),
        (term.explode, "explode", "1d6ie6"),
    ):
        if repeat is not None and repeat.again and repeat.faces.cover(die):
            raise RulesError(
                f"`{term.spelled()}` would {verb} forever: it {verb}s every face of a "
                f"d{die.name}. {verb.capitalize()} on fewer faces, e.g. `{example}`."
            )
    return term


def _holds_dice(node: Node) -> bool:
    stack = [node]
    while stack:
        node = stack.pop()
        match node:
            case DiceTerm():
                return True
            case Group(inner=inner) | Signed(operand=inner):
                stack.append(inner)
            case Binary(left=left, right=right):
                stack += (left, right)
    return False


class _Build(lark.Transformer):  # type: ignore[type-arg]
    """The grammar's rules to nodes, checked as they are built.

    The LALR parser calls these as it reduces, so a RulesError raised here reaches the caller as
    it is, and no tree is built only to be walked again.
    """

    def number(self, children: list[lark.Token]) -> Number:
        return Number(int(children[0]))

    def group(self, children: list[Node]) -> Group:
        return Group(children[0])

    def signed(self, children: list[lark.Token | Node]) -> Signed:
        sign, operand = children
        assert isinstance(operand, Number | Group | Signed | Binary | DiceTerm)
        if sign == "-" and _holds_dice(operand):
            raise RulesError(
                f"A minus in front of dice makes the total negative (`-{_spell(operand)}`). "
                "Roll the dice without it (`1d20`), or subtract them from something (`10-1d4`)."
            )
        return Signed(sign == "-", operand)

    def binary(self, children: list[lark.Token | Node]) -> Binary:
        left, operator, right = children
        return Binary(left, str(operator), right)  # type: ignore[arg-type]

    def sides(self, children: list[lark.Token]) -> str:
        return str(children[0])

    def modifier(self, children: list[lark.Token | None]) -> tuple[str, str | None, int | None]:
        typed, compare, number = children
        return (
            str(typed),
            None if compare is None else str(compare),
            None if number is None else int(number),
        )

    def dice(self, children: list[object]) -> DiceTerm:
        count, _die, sides, *modifiers = children
        return _dice_term(
            None if count is None else int(str(count)),
            str(sides),
            modifiers,  # type: ignore[arg-type]
        )


_PARSER = lark.Lark(
    Path(__file__).with_name("notation.lark").read_text(encoding="utf-8"),
    parser="lalr",
    lexer="contextual",
    maybe_placeholders=True,
    transformer=_Build(),
)


def _terms(node: Node) -> Iterator[DiceTerm]:
    """Every dice term, left to right."""
    stack = [node]
    while stack:
        node = stack.pop()
        match node:
            case DiceTerm():
                yield node
            case Group(inner=inner) | Signed(operand=inner):
                stack.append(inner)
            case Binary(left=left, right=right):
                stack += (right, left)


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Expression:
    """Parse ``text`` (cached: a table rolls the same few expressions all evening)."""
    try:
        root = _PARSER.parse(text)
    except lark.exceptions.UnexpectedInput as error:
        raise RulesError(
            f"Couldn't read `{text}` as dice: {_problem(error)}. Examples: {EXAMPLES}."
        ) from None
    assert isinstance(root, Number | Group | Signed | Binary | DiceTerm)
    return Expression(root, sum(term.count for term in _terms(root)))


def _problem(error: lark.exceptions.UnexpectedInput) -> str:
    token = getattr(error, "token", None)
    if isinstance(error, lark.exceptions.UnexpectedEOF) or (
        token is not None and token.type == "$END"
    ):
        return "the expression ends too soon (something must follow the last operator)"
    got = str(token) if token is not None else str(getattr(error, "char", ""))
    shown = got if len(got) <= SHOWN_TOKEN_MAX else got[:SHOWN_TOKEN_MAX] + "…"
    return f"unexpected `{shown}` at character {error.column}"


def parse_expression(expression: str) -> Expression:
    """Parse and check an expression; raise RulesError saying what is wrong and what is allowed."""
    text = expression.strip()
    if not text:
        raise RulesError(f"Give a dice expression, for example {EXAMPLES}.")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise RulesError(
            f"Dice expressions can be at most {MAX_EXPRESSION_LENGTH} characters (got {len(text)})."
        )
    parsed = _parse(text)
    _check_dice_asked(parsed.dice)
    return parsed


def _check_dice_asked(asked: int) -> None:
    if asked > MAX_DICE:
        raise RulesError(
            f"That roll needs more than {MAX_DICE} dice (it asks for {asked} before any rerolls "
            "or explosions)."
        )


# ===== Rolling =====


class _Dice:
    """The dice of one request: drawn from ``rng`` in batches, at most MAX_DICE in all."""

    __slots__ = ("_left", "_rng")

    def __init__(self, rng: Rng) -> None:
        self._rng = rng
        self._left = MAX_DICE

    def draw(self, die: Die, count: int) -> list[int]:
        if count == 0:
            return []
        self._left -= count
        if self._left < 0:
            raise RulesError(
                f"That roll needs more than {MAX_DICE} dice (rerolls and explosions count)."
            )
        # numpy draws an array from the same stream as one number at a time, so a seed gives the
        # same faces either way; one call saves ~2 µs a die.
        return (die.low + self._rng.integers(0, die.size, size=count)).tolist()


@dataclass(slots=True)
class _Rolled:
    """One die as it was rolled: every face it showed (rerolls first), and what became of it."""

    faces: list[int]
    value: int = 0  # what it counts for, after `mi` / `ma`
    exploded: bool = False
    kept: bool = True

    @property
    def face(self) -> int:
        return self.faces[-1]


@dataclass(slots=True)
class _Outcome:
    """An evaluated node: its value, its breakdown, and the first d20 kept alone (naturals)."""

    value: int
    text: str
    natural: Natural | None = field(default=None)


def _reroll(dice: list[_Rolled], reroll: Repeat, die: Die, source: _Dice) -> None:
    picked = [rolled for rolled in dice if rolled.face in reroll.faces]
    rounds = MAX_REPEATS if reroll.again else 1
    while picked and rounds:
        for rolled, face in zip(picked, source.draw(die, len(picked)), strict=True):
            rolled.faces.append(face)
        picked = (
            [rolled for rolled in picked if rolled.face in reroll.faces] if reroll.again else []
        )
        rounds -= 1


def _explode(dice: list[_Rolled], explode: Repeat, die: Die, source: _Dice) -> None:
    picked = [rolled for rolled in dice if rolled.face in explode.faces]
    rounds = MAX_REPEATS if explode.again else 1
    while picked and rounds:
        new = [_Rolled([face]) for face in source.draw(die, len(picked))]
        for rolled in picked:
            rolled.exploded = True
        dice.extend(new)
        picked = [rolled for rolled in new if rolled.face in explode.faces] if explode.again else []
        rounds -= 1


def _roll_term(term: DiceTerm, source: _Dice) -> _Outcome:
    die = term.die
    dice = [_Rolled([face]) for face in source.draw(die, term.count)]
    if term.reroll is not None:
        _reroll(dice, term.reroll, die, source)
    if term.explode is not None:
        _explode(dice, term.explode, die, source)
    for rolled in dice:
        value = rolled.face
        if term.minimum is not None:
            value = max(value, term.minimum)
        if term.maximum is not None:
            value = min(value, term.maximum)
        rolled.value = value
    if term.keep is not None:
        keep = term.keep
        # Sorting is stable, so among equal dice the earlier one is picked first.
        ranked = sorted(dice, key=lambda rolled: rolled.value, reverse=keep.highest)
        picked = ranked[: keep.count]
        dropped = picked if keep.drop else ranked[keep.count :]
        for rolled in dropped:
            rolled.kept = False
    kept = [rolled for rolled in dice if rolled.kept]
    summary = ""
    if term.counts or term.botch is not None:
        successes = sum(rolled.value in term.success for rolled in kept) if term.success else 0
        failures = sum(rolled.value in term.failure for rolled in kept) if term.failure else 0
        value = successes - failures if term.counts else sum(rolled.value for rolled in kept)
        notes = []
        if term.counts:
            notes.append(f"{value} success{'' if value == 1 else 'es'}")
        if term.botch is not None:
            botches = sum(rolled.value in term.botch for rolled in kept)
            notes.append(f"{botches} botch{'' if botches == 1 else 'es'}")
        summary = ": " + ", ".join(notes)
    else:
        value = sum(rolled.value for rolled in kept)
    natural = None
    if die.name == "20" and not term.counts:
        natural = Natural.NONE
        if len(kept) == 1:
            natural = {20: Natural.TWENTY, 1: Natural.ONE}.get(kept[0].value, Natural.NONE)
    dropped_any = len(kept) < len(dice)
    faces = ", ".join(_show(rolled, term, dropped_any) for rolled in dice)
    return _Outcome(value, f"{term.spelled()} ({faces}{summary})", natural)


def _show(rolled: _Rolled, term: DiceTerm, dropped_any: bool) -> str:
    """One die: ~~rerolled~~ faces first, `!` when it exploded; **bold** kept (where some were
    dropped) or a success, __underlined__ a failure, ~~struck~~ dropped."""
    die = term.die
    shown = [f"~~{die.show(face)}~~" for face in rolled.faces[:-1]]
    current = die.show(rolled.face)
    if rolled.value != rolled.face:  # forced by mi / ma
        shown.append(f"~~{current}~~")
        current = die.show(rolled.value)
    if rolled.exploded:
        current += "!"
    if not rolled.kept:
        current = f"~~{current}~~"
    elif term.counts:
        if term.success is not None and rolled.value in term.success:
            current = f"**{current}**"
        elif term.failure is not None and rolled.value in term.failure:
            current = f"__{current}__"
    elif dropped_any:
        current = f"**{current}**"
    return " ".join([*shown, current])


def _evaluate(node: Node, source: _Dice) -> _Outcome:
    match node:
        case Number(value=value):
            return _Outcome(value, str(value))
        case DiceTerm():
            return _roll_term(node, source)
        case Group(inner=inner):
            inside = _evaluate(inner, source)
            return _Outcome(inside.value, f"({inside.text})", inside.natural)
        case Signed(minus=minus, operand=operand):
            inside = _evaluate(operand, source)
            return _Outcome(
                -inside.value if minus else inside.value,
                f"{'-' if minus else '+'}{inside.text}",
                inside.natural,
            )
        case Binary(left=left, operator=operator, right=right):
            a, b = _evaluate(left, source), _evaluate(right, source)
            if operator == "+":
                value = a.value + b.value
            elif operator == "-":
                value = a.value - b.value
            elif operator == "*":
                value = a.value * b.value
            elif b.value == 0:
                raise RulesError(f"Can't divide by zero (`{a.text} {operator} {b.text}`).")
            else:  # `/` and `//` both round down, as halving damage does
                value = a.value // b.value
            natural = a.natural if a.natural is not None else b.natural
            return _Outcome(value, f"{a.text} {operator} {b.text}", natural)
    raise AssertionError(node)


def _spell(node: Node) -> str:
    match node:
        case Number(value=value):
            return str(value)
        case DiceTerm():
            return node.spelled()
        case Group(inner=inner):
            return f"({_spell(inner)})"
        case Signed(minus=minus, operand=operand):
            return f"{'-' if minus else '+'}{_spell(operand)}"
        case Binary(left=left, operator=operator, right=right):
            return f"{_spell(left)}{operator}{_spell(right)}"
    raise AssertionError(node)


@dataclass(frozen=True, slots=True)
class ExpressionRoll:
    """One evaluated expression: every die is in the breakdown, struck-through when dropped."""

    expression: str
    total: int
    # Markdown, e.g. "4d6kh3 (**6**, ~~1~~, **4**, **5**) + 2": bold kept, struck dropped
    breakdown: str
    natural: Natural


def roll_expression(expression: str, rng: Rng) -> ExpressionRoll:
    """Roll a dice expression with dice from ``rng``."""
    return _roll_parsed(expression, parse_expression(expression), _Dice(rng))


def _roll_parsed(expression: str, parsed: Expression, source: _Dice) -> ExpressionRoll:
    outcome = _evaluate(parsed.root, source)
    return ExpressionRoll(
        expression=expression.strip(),
        total=outcome.value,
        breakdown=outcome.text,
        natural=outcome.natural or Natural.NONE,
    )


# ===== Requests: several rolls in one (`;`), roll sets (`6 4d6kh3`), and a comment (`! fireball`)

COMMENT_MAX = 100
# A comment is a `!` with a space before it (`4d6!` explodes); as the first thing, `! text`.
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


def _parsed_request(text: str) -> tuple[RollRequest, list[Expression]]:
    """``parse_request``, and each part's parsed expression (so nothing is parsed twice)."""
    text = text.strip()
    comment = None
    found = _COMMENT.search(text)
    if found is not None:
        comment = (found["comment"] or found["only"] or "").strip() or None
        text = text[: found.start()].strip()
        if comment is not None and len(comment) > COMMENT_MAX:
            raise RulesError(f"A comment is at most {COMMENT_MAX} characters.")
    if not text:
        raise RulesError("Give dice before the comment, like `1d20+5 ! fireball`.")
    pieces = [piece.strip() for piece in text.split(";")]
    if any(not piece for piece in pieces):
        raise RulesError("Each `;` separates two rolls: none of them may be empty.")
    if len(pieces) > MAX_PARTS:
        raise RulesError(
            f"One `/roll` holds at most {MAX_PARTS} rolls separated by `;` (got {len(pieces)})."
        )
    parts: list[tuple[int, str]] = []
    parsed: list[Expression] = []
    for piece in pieces:
        sets_match = _SETS.fullmatch(piece)
        sets, expression = (
            (int(sets_match["sets"]), sets_match["expression"].strip())
            if sets_match
            else (1, piece)
        )
        if not 1 <= sets <= MAX_SETS:
            raise RulesError(f"A roll set has 1 to {MAX_SETS} sets, like `6 4d6kh3` (got {sets}).")
        parsed.append(parse_expression(expression))
        parts.append((sets, expression))
    _check_dice_asked(sum(sets * each.dice for (sets, _), each in zip(parts, parsed, strict=True)))
    return RollRequest(tuple(parts), comment), parsed


def roll_request(text: str, rng: Rng) -> RequestRoll:
    """Roll every part and set of a request; all of them together draw at most MAX_DICE dice."""
    request, parsed = _parsed_request(text)
    source = _Dice(rng)
    rolls = tuple(
        tuple(_roll_parsed(expression, each, source) for _ in range(sets))
        for (sets, expression), each in zip(request.parts, parsed, strict=True)
    )
    return RequestRoll(request, rolls)
