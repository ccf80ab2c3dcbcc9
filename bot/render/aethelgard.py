"""Rendering of Aethelgard pools in the document's display format, odds and contests."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.numbers import by_chance, more_values, percent
from bot.render.style import FIELD_LIMIT, TITLE_LIMIT, Colour, shown, truncate
from bot.storage import Character
from rules.aethelgard import (
    AttackRoll,
    CraftTier,
    Degree,
    OpposedRoll,
    Pool,
    PoolRoll,
    RollOdds,
    Sheet,
    display_lines,
    trauma_dice,
)

__all__ = [
    "attack",
    "character_sheet",
    "craft",
    "odds",
    "opposed",
    "pool_text",
    "roll_result",
    "trauma_changed",
]


_COLOUR = {
    Degree.CRITICAL: Colour.CRITICAL_SUCCESS,
    Degree.SUCCESS: Colour.SUCCESS,
    Degree.FAILURE: Colour.FAILURE,
    Degree.FUMBLE: Colour.CRITICAL_FAILURE,
}


SHOWN_NETS = 12
"""The most likely nets an odds reply lists; it says how many more there are."""


def pool_text(pool: Pool) -> str:
    """Show where every die came from: "WITS 8 + System Bypass 3 − penalty dice 1 = 10d10"."""
    parts = []
    for index, part in enumerate(pool.parts):
        sign = "−" if part.dice < 0 else ("+" if index else "")
        parts.append(f"{sign} {part.label} {abs(part.dice)}".strip())
    text = " ".join(parts) + f" = {pool.size}d10"
    if pool.floored:
        text += " (at least 1 die)"
    return text


def _block(result: PoolRoll) -> str:
    """The document's display lines in a code block, so spacing and symbols stay exact."""
    return "```\n" + "\n".join(display_lines(result)) + "\n```"


def roll_result(result: PoolRoll, pool: Pool, label: str, roller: str) -> discord.Embed:
    """Show a pool roll: the display format, the pool's parts, the degree against the DC."""
    embed = discord.Embed(
        title=truncate(
            f"{_headline(result)}🎲 {shown(roller)}: {shown(label)} (Pool: {pool.size}d10)",
            TITLE_LIMIT,
        ),
        description=_block(result),
        colour=_COLOUR[result.degree],
    )
    embed.add_field(name="Pool", value=truncate(pool_text(pool), FIELD_LIMIT), inline=False)
    embed.add_field(name=f"vs DC {result.dc}", value=result.degree.value)
    return embed


def _headline(result: PoolRoll) -> str:
    """A critical or a fumble, first in the roll's title (the table sees it there: it is
    never announced apart; README, "Buttons and announcements")."""
    if result.fumble:
        return "💀 COGNITIVE GLITCH · "
    if result.critical:
        return "🌟 CRITICAL SUCCESS · "
    return ""


def opposed(result: OpposedRoll, roller: str) -> discord.Embed:
    winner = shown(roller) if result.attacker_wins else "The defender"
    tie = " (a tie holds)" if result.attacker.net == result.defender.net else ""
    embed = discord.Embed(
        title=truncate(f"⚔️ Opposed · {shown(roller)} vs defender", TITLE_LIMIT),
        description=f"**{winner} wins**{tie}: {result.attacker.net} vs {result.defender.net} net.",
        colour=Colour.SUCCESS if result.attacker_wins else Colour.FAILURE,
    )
    embed.add_field(name="Attacker", value=_block(result.attacker), inline=False)
    embed.add_field(name="Defender", value=_block(result.defender), inline=False)
    return embed


def attack(result: AttackRoll, roller: str) -> discord.Embed:
    """Show an attack: accuracy vs Defense, damage (doubled on a critical), soak, block."""
    embed = discord.Embed(
        title=truncate(f"🗡️ Attack · {shown(roller)}", TITLE_LIMIT),
        description=(
            f"**{'Hit' if result.hit else 'Miss'}**: accuracy {result.accuracy.net} net vs "
            f"Defense {result.accuracy.dc}. Damage dealt: **{result.damage_dealt}**"
        ),
        colour=Colour.SUCCESS if result.hit else Colour.FAILURE,
    )
    embed.add_field(name="Accuracy", value=_block(result.accuracy), inline=False)
    if result.damage is not None:
        doubled = " (critical accuracy: pool doubled)" if result.damage_doubled else ""
        embed.add_field(name=f"Damage{doubled}", value=_block(result.damage), inline=False)
        steps = [f"{result.damage.net} net"]
        if result.soak:
            steps.append(f"− {result.soak} soak")
        if result.block is not None:
            embed.add_field(name="Block", value=_block(result.block), inline=False)
            steps.append(f"− {result.blocked} blocked")
        embed.add_field(
            name="Damage dealt",
            value=f"{' '.join(steps)} = **{result.damage_dealt}** (at least 0)",
            inline=False,
        )
    return embed


def craft(result: PoolRoll, tier: CraftTier, pool: Pool, roller: str) -> discord.Embed:
    embed = discord.Embed(
        title=truncate(
            f"{_headline(result)}🔨 {shown(roller)}: crafting → {tier.value}", TITLE_LIMIT
        ),
        description=_block(result),
        colour=_COLOUR[result.degree] if tier is not CraftTier.STANDARD else Colour.ROLL,
    )
    embed.add_field(name="Pool", value=truncate(pool_text(pool), FIELD_LIMIT), inline=False)
    embed.add_field(
        name="Tiers", value="net 0–1 Standard · 2–4 Masterwork · 5+ Legendary · fumble: destroyed"
    )
    return embed


def odds(result: RollOdds) -> discord.Embed:
    """Show exact chances of a pool against a DC and the net distribution."""
    embed = discord.Embed(
        title=f"🎯 {result.dice}d10 vs DC {result.dc}",
        description=(
            f"Success **{percent(result.success)}** · critical {percent(result.critical)} · "
            f"fumble {percent(result.fumble)}\nMean net (negatives as 0): "
            f"{float(result.mean):.3f} · successes − botches: {float(result.raw_mean):.3f}"
        ),
        colour=Colour.ROLL,
    )
    ranked = by_chance(result.shown)
    top, rest = ranked[:SHOWN_NETS], ranked[SHOWN_NETS:]
    lines = [
        f"{net} net: {percent(chance)}"
        + (f" (fumble {percent(result.fumble)})" if net == 0 else "")
        for net, chance in sorted(top)
    ]
    listed = sum((chance for _, chance in top), Fraction(0))
    dropped = more_values([chance for _, chance in rest], 1 - listed)
    embed.add_field(
        name="Most likely nets", value="\n".join([*lines, dropped] if dropped else lines)
    )
    return embed


def character_sheet(
    character: Character[Sheet], stress: int, corruption: int, owner: str
) -> discord.Embed:
    """Show attributes, skill ranks, Stress and Corruption (and the dice they cost)."""
    sheet = character.sheet
    embed = discord.Embed(
        title=truncate(shown(character.name), TITLE_LIMIT),
        description=f"Player: {shown(owner)}",
        colour=Colour.CAMPAIGN,
    )
    embed.add_field(
        name="Attributes",
        value="\n".join(f"{name} {score}" for name, score in sheet.attributes.items()),
    )
    skills = "\n".join(f"{name} {rank}" for name, rank in sheet.skills.items()) or "none"
    embed.add_field(name="Skills", value=truncate(skills, FIELD_LIMIT))
    embed.add_field(
        name="Trauma",
        value=(
            f"Psychic Stress {stress} (−{trauma_dice(stress)} dice)\n"
            f"Runic Blight Corruption {corruption} (−{trauma_dice(corruption)} dice)"
        ),
        inline=False,
    )
    return embed


def trauma_changed(name: str, label: str, before: int, after: int) -> discord.Embed:
    """Show a Stress or Corruption change and the dice it costs now."""
    lost = trauma_dice(after)
    return discord.Embed(
        title=truncate(f"{shown(name)}: {label} {before} → {after}", TITLE_LIMIT),
        description=f"Every pool loses {lost} {'die' if lost == 1 else 'dice'} to it "
        "(1 per full 20).",
        colour=Colour.WARNING if after > before else Colour.CAMPAIGN,
    )
