"""Character sheets as data: each system's sheet is a frozen dataclass that checks itself.

Storage keeps a sheet as JSON beside the shared character (campaign, player, name). The codec
turns it back into the system's dataclass, whose ``__post_init__`` refuses anything illegal, so
no system ever reads unchecked free-form keys.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["DataclassSheet", "FieldChange", "SheetCodec", "SheetEdit"]

S = TypeVar("S")
D = TypeVar("D", bound="DataclassInstance")


class SheetCodec(Protocol[S]):
    """How a system's sheet is stored: to JSON-ready data and back, checked."""

    def load(self, data: Mapping[str, Any]) -> S:
        """Rebuild a sheet; raise ValueError if the data is not a valid sheet."""
        ...

    def dump(self, sheet: S) -> dict[str, Any]:
        """Return the sheet as JSON-ready data."""
        ...


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class DataclassSheet(Generic[D]):
    """The codec of a sheet that is a dataclass of JSON values (lists come back as tuples).

    The dataclass validates in ``__post_init__`` (raising ValueError or RulesError) and turns
    stored strings back into enums there if it uses any.
    """

    kind: type[D]

    def load(self, data: Mapping[str, Any]) -> D:
        names = {field.name for field in dataclasses.fields(self.kind)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown sheet fields {sorted(unknown)} for {self.kind.__name__}")
        try:
            return self.kind(**{key: _frozen(value) for key, value in data.items()})
        except TypeError as error:  # a missing field
            raise ValueError(f"not a {self.kind.__name__}: {error}") from None

    def dump(self, sheet: D) -> dict[str, Any]:
        return {
            field.name: _plain(getattr(sheet, field.name)) for field in dataclasses.fields(sheet)
        }


# --- Edits of a sheet after creation (docs/players/sinew.md and docs/players/aethelgard.md,
# "Characters forgive mistakes")


@dataclasses.dataclass(frozen=True, slots=True)
class FieldChange:
    """One value of a sheet an edit changed, as shown: "STR 12 → 13", "Melee — → 2"."""

    label: str
    before: str
    after: str

    @property
    def text(self) -> str:
        return f"{self.label} {self.before} → {self.after}"


@dataclasses.dataclass(frozen=True, slots=True)
class SheetEdit(Generic[S]):
    """A sheet after an edit, and what the edit changed (never nothing: an edit that changes
    nothing is refused)."""

    sheet: S
    changes: tuple[FieldChange, ...]

    @property
    def text(self) -> str:
        """Return the changes as one line: "STR 12 → 13, REF 9 → 10"."""
        return ", ".join(change.text for change in self.changes)
