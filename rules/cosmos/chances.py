"""Exact odds of one roll (no sampling)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from rules.cosmos.dice import (
    CRITICAL_FAILURE_SUM,
    CRITICAL_SUCCESS_SUM,
    DIE_SIDES,
    KEPT_DICE,
    Difficulty,
    Pool,
    difficulty,
    require_modifiers,
    succeeds,
)
from rules.odds import Distribution, Outcome, keep, kept_all_equal

# --- Exact odds


@dataclass(frozen=True, slots=True)
class CosmosOdds:
    """Exact chances of one roll; probabilities are Fractions, ``totals`` is for the chart.

    Attributes:
        success: Chance of success, with the house rule that criticals decide alone.
        critical_success: Chance that both kept dice are 10.
        critical_failure: Chance that both kept dice are 1.
        mean_total: Mean of kept dice + modifier.
        totals: Distribution of kept dice + modifier.
        outcomes: How each total counts, aligned with ``totals.outcomes()``; ``success`` is
            the chance of the totals whose outcome succeeds. Each total comes from exactly one
            kept sum (the modifier is fixed), and the criticals are the kept sums 20 and 2, so
            every roll with the same total counts the same way.
    """

    attribute: int
    skill: int
    tn: int
    pool: Pool
    difficulty: Difficulty
    success: Fraction
    critical_success: Fraction
    critical_failure: Fraction
    mean_total: Fraction
    totals: Distribution
    outcomes: tuple[Outcome, ...]

    @property
    def failure(self) -> Fraction:
        """Return the chance of failure."""
        return 1 - self.success


def odds(
    attribute: int, skill: int, tn: int, advantage: int = 0, disadvantage: int = 0
) -> CosmosOdds:
    """Return the exact chances of success and criticals for one roll (no sampling)."""
    pool = Pool(advantage, disadvantage)
    attribute, skill = require_modifiers(attribute, skill)
    modifier = attribute + skill
    label = difficulty(tn)
    kept = keep(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep)
    outcomes, wins = _kept_sum_outcomes(kept.min_value, kept.max_value, modifier, int(tn))
    totals = kept + modifier
    return CosmosOdds(
        attribute=attribute,
        skill=skill,
        tn=int(tn),
        pool=pool,
        difficulty=label,
        success=kept.probability_where(wins),
        critical_success=kept_all_equal(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep, DIE_SIDES),
        critical_failure=kept_all_equal(pool.dice, DIE_SIDES, KEPT_DICE, pool.keep, 1),
        mean_total=totals.mean(),
        totals=totals,
        outcomes=outcomes,
    )


# Kept sums run 2-20 whatever the pool, so 11 modifiers x 39 TNs are every case there is.
@lru_cache(maxsize=512)
def _kept_sum_outcomes(
    low: int, high: int, modifier: int, tn: int
) -> tuple[tuple[Outcome, ...], np.ndarray]:
    """Return the outcome of each kept sum from ``low`` to ``high``, and which ones succeed."""
    outcomes = tuple(_kept_sum_outcome(kept_sum, modifier, tn) for kept_sum in range(low, high + 1))
    wins = np.array([outcome.succeeds for outcome in outcomes], dtype=bool)
    wins.flags.writeable = False  # shared by every call with these arguments
    return outcomes, wins


def _kept_sum_outcome(kept_sum: int, modifier: int, tn: int) -> Outcome:
    """Return how a roll whose kept dice sum to ``kept_sum`` counts, by the rule of a roll."""
    # Two kept d10 sum to 20 only when both are 10 and to 2 only when both are 1.
    critical_success = kept_sum == CRITICAL_SUCCESS_SUM
    critical_failure = kept_sum == CRITICAL_FAILURE_SUM
    success = succeeds(
        kept_sum + modifier,
        tn,
        critical_success=critical_success,
        critical_failure=critical_failure,
    )
    if success:
        return Outcome.CRITICAL_SUCCESS if critical_success else Outcome.SUCCESS
    return Outcome.CRITICAL_FAILURE if critical_failure else Outcome.FAILURE
