"""Pure game rules: dice, exact odds and one module or package per system.

Nothing here imports discord, storage or does I/O; every random function takes an injected
``numpy.random.Generator``. The engine at a glance:

- ``randomness``: the injectable source (``new_rng``, ``roll_dice``).
- ``odds``: exact distributions (dice sums, keep-k of n, thresholds) for every system's odds.
- ``expressions``: standard dice notation for ``/roll`` (our own grammar, ``notation.lark``;
  docs/players/dice.md, "Dice notation").
- ``campaigns``, ``choices``, ``systems``: campaign settings, and the systems found where each
  declares itself (its ``DECLARATION``).
- ``declarations``, ``sheets``, ``tables``: what systems declare, character sheets, data tables.
- one module or package per system: ``cosmos`` (Cosmos Engine), ``sinew`` (Sinew & Steel),
  ``realms`` (Enchanted Realms), ``aethelgard`` (Aethelgard), ``sixpool`` (Six-pool d20); each
  has its section under docs/players/.
"""

from __future__ import annotations

from rules import (
    campaigns,
    choices,
    cosmos,
    declarations,
    expressions,
    odds,
    sheets,
    sinew,
    sixpool,
    tables,
)
from rules.errors import RulesError
from rules.randomness import Rng, new_rng, roll_dice, roll_die
from rules.systems import System

__all__ = [
    "Rng",
    "RulesError",
    "System",
    "campaigns",
    "choices",
    "cosmos",
    "declarations",
    "expressions",
    "new_rng",
    "odds",
    "roll_dice",
    "roll_die",
    "sheets",
    "sinew",
    "sixpool",
    "tables",
]
