"""The states (advantage, disadvantage, neither), the decision between them and the limits."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.inputs import require_whole

D20 = 20
STEALTH_DIE = 6
COMBAT_DAMAGE_SHIFT = 2  # +2 at advantage, -2 at disadvantage, once per target struck
NATURAL_20_DAMAGE = 1  # the zero-damage exception
ATTACK_DICE_MAX = 10  # (house) input limits
STEALTH_DICE_MAX = 20
SOURCES_MAX = 10
TO_HIT_MIN, TO_HIT_MAX = 1, 30
TARGET_MAX = 120
SPELL_COST_MAX = 50
DAMAGE_TEXT_MAX = 40
DAMAGE_DICE_MAX = 4  # dice in one damage expression (exact odds stay well under 50 ms)
DAMAGE_SIDES = (2, 3, 4, 6, 8, 10, 12, 20)
DAMAGE_MODIFIER_MAX = 50
HALF_MOVEMENT = "half movement this round"
NO_SOURCES = "no advantage or disadvantage → straight roll"


class State(StrEnum):
    ADVANTAGE = "advantage"
    DISADVANTAGE = "disadvantage"
    NORMAL = "normal"


class Force(StrEnum):
    """A state the GM imposes for one roll: one of the "very few specific effects" that override
    the cancel rule (docs/players/realms.md, "Rules notes")."""

    ADVANTAGE = "advantage"
    DISADVANTAGE = "disadvantage"


@dataclass(frozen=True, slots=True)
class Decision:
    """The state that applies and why (counts of sources in, one state out)."""

    state: State
    reason: str
    forced: bool = False  # imposed by the GM, whatever the sources

    @property
    def plain(self) -> bool:
        """Whether nothing bore on the roll: no sources of either, nothing forced."""
        return self.reason == NO_SOURCES


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _forced(force: Force, advantages: int, disadvantages: int) -> Decision:
    """Return the state the GM forced, naming the sources it overrides."""
    state = State(force.value)
    sources = [
        _plural(count, word)
        for count, word in ((advantages, "advantage"), (disadvantages, "disadvantage"))
        if count
    ]
    overrides = f", overriding {' + '.join(sources)}" if sources else ""
    movement = f"; {HALF_MOVEMENT}" if state is State.DISADVANTAGE else ""
    reason = f"forced by the GM{overrides} (a specific effect beats the cancel rule){movement}"
    return Decision(state, reason, forced=True)


def decide(advantages: int, disadvantages: int, force: Force | None = None) -> Decision:
    """Return the state: never stacking, and any mix of both cancels; a GM's ``force`` overrides
    both (docs/players/realms.md, "Rules notes")."""
    advantages = require_whole("Advantages", advantages, 0, SOURCES_MAX)
    disadvantages = require_whole("Disadvantages", disadvantages, 0, SOURCES_MAX)
    if force is not None:
        return _forced(Force(force), advantages, disadvantages)
    if advantages and disadvantages:
        reason = (
            f"{_plural(advantages, 'advantage')} + {_plural(disadvantages, 'disadvantage')} "
            "→ straight roll (any mix cancels)"
        )
        return Decision(State.NORMAL, reason)
    if advantages:
        extra = " (they never stack)" if advantages > 1 else ""
        return Decision(
            State.ADVANTAGE, f"{_plural(advantages, 'advantage')} → at advantage{extra}"
        )
    if disadvantages:
        extra = " (they never stack)" if disadvantages > 1 else ""
        return Decision(
            State.DISADVANTAGE,
            f"{_plural(disadvantages, 'disadvantage')} → at disadvantage{extra}; {HALF_MOVEMENT}",
        )
    return Decision(State.NORMAL, NO_SOURCES)
