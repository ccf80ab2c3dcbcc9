"""Extended challenges: successes needed within a number of rolls at one TN."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from rules.cosmos.dice import (
    CHALLENGE_NAME_MAX,
    CHALLENGE_ROLLS_MAX,
    CHALLENGE_SUCCESSES_MAX,
    CRITICAL_FAILURE_POINTS,
    CRITICAL_SUCCESS_POINTS,
    SUCCESS_POINTS,
    difficulty,
)
from rules.cosmos.rolls import CheckResult
from rules.errors import RulesError
from rules.inputs import checked_name, require_whole

# --- Extended challenges


class ChallengeStatus(StrEnum):
    """Whether an extended challenge still takes rolls."""

    OPEN = "open"
    WON = "won"
    LOST = "lost"
    ABANDONED = "abandoned"  # ended early by a GM, neither won nor lost


@dataclass(frozen=True, slots=True)
class Challenge:
    """An extended challenge: reach ``successes_needed`` within ``max_rolls`` rolls at ``tn``."""

    name: str
    tn: int
    successes_needed: int
    max_rolls: int
    successes: int = 0
    rolls_used: int = 0
    status: ChallengeStatus = ChallengeStatus.OPEN

    @property
    def rolls_left(self) -> int:
        """Return how many rolls remain."""
        return self.max_rolls - self.rolls_used


def start_challenge(name: str, tn: int, successes_needed: int, max_rolls: int) -> Challenge:
    """Return a new open challenge after validating it can be won at all; its name passes the
    check every name users give (docs/players/index.md, "Names")."""
    name = checked_name(name, "Challenge name", CHALLENGE_NAME_MAX)
    difficulty(tn)
    needed = require_whole("Successes needed", successes_needed, 1, CHALLENGE_SUCCESSES_MAX)
    rolls = require_whole("Max rolls", max_rolls, 1, CHALLENGE_ROLLS_MAX)
    if needed > rolls * CRITICAL_SUCCESS_POINTS:
        raise RulesError(
            f"{needed} successes can't be reached in {rolls} rolls (at most "
            f"{CRITICAL_SUCCESS_POINTS} per roll); allow at least "
            f"{-(-needed // CRITICAL_SUCCESS_POINTS)} rolls."
        )
    return Challenge(name=name, tn=int(tn), successes_needed=needed, max_rolls=rolls)


def _require_open(challenge: Challenge) -> None:
    if challenge.status is not ChallengeStatus.OPEN:
        raise RulesError(
            f"Challenge {challenge.name!r} has ended ({challenge.status.value}); "
            "start a new one to keep rolling."
        )


def check_challenge_roll(challenge: Challenge, tn: int) -> None:
    """Raise RulesError unless a roll at ``tn`` may count towards the challenge."""
    _require_open(challenge)
    if tn != challenge.tn:
        raise RulesError(
            f"Challenge {challenge.name!r} is at TN {challenge.tn}; roll against TN "
            f"{challenge.tn} (got {tn})."
        )


def abandon_challenge(challenge: Challenge) -> Challenge:
    """Return the challenge ended early by its GM, neither won nor lost."""
    _require_open(challenge)
    return replace(challenge, status=ChallengeStatus.ABANDONED)


def challenge_points(result: CheckResult) -> int:
    """Return what a roll adds to a challenge: +2, +1, 0 or -1 for a critical failure."""
    if result.roll.critical_success:
        return CRITICAL_SUCCESS_POINTS
    if result.roll.critical_failure:
        return CRITICAL_FAILURE_POINTS
    return SUCCESS_POINTS if result.success else 0


def advance_challenge(challenge: Challenge, result: CheckResult) -> Challenge:
    """Return the challenge after one roll counts towards it.

    Success +1, critical success +2, critical failure -1 (house), plain failure 0. The tally
    never goes below 0 (house): a critical failure with no successes banked costs nothing more
    than the roll. Reaching the successes wins, even on the last allowed roll; otherwise using
    the last roll loses.

    Raises:
        RulesError: the challenge has ended, or the roll was made against another TN.
    """
    check_challenge_roll(challenge, result.tn)
    successes = max(0, challenge.successes + challenge_points(result))
    rolls_used = challenge.rolls_used + 1
    if successes >= challenge.successes_needed:
        status = ChallengeStatus.WON
    elif rolls_used >= challenge.max_rolls:
        status = ChallengeStatus.LOST
    else:
        status = ChallengeStatus.OPEN
    return replace(challenge, successes=successes, rolls_used=rolls_used, status=status)
