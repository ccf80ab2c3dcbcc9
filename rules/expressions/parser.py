"""From the grammar (``rules/notation.lark``) to checked terms."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import lark

from rules.errors import RulesError
from rules.expressions.terms import (
    EXAMPLES,
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_SET_ITEMS,
    MAX_SIDES,
    SHOWN_TOKEN_MAX,
    Binary,
    DiceTerm,
    Die,
    Expression,
    Faces,
    Group,
    Keep,
    ModifierFamily,
    Node,
    Number,
    Pick,
    Repeat,
    Selection,
    SetNode,
    Signed,
    spell_node,
)

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
    "r": (ModifierFamily.REROLL, False),
    "ro": (ModifierFamily.REROLL, False),
    "rol": (ModifierFamily.REROLL, False),  # d20's: reroll the lowest (`rol1`) once
    "roh": (ModifierFamily.REROLL, False),
    "ra": (ModifierFamily.EXPLODE, False),  # d20's reroll-and-add: one die more, at most
    "ral": (ModifierFamily.EXPLODE, False),
    "rah": (ModifierFamily.EXPLODE, False),
    "ir": (ModifierFamily.REROLL, True),
    "rr": (ModifierFamily.REROLL, True),
    "e": (ModifierFamily.EXPLODE, False),
    "ie": (ModifierFamily.EXPLODE, True),
    "!": (ModifierFamily.EXPLODE, True),
}
_COUNTS = {"t": ModifierFamily.SUCCESS, "f": ModifierFamily.FAILURE, "b": ModifierFamily.BOTCH}


def _faces(compare: str | None, number: int, *, upward: bool) -> Faces:
    """The faces `<3`, `>=5`, `=2` pick; a bare number means `>=` upward, else `<=`."""
    compare = compare or (">=" if upward else "<=")
    return {
        "<": Faces(None, number - 1),
        "<=": Faces(None, number),
        ">": Faces(number + 1, None),
        ">=": Faces(number, None),
        "=": Faces(number, number),
        "==": Faces(number, number),
    }[compare]


def _modify(
    fields: dict[str, object],
    typed: str,
    compare: str | None,
    number: int | None,
    die: Die,
    seen: dict[ModifierFamily, str],
) -> None:
    """Add one typed modifier to a term's fields, refusing what can't be meant."""
    spelling = typed.lower()
    shown = f"`{typed}{compare or ''}{'' if number is None else number}`"
    value: object
    if spelling in _KEEPS:
        picks = fields.setdefault("picks", [])
        assert isinstance(picks, list)
        picks.append(_pick(typed, compare, number))
        return
    elif spelling in ("mi", "ma"):
        family = ModifierFamily.MINIMUM if spelling == "mi" else ModifierFamily.MAXIMUM
        if compare is not None or number is None:
            raise RulesError(f"{shown}: `{spelling}` takes a number, like `4d6mi2`.")
        value, name = number, "minimum" if spelling == "mi" else "maximum"
    elif spelling in _REPEATS:
        family, again = _REPEATS[spelling]
        # Explosions count up from the lowest face that explodes; rerolls (and d20's
        # reroll-and-add `ra`) down from the highest face rerolled.
        upward = family is ModifierFamily.EXPLODE and not spelling.startswith("ra")
        default = die.high if upward else die.low
        faces = _faces(compare, default if number is None else number, upward=upward)
        rank = None
        if spelling[-1] in "lh":
            if compare is not None or number is None:
                raise RulesError(f"{shown}: `{spelling}` takes a count, like `1d6{spelling}1`.")
            rank = Keep(number, spelling[-1] == "h", drop=False)
        add = spelling.startswith("ra")
        name = "reroll" if family is ModifierFamily.REROLL else "explode"
        value = Repeat(faces, again, rank, add)
    else:
        family = _COUNTS[spelling]
        if number is None and family is not ModifierFamily.BOTCH:
            example = (
                "`6d10t7` counts each 7 or more"
                if spelling == "t"
                else "`6d10t7f1` takes one away for each 1"
            )
            raise RulesError(f"{shown} needs a number: {example}.")
        upward = family is ModifierFamily.SUCCESS
        value = _faces(compare, die.low if number is None else number, upward=upward)
        name = family.name.lower()
    if family is ModifierFamily.SUCCESS and family in seen and "double" not in fields:
        # A second `t` counts one success more (Dice Maiden's Exalted `t7t10`: a 10 is two).
        assert isinstance(value, Faces)
        fields["double"] = value
        return
    if family in seen:
        raise RulesError(
            f"A dice term takes one {family.value} modifier (got `{seen[family]}` and {shown}). "
            "Use one, like `4d6kh3`."
        )
    seen[family] = shown.strip("`")
    fields[name] = value


def _pick(typed: str, compare: str | None, number: int | None) -> tuple[bool, Pick]:
    """One keep or drop selector: whether it drops, and what it picks."""
    spelling = typed.lower()
    shown = f"`{typed}{compare or ''}{'' if number is None else number}`"
    rule = _KEEPS[spelling]
    if number is None:
        raise RulesError(
            f"{shown}: keep and drop take a count, like `4d6k3` (keep the highest 3) or "
            "`4d6d1` (drop the lowest 1)."
        )
    if compare is None:
        return rule.drop, Pick(Keep(number, rule.highest, rule.drop))
    if len(spelling) > 1:
        raise RulesError(
            f"{shown}: keep or drop by rank (`{spelling}{number}`) or by face "
            f"(`{spelling[0]}{compare}{number}`), not both."
        )
    return rule.drop, Pick(None, _faces(compare, number, upward=True))


def _selections(picks: list[tuple[bool, Pick]]) -> tuple[Selection, ...]:
    """d20's chained selectors: consecutive keeps (or drops) pick the union, `kh1kl1`."""
    selections: list[Selection] = []
    for drop, pick in picks:
        if selections and selections[-1].drop == drop:
            selections[-1] = Selection(drop, (*selections[-1].picks, pick))
        else:
            selections.append(Selection(drop, (pick,)))
    return tuple(selections)


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
    fields: dict[str, Any] = {}  # each modifier's field, as _modify checked it
    seen: dict[ModifierFamily, str] = {}
    for typed, compare, number in modifiers:
        _modify(fields, typed, compare, number, die, seen)
    picks = fields.pop("picks", [])
    if len(picks) == 1 and picks[0][1].rank is not None:  # the usual one: `4d6kh3`, `4d6d1`
        fields["keep"] = picks[0][1].rank
    elif picks:
        fields["selections"] = _selections(picks)
    term = DiceTerm(count, die, **fields)
    for repeat, verb, example in (
        (term.reroll, "reroll", "10d10ir1"),
        (term.explode, "explode", "1d6ie6"),
    ):
        if repeat is not None and repeat.again and repeat.rank is None and repeat.faces.cover(die):
            raise RulesError(
                f"`{term.spelled()}` would {verb} forever: it {verb}s every face of a "
                f"d{die.name}. {verb.capitalize()} on fewer faces, e.g. `{example}`."
            )
    return term


def _set_selections(modifiers: list[tuple[str, str | None, int | None]]) -> tuple[Selection, ...]:
    """A set's modifiers: keep and drop only (`(1d4, 4)kh1`)."""
    picks = []
    for typed, compare, number in modifiers:
        if typed.lower() not in _KEEPS:
            shown = f"{typed}{compare or ''}{'' if number is None else number}"
            raise RulesError(
                f"`{shown}` applies to dice: a set `(…)` is kept or dropped, like `(1d4, 4)kh1`."
            )
        picks.append(_pick(typed, compare, number))
    return _selections(picks)


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
            case SetNode(items=items):
                stack += items
    return False


class _Build(lark.Transformer[lark.Token, Node]):
    """The grammar's rules to nodes, checked as they are built.

    The LALR parser calls these as it reduces, so a RulesError raised here reaches the caller as
    it is, and no tree is built only to be walked again.
    """

    def number(self, children: list[lark.Token]) -> Number:
        return Number(int(children[0]))

    def group(self, children: list[Node]) -> Group:
        return Group(children[0])

    def compared(self, children: list[Any]) -> Group:
        """d20's `(2 == 2)`: 1 when it holds, else 0 (docs/players/dice.md, "Dice notation")."""
        left, operator, right = children
        spelled = "==" if operator == "=" else str(operator)
        return Group(Binary(left, spelled, right))

    def decimal(self, children: list[lark.Token]) -> Number:
        return Number(int(float(children[0])))  # d20 reads `1.5` as 1, `.5` as 0

    def picked_group(self, children: list[Any]) -> Node:
        """`(10d6kh5)kl2`: d20 keeps among the dice inside; `(1d4+1)kh1`, a set of one."""
        inner, *modifiers = children
        selections = _set_selections(modifiers)
        while isinstance(inner, Group):
            inner = inner.inner
        if isinstance(inner, DiceTerm | SetNode) and not (
            isinstance(inner, DiceTerm) and inner.counts
        ):
            before = inner.selections
            if isinstance(inner, DiceTerm) and inner.keep is not None:
                before = (Selection(inner.keep.drop, (Pick(inner.keep),)),)
                inner = replace(inner, keep=None)
            picked: DiceTerm | SetNode = replace(inner, selections=before + selections)
            return picked
        return SetNode((inner,), selections)

    def set(self, children: list[Any]) -> SetNode:
        items = [child for child in children if isinstance(child, Node)]
        modifiers = [child for child in children if isinstance(child, tuple)]
        if len(items) > MAX_SET_ITEMS:
            raise RulesError(f"A set holds at most {MAX_SET_ITEMS} items (got {len(items)}).")
        return SetNode(tuple(items), _set_selections(modifiers))

    def signed(self, children: list[lark.Token | Node]) -> Signed:
        sign, operand = children
        assert isinstance(operand, Number | Group | Signed | Binary | DiceTerm | SetNode)
        if sign == "-" and _holds_dice(operand):
            spelled = spell_node(operand)
            raise RulesError(
                f"A minus in front of dice makes the total negative (`-{spelled}`): did you mean "
                f"`0-{spelled}` (as d20 reads it)? Or roll the dice without it (`1d20`), or "
                "subtract them from something (`10-1d4`)."
            )
        return Signed(sign == "-", operand)

    def binary(self, children: list[Any]) -> Binary:
        left, operator, right = children  # the grammar's: node, operator token, node
        return Binary(left, str(operator), right)

    def sides(self, children: list[lark.Token]) -> str:
        return str(children[0])

    def modifier(self, children: list[lark.Token | None]) -> tuple[str, str | None, int | None]:
        typed, compare, number = children
        return (
            str(typed),
            None if compare is None else str(compare),
            None if number is None else int(number),
        )

    def dice(self, children: list[Any]) -> DiceTerm:
        count, _die, sides, *modifiers = children
        return _dice_term(
            None if count is None else int(str(count)),
            str(sides),
            modifiers,
        )


_PARSER = lark.Lark(
    (Path(__file__).parent.parent / "notation.lark").read_text(encoding="utf-8"),
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
            case SetNode(items=items):
                stack += reversed(items)


@functools.lru_cache(maxsize=1024)
def _parse(text: str) -> Expression:
    """Parse ``text`` (cached: a table rolls the same few expressions all evening)."""
    try:
        root = _PARSER.parse(text)
    except lark.exceptions.UnexpectedInput as error:
        raise RulesError(
            f"Couldn't read `{text}` as dice: {_problem(error)}. Examples: {EXAMPLES}."
        ) from None
    assert isinstance(root, Number | Group | Signed | Binary | DiceTerm | SetNode)
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
    check_dice_asked(parsed.dice)
    return parsed


def check_dice_asked(asked: int) -> None:
    if asked > MAX_DICE:
        raise RulesError(
            f"That roll needs more than {MAX_DICE} dice (it asks for {asked} before any rerolls "
            "or explosions)."
        )
