"""Sinew & Steel (`002_…`): roll-under d20 tests, Luck, Stamina, combat (RULINGS.md).

A test rolls one d20 (two with advantage or disadvantage, keeping the lower or the higher) and
succeeds when the kept die is at most the score. A natural 1 always succeeds and a natural 20
always fails. Margin = score - roll. Luck tokens shift the die down by 1 each after the roll;
naturals can't be shifted and a shifted die never goes below 1.

Characters have five attributes (STR, REF, INT, EMP, LCK, baseline 10, rails 6-16) and Stamina
(STA, baseline 5, rails 3-9). At creation every +1 above baseline is paid by exactly 2 points
below baseline over all six scores. The sheet is a frozen dataclass stored as JSON through
``SHEET_CODEC``; Pressure is a declared track, not a sheet field (Pressure and Crisis rules
arrive with their own issue: ``luck_cost`` already takes the Pressure step).

Everything here is pure: dice come from an injected ``numpy.random.Generator`` and odds are
exact (integer weights from ``rules.odds``, answers as ``Fraction``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from types import MappingProxyType
from typing import overload

import numpy as np

from rules.declarations import Setting, SystemDeclaration, TrackSpec
from rules.errors import RulesError
from rules.inputs import require_whole
from rules.odds import Distribution, Keep, Outcome, die, keep
from rules.randomness import Rng, roll_dice
from rules.sheets import DataclassSheet

__all__ = [
    "ADVANCE_COST",
    "ARMOUR_MAX",
    "ARMOUR_MIN",
    "ATTRIBUTES",
    "BOONS_MAX",
    "BOON_TEXT_MAX",
    "BUILD_POINTS_MAX",
    "CARRY_LIMIT",
    "CARRY_LIMIT_SCORE",
    "CRITICAL_MARGIN",
    "DECLARATION",
    "DIE_SIDES",
    "EXPLOSIVE_SOAK_IGNORED",
    "EXTRA_DAMAGE",
    "HEALTH_CHANGE_MAX",
    "ITEMS_MAX",
    "ITEM_NAME_MAX",
    "LINGERING_TAINT",
    "LUCK_SURCHARGE",
    "LUCK_SURCHARGE_STEP",
    "MILESTONE_BUILD_POINTS",
    "PAID_PER_POINT_ABOVE",
    "PRESSURE",
    "PRESSURE_MAX",
    "REST_GAINS",
    "SHEET_CODEC",
    "SOAK_MARGIN_STEP",
    "TEST_SCORE_MAX",
    "TEST_SCORE_MIN",
    "AdvanceResult",
    "AttackResult",
    "CreationError",
    "Edge",
    "Ledger",
    "LedgerLine",
    "LuckOdds",
    "LuckOffer",
    "MilestoneResult",
    "Mode",
    "ModeDecision",
    "OpposedOdds",
    "OpposedReason",
    "OpposedResult",
    "Rest",
    "RestResult",
    "Score",
    "Sheet",
    "Side",
    "StaminaChange",
    "TestOdds",
    "TestResult",
    "add_boon",
    "add_item",
    "advance",
    "advance_gain",
    "attack",
    "attack_luck_offers",
    "attribute_test",
    "create_sheet",
    "effective_mode",
    "heal",
    "ledger",
    "luck_cost",
    "luck_odds",
    "luck_surcharge",
    "luck_test",
    "milestone",
    "odds",
    "opposed",
    "opposed_odds",
    "parse_score",
    "remove_boon",
    "remove_item",
    "rest",
    "set_armour",
    "spend_luck",
    "take_damage",
    "test",
    "tokens_to_succeed",
    "tokens_to_win",
]

# --- Campaign declaration (settings and tracks the store keeps)

PRESSURE_MAX = 5  # reaching it triggers a Crisis

LINGERING_TAINT: Setting[bool] = Setting(
    name="lingering_taint",
    label="Lingering taint",
    help="Sinew & Steel only: a Crisis leaves Pressure at 1 instead of 0",
    kind=bool,
    default=False,
    info=lambda on: "Lingering taint: on (a Crisis leaves Pressure at 1)" if on else None,
)

# One Pressure track on the party and one on each character.
PRESSURE = TrackSpec(
    name="pressure", minimum=0, maximum=PRESSURE_MAX, party=True, per_character=True
)

# Luck tokens and Stamina live on the sheet (SHEET_CODEC below), not in tracks: they have
# per-character caps (the LCK and STA scores) that a track's fixed maximum can't express.
DECLARATION = SystemDeclaration(
    settings=(LINGERING_TAINT,), tracks=(PRESSURE,), characters_per_player=1
)

# --- Constants (RULINGS.md "Sinew & Steel"); (house) marks our own defaults

DIE_SIDES = 20
TEST_SCORE_MIN, TEST_SCORE_MAX = 0, 20
"""Scores a test accepts: 0 for a Luck test with no tokens left, up to 20 for a GM's NPC."""

PAID_PER_POINT_ABOVE = 2
"""Creation ledger: every +1 above baseline is paid by exactly this many points below."""

ADVANCE_COST = 2
MILESTONE_BUILD_POINTS = 2
_GAIN_AT_OR_ABOVE_BASELINE = 1
_GAIN_BELOW_BASELINE = 2

ARMOUR_MIN, ARMOUR_MAX = 0, 3
BASE_DAMAGE = 1
CRITICAL_MARGIN = 10
"""An attacker's margin above this (or a natural 1) adds ``EXTRA_DAMAGE``."""
EXTRA_DAMAGE = 1
SOAK_MARGIN_STEP = 4
"""Every full this-many points of attacker margin cut soak by 1."""
EXPLOSIVE_SOAK_IGNORED = 1

CARRY_LIMIT = 6
"""Substantial items carried freely; more give disadvantage on ``CARRY_LIMIT_SCORE`` tests."""

LUCK_SURCHARGE_STEP = 4
"""Pressure step from which every Luck spend costs ``LUCK_SURCHARGE`` more token (house)."""
LUCK_SURCHARGE = 1

# Input limits (not rules): they keep sheets and messages a sensible size.
ITEM_NAME_MAX = 80
ITEMS_MAX = 30
BOON_TEXT_MAX = 200
BOONS_MAX = 20
BUILD_POINTS_MAX = 100
HEALTH_CHANGE_MAX = 20
"""Most Stamina one damage or healing step may change (an input limit)."""


def _require_flag(label: str, value: object) -> bool:
    """Return ``value`` if it is a bool, else raise RulesError."""
    if not isinstance(value, bool | np.bool_):
        raise RulesError(f"{label} must be true or false (got {value!r}).")
    return bool(value)


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
"""The document's "agility tasks": REF tests (RULINGS)."""


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
        _require_flag("Rite used", self.rite_used)

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
    for score, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise RulesError(f"{score.value} must be a whole number (got {value!r}).")
    book = Ledger(tuple(LedgerLine(score, int(value)) for score, value in values.items()))
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
    if problems:
        raise CreationError(book, tuple(problems))
    sheet = Sheet(
        **{score.field: int(value) for score, value in values.items()},
        luck_tokens=int(luck),
        current_stamina=int(stamina),
        armour=require_whole("Armour", armour, ARMOUR_MIN, ARMOUR_MAX),
    )
    for item in items:
        sheet = add_item(sheet, item)
    for boon in boons:
        sheet = add_boon(sheet, boon)
    return sheet


# --- Advantage and disadvantage


class Mode(StrEnum):
    """How many d20 a test rolls and which it keeps."""

    STRAIGHT = "straight"
    ADVANTAGE = "advantage"  # two d20, keep the lower
    DISADVANTAGE = "disadvantage"  # two d20, keep the higher

    @property
    def dice(self) -> int:
        """Return how many d20 are rolled."""
        return 1 if self is Mode.STRAIGHT else 2


@dataclass(frozen=True, slots=True)
class ModeDecision:
    """The mode a test rolls with, and why, for the reply."""

    mode: Mode
    reasons: tuple[str, ...] = ()


def effective_mode(
    attribute: Score | None = None,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    items_carried: int = 0,
) -> ModeDecision:
    """Return the mode of a test of ``attribute`` (None: any other score) and the reasons.

    Carrying more than ``CARRY_LIMIT`` substantial items gives REF tests disadvantage on its
    own. Advantage and disadvantage together give a straight roll (house).
    """
    advantage = _require_flag("Advantage", advantage)
    disadvantage = _require_flag("Disadvantage", disadvantage)
    items_carried = require_whole("Items carried", items_carried, 0, ITEMS_MAX)
    reasons: list[str] = []
    if attribute is CARRY_LIMIT_SCORE and items_carried > CARRY_LIMIT:
        disadvantage = True
        reasons.append(
            f"Carrying {items_carried} substantial items (more than {CARRY_LIMIT}): "
            f"disadvantage on {CARRY_LIMIT_SCORE.value} tests."
        )
    if advantage and disadvantage:
        reasons.append("Advantage and disadvantage cancel: a straight roll.")
        return ModeDecision(Mode.STRAIGHT, tuple(reasons))
    if advantage:
        return ModeDecision(Mode.ADVANTAGE, tuple(reasons))
    if disadvantage:
        return ModeDecision(Mode.DISADVANTAGE, tuple(reasons))
    return ModeDecision(Mode.STRAIGHT, tuple(reasons))


# --- Tests


def _kept_index(dice: tuple[int, ...], mode: Mode) -> int:
    """Return the position of the kept die; among equal faces the earlier one."""
    if mode is Mode.ADVANTAGE:
        return dice.index(min(dice))
    if mode is Mode.DISADVANTAGE:
        return dice.index(max(dice))
    return 0


def _face_succeeds(score: int, face: int, *, natural: bool) -> bool:
    """Return whether a die showing ``face`` succeeds; unshifted naturals decide alone."""
    if natural and face == 1:
        return True
    if natural and face == DIE_SIDES:
        return False
    return face <= score


@dataclass(frozen=True, slots=True)
class TestResult:
    """One roll-under test: every die, the kept one, Luck shifts so far, outcome and margin.

    Only the rolled facts are fields (so storage can keep and rebuild a result); the rest is
    derived. ``shift`` is the Luck tokens' effect so far: the die is lowered by it.

    Attributes:
        score: The score rolled under (for a Luck test, the token count when rolled).
        mode: Straight, advantage or disadvantage.
        dice: Every d20 rolled, in order (one, or two with advantage/disadvantage).
        shift: How far Luck has lowered the kept die (0 to the die - 1; 0 on naturals).
        reasons: Why the mode is what it is (carry limit, cancellation), for the reply.
    """

    __test__ = False  # not a pytest test class

    score: int
    mode: Mode
    dice: tuple[int, ...]
    shift: int = 0
    reasons: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        require_whole("Score", self.score, TEST_SCORE_MIN, TEST_SCORE_MAX)
        object.__setattr__(self, "mode", Mode(self.mode))
        dice = tuple(self.dice)
        if len(dice) != self.mode.dice or not all(
            isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= DIE_SIDES
            for face in dice
        ):
            raise ValueError(f"a {self.mode} test has {self.mode.dice} d20 (got {dice!r})")
        object.__setattr__(self, "dice", dice)
        object.__setattr__(self, "reasons", tuple(self.reasons))
        kept = dice[_kept_index(dice, self.mode)]
        highest = 0 if kept in (1, DIE_SIDES) else kept - 1
        require_whole("Luck shift", self.shift, 0, highest)

    @property
    def kept_index(self) -> int:
        """Return the position of the kept die in ``dice``."""
        return _kept_index(self.dice, self.mode)

    @property
    def natural(self) -> int:
        """Return the kept die as rolled, before Luck."""
        return self.dice[self.kept_index]

    @property
    def roll(self) -> int:
        """Return the kept die after Luck shifts."""
        return self.natural - self.shift

    @property
    def shifted(self) -> bool:
        """Return whether Luck moved the die."""
        return self.shift > 0

    @property
    def natural_one(self) -> bool:
        """Return whether the kept die is a natural 1 (extraordinary success)."""
        return self.natural == 1

    @property
    def natural_twenty(self) -> bool:
        """Return whether the kept die is a natural 20 (catastrophic mishap)."""
        return self.natural == DIE_SIDES

    @property
    def success(self) -> bool:
        """Return whether the test succeeds: roll <= score; a natural decides alone."""
        return _face_succeeds(self.score, self.roll, natural=not self.shifted)

    @property
    def margin(self) -> int:
        """Return score - roll (negative on an ordinary failure)."""
        return self.score - self.roll

    @property
    def luck_room(self) -> int:
        """Return how many more tokens can still move the die (0 on naturals and at 1)."""
        if self.natural_one or self.natural_twenty:
            return 0
        return self.roll - 1


def _roll_test(rng: Rng, score: int, decision: ModeDecision) -> TestResult:
    """Roll a test whose inputs are already checked."""
    dice = roll_dice(rng, decision.mode.dice, DIE_SIDES)
    return TestResult(score=score, mode=decision.mode, dice=dice, reasons=decision.reasons)


def test(
    rng: Rng, score: int, *, advantage: bool = False, disadvantage: bool = False
) -> TestResult:
    """Roll a d20 under ``score`` (0-20); advantage keeps the lower of two, disadvantage the higher.

    Both together give a straight roll (house). Everything is checked before any die is rolled.
    """
    score = require_whole("Score", score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    decision = effective_mode(advantage=advantage, disadvantage=disadvantage)
    return _roll_test(rng, score, decision)


test.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def attribute_test(
    rng: Rng,
    sheet: Sheet,
    attribute: Score,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
) -> TestResult:
    """Roll a test of one of ``sheet``'s attributes, applying the carry limit to REF.

    A LCK test rolls under the current Luck tokens (a Luck test), not the LCK score.

    Raises:
        RulesError: ``attribute`` is Stamina (not tested), or a flag is not a bool.
    """
    attribute = Score(attribute)
    if attribute not in ATTRIBUTES:
        raise RulesError(
            f"{attribute} is not tested; choose one of: "
            f"{', '.join(score.value for score in ATTRIBUTES)}."
        )
    decision = effective_mode(
        attribute, advantage=advantage, disadvantage=disadvantage, items_carried=len(sheet.items)
    )
    score = sheet.luck_tokens if attribute is Score.LCK else sheet.score(attribute)
    return _roll_test(rng, score, decision)


def luck_test(
    rng: Rng, tokens: int, *, advantage: bool = False, disadvantage: bool = False
) -> TestResult:
    """Roll under the current token count (0 to 16), fixed when the roll is made."""
    tokens = require_whole("Luck tokens", tokens, 0, Score.LCK.maximum)
    return test(rng, tokens, advantage=advantage, disadvantage=disadvantage)


# --- Luck


def luck_surcharge(pressure: int) -> int:
    """Return the extra tokens every Luck spend costs at this Pressure step (house: +1 at 4)."""
    pressure = require_whole("Pressure", pressure, 0, PRESSURE_MAX)
    return LUCK_SURCHARGE if pressure >= LUCK_SURCHARGE_STEP else 0


def luck_cost(tokens: int, pressure: int = 0) -> int:
    """Return the tokens paid to shift the die by ``tokens``: one each, +1 per spend at step 4."""
    tokens = require_whole("Tokens", tokens, 1, Score.LCK.maximum)
    return tokens + luck_surcharge(pressure)


def _shift(result: TestResult, tokens: int) -> TestResult:
    """Return ``result`` with the die lowered by ``tokens`` more, refusing illegal shifts."""
    tokens = require_whole("Tokens", tokens, 1, Score.LCK.maximum)
    if result.natural_one or result.natural_twenty:
        raise RulesError(
            f"A natural {result.natural} can't be changed: Luck never moves natural 1s or 20s."
        )
    if tokens > result.luck_room:
        raise RulesError(
            f"Luck can lower this {result.roll} by at most {result.luck_room} "
            f"(a die never goes below 1); got {tokens}."
        )
    return replace(result, shift=result.shift + tokens)


class Side(StrEnum):
    """A side of an opposed roll or attack."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


class OpposedReason(StrEnum):
    """Why one side won an opposed roll, for the reply."""

    ONLY_ATTACKER_SUCCEEDED = "the attacker succeeded and the defender failed"
    ATTACKER_LARGER_MARGIN = "both succeeded; the attacker's margin is larger"
    TIED_MARGIN = "both succeeded with equal margins; a tie goes to the defender"
    DEFENDER_LARGER_MARGIN = "both succeeded; the defender's margin is larger"
    ONLY_DEFENDER_SUCCEEDED = "the attacker failed and the defender succeeded"
    BOTH_FAILED = "both failed; the defender holds"


def _attacker_wins(
    attacker_success: bool, attacker_margin: int, defender_success: bool, defender_margin: int
) -> bool:
    """Return whether the attacker wins: it succeeds and the defender fails or has less margin."""
    return attacker_success and (not defender_success or attacker_margin > defender_margin)


@dataclass(frozen=True, slots=True)
class OpposedResult:
    """Both tests of an opposed roll; the winner follows the current (Luck-shifted) dice."""

    attacker: TestResult
    defender: TestResult

    @property
    def winner(self) -> Side:
        """Return the side that wins; everything but a clear attacker win goes to the defender."""
        attacker, defender = self.attacker, self.defender
        if _attacker_wins(attacker.success, attacker.margin, defender.success, defender.margin):
            return Side.ATTACKER
        return Side.DEFENDER

    @property
    def reason(self) -> OpposedReason:
        """Return why the winner won."""
        attacker, defender = self.attacker, self.defender
        if attacker.success and not defender.success:
            return OpposedReason.ONLY_ATTACKER_SUCCEEDED
        if attacker.success:
            if attacker.margin > defender.margin:
                return OpposedReason.ATTACKER_LARGER_MARGIN
            if attacker.margin == defender.margin:
                return OpposedReason.TIED_MARGIN
            return OpposedReason.DEFENDER_LARGER_MARGIN
        if defender.success:
            return OpposedReason.ONLY_DEFENDER_SUCCEEDED
        return OpposedReason.BOTH_FAILED

    def side(self, which: Side) -> TestResult:
        """Return one side's test."""
        return self.attacker if which is Side.ATTACKER else self.defender

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, object]]) -> OpposedResult:
        """Rebuild a contest from ``dataclasses.asdict`` of one (as the roll log keeps it)."""
        return cls(
            attacker=TestResult(**data["attacker"]),  # type: ignore[arg-type]
            defender=TestResult(**data["defender"]),  # type: ignore[arg-type]
        )


def opposed(
    rng: Rng,
    attacker_score: int,
    defender_score: int,
    *,
    attacker_advantage: bool = False,
    attacker_disadvantage: bool = False,
    defender_advantage: bool = False,
    defender_disadvantage: bool = False,
) -> OpposedResult:
    """Roll the attacker's test, then the defender's; see ``OpposedResult.winner``."""
    attacker_score = require_whole("Attacker score", attacker_score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    defender_score = require_whole("Defender score", defender_score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    attacker_mode = effective_mode(advantage=attacker_advantage, disadvantage=attacker_disadvantage)
    defender_mode = effective_mode(advantage=defender_advantage, disadvantage=defender_disadvantage)
    return OpposedResult(
        attacker=_roll_test(rng, attacker_score, attacker_mode),
        defender=_roll_test(rng, defender_score, defender_mode),
    )


# --- Attacks


class Edge(StrEnum):
    """A weapon's edge: light +0, standard +1, brutal +2 damage."""

    LIGHT = "light"
    STANDARD = "standard"
    BRUTAL = "brutal"

    @property
    def bonus(self) -> int:
        """Return the damage the edge adds to the base 1."""
        return _EDGE_BONUS[self]


_EDGE_BONUS: Mapping[Edge, int] = MappingProxyType(
    {Edge.LIGHT: 0, Edge.STANDARD: 1, Edge.BRUTAL: 2}
)


@dataclass(frozen=True, slots=True)
class AttackResult:
    """An attack: the opposed roll, then damage, soak and damage taken (all derived).

    Damage = 1 + edge, +1 on a natural 1 or an attacker margin over 10 (once, not both).
    Soak = armour - 1 if explosive - 1 per full 4 points of attacker margin, minimum 0; a
    natural 1 ignores it. Damage taken = damage - soak, minimum 0. A miss deals nothing.
    """

    contest: OpposedResult
    edge: Edge = Edge.STANDARD
    armour: int = 0
    explosive: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "edge", Edge(self.edge))
        require_whole("Armour", self.armour, ARMOUR_MIN, ARMOUR_MAX)
        _require_flag("Explosive", self.explosive)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> AttackResult:
        """Rebuild an attack from ``dataclasses.asdict`` of one (as the roll log keeps it)."""
        contest = OpposedResult.from_dict(data["contest"])  # type: ignore[arg-type]
        return cls(contest, Edge(data["edge"]), data["armour"], data["explosive"])  # type: ignore[arg-type]

    @property
    def hit(self) -> bool:
        """Return whether the attacker won the opposed roll."""
        return self.contest.winner is Side.ATTACKER

    @property
    def margin(self) -> int:
        """Return the attacker's margin (score - roll, after Luck)."""
        return self.contest.attacker.margin

    @property
    def critical(self) -> bool:
        """Return whether the attacker rolled a natural 1."""
        return self.contest.attacker.natural_one

    @property
    def base_damage(self) -> int:
        """Return 1 + the weapon's edge."""
        return BASE_DAMAGE + self.edge.bonus

    @property
    def extra_damage(self) -> int:
        """Return +1 for a hit with a natural 1 or a margin over 10, else 0."""
        if self.hit and (self.critical or self.margin > CRITICAL_MARGIN):
            return EXTRA_DAMAGE
        return 0

    @property
    def damage(self) -> int:
        """Return the damage before soak (0 on a miss)."""
        return self.base_damage + self.extra_damage if self.hit else 0

    @property
    def soak_after_explosive(self) -> int:
        """Return armour less the point explosive or plasma weapons ignore (minimum 0)."""
        return max(self.armour - (EXPLOSIVE_SOAK_IGNORED if self.explosive else 0), 0)

    @property
    def soak_cut_by_margin(self) -> int:
        """Return 1 per full 4 points of attacker margin."""
        return max(self.margin, 0) // SOAK_MARGIN_STEP

    @property
    def soak_ignored(self) -> bool:
        """Return whether a natural 1 ignores all soak."""
        return self.hit and self.critical

    @property
    def soak(self) -> int:
        """Return the soak that remains (0 on a miss or a natural 1)."""
        if not self.hit or self.critical:
            return 0
        return max(self.soak_after_explosive - self.soak_cut_by_margin, 0)

    @property
    def damage_taken(self) -> int:
        """Return damage - soak, minimum 0."""
        return max(self.damage - self.soak, 0)


def attack(
    rng: Rng,
    attacker_score: int,
    defender_score: int,
    *,
    edge: Edge = Edge.STANDARD,
    armour: int = 0,
    explosive: bool = False,
    attacker_advantage: bool = False,
    attacker_disadvantage: bool = False,
    defender_advantage: bool = False,
    defender_disadvantage: bool = False,
) -> AttackResult:
    """Roll an attack (an opposed roll) and work out damage against ``armour`` (0-3)."""
    armour = require_whole("Armour", armour, ARMOUR_MIN, ARMOUR_MAX)
    explosive = _require_flag("Explosive", explosive)
    edge = Edge(edge)
    contest = opposed(
        rng,
        attacker_score,
        defender_score,
        attacker_advantage=attacker_advantage,
        attacker_disadvantage=attacker_disadvantage,
        defender_advantage=defender_advantage,
        defender_disadvantage=defender_disadvantage,
    )
    return AttackResult(contest, edge=edge, armour=armour, explosive=explosive)


# --- Spending Luck


@overload
def spend_luck(result: TestResult, tokens: int, *, side: None = None) -> TestResult: ...
@overload
def spend_luck(result: OpposedResult, tokens: int, *, side: Side) -> OpposedResult: ...
@overload
def spend_luck(result: AttackResult, tokens: int, *, side: Side) -> AttackResult: ...


def spend_luck(
    result: TestResult | OpposedResult | AttackResult, tokens: int, *, side: Side | None = None
) -> TestResult | OpposedResult | AttackResult:
    """Return the roll with one test's die lowered by ``tokens``, its outcome re-evaluated.

    Pure: paying the tokens (and any Pressure surcharge, see ``luck_cost``) is storage's job.
    Spends may come in several steps; each result remembers the shift so far. On an opposed
    roll or an attack, ``side`` says whose die moves.

    Raises:
        RulesError: a natural 1 or 20, or a shift that would take the die below 1.
        ValueError: ``side`` is missing for a contest, or given for a plain test (a caller bug).
    """
    if isinstance(result, TestResult):
        if side is not None:
            raise ValueError("a plain test has no sides")
        return _shift(result, tokens)
    if side is None:
        raise ValueError("say whose die Luck moves in an opposed roll or attack")
    contest = result.contest if isinstance(result, AttackResult) else result
    if side is Side.ATTACKER:
        moved = replace(contest, attacker=_shift(contest.attacker, tokens))
    else:
        moved = replace(contest, defender=_shift(contest.defender, tokens))
    return replace(result, contest=moved) if isinstance(result, AttackResult) else moved


def tokens_to_succeed(result: TestResult) -> int | None:
    """Return the fewest tokens that turn the test into a success (0 if it already succeeds).

    None when no spend can: a natural 20, or a score below 1 (the die can't go under 1).
    """
    if result.success:
        return 0
    needed = result.roll - result.score
    return needed if needed <= result.luck_room else None


def tokens_to_win(result: OpposedResult | AttackResult, side: Side) -> int | None:
    """Return the fewest tokens ``side`` spends on its own die to win (0 if it wins already).

    None when no spend can make it win (one spend is at most the largest Luck cap).
    """
    contest = result.contest if isinstance(result, AttackResult) else result
    for tokens in range(min(contest.side(side).luck_room, Score.LCK.maximum) + 1):
        moved = contest if tokens == 0 else spend_luck(contest, tokens, side=side)
        if moved.winner is side:
            return tokens
    return None


@dataclass(frozen=True, slots=True)
class LuckOffer:
    """A spend worth offering after an attack: the fewest tokens that give a better result."""

    tokens: int
    result: AttackResult

    @property
    def damage_taken(self) -> int:
        """Return the damage the defender would take after this spend."""
        return self.result.damage_taken


def attack_luck_offers(result: AttackResult, available: int) -> tuple[LuckOffer, ...]:
    """Return the attacker's worthwhile spends: each fewest-token spend that deals more damage.

    The three questions of the document in one list: turn a miss into a hit, push the margin
    over 10, cut soak by a full 4 points. ``available`` is the tokens the attacker can spend
    (after any Pressure surcharge). Offers beyond what the die can move are left out.
    """
    available = require_whole("Available tokens", available, 0, Score.LCK.maximum)
    offers: list[LuckOffer] = []
    best = result.damage_taken
    hit = result.hit
    room = min(result.contest.attacker.luck_room, available)
    for tokens in range(1, room + 1):
        moved = spend_luck(result, tokens, side=Side.ATTACKER)
        if moved.damage_taken > best or (moved.hit and not hit):
            offers.append(LuckOffer(tokens, moved))
            best, hit = moved.damage_taken, moved.hit
    return tuple(offers)


# --- Stamina, rest, milestones, advances


@dataclass(frozen=True, slots=True)
class StaminaChange:
    """Stamina before and after damage or healing; 0 is collapse."""

    sheet: Sheet
    before: int
    after: int

    @property
    def collapsed(self) -> bool:
        """Return whether Stamina is at 0 after the change."""
        return self.after == 0

    @property
    def newly_collapsed(self) -> bool:
        """Return whether this change took Stamina to 0 (announce it in the channel)."""
        return self.before > 0 and self.after == 0


def take_damage(sheet: Sheet, amount: int) -> StaminaChange:
    """Return the sheet after losing ``amount`` Stamina (0-20), never below 0."""
    amount = require_whole("Damage", amount, 0, HEALTH_CHANGE_MAX)
    after = max(sheet.current_stamina - amount, 0)
    return StaminaChange(replace(sheet, current_stamina=after), sheet.current_stamina, after)


def heal(sheet: Sheet, amount: int) -> StaminaChange:
    """Return the sheet after regaining ``amount`` Stamina (0-20), never above the STA score."""
    amount = require_whole("Healing", amount, 0, HEALTH_CHANGE_MAX)
    after = min(sheet.current_stamina + amount, sheet.stamina)
    return StaminaChange(replace(sheet, current_stamina=after), sheet.current_stamina, after)


class Rest(StrEnum):
    """A kind of rest: calm (+1 Luck), short (+1 Stamina), thorough care (+2 Stamina)."""

    CALM = "calm"
    SHORT = "short"
    THOROUGH = "thorough"


REST_GAINS: Mapping[Rest, tuple[int, int]] = MappingProxyType(
    {Rest.CALM: (1, 0), Rest.SHORT: (0, 1), Rest.THOROUGH: (0, 2)}
)
"""(Luck tokens, Stamina) each kind of rest restores, up to the caps."""


@dataclass(frozen=True, slots=True)
class RestResult:
    """The sheet after a rest, and what it actually restored (caps can swallow it)."""

    sheet: Sheet
    kind: Rest
    luck_gained: int
    stamina_gained: int


def rest(sheet: Sheet, kind: Rest) -> RestResult:
    """Return the sheet after a rest; gains stop at the LCK and STA scores."""
    kind = Rest(kind)
    luck, stamina = REST_GAINS[kind]
    tokens = min(sheet.luck_tokens + luck, sheet.luck)
    current = min(sheet.current_stamina + stamina, sheet.stamina)
    # Thorough care is the downtime that renews the cleansing rite (rules.sinew_pressure).
    rite_used = sheet.rite_used and kind is not Rest.THOROUGH
    return RestResult(
        sheet=replace(sheet, luck_tokens=tokens, current_stamina=current, rite_used=rite_used),
        kind=kind,
        luck_gained=tokens - sheet.luck_tokens,
        stamina_gained=current - sheet.current_stamina,
    )


@dataclass(frozen=True, slots=True)
class MilestoneResult:
    """The sheet after a milestone: +2 build points and Luck refilled to its cap."""

    sheet: Sheet
    build_points_gained: int
    tokens_restored: int


def milestone(sheet: Sheet) -> MilestoneResult:
    """Return the sheet with +2 build points and Luck tokens refilled to the LCK score."""
    points = sheet.build_points + MILESTONE_BUILD_POINTS
    if points > BUILD_POINTS_MAX:
        raise RulesError(
            f"A sheet banks at most {BUILD_POINTS_MAX} build points (has {sheet.build_points}); "
            "spend some first."
        )
    return MilestoneResult(
        sheet=replace(sheet, build_points=points, luck_tokens=sheet.luck),
        build_points_gained=MILESTONE_BUILD_POINTS,
        tokens_restored=sheet.luck - sheet.luck_tokens,
    )


def advance_gain(which: Score, value: int) -> int:
    """Return what 2 build points add to a score at ``value`` (0 at the upper rail).

    +1 at or above baseline; below baseline +2 but never past baseline (9 → 10 is +1).
    """
    if value >= which.baseline:
        return min(_GAIN_AT_OR_ABOVE_BASELINE, which.maximum - value)
    return min(_GAIN_BELOW_BASELINE, which.baseline - value)


@dataclass(frozen=True, slots=True)
class AdvanceResult:
    """A score bought up with build points."""

    sheet: Sheet
    score: Score
    before: int
    after: int
    cost: int


def advance(sheet: Sheet, which: Score) -> AdvanceResult:
    """Return the sheet after spending 2 build points on one score.

    Raising LCK also adds the new tokens, and raising STA the new Stamina: the raised cap
    comes filled (so a milestone spent on Luck ends refilled to the new cap).

    Raises:
        RulesError: fewer than 2 build points, or the score is at its rail (16, STA 9).
    """
    which = Score(which)
    before = sheet.score(which)
    gain = advance_gain(which, before)
    if gain == 0:
        raise RulesError(
            f"{which.value} is {before}, the most it can reach ({which.minimum}–{which.maximum}); "
            "choose another score."
        )
    if sheet.build_points < ADVANCE_COST:
        raise RulesError(
            f"Raising {which.value} costs {ADVANCE_COST} build points; you have "
            f"{sheet.build_points}. A milestone gives {MILESTONE_BUILD_POINTS}."
        )
    changes: dict[str, int] = {
        which.field: before + gain,
        "build_points": sheet.build_points - ADVANCE_COST,
    }
    if which is Score.LCK:
        changes["luck_tokens"] = sheet.luck_tokens + gain
    elif which is Score.STA:
        changes["current_stamina"] = sheet.current_stamina + gain
    return AdvanceResult(
        sheet=replace(sheet, **changes),  # type: ignore[arg-type]
        score=which,
        before=before,
        after=before + gain,
        cost=ADVANCE_COST,
    )


# --- Items, boons, armour


def add_item(sheet: Sheet, name: str) -> Sheet:
    """Return the sheet carrying one more substantial item (trimmed; duplicates allowed)."""
    name = _require_text("Item name", name, ITEM_NAME_MAX)
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
    """Return the sheet without the first item called ``name`` (any case, trimmed)."""
    wanted = _require_text("Item name", name, ITEM_NAME_MAX).casefold()
    for index, item in enumerate(sheet.items):
        if item.casefold() == wanted:
            return replace(sheet, items=sheet.items[:index] + sheet.items[index + 1 :])
    raise RulesError(
        f"No item called {name.strip()!r} is carried (items: {_listing(sheet.items)})."
    )


def add_boon(sheet: Sheet, text: str) -> Sheet:
    """Return the sheet with one more boon (free text, trimmed)."""
    text = _require_text("Boon", text, BOON_TEXT_MAX)
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


# --- Exact odds


def _mode_of(advantage: bool, disadvantage: bool) -> Mode:
    return effective_mode(advantage=advantage, disadvantage=disadvantage).mode


def _kept_distribution(mode: Mode) -> Distribution:
    """Return the distribution of the kept d20 (faces 1-20) for a mode."""
    if mode is Mode.STRAIGHT:
        return die(DIE_SIDES)
    which = Keep.LOWEST if mode is Mode.ADVANTAGE else Keep.HIGHEST
    return keep(2, DIE_SIDES, 1, which)


def _face_weights(mode: Mode) -> np.ndarray:
    """Return the integer weight of each kept face 1-20 (index 0 is face 1)."""
    kept = _kept_distribution(mode)
    weights = np.zeros(DIE_SIDES, dtype=np.int64)
    weights[kept.min_value - 1 : kept.max_value] = kept.weights
    return weights


_FACES = np.arange(1, DIE_SIDES + 1)


def _face_outcome(score: int, face: int) -> Outcome:
    """Return how an unshifted kept die counts against ``score``."""
    if face == 1:
        return Outcome.CRITICAL_SUCCESS
    if face == DIE_SIDES:
        return Outcome.CRITICAL_FAILURE
    return Outcome.SUCCESS if face <= score else Outcome.FAILURE


@dataclass(frozen=True, slots=True)
class TestOdds:
    """Exact chances of one test; ``rolls`` and ``outcomes`` are the chart (faces 1-20).

    Attributes:
        success: Chance of success (a natural 1 always succeeds, a natural 20 always fails).
        natural_one: Chance the kept die is a natural 1.
        natural_twenty: Chance the kept die is a natural 20.
        rolls: Distribution of the kept die.
        outcomes: How each face counts, aligned with ``rolls.outcomes()``.
    """

    __test__ = False  # not a pytest test class

    score: int
    mode: Mode
    success: Fraction
    natural_one: Fraction
    natural_twenty: Fraction
    rolls: Distribution
    outcomes: tuple[Outcome, ...]

    @property
    def failure(self) -> Fraction:
        """Return the chance of failure."""
        return 1 - self.success


def odds(score: int, *, advantage: bool = False, disadvantage: bool = False) -> TestOdds:
    """Return the exact chances of a test under ``score`` (0-20), no sampling."""
    score = require_whole("Score", score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    mode = _mode_of(advantage, disadvantage)
    rolls = _kept_distribution(mode)
    outcomes = tuple(_face_outcome(score, int(face)) for face in rolls.outcomes())
    wins = np.fromiter((outcome.succeeds for outcome in outcomes), dtype=bool, count=len(outcomes))
    return TestOdds(
        score=score,
        mode=mode,
        success=rolls.probability_where(wins),
        natural_one=rolls.probability(1),
        natural_twenty=rolls.probability(DIE_SIDES),
        rolls=rolls,
        outcomes=outcomes,
    )


@dataclass(frozen=True, slots=True)
class OpposedOdds:
    """Exact chances of an opposed roll, split the way the document explains them.

    Attributes:
        attacker_only_succeeds: Chance the attacker succeeds and the defender fails.
        attacker_wins_on_margin: Chance both succeed and the attacker's margin is larger.
    """

    attacker_score: int
    defender_score: int
    attacker_mode: Mode
    defender_mode: Mode
    attacker_only_succeeds: Fraction
    attacker_wins_on_margin: Fraction

    @property
    def attacker_wins(self) -> Fraction:
        """Return the chance the attacker wins."""
        return self.attacker_only_succeeds + self.attacker_wins_on_margin

    @property
    def defender_wins(self) -> Fraction:
        """Return the chance the defender wins (ties included)."""
        return 1 - self.attacker_wins


def opposed_odds(
    attacker_score: int,
    defender_score: int,
    *,
    attacker_advantage: bool = False,
    attacker_disadvantage: bool = False,
    defender_advantage: bool = False,
    defender_disadvantage: bool = False,
) -> OpposedOdds:
    """Return the exact chance that the attacker wins an opposed roll (before any Luck)."""
    attacker_score = require_whole("Attacker score", attacker_score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    defender_score = require_whole("Defender score", defender_score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    attacker_mode = _mode_of(attacker_advantage, attacker_disadvantage)
    defender_mode = _mode_of(defender_advantage, defender_disadvantage)
    attacker_weights = _face_weights(attacker_mode)
    defender_weights = _face_weights(defender_mode)
    attacker_success = np.array(
        [_face_succeeds(attacker_score, int(f), natural=True) for f in _FACES]
    )
    defender_success = np.array(
        [_face_succeeds(defender_score, int(f), natural=True) for f in _FACES]
    )
    # Rows: attacker's kept face; columns: defender's. Weight of a pair = product of weights.
    pair_weights = np.outer(attacker_weights, defender_weights)
    total = int(attacker_weights.sum()) * int(defender_weights.sum())
    only = np.outer(attacker_success, ~defender_success)
    larger = np.outer(attacker_success, defender_success) & (
        np.subtract.outer(attacker_score - _FACES, defender_score - _FACES) > 0
    )
    return OpposedOdds(
        attacker_score=attacker_score,
        defender_score=defender_score,
        attacker_mode=attacker_mode,
        defender_mode=defender_mode,
        attacker_only_succeeds=Fraction(int(pair_weights[only].sum()), total),
        attacker_wins_on_margin=Fraction(int(pair_weights[larger].sum()), total),
    )


@dataclass(frozen=True, slots=True)
class LuckOdds:
    """The chance of success holding ``tokens`` and spending only when it turns a failure.

    Attributes:
        tokens: Tokens held for this roll.
        success: Chance of success, spending as needed.
        gain: What the last token added over holding one fewer (0 for none held).
        expected_spend: Tokens paid on average (surcharge included).
    """

    tokens: int
    success: Fraction
    gain: Fraction
    expected_spend: Fraction


def luck_odds(
    score: int,
    tokens: int,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    pressure: int = 0,
) -> tuple[LuckOdds, ...]:
    """Return, for holding 0 to ``tokens`` tokens, the chance of success spending as needed.

    A failed die can be shifted down to the score when the tokens (plus the Pressure surcharge
    per spend) cover it; natural 1s succeed, natural 20s stay failures, and a score of 0 can't
    be reached (the die never goes below 1).
    """
    score = require_whole("Score", score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    tokens = require_whole("Tokens", tokens, 0, Score.LCK.maximum)
    surcharge = luck_surcharge(pressure)
    mode = _mode_of(advantage, disadvantage)
    weights = _face_weights(mode)
    total = int(weights.sum())
    rows: list[LuckOdds] = []
    previous: Fraction | None = None
    for held in range(tokens + 1):
        wins = spent = 0
        for face, weight in zip(_FACES.tolist(), weights.tolist(), strict=True):
            if _face_succeeds(score, face, natural=True):
                wins += weight
            elif face != DIE_SIDES and score >= 1 and face - score + surcharge <= held:
                wins += weight
                spent += weight * (face - score + surcharge)
        success = Fraction(wins, total)
        rows.append(
            LuckOdds(
                tokens=held,
                success=success,
                gain=Fraction(0) if previous is None else success - previous,
                expected_spend=Fraction(spent, total),
            )
        )
        previous = success
    return tuple(rows)
