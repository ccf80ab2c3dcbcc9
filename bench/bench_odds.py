"""Time odds queries of every system and print count, median, p99 and max in milliseconds.

Run: ``.venv/bin/python bench/bench_odds.py [--chart]``

The sweep covers every attribute (0-5), skill (0-5) and TN (2-40), with advantage and
disadvantage sources 0-7 each (every net pool -5..+5, cancellation and the cap). Cold numbers
clear the kept-dice cache before each query, so they include building the distribution; warm
numbers are what the bot sees after the first query of a pool. ``--chart`` also times the PNG
chart for one query per pool, freshly drawn and then from the chart cache; ``--fresh-charts``
times only each system's largest legal query with its chart drawn anew (p50 and p99).
Aethelgard times 100-die pools (the largest allowed) cold and warm; Sinew & Steel and six-pool
sweep their queries.

Then every system's odds at its largest legal inputs are checked against ``icepool`` (the
optional ``bench`` extra: ``pip install -e ".[bench]"``) in the same run: icepool computes each
distribution on its own, from the rules as the rules notes of docs/players/ state them, with its own
API (pools, ``highest``/``lowest``, ``Die.map``, ``@``), never by calling ours. Each line prints
our median time cold (our caches cleared) and warm, icepool's cold (its caches cleared) and
warm, the ratio icepool/ours and the largest absolute difference of any probability (or expected
value) in the two answers; the script exits 1 if any differs by more than 1e-12. Without icepool
it prints how to install it and our own timings. ``--largest`` runs only this comparison.
Pressure enters the odds only as Sinew & Steel's Luck surcharge (the Luck case runs at Pressure
5); ``/roll`` has no exact odds (it only rolls), so there is nothing of it to compare."""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

# Runnable as a plain script from anywhere: make the project importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import aethelgard, cosmos, modular, odds, realms, sinew, sixpool
from rules.odds import keep

SOURCES = range(0, 8)


def _report(label: str, seconds: list[float]) -> None:
    """Print count, median, p99 and max of ``seconds`` in milliseconds."""
    millis = np.array(seconds) * 1000
    print(
        f"{label:<30} count={len(millis):>6}  median={np.median(millis):7.3f} ms  "
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
    # Imported here: only this mode needs the bot package.
    from bot.render.charts import distribution_chart

    warm = cosmos.odds(0, 0, 10)
    distribution_chart(warm.totals, warm.outcomes, title="warm-up", marker=10, marker_label="")
    queries = list(itertools.product(range(repeats), range(-5, 6)))
    fresh: list[float] = []
    cached: list[float] = []
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


def _largest_queries() -> dict[str, Callable[[], Any]]:
    """Each system's largest legal odds queries (tests/e2e/test_properties.py's ``HEAVIEST``)
    as the bot answers them: exact odds, the chart's spec, and the chart drawn anew (no cache).
    Realms' attack runs the worker process's whole job (odds, embed and chart) in this one."""
    from bot.render import charts, odds_charts
    from bot.render.realms_odds import AttackQuery, attack_odds_reply

    def drawn(chart: Any) -> bytes:
        return charts.render_png(chart, cached=False)  # the cache would answer repeats

    def realms_attack(damage: str, split: str | None, advantage: int) -> bytes:
        query = AttackQuery(10, 1, damage, split, True)
        return attack_odds_reply(query, realms.decide(advantage, 0))[1]

    return {
        "cosmos 5+5 vs TN 40, 5 adv": lambda: drawn(
            odds_charts.cosmos_chart(cosmos.odds(5, 5, 40, 20, 0))
        ),
        "sinew 20 vs 20, advantage": lambda: drawn(
            odds_charts.sinew_chart(
                sinew.odds(20, advantage=True),
                sinew.opposed_odds(20, 20, attacker_advantage=True),
            )
        ),
        "sixpool -30 vs DC 60, dis": lambda: drawn(
            odds_charts.sixpool_chart(sixpool.odds(-30, 60, disadvantage=True))
        ),
        "aethelgard 100d10 vs DC 100": lambda: drawn(
            odds_charts.aethelgard_chart(aethelgard.odds(100, 100))
        ),
        "realms 11 strikes 4d20+50": lambda: realms_attack("4d20+50", None, 1),
        "realms split 5,3,2,1 4d20+50": lambda: realms_attack("4d20+50", "5,3,2,1", 1),
        "realms split 5,5 2d20+2d12": lambda: realms_attack("2d20+2d12", "5,5", 0),
    }


def bench_fresh_charts(repeats: int = 40) -> dict[str, tuple[list[float], list[float]]]:
    """Time each system's largest odds query with its chart drawn anew, ``repeats`` times
    (after one untimed run: fonts, caches of the rules' distributions): wall time and this
    process's CPU time (on a busy shared machine the wall time includes waiting for a core).

    The garbage collector is set as the bot sets it once started (``bot.memory``: what exists
    is frozen, no full collection starts by itself; the bot runs them between interactions, and
    its Realms worker is forked from it so): otherwise a full collection of this process, about
    55 ms, fell in one query of fifty and set the p99."""
    from bot.memory import freeze_after_start

    timings: dict[str, tuple[list[float], list[float]]] = {}
    for label, query in _largest_queries().items():
        query()
        freeze_after_start()  # after the untimed run: its garbage collected, the rest frozen
        wall: list[float] = []
        cpu: list[float] = []
        for _ in range(repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            query()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        timings[label] = wall, cpu
    return timings


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


# --- Largest legal inputs, against icepool

Table = dict[Hashable, Fraction]
"""One answer as exact numbers by key, e.g. ``("total", 17, "success") -> 3/100``."""

TOLERANCE = 1e-12
COLD_REPEATS, WARM_REPEATS = 7, 21


@dataclass(frozen=True)
class Case:
    """One largest-legal query: ours (timed call, then read into a table) and icepool's.

    Attributes:
        label: What is asked, as a line of the printed table.
        query: Our odds call, exactly what the cog makes.
        read: Our answer as a ``Table`` (not timed).
        reference: icepool's answer as a ``Table`` from the icepool module (timed whole).
    """

    label: str
    query: Callable[[], Any]
    read: Callable[[Any], Table]
    reference: Callable[[ModuleType], Table]


def _fractions(die: Any) -> dict[Any, Fraction]:
    """Return an icepool die as ``{outcome: exact probability}``."""
    denominator = die.denominator()
    return {outcome: Fraction(quantity, denominator) for outcome, quantity in die.items()}


def _distribution_table(kind: str, distribution: odds.Distribution) -> Table:
    total = distribution.total_weight
    return {
        (kind, int(value)): Fraction(int(weight), total)
        for value, weight in zip(distribution.outcomes(), distribution.weights, strict=True)
        if weight
    }


# Cosmos: Attribute 5 + Skill 5, TN 20, 20 advantage (or disadvantage) sources: the net is capped
# at 5, so 7d10 keep the two highest (lowest).


def _outcome_table(kind: str, distribution: odds.Distribution, outcomes: Any) -> Table:
    """Each value's exact chance, keyed with the outcome the rules give it."""
    total = distribution.total_weight
    return {
        (kind, int(value), str(outcome)): Fraction(int(weight), total)
        for value, weight, outcome in zip(
            distribution.outcomes(), distribution.weights, outcomes, strict=True
        )
    }


def _read_cosmos(result: cosmos.CosmosOdds) -> Table:
    table = _outcome_table("total", result.totals, result.outcomes)
    table[("success",)] = result.success
    table[("critical success",)] = result.critical_success
    table[("critical failure",)] = result.critical_failure
    return table


def _icepool_cosmos(
    attribute: int, skill: int, tn: int, advantage: int, disadvantage: int
) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        net = max(-5, min(5, advantage - disadvantage))  # cancel 1:1, then cap at 5
        pool = icepool.d(10).pool(2 + abs(net))
        kept = (pool.lowest(2) if net < 0 else pool.highest(2)).sum()
        modifier = attribute + skill

        def label(kept_sum: int) -> tuple[int, str]:
            # Two kept d10 sum to 20 only if both show 10, and to 2 only if both show 1.
            if kept_sum == 20:
                outcome = "critical success"  # always succeeds
            elif kept_sum == 2:
                outcome = "critical failure"  # always fails
            else:
                outcome = "success" if kept_sum + modifier >= tn else "failure"
            return kept_sum + modifier, outcome

        totals = _fractions(kept.map(label))
        table: Table = {("total", *key): p for key, p in totals.items()}
        for name in ("critical success", "critical failure"):
            table[(name,)] = sum((p for key, p in totals.items() if key[1] == name), Fraction(0))
        wins = ("success", "critical success")
        table[("success",)] = sum((p for key, p in totals.items() if key[1] in wins), Fraction(0))
        return table

    return reference


# Aethelgard: a 100-die pool, the most allowed.


def _read_aethelgard(result: aethelgard.RollOdds) -> Table:
    table: Table = {("shown", net): chance for net, chance in result.shown.items()}
    table[("fumble",)] = result.fumble
    table[("success",)] = result.success
    table[("critical",)] = result.critical
    return table


def _icepool_aethelgard(dice: int, dc: int) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        # Each d10 as (success, botch): 8-10 succeed, 1 botches; the pool sums the pairs.
        per_die = icepool.d(10).map(lambda face: icepool.Vector((int(face >= 8), int(face == 1))))
        tally = per_die.pool(dice).sum()
        table: Table = {("fumble",): Fraction(0), ("success",): Fraction(0)}
        table[("critical",)] = Fraction(0)
        for (successes, botches), chance in _fractions(tally).items():
            fumble = successes == 0 and botches > 0
            shown = max(successes - botches, 0)  # a fumble and any negative net show as 0
            table[("shown", shown)] = table.get(("shown", shown), Fraction(0)) + chance
            if fumble:
                table[("fumble",)] += chance
            elif shown >= dc:
                table[("success",)] += chance
                if shown >= 5:
                    table[("critical",)] += chance
        return table

    return reference


# Sinew & Steel: score 20 with disadvantage; Luck odds holding the most tokens (LCK rail 16) at
# Pressure 5 (every spend +1 token); an opposed roll at the top scores, advantage against
# disadvantage.


def _d20(icepool: ModuleType, keep_higher: bool | None) -> Any:
    """Return one d20 (``keep_higher`` None), or the higher or lower of two."""
    d20 = icepool.d(20)
    if keep_higher is None:
        return d20
    return d20.highest(2) if keep_higher else d20.lowest(2)


def _sinew_kept(icepool: ModuleType, advantage: bool, disadvantage: bool) -> Any:
    # Neither or both: a straight roll. Roll under: advantage keeps the lower die.
    return _d20(icepool, None if advantage == disadvantage else disadvantage)


def _read_sinew_test(result: sinew.TestOdds) -> Table:
    table = _outcome_table("face", result.rolls, result.outcomes)
    table[("success",)] = result.success
    table[("natural 1",)] = result.natural_one
    table[("natural 20",)] = result.natural_twenty
    return table


def _icepool_sinew_test(score: int, advantage: bool, disadvantage: bool) -> Callable:
    def reference(icepool: ModuleType) -> Table:
        kept = _sinew_kept(icepool, advantage, disadvantage)

        def label(face: int) -> tuple[int, str]:
            if face == 1:
                return face, "critical success"
            if face == 20:
                return face, "critical failure"
            return face, "success" if face <= score else "failure"

        faces = _fractions(kept.map(label))
        table: Table = {("face", *key): p for key, p in faces.items()}
        wins = (p for key, p in faces.items() if "success" in key[1])
        table[("success",)] = sum(wins, Fraction(0))
        table[("natural 1",)] = kept.probability(1)
        table[("natural 20",)] = kept.probability(20)
        return table

    return reference


def _read_luck(rows: tuple[sinew.LuckOdds, ...]) -> Table:
    table: Table = {}
    for row in rows:
        table[("success", row.tokens)] = row.success
        table[("expected spend", row.tokens)] = row.expected_spend
    return table


def _icepool_luck(
    score: int, tokens: int, advantage: bool, disadvantage: bool, pressure: int
) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        kept = _sinew_kept(icepool, advantage, disadvantage)
        surcharge = 1 if pressure >= 4 else 0  # from Pressure 4, each spend costs a token more
        table: Table = {}
        for held in range(tokens + 1):

            def spend(face: int, held: int = held) -> int:
                """Tokens a roller holding ``held`` pays on ``face``; -1: the test fails."""
                if face == 1 or (face != 20 and face <= score):
                    return 0  # a natural 1, or under the score: no spend needed
                cost = face - score + surcharge  # shift down to the score; never below 1
                return cost if face != 20 and score >= 1 and cost <= held else -1

            paid = kept.map(spend)
            table[("success", held)] = 1 - paid.probability(-1)
            table[("expected spend", held)] = paid.clip(0, None).mean()
        return table

    return reference


def _read_opposed(result: sinew.OpposedOdds) -> Table:
    return {
        ("attacker only succeeds",): result.attacker_only_succeeds,
        ("attacker wins on margin",): result.attacker_wins_on_margin,
    }


def _icepool_opposed(
    attacker: int,
    defender: int,
    attacker_modes: tuple[bool, bool],
    defender_modes: tuple[bool, bool],
) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        def succeeds(face: int, score: int) -> bool:
            return face == 1 or (face != 20 and face <= score)

        def winner(mine: int, theirs: int) -> str:
            if succeeds(mine, attacker) and not succeeds(theirs, defender):
                return "attacker only succeeds"
            if succeeds(mine, attacker) and attacker - mine > defender - theirs:
                return "attacker wins on margin"
            return "defender"  # ties and everything else

        result = icepool.map(
            winner,
            _sinew_kept(icepool, *attacker_modes),
            _sinew_kept(icepool, *defender_modes),
        )
        chances = _fractions(result)
        return {
            (name,): chances.get(name, Fraction(0))
            for name in ("attacker only succeeds", "attacker wins on margin")
        }

    return reference


# Six-pool: the most one sheet adds (level 20 master training +10, Edge 3 option B with the 9
# points of primary Effort +13 = +23) against DC 30, and the input limits (+60 vs DC 60); success
# per extra point up to the 9 points of Effort.

SIXPOOL_MAX_SHEET = 10 + 13
SIXPOOL_EFFORT_MAX = 9


def _read_sixpool(result: sixpool.RollOdds) -> Table:
    table: Table = {("degree", found.name): p for found, p in result.degrees.items()}
    table.update(_distribution_table("face", result.rolls))
    table[("natural 20",)] = result.natural_twenty
    table[("natural 1",)] = result.natural_one
    table[("success",)] = result.success
    for extra, chance in enumerate(result.per_point):
        table[("per point", extra)] = chance
    return table


_SUCCEEDS = ("CRITICAL_SUCCESS", "STRONG_SUCCESS", "SUCCESS")


def _sixpool_degree(face: int, margin: int) -> str:
    """Return the degree of a margin; a natural 20 or 1 moves only the success, not the degree."""
    if margin >= 10:
        found = "CRITICAL_SUCCESS"
    elif margin >= 5:
        found = "STRONG_SUCCESS"
    elif margin >= 0:
        found = "SUCCESS"
    elif margin > -5:
        found = "FAILURE"
    elif margin > -10:
        found = "BAD_FAILURE"
    else:
        found = "CRITICAL_FAILURE"
    if face == 20 and found not in _SUCCEEDS:
        return "SUCCESS"
    if face == 1 and found in _SUCCEEDS:
        return "FAILURE"
    return found


def _icepool_sixpool(
    modifier: int, dc: int, advantage: bool, disadvantage: bool, points: int
) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        # Advantage keeps the higher d20; one of each cancels.
        kept = _d20(icepool, None if advantage == disadvantage else advantage)
        degrees = _fractions(kept.map(lambda face: _sixpool_degree(face, face + modifier - dc)))
        table: Table = {("degree", name): p for name, p in degrees.items()}
        table.update({("face", face): p for face, p in _fractions(kept).items()})
        table[("natural 20",)] = kept.probability(20)
        table[("natural 1",)] = kept.probability(1)
        table[("success",)] = sum(
            (degrees.get(name, Fraction(0)) for name in _SUCCEEDS), Fraction(0)
        )
        for extra in range(points + 1):
            wins = kept.map(
                lambda face, extra=extra: (
                    _sixpool_degree(face, face + modifier + extra - dc) in _SUCCEEDS
                )
            )
            table[("per point", extra)] = wins.probability(True)
        return table

    return reference


# Enchanted Realms: 10 attack dice (the input limit) with the extra die (11 strikes) of 4d20+50,
# or the lost die (9 strikes) of 4d20-50 so the zero-damage rule bites; 1 die at disadvantage
# (no dice left: two d20, keep the lower, one strike); a d20 check against 20.


def _read_attack(result: realms.AttackOdds) -> Table:
    table: Table = {("hits", hits): chance for hits, chance in result.hits.items()}
    (target,) = result.targets
    table.update({("damage", value): chance for value, chance in target.damage.items()})
    table[("missed",)] = target.missed
    return table


def _icepool_attack(
    dice: int,
    to_hit: int,
    damage_dice: tuple[tuple[int, int, int], ...],
    modifier: int,
    advantage: bool,
    disadvantage: bool,
) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        shift = 0 if advantage == disadvantage else (2 if advantage else -2)  # once per target
        strikes = dice + (0 if advantage == disadvantage else (1 if advantage else -1))
        face = icepool.d(20).lowest(2) if strikes == 0 else icepool.d(20)
        # One strike as (hits, natural 20s): a natural 20 always hits.
        strike = face.map(lambda f: icepool.Vector((int(f == 20 or f >= to_hit), int(f == 20))))
        tally = max(strikes, 1) @ strike
        damage = icepool.Die([modifier])
        for count, sides, sign in damage_dice:
            damage = damage + sign * (count @ icepool.d(sides))

        def taken(hits_and_naturals: Any) -> Any:
            hits, naturals = hits_and_naturals
            if hits == 0:
                return 0
            # Net 0 or less misses, unless a strike was a natural 20: then 1 damage.
            return (hits @ damage + shift).map(lambda net: net if net > 0 else int(naturals > 0))

        table: Table = {("hits", hits): p for hits, p in _fractions(tally.marginals[0]).items()}
        taken_die = tally.map(taken, star=False)
        table.update({("damage", value): p for value, p in _fractions(taken_die).items()})
        table[("missed",)] = taken_die.probability(0)
        return table

    return reference


def _read_check(result: realms.CheckOdds) -> Table:
    return {
        ("straight",): result.normal,
        ("advantage",): result.advantage,
        ("disadvantage",): result.disadvantage,
    }


def _icepool_check(sides: int, target: int) -> Callable[[ModuleType], Table]:
    def reference(icepool: ModuleType) -> Table:
        die = icepool.d(sides)
        return {
            ("straight",): (die >= target).probability(True),
            ("advantage",): (die.highest(2) >= target).probability(True),
            ("disadvantage",): (die.lowest(2) >= target).probability(True),
        }

    return reference


def largest_cases() -> list[Case]:
    """Return every system's odds query at its largest legal inputs."""
    top_attack = realms.parse_damage("4d20+50")
    low_attack = realms.parse_damage("4d20-50")
    lck = sinew.Score.LCK.maximum
    return [
        Case(
            "cosmos 5+5 TN 20, 20 adv: 7d10 kh2",
            lambda: cosmos.odds(5, 5, 20, 20, 0),
            _read_cosmos,
            _icepool_cosmos(5, 5, 20, 20, 0),
        ),
        Case(
            "cosmos 5+5 TN 20, 20 dis: 7d10 kl2",
            lambda: cosmos.odds(5, 5, 20, 0, 20),
            _read_cosmos,
            _icepool_cosmos(5, 5, 20, 0, 20),
        ),
        Case(
            "aethelgard 100d10 vs DC 20",
            lambda: aethelgard.odds(100, 20),
            _read_aethelgard,
            _icepool_aethelgard(100, 20),
        ),
        Case(
            "aethelgard 100d10 vs DC 0",
            lambda: aethelgard.odds(100, 0),
            _read_aethelgard,
            _icepool_aethelgard(100, 0),
        ),
        Case(
            "sinew test 20, disadvantage",
            lambda: sinew.odds(20, disadvantage=True),
            _read_sinew_test,
            _icepool_sinew_test(20, False, True),
        ),
        Case(
            f"sinew luck 10, {lck} tokens, Pressure 5, dis",
            lambda: sinew.luck_odds(10, lck, disadvantage=True, pressure=5),
            _read_luck,
            _icepool_luck(10, lck, False, True, 5),
        ),
        Case(
            "sinew opposed 20 adv vs 20 dis",
            lambda: sinew.opposed_odds(20, 20, attacker_advantage=True, defender_disadvantage=True),
            _read_opposed,
            _icepool_opposed(20, 20, (True, False), (False, True)),
        ),
        Case(
            f"sixpool +{SIXPOOL_MAX_SHEET} vs DC 30, adv, 9 points",
            lambda: sixpool.odds(SIXPOOL_MAX_SHEET, 30, advantage=True, points=SIXPOOL_EFFORT_MAX),
            _read_sixpool,
            _icepool_sixpool(SIXPOOL_MAX_SHEET, 30, True, False, SIXPOOL_EFFORT_MAX),
        ),
        Case(
            "sixpool +60 vs DC 60, dis, 9 points",
            lambda: sixpool.odds(
                sixpool.MODIFIER_MAX, sixpool.DC_MAX, disadvantage=True, points=SIXPOOL_EFFORT_MAX
            ),
            _read_sixpool,
            _icepool_sixpool(60, 60, False, True, SIXPOOL_EFFORT_MAX),
        ),
        Case(
            "realms 10 dice +adv, 4d20+50 (11 strikes)",
            lambda: realms.attack_odds(10, 11, top_attack, realms.decide(1, 0)),
            _read_attack,
            _icepool_attack(10, 11, ((4, 20, 1),), 50, True, False),
        ),
        Case(
            "realms 10 dice +dis, 4d20-50 (9 strikes)",
            lambda: realms.attack_odds(10, 11, low_attack, realms.decide(0, 1)),
            _read_attack,
            _icepool_attack(10, 11, ((4, 20, 1),), -50, False, True),
        ),
        Case(
            "realms 1 die +dis, 4d20-50 (2d20 kl1)",
            lambda: realms.attack_odds(1, 11, low_attack, realms.decide(0, 1)),
            _read_attack,
            _icepool_attack(1, 11, ((4, 20, 1),), -50, False, True),
        ),
        Case(
            "realms check d20 >= 20",
            lambda: realms.check_odds(realms.SingleDie.D20, 20),
            _read_check,
            _icepool_check(20, 20),
        ),
    ]


def _clear_our_caches() -> None:
    """Forget every distribution our rules keep, so the next query builds it."""
    for cached in (
        odds.die,
        odds.dice_sum,
        odds.keep,
        cosmos._kept_sum_outcomes,
        aethelgard.net_distribution,
        modular._primes,
        modular.moduli_above,
        modular._transform,
        modular._radices,
    ):
        cached.cache_clear()


def _clear_icepool_caches(icepool: ModuleType) -> None:
    """Forget what icepool keeps between calls: standard dice, pools, shared evaluators."""
    icepool.d.cache_clear()
    icepool.Pool.clear_cache()
    for value in vars(icepool.evaluator).values():
        if isinstance(value, icepool.MultisetEvaluator):
            vars(value).pop("_cache", None)


def _median_ms(call: Callable[[], object], repeats: int, before: Callable[[], None]) -> float:
    """Return the median time of ``call`` in ms, running ``before`` (untimed) each time."""
    seconds = []
    for _ in range(repeats):
        before()
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds) * 1000


def _cold_and_warm(call: Callable[[], object], clear: Callable[[], None]) -> tuple[float, float]:
    cold = _median_ms(call, COLD_REPEATS, clear)
    call()  # fill the caches
    warm = _median_ms(call, WARM_REPEATS, lambda: None)
    return cold, warm


def _max_difference(ours: Table, theirs: Table) -> float:
    """Return the largest absolute difference over every key of either table (missing = 0)."""
    return max(
        float(abs(ours.get(key, Fraction(0)) - theirs.get(key, Fraction(0))))
        for key in ours.keys() | theirs.keys()
    )


def bench_largest(icepool: ModuleType | None) -> bool:
    """Time and compare every largest-legal case; return whether all answers agree."""
    header = f"{'largest legal inputs (median ms)':<44}{'ours cold':>10}{'warm':>8}"
    if icepool is not None:
        header += f"{'icepool cold':>14}{'warm':>8}{'ratio cold':>12}{'warm':>8}{'max |Δ|':>10}"
        header += "  (ratio = icepool / ours)"
    print(f"\n{header}")
    agreed = True
    for case in largest_cases():
        ours_cold, ours_warm = _cold_and_warm(case.query, _clear_our_caches)
        line = f"{case.label:<44}{ours_cold:>10.3f}{ours_warm:>8.3f}"
        if icepool is not None:
            ice_cold, ice_warm = _cold_and_warm(
                partial(case.reference, icepool), lambda: _clear_icepool_caches(icepool)
            )
            difference = _max_difference(case.read(case.query()), case.reference(icepool))
            agreed = agreed and difference <= TOLERANCE
            line += (
                f"{ice_cold:>14.3f}{ice_warm:>8.3f}{ice_cold / ours_cold:>11.1f}x"
                f"{ice_warm / ours_warm:>7.1f}x{difference:>10.1e}"
            )
            if difference > TOLERANCE:
                line += "  DIFFERS"
        print(line, flush=True)
    return agreed


def _import_icepool() -> ModuleType | None:
    try:
        import icepool
    except ImportError:
        print(
            '\nicepool is not installed: pip install -e ".[bench]" to compare with it '
            "(our own timings follow)."
        )
        return None
    print(f"\nicepool {icepool.__version__}")
    return icepool


def main() -> None:
    """Run the benchmarks and print the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chart", action="store_true", help="also time the PNG chart")
    parser.add_argument(
        "--fresh-charts",
        action="store_true",
        help="only each system's largest odds query with its chart drawn anew (p50/p99)",
    )
    parser.add_argument(
        "--largest", action="store_true", help="only the largest legal inputs against icepool"
    )
    arguments = parser.parse_args()
    if arguments.fresh_charts:
        for label, (wall, cpu) in bench_fresh_charts().items():
            _report(label, wall)
            _report("  (CPU time)", cpu)
        return
    if arguments.largest:
        sys.exit(0 if bench_largest(_import_icepool()) else 1)
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
    if not bench_largest(_import_icepool()):
        sys.exit(1)


if __name__ == "__main__":
    main()
