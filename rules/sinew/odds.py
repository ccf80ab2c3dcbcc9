"""Exact Sinew & Steel odds: tests, opposed rolls and Luck, from integer weights.

docs/players/sinew.md, "Rules notes". Every chance counts integer weights from ``rules.odds``; it
never samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from rules.inputs import require_whole
from rules.odds import Distribution, Keep, Outcome, die, keep
from rules.sinew.constants import DIE_SIDES, TEST_SCORE_MAX, TEST_SCORE_MIN
from rules.sinew.luck import luck_surcharge
from rules.sinew.sheet import Score
from rules.sinew.tests import Mode, effective_mode, face_succeeds

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
        [face_succeeds(attacker_score, int(f), natural=True) for f in _FACES]
    )
    defender_success = np.array(
        [face_succeeds(defender_score, int(f), natural=True) for f in _FACES]
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
            if face_succeeds(score, face, natural=True):
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
