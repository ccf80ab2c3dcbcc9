"""Time `/roll` requests, parse to breakdown, and print count, median, p99 and max in ms.

Run: ``.venv/bin/python bench/bench_notation.py``

Cold numbers empty the parse cache before each request (a new expression, as a hostile user
sends); warm numbers are what a table rolling the same few expressions sees. The requests go
from the everyday to the largest legal ones, and to expressions that are refused after parsing.

Measured on the 2-vCPU development VM (issue 22), median ms cold / warm:

    request                d20 1.1.2 (before, warm)   rules/notation.lark (after)
    1d20+5                 0.027                      0.045 / 0.012
    4d6kh3                 0.047                      0.049 / 0.014
    1000d6                 1.81                       0.83 / 0.80
    1000d6kh500            2.21                       0.97 / 0.92
    6 4d6kh3               0.19                       0.10 / 0.064

(d20 cached parses too; its cold parse was not measured. Its p99 on 1000 dice was ~9 ms, ours
~7 ms: both are collections of the 1000 die objects, well inside the 20 ms budget.)
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path

import numpy as np

# Runnable as a plain script from anywhere: make the project importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import expressions
from rules.errors import RulesError
from rules.randomness import new_rng

REQUESTS = [
    "1d20+5",
    "4d6kh3",
    "8d6 e6",
    "10d10 ir1",
    "6d10 t7 f1 b1",
    "4dF+1",
    "6 4d6k3",
    "1d20+5; 2d6+3; 1d8; 1d4 ! fireball",
    "1d20+5>=15 adv dex save; 2d6+3 fire",  # players' notation: a label found after the dice
    "1000d6",
    "1000d6kh500",
    "1000d6 ir1 ie6 mi2 ma5 kh999 t4 f1 b1",
    "20 50d6!",
    "(" * 90 + "1d6" + ")" * 90,
    "1d1ie1",  # refused: endless
    "1000d2!",  # refused: past the dice cap while rolling
]
RUNS = 300


def _report(label: str, seconds: list[float]) -> None:
    millis = np.array(seconds) * 1000
    print(
        f"{label[:36]:<36} count={len(millis):>4}  median={np.median(millis):7.3f} ms  "
        f"p99={np.percentile(millis, 99):7.3f} ms  max={millis.max():7.3f} ms"
    )


def _time(request: str, *, cold: bool) -> list[float]:
    rng = new_rng(0)
    seconds = []
    for _ in range(RUNS):
        if cold:
            expressions._parse.cache_clear()
            expressions._read_part.cache_clear()
        start = time.perf_counter()
        with contextlib.suppress(RulesError):
            expressions.roll_request(request, rng)
        seconds.append(time.perf_counter() - start)
    return seconds


def main() -> None:
    for cold in (True, False):
        print(f"--- {'cold (parse every time)' if cold else 'warm (parse cached)'}")
        for request in REQUESTS:
            _report(request, _time(request, cold=cold))


if __name__ == "__main__":
    main()
