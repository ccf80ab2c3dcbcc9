"""The limits, and the checked terms an expression is made of."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

MAX_EXPRESSION_LENGTH = 200
# Dice drawn by one `/roll` request, rerolls and explosions included; the dice its terms ask for
# are also added up and refused before anything is rolled. 1000 dice roll and render in ~1 ms.
MAX_DICE = 1000
MAX_SIDES = 10_000
MAX_REPEATS = 100  # explosions, or rerolls, of one die
MAX_PARTS = 4  # `;`-separated rolls in one request
MAX_SETS = 20  # `20 4d6kh3`
MAX_SET_ITEMS = 20  # d20's set `(1d4, 2+2, 3d6kl1)`
EXAMPLES = "`4d6kh3+2`, `2d20kl1`, `8d6 e6`, `6d10 t7`"
SHOWN_TOKEN_MAX = 20  # how much of an unreadable part a syntax error repeats back
# What each comparison means: a roll's `>= 15` after its dice, and d20's `(2 == 2)` in brackets
# (1 or 0). `=` and `==` are both equality; `!=` is d20's "not equal".
COMPARED: dict[str, Callable[[int, int], bool]] = {
    "=": operator.eq,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
    "<=": operator.le,
    ">=": operator.ge,
}


class Natural(Enum):
    """A natural 20 or natural 1 on an expression whose first dice term keeps one d20."""

    NONE = "none"
    TWENTY = "natural 20"
    ONE = "natural 1"


# ===== The terms of an expression =====


_FATE_FACES = {-1: "-", 0: "0", 1: "+"}


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
        if self.name == "F" and face in _FATE_FACES:
            return _FATE_FACES[face]
        return str(face)  # a number face, or a value `mi`/`ma` forced past a Fate die's faces


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


class ModifierFamily(Enum):
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
    """A reroll or explosion: the faces it picks, and whether the new die can be picked again.

    d20's `rol1` rerolls the lowest die once (``rank``: the dice it picks by rank instead of by
    face), and `ra1` / `ral1` reroll-and-add: one picked die at most gets a new die beside it
    (``add``; docs/players/dice.md, "Dice notation")."""

    faces: Faces
    again: bool
    rank: Keep | None = None
    add: bool = False

    def spelled(self, letters: str) -> str:
        if self.rank is not None:
            letters = "ro" if letters == "r" else letters
            return f"{letters}{'h' if self.rank.highest else 'l'}{self.rank.count}"
        return f"{letters}{self.faces.spelled(letters.endswith('e'))}"


@dataclass(frozen=True, slots=True)
class Keep:
    """Keep the ``count`` highest (or lowest) dice, or drop them."""

    count: int
    highest: bool
    drop: bool

    def spelled(self) -> str:
        return f"{'d' if self.drop else 'k'}{'h' if self.highest else 'l'}{self.count}"


@dataclass(frozen=True, slots=True)
class Pick:
    """What one keep or drop selector picks: the ``rank`` highest or lowest, or the faces."""

    rank: Keep | None
    faces: Faces | None = None

    def select(self, values: list[tuple[int, int]]) -> set[int]:
        """The indexes picked among ``values`` (index, value), the kept ones."""
        if self.rank is not None:
            ranked = sorted(values, key=lambda item: item[1], reverse=self.rank.highest)
            return {index for index, _ in ranked[: self.rank.count]}
        assert self.faces is not None
        return {index for index, value in values if value in self.faces}

    def spelled(self) -> str:
        if self.rank is not None:
            return f"{'h' if self.rank.highest else 'l'}{self.rank.count}"
        assert self.faces is not None
        low, high = self.faces.low, self.faces.high
        if low is not None and high is not None:
            return f"={low}" if low == high else f">={low}<={high}"
        return f">={low}" if low is not None else f"<={high}"


@dataclass(frozen=True, slots=True)
class Selection:
    """d20's keep (`k`) or drop (`p`, our `d`) with one or more selectors: `kh1kl1` keeps the
    union of what they pick, among the dice (or set items) still kept."""

    drop: bool
    picks: tuple[Pick, ...]

    def spelled(self) -> str:
        return "".join(f"{'d' if self.drop else 'k'}{pick.spelled()}" for pick in self.picks)

    def apply(self, values: list[tuple[int, int]]) -> set[int]:
        """The indexes, among the kept (index, value), that this selection drops."""
        picked: set[int] = set()
        for pick in self.picks:
            picked |= pick.select(values)
        return picked if self.drop else {index for index, _ in values} - picked


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
    # Several selectors, or selectors by face (`k>3`, `10d6kh5kl2kh1`): applied after ``keep``.
    selections: tuple[Selection, ...] = ()
    success: Faces | None = None
    double: Faces | None = None  # a second `t`: these faces count one success more (`t7t10`)
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
            text += self.reroll.spelled("ir" if self.reroll.again else "r")
        if self.explode is not None:
            letters = "ra" if self.explode.add else "ie" if self.explode.again else "e"
            text += self.explode.spelled(letters)
        if self.minimum is not None:
            text += f"mi{self.minimum}"
        if self.maximum is not None:
            text += f"ma{self.maximum}"
        if self.keep is not None:
            text += self.keep.spelled()
        text += "".join(selection.spelled() for selection in self.selections)
        for letter, faces, upward in (
            ("t", self.success, True),
            ("t", self.double, True),
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
    operator: str  # + - * / // %, and d20's == != < > <= >= in parentheses (1 or 0)
    right: Node


@dataclass(frozen=True, slots=True)
class SetNode:
    """d20's set `(1d4, 2+2, 3d6kl1)kh1`: its items, each worth its total, kept or dropped."""

    items: tuple[Node, ...]
    selections: tuple[Selection, ...]


Node = Number | Group | Signed | Binary | DiceTerm | SetNode


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed and checked expression: its tree, and the dice its terms ask for."""

    root: Node
    dice: int

    def spelled(self) -> str:
        """The expression as the roller reads it: `4d6k3` is spelled `4d6kh3`."""
        return spell_node(self.root)


def spell_node(node: Node) -> str:
    match node:
        case Number(value=value):
            return str(value)
        case DiceTerm():
            return node.spelled()
        case Group(inner=inner):
            return f"({spell_node(inner)})"
        case Signed(minus=minus, operand=operand):
            return f"{'-' if minus else '+'}{spell_node(operand)}"
        case Binary(left=left, operator=operator, right=right):
            return f"{spell_node(left)}{operator}{spell_node(right)}"
        case SetNode(items=items, selections=selections):
            inside = ", ".join(spell_node(item) for item in items)
            return f"({inside}{',' if len(items) == 1 else ''})" + "".join(
                selection.spelled() for selection in selections
            )
    raise AssertionError(node)
