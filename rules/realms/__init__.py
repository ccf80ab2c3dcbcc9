"""Enchanted Realms: the extra or lost die, multi-strike attacks, single-die rolls.

The rules and our decisions: docs/players/realms.md, "Rules notes".

Advantage and disadvantage never stack: any number of advantages is "at advantage", any mix of
both is neither, unless the GM forces one (a specific effect that overrides the cancel rule).
In combat advantage adds a d20 (and +2 damage once per target struck, for the primary attack
only), disadvantage removes one (and -2); an attack left with 0 dice rolls two d20 and keeps
the lower, one strike. Each d20 at or above the to-hit number is a strike that hits; a natural
20 always hits. A target whose net damage is 0 or less is missed (no riders), unless a strike on
it was a natural 20: then it takes 1 damage and riders apply. Single-die rolls (saves, checks,
competitions, reactions, stealth, concentration) roll two dice and keep the better or worse.
Disadvantage always means half movement this round. The reroll of one die is a trait: in a
campaign only its holders and a GM (their own rolls) reroll (``may_reroll``).

Everything here is pure: dice come from an injected generator and odds are exact.
"""

from __future__ import annotations

from rules.declarations import SystemDeclaration
from rules.realms.attacks import (
    AttackResult,
    TargetResult,
    attack,
)
from rules.realms.chances import (
    AttackOdds,
    CheckOdds,
    attack_odds,
    check_odds,
    single_die,
)
from rules.realms.checks import (
    CheckKind,
    CheckResult,
    SingleDie,
    SpellKind,
    SpellResult,
    StealthResult,
    check,
    spell,
    stealth,
)
from rules.realms.damage import (
    DAMAGE_HELP,
    DamageExpression,
    parse_damage,
    parse_split,
)
from rules.realms.kinds import ROLL_KINDS
from rules.realms.rerolls import (
    RerollableResult,
    Rerolled,
    RollKind,
    reroll,
    reroll_logged,
)
from rules.realms.states import (
    ATTACK_DICE_MAX,
    DAMAGE_TEXT_MAX,
    HALF_MOVEMENT,
    SOURCES_MAX,
    SPELL_COST_MAX,
    STEALTH_DICE_MAX,
    TARGET_MAX,
    TO_HIT_MAX,
    TO_HIT_MIN,
    Decision,
    Force,
    State,
    decide,
)
from rules.realms.traits import RerollPermission, Trait, may_reroll
from rules.systems import System

SYSTEM = System("realms", "Enchanted Realms")
# No campaign settings, tracks or characters kept.
DECLARATION = SystemDeclaration(system=SYSTEM, roll_kinds=ROLL_KINDS)

__all__ = [
    "ATTACK_DICE_MAX",
    "DAMAGE_HELP",
    "DAMAGE_TEXT_MAX",
    "DECLARATION",
    "HALF_MOVEMENT",
    "SOURCES_MAX",
    "SPELL_COST_MAX",
    "STEALTH_DICE_MAX",
    "SYSTEM",
    "TARGET_MAX",
    "TO_HIT_MAX",
    "TO_HIT_MIN",
    "AttackOdds",
    "AttackResult",
    "CheckKind",
    "CheckOdds",
    "CheckResult",
    "DamageExpression",
    "Decision",
    "Force",
    "RerollPermission",
    "RerollableResult",
    "Rerolled",
    "RollKind",
    "SingleDie",
    "SpellKind",
    "SpellResult",
    "State",
    "StealthResult",
    "TargetResult",
    "Trait",
    "attack",
    "attack_odds",
    "check",
    "check_odds",
    "decide",
    "may_reroll",
    "parse_damage",
    "parse_split",
    "reroll",
    "reroll_logged",
    "single_die",
    "spell",
    "stealth",
]
