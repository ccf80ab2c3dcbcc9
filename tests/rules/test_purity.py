"""The rules package stays pure: no Discord, no bot, no plotting, no file I/O.

Every module of ``rules`` is imported (walked, so a new one is covered the day it is added),
then nothing outside the standard library, numpy and lark may have come with them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: this test session may already have imported discord elsewhere.
_SCRIPT = """
import builtins, importlib, io, pkgutil, sys

import rules

walked = [m.name for m in pkgutil.walk_packages(rules.__path__, "rules.")]
for module in walked:
    importlib.import_module(module)
print(len(walked))

for name in ("discord", "bot", "cogs", "aiosqlite", "PIL"):
    assert not any(m == name or m.startswith(name + ".") for m in sys.modules), name

def refuse(*args, **kwargs):
    raise AssertionError(f"rules opened a file: {args!r}")

builtins.open = io.open = refuse
from rules import cosmos, new_rng
cosmos.odds(3, 2, 15, 2, 1)
cosmos.roll(new_rng(1), attribute=3, skill=2, tn=15, advantage=1)
cosmos.parse_conversion({
    "era": {e.value: 1 for e in cosmos.Era},
    "situational": [{"from": 0, "dice": 0}],
    "rating": [{"from": 0, "dice": 0}],
})
print("pure")
"""


def test_rules_imports_no_discord_and_does_no_file_io() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr
    walked, verdict = completed.stdout.split()
    # Every module file under rules/ (its __init__s are the packages walked into).
    modules = [p for p in (ROOT / "rules").rglob("*.py") if p.name != "__init__.py"]
    packages = [p for p in (ROOT / "rules").rglob("__init__.py") if p.parent != ROOT / "rules"]
    assert int(walked) == len(modules) + len(packages)
    assert verdict == "pure"
