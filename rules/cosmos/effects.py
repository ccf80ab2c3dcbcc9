"""Scales, actions and the critical success effects of each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from rules.errors import RulesError
from rules.tables import require_keys, require_table

# --- Scales, actions and critical effects


class Scale(StrEnum):
    """The scale of an action, which picks its critical effects."""

    PERSONAL = "personal"
    VEHICLE = "vehicle"
    STARSHIP = "starship"
    CAPITAL = "capital"

    @property
    def display_name(self) -> str:
        """Return the name as users read it."""
        return self.value.capitalize()


class Action(StrEnum):
    """A kind of action; each scale allows three (see ``ACTIONS_BY_SCALE``)."""

    COMBAT = "combat"
    SKILL = "skill"
    SOCIAL = "social"
    PILOTING = "piloting"
    OPERATIONS = "operations"
    FLEET = "fleet"
    NAVIGATION = "navigation"
    DIPLOMACY = "diplomacy"
    STRATEGY = "strategy"
    POLITICS = "politics"
    ECONOMICS = "economics"

    @property
    def display_name(self) -> str:
        """Return the name as the rule document spells it."""
        return _ACTION_TITLES.get(self, self.value.capitalize())


_ACTION_TITLES = {Action.SKILL: "Skill Use", Action.FLEET: "Fleet Command"}

ACTIONS_BY_SCALE: Mapping[Scale, tuple[Action, ...]] = MappingProxyType(
    {
        Scale.PERSONAL: (Action.COMBAT, Action.SKILL, Action.SOCIAL),
        Scale.VEHICLE: (Action.COMBAT, Action.PILOTING, Action.OPERATIONS),
        Scale.STARSHIP: (Action.FLEET, Action.NAVIGATION, Action.DIPLOMACY),
        Scale.CAPITAL: (Action.STRATEGY, Action.POLITICS, Action.ECONOMICS),
    }
)


def _names(members: tuple[StrEnum, ...] | type[StrEnum]) -> str:
    """Return enum values as a comma-separated list for messages."""
    return ", ".join(member.value for member in members)


def parse_scale(name: str) -> Scale:
    """Return the scale called ``name`` (any case), or raise RulesError listing the scales."""
    try:
        return Scale(name.strip().lower())
    except ValueError:
        raise RulesError(f"Unknown scale {name!r}; choose one of: {_names(Scale)}.") from None


def parse_action(scale: Scale, name: str) -> Action:
    """Return the action called ``name`` for ``scale``, or raise RulesError listing its actions."""
    try:
        action = Action(name.strip().lower())
    except ValueError:
        raise RulesError(
            f"Unknown action {name!r} for the {scale.value} scale; "
            f"choose one of: {_names(ACTIONS_BY_SCALE[scale])}."
        ) from None
    check_scale_action(scale, action)
    return action


def check_scale_action(scale: Scale, action: Action) -> None:
    """Raise RulesError unless ``action`` belongs to ``scale``, listing that scale's actions."""
    allowed = ACTIONS_BY_SCALE[scale]
    if action not in allowed:
        raise RulesError(
            f"{action.value!r} is not a {scale.value} action; choose one of: {_names(allowed)}."
        )


@dataclass(frozen=True, slots=True)
class CriticalEffects:
    """The critical success effect text of every scale and action."""

    texts: Mapping[Scale, Mapping[Action, str]]

    def effect(self, scale: Scale, action: Action) -> str:
        """Return the effect text, or raise RulesError if the action is not of that scale."""
        check_scale_action(scale, action)
        return self.texts[scale][action]


def parse_critical_effects(mapping: Mapping[str, object]) -> CriticalEffects:
    """Validate a ``{scale: {action: text}}`` mapping (critical_effects.toml) and freeze it.

    Raises:
        ValueError: naming the bad key (e.g. ``vehicle.social``) when a scale or action is
            unknown or missing, or a text is empty.
    """
    require_keys("", require_table("critical effects", mapping), [scale.value for scale in Scale])
    texts: dict[Scale, Mapping[Action, str]] = {}
    for scale in Scale:
        table = require_table(scale.value, mapping[scale.value])
        require_keys(scale.value, table, [action.value for action in ACTIONS_BY_SCALE[scale]])
        by_action: dict[Action, str] = {}
        for action in ACTIONS_BY_SCALE[scale]:
            text = table[action.value]
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{scale.value}.{action.value}: expected non-empty text")
            by_action[action] = text.strip()
        texts[scale] = MappingProxyType(by_action)
    return CriticalEffects(MappingProxyType(texts))
