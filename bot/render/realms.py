"""Rendering of Enchanted Realms attacks, single-die rolls, stealth, spells, rerolls and odds."""

from __future__ import annotations

import discord

from bot.render.numbers import percent
from bot.render.style import FIELD_LIMIT, TITLE_LIMIT, Colour, shown, truncate
from rules.realms import (
    HALF_MOVEMENT,
    AttackOdds,
    AttackResult,
    CheckOdds,
    CheckResult,
    Decision,
    SpellResult,
    State,
    StealthResult,
)

__all__ = [
    "attack",
    "attack_odds",
    "check",
    "check_odds",
    "natural_20",
    "rerolled",
    "single_die_title",
    "spell",
    "stealth",
]


def _state(decision: Decision) -> str:
    return f"**{decision.state.value.capitalize()}**: {decision.reason}"


def _attack_state(decision: Decision, primary: bool) -> str:
    """The state, and for a secondary attack that the ±2 damage is not applied."""
    if primary:
        return _state(decision)
    return f"{_state(decision)}\n{SECONDARY}"


SECONDARY = "Secondary attack (off-hand, opportunity): no ±2 damage"


def attack(result: AttackResult, roller: str) -> discord.Embed:
    """Show every d20, which strikes hit, each strike's damage, each target's net damage."""
    struck = any(target.hits for target in result.targets)
    natural = any(target.natural_20 for target in result.targets)
    embed = discord.Embed(
        title=truncate(
            f"{'🌟 NATURAL 20 · ' if natural else ''}⚔️ {shown(roller)}: attack, to hit "
            f"{result.to_hit}, damage {result.damage}",
            TITLE_LIMIT,
        ),
        description=_attack_state(result.decision, result.primary),
        colour=Colour.CRITICAL_SUCCESS
        if natural
        else (Colour.SUCCESS if struck else Colour.FAILURE),
    )
    if result.kept_lower:
        embed.add_field(
            name="0 dice left",
            value=f"Two d20 rolled ({result.dice[0]}, {result.dice[1]}), the lower is the strike.",
            inline=False,
        )
    number = 0
    for index, target in enumerate(result.targets, start=1):
        lines = []
        for strike in target.strikes:
            number += 1
            if strike.hit:
                natural_note = " (natural 20)" if strike.natural_20 else ""
                lines.append(f"d20 #{number}: {strike.face} hits{natural_note} → {strike.damage}")
            else:
                lines.append(f"d20 #{number}: {strike.face} misses")
        if target.hits:
            shift = f" {target.shift:+d} (once for this target)" if target.shift else ""
            lines.append(f"Net: {target.rolled}{shift} = {target.raw}")
            if target.zero_damage_miss:
                lines.append("**Miss**: net damage 0 or less; no riders apply.")
            elif target.raw <= 0:
                lines.append("**1 damage**: a natural 20 always hurts; riders apply.")
            else:
                lines.append(f"**{target.damage} damage**; riders apply.")
        else:
            lines.append("**Miss**.")
        embed.add_field(
            name=f"Target {index}", value=truncate("\n".join(lines), FIELD_LIMIT), inline=False
        )
    if result.half_movement:
        embed.set_author(name=f"Disadvantage: {HALF_MOVEMENT}")
    return embed


def check(result: CheckResult, roller: str, label: str | None = None) -> discord.Embed:
    """Show a single-die roll: both dice and the kept one, against the target if any."""
    kept = result.result
    faces = ", ".join(str(face) for face in result.dice)
    what = label or result.kind.value
    outcome = ""
    if result.success is not None:
        outcome = f" vs {result.target}: **{'success' if result.success else 'failure'}**"
    natural = result.natural_max
    embed = discord.Embed(
        title=truncate(
            f"{'🌟 NATURAL 20 · ' if natural else ''}🎲 {shown(roller)}: {shown(what)} "
            f"({result.die.value})",
            TITLE_LIMIT,
        ),
        description=f"{_state(result.decision)}\nRolled {faces} → **{kept}**{outcome}",
        colour=Colour.CRITICAL_SUCCESS
        if natural
        else (Colour.FAILURE if result.success is False else Colour.SUCCESS),
    )
    return embed


def stealth(result: StealthResult, roller: str) -> discord.Embed:
    faces = ", ".join(str(face) for face in result.dice)
    how = "the lower of two d6" if result.kept_lower else "the d6 summed"
    return discord.Embed(
        title=truncate(
            f"🌫️ {shown(roller)}: stealth → Awareness target {result.total}", TITLE_LIMIT
        ),
        description=f"{_state(result.decision)}\nRolled {faces}: {how} = **{result.total}**",
        colour=Colour.ROLL,
    )


def spell(result: SpellResult, roller: str) -> discord.Embed:
    return discord.Embed(
        title=truncate(f"✨ {shown(roller)}: {result.kind.value}", TITLE_LIMIT),
        description=f"{_state(result.decision)}\n**{result.effect.capitalize()}**",
        colour=Colour.ROLL,
    )


def natural_20(roller: str, what: str) -> discord.Embed:
    """Tell the channel about a natural 20."""
    return discord.Embed(
        title="🌟 NATURAL 20!",
        description=truncate(f"{shown(roller)} rolled a natural 20 on {shown(what)}."),
        colour=Colour.CRITICAL_SUCCESS,
    )


def rerolled(
    before: discord.Embed, after: discord.Embed, position: int, old: int, new: int
) -> discord.Embed:
    """Show a reroll: which die, before and after, and the roll worked out again."""
    after.add_field(
        name=f"Rerolled die {position}",
        value=f"{old} → **{new}** (once; roll before: {truncate(before.title or '', 200)})",
        inline=False,
    )
    return after


_KEPT = {State.ADVANTAGE: "two, keep the higher", State.DISADVANTAGE: "two, keep the lower"}


def single_die_title(die: str, decision: Decision) -> str:
    """Name a single-die roll in its state, e.g. "d20 at advantage (two, keep the higher)"."""
    kept = _KEPT.get(decision.state)
    return f"{die} at {decision.state.value} ({kept})" if kept else die


def check_odds(result: CheckOdds, die: str, target: int, decision: Decision) -> discord.Embed:
    """Show the chance straight, at advantage and at disadvantage; the one that applies in bold."""
    embed = discord.Embed(title=f"🎯 {die} reaching {target}", colour=Colour.ROLL)
    parts = []
    for label, state in (
        ("Straight", State.NORMAL),
        ("advantage", State.ADVANTAGE),
        ("disadvantage", State.DISADVANTAGE),
    ):
        chance = percent(result.of(state))
        parts.append(f"{label} **{chance}**" if state is decision.state else f"{label} {chance}")
    embed.description = f"{' · '.join(parts)}\n{_state(decision)}"
    return embed


def attack_odds(result: AttackOdds, dice: int, to_hit: int, damage: str) -> discord.Embed:
    embed = discord.Embed(
        title=truncate(f"🎯 Attack: {dice}d20 to hit {to_hit}, damage {damage}", TITLE_LIMIT),
        description=_attack_state(result.decision, result.primary),
        colour=Colour.ROLL,
    )
    embed.add_field(
        name="Hits",
        value="\n".join(f"{hits}: {percent(chance)}" for hits, chance in result.hits.items()),
    )
    for index, target in enumerate(result.targets, start=1):
        likely = sorted(target.damage.items(), key=lambda item: item[1], reverse=True)[:8]
        lines = [f"Missed: {percent(target.missed)} · mean damage {float(target.mean):.2f}"]
        lines += [f"{value} damage: {percent(chance)}" for value, chance in sorted(likely)]
        embed.add_field(
            name=f"Target {index} ({target.strikes} strike{'s' if target.strikes != 1 else ''})",
            value=truncate("\n".join(lines), FIELD_LIMIT),
        )
    return embed
