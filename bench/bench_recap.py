"""Time `/campaign recap` on a campaign with 100,000 logged rolls, and print the numbers.

Run: ``.venv/bin/python bench/bench_recap.py [--rolls N] [--session N] [--postgresql]``
(``--postgresql``: the same again on a throwaway PostgreSQL server, as the tests start one)

The log holds ``--rolls`` rolls (100,000) of one campaign in sessions of ``--session`` rolls
(200), a day apart, by four players, with a quarter as many of four other campaigns between
them (so the planner has a reason to use the campaign index), each a real payload of its kind
(a /roll 2d6+1, a 4d6kh3, a Sinew & Steel test with advantage, a Cosmos Engine roll with its
dice and embed). Each step of the recap is timed apart, best of five: finding the latest
session (the walk back to the last pause of three hours on the (campaign_id, id) index) and
reading its rows, reading each roll and tallying it (``rules.recap``: the distributions are
cached, as they are in the bot after its first recap), the embed, and the chart. Then the same
with ``since`` a date before the first roll: the worst a GM can ask, which reads the log's
latest ``MAX_RECAP_ROLLS`` (2,000) rolls, not all of them. The query plans are printed too.

Budget (docs/benchmarks.md): the recap of the latest session, every step but the chart, at
most ``RECAP_BUDGET_SECONDS`` (100 ms), and the longest recap there is (2,000 rolls) at most
``LONGEST_BUDGET_SECONDS`` (500 ms); the chart is drawn off the event loop. Exit status 0
whatever the numbers (OVER says which missed), 1 only if the measurement failed.
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


_INSERT_COLUMNS = (
    "campaign_id, guild_id, channel_id, user_id, kind, visibility, payload, created_at"
)
OTHER_EVERY = 4  # one roll of another campaign after every fourth of ours, interleaved


def _rows(campaign_ids: list[int], rolls: int, session: int) -> list[tuple[object, ...]]:
    """``rolls`` rolls of the first campaign in sessions of ``session``, a day apart, a minute
    between rolls; the other campaigns' rolls in between, in turn."""
    first = datetime(2026, 1, 1, 19, tzinfo=UTC) - timedelta(days=rolls // session)
    ours, others = campaign_ids[0], campaign_ids[1:]
    rows: list[tuple[object, ...]] = []
    for number in range(rolls):
        kind, result = PAYLOADS[number % len(PAYLOADS)]
        moment = _stored(first + timedelta(days=number // session, minutes=number % session))
        payload = json.dumps({"result": result, "embed": _EMBED, "options": {}})
        user = PLAYERS[number % len(PLAYERS)]
        rows.append((ours, 1, 1, user, kind, "public", payload, moment))
        if others and number % OTHER_EVERY == 0:
            other = others[(number // OTHER_EVERY) % len(others)]
            rows.append((other, 1, other, user, kind, "public", payload, moment))
    return rows


def populate_sqlite(path: Path, rows: list[tuple[object, ...]]) -> None:
    with sqlite3.connect(path) as connection:
        connection.executemany(
            f"INSERT INTO rolls ({_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
        )


def populate_postgres(url: str, rows: list[tuple[object, ...]]) -> None:
    import psycopg

    with psycopg.connect(url) as connection, connection.cursor() as cursor:
        with cursor.copy(f"COPY rolls ({_INSERT_COLUMNS}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        cursor.execute("ANALYZE rolls")


def _queries() -> list[str]:
    return [roll_log.session_walk_sql(include_secret=False)] + [
        roll_log.session_rows_sql(by_time=by_time, include_secret=False)
        for by_time in (False, True)
    ]


def plans_sqlite(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        for sql in _queries():
            plan = connection.execute(f"EXPLAIN QUERY PLAN {sql}", (1,) * sql.count("?"))
            print("  plan:", " / ".join(row[3] for row in plan))


def plans_postgres(url: str, campaign_id: int) -> None:
    import psycopg

    values = {roll_log.session_walk_sql(include_secret=False): (campaign_id, 2**62, 500)}
    with psycopg.connect(url) as connection:
        for sql in _queries():
            parameters = values.get(sql, (campaign_id, "2000-01-01T00:00:00.000Z", 2000))
            if "id >= ?" in sql:
                parameters = (campaign_id, 1, 2000)
            plan = connection.execute(f"EXPLAIN {sql.replace('?', '%s')}", parameters)
            print("  plan:", " / ".join(row[0].strip() for row in plan)[:150])


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


OTHER_CAMPAIGNS = 4


async def _start(storage: Storage) -> list[int]:
    """Our campaign, then the others whose rolls interleave with ours."""
    ids = []
    for channel in range(1, OTHER_CAMPAIGNS + 2):
        campaign = await storage.campaigns.start(
            guild_id=1, channel_id=channel, user_id=PLAYERS[0],
            settings=CampaignSettings.create(cosmos.SYSTEM, f"Bench {channel}"),
        )  # fmt: skip
        ids.append(campaign.id)
    return ids


async def _recaps(storage: Storage, campaign_id: int) -> None:
    latest = await _measure(storage, campaign_id, SessionStart(), "latest session")
    _report("recap of the latest session, chart aside", latest, RECAP_BUDGET_SECONDS)
    whole = SessionStart(at=datetime(2000, 1, 1, tzinfo=UTC))
    everything = await _measure(storage, campaign_id, whole, "since 2000-01-01")
    _report("recap of the longest session, chart aside", everything, LONGEST_BUDGET_SECONDS)


def _logged(rolls: int, session: int, started: float) -> None:
    print(f"{rolls:,} rolls of one campaign logged in sessions of {session}, and "
          f"{rolls // OTHER_EVERY:,} of {OTHER_CAMPAIGNS} others between them "
          f"({time.perf_counter() - started:.1f} s)")  # fmt: skip


async def bench_sqlite(rolls: int, session: int) -> None:
    print("SQLite")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        apply_migrations(path)
        storage = await Storage.open(path)
        try:
            campaign_ids = await _start(storage)
            started = time.perf_counter()
            populate_sqlite(path, _rows(campaign_ids, rolls, session))
            _logged(rolls, session, started)
            plans_sqlite(path)
            await _recaps(storage, campaign_ids[0])
        finally:
            await storage.close()


async def bench_postgres(rolls: int, session: int) -> None:
    """The same on a throwaway PostgreSQL server (tests/postgres.py starts it)."""
    from bot.config import DatabaseLocation
    from bot.storage.migrate import apply_postgres_migrations
    from tests.postgres import find_binaries, fresh_database, start_server, stop_server

    binaries = find_binaries()
    if binaries is None:
        print("PostgreSQL: no initdb and pg_ctl found, skipped")
        return
    print("PostgreSQL")
    with tempfile.TemporaryDirectory() as folder:
        server = start_server(binaries, Path(folder))
        try:
            with fresh_database(server) as url:
                apply_postgres_migrations(url)
                storage = await Storage.open(DatabaseLocation.postgresql(url))
                try:
                    campaign_ids = await _start(storage)
                    started = time.perf_counter()
                    populate_postgres(url, _rows(campaign_ids, rolls, session))
                    _logged(rolls, session, started)
                    plans_postgres(url, campaign_ids[0])
                    await _recaps(storage, campaign_ids[0])
                finally:
                    await storage.close()
        finally:
            stop_server(binaries, Path(folder))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=100_000, help="rolls in the log")
    parser.add_argument("--session", type=int, default=200, help="rolls per session")
    parser.add_argument(
        "--postgresql", action="store_true", help="also on a throwaway PostgreSQL server"
    )
    arguments = parser.parse_args()
    asyncio.run(bench_sqlite(arguments.rolls, arguments.session))
    if arguments.postgresql:
        asyncio.run(bench_postgres(arguments.rolls, arguments.session))
    return 0


if __name__ == "__main__":
    sys.exit(main())
