"""What the roll log stores of a roll's payload reads back as the JSON of its values."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from enum import Enum
from typing import Any, NamedTuple

from bot.storage import Revealer, RollEntry, Storage, Visibility


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


@dataclass(frozen=True, slots=True)
class Huge:
    total: int
    dice: tuple[Die, ...]
    by_edge: dict[Edge, int]  # an enum key: stored as its value, as orjson writes it
    ratio: float = float("nan")  # stored as null, as orjson writes it


def entry(payload: dict[str, Any], visibility: Visibility = Visibility.PUBLIC) -> RollEntry:
    return RollEntry(None, 1, 7001, 1, "dice", visibility, payload)


async def test_a_total_past_64_bits_reads_back_whole(storage: Storage) -> None:
    # `/roll` totals of any size the notation writes (docs/players/dice.md, "Limits"): orjson
    # refuses an int past 64 bits, so such a payload is written by json as the same JSON values,
    # the number with all its digits.
    big = 9**99
    result = Huge(big, (Die(3, Edge.ADVANTAGE),), {Edge.ADVANTAGE: -(2**64)})
    payload = {"result": result, "by_face": {1: Pair(2, 3)}, "embed": {"title": "🎲 «9^99»"}}
    small = {**payload, "result": replace(result, total=1, by_edge={Edge.ADVANTAGE: -1})}
    logged = await storage.rolls.get(await storage.rolls.record(entry(payload)))
    alike = await storage.rolls.get(await storage.rolls.record(entry(small)))
    assert logged is not None and alike is not None
    assert logged.payload["result"]["total"] == big
    assert logged.payload["result"]["by_edge"] == {"advantage": -(2**64)}
    assert logged.payload["result"]["ratio"] is None
    # Every other value as orjson stored it of the same payload with small numbers.
    expected = alike.payload
    expected["result"] |= {"total": big, "by_edge": {"advantage": -(2**64)}}
    assert logged.payload == expected
    # Each way a roll is logged, and read back by each reader of the log.
    recorded = await storage.rolls.record_noting_previous(entry({"total": -big}, Visibility.HIDDEN))
    assert (await storage.rolls.latest(7001, 1)) == await storage.rolls.get(recorded.id)
    revealed = await storage.rolls.reveal(recorded.id, Revealer(1, 1, manages_server=True))
    assert revealed.payload == {"total": -big}
