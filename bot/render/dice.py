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
    """Show several rolls in one: a line per roll (a part's sets numbered), each with its label
    and, after a comparison, success or failure."""
    naturals = [roll.natural for rolls in result.rolls for roll in rolls]
    colour = Colour.ROLL
    if Natural.TWENTY in naturals:
        colour = Colour.CRITICAL_SUCCESS
    elif Natural.ONE in naturals:
        colour = Colour.CRITICAL_FAILURE
    parts = result.request.parts
    lines = []
    for part, rolls in zip(parts, result.rolls, strict=True):
        # Several rolls: each line names its own label; one roll: the label is the 💬 field.
        named = f"{shown(part.label)}: " if part.label and len(parts) > 1 else ""
        for number, roll in enumerate(rolls, start=1):
            label = f"{number}. " if part.sets > 1 else ""
            mark = {Natural.TWENTY: " ✨", Natural.ONE: " 💀"}.get(roll.natural, "")
            outcome = ""
            if part.comparison is not None:
                success = part.comparison.holds(roll.total)
                outcome = f" {part.comparison.spelled()}: " + (
                    "✅ success" if success else "❌ failure"
                )
            lines.append(
                f"{named}{label}{truncate(roll.breakdown, 500)} = **{roll.total}**{mark}{outcome}"
            )
    embed = discord.Embed(
        title=truncate(f"🎲 {shown(roller)} rolls {shown(text)}", 256),
        description=truncate("\n".join(lines), 4000),
        colour=colour,
    )
    if len(parts) == 1 and parts[0].label:
        embed.add_field(name="💬", value=truncate(shown(parts[0].label), 1024), inline=False)
    return embed
