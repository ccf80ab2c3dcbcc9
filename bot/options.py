"""Helpers for slash-command options shared by the cogs."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import TypeVar

from discord import app_commands

__all__ = ["choices_of"]

E = TypeVar("E", bound=Enum)


def choices_of(
    enum: type[E], label: Callable[[E], str] = lambda member: str(member.value)
) -> list[app_commands.Choice[str]]:
    """Offer an enum's members as choices whose values are the members' values."""
    return [app_commands.Choice(name=label(member), value=str(member.value)) for member in enum]
