"""Aethelgard dice pools (README, Rules notes: Aethelgard): d10 success counting with botches.

A pool is attribute + skill rank + bonus dice - penalty dice - 1 die per full 20 Psychic Stress
- 1 per full 20 Runic Blight Corruption, at least 1 die; more than 100 is refused. Each d10
showing 8-10 is a success and each 1 a botch; net = successes - botches. No success and at least
one botch is a FUMBLE; any other negative net is shown as 0. Net 5 or more is a critical.

Everything here is pure: dice come from an injected generator, odds are exact (integer weights
from ``rules.odds``), and ``display_lines`` gives the document's display format to the letter.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cache
from types import MappingProxyType

from rules.declarations import SystemDeclaration, TrackSpec
from rules.errors import RulesError
from rules.inputs import checked_name, name_key, require_whole
from rules.odds import Distribution
from rules.randomness import Rng, roll_dice
from rules.systems import System

__all__ = [
    "CORRUPTION",
    "CRITICAL_NET",
    "DECLARATION",
    "MAX_POOL",
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
ATTRIBUTE_MIN, ATTRIBUTE_MAX = 1, 20  # (house) sheet limits
RANK_MIN, RANK_MAX = 0, 5
TRAUMA_MAX = 200  # (house) Stress and Corruption are kept within 0-200


class Attribute(StrEnum):
    """The five attributes of an Aethelgard character."""

    MIGHT = "MIGHT"
    FINESSE = "FINESSE"
    WITS = "WITS"
    WILL = "WILL"
    STURDINESS = "STURDINESS"


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
        """Return whether the roll is a critical: net 5 or more AND a success (it meets its DC
        or Defense); a net of 5 that misses a higher DC is a plain Failure (README, Rules
        notes: Aethelgard)."""
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
DECLARATION = SystemDeclaration(system=SYSTEM, tracks=(STRESS, CORRUPTION), characters_per_player=1)

SKILL_NAME_MAX = 40
SKILLS_MAX = 30
# The skills the document names (its Skill Check and Crafting applications); a sheet may list
# others of its own. README, Aethelgard: "Skills".
SKILLS = ("Acrobatics", "Crafting", "Rhetoric", "System Bypass", "Wasteland Survival")
NEAREST_MAX = 3  # how many near names a refused skill suggests


def _skill_key(name: str) -> str:
    """A skill's name as a stored sheet holds it, spaces collapsed (a new one is checked by
    ``parse_skills``)."""
    cleaned = " ".join(str(name).split())
    if not cleaned or len(cleaned) > SKILL_NAME_MAX:
        raise RulesError(f"A skill name is 1–{SKILL_NAME_MAX} characters (got {name[:50]!r}).")
    return cleaned


@dataclass(frozen=True, slots=True)
class Sheet:
    """An Aethelgard character: five attributes and skill ranks 0-5 (Stress and Corruption are
    tracks, see ``STRESS`` and ``CORRUPTION``)."""

    attributes: Mapping[str, int]
    skills: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if set(self.attributes) != {attribute.value for attribute in Attribute}:
            raise ValueError(f"a sheet has the five attributes (got {sorted(self.attributes)})")
        attributes = {
            attribute.value: require_whole(
                attribute.value, self.attributes[attribute.value], ATTRIBUTE_MIN, ATTRIBUTE_MAX
            )
            for attribute in Attribute
        }
        if len(self.skills) > SKILLS_MAX:
            raise RulesError(f"A sheet lists at most {SKILLS_MAX} skills.")
        skills = {
            _skill_key(name): require_whole(f"{name} rank", rank, RANK_MIN, RANK_MAX)
            for name, rank in self.skills.items()
        }
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "skills", dict(sorted(skills.items())))

    def attribute(self, which: Attribute) -> int:
        return self.attributes[which.value]

    def skill(self, name: str) -> tuple[str, int]:
        """Return the skill's name as on the sheet and its rank (0 if not listed); names
        compare NFKC, any case (README, Rules notes: "Names")."""
        wanted = name_key(_skill_key(name))
        for listed, rank in self.skills.items():
            if name_key(listed) == wanted:
                return listed, rank
        return _skill_key(name), 0


def parse_skills(text: str) -> dict[str, int]:
    """Parse "System Bypass 3, Stealth 2" into skill ranks; refuse anything else clearly.

    Each name passes the check every name users give, and a sheet lists a skill once (README,
    Rules notes: "Names"): "Stealth 2, STEALTH 3" is refused.
    """
    skills: dict[str, int] = {}
    keys: set[str] = set()
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, _, rank = item.rpartition(" ")
        # ASCII digits only: str.isdigit() also passes '²', which int() refuses with ValueError.
        if not name.strip() or not (rank.isascii() and rank.isdigit()):
            raise RulesError(
                "Write skills as 'Name rank, Name rank' (e.g. 'System Bypass 3'); "
                f"got {item[:50]!r}."
            )
        if len(rank) > 3:  # also keeps int() under its digit limit (4,300)
            raise RulesError(
                f"{name.strip()[:40]} rank must be between {RANK_MIN} and {RANK_MAX} "
                f"(got {rank[:10]}…)."
            )
        skill = checked_name(name, "Skill name", SKILL_NAME_MAX)
        if name_key(skill) in keys:
            raise RulesError(f"{skill} is listed twice; give each skill once, with its rank.")
        keys.add(name_key(skill))
        skills[skill] = require_whole(f"{skill} rank", int(rank), RANK_MIN, RANK_MAX)
    return skills


def known_skills(sheet: Sheet | None) -> list[str]:
    """The skills a check may name: the sheet's own, then the document's the sheet lacks."""
    own = list(sheet.skills) if sheet is not None else []
    taken = {name_key(name) for name in own}
    return own + [name for name in SKILLS if name_key(name) not in taken]


def checked_skill(sheet: Sheet, name: str) -> tuple[str, int]:
    """Return a skill's name and rank: the sheet's, or 0 for one of the document's skills the
    sheet lacks. Any other name is refused with the nearest known names (never ranked 0)."""
    listed, rank = sheet.skill(name)
    known = known_skills(sheet)
    by_key = {name_key(skill): skill for skill in known}
    if name_key(listed) in by_key:
        return by_key[name_key(listed)], rank
    nearest = difflib.get_close_matches(name_key(listed), list(by_key), n=NEAREST_MAX)
    hint = (
        "Did you mean " + " or ".join(by_key[key] for key in nearest) + "?"
        if nearest
        else "Known skills: " + ", ".join(known) + "."
    )
    raise RulesError(
        f"There is no skill {listed[:SKILL_NAME_MAX]!r} on the sheet or in Aethelgard's "
        f"list. {hint}"
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
