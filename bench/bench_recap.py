"""Time `/campaign recap` on a campaign with 100,000 logged rolls, and print the numbers.

Run: ``.venv/bin/python bench/bench_recap.py [--rolls N] [--session N]``

The log holds ``--rolls`` rolls (100,000) of one campaign in sessions of ``--session`` rolls
(200), a day apart, by four players, each roll a real payload of its kind (a /roll 2d6+1, a
4d6kh3, a Sinew & Steel test with advantage, a Cosmos Engine roll with its dice and embed). Each
step of the recap is timed apart, best of five: finding the latest session (the walk back to
the last pause of three hours on the (campaign_id, id) index) and reading its rows, reading
each roll and tallying it (``rules.recap``: the distributions are cached, as they are in the bot
after its first recap), the embed, and the chart. Then the same with ``since`` a date before
the first roll: the worst a GM can ask, which reads the log's latest ``MAX_RECAP_ROLLS`` (2,000)
rolls, not all of them. SQLite's query plans are printed too.

Budget (README, "Benchmarks"): the recap of the latest session, every step but the chart, at
most ``RECAP_BUDGET_SECONDS`` (100 ms), and the longest recap there is (2,000 rolls) at most
``LONGEST_BUDGET_SECONDS`` (500 ms); the chart is drawn off the event loop. Exit status 0 whatever
the numbers (OVER says which missed), 1 only if the measurement failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

# Runnable as a plain script from anywhere: make the project importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render import recap as render
from bot.storage import SessionStart, Storage, apply_migrations
from bot.storage import rolls as roll_log
from rules import cosmos
from rules.campaigns import CampaignSettings
from rules.recap import Recap, recap
from rules.recap_reading import read_roll

RECAP_BUDGET_SECONDS = 0.100  # the latest session's recap, chart aside, with 100,000 logged
LONGEST_BUDGET_SECONDS = 0.5  # the longest recap there is: MAX_RECAP_ROLLS rolls
PLAYERS = (101, 102, 103, 104)
T = TypeVar("T")

_EMBED = {"title": "✅ Success · player vs TN 15 (Hard)", "type": "rich", "color": 3066993,
          "description": "🎲 4d10, keep the two highest: **10**, ~~1~~, **6**, ~~3~~\n"
          "Kept + Attribute + Skill: 10 + 6 + 3 + 2 = **21** vs TN 15"}  # fmt: skip
PAYLOADS: list[tuple[str, dict[str, Any]]] = [
    ("dice", {"expression": "2d6+1", "total": 8, "breakdown": "2d6 (6, 1) + 1", "natural": "none"}),
    (
        "dice",
        {
            "expression": "4d6kh3",
            "total": 12,
            "breakdown": "4d6kh3 (4, 3, ~~1~~, 5)",
            "natural": "none",
        },
    ),
    (
        "sinew.test",
        {"score": 12, "mode": "advantage", "dice": [1, 12], "shift": 0, "reasons": []},
    ),
    (
        "cosmos.roll",
        {
            "roll": {
                "attribute": 3,
                "skill": 2,
                "pool": {"advantage": 2, "disadvantage": 0},
                "dice": [10, 1, 6, 3],
                "kept_indices": [0, 2],
                "kept": [10, 6],
                "modifier": 5,
                "total": 21,
                "critical_success": False,
                "critical_failure": False,
            },
            "tn": 15,
            "difficulty": "Hard",
            "success": True,
            "scale": None,
            "action": None,
            "critical_effect": None,
        },
    ),
]


def _stored(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def populate(path: Path, campaign_id: int, rolls: int, session: int) -> None:
    """Log ``rolls`` rolls in sessions of ``session``, a day apart, a minute between rolls."""
    first = datetime(2026, 1, 1, 19, tzinfo=UTC) - timedelta(days=rolls // session)
    rows = []
    for number in range(rolls):
        kind, result = PAYLOADS[number % len(PAYLOADS)]
        moment = first + timedelta(days=number // session, minutes=number % session)
        payload = {"result": result, "embed": _EMBED, "options": {}}
        rows.append((campaign_id, 1, 1, PLAYERS[number % len(PLAYERS)], kind, "public",
                     json.dumps(payload, separators=(",", ":")), _stored(moment)))  # fmt: skip
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO rolls (campaign_id, guild_id, channel_id, user_id, kind, visibility,"
            " payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )


async def _best(runs: int, step: Callable[[], Awaitable[T]]) -> tuple[float, T]:
    best, value = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        value = await step()
        best = min(best, time.perf_counter() - started)
    assert value is not None
    return best, value


def _report(what: str, seconds: float, budget: float | None = None) -> None:
    verdict = "" if budget is None else ("ok" if seconds <= budget else "OVER")
    shown = "" if budget is None else f"(budget {budget * 1000:.0f} ms) "
    print(f"  {what:<52} {seconds * 1000:>9.2f} ms  {shown}{verdict}")


async def _measure(storage: Storage, campaign_id: int, start: SessionStart, label: str) -> float:
    async def query() -> list[roll_log.LoggedRoll]:
        return await storage.rolls.session_rolls(campaign_id, start)

    async def tally() -> Recap:
        return recap([read_roll(r.id, r.user_id, r.kind, r.payload) for r in logged])

    names = {player: f"Player {player}" for player in PLAYERS}
    queried, logged = await _best(5, query)
    tallied, made = await _best(5, tally)

    async def embed() -> object:
        return render.recap_embed(made, names, gm_view=False)

    async def chart() -> object:
        spec = render.recap_chart(made, names)
        assert spec is not None
        return await render.draw_recap(spec)

    embedded, _ = await _best(5, embed)
    drawn, _ = await _best(5, chart)
    print(f"{label}: {len(logged):,} rolls in the recap")
    _report("query: session start and rows", queried)
    _report("read and tally", tallied)
    _report("embed", embedded)
    _report("chart (off the event loop)", drawn)
    return queried + tallied + embedded


async def bench(rolls: int, session: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        apply_migrations(path)
        storage = await Storage.open(path)
        try:
            campaign = await storage.campaigns.start(
                guild_id=1, channel_id=1, user_id=PLAYERS[0],
                settings=CampaignSettings.create(cosmos.SYSTEM, "Bench"),
            )  # fmt: skip
            started = time.perf_counter()
            populate(path, campaign.id, rolls, session)
            print(f"{rolls:,} rolls logged in sessions of {session} "
                  f"({time.perf_counter() - started:.1f} s)")  # fmt: skip
            with sqlite3.connect(path) as connection:
                by_id = roll_log.session_rows_sql(by_time=False, include_secret=False)
                by_time = roll_log.session_rows_sql(by_time=True, include_secret=False)
                for sql in (roll_log.SESSION_WALK, by_id, by_time):
                    plan = connection.execute(f"EXPLAIN QUERY PLAN {sql}", (1,) * sql.count("?"))
                    print("  plan:", " / ".join(row[3] for row in plan))
            latest = await _measure(storage, campaign.id, SessionStart(), "latest session")
            _report("recap of the latest session, chart aside", latest, RECAP_BUDGET_SECONDS)
            whole = SessionStart(at=datetime(2000, 1, 1, tzinfo=UTC))
            everything = await _measure(storage, campaign.id, whole, "since 2000-01-01")
            _report("recap of the longest session, chart aside", everything, LONGEST_BUDGET_SECONDS)
        finally:
            await storage.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=100_000, help="rolls in the log")
    parser.add_argument("--session", type=int, default=200, help="rolls per session")
    arguments = parser.parse_args()
    asyncio.run(bench(arguments.rolls, arguments.session))
    return 0


if __name__ == "__main__":
    sys.exit(main())
