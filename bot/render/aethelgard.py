"""Rendering of Aethelgard pools in the document's display format, odds and contests."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.grammar import plural, possessive
from bot.render.numbers import by_chance, more_values, percent
from bot.render.reply import RollReply, Verdict
from bot.render.style import FIELD_LIMIT, TITLE_LIMIT, Colour, listed, shown, truncate
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


SHOWN_NETS = 12
"""The most likely nets an odds reply lists; it says how many more there are."""


def pool_text(pool: Pool) -> str:
    """Show where every die came from, each number named: "WITS: 8 dice + System Bypass
    (rank): 3 dice + 1 bonus die − Psychic Stress 25: 1 die = 11d10"."""
    parts = []
    for index, part in enumerate(pool.parts):
        sign = "−" if part.dice < 0 else ("+" if index else "")
        count = abs(part.dice)
        named = (
            plural(count, part.label.removesuffix("dice") + "die", part.label)  # "2 bonus dice"
            if part.label.endswith("dice")
            else f"{part.label}: {plural(count, 'die', 'dice')}"
        )
        parts.append(f"{sign} {named}".strip())
    text = " ".join(parts) + f" = {pool.size}d10"
    if pool.floored:
        text += " (at least 1 die)"
    return text


def _block(result: PoolRoll) -> str:
    """The document's display lines in a code block, so spacing and symbols stay exact."""
    return "```\n" + "\n".join(display_lines(result)) + "\n```"


def _dice(result: PoolRoll, who: str = "", pool: Pool | None = None) -> str:
    """A pool's size (where its dice came from, when it has more than one part) and the
    document's display block, which nothing restates (``who``: the side, in a contest)."""
    size = pool_text(pool) if pool is not None and len(pool.parts) > 1 else ""
    return f"{who}{size or f'{len(result.dice)}d10'}\n{_block(result)}"


_VERDICT = {
    Degree.CRITICAL: (Verdict.CRITICAL, "CRITICAL SUCCESS"),
    Degree.SUCCESS: (Verdict.SUCCESS, None),
    Degree.FAILURE: (Verdict.FAILURE, None),
    Degree.FUMBLE: (Verdict.FUMBLE, "COGNITIVE GLITCH"),
}


def roll_result(result: PoolRoll, pool: Pool, label: str, roller: str) -> discord.Embed:
    """Show a pool roll: the display format, the pool's parts, the degree against the DC.

    A critical or a fumble is first in the roll's title (the table sees it there: it is never
    announced apart; docs/players/index.md, "Buttons and announcements")."""
    verdict, word = _VERDICT[result.degree]
    return RollReply(
        who=roller,
        what=f"{shown(label)} vs DC {result.dc}",
        verdict=verdict,
        word=word,
        total=f"{result.net} net",
        dice=_dice(result, pool=pool),
    ).embed()


def opposed(result: OpposedRoll, roller: str) -> discord.Embed:
    winner = shown(roller) if result.attacker_wins else "The defender"
    tie = " (a tie holds)" if result.attacker.net == result.defender.net else ""
    sides = ((possessive(shown(roller)), result.attacker), ("The defender's", result.defender))
    return RollReply(
        who=roller,
        what="opposed roll vs the defender",
        verdict=Verdict.SUCCESS if result.attacker_wins else Verdict.FAILURE,
        word=f"{winner} wins{tie}",
        total=f"{result.attacker.net} vs {result.defender.net} net",
        dice="\n".join(_dice(side, f"{name} pool: ") for name, side in sides),
    ).embed()


def attack(result: AttackRoll, roller: str) -> discord.Embed:
    """Show an attack: accuracy vs Defense, damage (doubled on a critical), soak, block."""
    dice = [_dice(result.accuracy, "Accuracy: ")]
    notes = []
    if result.damage is not None:
        doubled = " (critical accuracy: pool doubled)" if result.damage_doubled else ""
        dice.append(_dice(result.damage, f"Damage{doubled}: "))
        steps = [f"{result.damage.net} net"]
        if result.soak:
            steps.append(f"− {result.soak} soak")
        if result.block is not None:
            dice.append(_dice(result.block, "Block: "))
            steps.append(f"− {result.blocked} blocked")
        if len(steps) > 1:  # the damage dealt is the title's: its arithmetic, once
            notes.append(f"Damage dealt: {' '.join(steps)} (at least 0)")
    return RollReply(
        who=roller,
        what=f"attack vs Defense {result.accuracy.dc}",
        verdict=Verdict.SUCCESS if result.hit else Verdict.FAILURE,
        word="Hit" if result.hit else "Miss",
        total=f"{result.damage_dealt} damage",
        dice="\n".join(dice),
        notes=notes,
    ).embed()


def craft(result: PoolRoll, tier: CraftTier, pool: Pool, roller: str) -> discord.Embed:
    verdict, _ = _VERDICT[result.degree]
    return RollReply(
        who=roller,
        what="crafting",
        verdict=verdict,
        word=tier.value,
        total=f"{result.net} net",
        dice=_dice(result, pool=pool),
        notes=["Tiers: net 0–1 Standard · 2–4 Masterwork · 5+ Legendary · fumble: destroyed"],
        colour=Colour.ROLL if tier is CraftTier.STANDARD else None,
    ).embed()


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
    covered = sum((chance for _, chance in top), Fraction(0))
    dropped = more_values([chance for _, chance in rest], 1 - covered)
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
    # Up to 30 skills of 40 characters: more than a field holds; the rest are counted.
    skill_lines = [f"{shown(name)} {rank}" for name, rank in sheet.skills.items()]
    skills = listed(skill_lines, FIELD_LIMIT, more="more skills") or "none"
    embed.add_field(name="Skills", value=skills)
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
        description=f"Every pool loses {plural(lost, 'die', 'dice')} to it (1 per full 20).",
        colour=Colour.WARNING if after > before else Colour.CAMPAIGN,
    )
