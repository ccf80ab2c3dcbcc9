"""Rendering of `/roll` results, in the one reply layout (``bot.render.reply``)."""

from __future__ import annotations

import discord

from bot.render.reply import Part, RollReply, Verdict
from bot.render.style import EMBED_DESCRIPTION_LIMIT, FIELD_LIMIT, joined, listed, shown, truncate
from rules.expressions import ExpressionRoll, Natural, RequestRoll

__all__ = ["expression_roll", "request_roll"]

_NATURAL: dict[Natural | None, tuple[Verdict, str | None]] = {
    Natural.TWENTY: (Verdict.CRITICAL, "NATURAL 20!"),
    Natural.ONE: (Verdict.FUMBLE, "NATURAL 1!"),
}


def expression_roll(roll: ExpressionRoll, roller: str) -> discord.Embed:
    """Show every die of a `/roll`, its total, and a natural 20 or 1 loudly."""
    verdict, word = _NATURAL.get(roll.natural, (Verdict.NONE, None))
    # Cut the breakdown, never the total: a 1000-die roll still ends with its result.
    return RollReply(
        who=roller,
        what=shown(roll.expression),
        verdict=verdict,
        word=word,
        total=f"total {roll.total}",
        dice=truncate(roll.breakdown, 4000),
        breakdown=[Part("Total", f"**{roll.total}**")],
    ).embed()


def request_roll(result: RequestRoll, roller: str, text: str) -> discord.Embed:
    """Show several rolls in one: a line per roll (a part's sets numbered), each with its label
    and, after a comparison, success or failure."""
    naturals = [roll.natural for rolls in result.rolls for roll in rolls]
    parts = result.request.parts
    lines = []
    outcomes: list[bool] = []
    totals: list[str] = []
    for part, rolls in zip(parts, result.rolls, strict=True):
        # Several rolls: each line names its own label; one roll: the label is the 💬 note.
        named = f"{shown(part.label)}: " if part.label and len(parts) > 1 else ""
        for number, roll in enumerate(rolls, start=1):
            label = f"{number}. " if part.sets > 1 else ""
            mark = {Natural.TWENTY: " ✨", Natural.ONE: " 💀"}.get(roll.natural, "")
            outcome = ""
            totals.append(f"{named}{label}**{roll.total}**")
            if part.comparison is not None:
                success = part.comparison.holds(roll.total)
                outcomes.append(success)
                outcome = f" {part.comparison.spelled()}: " + (
                    "✅ success" if success else "❌ failure"
                )
            lines.append(
                f"{named}{label}{truncate(roll.breakdown, 500)} = **{roll.total}**{mark}{outcome}"
            )
    verdict: Verdict = Verdict.NONE
    word: str | None = None
    if len(totals) == 1 and outcomes:
        verdict = Verdict.SUCCESS if outcomes[0] else Verdict.FAILURE
    if Natural.TWENTY in naturals:
        verdict, word = Verdict.CRITICAL, "NATURAL 20!" if len(totals) == 1 else "natural 20"
    elif Natural.ONE in naturals:
        verdict, word = Verdict.FUMBLE, "NATURAL 1!" if len(totals) == 1 else "natural 1"
    comment = parts[0].label if len(parts) == 1 else None
    notes = [f"💬 {truncate(shown(comment), FIELD_LIMIT)}"] if comment else []
    # Up to 4 rolls of 20 sets each: the lines that fit beside the notes, then how many more.
    room = EMBED_DESCRIPTION_LIMIT - len("🎲 ") - sum(len(note) + 1 for note in notes)
    return RollReply(
        who=roller,
        what=shown(text),
        verdict=verdict,
        word=word,
        total=f"total {result.rolls[0][0].total}" if len(totals) == 1 else f"{len(totals)} rolls",
        dice=listed(lines, room, more="more rolls"),
        breakdown=[
            Part(
                "Total" if len(totals) == 1 else "Totals",
                joined(totals, FIELD_LIMIT, sep=" · ", more="more totals"),
            )
        ],
        notes=notes,
    ).embed()
