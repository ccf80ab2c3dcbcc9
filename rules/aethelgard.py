"""Aethelgard dice pools (docs/players/aethelgard.md, "Rules notes"): d10 success counting with
botches.

A pool is attribute + skill rank + bonus dice - penalty dice - 1 die per full 20 Psychic Stress
- 1 per full 20 Runic Blight Corruption, at least 1 die; more than 100 is refused. Each d10
showing 8-10 is a success and each 1 a botch; net = successes - botches. No success and at least
one botch is a FUMBLE; any other negative net is shown as 0. Net 5 or more is a critical.

Everything here is pure: dice come from an injected generator, odds are exact (integer weights
from ``rules.odds``), and ``display_lines`` gives the document's display format to the letter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cache
from types import MappingProxyType
from typing import Any

from rules.aethelgard_sheet import (
    ATTRIBUTE_MAX,
    ATTRIBUTE_MIN,
    NEAREST_MAX,
    RANK_MAX,
    RANK_MIN,
    SKILL_NAME_MAX,
    SKILLS,
    SKILLS_MAX,
    Attribute,
    Sheet,
    checked_skill,
    edit_sheet,
    edit_skills,
    known_skills,
    parse_skills,
)
from rules.declarations import SystemDeclaration, TrackSpec
from rules.errors import RulesError
from rules.inputs import require_whole
from rules.odds import Distribution
from rules.randomness import Rng, roll_dice
from rules.roll_kinds import Placement, Reading, RollKind, Total
from rules.systems import System

__all__ = [
    "ATTACK_KIND",
    "ATTRIBUTE_MAX",
    "ATTRIBUTE_MIN",
    "CHECK_KIND",
    "CORRUPTION",
    "CRAFT_KIND",
    "CRITICAL_NET",
    "DECLARATION",
    "MAX_POOL",
    "NEAREST_MAX",
    "OPPOSED_KIND",
    "RANK_MAX",
    "RANK_MIN",
    "ROLL_KIND",
    "ROLL_KINDS",
    "SKILLS",
    "SKILLS_MAX",
    "SKILL_NAME_MAX",
    "STRESS",
    "SYSTEM",
    "AttackRoll",
    "Attribute",
    "CraftTier",
    "Degree",
    "OpposedRoll",
    "PoolPart",
    "PoolRoll",
    "RollOdds",
    "Sheet",
    "attack",
    "build_pool",
    "check_pool",
    "checked_skill",
    "craft_tier",
    "display_lines",
    "edit_sheet",
    "edit_skills",
    "known_skills",
    "odds",
    "opposed",
    "parse_attribute",
    "parse_skills",
    "roll_pool",
    "shown_distribution",
]

DIE_SIDES = 10
SUCCESS_AT = 8  # 8, 9, 10
BOTCH_FACE = 1
CRITICAL_NET = 5
MIN_POOL = 1
MAX_POOL = 100
TRAUMA_STEP = 20  # each full 20 Stress or Corruption costs a die
DEFAULT_DC = 1
DC_MAX = MAX_POOL  # (house) an input limit: no pool can beat more
MODIFIER_DICE_MAX = 50  # (house) an input limit on bonus or penalty dice
TRAUMA_MAX = 200  # (house) Stress and Corruption are kept within 0-200


def parse_attribute(name: str) -> Attribute:
    """Return the attribute called ``name`` (any case), or refuse listing them."""
    try:
        return Attribute(name.strip().upper())
    except ValueError:
        raise RulesError(
            f"Unknown attribute {name[:40]!r}; choose one of: {', '.join(Attribute)}."
        ) from None


@dataclass(frozen=True, slots=True)
class PoolPart:
    """Where some of a pool's dice come from (``dice`` is negative for penalties)."""

    label: str
    dice: int


@dataclass(frozen=True, slots=True)
class Pool:
    """A pool: its parts, and the dice rolled (at least 1)."""

    parts: tuple[PoolPart, ...]

    @property
    def raw(self) -> int:
        return sum(part.dice for part in self.parts)

    @property
    def size(self) -> int:
        return max(self.raw, MIN_POOL)

    @property
    def floored(self) -> bool:
        """Return whether penalties would have taken the pool below 1 die."""
        return self.raw < MIN_POOL


def trauma_dice(points: int) -> int:
    """Return the dice lost to Stress or Corruption: 1 per full 20."""
    return require_whole("Trauma", points, 0, TRAUMA_MAX) // TRAUMA_STEP


def build_pool(
    base: tuple[PoolPart, ...],
    *,
    bonus: int = 0,
    penalty: int = 0,
    stress: int = 0,
    corruption: int = 0,
) -> Pool:
    """Return the pool: base parts + bonus - penalty - trauma dice; refuse more than 100 dice."""
    bonus = require_whole("Bonus dice", bonus, 0, MODIFIER_DICE_MAX)
    penalty = require_whole("Penalty dice", penalty, 0, MODIFIER_DICE_MAX)
    parts = list(base)
    if bonus:
        parts.append(PoolPart("bonus dice", bonus))
    if penalty:
        parts.append(PoolPart("penalty dice", -penalty))
    lost_to_stress, lost_to_corruption = trauma_dice(stress), trauma_dice(corruption)
    if lost_to_stress:
        parts.append(PoolPart(f"Psychic Stress {stress}", -lost_to_stress))
    if lost_to_corruption:
        parts.append(PoolPart(f"Runic Blight Corruption {corruption}", -lost_to_corruption))
    pool = Pool(tuple(parts))
    if pool.size > MAX_POOL:
        raise RulesError(f"A pool of {pool.size} dice is too big: at most {MAX_POOL} dice.")
    return pool


class Degree(StrEnum):
    FUMBLE = "Fumble"
    FAILURE = "Failure"
    SUCCESS = "Success"
    CRITICAL = "Critical"


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A rolled pool: every d10 in order, and the DC it was rolled against."""

    dice: tuple[int, ...]
    dc: int = DEFAULT_DC

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(self.dice))
        if not MIN_POOL <= len(self.dice) <= MAX_POOL:
            raise ValueError(f"a pool has {MIN_POOL}-{MAX_POOL} dice (got {len(self.dice)})")
        require_whole("DC", self.dc, 0, DC_MAX)

    @property
    def successes(self) -> int:
        return sum(face >= SUCCESS_AT for face in self.dice)

    @property
    def botches(self) -> int:
        return sum(face == BOTCH_FACE for face in self.dice)

    @property
    def raw_net(self) -> int:
        return self.successes - self.botches

    @property
    def fumble(self) -> bool:
        """Return whether no die succeeded and at least one botched."""
        return self.successes == 0 and self.botches > 0

    @property
    def net(self) -> int:
        """Return the net as shown: a negative net (a fumble included) counts as 0."""
        return max(self.raw_net, 0)

    @property
    def critical(self) -> bool:
        """Return whether the roll is a critical: net 5 or more AND a success (it meets its DC or
        Defense); a net of 5 that misses a higher DC is a plain Failure (docs/players/aethelgard.md,
        "Rules notes")."""
        return self.success and self.net >= CRITICAL_NET

    @property
    def success(self) -> bool:
        """Return whether the net meets the DC (a fumble never succeeds)."""
        return not self.fumble and self.net >= self.dc

    @property
    def degree(self) -> Degree:
        if self.fumble:
            return Degree.FUMBLE
        if not self.success:
            return Degree.FAILURE
        return Degree.CRITICAL if self.critical else Degree.SUCCESS


def roll_pool(rng: Rng, pool: Pool, dc: int = DEFAULT_DC) -> PoolRoll:
    """Roll ``pool.size`` d10 against ``dc``."""
    dc = require_whole("DC", dc, 0, DC_MAX)
    return PoolRoll(roll_dice(rng, pool.size, DIE_SIDES), dc)


def _count(number: int, singular: str, plural: str) -> str:
    return f"{number} {singular if number == 1 else plural}"


def display_lines(result: PoolRoll) -> list[str]:
    """Return the document's display lines (section VIII), to the letter."""
    lines = [
        f"Roll: [{', '.join(str(face) for face in result.dice)}]",
        f"→ {_count(result.successes, 'Success', 'Successes')}, "
        f"{_count(result.botches, 'Botch', 'Botches')}",
    ]
    if result.fumble:
        lines += ["Result: FUMBLE", "", "[!] COGNITIVE GLITCH [!]"]
        return lines
    lines.append(f"Result: {_count(result.net, 'Net Success', 'Net Successes')}")
    if result.critical:
        lines += ["", "*** CRITICAL SUCCESS! ***"]
    return lines


# --- Crafting


class CraftTier(StrEnum):
    DESTROYED = "Materials destroyed"
    STANDARD = "Standard"
    MASTERWORK = "Masterwork"
    LEGENDARY = "Legendary"


MASTERWORK_NET = 2
LEGENDARY_NET = 5


def craft_tier(result: PoolRoll) -> CraftTier:
    """Return the crafted tier: 0-1 Standard, 2-4 Masterwork, 5+ Legendary; a fumble destroys."""
    if result.fumble:
        return CraftTier.DESTROYED
    if result.net >= LEGENDARY_NET:
        return CraftTier.LEGENDARY
    return CraftTier.MASTERWORK if result.net >= MASTERWORK_NET else CraftTier.STANDARD


# --- Exact odds

# One d10's contribution to the net: 1 → -1, 2-7 → 0, 8-10 → +1.
_DIE_NET = Distribution.from_faces(
    [-1 if face == BOTCH_FACE else (1 if face >= SUCCESS_AT else 0) for face in range(1, 11)]
)


@cache
def net_distribution(dice: int) -> Distribution:
    """Return the exact distribution of the raw net (successes - botches) of ``dice`` d10."""
    require_whole("Pool", dice, MIN_POOL, MAX_POOL)
    return _DIE_NET.repeated(dice)


@dataclass(frozen=True, slots=True)
class RollOdds:
    """Exact chances of a pool against a DC, and the distribution of the net as shown."""

    dice: int
    dc: int
    success: Fraction
    critical: Fraction
    fumble: Fraction
    mean: Fraction  # of the net as shown (negatives as 0)
    raw_mean: Fraction  # of successes - botches (the document's "expected net": 0.2 a die)
    shown: Mapping[int, Fraction]  # net as shown → chance (0 includes fumbles)


def odds(dice: int, dc: int = DEFAULT_DC) -> RollOdds:
    """Return exact chances for ``dice`` d10 against ``dc``: no sampling, up to 100 dice."""
    dice = require_whole("Pool", dice, MIN_POOL, MAX_POOL)
    dc = require_whole("DC", dc, 0, DC_MAX)
    # A fumble: no success, at least one botch: (7/10)^n - (6/10)^n.
    fumble = Fraction(7**dice - 6**dice, 10**dice)
    shown = shown_distribution(dice)
    success = shown.at_least(dc)
    if dc == 0:
        success -= fumble  # a fumble never succeeds, even against DC 0
    critical = shown.at_least(max(CRITICAL_NET, dc))
    return RollOdds(
        dice,
        dc,
        success,
        critical,
        fumble,
        shown.mean(),
        net_distribution(dice).mean(),
        MappingProxyType(shown.as_fractions()),
    )


def shown_distribution(dice: int) -> Distribution:
    """Return the distribution of the net as shown (negatives, fumbles included, as 0)."""
    raw = net_distribution(dice)
    counts: dict[int, int] = {}
    for net, weight in zip(raw.outcomes(), raw.weights, strict=True):
        shown = max(int(net), 0)
        counts[shown] = counts.get(shown, 0) + int(weight)
    return Distribution.from_counts(counts)


# --- Contests and combat


@dataclass(frozen=True, slots=True)
class OpposedRoll:
    """Both pools of an opposed roll: the higher net wins, a tie goes to the defender."""

    attacker: PoolRoll
    defender: PoolRoll

    @property
    def attacker_wins(self) -> bool:
        return self.attacker.net > self.defender.net


def opposed(rng: Rng, attacker: Pool, defender: Pool) -> OpposedRoll:
    return OpposedRoll(roll_pool(rng, attacker, 0), roll_pool(rng, defender, 0))


DEFENSE_MAX = MAX_POOL  # (house) an input limit
SOAK_MAX = MAX_POOL  # (house) an input limit
CRITICAL_DAMAGE_FACTOR = 2


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """An attack: accuracy against Defense, then damage (doubled pool on a critical), soak and
    an optional block roll whose net cancels damage one for one."""

    accuracy: PoolRoll  # its dc is the Defense score
    damage: PoolRoll | None = None  # rolled on a hit
    soak: int = 0
    block: PoolRoll | None = None

    @property
    def hit(self) -> bool:
        return self.accuracy.success

    @property
    def damage_doubled(self) -> bool:
        return self.hit and self.accuracy.critical

    @property
    def blocked(self) -> int:
        return self.block.net if self.block is not None else 0

    @property
    def damage_dealt(self) -> int:
        if not self.hit or self.damage is None:
            return 0
        return max(self.damage.net - self.soak - self.blocked, 0)


def attack(
    rng: Rng,
    accuracy: Pool,
    defense: int,
    damage: Pool,
    *,
    soak: int = 0,
    block: Pool | None = None,
) -> AttackRoll:
    """Roll accuracy against ``defense``; on a hit roll damage (its pool doubled, up to 100, on
    a critical accuracy), then the block pool if any."""
    defense = require_whole("Defense", defense, 0, DEFENSE_MAX)
    soak = require_whole("Soak", soak, 0, SOAK_MAX)
    hit_roll = roll_pool(rng, accuracy, defense)
    if not hit_roll.success:
        return AttackRoll(hit_roll, soak=soak)
    size = damage.size * (CRITICAL_DAMAGE_FACTOR if hit_roll.critical else 1)
    damage_roll = PoolRoll(roll_dice(rng, min(size, MAX_POOL), DIE_SIDES), 0)
    block_roll = roll_pool(rng, block, 0) if block is not None else None
    return AttackRoll(hit_roll, damage_roll, soak, block_roll)


SYSTEM = System("aethelgard", "Aethelgard")

# --- Characters

STRESS = TrackSpec(name="stress", minimum=0, maximum=TRAUMA_MAX, party=False, per_character=True)
CORRUPTION = TrackSpec(
    name="corruption", minimum=0, maximum=TRAUMA_MAX, party=False, per_character=True
)


def check_pool(
    sheet: Sheet,
    attribute: Attribute,
    skill: str | None,
    *,
    bonus: int = 0,
    penalty: int = 0,
    stress: int = 0,
    corruption: int = 0,
) -> Pool:
    """Build a character's pool: attribute + skill rank + bonus - penalty - trauma dice."""
    parts = [PoolPart(attribute.value, sheet.attribute(attribute))]
    if skill is not None:
        name, rank = checked_skill(sheet, skill)
        parts.append(PoolPart(f"{name} (rank)", rank))
    return build_pool(
        tuple(parts), bonus=bonus, penalty=penalty, stress=stress, corruption=corruption
    )


# --- The roll log (docs/development.md, "Roll kinds"): the raw net (successes minus botches) is
# placed on its pool size's exact distribution (the net shown floors it at 0); a critical and a
# fumble are the pool's own. An attack reads as its accuracy pool; an opposed roll as the
# attacker's pool, with whether it won.

ROLL_KIND, CHECK_KIND, CRAFT_KIND = "aethelgard.roll", "aethelgard.check", "aethelgard.craft"
OPPOSED_KIND, ATTACK_KIND = "aethelgard.opposed", "aethelgard.attack"


def _pool_of(stored: Mapping[str, Any]) -> PoolRoll:
    return PoolRoll(tuple(int(face) for face in stored["dice"]), int(stored["dc"]))


def _opposed_of(stored: Mapping[str, Any]) -> OpposedRoll:
    return OpposedRoll(_pool_of(stored["attacker"]), _pool_of(stored["defender"]))


def _attack_of(stored: Mapping[str, Any]) -> AttackRoll:
    damage, block = stored.get("damage"), stored.get("block")
    damaged, blocked = (None if pool is None else _pool_of(pool) for pool in (damage, block))
    return AttackRoll(_pool_of(stored["accuracy"]), damaged, int(stored.get("soak", 0)), blocked)


def _placement(pool: PoolRoll) -> Placement:
    return Placement(pool.raw_net, net_distribution, (len(pool.dice),))


def _read_pool(pool: PoolRoll) -> Reading:
    return Reading((Total(pool.net),), pool.success, pool.critical, pool.fumble,
                   placement=_placement(pool))  # fmt: skip


def _read_opposed(contest: OpposedRoll) -> Reading:
    attacker = contest.attacker
    totals = (Total(attacker.net), Total(contest.defender.net))
    return Reading(totals, contest.attacker_wins, attacker.critical, attacker.fumble,
                   contest=True, placement=_placement(attacker))  # fmt: skip


def _read_attack(attack: AttackRoll) -> Reading:
    accuracy = attack.accuracy
    note = f"{attack.damage_dealt} damage"
    return Reading((Total(accuracy.net),), attack.hit, attack.damage_doubled, accuracy.fumble,
                   note=note, placement=_placement(accuracy))  # fmt: skip


ROLL_KINDS: tuple[RollKind[Any], ...] = (
    *(RollKind(name, _pool_of, _read_pool) for name in (ROLL_KIND, CHECK_KIND, CRAFT_KIND)),
    RollKind(OPPOSED_KIND, _opposed_of, _read_opposed),
    RollKind(ATTACK_KIND, _attack_of, _read_attack),
)
DECLARATION = SystemDeclaration(
    system=SYSTEM, tracks=(STRESS, CORRUPTION), characters_per_player=1, roll_kinds=ROLL_KINDS
)
