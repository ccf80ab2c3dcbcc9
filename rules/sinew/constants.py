"""Sinew & Steel's campaign declaration and constants (docs/players/sinew.md, "Rules notes").

(house) marks our own defaults, where docs/players/sinew.md lists a decision of ours.
"""

from __future__ import annotations

from enum import StrEnum

import numpy as np

from rules.declarations import Setting, TrackSpec
from rules.errors import RulesError
from rules.systems import System

# --- Campaign declaration (settings and tracks the store keeps)

SYSTEM = System("sinew", "Sinew & Steel")

PRESSURE_MAX = 5  # reaching it triggers a Crisis
TAMPER_STEP = 1  # a failed tamper adds 1 Pressure (rules.sinew_pressure.tamper)


class Skin(StrEnum):
    """The flavour of the Pressure steps' colour texts and Crisis names (data/sinew/skins)."""

    FANTASY = "fantasy"
    SCIFI = "scifi"


SKIN: Setting[Skin] = Setting(
    name="skin",
    label="Skin",
    help="Sinew & Steel only: flavour of announcements, fantasy (default) or sci-fi",
    kind=Skin,
    default=Skin.FANTASY,
    changeable=True,
)

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

# The system's declaration (with its roll kinds, which read the rules' results) is in
# rules/sinew/kinds.py. Luck tokens and Stamina live on the sheet (SHEET_CODEC below), not in
# tracks: they have per-character caps (the LCK and STA scores) that a fixed maximum can't express.

# --- Constants (docs/players/sinew.md, "Rules notes"); (house) marks our own defaults

DIE_SIDES = 20
TEST_SCORE_MIN, TEST_SCORE_MAX = 0, 20
"""Scores a test accepts: 0 for a Luck test with no tokens left, up to 20 for a GM's NPC."""

PAID_PER_POINT_ABOVE = 2
"""Creation ledger: every +1 above baseline is paid by exactly this many points below."""

ADVANCE_COST = 2
MILESTONE_BUILD_POINTS = 2

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
LUCK_REASON_MAX = 200  # an input limit: the reason for a GM's windfall of Luck
BOON_TEXT_MAX = 200
BOONS_MAX = 20
BUILD_POINTS_MAX = 100
HEALTH_CHANGE_MAX = 20
"""Most Stamina one damage or healing step may change (an input limit)."""


def require_flag(label: str, value: object) -> bool:
    """Return ``value`` if it is a bool, else raise RulesError."""
    if not isinstance(value, bool | np.bool_):
        raise RulesError(f"{label} must be true or false (got {value!r}).")
    return bool(value)
