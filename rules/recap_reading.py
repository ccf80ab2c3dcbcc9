"""Read a logged roll for the recap: its result on its exact distribution, criticals, fumbles.

docs/gms.md, "Campaign recap". Each system's roll kinds keep ``dataclasses.asdict`` of their rules
result in the log; this module rebuilds what the recap needs from it, and computes the exact
distribution lazily here, at recap time (cached per distinct question; a `/roll` per dice shape,
bounded, by ``rules.recap_placement``), so rolling itself does no extra work. A kind this module
can't place on a distribution still counts as a roll, with no luck score; a `/roll` whose
distribution is too large to compute within the bounds counts as "too large to score".
``recap_logged`` is the whole recap from the log's rows: the bot runs it in a worker process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules import aethelgard, sinew
from rules import recap_placement as placement
from rules.cosmos.dice import Pool
from rules.cosmos.rolls import Side
from rules.errors import RulesError
from rules.expressions.terms import Natural
from rules.inputs import name_key
from rules.odds import Distribution, Keep, die, keep
from rules.realms.chances import single_die
from rules.realms.checks import SingleDie
from rules.realms.rerolls import attack_from_dict, check_from_dict, stealth_from_dict
from rules.realms.states import D20, STEALTH_DIE, State
from rules.recap import EndedChallenge, Recap, RecapRoll, luck_of, recap, tail_of
from rules.sinew.kinds import CRISIS_KIND, LUCK_BY, LUCK_ROOT
from rules.sixpool.characters import DIE_SIDES as SIXPOOL_D20
from rules.sixpool.rolls import Contestant, ContestResult, Mode, RollResult

__all__ = [
    "CONTEST_ROOT",
    "LUCK_ROOT",
    "SCORED_KINDS",
    "TRIM_CHUNK",
    "LoggedRow",
    "read_roll",
    "read_rolls",
    "recap_logged",
    "trimmed",
]

# In a contest's options when it is logged as more than one roll (each side of a six-pool
# contest between players, a side's inspiration reroll): the roll it was first logged under.
CONTEST_ROOT = "contest_of"
TAMPER_PRESSURE = 1  # the Pressure a failed tamper adds (rules.sinew_pressure.tamper)
SINEW_D20 = 20
SHAPE = "shape"  # a /roll's question: ("shape", its Shape), or ("shape", None) unplaceable

# A logged roll as the recap reads it: id, user id, kind, payload (or the log's JSON text of
# it, decoded here: in the bot's recap worker, off the event loop), made_at (ISO 8601 text).
LoggedRow = tuple[int, int, str, Mapping[str, Any] | str, str]
_Row = tuple[int, int, str, Mapping[str, Any], str]  # its payload decoded


@dataclass(frozen=True, slots=True)
class _Placed:
    """A result, the question whose exact distribution places it (a builder's name and its
    arguments; None: not placed, counted and shown unscored), and whether higher is luckier.
    A /roll's shape places ``value - offset`` (its constant taken out)."""

    question: tuple[Hashable, ...] | None
    value: int
    higher_is_better: bool = True
    critical: bool = False
    fumble: bool = False
    pressure: int = 0
    won: bool | None = None
    defending: bool = False  # a contest's defending side (``won`` is the defender's)
    biggest: bool = True  # a candidate for the biggest roll (not a sum of separate strikes)
    parts: tuple[_Placed, ...] = ()  # several rolls in one /roll, each placed alone
    offset: int = 0

    @property
    def shapes(self) -> list[placement.Shape]:
        """The /roll shapes this roll asks placed (of each part)."""
        found = [shape for part in self.parts for shape in part.shapes]
        question = self.question
        if question is not None and question[0] == SHAPE:
            shape = question[1]
            if isinstance(shape, placement.Shape):
                found.append(shape)
        return found


@dataclass(frozen=True, slots=True)
class _Luck:
    """A roll's luck and smaller tail (None: unscored), and whether it was too large."""

    luck: Fraction | None = None
    chance: Fraction | None = None
    too_large: bool = False


def _expression_roll(roll: Mapping[str, Any]) -> _Placed | None:
    expression, total = roll.get("expression"), roll.get("total")
    if not isinstance(expression, str) or not isinstance(total, int):
        return None
    natural = roll.get("natural")
    shaped = placement.shape_of(expression)
    question = (SHAPE, None if shaped is None else shaped.shape)
    return _Placed(question, total, critical=natural == Natural.TWENTY.value,
                   fumble=natural == Natural.ONE.value,
                   offset=0 if shaped is None else shaped.offset)  # fmt: skip


def _dice(result: Mapping[str, Any]) -> _Placed | None:
    rolls = result.get("rolls")
    if not isinstance(rolls, list):
        return _expression_roll(result)  # one plain expression
    # Several rolls in one request (parts, sets): each placed alone, their luck averaged.
    placed = [_expression_roll(roll) for part in rolls for roll in part]
    if len(placed) == 1:
        return placed[0]
    parts = tuple(one for one in placed if one is not None)
    return _Placed(None, 0, parts=parts, biggest=False) if parts else None


@lru_cache(maxsize=8)
def _sinew_kept(mode: str) -> Distribution:
    if mode == "advantage":
        return keep(2, SINEW_D20, 1, Keep.LOWEST)
    if mode == "disadvantage":
        return keep(2, SINEW_D20, 1, Keep.HIGHEST)
    return die(SINEW_D20)


def _sinew_test(result: Mapping[str, Any]) -> _Placed:
    # Roll-under: the kept die (before any Luck shift) is the luck; a lower one is better.
    mode, dice = str(result["mode"]), [int(face) for face in result["dice"]]
    kept = min(dice) if mode == "advantage" else max(dice) if mode == "disadvantage" else dice[0]
    return _Placed(("sinew", mode), kept, higher_is_better=False, critical=kept == 1,
                   fumble=kept == SINEW_D20)  # fmt: skip


def _sinew_tamper(result: Mapping[str, Any]) -> _Placed:
    # A tamper logs its test; by the rules a failed one adds 1 Pressure (docs/players/sinew.md). A
    # cleansing rite only ever removes Pressure: it reads as a plain test.
    placed = _sinew_test(result)
    dice = tuple(int(face) for face in result["dice"])
    mode = sinew.Mode(result["mode"])
    test = sinew.TestResult(int(result["score"]), mode, dice, int(result["shift"]))
    if test.success:
        return placed
    return _Placed(placed.question, placed.value, placed.higher_is_better, placed.critical,
                   placed.fumble, TAMPER_PRESSURE)  # fmt: skip


@lru_cache(maxsize=64)
def _cosmos_kept(dice: int, which: Keep, modifier: int) -> Distribution:
    return keep(dice, 10, 2, which) + modifier


def _cosmos_roll(result: Mapping[str, Any]) -> _Placed:
    roll = result["roll"]
    pool = Pool(**roll["pool"])
    question = ("cosmos", pool.dice, pool.keep, int(roll["modifier"]))
    return _Placed(question, int(roll["total"]), critical=bool(roll["critical_success"]),
                   fumble=bool(roll["critical_failure"]))  # fmt: skip


@lru_cache(maxsize=16)
def _realms_die(single: SingleDie, state: State) -> Distribution:
    return single_die(single, state)


def _realms_check(result: Mapping[str, Any]) -> _Placed:
    check = check_from_dict(result)
    question = ("realms", check.die, check.decision.state)
    return _Placed(question, check.result, critical=check.natural_max)


@lru_cache(maxsize=128)
def _aethelgard_net(dice: int) -> Distribution:
    faces = range(1, aethelgard.DIE_SIDES + 1)
    per_die = [
        1 if face >= aethelgard.SUCCESS_AT else -1 if face == aethelgard.BOTCH_FACE else 0
        for face in faces
    ]
    return Distribution.from_faces(per_die).repeated(dice)


def _aethelgard_pool(result: Mapping[str, Any]) -> _Placed:
    # The raw net (successes minus botches) is the luck: the shown net floors it at 0.
    pool = aethelgard.PoolRoll(tuple(int(face) for face in result["dice"]), int(result["dc"]))
    return _Placed(("aethelgard", len(pool.dice)), pool.raw_net, critical=pool.critical,
                   fumble=pool.fumble)  # fmt: skip


@lru_cache(maxsize=256)
def _sixpool_kept(mode: Mode, bonus: int) -> Distribution:
    if mode is Mode.ADVANTAGE:
        return keep(2, SIXPOOL_D20, 1, Keep.HIGHEST) + bonus
    if mode is Mode.DISADVANTAGE:
        return keep(2, SIXPOOL_D20, 1, Keep.LOWEST) + bonus
    return die(SIXPOOL_D20) + bonus


def _sixpool_roll(result: Mapping[str, Any]) -> _Placed | None:
    # The kept d20 is the luck; the modifiers are a constant, so the total placed on the kept
    # die's distribution shifted by them reads the same. A take 10/20 rolled nothing.
    roll = RollResult(**result)
    if roll.take is not None:
        return None
    # A natural 20 always succeeds (an attack's doubles its damage dice), a natural 1 always
    # fails: the table's crit and fumble, whatever degree the margin gives.
    natural = roll.kept
    question = ("sixpool", roll.mode, roll.bonus)
    return _Placed(question, roll.total, critical=natural == SIXPOOL_D20, fumble=natural == 1)


@lru_cache(maxsize=128)
def _realms_pool(count: int, sides: int, kept_lower: bool) -> Distribution:
    # Each die rolled adds up; at 0 dice left, two were rolled and the lower counts.
    if kept_lower:
        return keep(2, sides, 1, Keep.LOWEST)
    return die(sides).repeated(count)


def _realms_dice(dice: tuple[int, ...], sides: int, kept_lower: bool) -> tuple[Hashable, ...]:
    return ("realms_pool", 2 if kept_lower else len(dice), sides, kept_lower)


def _realms_attack(result: Mapping[str, Any]) -> _Placed:
    # The strikes' d20s summed: one placement for the whole attack (docs/gms.md, "Campaign recap").
    attack = attack_from_dict(result)
    value = min(attack.dice) if attack.kept_lower else sum(attack.dice)
    question = _realms_dice(attack.dice, D20, attack.kept_lower)
    return _Placed(question, value, biggest=False)


def _realms_stealth(result: Mapping[str, Any]) -> _Placed:
    stealth = stealth_from_dict(result)
    question = _realms_dice(stealth.dice, STEALTH_DIE, stealth.kept_lower)
    return _Placed(question, stealth.total)


def _aethelgard_attack(result: Mapping[str, Any]) -> _Placed:
    # The attacker's accuracy pool; damage and block are rolled after, for other reasons.
    return _aethelgard_pool(result["accuracy"])


# --- Contests: the roller's (the attacker's) side on its own distribution, and who won.


def _roller_side(placed: _Placed | None, won: bool, defending: bool = False) -> _Placed:
    if placed is None:
        return _Placed(None, 0, higher_is_better=False, won=won, defending=defending)
    # The side's crit or fumble is the roller's as the same roll alone would be.
    return _Placed(placed.question, placed.value, placed.higher_is_better, placed.critical,
                   placed.fumble, won=won, defending=defending)  # fmt: skip


def _sinew_opposed(result: Mapping[str, Any]) -> _Placed:
    won = sinew.OpposedResult.from_dict(result).winner is sinew.Side.ATTACKER
    return _roller_side(_sinew_test(result["attacker"]), won)


def _sinew_attack(result: Mapping[str, Any]) -> _Placed:
    won = sinew.AttackResult.from_dict(result).hit
    return _roller_side(_sinew_test(result["contest"]["attacker"]), won)


def _cosmos_opposed(result: Mapping[str, Any]) -> _Placed:
    won = result["winner"] == Side.ATTACKER.value
    return _roller_side(_cosmos_roll({"roll": result["attacker"]}), won)


def _aethelgard_opposed(result: Mapping[str, Any]) -> _Placed:
    sides = [aethelgard.PoolRoll(tuple(side["dice"]), int(side["dc"]))
             for side in (result["attacker"], result["defender"])]  # fmt: skip
    won = aethelgard.OpposedRoll(*sides).attacker_wins
    return _roller_side(_aethelgard_pool(result["attacker"]), won)


def _sixpool_contest(result: Mapping[str, Any]) -> _Placed:
    # Each side of a contest between players is its own roller's roll (docs/players/sixpool.md,
    # "Rules notes"); one logged before that names no roller and is the attacker's.
    contest = ContestResult.from_dict(result)
    defending = contest.roller is Contestant.DEFENDER
    own = result["defender" if defending else "attacker"]
    return _roller_side(_sixpool_roll(own), contest.roller_wins, defending)


_READERS: dict[str, Callable[[Mapping[str, Any]], _Placed | None]] = {
    "dice": _dice,
    "sinew.test": _sinew_test,
    "sinew.luck_test": _sinew_test,
    "sinew.tamper": _sinew_tamper,
    "sinew.rite": _sinew_test,
    "cosmos.roll": _cosmos_roll,
    "realms.check": _realms_check,
    "realms.attack": _realms_attack,
    "realms.stealth": _realms_stealth,
    "aethelgard.roll": _aethelgard_pool,
    "aethelgard.check": _aethelgard_pool,
    "aethelgard.craft": _aethelgard_pool,
    "aethelgard.attack": _aethelgard_attack,
    "sixpool.check": _sixpool_roll,
    "sixpool.attack": _sixpool_roll,
    "sixpool.save": _sixpool_roll,
    "sixpool.group": _sixpool_roll,
    # Contests: the roller's (the attacker's) side is scored, and whether it won.
    "sinew.opposed": _sinew_opposed,
    "sinew.attack": _sinew_attack,
    "cosmos.opposed": _cosmos_opposed,
    "aethelgard.opposed": _aethelgard_opposed,
    "sixpool.contest": _sixpool_contest,
}
SCORED_KINDS = frozenset(_READERS)  # "sixpool.take" counts unscored: nothing is rolled


_BUILDERS: dict[Hashable, Callable[..., Distribution | None]] = {
    "sinew": _sinew_kept,
    "cosmos": _cosmos_kept,
    "realms": _realms_die,
    "aethelgard": _aethelgard_net,
    "sixpool": _sixpool_kept,
    "realms_pool": _realms_pool,
}


@lru_cache(maxsize=4096)
def _scored(
    question: tuple[Hashable, ...], value: int, higher: bool
) -> tuple[Fraction | None, Fraction | None]:
    # Cached per question and result: a session's repeated results cost one lookup.
    distribution = _BUILDERS[question[0]](*question[1:])
    if distribution is None:
        return None, None
    return luck_of(distribution, value, higher_is_better=higher), tail_of(distribution, value)


def _luck(placed: _Placed, admitted: frozenset[placement.Shape]) -> _Luck:
    """The luck and the smaller tail of a placed roll; of several, the mean luck of those placed and
    the smallest tail (its unlikeliest roll). A roll with a shape not ``admitted`` (too large to
    compute: docs/gms.md, "Campaign recap"), or a part with one, is too large to score."""
    if placed.parts:
        parts = [_luck(part, admitted) for part in placed.parts]
        if any(part.too_large for part in parts):
            return _Luck(too_large=True)
        scored = [part for part in parts if part.luck is not None]
        if not scored:
            return _Luck()
        lucks = [part.luck for part in scored if part.luck is not None]
        tails = [part.chance for part in scored if part.chance is not None]
        return _Luck(sum(lucks, Fraction(0)) / len(lucks), min(tails, default=None))
    question = placed.question
    if question is None:
        return _Luck()
    if question[0] == SHAPE:
        shape = question[1]
        if not isinstance(shape, placement.Shape):
            return _Luck()  # rerolls, explosions, ×, ÷: not placed, and not too large
        if shape not in admitted:
            return _Luck(too_large=True)
        counts = placement.counts_of(shape)
        value = placed.value - placed.offset
        return _Luck(*placement.place(counts, value, higher_is_better=placed.higher_is_better))
    return _Luck(*_scored(question, placed.value, placed.higher_is_better))


def _placed_of(kind: str, payload: Mapping[str, Any]) -> _Placed | None:
    reader = _READERS.get(kind)
    result = payload.get("result")
    if reader is None or not isinstance(result, Mapping):
        return None
    try:
        return reader(result)
    except (KeyError, TypeError, ValueError, RulesError):
        return None  # a payload from an older shape of the result: counted, unscored


def _decoded(row: LoggedRow) -> _Row:
    roll_id, user_id, kind, payload, made_at = row
    if isinstance(payload, str):
        try:
            payload = json.loads(payload)
        except ValueError:
            payload = {}  # not JSON: counted, unscored
        if not isinstance(payload, Mapping):
            payload = {}
    return roll_id, user_id, kind, payload, made_at


# The payload keys the recap reads; the rest (the reply's embed) is left out by ``trimmed``.
_READ_KEYS = ("result", "options", LUCK_ROOT, LUCK_BY)
# Rows a first pass (``trimmed``) takes: their payloads, up to ~11 kB each (a /roll of 1,000
# dice: its breakdown, and its embed), are pickled to the bot's recap worker with the GIL held
# (~1 ms a MB), so a recap sends them a few hundred at a time.
TRIM_CHUNK = 200


def _without_breakdowns(result: object) -> object:
    """A /roll's result without its breakdowns (each die shown), which the recap doesn't read."""
    if isinstance(result, dict):
        return {key: _without_breakdowns(value) for key, value in result.items()
                if key != "breakdown"}  # fmt: skip
    if isinstance(result, list):
        return [_without_breakdowns(value) for value in result]
    return result


def trimmed(rows: Sequence[LoggedRow]) -> list[LoggedRow]:
    """The rows with each payload cut to what the recap reads, as compact JSON text: the bot's first
    pass, a chunk of ``TRIM_CHUNK`` rows at a time in its recap worker, so that the whole session
    crosses to the recap itself in a few hundred kilobytes (docs/gms.md, "Campaign recap")."""
    cut: list[LoggedRow] = []
    for roll_id, user_id, kind, payload, made_at in map(_decoded, rows):
        kept = {key: payload[key] for key in _READ_KEYS if key in payload}
        if kind == "dice" and "result" in kept:
            kept["result"] = _without_breakdowns(kept["result"])
        text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
        cut.append((roll_id, user_id, kind, text, made_at))
    return cut


def read_rolls(
    rows: Sequence[LoggedRow], seconds: float = placement.RECAP_SECONDS_MAX
) -> list[RecapRoll]:
    """Read logged rows (id, user id, kind, payload, made_at); a kind or result the recap
    doesn't place counts unscored. The /roll shapes not computed yet are computed cheapest
    first, within ``seconds`` (estimated) in all: a roll of one left out is too large to score."""
    decoded = [_decoded(row) for row in rows]
    placed = [None if kind == CRISIS_KIND else _placed_of(kind, payload)
              for _, _, kind, payload, _ in decoded]  # fmt: skip
    spends = [isinstance(payload.get(LUCK_ROOT), int) for _, _, _, payload, _ in decoded]
    shapes = [shape for one, spend in zip(placed, spends, strict=True)
              if one is not None and not spend for shape in one.shapes]  # fmt: skip
    admitted = placement.admitted(shapes, seconds)
    return [_read(row, one, admitted) for row, one in zip(decoded, placed, strict=True)]


def read_roll(
    roll_id: int, user_id: int, kind: str, payload: Mapping[str, Any], made_at: str = ""
) -> RecapRoll:
    """Read one logged roll; a kind or result the recap doesn't place counts unscored."""
    return read_rolls([(roll_id, user_id, kind, payload, made_at)])[0]


def recap_logged(rows: Sequence[LoggedRow], ended: Sequence[EndedChallenge] = ()) -> Recap:
    """The recap of logged rows (oldest first) and the challenges ended meanwhile: the work the
    bot does in its recap worker process (bot.offload), off the event loop."""
    return recap(read_rolls(rows), ended)


def _read(row: _Row, placed: _Placed | None, admitted: frozenset[placement.Shape]) -> RecapRoll:
    roll_id, user_id, kind, payload, made_at = row
    if kind == CRISIS_KIND:
        return RecapRoll(roll_id, user_id, kind, crisis=True)
    root = payload.get(LUCK_ROOT)
    if isinstance(root, int):  # a Luck spend: who spent it, and the contest as it left it
        spender = payload.get(LUCK_BY, user_id)
        won = None if placed is None else placed.won
        return RecapRoll(roll_id, int(spender), kind, luck_spend=True, won=won, root=root)
    if placed is None:
        return RecapRoll(roll_id, user_id, kind, made_at=made_at)
    options = payload.get("options")
    options = options if isinstance(options, Mapping) else {}
    challenge, contest = options.get("challenge"), options.get(CONTEST_ROOT)
    question, value, higher = placed.question, placed.value, placed.higher_is_better
    luck = _luck(placed, admitted)
    return RecapRoll(
        roll_id,
        user_id,
        kind,
        total=value if higher and placed.biggest and question is not None else None,
        luck=luck.luck,
        chance=luck.chance,
        critical=placed.critical,
        fumble=placed.fumble,
        pressure=placed.pressure,
        won=placed.won,
        contest=contest if isinstance(contest, int) else None,
        defending=placed.defending,
        challenge=name_key(challenge) if isinstance(challenge, str) else None,
        made_at=made_at,
        too_large=luck.too_large,
    )
