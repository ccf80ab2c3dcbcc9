"""Pure game rules: dice, exact odds and one module per system.

Nothing here imports discord, storage or does I/O; every random function takes an injected
``numpy.random.Generator``.
"""

from __future__ import annotations

from rules.errors import RulesError
from rules.randomness import Rng, new_rng, roll_dice, roll_die
from rules.systems import System

__all__ = ["Rng", "RulesError", "System", "new_rng", "roll_dice", "roll_die"]
