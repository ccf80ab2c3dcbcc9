"""Rendering of `/roll` results."""

from __future__ import annotations

import discord

from bot.render.style import Colour, truncate
from rules.expressions import ExpressionRoll, Natural

__all__ = ["expression_roll"]


def expression_roll(roll: ExpressionRoll, roller: str) -> discord.Embed:
    """Show every die of a `/roll`, its total, and a natural 20 or 1 loudly."""
    title = f"🎲 {roller} rolls {roll.expression}"
    colour = Colour.ROLL
    if roll.natural is Natural.TWENTY:
        title, colour = f"✨ NATURAL 20! {title}", Colour.CRITICAL_SUCCESS
    elif roll.natural is Natural.ONE:
        title, colour = f"💀 NATURAL 1! {title}", Colour.CRITICAL_FAILURE
    embed = discord.Embed(title=truncate(title, 256), colour=colour)
    # Cut the breakdown, never the total: a 1000-die roll still ends with its result.
    embed.description = f"{truncate(roll.breakdown, 4000)}\n**Total: {roll.total}**"
    return embed
