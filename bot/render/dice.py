"""Rendering of `/roll` results."""

from __future__ import annotations

import discord

from bot.render.style import Colour, shown, truncate
from rules.expressions import ExpressionRoll, Natural, RequestRoll

__all__ = ["expression_roll", "request_roll"]


def expression_roll(roll: ExpressionRoll, roller: str) -> discord.Embed:
    """Show every die of a `/roll`, its total, and a natural 20 or 1 loudly."""
    title = f"🎲 {shown(roller)} rolls {shown(roll.expression)}"
    colour = Colour.ROLL
    if roll.natural is Natural.TWENTY:
        title, colour = f"✨ NATURAL 20! {title}", Colour.CRITICAL_SUCCESS
    elif roll.natural is Natural.ONE:
        title, colour = f"💀 NATURAL 1! {title}", Colour.CRITICAL_FAILURE
    embed = discord.Embed(title=truncate(title, 256), colour=colour)
    # Cut the breakdown, never the total: a 1000-die roll still ends with its result.
    embed.description = f"{truncate(roll.breakdown, 4000)}\n**Total: {roll.total}**"
    return embed


def request_roll(result: RequestRoll, roller: str, text: str) -> discord.Embed:
    """Show several rolls in one: a line per roll (a part's sets numbered), and the comment."""
    naturals = [roll.natural for rolls in result.rolls for roll in rolls]
    colour = Colour.ROLL
    if Natural.TWENTY in naturals:
        colour = Colour.CRITICAL_SUCCESS
    elif Natural.ONE in naturals:
        colour = Colour.CRITICAL_FAILURE
    lines = []
    for (sets, _), rolls in zip(result.request.parts, result.rolls, strict=True):
        for number, roll in enumerate(rolls, start=1):
            label = f"{number}. " if sets > 1 else ""
            mark = {Natural.TWENTY: " ✨", Natural.ONE: " 💀"}.get(roll.natural, "")
            lines.append(f"{label}{truncate(roll.breakdown, 500)} = **{roll.total}**{mark}")
    embed = discord.Embed(
        title=truncate(f"🎲 {shown(roller)} rolls {shown(text)}", 256),
        description=truncate("\n".join(lines), 4000),
        colour=colour,
    )
    if result.request.comment:
        comment = truncate(shown(result.request.comment), 1024)
        embed.add_field(name="💬", value=comment, inline=False)
    return embed
