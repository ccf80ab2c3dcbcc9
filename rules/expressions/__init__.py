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

# The parse caches themselves (an expression's, a `;` roll's): tests and bench/bench_notation.py
# clear them (`expressions._parse`, `expressions._read_part`).
from rules.expressions.parser import _parse as _parse
from rules.expressions.parser import parse_expression
from rules.expressions.request import (
    Comparison,
    RequestPart,
    RequestRoll,
    RollRequest,
    parse_request,
    roll_request,
)
from rules.expressions.request import _read_part as _read_part
from rules.expressions.rolling import (
    ExpressionRoll,
    roll_expression,
)
from rules.expressions.terms import (
    MAX_DICE,
    MAX_EXPRESSION_LENGTH,
    MAX_PARTS,
    MAX_REPEATS,
    MAX_SETS,
    MAX_SIDES,
    DiceTerm,
    Expression,
    Natural,
)

__all__ = [
    "MAX_DICE",
    "MAX_EXPRESSION_LENGTH",
    "MAX_PARTS",
    "MAX_REPEATS",
    "MAX_SETS",
    "MAX_SIDES",
    "Comparison",
    "DiceTerm",
    "Expression",
    "ExpressionRoll",
    "Natural",
    "RequestPart",
    "RequestRoll",
    "RollRequest",
    "parse_expression",
    "parse_request",
    "roll_expression",
    "roll_request",
]
