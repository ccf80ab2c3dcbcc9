"""Read a logged roll for the recap: its result on its exact distribution, criticals, fumbles.

docs/gms.md, "Campaign recap". Each logged roll is read through its kind (``rules.roll_kinds``:
every system declares how its results read, and where each falls on its exact distribution);
the distributions are computed lazily here, at recap time (cached per distinct question; a
`/roll` per dice shape, bounded, by ``rules.recap_placement``), so rolling itself does no extra
work. A roll whose kind or result can't be read still counts as a roll, with no luck score; a
`/roll` whose distribution is too large to compute within the bounds counts as "too large to
score". ``recap_logged`` is the whole recap from the log's rows: the bot runs it in a worker
process.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules import recap_placement as placement
from rules.expressions.kinds import DICE_KIND_NAME
from rules.inputs import name_key
from rules.recap import EndedChallenge, Recap, RecapRoll, luck_of, recap, tail_of
from rules.roll_kinds import OPTIONS, RESULT, Builder, Placement, Reading, read_result
from rules.sinew.kinds import CRISIS_KIND, LUCK_BY, LUCK_ROOT

__all__ = [
    "CONTEST_ROOT",
    "LUCK_ROOT",
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

# A logged roll as the recap reads it: id, user id, kind, payload (or the log's JSON text of
# it, decoded here: in the bot's recap worker, off the event loop), made_at (ISO 8601 text).
LoggedRow = tuple[int, int, str, Mapping[str, Any] | str, str]
_Row = tuple[int, int, str, Mapping[str, Any], str]  # its payload decoded


@dataclass(frozen=True, slots=True)
class _Luck:
    """A roll's luck and smaller tail (None: unscored), and whether it was too large."""

    luck: Fraction | None = None
    chance: Fraction | None = None
    too_large: bool = False


@lru_cache(maxsize=4096)
def _scored(
    builder: Builder, arguments: tuple[Hashable, ...], value: int, higher: bool
) -> tuple[Fraction | None, Fraction | None]:
    # Cached per question and result: a session's repeated results cost one lookup.
    distribution = builder(*arguments)
    if distribution is None:
        return None, None
    return luck_of(distribution, value, higher_is_better=higher), tail_of(distribution, value)


def _shaped(placed: Placement) -> placement.Shaped | None:
    """A /roll's dice shape and constant, read from its expression (cached per expression)."""
    return None if placed.expression is None else placement.shape_of(placed.expression)


def _shapes(placed: Placement) -> list[placement.Shape]:
    """The /roll shapes a placement asks placed (of each part)."""
    found = [shape for part in placed.parts for shape in _shapes(part)]
    shaped = _shaped(placed)
    if shaped is not None:
        found.append(shaped.shape)
    return found


def _luck(placed: Placement, admitted: frozenset[placement.Shape]) -> _Luck:
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
    shaped = _shaped(placed)
    if shaped is not None:
        if shaped.shape not in admitted:
            return _Luck(too_large=True)
        counts = placement.counts_of(shaped.shape)
        value = placed.value - shaped.offset
        return _Luck(*placement.place(counts, value, higher_is_better=placed.higher_is_better))
    if placed.builder is None:
        return _Luck()  # rerolls, explosions, ×, ÷: not placed, and not too large
    return _Luck(*_scored(placed.builder, placed.arguments, placed.value, placed.higher_is_better))


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
_READ_KEYS = (RESULT, OPTIONS, LUCK_ROOT, LUCK_BY)
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
        if kind == DICE_KIND_NAME and RESULT in kept:
            kept[RESULT] = _without_breakdowns(kept[RESULT])
        text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"))
        cut.append((roll_id, user_id, kind, text, made_at))
    return cut


def read_rolls(
    rows: Sequence[LoggedRow], seconds: float = placement.RECAP_SECONDS_MAX
) -> list[RecapRoll]:
    """Read logged rows (id, user id, kind, payload, made_at) through their kinds
    (``rules.roll_kinds``); a kind or result that can't be read counts unscored. The /roll shapes
    not computed yet are computed cheapest first, within ``seconds`` (estimated) in all: a roll of
    one left out is too large to score."""
    decoded = [_decoded(row) for row in rows]
    readings = [None if kind == CRISIS_KIND else read_result(kind, payload.get(RESULT))
                for _, _, kind, payload, _ in decoded]  # fmt: skip
    spends = [isinstance(payload.get(LUCK_ROOT), int) for _, _, _, payload, _ in decoded]
    shapes = [shape for reading, spend in zip(readings, spends, strict=True)
              if reading is not None and reading.placement is not None and not spend
              for shape in _shapes(reading.placement)]  # fmt: skip
    admitted = placement.admitted(shapes, seconds)
    return [_read(row, reading, admitted) for row, reading in zip(decoded, readings, strict=True)]


def read_roll(
    roll_id: int, user_id: int, kind: str, payload: Mapping[str, Any], made_at: str = ""
) -> RecapRoll:
    """Read one logged roll; a kind or result the recap doesn't place counts unscored."""
    return read_rolls([(roll_id, user_id, kind, payload, made_at)])[0]


def recap_logged(rows: Sequence[LoggedRow], ended: Sequence[EndedChallenge] = ()) -> Recap:
    """The recap of logged rows (oldest first) and the challenges ended meanwhile: the work the
    bot does in its recap worker process (bot.offload), off the event loop."""
    return recap(read_rolls(rows), ended)


def _read(row: _Row, reading: Reading | None, admitted: frozenset[placement.Shape]) -> RecapRoll:
    roll_id, user_id, kind, payload, made_at = row
    if kind == CRISIS_KIND:
        return RecapRoll(roll_id, user_id, kind, crisis=True)
    won = None if reading is None or not reading.contest else reading.success
    root = payload.get(LUCK_ROOT)
    if isinstance(root, int):  # a Luck spend: who spent it, and the contest as it left it
        spender = payload.get(LUCK_BY, user_id)
        return RecapRoll(roll_id, int(spender), kind, luck_spend=True, won=won, root=root)
    if reading is None:
        return RecapRoll(roll_id, user_id, kind, made_at=made_at)
    options = payload.get(OPTIONS)
    options = options if isinstance(options, Mapping) else {}
    challenge, contest = options.get("challenge"), options.get(CONTEST_ROOT)
    placed = reading.placement
    luck = _Luck() if placed is None else _luck(placed, admitted)
    biggest = placed is not None and placed.higher_is_better and placed.biggest
    return RecapRoll(
        roll_id,
        user_id,
        kind,
        total=placed.value if biggest and placed is not None else None,
        luck=luck.luck,
        chance=luck.chance,
        critical=reading.critical,
        fumble=reading.fumble,
        pressure=reading.pressure,
        won=won,
        contest=contest if isinstance(contest, int) else None,
        defending=reading.defending,
        challenge=name_key(challenge) if isinstance(challenge, str) else None,
        made_at=made_at,
        too_large=luck.too_large,
    )
