"""Requests: several rolls in one (`;`), roll sets (`6 4d6kh3`) and a comment (`! fireball`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.errors import RulesError
from rules.expressions.parser import check_dice_asked, parse_expression
from rules.expressions.rolling import DiceSource, ExpressionRoll, roll_parsed
from rules.expressions.terms import MAX_PARTS, MAX_SETS, Expression
from rules.randomness import Rng

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
    check_dice_asked(sum(sets * each.dice for (sets, _), each in zip(parts, parsed, strict=True)))
    return RollRequest(tuple(parts), comment), parsed


def roll_request(text: str, rng: Rng) -> RequestRoll:
    """Roll every part and set of a request; all of them together draw at most MAX_DICE dice."""
    request, parsed = _parsed_request(text)
    source = DiceSource(rng)
    rolls = tuple(
        tuple(roll_parsed(expression, each, source) for _ in range(sets))
        for (sets, expression), each in zip(request.parts, parsed, strict=True)
    )
    return RequestRoll(request, rolls)
