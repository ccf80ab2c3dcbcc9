"""What each system declares about itself: its name, settings, tracks and characters.

A system module or package (``rules/<system>``, or one in an extra package: ``rules.systems``)
exposes ``DECLARATION = SystemDeclaration(system=System(...), ...)``. The registry finds it
there; `/campaign start`, `/campaign settings` and `/campaign info`, the track store and the
character store read it, so a new system, setting or track touches only its system.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Generic, TypeVar, cast

from rules.errors import RulesError
from rules.roll_kinds import RollKind
from rules.systems import System, registered

__all__ = [
    "JsonValue",
    "Setting",
    "SystemDeclaration",
    "TrackSpec",
    "declaration",
]

T = TypeVar("T")
JsonValue = bool | str  # how a setting's value is stored


def _default_info(label: str) -> Callable[[object], str | None]:
    return lambda value: f"{label}: {value}"


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One campaign setting of a system, chosen at `/campaign start`.

    ``kind`` is ``bool`` or a StrEnum (offered as choices). ``info`` returns the line
    `/campaign info` shows for a value, or None to show nothing (e.g. a switch left off).
    A ``changeable`` setting may also be changed later, with `/campaign settings`.
    """

    name: str  # the option's name in /campaign start
    label: str
    help: str  # the option's description in Discord (≤ 100 characters)
    kind: type[T]
    default: T
    info: Callable[[T], str | None] | None = None
    changeable: bool = False

    def parse(self, raw: object, system: System) -> T:
        """Validate a value from the user or the database; raise RulesError if illegal."""
        if self.kind is bool:
            if isinstance(raw, self.kind):
                return raw
        elif isinstance(raw, str):
            wanted = raw.strip().casefold()
            for member in self._members():
                if str(member.value).casefold() == wanted:
                    return cast(T, member)
        allowed = "true or false" if self.kind is bool else ", ".join(map(str, self._members()))
        raise RulesError(f"`{self.name}` for {system.with_article} campaign must be {allowed}.")

    def to_json(self, value: T) -> JsonValue:
        return value if isinstance(value, bool) else str(cast(Enum, value).value)

    def _members(self) -> list[Enum]:
        """The choices of a StrEnum kind (every kind but bool)."""
        return list(cast("type[Enum]", self.kind))

    def describe(self, value: T) -> str | None:
        """Return the line `/campaign info` shows for ``value``, or None."""
        info = self.info or _default_info(self.label)
        return info(value)


@dataclass(frozen=True, slots=True)
class TrackSpec:
    """A counter a system keeps: on the party (one per campaign) and/or on each character."""

    name: str
    minimum: int
    maximum: int
    start: int = 0
    party: bool = True
    per_character: bool = False

    def check(self, value: int) -> bool:
        return self.minimum <= value <= self.maximum


@dataclass(frozen=True, slots=True)
class SystemDeclaration:
    """A system: its name, campaign settings, tracks, how many characters a player may have, and
    the kinds of roll it logs."""

    system: System
    settings: tuple[Setting[Any], ...] = ()
    tracks: tuple[TrackSpec, ...] = ()
    characters_per_player: int = 1
    # The kinds of roll it logs, each read once for every reader (rules/roll_kinds.py).
    roll_kinds: tuple[RollKind[Any], ...] = ()
    _tracks_by_name: Mapping[str, TrackSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_tracks_by_name", {track.name: track for track in self.tracks})

    def track(self, name: str) -> TrackSpec | None:
        """Return the track declared under ``name``, or None."""
        return self._tracks_by_name.get(name)


def declaration(system: System) -> SystemDeclaration:
    """Return what ``system`` declares (nothing but its name, for a system not registered)."""
    found = registered().get(system.value)
    return found if found is not None and found.system == system else SystemDeclaration(system)
