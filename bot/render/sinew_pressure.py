"""Rendering of Sinew & Steel Pressure: step announcements, Crises, the Pressure board."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.render.style import FIELD_LIMIT, TITLE_LIMIT, Colour, joined, listed, shown, truncate
from rules.sinew import PRESSURE_MAX
from rules.sinew_pressure import (
    CRISIS_ROLL_TWICE,
    CrisisRoll,
    PressureChange,
    PressureTable,
    SkinTexts,
)

__all__ = [
    "PARTY",
    "Texts",
    "crisis_announcement",
    "pressure_announcement",
    "pressure_board",
    "pressure_line",
]

PARTY = "The party"


class Texts:
    """The campaign's skin and the skin-independent step and Crisis texts, together."""

    def __init__(self, skin: SkinTexts, table: PressureTable) -> None:
        self.skin = skin
        self.table = table

    def step(self, step: int) -> str:
        """Return "colour text — mechanical state" for a step."""
        return f"**{self.skin.colour(step)}** — {self.table.state(step)}"

    def event(self, face: int) -> str:
        """Return a Crisis event's name (in the skin) and its effect."""
        return f"**{self.skin.crisis(face)}**: {self.table.effect(face)}"


def _colour(step: int) -> discord.Colour:
    if step >= PRESSURE_MAX:
        return Colour.CRITICAL_FAILURE
    if step >= PRESSURE_MAX - 1:
        return Colour.FAILURE
    if step >= 2:
        return Colour.WARNING
    return Colour.CAMPAIGN


def pressure_line(step: int, texts: Texts) -> str:
    """Return a track's step with its texts, as sheets and the board show it."""
    return f"{step}/{PRESSURE_MAX} · {texts.step(step)}"


def pressure_announcement(
    owner: str, change: PressureChange, texts: Texts, cause: str | None = None
) -> discord.Embed:
    """Tell the channel a Pressure track moved: the step reached, its colour and its state.

    Never shows dice, so it can follow a hidden roll.
    """
    rising = change.reached > change.before
    arrow = "rises" if rising else "falls"
    embed = discord.Embed(
        title=truncate(
            f"{'🌡️' if rising else '🕊️'} Pressure {arrow} · {shown(owner)}: "
            f"{change.before} → {change.reached}",
            TITLE_LIMIT,
        ),
        description=texts.step(change.reached),
        colour=_colour(change.reached),
    )
    if cause:
        embed.add_field(name="Why", value=truncate(cause, 1024), inline=False)
    if change.crisis is not None:
        embed.add_field(name="Crisis!", value=f"The track resets to {change.after}.", inline=False)
    return embed


def _faces(crisis: CrisisRoll) -> str:
    text = ", ".join(str(face) for face in crisis.faces)
    if crisis.rolled_twice:
        text += f" ({CRISIS_ROLL_TWICE}: roll twice more, rerolling further {CRISIS_ROLL_TWICE}s)"
    return text


def crisis_announcement(
    owner: str,
    crisis: CrisisRoll,
    reset_to: int,
    texts: Texts,
    stamina: Sequence[tuple[str, int, int]] = (),
    struck: Sequence[str] | None = None,
) -> discord.Embed:
    """Announce a Crisis: its colour, the d6, each event with its effect, and the aftermath.

    ``stamina`` lists (name, before, after) for each character the Crisis took Stamina from;
    ``struck`` names who a party Crisis strikes (every character; None: a character's own).
    """
    embed = discord.Embed(
        title=truncate(
            f"💥 CRISIS · {shown(owner)}: {texts.skin.colour(PRESSURE_MAX)}", TITLE_LIMIT
        ),
        description="\n".join(f"• {texts.event(event)}" for event in crisis.events),
        colour=Colour.CRITICAL_FAILURE,
    )
    embed.add_field(name="Crisis d6", value=_faces(crisis), inline=False)
    if struck is not None:
        every = "Every character: "  # every one of the campaign: as many as the field holds
        names = joined([shown(name) for name in struck], FIELD_LIMIT - len(every), more="more")
        embed.add_field(name="Struck", value=every + (names or "no characters yet"))
    if stamina:
        lines = [
            f"{shown(name)}: Stamina {before} → **{after}**"
            + (" · collapsed" if after == 0 else "")
            for name, before, after in stamina
        ]
        text = listed(lines, FIELD_LIMIT, more="more characters")
        embed.add_field(name="Stamina lost", value=text, inline=False)
    embed.add_field(
        name="Aftermath",
        value=f"Pressure resets to {reset_to}: {texts.step(reset_to)}",
        inline=False,
    )
    return embed


def pressure_board(
    party: int, characters: Sequence[tuple[str, int]], texts: Texts
) -> discord.Embed:
    """Show the party's Pressure and each character's, with their texts."""
    embed = discord.Embed(
        title="🌡️ Pressure",
        description=f"{PARTY}: {pressure_line(party, texts)}",
        colour=_colour(max([party, *(step for _, step in characters)])),
    )
    if characters:
        lines = [f"{shown(name)}: {pressure_line(step, texts)}" for name, step in characters]
        text = listed(lines, FIELD_LIMIT, more="more characters")
        embed.add_field(name="Characters", value=text, inline=False)
    embed.set_footer(text=f"Skin: {texts.skin.name}")
    return embed
