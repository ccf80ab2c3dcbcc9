"""Rendering of `/roll` results, in the one reply layout (``bot.render.reply``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import discord

from bot.render.reply import DICE_PER_LINE_MIN, DICE_SHOWN, RollReply, Verdict, cut_dice
from bot.render.style import EMBED_DESCRIPTION_LIMIT, FIELD_LIMIT, listed, shown, truncate
from rules.expressions import ExpressionRoll, Natural, RequestRoll

__all__ = ["every_die", "expression_roll", "request_roll"]

_NATURAL: dict[Natural | None, tuple[Verdict, str | None]] = {
    Natural.TWENTY: (Verdict.CRITICAL, "NATURAL 20!"),
    Natural.ONE: (Verdict.FUMBLE, "NATURAL 1!"),
}


def expression_roll(roll: ExpressionRoll, roller: str, hint: str | None = None) -> discord.Embed:
    """Show the dice of a `/roll` (past ``DICE_SHOWN``, counted), its total in the title, and a
    natural 20 or 1 loudly; ``hint``: a peer's reading of a form read otherwise (one line)."""
    verdict, word = _NATURAL.get(roll.natural, (Verdict.NONE, None))
    # Cut the dice, never the total: a 1000-die roll's title still ends with its result.
    return RollReply(
        who=roller,
        what=shown(roll.expression),
        verdict=verdict,
        word=word,
        total=f"total {roll.total}",
        dice=truncate(cut_dice(roll.breakdown), 4000),
        notes=[f"💡 {hint}"] if hint else [],
    ).embed()


def request_roll(result: RequestRoll, roller: str, text: str) -> discord.Embed:
    """Show several rolls in one: a line per roll (a part's sets numbered), each with its label,
    total and, after a comparison, success or failure; one roll's total and verdict are its
    title's alone."""
    naturals = [roll.natural for rolls in result.rolls for roll in rolls]
    parts = result.request.parts
    count = sum(len(rolls) for rolls in result.rolls)
    single = count == 1
    # The dice shown are shared by the lines (each shows a few at least), so that every roll's
    # total fits the reply: 20 sets of 50d6kh3 show 5 dice a line, and all 20 totals.
    per_line = max(DICE_PER_LINE_MIN, DICE_SHOWN // count)
    lines = []
    outcomes: list[bool] = []
    for part, rolls in zip(parts, result.rolls, strict=True):
        # Several rolls: each line names its own label; one roll: the label is the 💬 note.
        named = f"{shown(part.label)}: " if part.label and len(parts) > 1 else ""
        for number, roll in enumerate(rolls, start=1):
            label = f"{number}. " if part.sets > 1 else ""
            mark = {Natural.TWENTY: " ✨", Natural.ONE: " 💀"}.get(roll.natural, "")
            outcome = ""
            if part.comparison is not None:
                success = part.comparison.holds(roll.total)
                outcomes.append(success)
                outcome = f" {part.comparison.spelled()}: " + (
                    "✅ success" if success else "❌ failure"
                )
            dice = truncate(cut_dice(roll.breakdown, per_line), 500)
            # One roll: its total and verdict are the title's (nothing restates them).
            lines.append(
                dice if single else f"{named}{label}{dice} = **{roll.total}**{mark}{outcome}"
            )
    verdict: Verdict = Verdict.NONE
    word: str | None = None
    if single and outcomes:
        verdict = Verdict.SUCCESS if outcomes[0] else Verdict.FAILURE
    # One roll's natural is its title's verdict; several rolls' naturals stay on their own
    # lines (✨/💀): one set's natural 1 is not the whole roll's verdict.
    if single and naturals[0] in _NATURAL:
        verdict, word = _NATURAL[naturals[0]]
    reply = RollReply(
        who=roller,
        what=shown(text),
        verdict=verdict,
        word=word,
        total=f"total {result.rolls[0][0].total}" if single else f"{len(lines)} rolls",
        dice="",
    )
    # The comment is in the title with what was typed; a 💬 note only when the title cut it.
    comment = parts[0].label if len(parts) == 1 else None
    notes = []
    if comment and shown(comment) not in reply.title:
        notes.append(f"💬 {truncate(shown(comment), FIELD_LIMIT)}")
    # docs/players/dice.md, "Read differently on purpose": the first roll's "did you mean".
    notes += [f"💡 {hint}" for hint in [part.hint for part in parts if part.hint][:1]]
    # Up to 4 rolls of 20 sets each: the lines that fit beside the notes, then how many more.
    room = EMBED_DESCRIPTION_LIMIT - len("🎲 ") - sum(len(note) + 1 for note in notes)
    return replace(reply, dice=listed(lines, room, more="more rolls"), notes=notes).embed()


def every_die(result: object) -> str | None:
    """Every die of a logged `/roll`, from its rules result as logged (not its reply, which
    counts the dice past ``DICE_SHOWN``): one line per roll, each with its total when there are
    several; None for anything else. The roll log's export shows these."""
    if not isinstance(result, Mapping):
        return None
    if isinstance(result.get("breakdown"), str):
        return str(result["breakdown"])
    rolls = [
        roll
        for part in result.get("rolls") or ()
        for roll in part
        if isinstance(roll, Mapping) and isinstance(roll.get("breakdown"), str)
    ]
    if not rolls:
        return None
    if len(rolls) == 1:
        return str(rolls[0]["breakdown"])
    return "\n".join(f"{roll['breakdown']} = {roll.get('total')}" for roll in rolls)
