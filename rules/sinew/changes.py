"""Sinew & Steel stamina, rest, milestones and advances: a sheet's changes in play.

docs/players/sinew.md, "Rules notes".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.sinew.constants import (
    ADVANCE_COST,
    BUILD_POINTS_MAX,
    HEALTH_CHANGE_MAX,
    LUCK_REASON_MAX,
    MILESTONE_BUILD_POINTS,
)
from rules.sinew.sheet import Score, Sheet

_GAIN_AT_OR_ABOVE_BASELINE = 1
_GAIN_BELOW_BASELINE = 2

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


@dataclass(frozen=True, slots=True)
class LuckGrant:
    """A GM's windfall: the sheet after it, the tokens before, and how many it gave."""

    sheet: Sheet
    before: int
    granted: int
    reason: str


def grant_luck(sheet: Sheet, tokens: int, reason: str) -> LuckGrant:
    """Return the sheet after the GM gives ``tokens`` (1-16) Luck tokens, never above the cap
    (the LCK score), for ``reason`` (free text, trimmed, 1-200 characters).

    docs/players/sinew.md, "GM windfall": at the cap it gives nothing and is not
    an error (as a rest at a cap).
    """
    tokens = require_whole("Tokens", tokens, 1, Score.LCK.maximum)
    text = reason.strip() if isinstance(reason, str) else ""
    if not 1 <= len(text) <= LUCK_REASON_MAX:
        raise RulesError(f"Say why, in 1–{LUCK_REASON_MAX} characters.")
    after = min(sheet.luck_tokens + tokens, sheet.luck)
    granted = after - sheet.luck_tokens
    return LuckGrant(replace(sheet, luck_tokens=after), sheet.luck_tokens, granted, text)


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
    # Any: mypy checks a ** dict against every field of the sheet; these are its int fields.
    changes: dict[str, Any] = {
        which.field: before + gain,
        "build_points": sheet.build_points - ADVANCE_COST,
    }
    if which is Score.LCK:
        changes["luck_tokens"] = sheet.luck_tokens + gain
    elif which is Score.STA:
        changes["current_stamina"] = sheet.current_stamina + gain
    return AdvanceResult(
        sheet=replace(sheet, **changes),
        score=which,
        before=before,
        after=before + gain,
        cost=ADVANCE_COST,
    )
