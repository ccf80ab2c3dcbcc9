"""Sinew & Steel character sheets: scores, the creation ledger, items, boons and armour.

docs/players/sinew.md, "Rules notes". Characters have five attributes (STR, REF, INT, EMP, LCK,
baseline 10, rails 6-16) and Stamina (STA, baseline 5, rails 3-9). At creation every +1 above
baseline is paid by exactly 2 points below baseline over all six scores. The sheet is a frozen
dataclass stored as JSON through ``SHEET_CODEC``; Pressure is a declared track, not a sheet
field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations, product
from types import MappingProxyType
from typing import Any

import numpy as np

from rules.errors import RulesError
from rules.inputs import checked_name, name_key, require_whole
from rules.sheets import DataclassSheet
from rules.sinew.constants import (
    ARMOUR_MAX,
    ARMOUR_MIN,
    BOON_TEXT_MAX,
    BOONS_MAX,
    BUILD_POINTS_MAX,
    CARRY_LIMIT,
    ITEM_NAME_MAX,
    ITEMS_MAX,
    PAID_PER_POINT_ABOVE,
    TEST_SCORE_MAX,
    require_flag,
)

# --- Scores


class Score(StrEnum):
    """The six scores of a sheet: five attributes and Stamina."""

    STR = "STR"
    REF = "REF"
    INT = "INT"
    EMP = "EMP"
    LCK = "LCK"
    STA = "STA"

    @property
    def field(self) -> str:
        """Return the name of the sheet field holding this score."""
        return _SCORE_FIELDS[self]

    @property
    def display_name(self) -> str:
        """Return the full name, e.g. "Reflex"."""
        return _SCORE_FIELDS[self].capitalize()

    @property
    def baseline(self) -> int:
        """Return the score's starting value: 10, or 5 for Stamina."""
        return 5 if self is Score.STA else 10

    @property
    def minimum(self) -> int:
        """Return the lower rail: 6, or 3 for Stamina."""
        return 3 if self is Score.STA else 6

    @property
    def maximum(self) -> int:
        """Return the upper rail: 16, or 9 for Stamina."""
        return 9 if self is Score.STA else 16


_SCORE_FIELDS: Mapping[Score, str] = MappingProxyType(
    {
        Score.STR: "strength",
        Score.REF: "reflex",
        Score.INT: "intellect",
        Score.EMP: "empathy",
        Score.LCK: "luck",
        Score.STA: "stamina",
    }
)

ATTRIBUTES: tuple[Score, ...] = (Score.STR, Score.REF, Score.INT, Score.EMP, Score.LCK)

CARRY_LIMIT_SCORE = Score.REF
"""The rule document's "agility tasks": REF tests (docs/players/sinew.md, "Rules notes")."""


def parse_score(name: str) -> Score:
    """Return the score called ``name`` ("ref", "Reflex", …), or raise RulesError listing them."""
    wanted = name.strip().casefold()
    for score in Score:
        if wanted in (score.value.casefold(), score.field):
            return score
    raise RulesError(
        f"Unknown score {name!r}; choose one of: {', '.join(score.value for score in Score)}."
    )


# --- Creation ledger


@dataclass(frozen=True, slots=True)
class LedgerLine:
    """One score in the creation ledger: baseline → value, points gained or paid."""

    score: Score
    value: int

    @property
    def baseline(self) -> int:
        """Return the score's baseline."""
        return self.score.baseline

    @property
    def gained(self) -> int:
        """Return the points above baseline."""
        return max(self.value - self.baseline, 0)

    @property
    def paid(self) -> int:
        """Return the points below baseline."""
        return max(self.baseline - self.value, 0)

    @property
    def within_rails(self) -> bool:
        """Return whether the value sits on the creation rails."""
        return self.score.minimum <= self.value <= self.score.maximum

    @property
    def text(self) -> str:
        """Return the line as shown, e.g. "STR 10 → 16: +6 gained"."""
        head = f"{self.score.value} {self.baseline} → {self.value}: "
        if self.gained:
            return head + f"+{self.gained} gained"
        if self.paid:
            return head + f"{self.paid} paid"
        return head + "even"


@dataclass(frozen=True, slots=True)
class Ledger:
    """The creation ledger over all six scores (every +1 above costs exactly 2 below)."""

    lines: tuple[LedgerLine, ...]

    @property
    def gained(self) -> int:
        """Return the total points above baseline."""
        return sum(line.gained for line in self.lines)

    @property
    def paid(self) -> int:
        """Return the total points below baseline."""
        return sum(line.paid for line in self.lines)

    @property
    def owed(self) -> int:
        """Return what the points above baseline cost: 2 each."""
        return PAID_PER_POINT_ABOVE * self.gained

    @property
    def balanced(self) -> bool:
        """Return whether the points paid are exactly the points owed."""
        return self.paid == self.owed

    @property
    def total_text(self) -> str:
        """Return the totals line, e.g. "Total: +9 gained owes 18; paid 9 (9 short)"."""
        text = f"Total: +{self.gained} gained owes {self.owed}; paid {self.paid}"
        if self.paid < self.owed:
            return text + f" ({self.owed - self.paid} short)."
        if self.paid > self.owed:
            return text + f" ({self.paid - self.owed} too many)."
        return text + " (balanced)."

    def text_lines(self) -> tuple[str, ...]:
        """Return one line per score, then the totals."""
        return (*(line.text for line in self.lines), self.total_text)


def ledger(scores: Mapping[Score, int]) -> Ledger:
    """Return the creation ledger of six scores (checked to be whole numbers)."""
    missing = [score.value for score in Score if score not in scores]
    if missing:
        raise RulesError(f"The ledger needs all six scores; missing: {', '.join(missing)}.")
    return Ledger(
        tuple(
            LedgerLine(score, require_whole(score.value, scores[score], 0, TEST_SCORE_MAX))
            for score in Score
        )
    )


# --- What balances a ledger

FIX_SCORES_MAX = 3  # the most scores one suggested fix changes
FIXES_SHOWN = 3  # the most fixes a refusal suggests


@dataclass(frozen=True, slots=True)
class BalanceFix:
    """One way to balance a ledger: new values for one score or a few, all on the rails."""

    changes: tuple[tuple[Score, int], ...]  # (score, its new value), in the ledger's order

    def verb(self, scores: Mapping[Score, int]) -> str:
        """Return "lower" or "raise": which way the fix moves its scores (one way, always)."""
        score, value = self.changes[0]
        return "lower" if value < scores[score] else "raise"

    def text(self) -> str:
        """Return the fix without its verb: "EMP to 8", "STR to 14 and REF to 9"."""
        return " and ".join(f"{score.value} to {value}" for score, value in self.changes)


def _balance_term(score: Score, value: int) -> int:
    """What one score adds to "paid − owed": its points below baseline, less 2 for each point
    above it."""
    return max(score.baseline - value, 0) - PAID_PER_POINT_ABOVE * max(value - score.baseline, 0)


def balance_fixes(scores: Mapping[Score, int]) -> tuple[BalanceFix, ...]:
    """Return the smallest changes that balance the creation ledger of six scores on the rails.

    A ledger short of points is balanced by lowering scores (a point below baseline pays 1, a
    point taken off one above baseline owes 2 less); one paying too many, by raising them.
    The fixes changing the fewest scores (one, else two, else three) are kept, those moving
    the scores least first, at most ``FIXES_SHOWN``. None when the ledger balances, a score is
    off the rails (that is said first), or no change of up to three scores balances it.
    """
    book = ledger(scores)
    gap = book.owed - book.paid  # what the scores' terms must gain: > 0 short, < 0 too many
    if gap == 0 or not all(line.within_rails for line in book.lines):
        return ()
    now = {line.score: line.value for line in book.lines}
    lower = gap > 0
    # Each score's possible moves in the one useful direction: new value → what it gains.
    moves = {
        score: {
            value: _balance_term(score, value) - _balance_term(score, now[score])
            for value in range(score.minimum, score.maximum + 1)
            if (value < now[score] if lower else value > now[score])
        }
        for score in Score
    }
    for size in range(1, FIX_SCORES_MAX + 1):
        found: list[tuple[int, int, BalanceFix]] = []
        for chosen in combinations(Score, size):
            for values in product(*(moves[score].items() for score in chosen)):
                if sum(gained for _, gained in values) != gap:
                    continue
                changes = tuple(
                    (score, value) for score, (value, _) in zip(chosen, values, strict=True)
                )
                moved = sum(abs(value - now[score]) for score, value in changes)
                order = sum(list(Score).index(score) for score in chosen)
                found.append((moved, order, BalanceFix(changes)))
        if found:
            found.sort(key=lambda each: (each[0], each[1]))
            return tuple(fix for _, _, fix in found[:FIXES_SHOWN])
    return ()


def balance_hint(scores: Mapping[Score, int]) -> str | None:
    """Return the sentence naming what balances the ledger of six scores on the rails: the
    fixes ``balance_fixes`` finds ("To balance it: lower EMP to 8, or INT to 8."), else how
    many points to pay more or fewer; None when it balances or a score is off the rails."""
    book = ledger(scores)
    gap = book.owed - book.paid
    if gap == 0 or not all(line.within_rails for line in book.lines):
        return None
    fixes = balance_fixes(scores)
    if fixes:
        verb = fixes[0].verb(scores)
        return f"To balance it: {verb} " + ", or ".join(fix.text() for fix in fixes) + "."
    if gap > 0:
        return (
            f"To balance it, lower scores: {gap} more points are owed (each point below "
            f"baseline pays 1; each point off a score above it owes {PAID_PER_POINT_ABOVE} less)."
        )
    return (
        f"To balance it, raise scores: {-gap} points too many are paid (each point back up to "
        f"baseline pays 1 less; each point above it owes {PAID_PER_POINT_ABOVE} more)."
    )


class CreationError(RulesError):
    """A new sheet was refused: the problems, then the ledger line by line (in the message).

    Attributes:
        ledger: The ledger of the refused scores.
        problems: What was wrong, one sentence each.
    """

    def __init__(self, ledger: Ledger, problems: tuple[str, ...]) -> None:
        self.ledger = ledger
        self.problems = problems
        super().__init__("\n".join((*problems, *ledger.text_lines())))


# --- The character sheet


def _require_text(label: str, value: object, limit: int) -> str:
    """Return trimmed non-empty text of at most ``limit`` characters, or raise RulesError."""
    if not isinstance(value, str):
        raise RulesError(f"{label} must be text (got {value!r}).")
    text = value.strip()
    if not 1 <= len(text) <= limit:
        raise RulesError(f"{label} must be 1 to {limit} characters (got {len(text)}).")
    return text


def _require_texts(label: str, values: object, limit: int, most: int) -> tuple[str, ...]:
    """Return a tuple of already-trimmed texts (a stored sheet), or raise RulesError."""
    if not isinstance(values, tuple | list):
        raise RulesError(f"{label} must be a list of text (got {values!r}).")
    if len(values) > most:
        raise RulesError(f"A sheet holds at most {most} {label.lower()} (got {len(values)}).")
    for value in values:
        if _require_text(label[:-1], value, limit) != value:
            raise RulesError(f"{label[:-1]} {value!r} must not start or end with spaces.")
    return tuple(values)


@dataclass(frozen=True, slots=True)
class Sheet:
    """A Sinew & Steel character: scores, Luck tokens, Stamina, armour, items, build points.

    Plain JSON values only, so ``DataclassSheet(Sheet)`` stores it as it is (lists are turned
    back into tuples here). The checks hold after creation too: rails 6-16 (STA 3-9), tokens
    0 to the LCK score, current Stamina 0 to the STA score. The ledger is checked at creation
    only: build points spent, and later Pressure sacrifices, move scores off it.

    Attributes:
        luck_tokens: Tokens left; the cap is ``luck`` (the LCK score).
        current_stamina: Stamina left; the maximum is ``stamina`` (the STA score). 0 = collapse.
        armour: Base soak, 0-3.
        items: Substantial items carried (tiny trinkets are free and not listed); duplicates
            allowed, each counts towards the carry limit.
        build_points: Unspent build points from milestones.
        boons: Narrative gifts, free text.
        rite_used: A cleansing rite was tried this downtime (a thorough rest renews it).
    """

    strength: int
    reflex: int
    intellect: int
    empathy: int
    luck: int
    stamina: int
    luck_tokens: int
    current_stamina: int
    armour: int = 0
    items: tuple[str, ...] = ()
    build_points: int = 0
    boons: tuple[str, ...] = ()
    rite_used: bool = False

    def __post_init__(self) -> None:
        for score in Score:
            require_whole(
                f"{score.value} ({score.display_name})",
                getattr(self, score.field),
                score.minimum,
                score.maximum,
            )
        require_whole("Luck tokens", self.luck_tokens, 0, self.luck)
        require_whole("Current Stamina", self.current_stamina, 0, self.stamina)
        require_whole("Armour", self.armour, ARMOUR_MIN, ARMOUR_MAX)
        require_whole("Build points", self.build_points, 0, BUILD_POINTS_MAX)
        object.__setattr__(
            self, "items", _require_texts("Items", self.items, ITEM_NAME_MAX, ITEMS_MAX)
        )
        object.__setattr__(
            self, "boons", _require_texts("Boons", self.boons, BOON_TEXT_MAX, BOONS_MAX)
        )
        require_flag("Rite used", self.rite_used)

    def score(self, which: Score) -> int:
        """Return the value of one score."""
        return int(getattr(self, which.field))

    def scores(self) -> Mapping[Score, int]:
        """Return all six scores."""
        return MappingProxyType({which: self.score(which) for which in Score})

    @property
    def encumbered(self) -> bool:
        """Return whether more than ``CARRY_LIMIT`` substantial items are carried."""
        return len(self.items) > CARRY_LIMIT

    @property
    def collapsed(self) -> bool:
        """Return whether Stamina is at 0."""
        return self.current_stamina == 0


SHEET_CODEC: DataclassSheet[Sheet] = DataclassSheet(Sheet)
"""How storage keeps a ``Sheet`` as JSON (checked on every load)."""


def check_creation(values: Mapping[Score, object]) -> None:
    """Refuse six scores a new sheet may not have: off the creation rails, or a ledger that
    doesn't balance (then what balances it: ``balance_hint``).

    Raises:
        CreationError: the problems, then the ledger line by line.
        RulesError: a score is not a whole number.
    """
    whole: dict[Score, int] = {}
    for score in Score:
        value = values[score]
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise RulesError(f"{score.value} must be a whole number (got {value!r}).")
        whole[score] = int(value)
    book = Ledger(tuple(LedgerLine(score, value) for score, value in whole.items()))
    problems = [
        f"{line.score.value} {line.value} is off the creation rails "
        f"({line.score.minimum}–{line.score.maximum})."
        for line in book.lines
        if not line.within_rails
    ]
    if not book.balanced:
        problems.append(
            f"The ledger doesn't balance: every +1 above baseline is paid by exactly "
            f"{PAID_PER_POINT_ABOVE} below, so +{book.gained} needs {book.owed} paid "
            f"(paid {book.paid})."
        )
        hint = balance_hint({line.score: line.value for line in book.lines})
        if hint is not None:
            problems.append(hint)
    if problems:
        raise CreationError(book, tuple(problems))


def create_sheet(
    *,
    strength: int,
    reflex: int,
    intellect: int,
    empathy: int,
    luck: int,
    stamina: int,
    armour: int = 0,
    items: Iterable[str] = (),
    boons: Iterable[str] = (),
) -> Sheet:
    """Return a new sheet with full Luck and Stamina, after checking rails and the ledger.

    Raises:
        CreationError: a score is off the creation rails or the ledger doesn't balance; the
            message lists the problems, then the ledger line by line.
        RulesError: a score is not a whole number, or armour, items or boons are illegal.
    """
    values = {
        Score.STR: strength,
        Score.REF: reflex,
        Score.INT: intellect,
        Score.EMP: empathy,
        Score.LCK: luck,
        Score.STA: stamina,
    }
    check_creation(values)
    # Any: each score goes to its own int field (mypy checks a ** dict against every field).
    scores: dict[str, Any] = {score.field: int(value) for score, value in values.items()}
    sheet = Sheet(
        **scores,
        luck_tokens=int(luck),
        current_stamina=int(stamina),
        armour=require_whole("Armour", armour, ARMOUR_MIN, ARMOUR_MAX),
    )
    for item in items:
        sheet = add_item(sheet, item)
    for boon in boons:
        sheet = add_boon(sheet, boon)
    return sheet


# --- Items, boons, armour


def add_item(sheet: Sheet, name: str) -> Sheet:
    """Return the sheet carrying one more substantial item (duplicates allowed); its name
    passes the check every name users give (docs/players/index.md, "Names")."""
    name = checked_name(name, "Item name", ITEM_NAME_MAX)
    if len(sheet.items) >= ITEMS_MAX:
        raise RulesError(f"A sheet holds at most {ITEMS_MAX} items; drop one first.")
    return replace(sheet, items=(*sheet.items, name))


def _listing(names: tuple[str, ...], most: int = 10) -> str:
    """Return up to ``most`` names, comma separated, with "…" for the rest."""
    if not names:
        return "none"
    shown = ", ".join(names[:most])
    return shown + (", …" if len(names) > most else "")


def remove_item(sheet: Sheet, name: str) -> Sheet:
    """Return the sheet without the first item called ``name`` (names compared NFKC, any
    case: docs/players/index.md, "Names")."""
    wanted = name_key(checked_name(name, "Item name", ITEM_NAME_MAX))
    for index, item in enumerate(sheet.items):
        if name_key(item) == wanted:
            return replace(sheet, items=sheet.items[:index] + sheet.items[index + 1 :])
    raise RulesError(
        f"No item called {name.strip()!r} is carried (items: {_listing(sheet.items)})."
    )


def add_boon(sheet: Sheet, text: str) -> Sheet:
    """Return the sheet with one more boon: free text, which passes the check every name
    users give (docs/players/index.md, "Names"): measured after NFKC, no invisible characters."""
    text = checked_name(text, "Boon", BOON_TEXT_MAX)
    if len(sheet.boons) >= BOONS_MAX:
        raise RulesError(f"A sheet holds at most {BOONS_MAX} boons; remove one first.")
    return replace(sheet, boons=(*sheet.boons, text))


def remove_boon(sheet: Sheet, number: int) -> Sheet:
    """Return the sheet without boon ``number`` (1 = the first, as listed)."""
    if not sheet.boons:
        raise RulesError("There are no boons to remove.")
    index = require_whole("Boon number", number, 1, len(sheet.boons)) - 1
    return replace(sheet, boons=sheet.boons[:index] + sheet.boons[index + 1 :])


def set_armour(sheet: Sheet, armour: int) -> Sheet:
    """Return the sheet wearing armour with base soak ``armour`` (0-3)."""
    return replace(sheet, armour=require_whole("Armour", armour, ARMOUR_MIN, ARMOUR_MAX))
