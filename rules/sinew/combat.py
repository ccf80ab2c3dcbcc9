"""Sinew & Steel opposed rolls and attacks: who wins, damage and soak.

docs/players/sinew.md, "Rules notes". Opposed rolls compare real margins and a tie goes to the
defender; an attack is an opposed roll, then damage (1 + edge, +1 once for a natural 1 or a
margin over 10) less soak.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.inputs import require_whole
from rules.randomness import Rng
from rules.sinew.constants import (
    ARMOUR_MAX,
    ARMOUR_MIN,
    BASE_DAMAGE,
    CRITICAL_MARGIN,
    EXPLOSIVE_SOAK_IGNORED,
    EXTRA_DAMAGE,
    SOAK_MARGIN_STEP,
    TEST_SCORE_MAX,
    TEST_SCORE_MIN,
    require_flag,
)
from rules.sinew.sheet import Score, Sheet
from rules.sinew.tests import ModeDecision, TestResult, effective_mode, roll_test


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
    def from_dict(cls, data: Mapping[str, Any]) -> OpposedResult:
        """Rebuild a contest from ``dataclasses.asdict`` of one (as the roll log keeps it)."""
        return cls(
            attacker=TestResult(**data["attacker"]),
            defender=TestResult(**data["defender"]),
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
        attacker=roll_test(rng, attacker_score, attacker_mode),
        defender=roll_test(rng, defender_score, defender_mode),
    )


@dataclass(frozen=True, slots=True)
class Contender:
    """One side of a contest before it is rolled: its name as shown, score, mode and why."""

    name: str
    score: int
    decision: ModeDecision


def contender(
    name: str,
    score: int,
    attribute: Score | None = None,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    items_carried: int = 0,
) -> Contender:
    """Return one side of a contest: ``attribute`` None is a bare score (a GM's defender).

    The carry limit gives a REF side disadvantage, with the reason (see ``effective_mode``).
    """
    decision = effective_mode(
        attribute, advantage=advantage, disadvantage=disadvantage, items_carried=items_carried
    )
    return Contender(name, score, decision)


def roll_opposed(rng: Rng, attacker: Contender, defender: Contender) -> OpposedResult:
    """Roll the attacker's test, then the defender's, each with its mode and reasons."""
    attacker_score = require_whole("Attacker score", attacker.score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    defender_score = require_whole("Defender score", defender.score, TEST_SCORE_MIN, TEST_SCORE_MAX)
    return OpposedResult(
        attacker=roll_test(rng, attacker_score, attacker.decision),
        defender=roll_test(rng, defender_score, defender.decision),
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
        require_flag("Explosive", self.explosive)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackResult:
        """Rebuild an attack from ``dataclasses.asdict`` of one (as the roll log keeps it)."""
        contest = OpposedResult.from_dict(data["contest"])
        return cls(contest, Edge(data["edge"]), data["armour"], data["explosive"])

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
    explosive = require_flag("Explosive", explosive)
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


def roll_attack(
    rng: Rng,
    attacker: Contender,
    defender: Contender,
    *,
    edge: Edge = Edge.STANDARD,
    armour: int = 0,
    explosive: bool = False,
) -> AttackResult:
    """Roll an attack between two contenders and work out damage against ``armour`` (0-3)."""
    armour = require_whole("Armour", armour, ARMOUR_MIN, ARMOUR_MAX)
    explosive = require_flag("Explosive", explosive)
    edge = Edge(edge)
    contest = roll_opposed(rng, attacker, defender)
    return AttackResult(contest, edge=edge, armour=armour, explosive=explosive)


def attack_armour(asked: int | None, defender: Sheet | None) -> int:
    """Return the armour an attack meets: as asked, else the defending sheet's, else 0."""
    if asked is not None:
        return asked
    return defender.armour if defender is not None else 0
