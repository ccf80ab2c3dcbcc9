"""Six-pool d20 characters: pools, Effort, proficiency, training, Edge and spends.

docs/players/sixpool.md, "Rules notes". Six pools (STR DEX CON INT WIS CHA) each have a maximum and
a current value. Points are declared before the roll, at most the current pool and at most Effort
(3, +1 every 4 levels, +2 on the class's primary pool), and are spent whatever the outcome.
Proficiency is +2 to +6 by the same level bands; training adds it (trained), +2 more (expert) or +4
more (master). Edge (0-3 per pool) follows the campaign's option: A adds +Edge free to every roll
with the pool; B makes each of the first Edge+1 points spent worth +2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType

from rules.declarations import Setting
from rules.errors import RulesError
from rules.inputs import checked_name, name_key, require_whole
from rules.systems import System


class EdgeOption(StrEnum):
    """Six-pool d20 Edge rule: A = free +Edge on every roll; B = first Edge+1 points give +2."""

    A = "A"
    B = "B"


EDGE_OPTION: Setting[EdgeOption] = Setting(
    name="edge_option",
    label="Edge option",
    help="Six-pool d20 only: Edge rule A (free +Edge) or B (cheap first points)",
    kind=EdgeOption,
    default=EdgeOption.A,
)

SYSTEM = System("sixpool", "Six-pool d20", sentence_name="six-pool d20")
# The system's declaration, with its roll kinds, is in rules/sixpool/kinds.py.

# --- Constants (docs/players/sixpool.md, "Rules notes"); (house) marks our own defaults

DIE_SIDES = 20
LEVEL_MIN, LEVEL_MAX = 1, 20
LEVELS_PER_STEP = 4  # Effort and proficiency rise every 4 levels
BASE_EFFORT = 3
PRIMARY_EFFORT_BONUS = 2
BASE_PROFICIENCY = 2
EDGE_MIN, EDGE_MAX = 0, 3
EDGE_B_POINT_VALUE = 2  # option B: each of the first Edge+1 points is worth +2
POOL_MAX = 30  # (house) an input limit on a pool's maximum
DC_MIN, DC_MAX = 0, 60  # (house) input limits on a DC or AC
MODIFIER_MIN, MODIFIER_MAX = -30, 60  # (house) input limits on a bare modifier
TAKE_VALUES = (10, 20)  # take 10 / take 20: the d20 counts as this
PASSIVE_BASE = 10
SKILL_NAME_MAX = 40
SKILLS_MAX = 40
DEGREE_STRONG = 5  # margin 5-9: strong success; -5..-9: bad failure
DEGREE_CRITICAL = 10  # margin 10+: critical success; -10 or less: critical failure


class Pool(StrEnum):
    """The six pools."""

    STR = "STR"
    DEX = "DEX"
    CON = "CON"
    INT = "INT"
    WIS = "WIS"
    CHA = "CHA"

    @property
    def field(self) -> str:
        """Return the pool's key in the sheet's mappings (lower case)."""
        return self.value.lower()


def parse_pool(name: str) -> Pool:
    """Return the pool called ``name`` (any case), or refuse listing the pools."""
    try:
        return Pool(name.strip().upper())
    except ValueError:
        raise RulesError(f"Unknown pool {name[:40]!r}; choose one of: {', '.join(Pool)}.") from None


class Training(StrEnum):
    """Training in a skill or save: untrained +0, trained +prof, expert +2 more, master +4."""

    UNTRAINED = "untrained"
    TRAINED = "trained"
    EXPERT = "expert"
    MASTER = "master"

    def bonus(self, proficiency_bonus: int) -> tuple[int, int]:
        """Return (proficiency added, training bonus on top) for this training."""
        if self is Training.UNTRAINED:
            return 0, 0
        return proficiency_bonus, _TRAINING_EXTRA[self]


_TRAINING_EXTRA: Mapping[Training, int] = MappingProxyType(
    {Training.TRAINED: 0, Training.EXPERT: 2, Training.MASTER: 4}
)


class Situation(StrEnum):
    """Situational DC modifiers: favorable -2, unfavorable +2, extreme +5, perfect -5."""

    NORMAL = "normal"
    FAVORABLE = "favorable"
    UNFAVORABLE = "unfavorable"
    EXTREME = "extreme"
    PERFECT = "perfect"

    @property
    def dc_change(self) -> int:
        return _SITUATION_DC[self]


_SITUATION_DC: Mapping[Situation, int] = MappingProxyType(
    {
        Situation.NORMAL: 0,
        Situation.FAVORABLE: -2,
        Situation.UNFAVORABLE: 2,
        Situation.EXTREME: 5,
        Situation.PERFECT: -5,
    }
)


def _band(level: int) -> int:
    return (require_whole("Level", level, LEVEL_MIN, LEVEL_MAX) - 1) // LEVELS_PER_STEP


def proficiency(level: int) -> int:
    """Return the proficiency bonus: +2 at levels 1-4, +1 every 4 levels (+6 at 17-20)."""
    return BASE_PROFICIENCY + _band(level)


def effort(level: int, *, primary: bool) -> int:
    """Return the most points one roll may spend: 3 at 1-4, +1 every 4 levels, +2 primary."""
    return BASE_EFFORT + _band(level) + (PRIMARY_EFFORT_BONUS if primary else 0)


def _require_flag(label: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{label} must be true or false (got {value!r})")
    return value


def _pool_map(label: str, values: Mapping[str, int], low: int, high: int) -> Mapping[str, int]:
    if set(values) != {pool.field for pool in Pool}:
        raise ValueError(f"{label} needs exactly the six pools (got {sorted(values)!r})")
    return {
        pool.field: require_whole(f"{label} {pool}", values[pool.field], low, high) for pool in Pool
    }


def skill_name(name: str) -> str:
    """A skill someone names, as sheets and the trained-only list hold it and skills compare: it
    passes the check every name users give, then is NFKC case folded (docs/players/index.md,
    "Names"): "ＳＴＥＡＬＴＨ" is "stealth"."""
    if not isinstance(name, str) or not name.strip():
        raise RulesError("A skill needs a name.")
    return name_key(checked_name(name, "Skill name", SKILL_NAME_MAX))


def _stored_skill(name: str) -> str:
    """A skill as a stored sheet lists it, folded the same way (``skill_name`` checked it when
    it was trained; a sheet stored before that check still loads)."""
    cleaned = name_key(name) if isinstance(name, str) else ""
    if not cleaned or len(cleaned) > SKILL_NAME_MAX:
        raise RulesError(f"A skill name is 1–{SKILL_NAME_MAX} characters (got {name!r:.50}).")
    return cleaned


@dataclass(frozen=True, slots=True)
class Sheet:
    """A six-pool character: level, primary pool, pools (max and current), Edge, training.

    Plain JSON values (``DataclassSheet(Sheet)`` stores it). ``skills`` and ``saves`` list only
    trained ones (a skill not listed is untrained). ``helped``: advantage on the next roll;
    ``inspired``: holds inspiration (one at a time).
    """

    level: int
    primary: Pool
    maxima: Mapping[str, int]
    current: Mapping[str, int]
    edges: Mapping[str, int] = field(default_factory=lambda: {pool.field: 0 for pool in Pool})
    skills: Mapping[str, Training] = field(default_factory=dict)
    saves: Mapping[str, Training] = field(default_factory=dict)
    helped: bool = False
    inspired: bool = False

    def __post_init__(self) -> None:
        require_whole("Level", self.level, LEVEL_MIN, LEVEL_MAX)
        object.__setattr__(self, "primary", Pool(self.primary))
        object.__setattr__(self, "maxima", _pool_map("Maximum", self.maxima, 0, POOL_MAX))
        current = _pool_map("Current", self.current, 0, POOL_MAX)
        for pool in Pool:
            if current[pool.field] > self.maxima[pool.field]:
                raise RulesError(
                    f"{pool} has {current[pool.field]} points; its maximum is "
                    f"{self.maxima[pool.field]}."
                )
        object.__setattr__(self, "current", current)
        object.__setattr__(self, "edges", _pool_map("Edge", self.edges, EDGE_MIN, EDGE_MAX))
        if len(self.skills) > SKILLS_MAX:
            raise RulesError(f"A sheet lists at most {SKILLS_MAX} skills.")
        skills = {_stored_skill(name): Training(t) for name, t in self.skills.items()}
        trained = {k: v for k, v in sorted(skills.items()) if v is not Training.UNTRAINED}
        object.__setattr__(self, "skills", trained)
        saves = {}
        for name, training in self.saves.items():
            saves[parse_pool(name).field] = Training(training)
        saves = {k: v for k, v in saves.items() if v is not Training.UNTRAINED}
        object.__setattr__(self, "saves", saves)
        _require_flag("Helped", self.helped)
        _require_flag("Inspired", self.inspired)

    def points(self, pool: Pool) -> int:
        return self.current[pool.field]

    def maximum(self, pool: Pool) -> int:
        return self.maxima[pool.field]

    def edge(self, pool: Pool) -> int:
        return self.edges[pool.field]

    def effort(self, pool: Pool) -> int:
        return effort(self.level, primary=pool is self.primary)

    @property
    def proficiency(self) -> int:
        return proficiency(self.level)

    def skill_training(self, skill: str) -> Training:
        return self.skills.get(skill_name(skill), Training.UNTRAINED)

    def save_training(self, pool: Pool) -> Training:
        return self.saves.get(pool.field, Training.UNTRAINED)


def new_sheet(level: int, primary: Pool, maxima: Mapping[Pool, int]) -> Sheet:
    """Return a fresh character with full pools, no Edge and no training."""
    values = {pool.field: maxima[pool] for pool in Pool}
    return Sheet(level=level, primary=primary, maxima=values, current=dict(values))


def set_level(sheet: Sheet, level: int) -> Sheet:
    return replace(sheet, level=require_whole("Level", level, LEVEL_MIN, LEVEL_MAX))


def set_pool_maximum(sheet: Sheet, pool: Pool, maximum: int) -> Sheet:
    """Return the sheet with a new maximum for ``pool``; current points stop at it."""
    maximum = require_whole(f"{pool} maximum", maximum, 0, POOL_MAX)
    maxima = {**sheet.maxima, pool.field: maximum}
    current = {**sheet.current, pool.field: min(sheet.points(pool), maximum)}
    return replace(sheet, maxima=maxima, current=current)


def set_edge(sheet: Sheet, pool: Pool, edge: int) -> Sheet:
    edge = require_whole(f"{pool} Edge", edge, EDGE_MIN, EDGE_MAX)
    return replace(sheet, edges={**sheet.edges, pool.field: edge})


def set_skill(sheet: Sheet, skill: str, training: Training) -> Sheet:
    return replace(sheet, skills={**sheet.skills, skill_name(skill): Training(training)})


def set_save(sheet: Sheet, pool: Pool, training: Training) -> Sheet:
    return replace(sheet, saves={**sheet.saves, pool.field: Training(training)})


def rest(sheet: Sheet) -> Sheet:
    """Return the sheet with every pool refilled to its maximum (house: the GM's rest)."""
    return replace(sheet, current=dict(sheet.maxima))


def spend(sheet: Sheet, pool: Pool, points: int) -> Sheet:
    """Return the sheet with ``points`` taken from ``pool``, refusing more than Effort or held."""
    points = require_whole("Spend", points, 0, POOL_MAX)
    limit = sheet.effort(pool)
    if points > limit:
        primary = " (with the primary pool's +2)" if pool is sheet.primary else ""
        raise RulesError(
            f"Effort at level {sheet.level} allows at most {limit} points per roll from "
            f"{pool}{primary}; you asked for {points}."
        )
    if points > sheet.points(pool):
        raise RulesError(f"{pool} has {sheet.points(pool)} points left; you asked for {points}.")
    return replace(sheet, current={**sheet.current, pool.field: sheet.points(pool) - points})
