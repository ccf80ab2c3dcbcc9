"""What the roll log stores of a roll's payload reads back as the JSON of its values."""

from __future__ import annotations

import json
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
