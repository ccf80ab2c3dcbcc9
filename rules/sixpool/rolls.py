"""Six-pool d20 rolls: modifiers, the d20 (with advantage), degrees, take 10/20, contests.

docs/players/sixpool.md, "Rules notes". A roll succeeds when the total meets the DC (or AC); a
natural 20 always succeeds and a natural 1 always fails, and the total still sets the degree by
margin. Advantage keeps the higher of 2d20, disadvantage the lower; they never stack and one of each
cancels; the spend goes on the kept die. Dice come from an injected generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.sixpool.characters import (
    DC_MAX,
    DC_MIN,
    DEGREE_CRITICAL,
    DEGREE_STRONG,
    DIE_SIDES,
    EDGE_B_POINT_VALUE,
    PASSIVE_BASE,
    TAKE_VALUES,
    EdgeOption,
    Pool,
    Sheet,
    Situation,
    Training,
)


class Mode(StrEnum):
    STRAIGHT = "straight"
    ADVANTAGE = "advantage"  # 2d20, keep the higher
    DISADVANTAGE = "disadvantage"  # 2d20, keep the lower

    @property
    def dice(self) -> int:
        return 1 if self is Mode.STRAIGHT else 2


def mode_of(advantage: bool, disadvantage: bool) -> Mode:
    """Return the mode: sources never stack, and one of each cancels."""
    if advantage and not disadvantage:
        return Mode.ADVANTAGE
    if disadvantage and not advantage:
        return Mode.DISADVANTAGE
    return Mode.STRAIGHT


class RollKind(StrEnum):
    CHECK = "check"
    ATTACK = "attack"
    SAVE = "save"
    CONTEST = "contest"


class Degree(StrEnum):
    """Degrees of success by margin (total - DC)."""

    CRITICAL_SUCCESS = "critical success"
    STRONG_SUCCESS = "strong success"
    SUCCESS = "success"
    FAILURE = "failure"
    BAD_FAILURE = "bad failure"
    CRITICAL_FAILURE = "critical failure"

    @property
    def succeeds(self) -> bool:
        return self in (Degree.CRITICAL_SUCCESS, Degree.STRONG_SUCCESS, Degree.SUCCESS)


def degree(margin: int, natural: int | None) -> Degree:
    """Return the degree of a margin; a natural 20 or 1 overrides success, not the degree.

    A natural 20 on a failing margin is a plain success; a natural 1 on a succeeding margin a plain
    failure (docs/players/sixpool.md, "Rules notes"). ``natural`` None: a take 10/20, never natural.
    """
    if margin >= DEGREE_CRITICAL:
        found = Degree.CRITICAL_SUCCESS
    elif margin >= DEGREE_STRONG:
        found = Degree.STRONG_SUCCESS
    elif margin >= 0:
        found = Degree.SUCCESS
    elif margin > -DEGREE_STRONG:
        found = Degree.FAILURE
    elif margin > -DEGREE_CRITICAL:
        found = Degree.BAD_FAILURE
    else:
        found = Degree.CRITICAL_FAILURE
    if natural == DIE_SIDES and not found.succeeds:
        return Degree.SUCCESS
    if natural == 1 and found.succeeds:
        return Degree.FAILURE
    return found


@dataclass(frozen=True, slots=True)
class Modifier:
    """One itemised part of a roll's total."""

    label: str
    value: int


def spend_bonus(points: int, edge: int, option: EdgeOption) -> int:
    """Return what ``points`` spent add: +1 each, or with Edge option B +2 for each of the first
    Edge+1 (no Edge, no bonus: Edge 0 is plain +1 each)."""
    if option is EdgeOption.B and edge > 0:
        cheap = min(points, edge + 1)
        return cheap * EDGE_B_POINT_VALUE + (points - cheap)
    return points


def modifiers(
    sheet: Sheet,
    pool: Pool,
    training: Training,
    points: int,
    option: EdgeOption,
    *,
    training_label: str,
    always_proficient: bool = False,
) -> tuple[Modifier, ...]:
    """Itemise a roll's modifiers: proficiency, training, Edge (A), the spend (B doubles some)."""
    parts: list[Modifier] = []
    if always_proficient and training is Training.UNTRAINED:
        training = Training.TRAINED
    prof, extra = training.bonus(sheet.proficiency)
    if prof:
        parts.append(Modifier(f"proficiency ({training_label})", prof))
    if extra:
        parts.append(Modifier(f"{training.value} training", extra))
    edge = sheet.edge(pool)
    if option is EdgeOption.A and edge:
        parts.append(Modifier(f"{pool} Edge {edge} (option A)", edge))
    if points:
        bonus = spend_bonus(points, edge, option)
        label = f"{points} {pool} point{'s' if points != 1 else ''} spent"
        if bonus != points:
            label += f" (Edge {edge}, option B)"
        parts.append(Modifier(label, bonus))
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class RollResult:
    """One d20 roll: the dice, the kept one, itemised modifiers, DC, total, degree.

    ``take``: 10 or 20 when the die was not rolled (take 10 / take 20): never natural.
    """

    mode: Mode
    dice: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    dc: int
    base_dc: int
    situation: Situation = Situation.NORMAL
    take: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "mode", Mode(self.mode))
        object.__setattr__(self, "situation", Situation(self.situation))
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(
            self,
            "modifiers",
            tuple(m if isinstance(m, Modifier) else Modifier(**m) for m in self.modifiers),
        )
        if self.take is None and len(self.dice) != self.mode.dice:
            raise ValueError(f"a {self.mode} roll has {self.mode.dice} d20")

    @property
    def kept(self) -> int:
        """Return the d20 that counts (the higher with advantage, the lower with disadvantage)."""
        if self.take is not None:
            return self.take
        if self.mode is Mode.ADVANTAGE:
            return max(self.dice)
        if self.mode is Mode.DISADVANTAGE:
            return min(self.dice)
        return self.dice[0]

    @property
    def kept_index(self) -> int | None:
        return None if self.take is not None else self.dice.index(self.kept)

    @property
    def natural(self) -> int | None:
        """Return the kept die if it was rolled (take 10/20 are not natural)."""
        return None if self.take is not None else self.kept

    @property
    def bonus(self) -> int:
        return sum(part.value for part in self.modifiers)

    @property
    def total(self) -> int:
        return self.kept + self.bonus

    @property
    def margin(self) -> int:
        return self.total - self.dc

    @property
    def degree(self) -> Degree:
        return degree(self.margin, self.natural)

    @property
    def success(self) -> bool:
        return self.degree.succeeds

    @property
    def natural_twenty(self) -> bool:
        return self.natural == DIE_SIDES

    @property
    def natural_one(self) -> bool:
        return self.natural == 1

    @property
    def critical(self) -> bool:
        """A critical success, as the rule document names both: a natural 20 (which always
        succeeds) or beating the DC by 10 or more (docs/players/sixpool.md, "Rules notes")."""
        return self.natural_twenty or self.degree is Degree.CRITICAL_SUCCESS

    @property
    def fumble(self) -> bool:
        """A critical failure: a natural 1 (which always fails) or missing the DC by 10 or more."""
        return self.natural_one or self.degree is Degree.CRITICAL_FAILURE


def _dc(dc: int, situation: Situation) -> int:
    dc = require_whole("DC", dc, DC_MIN, DC_MAX)
    return dc + Situation(situation).dc_change


def roll(
    rng: Rng,
    parts: tuple[Modifier, ...],
    dc: int,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    situation: Situation = Situation.NORMAL,
) -> RollResult:
    """Roll 1d20 (2d20 with advantage or disadvantage) + ``parts`` against ``dc``."""
    effective = _dc(dc, situation)
    mode = mode_of(advantage, disadvantage)
    dice = roll_dice(rng, mode.dice, DIE_SIDES)
    return RollResult(mode, dice, parts, effective, dc, situation)


def take(
    parts: tuple[Modifier, ...], dc: int, value: int, situation: Situation = Situation.NORMAL
) -> RollResult:
    """Take 10 or take 20: the d20 counts as ``value``; nothing is rolled or spent."""
    if value not in TAKE_VALUES:
        raise RulesError(f"You can take 10 or take 20 (got {value}).")
    if any("spent" in part.label for part in parts):
        raise RulesError("Taking 10 or 20 spends no pool points.")
    return RollResult(Mode.STRAIGHT, (), parts, _dc(dc, situation), dc, situation, take=value)


def passive(parts: tuple[Modifier, ...]) -> int:
    """Return a passive score: 10 + the modifiers (no spend)."""
    return PASSIVE_BASE + sum(part.value for part in parts)


def reroll_die(rng: Rng, result: RollResult, index: int) -> RollResult:
    """Return the roll with die ``index`` rolled again (inspiration's reroll)."""
    if result.take is not None:
        raise RulesError("A take 10 or take 20 has no die to reroll.")
    require_whole("Die", index, 0, len(result.dice) - 1)
    dice = list(result.dice)
    dice[index] = roll_dice(rng, 1, DIE_SIDES)[0]
    return replace(result, dice=tuple(dice))


def contest_winner(attacker_total: int, defender_total: int) -> bool:
    """Return whether the attacker wins: the higher total; a tie goes to the defender."""
    return attacker_total > defender_total


def group_succeeds(successes: int, participants: int) -> bool:
    """Return whether a group check succeeds: at least half of the participants succeed."""
    if participants <= 0:
        raise RulesError("A group check needs at least one participant.")
    return 2 * successes >= participants


# --- Contests

CONTEST_DC = 0  # a contest compares totals; its rolls have no DC of their own


class Contestant(StrEnum):
    """A side of a contest: the attacker (who challenged) or the defender."""

    ATTACKER = "attacker"
    DEFENDER = "defender"


@dataclass(frozen=True, slots=True)
class ContestResult:
    """Both rolls of a contest: the higher total wins, a tie goes to the defender.

    ``roller``: whose roll this is. Each side of a contest between players is its own roller
    (docs/players/sixpool.md, "Contests"), logged under its player; a contest logged before that has
    none and reads as the attacker's.
    """

    attacker: RollResult
    defender: RollResult
    roller: Contestant = Contestant.ATTACKER

    def __post_init__(self) -> None:
        object.__setattr__(self, "roller", Contestant(self.roller))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ContestResult:
        """Rebuild a logged contest (``dataclasses.asdict`` of one), its roller the attacker
        when it names none."""
        roller = Contestant(data.get("roller", Contestant.ATTACKER))
        return cls(RollResult(**data["attacker"]), RollResult(**data["defender"]), roller)

    @property
    def attacker_wins(self) -> bool:
        return contest_winner(self.attacker.total, self.defender.total)

    @property
    def roller_wins(self) -> bool:
        """Whether the roller's side won."""
        return self.attacker_wins == (self.roller is Contestant.ATTACKER)

    def side(self, contestant: Contestant) -> RollResult:
        """Return one side's roll."""
        return self.attacker if contestant is Contestant.ATTACKER else self.defender

    @property
    def own(self) -> RollResult:
        """The roller's own side."""
        return self.side(self.roller)

    @property
    def other(self) -> RollResult:
        """The other side."""
        return self.side(_OTHER[self.roller])

    def rolled_by(self, roller: Contestant) -> ContestResult:
        """The same contest as ``roller``'s roll."""
        return replace(self, roller=roller)

    def with_own(self, rolled: RollResult) -> ContestResult:
        """The contest with the roller's own side replaced (inspiration's reroll of its die)."""
        if self.roller is Contestant.ATTACKER:
            return replace(self, attacker=rolled)
        return replace(self, defender=rolled)


_OTHER = {Contestant.ATTACKER: Contestant.DEFENDER, Contestant.DEFENDER: Contestant.ATTACKER}


def contest(
    rng: Rng,
    attacker: tuple[Modifier, ...],
    defender: tuple[Modifier, ...],
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    defender_advantage: bool = False,
) -> ContestResult:
    """Roll a contest: the attacker's d20 (with its mode), then the defender's d20 (with
    advantage only from an ally's help)."""
    return ContestResult(
        roll(rng, attacker, CONTEST_DC, advantage=advantage, disadvantage=disadvantage),
        roll(rng, defender, CONTEST_DC, advantage=defender_advantage),
    )
