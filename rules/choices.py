"""Turn a user's text into one of an enum's members, or explain what is allowed."""

from __future__ import annotations

from enum import Enum
from typing import TypeVar

from rules.errors import RulesError

__all__ = ["parse_choice"]

E = TypeVar("E", bound=Enum)

QUOTE_MAX = 40  # how much of an unknown value a refusal repeats back


def parse_choice(enum: type[E], text: str, what: str) -> E:
    """Return the member whose value is ``text`` (case-insensitive), else raise RulesError."""
    wanted = text.strip().casefold()
    for member in enum:
        if str(member.value).casefold() == wanted:
            return member
    allowed = ", ".join(str(member.value) for member in enum)
    shown = text if len(text) <= QUOTE_MAX else text[:QUOTE_MAX] + "…"
    raise RulesError(f"Unknown {what} `{shown}`: choose one of {allowed}.")
