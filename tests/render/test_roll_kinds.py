"""Each roll kind is declared once and every reader reads a logged roll through it
(docs/development.md, "Roll kinds"): rolls the log stored before payload version 2 read as they
did, a version 2 payload keeps what was rolled as data, and each system has one crit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.render.campaign import export_csv, export_json
from bot.render.roll_log import log_line, what_was_rolled
from bot.storage import LoggedRoll, Visibility
from rules import recap_placement, sixpool
from rules.expressions import roll_expression
from rules.randomness import new_rng
from rules.recap_reading import read_roll
from rules.roll_kinds import EMBED, PAYLOAD_VERSION, RESULT, VERSION, WHAT, kind_named, roll_kinds

# Rolls of every kind, as the roll log stored them before version 2 (no version, what was rolled
# only in the embed's title), with the log line and the recap's reading the code of that time
# gave them: tests/render/fixtures/write_rolls_v1.py wrote it, run at commit 39b5d66.
V1 = json.loads((Path(__file__).parent / "fixtures" / "rolls_v1.json").read_text("utf-8"))
WHEN = "2026-11-28T19:00:00.000Z"

# Where the one definition of a crit now reads an old roll otherwise than the log or the recap
# did (by the line the log showed then), each checked by hand against the payload's dice:
CHANGED = {
    # `1d20+2>=12` rolled a natural 1 (total 3): the recap counted the fumble, the log showed ❌.
    "`#5` · <@42> · the dice #5 → **10**, **3** ❌": (
        "`#5` · <@42> · the dice #5 → **10**, **3** 💀",
        {},
    ),
    # A save of 19 + 3 = 22 against DC 12 beats it by 10: the log showed ✨, the recap counted no
    # crit (it only counted a natural 20).
    "`#7` · <@42> · the save #7 → **22** ✨": (None, {"critical": True}),
}


def _logged(seed: int, kind: str, payload: dict[str, Any]) -> LoggedRoll:
    return LoggedRoll(seed, 1, 2, 42, kind, Visibility.PUBLIC, payload, WHEN, None)


def _recap(seed: int, kind: str, payload: dict[str, Any]) -> dict[str, object]:
    read = read_roll(seed, 42, kind, payload)
    luck = None if read.luck is None else str(read.luck)
    return {"total": read.total, "luck": luck, "critical": read.critical, "fumble": read.fumble,
            "won": read.won, "pressure": read.pressure}  # fmt: skip


def test_rolls_logged_before_payload_version_2_read_as_they_did() -> None:
    kinds, changed = set(), set()
    for roll in V1["rolls"]:
        kind, payload = roll["kind"], roll["payload"]
        seed = int(payload[EMBED]["title"].split("#")[1].split()[0])
        assert VERSION not in payload and WHAT not in payload  # today's format, then
        line = log_line(_logged(seed, kind, payload), gm_view=False)
        recap = _recap(seed, kind, payload)
        expected_line, expected_recap = roll["log_line"], dict(roll["recap"])
        if expected_line in CHANGED:
            changed.add(expected_line)
            new_line, new_recap = CHANGED[expected_line]
            expected_line = new_line or expected_line
            expected_recap.update(new_recap)
        assert (line, recap) == (expected_line, expected_recap), (kind, seed)
        assert what_was_rolled(_logged(seed, kind, payload)) == f"the {kind.split('.')[-1]} #{seed}"
        kinds.add(kind)
    assert changed == set(CHANGED)
    assert kinds == set(roll_kinds())  # every kind declared today has old rolls that read


def test_a_version_2_payload_keeps_what_was_rolled_as_data() -> None:
    (roll,) = [one for one in V1["rolls"] if one["kind"] == "sinew.test"][:1]
    payload = {**roll["payload"], VERSION: PAYLOAD_VERSION, WHAT: "STR test (climb)"}
    payload[EMBED] = {"title": "✅ Success · Wren: something else · total 9"}
    assert what_was_rolled(_logged(1, "sinew.test", payload)) == "STR test (climb)"
    assert " · STR test (climb) → **" in log_line(_logged(1, "sinew.test", payload), gm_view=False)


def test_a_kind_no_system_declares_or_an_unreadable_result_reads_as_nothing() -> None:
    assert kind_named("kazoo.blare") is None
    payload = {RESULT: {"score": 12}, EMBED: {"title": "🎲 Wren: a test · total 9"}}
    assert log_line(_logged(3, "sinew.test", payload), gm_view=False) == "`#3` · <@42> · a test"
    assert _recap(3, "sinew.test", payload)["luck"] is None
    with pytest.raises(LookupError, match="can't be read"):
        _logged(3, "sinew.test", payload).decoded()


def test_ruling_sixpool_critical_success_and_failure_a_natural_or_a_margin_of_10() -> None:
    # The rule document calls both a natural 20 and beating the DC by 10+ a critical success
    # (and a natural 1, missing by 10+, a critical failure): the log and the recap read one.
    for face in range(1, 21):
        for dc in (5, 12, 25, 35):
            roll = sixpool.RollResult(sixpool.Mode.STRAIGHT, (face,), (sixpool.Modifier("p", 3),),
                                      dc, dc)  # fmt: skip
            margin = face + 3 - dc
            assert roll.critical == (face == 20 or (face != 1 and margin >= 10)), (face, dc)
            assert roll.fumble == (face == 1 or (face != 20 and margin <= -10)), (face, dc)
            kind = kind_named("sixpool.check")
            assert kind is not None
            reading = kind.reading(json.loads(json.dumps(roll, default=_fields)))
            assert reading is not None
            assert (reading.critical, reading.fumble) == (roll.critical, roll.fumble)


def _fields(value: object) -> object:
    from dataclasses import asdict, is_dataclass
    from enum import Enum

    if isinstance(value, Enum):
        return value.value
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    raise TypeError(value)


def test_the_log_and_its_exports_never_parse_a_rolls_expression(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The log reads rolls on the event loop: placing a /roll on its dice shape (parsing its
    # expression, computing a success count's exact odds) is the recap's, in its worker.
    def refuse(expression: str) -> None:
        raise AssertionError(f"the log parsed {expression!r}")

    monkeypatch.setattr(recap_placement, "shape_of", refuse)
    rolled = roll_expression("1d1000 t2 ie>2", new_rng(1))
    stored = json.loads(json.dumps(rolled, default=_fields))
    payload = {RESULT: stored, EMBED: {"title": "🎲 Wren: 1d1000 t2 ie>2 · total 9"}}
    roll = _logged(1, "dice", payload)
    assert log_line(roll, gm_view=True).endswith(f" → **{rolled.total}**")
    assert export_csv([roll], {}) and export_json([roll], {})
    with pytest.raises(AssertionError, match="the log parsed"):
        _recap(1, "dice", payload)  # the recap does place it
