"""Rendering of Cosmos Engine rolls, opposed rolls, conversions, challenges and odds."""

from __future__ import annotations

import discord

from bot.render.errors import describe
from bot.render.grammar import plural
from bot.render.numbers import percent, signed
from bot.render.reply import Part, RollReply, Verdict, add_part
from bot.render.style import Colour, listed, shown
from bot.storage.cosmos import ChallengeNameTaken, ChallengeNotFound
from rules.cosmos import (
    ADVANTAGE_CAP,
    CRITICAL_FAILURE_POINTS,
    CRITICAL_SUCCESS_POINTS,
    SUCCESS_POINTS,
    Challenge,
    ChallengeStatus,
    CheckResult,
    Conversion,
    CosmosOdds,
    OpposedResult,
    Pool,
    PoolMode,
    PoolRoll,
    Side,
)

__all__ = [
    "add_challenge_progress",
    "challenge_announcement",
    "challenge_ended",
    "challenge_opened",
    "challenge_progress",
    "challenge_status",
    "conversion",
    "odds",
    "opposed",
    "roll_result",
]


def describe_pool(pool: Pool) -> str:
    """Say how many dice were rolled and which two were kept, after cancellation and the cap."""
    if pool.mode is PoolMode.NORMAL:
        text = f"{pool.dice}d10"
        if pool.advantage:
            text += f" ({pool.advantage} advantage and {pool.disadvantage} disadvantage cancel)"
        return text
    kept = "two highest" if pool.mode is PoolMode.ADVANTAGE else "two lowest"
    text = f"{pool.dice}d10, keep the {kept}"
    if pool.advantage and pool.disadvantage:
        text += f" ({pool.advantage} advantage − {pool.disadvantage} disadvantage)"
    if pool.capped:
        text += f"; net dice capped at {ADVANTAGE_CAP}"
    return text


def _dice(roll: PoolRoll) -> str:
    """The pool and the total's arithmetic: the kept dice (bold), the dropped ones (struck)
    beside them, the attribute and the skill: "3d10, keep the two highest: **10** + **7**
    (kept; dropped ~~4~~) + 3 + 2"."""
    dropped = [
        f"~~{face}~~" for index, face in enumerate(roll.dice) if index not in roll.kept_indices
    ]
    kept = " + ".join(f"**{face}**" if dropped else str(face) for face in roll.kept)
    if dropped:
        kept += f" (kept; dropped {', '.join(dropped)})"
    return f"{describe_pool(roll.pool)}: {kept} + {roll.attribute} + {roll.skill}"


def roll_result(result: CheckResult, roller: str) -> discord.Embed:
    """Show a roll against a TN; a critical is unmistakable in colour and wording."""
    roll = result.roll
    if roll.critical_success:
        verdict, word = Verdict.CRITICAL, "CRITICAL SUCCESS!"
    elif roll.critical_failure:
        verdict, word = Verdict.FUMBLE, "CRITICAL FAILURE!"
    else:
        verdict, word = (Verdict.SUCCESS if result.success else Verdict.FAILURE), None
    notes = []
    if result.critical_effect is not None and result.scale and result.action:
        notes.append(
            f"**Critical effect · {result.scale.display_name} {result.action.display_name}**: "
            f"{result.critical_effect}"
        )
    return RollReply(
        who=roller,
        what=f"roll vs TN {result.tn} ({result.difficulty.value})",
        verdict=verdict,
        word=word,
        total=f"total {roll.total}",
        dice=_dice(roll),
        notes=notes,
    ).embed()


def opposed(result: OpposedResult, roller: str, defender: str | None = None) -> discord.Embed:
    """Show both sides of an opposed roll and who won (a tie goes to the defender).

    ``defender`` is the name the roller gave the other side; without one (or only blanks,
    which Discord would refuse as a field name) it is "the defender".
    """
    named = bool(defender and defender.strip())
    them = shown(defender) if defender and named else "the defender"
    attacker_won = result.winner is Side.ATTACKER
    tie = result.margin == 0
    if attacker_won:
        word = f"{shown(roller)} wins by {result.margin}"
    elif tie:
        word = f"Tie: {them} wins"
    else:
        word = f"{them if named else 'The defender'} wins by {-result.margin}"
    sides = ((shown(roller), result.attacker), (them, result.defender))
    dice = "\n".join(f"{name}{_flags(side)}: {_dice(side)}" for name, side in sides)
    return RollReply(
        who=roller,
        what=f"opposed roll vs {them}",
        verdict=Verdict.SUCCESS if attacker_won else Verdict.FAILURE,
        word=word,
        total=f"{result.attacker.total} vs {result.defender.total}",
        dice=dice,
    ).embed()


def _flags(side: PoolRoll) -> str:
    if side.critical_success:
        return " ✨ critical success"
    if side.critical_failure:
        return " 💀 critical failure"
    return ""


def conversion(result: Conversion) -> discord.Embed:
    """Show each legacy modifier's dice and the pool they make together."""
    lines = []
    if result.era is not None:
        lines.append(f"Era {result.era.value}: +{result.era_dice} advantage")
    if result.situational:
        kind = "advantage" if result.situational_dice >= 0 else "disadvantage"
        lines.append(f"Situational {result.situational:+d}: +{abs(result.situational_dice)} {kind}")
    if result.rating:
        lines.append(f"System rating {result.rating}: +{result.rating_dice} advantage")
    pool = result.pool
    lines.append(
        f"\nTotal: {pool.advantage} advantage, {pool.disadvantage} disadvantage → "
        f"**{describe_pool(pool)}**"
    )
    embed = discord.Embed(title="🔁 Modifiers to dice", colour=Colour.ROLL)
    embed.description = "\n".join(lines)
    embed.set_footer(
        text=f"Use advantage:{pool.advantage} disadvantage:{pool.disadvantage} with /cosmos roll"
    )
    return embed


def challenge_progress(challenge: Challenge) -> str:
    """One line of a challenge's progress."""
    return (
        f"**{shown(challenge.name)}** (TN {challenge.tn}): "
        f"{plural(challenge.successes, 'success')} ({challenge.successes_needed} "
        f"needed), {challenge.rolls_used} of {challenge.max_rolls} rolls used · "
        f"{challenge.status.value}"
    )


def challenge_opened(challenge: Challenge) -> discord.Embed:
    """Announce a new extended challenge and how to roll into it."""
    embed = discord.Embed(
        title=f"🧭 Extended challenge: {shown(challenge.name)}",
        description=(
            f"Reach **{challenge.successes_needed} successes** at **TN {challenge.tn}** within "
            f"**{challenge.max_rolls} rolls**. Success {signed(SUCCESS_POINTS)}, critical success "
            f"{signed(CRITICAL_SUCCESS_POINTS)}, critical failure "
            f"{signed(CRITICAL_FAILURE_POINTS)}.\nRoll into it with "
            f"`/cosmos roll … tn:{challenge.tn}` with the challenge **{shown(challenge.name)}**."
        ),
        colour=Colour.CAMPAIGN,
    )
    return embed


def challenge_status(challenges: list[Challenge]) -> discord.Embed:
    """List open challenges with their progress."""
    more = "more open challenges: pick one with `name:`"
    text = listed([challenge_progress(challenge) for challenge in challenges], more=more)
    return discord.Embed(
        title="🧭 Extended challenges",
        description=text or "No open challenge. A GM opens one with `/cosmos challenge start`.",
        colour=Colour.CAMPAIGN,
    )


_ENDINGS = {
    ChallengeStatus.WON: ("🏆", "won", Colour.CRITICAL_SUCCESS),
    ChallengeStatus.LOST: ("🪦", "lost", Colour.CRITICAL_FAILURE),
    ChallengeStatus.ABANDONED: ("🛑", "ended by the GM", Colour.FAILURE),
}


def add_challenge_progress(embed: discord.Embed, challenge: Challenge) -> None:
    """Show, under a roll that counted towards it, where the challenge stands now."""
    add_part(embed, Part("Challenge", challenge_progress(challenge)))


def challenge_announcement(challenge: Challenge) -> discord.Embed | None:
    """Return the channel's announcement once a roll has won or lost a challenge, else None."""
    return None if challenge.status is ChallengeStatus.OPEN else challenge_ended(challenge)


def challenge_ended(challenge: Challenge) -> discord.Embed:
    """Announce to the channel that a challenge was won, lost or ended by the GM."""
    icon, verb, colour = _ENDINGS[challenge.status]
    return discord.Embed(
        title=f"{icon} Challenge {verb}: {shown(challenge.name)}",
        description=challenge_progress(challenge),
        colour=colour,
    )


def odds(result: CosmosOdds) -> discord.Embed:
    """Show the exact chances of a roll; the chart is attached as `odds.png`."""
    embed = discord.Embed(
        title=(
            f"📊 Odds · Attribute {result.attribute} + Skill {result.skill} vs TN {result.tn} "
            f"({result.difficulty.value})"
        ),
        description=f"🎲 {describe_pool(result.pool)}",
        colour=Colour.ROLL,
    )
    embed.add_field(name="Success", value=percent(result.success))
    embed.add_field(name="Critical success", value=percent(result.critical_success))
    embed.add_field(name="Critical failure", value=percent(result.critical_failure))
    embed.add_field(name="Mean total", value=f"{float(result.mean_total):.3f}")
    embed.set_image(url="attachment://odds.png")
    embed.set_footer(text="Exact values, not simulated. Criticals decide alone, whatever the TN.")
    return embed


@describe.register
def _(error: ChallengeNotFound) -> str:
    if error.ended is not None:
        _, verb, _ = _ENDINGS[error.ended]
        return (
            f"The challenge **{error.name}** here is over ({verb}): it takes no more rolls. "
            "A GM opens a new one with `/cosmos challenge start`."
        )
    return (
        f"There is no open challenge called **{error.name}** here. "
        "See them with `/cosmos challenge status`; a GM opens one with "
        "`/cosmos challenge start`."
    )


@describe.register
def _(error: ChallengeNameTaken) -> str:
    return (
        f"A challenge called **{error.name}** is already open here; "
        "pick another name or end it first."
    )
