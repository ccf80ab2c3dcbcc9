"""Traits a GM gives a player in a campaign; the reroll is one (the document's "chance trait").

The ruling (docs/players/realms.md, "The reroll is a trait"): in a campaign the
reroll of one die is offered only to the players the GM has given the trait, and to a GM for
their own rolls; outside a campaign anyone may reroll their own latest roll. ``may_reroll``
decides it, for the die buttons under a roll and for `/realms reroll` alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["RerollPermission", "Trait", "may_reroll"]


class Trait(StrEnum):
    """The traits a GM gives with `/realms trait add` (one so far; more may come)."""

    REROLL = "reroll"


# Why a reroll is refused to a player in a campaign without the trait, and what to do.
NEEDS_THE_TRAIT = (
    "the reroll is a trait: a GM gives it with `/realms trait add` "
    "(a GM may always reroll their own rolls)"
)


@dataclass(frozen=True, slots=True)
class RerollPermission:
    """Whether a user may reroll a die of a roll, and why (shown when refused)."""

    allowed: bool
    reason: str


def may_reroll(
    *, in_campaign: bool, is_gm: bool, holds_trait: bool, is_own_roll: bool
) -> RerollPermission:
    """Decide whether a user may reroll one die of a roll.

    Only a roll's roller ever rerolls it. In a campaign that roller must hold the reroll trait,
    or be a GM of the campaign; outside a campaign there are no traits, and anyone may.
    """
    if not is_own_roll:
        return RerollPermission(False, "only its roller may reroll a die of a roll")
    if not in_campaign:
        return RerollPermission(True, "outside a campaign anyone may reroll their own roll")
    if is_gm:
        return RerollPermission(True, "a GM may reroll their own rolls")
    if holds_trait:
        return RerollPermission(True, "they hold the reroll trait")
    return RerollPermission(False, NEEDS_THE_TRAIT)
