"""Time odds queries of every system and print count, median, p99 and max in milliseconds.

Run: ``.venv/bin/python bench/bench_odds.py [--chart]``

The sweep covers every attribute (0-5), skill (0-5) and TN (2-40), with advantage and
disadvantage sources 0-7 each (every net pool -5..+5, cancellation and the cap). Cold numbers
clear the kept-dice cache before each query, so they include building the distribution; warm
numbers are what the bot sees after the first query of a pool. ``--chart`` also times the PNG
chart for one query per pool, freshly drawn and then from the chart cache. Aethelgard times
100-die pools (the largest allowed) cold and warm; Sinew & Steel and six-pool sweep their
queries.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

# Runnable as a plain script from anywhere: make the project importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import aethelgard, cosmos, realms, sinew, sixpool
from rules.odds import keep

SOURCES = range(0, 8)


def _report(label: str, seconds: list[float]) -> None:
    """Print count, median, p99 and max of ``seconds`` in milliseconds."""
    millis = np.array(seconds) * 1000
    print(
        f"{label:<28} count={len(millis):>6}  median={np.median(millis):7.3f} ms  "
        f"p99={np.percentile(millis, 99):7.3f} ms  max={millis.max():7.3f} ms"
    )


def bench_warm() -> list[float]:
    """Time each query in the full sweep with the kept-dice cache warm."""
    timings = []
    for attribute, skill, tn, advantage, disadvantage in itertools.product(
        range(cosmos.ATTRIBUTE_MIN, cosmos.ATTRIBUTE_MAX + 1),
        range(cosmos.SKILL_MIN, cosmos.SKILL_MAX + 1),
        range(cosmos.TN_MIN, cosmos.TN_MAX + 1),
        SOURCES,
        SOURCES,
    ):
        start = time.perf_counter()
        cosmos.odds(attribute, skill, tn, advantage, disadvantage)
        timings.append(time.perf_counter() - start)
    return timings


def bench_cold(repeats: int = 20) -> list[float]:
    """Time one query per net pool with the kept-dice cache cleared first."""
    timings = []
    for _, net in itertools.product(range(repeats), range(-5, 6)):
        keep.cache_clear()
        start = time.perf_counter()
        cosmos.odds(3, 2, 15, max(net, 0), max(-net, 0))
        timings.append(time.perf_counter() - start)
    return timings


def bench_chart(repeats: int = 20) -> tuple[list[float], list[float]]:
    """Time odds plus a freshly drawn chart, then the same charts again (served from cache)."""
    # Imported here: only this mode needs matplotlib (and the bot package).
    from bot.render.charts import distribution_chart

    warm = cosmos.odds(0, 0, 10)
    distribution_chart(warm.totals, warm.outcomes, title="warm-up", marker=10, marker_label="")
    queries = list(itertools.product(range(repeats), range(-5, 6)))
    fresh, cached = [], []
    for timings in (fresh, cached):
        for repeat, net in queries:
            start = time.perf_counter()
            result = cosmos.odds(3, 2, 15, max(net, 0), max(-net, 0))
            distribution_chart(
                result.totals,
                result.outcomes,
                # The repeat number makes each first pass a cache miss.
                title=f"Cosmos {result.pool.dice}d10 keep 2 +5 vs TN 15 (#{repeat})",
                marker=result.tn,
                marker_label=f"TN {result.tn} ({result.difficulty})",
            )
            timings.append(time.perf_counter() - start)
    return fresh, cached


def bench_aethelgard(repeats: int = 20) -> tuple[list[float], list[float]]:
    """Time Aethelgard odds for 100-die pools against DC 1-30: cold (distribution built) and
    warm (cached distribution)."""
    cold, warm = [], []
    for _, dc in itertools.product(range(repeats), range(1, 31, 5)):
        aethelgard.net_distribution.cache_clear()
        start = time.perf_counter()
        aethelgard.odds(aethelgard.MAX_POOL, dc)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        aethelgard.odds(aethelgard.MAX_POOL, dc)
        warm.append(time.perf_counter() - start)
    return cold, warm


def bench_other_systems() -> tuple[list[float], list[float]]:
    """Time every Sinew & Steel score/mode query and a six-pool sweep of modifiers and DCs."""
    roll_under, d20 = [], []
    for score, advantage, disadvantage in itertools.product(
        range(0, 21), (False, True), (False, True)
    ):
        start = time.perf_counter()
        sinew.odds(score, advantage=advantage, disadvantage=disadvantage)
        roll_under.append(time.perf_counter() - start)
    for modifier, dc, advantage in itertools.product(range(-5, 16), range(5, 31, 5), (False, True)):
        start = time.perf_counter()
        sixpool.odds(modifier, dc, advantage=advantage)
        d20.append(time.perf_counter() - start)
    return roll_under, d20


def bench_realms(repeats: int = 10) -> list[float]:
    """Time the largest legal Realms attack odds: 10 d20 + advantage, 4d20+50 a hit, one target."""
    damage = realms.parse_damage("4d20+50")
    timings = []
    for _, state in itertools.product(range(repeats), ((1, 0), (0, 0), (0, 1))):
        start = time.perf_counter()
        realms.attack_odds(realms.ATTACK_DICE_MAX, 2, damage, realms.decide(*state))
        timings.append(time.perf_counter() - start)
    return timings


def main() -> None:
    """Run the benchmarks and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chart", action="store_true", help="also time the PNG chart")
    arguments = parser.parse_args()
    _report("odds, cold cache", bench_cold())
    bench_warm()  # one pass to warm caches and the interpreter
    _report("odds, full sweep (warm)", bench_warm())
    cold, warm = bench_aethelgard()
    _report("aethelgard 100d10, cold", cold)
    _report("aethelgard 100d10, warm", warm)
    _report("realms largest attack odds", bench_realms())
    roll_under, d20 = bench_other_systems()
    _report("sinew odds, every query", roll_under)
    _report("sixpool odds, sweep", d20)
    if arguments.chart:
        fresh, cached = bench_chart()
        _report("odds + chart, drawn", fresh)
        _report("odds + chart, cached", cached)


if __name__ == "__main__":
    main()
