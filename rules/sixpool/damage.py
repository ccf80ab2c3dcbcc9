"""Six-pool d20 attack damage: an optional dice expression, its dice doubled on a natural 20.

docs/players/sixpool.md, "Rules notes": an attack may name its damage (`1d8+3`); it is rolled when
the attack hits. A natural 20 rolls the damage dice twice and adds the modifier once: `1d8+3`
becomes `2d8+3`. A term that keeps, drops or counts some of its dice (`4d6kh3`) is rolled twice
over instead (`(4d6kh3+4d6kh3)`), so doubling never changes what it keeps. The expression is
checked, doubled included, before anything is rolled or spent.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.errors import RulesError
from rules.expressions import DiceTerm, Expression, parse_expression
from rules.expressions.parser import check_dice_asked
from rules.expressions.rolling import DiceSource, roll_parsed
from rules.expressions.terms import Binary, Group, Node, Signed
from rules.randomness import Rng

__all__ = ["DamageRoll", "critical_damage", "parse_damage", "roll_damage"]


def _doubled(node: Node) -> Node:
    match node:
        case DiceTerm():
            if node.keep is None and not node.counts and node.botch is None:
                return replace(node, count=node.count * 2)
            return Group(Binary(node, "+", node))
        case Group(inner=inner):
            return Group(_doubled(inner))
        case Signed(minus=minus, operand=operand):
            return Signed(minus, _doubled(operand))
        case Binary(left=left, operator=operator, right=right):
            return Binary(_doubled(left), operator, _doubled(right))
    return node  # a plain number: the modifier, added once


def critical_damage(parsed: Expression) -> Expression:
    """Return ``parsed`` with every die rolled twice and every number added once."""
    return Expression(_doubled(parsed.root), parsed.dice * 2)


def parse_damage(expression: str) -> Expression:
    """Parse a damage expression, refusing one without dice or too big to double on a 20."""
    parsed = parse_expression(expression)
    if parsed.dice == 0:
        raise RulesError(
            f"Damage `{expression.strip()[:40]}` has no dice: give dice and a modifier, "
            "e.g. `1d8+3`."
        )
    try:
        check_dice_asked(critical_damage(parsed).dice)
    except RulesError as error:
        raise RulesError(f"Damage `{expression.strip()[:40]}` on a natural 20: {error}") from None
    return parsed


@dataclass(frozen=True, slots=True)
class DamageRoll:
    """The damage an attack rolled: what was rolled (doubled on a natural 20), total, dice."""

    expression: str  # as rolled: `2d8+3` on a natural 20
    total: int
    breakdown: str  # Markdown, every die shown
    critical: bool


def roll_damage(rng: Rng, expression: str, *, critical: bool) -> DamageRoll:
    """Roll an attack's damage; on a natural 20 (``critical``) its dice are rolled twice."""
    parsed = parse_damage(expression)
    if critical:
        parsed = critical_damage(parsed)
    spelled = parsed.spelled()
    rolled = roll_parsed(spelled, parsed, DiceSource(rng))
    return DamageRoll(spelled, rolled.total, rolled.breakdown, critical)
