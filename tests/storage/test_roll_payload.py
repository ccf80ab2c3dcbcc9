"""What the roll log stores of a roll's payload reads back as the JSON of its values."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from enum import Enum
from typing import NamedTuple

from bot.storage import RollEntry, Storage, Visibility


class Edge(Enum):
    ADVANTAGE = "advantage"


class Pair(NamedTuple):
    low: int
    high: int


async def test_a_payload_reads_back_as_its_json_values(storage: Storage) -> None:
    payload = {
        "result": {"edge": Edge.ADVANTAGE, "dice": (3, 5), "pair": Pair(1, 6), "total": 2.5},
        "by_face": {1: 2, 6: 1},  # int keys: stored as strings, as JSON has no other
        "embed": {"title": "🎲 Ysolde rolls 2d20kh1 — «haste»", "footer": None},
    }
    roll_id = await storage.rolls.record(
        RollEntry(None, 1, 7001, 1, "dice", Visibility.PUBLIC, payload)
    )
    logged = await storage.rolls.get(roll_id)
    assert logged is not None
    assert logged.payload == {
        "result": {"edge": "advantage", "dice": [3, 5], "pair": [1, 6], "total": 2.5},
        "by_face": {"1": 2, "6": 1},
        "embed": {"title": "🎲 Ysolde rolls 2d20kh1 — «haste»", "footer": None},
    }
    # The same values json.dumps would have stored (what rolls logged before were written with).
    encoded = json.dumps(payload, default=lambda value: value.value)
    assert logged.payload == json.loads(encoded)


@dataclass(frozen=True, slots=True)
class Die:
    face: int
    edge: Edge
    _seen: bool = True  # a field named with `_` is stored too, as asdict keeps it


@dataclass(frozen=True)
class Result:
    dice: list[Die]
    pair: Pair
    by_face: dict[int, Die]
    best: Die | None
    kept: tuple[Die, ...] = ()


async def test_a_rules_result_in_a_payload_is_stored_as_asdict_gives_it(storage: Storage) -> None:
    # A roll's payload holds its rules result as it is (bot.publish.Roll.entry); the log must
    # read back exactly what the dataclass's asdict would have stored.
    result = Result(
        dice=[Die(3, Edge.ADVANTAGE), Die(5, Edge.ADVANTAGE, _seen=False)],
        pair=Pair(1, 6),
        by_face={3: Die(3, Edge.ADVANTAGE)},
        best=None,
        kept=(Die(5, Edge.ADVANTAGE),),
    )
    roll_id = await storage.rolls.record(
        RollEntry(None, 1, 7001, 1, "dice", Visibility.PUBLIC, {"result": result})
    )
    logged = await storage.rolls.get(roll_id)
    assert logged is not None
    encoded = json.dumps({"result": asdict(result)}, default=lambda value: value.value)
    assert logged.payload == json.loads(encoded)
    assert logged.payload["result"]["dice"][1] == {"face": 5, "edge": "advantage", "_seen": False}
