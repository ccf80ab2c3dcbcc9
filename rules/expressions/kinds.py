"""`/roll`'s one roll kind, "dice": how a logged `/roll` reads (``rules.roll_kinds``).

docs/development.md, "Roll kinds". A `/roll` logs either one expression's roll (its expression,
total and natural d20) or a request of several parts and sets, each part with its comparison.
A lone d20's natural 20 is the critical, its natural 1 the fumble (compared or not); a total
compared (`>= 15`) succeeds or fails by the comparison. The recap places each total alone on its
dice shape's exact distribution (``rules.recap_placement``) and averages the luck of several.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.expressions.request import Comparison
from rules.expressions.terms import Natural
from rules.roll_kinds import Placement, Reading, RollKind, Total

__all__ = ["CORE_KINDS", "DICE_KIND", "DICE_KIND_NAME"]

DICE_KIND_NAME = "dice"


def _total(roll: Mapping[str, Any], comparison: Comparison | None) -> Total:
    value, natural = int(roll["total"]), Natural(roll["natural"])
    critical, fumble = natural is Natural.TWENTY, natural is Natural.ONE
    success = None if comparison is None else comparison.holds(value)
    return Total(value, success, critical, fumble)


def _placement(roll: Mapping[str, Any]) -> Placement | None:
    expression, total = roll.get("expression"), roll.get("total")
    if not isinstance(expression, str) or not isinstance(total, int):
        return None
    # Placed by the recap, from the expression: reading a roll (the log does, on the event loop)
    # never parses it.
    return Placement(total, expression=expression)


def _read(result: Mapping[str, Any]) -> Reading:
    if "rolls" not in result:  # one expression
        total = _total(result, None)
        return Reading((Total(total.value),), critical=total.critical, fumble=total.fumble,
                       placement=_placement(result))  # fmt: skip
    totals: list[Total] = []
    placements: list[Placement | None] = []
    for part, rolls in zip(result["request"]["parts"], result["rolls"], strict=True):
        compared = part.get("comparison")
        comparison = None if compared is None else Comparison(**compared)
        for roll in rolls:
            totals.append(_total(roll, comparison))
            placements.append(_placement(roll))
    if len(totals) == 1:
        only = totals[0]
        return Reading((Total(only.value),), only.success, only.critical, only.fumble,
                       placement=placements[0])  # fmt: skip
    # Several rolls: each its own verdict; the recap places each alone and averages their luck.
    parts = tuple(one for one in placements if one is not None)
    together = Placement(0, parts=parts, biggest=False) if parts else None
    return Reading(tuple(totals), placement=together)


def _decode(stored: Mapping[str, Any]) -> Mapping[str, Any]:
    return stored  # a /roll's result is read as stored: its parts, sets and totals


DICE_KIND: RollKind[Mapping[str, Any]] = RollKind(DICE_KIND_NAME, _decode, _read)
CORE_KINDS: tuple[RollKind[Any], ...] = (DICE_KIND,)
