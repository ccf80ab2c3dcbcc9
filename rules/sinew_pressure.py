"""Sinew & Steel Pressure: the 0-5 track, Crisis events, purging.

docs/players/sinew.md, "Pressure and Crisis".

A track on each character and one on the party (``rules.sinew.PRESSURE``). Adding points that
reach 5 triggers one Crisis, however far past 5 they would go: roll a d6 on the Crisis table; a
6 means roll twice more, rerolling further 6s; then the track resets to 0, or to 1 with the
campaign's "lingering taint". Event 2 also costs 1 Stamina. At step 4 each Luck spend costs one
extra token (``rules.sinew.luck_cost``).

Texts are data: the mechanical state of each step and the effect of each Crisis in
`data/sinew/pressure.toml`, and each skin's colour texts and Crisis names in
`data/sinew/skins/<skin>.toml` (``parse_pressure_table``, ``parse_skin``). Everything here is
pure: dice come from an injected generator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.randomness import Rng, roll_dice
from rules.sinew import (
    PRESSURE_MAX,
    Score,
    Sheet,
    StaminaChange,
    TestResult,
    attribute_test,
    take_damage,
)
from rules.sinew.constants import TAMPER_STEP
from rules.tables import require_keys, require_table

__all__ = [
    "AMOUNT_MAX",
    "CRISIS_DIE",
    "CRISIS_ROLL_TWICE",
    "CRISIS_STAMINA_LOSS",
    "LINGERING_TAINT_RESET",
    "PURGE_STEP",
    "CrisisRoll",
    "PressureChange",
    "PressureTable",
    "PressureTest",
    "PurgeMethod",
    "SkinTexts",
    "add_pressure",
    "cleansing_rite",
    "crisis_stamina_loss",
    "crisis_strikes",
    "parse_pressure_table",
    "parse_skin",
    "purge_by_quest",
    "purge_by_sacrifice",
    "remove_pressure",
    "require_pressure_to_purge",
    "roll_crisis",
    "sacrifice",
    "start_rite",
    "tamper",
]

# --- Constants (docs/players/sinew.md, "Pressure and Crisis"); (house) marks our own defaults

STEPS = PRESSURE_MAX + 1  # steps 0-5
AMOUNT_MAX = PRESSURE_MAX  # one change moves the track by 1-5 (house: an input limit)
CRISIS_DIE = 6
CRISIS_ROLL_TWICE = 6  # this face means: roll twice more, rerolling further 6s
CRISIS_EXTRA_ROLLS = 2
# Crisis face → Stamina it takes (event 2: withering / tech burnout).
CRISIS_STAMINA_LOSS: Mapping[int, int] = MappingProxyType({2: 1})
LINGERING_TAINT_RESET = 1  # where a Crisis leaves the track with lingering taint (else 0)
PURGE_STEP = 1  # sacrifice and a successful cleansing rite each remove 1 Pressure
# Rerolling 6s can't go on for ever with a real die, but a seeded generator might in theory; this
# bounds the loop (house: 100 sixes in a row has probability 6^-100).
_MAX_REROLLS = 100


class PurgeMethod(StrEnum):
    """How a character sheds Pressure in downtime (section 5.3)."""

    SACRIFICE = "sacrifice"  # -1 to an attribute (rails hold): -1 Pressure
    RITE = "rite"  # cleansing rite: attribute test, success -1; once per downtime
    QUEST = "quest"  # story quest (GM): clears the track


@dataclass(frozen=True, slots=True)
class CrisisRoll:
    """The d6 rolled for a Crisis: every face in order, and the events they give.

    A 6 first means two events, each rolled again while it shows a 6 (the 6s are kept in
    ``faces`` so the reply can show them). Events may repeat: the misery stacks.
    """

    faces: tuple[int, ...]
    events: tuple[int, ...]

    def __post_init__(self) -> None:
        faces, events = tuple(self.faces), tuple(self.events)
        if not all(1 <= face <= CRISIS_DIE for face in faces):
            raise ValueError(f"Crisis faces are 1-{CRISIS_DIE} (got {faces!r})")
        if not events or any(not 1 <= event < CRISIS_ROLL_TWICE for event in events):
            raise ValueError(f"Crisis events are 1-{CRISIS_ROLL_TWICE - 1} (got {events!r})")
        object.__setattr__(self, "faces", faces)
        object.__setattr__(self, "events", events)

    @property
    def rolled_twice(self) -> bool:
        """Return whether the first face was a 6 (two events)."""
        return self.faces[0] == CRISIS_ROLL_TWICE


def roll_crisis(rng: Rng) -> CrisisRoll:
    """Roll the Crisis table: a d6; a 6 → roll twice more, rerolling further 6s."""
    first = roll_dice(rng, 1, CRISIS_DIE)[0]
    if first != CRISIS_ROLL_TWICE:
        return CrisisRoll((first,), (first,))
    faces, events = [first], []
    for _ in range(CRISIS_EXTRA_ROLLS):
        for _ in range(_MAX_REROLLS):
            face = roll_dice(rng, 1, CRISIS_DIE)[0]
            faces.append(face)
            if face != CRISIS_ROLL_TWICE:
                events.append(face)
                break
        else:  # pragma: no cover - 6^-100
            raise RuntimeError("the Crisis die showed 6 a hundred times in a row")
    return CrisisRoll(tuple(faces), tuple(events))


def crisis_stamina_loss(crisis: CrisisRoll) -> int:
    """Return the Stamina the Crisis takes from each character it strikes (each event counts)."""
    return sum(CRISIS_STAMINA_LOSS.get(event, 0) for event in crisis.events)


@dataclass(frozen=True, slots=True)
class PressureChange:
    """One change of a Pressure track: before, the step it reached, and where it ends.

    ``reached`` is the step before any Crisis reset (5 when a Crisis fires); ``after`` is what
    the track stores; ``crisis`` is the Crisis rolled, if one fired.
    """

    before: int
    reached: int
    after: int
    crisis: CrisisRoll | None = None

    @property
    def delta(self) -> int:
        """Return how far the stored track moved (after - before)."""
        return self.after - self.before


def _amount(amount: int) -> int:
    return require_whole("Amount", amount, 1, AMOUNT_MAX)


def _step(value: int) -> int:
    return require_whole("Pressure", value, 0, PRESSURE_MAX)


def add_pressure(rng: Rng, before: int, amount: int, *, lingering_taint: bool) -> PressureChange:
    """Add ``amount`` Pressure; reaching 5 fires exactly one Crisis and resets the track.

    Points beyond 5 are lost in the Crisis (house: the dam breaks once). The Crisis die is
    rolled only when a Crisis fires.
    """
    before, amount = _step(before), _amount(amount)
    reached = min(before + amount, PRESSURE_MAX)
    if reached < PRESSURE_MAX:
        return PressureChange(before, reached, reached)
    reset = LINGERING_TAINT_RESET if lingering_taint else 0
    return PressureChange(before, reached, reset, roll_crisis(rng))


def remove_pressure(before: int, amount: int) -> PressureChange:
    """Remove ``amount`` Pressure, stopping at 0 (house: removing more than there is clears)."""
    before, amount = _step(before), _amount(amount)
    after = max(before - amount, 0)
    return PressureChange(before, after, after)


def require_pressure_to_purge(before: int) -> None:
    """Refuse a purge when the track is already at 0 (nothing would be shed)."""
    if _step(before) == 0:
        raise RulesError("Pressure is already 0: there is nothing to purge.")


def sacrifice(sheet: Sheet, attribute: Score) -> Sheet:
    """Return the sheet with ``attribute`` 1 lower (a sacrifice), refusing to pass its rail.

    Lowering LCK lowers the token cap too: tokens above the new cap are lost.
    """
    lowered = sheet.score(attribute) - 1
    if lowered < attribute.minimum:
        raise RulesError(
            f"{attribute.value} is {sheet.score(attribute)}, its lowest: a sacrifice can't take "
            f"it below {attribute.minimum}. Choose another attribute."
        )
    # Any: mypy checks a ** dict against every field of the sheet; these are its int fields.
    changes: dict[str, Any] = {attribute.field: lowered}
    if attribute is Score.LCK:
        changes["luck_tokens"] = min(sheet.luck_tokens, lowered)
    if attribute is Score.STA:
        changes["current_stamina"] = min(sheet.current_stamina, lowered)
    return replace(sheet, **changes)


def start_rite(sheet: Sheet) -> Sheet:
    """Return the sheet with this downtime's cleansing rite used, or refuse a second one."""
    if sheet.rite_used:
        raise RulesError(
            "The cleansing rite was already tried this downtime; a thorough rest renews it."
        )
    return replace(sheet, rite_used=True)


# --- What the commands decide (docs/players/sinew.md, "Pressure and Crisis")


def crisis_strikes(crisis: CrisisRoll, sheets: Sequence[Sheet]) -> tuple[StaminaChange, ...]:
    """Return the Stamina the Crisis takes from each sheet it strikes, in order (none: no loss).

    A Crisis on the party's track strikes every character, on a character's track that one.
    """
    loss = crisis_stamina_loss(crisis)
    return tuple(take_damage(sheet, loss) for sheet in sheets) if loss else ()


@dataclass(frozen=True, slots=True)
class PressureTest:
    """A test that may move Pressure (a tamper, a cleansing rite): the roll and the change.

    ``change`` None: the track does not move. ``sheet``: the tester's new sheet (a rite used).
    """

    __test__ = False  # not a pytest test class

    result: TestResult
    change: PressureChange | None
    sheet: Sheet | None = None


def tamper(
    rng: Rng,
    sheet: Sheet,
    pressure: int,
    attribute: Score,
    *,
    advantage: bool = False,
    disadvantage: bool = False,
    lingering_taint: bool = False,
) -> PressureTest:
    """Test ``attribute`` to tamper with forces beyond ken: a failure adds 1 Pressure."""
    result = attribute_test(rng, sheet, attribute, advantage=advantage, disadvantage=disadvantage)
    change = None
    if not result.success:
        change = add_pressure(rng, pressure, TAMPER_STEP, lingering_taint=lingering_taint)
    return PressureTest(result, change)


def cleansing_rite(rng: Rng, sheet: Sheet, pressure: int, attribute: Score) -> PressureTest:
    """Use this downtime's rite and test ``attribute``: a success removes 1 Pressure.

    Raises:
        RulesError: Pressure is already 0, or the rite was already tried this downtime.
    """
    require_pressure_to_purge(pressure)
    used = start_rite(sheet)
    result = attribute_test(rng, used, attribute)
    change = remove_pressure(pressure, PURGE_STEP) if result.success else None
    return PressureTest(result, change, used)


def purge_by_sacrifice(sheet: Sheet, pressure: int, score: Score) -> tuple[Sheet, PressureChange]:
    """Return the sheet with ``score`` 1 lower and the track 1 lower (a sacrifice).

    Raises:
        RulesError: Pressure is already 0, or the score is at its lower rail.
    """
    require_pressure_to_purge(pressure)
    return sacrifice(sheet, score), remove_pressure(pressure, PURGE_STEP)


def purge_by_quest(pressure: int) -> PressureChange:
    """Return the track cleared by a story quest, or refuse when it is already 0."""
    require_pressure_to_purge(pressure)
    return remove_pressure(pressure, pressure)


# --- Texts (data/sinew)


@dataclass(frozen=True, slots=True)
class PressureTable:
    """Skin-independent texts: each step's mechanical state, each Crisis face's effect."""

    states: tuple[str, ...]  # by step, 0-5
    effects: tuple[str, ...]  # by face, 1-6 (index 0 is face 1)

    def state(self, step: int) -> str:
        return self.states[_step(step)]

    def effect(self, face: int) -> str:
        return self.effects[require_whole("Crisis face", face, 1, CRISIS_DIE) - 1]


@dataclass(frozen=True, slots=True)
class SkinTexts:
    """A skin's colour text for each step and its name for each Crisis event."""

    name: str
    colours: tuple[str, ...]  # by step, 0-5
    crises: tuple[str, ...]  # by face, 1-5 (index 0 is face 1)

    def colour(self, step: int) -> str:
        return self.colours[_step(step)]

    def crisis(self, face: int) -> str:
        return self.crises[require_whole("Crisis event", face, 1, CRISIS_ROLL_TWICE - 1) - 1]


def _texts(path: str, value: object, count: int) -> tuple[str, ...]:
    """Return a list of ``count`` non-empty strings, or raise ValueError naming ``path``."""
    if not isinstance(value, list) or len(value) != count:
        raise ValueError(f"{path}: expected a list of {count} texts")
    for index, text in enumerate(value):
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}[{index}]: expected a non-empty text")
    return tuple(text.strip() for text in value)


def parse_pressure_table(mapping: Mapping[str, object]) -> PressureTable:
    """Validate `data/sinew/pressure.toml`: ``states`` (6, steps 0-5), ``effects`` (6, faces)."""
    table = require_table("pressure", mapping)
    require_keys("", table, ["states", "effects"])
    return PressureTable(
        states=_texts("states", table["states"], STEPS),
        effects=_texts("effects", table["effects"], CRISIS_DIE),
    )


def parse_skin(mapping: Mapping[str, object]) -> SkinTexts:
    """Validate a skin file: ``name``, ``colours`` (6, steps 0-5), ``crises`` (5, faces 1-5)."""
    table = require_table("skin", mapping)
    require_keys("", table, ["name", "colours", "crises"])
    name = table["name"]
    if not isinstance(name, str) or not name.strip():
        raise ValueError("name: expected a non-empty text")
    return SkinTexts(
        name=name.strip(),
        colours=_texts("colours", table["colours"], STEPS),
        crises=_texts("crises", table["crises"], CRISIS_ROLL_TWICE - 1),
    )
