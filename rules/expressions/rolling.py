"""Rolling checked terms: every die drawn, kept or dropped, and shown."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from rules.errors import RulesError
from rules.expressions.parser import parse_expression
from rules.expressions.terms import (
    COMPARED,
    MAX_DICE,
    MAX_REPEATS,
    Binary,
    DiceTerm,
    Die,
    Expression,
    Group,
    Natural,
    Node,
    Number,
    Repeat,
    Selection,
    SetNode,
    Signed,
)
from rules.randomness import Rng

# ===== Rolling =====


class DiceSource:
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
        # same faces either way; one call saves ~2 µs a die. Shifted to low..high in Python: a
        # second numpy array costs more than the few dice of a usual roll.
        faces: list[int] = self._rng.integers(0, die.size, size=count).tolist()
        low = die.low
        return [low + face for face in faces] if low else faces


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


def _picked(dice: list[_Rolled], repeat: Repeat) -> list[_Rolled]:
    """The dice a reroll or explosion picks: by face, or d20's `rol1` by rank."""
    if repeat.rank is None:
        return [rolled for rolled in dice if rolled.face in repeat.faces]
    ranked = sorted(dice, key=lambda rolled: rolled.face, reverse=repeat.rank.highest)
    chosen = {id(rolled) for rolled in ranked[: repeat.rank.count]}
    return [rolled for rolled in dice if id(rolled) in chosen]


def _reroll(dice: list[_Rolled], reroll: Repeat, die: Die, source: DiceSource) -> None:
    picked = _picked(dice, reroll)
    rounds = MAX_REPEATS if reroll.again else 1
    while picked and rounds:
        for rolled, face in zip(picked, source.draw(die, len(picked)), strict=True):
            rolled.faces.append(face)
        picked = (
            [rolled for rolled in picked if rolled.face in reroll.faces] if reroll.again else []
        )
        rounds -= 1


def _explode(dice: list[_Rolled], explode: Repeat, die: Die, source: DiceSource) -> None:
    picked = _picked(dice, explode)
    if explode.add:  # d20's `ra`: one die at most
        picked = picked[:1]
    rounds = MAX_REPEATS if explode.again else 1
    while picked and rounds:
        new = [_Rolled([face]) for face in source.draw(die, len(picked))]
        for rolled in picked:
            rolled.exploded = True
        dice.extend(new)
        picked = [rolled for rolled in new if rolled.face in explode.faces] if explode.again else []
        rounds -= 1


def _roll_term(term: DiceTerm, source: DiceSource, sort: bool) -> _Outcome:
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
    for selection in term.selections:
        for index in _dropped(selection, [rolled.value for rolled in dice], [r.kept for r in dice]):
            dice[index].kept = False
    kept = [rolled for rolled in dice if rolled.kept]
    summary = ""
    if term.counts or term.botch is not None:
        successes = sum(rolled.value in term.success for rolled in kept) if term.success else 0
        if term.double is not None:
            successes += sum(rolled.value in term.double for rolled in kept)
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
    shown = sorted(dice, key=lambda rolled: rolled.value) if sort else dice
    faces = ", ".join(_show(rolled, term, dropped_any) for rolled in shown)
    return _Outcome(value, f"{_spelled(term)} ({faces}{summary})", natural)


# A term's spelling, once per term rather than once per roll (terms are frozen, and repeat: the
# same expressions are rolled again and again).
_spelled = functools.lru_cache(maxsize=1024)(DiceTerm.spelled)


def _dropped(selection: Selection, values: list[int], kept: list[bool]) -> set[int]:
    """The indexes a keep or drop selection drops, among those still kept."""
    return selection.apply([(index, value) for index, value in enumerate(values) if kept[index]])


def _roll_set(node: SetNode, source: DiceSource, sort: bool) -> _Outcome:
    """d20's set: each item rolled, then kept or dropped by its total (`(1d4, 4)kh1`)."""
    items = [_evaluate(item, source, sort) for item in node.items]
    kept = [True] * len(items)
    for selection in node.selections:
        for index in _dropped(selection, [item.value for item in items], kept):
            kept[index] = False
    shown = ", ".join(
        item.text if keep else f"~~{item.text}~~" for item, keep in zip(items, kept, strict=True)
    )
    chosen = [item for item, keep in zip(items, kept, strict=True) if keep]
    natural = chosen[0].natural if len(chosen) == 1 else None
    spelled = "".join(selection.spelled() for selection in node.selections)
    return _Outcome(sum(item.value for item in chosen), f"({shown}){spelled}", natural)


def _show(rolled: _Rolled, term: DiceTerm, dropped_any: bool) -> str:
    """One die: ~~rerolled~~ faces first, `!` when it exploded; **bold** kept (where some were
    dropped) or a success, __underlined__ a failure, ~~struck~~ dropped."""
    die = term.die
    faces = rolled.faces
    if len(faces) == 1 and not rolled.exploded and not term.counts and rolled.value == faces[0]:
        # The usual die (not rerolled, exploded, forced or counted): the cases below, in short.
        current = die.show(faces[0])
        if not rolled.kept:
            return f"~~{current}~~"
        return f"**{current}**" if dropped_any else current
    shown = [f"~~{die.show(face)}~~" for face in faces[:-1]]
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


def _evaluate(node: Node, source: DiceSource, sort: bool = False) -> _Outcome:
    match node:
        case Number(value=value):
            return _Outcome(value, str(value))
        case DiceTerm():
            return _roll_term(node, source, sort)
        case SetNode():
            return _roll_set(node, source, sort)
        case Group(inner=inner):
            inside = _evaluate(inner, source, sort)
            return _Outcome(inside.value, f"({inside.text})", inside.natural)
        case Signed(minus=minus, operand=operand):
            inside = _evaluate(operand, source, sort)
            return _Outcome(
                -inside.value if minus else inside.value,
                f"{'-' if minus else '+'}{inside.text}",
                inside.natural,
            )
        case Binary(left=left, operator=operator, right=right):
            a, b = _evaluate(left, source, sort), _evaluate(right, source, sort)
            if operator == "+":
                value = a.value + b.value
            elif operator == "-":
                value = a.value - b.value
            elif operator == "*":
                value = a.value * b.value
            elif operator in COMPARED:  # d20's `(2 == 2)`: 1 or 0
                value = int(COMPARED[operator](a.value, b.value))
            elif b.value == 0:
                raise RulesError(f"Can't divide by zero (`{a.text} {operator} {b.text}`).")
            elif operator == "%":  # the remainder, as avrae/d20 (Python) reads it
                value = a.value % b.value
            else:  # `/` and `//` both round down, as halving damage does
                value = a.value // b.value
            natural = a.natural if a.natural is not None else b.natural
            return _Outcome(value, f"{a.text} {operator} {b.text}", natural)
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
    return roll_parsed(expression, parse_expression(expression), DiceSource(rng))


def roll_parsed(
    expression: str, parsed: Expression, source: DiceSource, *, sort: bool = False
) -> ExpressionRoll:
    """Roll a parsed expression; ``sort`` shows each term's dice lowest first (`4d6 s`)."""
    outcome = _evaluate(parsed.root, source, sort)
    return ExpressionRoll(
        expression=expression.strip(),
        total=outcome.value,
        breakdown=outcome.text,
        natural=outcome.natural or Natural.NONE,
    )
