"""Cosmos Engine: 2d10 keep-two with advantage/disadvantage dice (docs/players/cosmos.md, "Rules
notes").

Total = the two kept d10 + Attribute (0-5) + Skill (0-5); success when total >= TN (2-40).
Advantage and disadvantage are counts of sources: they cancel 1:1, the net is capped at 5, and the
pool is 2 + |net| d10, keeping the two highest (advantage) or the two lowest (disadvantage).
Both kept dice 10 is a critical success, both 1 a critical failure, at any pool. A critical
success always succeeds and a critical failure always fails (house).

Tables (critical effects, conversion) are data: the bot loads ``data/cosmos/*.toml`` and passes
the mappings to ``parse_critical_effects`` / ``parse_conversion``; this package does no I/O.
"""

from __future__ import annotations

from rules.cosmos.challenges import (
    Challenge,
    ChallengeStatus,
    abandon_challenge,
    advance_challenge,
    challenge_points,
    check_challenge_roll,
    start_challenge,
)
from rules.cosmos.chances import (
    CosmosOdds,
    odds,
)

# The odds cache itself: bench/bench_odds.py times it (`cosmos._kept_sum_outcomes`).
from rules.cosmos.chances import _kept_sum_outcomes as _kept_sum_outcomes
from rules.cosmos.conversion import (
    Band,
    Conversion,
    ConversionTables,
    Era,
    convert,
    parse_conversion,
)
from rules.cosmos.dice import (
    ADVANTAGE_CAP,
    ADVANTAGE_SOURCES_MAX,
    ATTRIBUTE_MAX,
    ATTRIBUTE_MIN,
    BASE_DICE,
    CHALLENGE_NAME_MAX,
    CHALLENGE_ROLLS_MAX,
    CHALLENGE_SUCCESSES_MAX,
    CRITICAL_FAILURE_POINTS,
    CRITICAL_SUCCESS_POINTS,
    DIE_SIDES,
    DIFFICULTY_BANDS,
    KEPT_DICE,
    RATING_MAX,
    SITUATIONAL_LIMIT,
    SKILL_MAX,
    SKILL_MIN,
    SUCCESS_POINTS,
    TN_MAX,
    TN_MIN,
    Difficulty,
    Pool,
    PoolMode,
    describe_difficulties,
    difficulty,
    succeeds,
)
from rules.cosmos.effects import (
    ACTIONS_BY_SCALE,
    Action,
    CriticalEffects,
    Scale,
    check_scale_action,
    parse_action,
    parse_critical_effects,
    parse_scale,
)
from rules.cosmos.kinds import ROLL_KINDS
from rules.cosmos.rolls import (
    CheckResult,
    OpposedResult,
    PoolRoll,
    Side,
    opposed,
    roll,
)
from rules.declarations import SystemDeclaration
from rules.systems import System

SYSTEM = System("cosmos", "Cosmos Engine")
# No campaign settings or tracks: open challenges have their own table.
DECLARATION = SystemDeclaration(system=SYSTEM, roll_kinds=ROLL_KINDS)

__all__ = [
    "ACTIONS_BY_SCALE",
    "ADVANTAGE_CAP",
    "ADVANTAGE_SOURCES_MAX",
    "ATTRIBUTE_MAX",
    "ATTRIBUTE_MIN",
    "BASE_DICE",
    "CHALLENGE_NAME_MAX",
    "CHALLENGE_ROLLS_MAX",
    "CHALLENGE_SUCCESSES_MAX",
    "CRITICAL_FAILURE_POINTS",
    "CRITICAL_SUCCESS_POINTS",
    "DECLARATION",
    "DIE_SIDES",
    "DIFFICULTY_BANDS",
    "KEPT_DICE",
    "RATING_MAX",
    "SITUATIONAL_LIMIT",
    "SKILL_MAX",
    "SKILL_MIN",
    "SUCCESS_POINTS",
    "SYSTEM",
    "TN_MAX",
    "TN_MIN",
    "Action",
    "Band",
    "Challenge",
    "ChallengeStatus",
    "CheckResult",
    "Conversion",
    "ConversionTables",
    "CosmosOdds",
    "CriticalEffects",
    "Difficulty",
    "Era",
    "OpposedResult",
    "Pool",
    "PoolMode",
    "PoolRoll",
    "Scale",
    "Side",
    "abandon_challenge",
    "advance_challenge",
    "challenge_points",
    "check_challenge_roll",
    "check_scale_action",
    "convert",
    "describe_difficulties",
    "difficulty",
    "odds",
    "opposed",
    "parse_action",
    "parse_conversion",
    "parse_critical_effects",
    "parse_scale",
    "roll",
    "start_challenge",
    "succeeds",
]
