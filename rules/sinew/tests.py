"""Sinew & Steel tests: roll-under d20, advantage and disadvantage, the carry limit.

docs/players/sinew.md, "Rules notes". A test rolls one d20 (two with advantage or disadvantage,
keeping the lower or the higher) and succeeds when the kept die is at most the score. A natural
1 always succeeds and a natural 20 always fails. Margin = score - roll. Luck tokens shift the die
down by 1 each after the roll (``rules.sinew.luck``); naturals can't be shifted and a shifted die
never goes below 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.sinew.constants import (
    CARRY_LIMIT,
    DIE_SIDES,
    ITEMS_MAX,
    TEST_SCORE_MAX,
    TEST_SCORE_MIN,
    require_flag,
)
from rules.sinew.sheet import ATTRIBUTES, CARRY_LIMIT_SCORE, Score, Sheet, parse_score

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
    advantage = require_flag("Advantage", advantage)
    disadvantage = require_flag("Disadvantage", disadvantage)
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


def face_succeeds(score: int, face: int, *, natural: bool) -> bool:
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
        return face_succeeds(self.score, self.roll, natural=not self.shifted)

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


def roll_test(rng: Rng, score: int, decision: ModeDecision) -> TestResult:
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
    return roll_test(rng, score, decision)


test.__dict__["__test__"] = False  # not a pytest test


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
    attribute = require_attribute(attribute)
    decision = effective_mode(
        attribute, advantage=advantage, disadvantage=disadvantage, items_carried=len(sheet.items)
    )
    return roll_test(rng, tested_score(sheet, attribute), decision)


def require_attribute(score: Score) -> Score:
    """Return ``score`` if it is one of the five tested attributes, else raise RulesError.

    Stamina is not tested (docs/players/sinew.md, "Carry limit").
    """
    score = Score(score)
    if score not in ATTRIBUTES:
        raise RulesError(
            f"{score} is not tested; choose one of: "
            f"{', '.join(attribute.value for attribute in ATTRIBUTES)}."
        )
    return score


def parse_attribute(name: str) -> Score:
    """Return the tested attribute called ``name`` ("ref", "Reflex", …), or raise RulesError."""
    return require_attribute(parse_score(name))


def tested_score(sheet: Sheet, attribute: Score) -> int:
    """Return what a test of ``attribute`` rolls under: LCK rolls under the tokens left."""
    return sheet.luck_tokens if attribute is Score.LCK else sheet.score(attribute)


def luck_test(
    rng: Rng, tokens: int, *, advantage: bool = False, disadvantage: bool = False
) -> TestResult:
    """Roll under the current token count (0 to 16), fixed when the roll is made."""
    tokens = require_whole("Luck tokens", tokens, 0, Score.LCK.maximum)
    return test(rng, tokens, advantage=advantage, disadvantage=disadvantage)
