"""Rendering of Enchanted Realms attacks, single-die rolls, stealth, spells, rerolls and odds."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.render.errors import describe
from bot.render.grammar import plural
from bot.render.numbers import ChancesOf, float_mean, more_values, percent, ranked
from bot.render.reply import Part, RollReply, Verdict, add_part, kept_among
from bot.render.style import FIELD_LIMIT, TITLE_LIMIT, Colour, joined, shown, truncate
from bot.storage.realms import (
    AlreadyRerolled,
    NoRollToReroll,
    NotLatestRoll,
    TraitAlreadyHeld,
    TraitNotHeld,
)
from rules.realms import (
    HALF_MOVEMENT,
    AttackOdds,
    AttackResult,
    CheckOdds,
    CheckResult,
    Decision,
    SpellKind,
    SpellResult,
    State,
    StealthResult,
    TargetResult,
    Trait,
)

__all__ = [
    "attack",
    "attack_odds",
    "check",
    "check_odds",
    "rerolled",
    "single_die_title",
    "spell",
    "stealth",
    "trait_granted",
    "trait_holders",
    "trait_revoked",
]


SHOWN_DAMAGE = 8
"""The most likely damage values an odds reply lists; it says how many more there are."""


def _state(decision: Decision) -> str:
    return f"**{decision.state.value.capitalize()}**: {decision.reason}"


def _remarks(decision: Decision, *more: str) -> list[str]:
    """The state's line, unless it is a plain straight roll (no sources, nothing forced)."""
    return [*([] if decision.plain else [_state(decision)]), *more]


SECONDARY = "Secondary attack (off-hand, opportunity): no ±2 damage"


def _attack_state(decision: Decision, primary: bool) -> str | None:
    """The state (if any applies), and for a secondary attack that the ±2 is not applied."""
    return "\n".join(_remarks(decision, *([] if primary else [SECONDARY]))) or None


def _strikes(target: TargetResult, first: int, numbered: bool) -> str:
    """A target's d20 in order, each with what it did: "19 hits → 6, 7 misses" (numbered from
    ``first`` when the attack has several targets, as its 🔁 buttons are)."""
    shown = []
    for number, strike in enumerate(target.strikes, start=first):
        mark = f"#{number} " if numbered else ""
        if strike.hit:
            natural = " (natural 20)" if strike.natural_20 else ""
            shown.append(f"{mark}{strike.face} hits{natural} → {strike.damage}")
        else:
            shown.append(f"{mark}{strike.face} misses")
    return ", ".join(shown)


def _damage(target: TargetResult, state: State) -> str | None:
    """A target's damage worked out: the strikes' rolls and the ±2 once ("6 + 7 + 2 advantage,
    once for this target"), then whether riders apply; just "riders apply" when one strike
    adds nothing (``_worked`` says which); None on a miss."""
    if not target.hits:
        return None
    rolled = [str(strike.damage) for strike in target.strikes if strike.hit]
    sums = " + ".join(rolled)
    if target.shift:
        sign = "+" if target.shift > 0 else "−"
        sums += f" {sign} {abs(target.shift)} {state.value}, once for this target"
    if target.zero_damage_miss:
        return f"{sums}: net 0 or less, a miss; no riders apply"
    if target.raw <= 0:
        return f"{sums}: a natural 20 always hurts, 1 damage; riders apply"
    return f"{sums}; riders apply" if _worked(target) else "riders apply"


def _worked(target: TargetResult) -> bool:
    """Whether a target's damage has arithmetic to show: several strikes hit, or a ±2."""
    return sum(strike.hit for strike in target.strikes) > 1 or bool(target.shift)


def _damage_note(target: TargetResult, state: State) -> list[str]:
    """One target's damage note: "Damage 6 + 7 + 2 advantage, …; riders apply", "Riders
    apply."; none on a miss (the title says it)."""
    damage = _damage(target, state)
    if damage is None:
        return []
    worked = _worked(target) or target.zero_damage_miss or target.raw <= 0
    return [f"Damage {damage}." if worked else f"{damage.capitalize()}."]


def attack(result: AttackResult, roller: str) -> discord.Embed:
    """Show every d20 and what it did, each target's damage worked out and whether its riders
    apply; the damage itself is the title's."""
    struck = any(target.riders for target in result.targets)
    natural = any(target.natural_20 for target in result.targets)
    notes = _remarks(result.decision, *([] if result.primary else [SECONDARY]))
    if result.half_movement and not any(HALF_MOVEMENT in note for note in notes):
        notes.append(f"Disadvantage: {HALF_MOVEMENT}")
    state = result.decision.state
    several = len(result.targets) > 1
    if result.kept_lower:  # no strike dice left: two d20, the lower is the one strike
        lower = result.targets[0].strikes[0]
        dice = f"d20, two with the lower kept: {_kept(result.dice, lower.face)}"
        notes.extend(_damage_note(result.targets[0], state))
    elif not several:
        target = result.targets[0]
        dice = f"d20: {_strikes(target, 1, numbered=False)}"
        notes.extend(_damage_note(target, state))
    else:
        dice, first = "d20: " + ", ".join(str(face) for face in result.dice), 1
        for index, target in enumerate(result.targets, start=1):
            damage = _damage(target, state)
            worked = f" · {target.damage} damage" + (f": {damage}" if damage else "")
            notes.append(f"Target {index}: {_strikes(target, first, numbered=True)}{worked}")
            first += len(target.strikes)
    if natural:
        verdict, word = Verdict.CRITICAL, "NATURAL 20 · " + ("Hit" if struck else "Miss")
    else:
        verdict, word = (Verdict.SUCCESS, "Hit") if struck else (Verdict.FAILURE, "Miss")
    return RollReply(
        who=roller,
        what=f"attack (to hit {result.to_hit}, {result.damage})",
        verdict=verdict,
        word=word,
        total=" + ".join(str(target.damage) for target in result.targets) + " damage",
        dice=dice,
        notes=notes,
    ).embed()


def check(result: CheckResult, roller: str, label: str | None = None) -> discord.Embed:
    """Show a single-die roll: its die, or both dice with the kept one bold and the other
    struck; the target and whether it was reached are the title's."""
    what = f"{shown(label or result.kind.value)} ({result.die.value})"
    if result.target is not None:
        what += f" vs {result.target}"
        verdict = Verdict.SUCCESS if result.success else Verdict.FAILURE
    else:
        verdict = Verdict.NONE
    word = None
    if result.natural_max:
        verdict = Verdict.CRITICAL
        word = f"NATURAL {result.die.value.removeprefix('d')}" + (
            "" if result.success is None else (" · Success" if result.success else " · Failure")
        )
    return RollReply(
        who=roller,
        what=what,
        verdict=verdict,
        word=word,
        total=f"result {result.result}",
        dice=f"{result.die.value}: {_kept(result.dice, result.result)}",
        notes=_remarks(result.decision),
    ).embed()


def _kept(dice: tuple[int, ...], kept: int) -> str:
    """One die as it fell; two with the kept one bold and the other struck."""
    return str(dice[0]) if len(dice) == 1 else kept_among(dice, dice.index(kept))


def stealth(result: StealthResult, roller: str) -> discord.Embed:
    """Show a stealth pool: its d6 summed, or the lower of two kept (the other struck); the
    Awareness target is the title's total."""
    if result.kept_lower:
        dice = f"d6, keep the lower: {_kept(result.dice, result.total)}"
    else:
        dice = "d6: " + " + ".join(str(face) for face in result.dice)
    return RollReply(
        who=roller,
        what="stealth",
        verdict=Verdict.NONE,
        total=f"Awareness target {result.total}",
        dice=dice,
        notes=_remarks(result.decision),
    ).embed()


# Why a spell's state changes what it does (docs/players/realms.md, "Rules notes").
_SPELL_WHY = {
    (SpellKind.INCANTATION, State.ADVANTAGE): (
        "advantage takes 1 off an incantation's spirit cost (never below 0)"
    ),
    (
        SpellKind.INCANTATION,
        State.DISADVANTAGE,
    ): "disadvantage adds 1 to an incantation's spirit cost",
    (SpellKind.INCANTATION, State.NORMAL): "paid as it is, at neither advantage nor disadvantage",
    (SpellKind.AXIOM, State.ADVANTAGE): (
        "advantage lets an axiom take its lowest oversiphoning at the normal cost"
    ),
    (SpellKind.AXIOM, State.DISADVANTAGE): "disadvantage doubles an axiom's casting time",
    (SpellKind.AXIOM, State.NORMAL): "neither advantage nor disadvantage changes an axiom",
}
SPELL_NO_DICE = (
    "🎲 No dice: a spell isn't rolled. Advantage or disadvantage changes what it costs instead "
    "(an incantation's spirit, an axiom's oversiphoning or casting time)."
)


def spell(result: SpellResult, roller: str) -> discord.Embed:
    """Show what a spell costs at its state and why, and that nothing is rolled: "**Spirit cost
    2 → 1**: advantage takes 1 off an incantation's spirit cost (never below 0)"."""
    state = result.decision.state
    if result.kind is SpellKind.INCANTATION and state is State.NORMAL:
        effect = f"Spirit cost {result.cost}"  # unchanged: no "2 → 2"
    else:
        effect = result.effect[:1].upper() + result.effect[1:]
    what = f"**{effect}**: {_SPELL_WHY[result.kind, state]}."
    paid = "" if result.cost is None else f" · spirit cost {result.cost}"
    return discord.Embed(
        title=truncate(f"✨ {shown(roller)}: {result.kind.value}{paid}", TITLE_LIMIT),
        description="\n".join(_remarks(result.decision, what, SPELL_NO_DICE)),
        colour=Colour.ROLL,
    )


def rerolled(
    before: discord.Embed, after: discord.Embed, position: int, old: int, new: int
) -> discord.Embed:
    """Show a reroll: which die, before and after, and the roll worked out again."""
    add_part(
        after,
        Part(
            f"Rerolled die {position}",
            f"{old} → **{new}** (once; roll before: {truncate(before.title or '', 200)})",
        ),
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
    embed.description = "\n".join([" · ".join(parts), *_remarks(decision)])
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
        # Exact chances only for what is written: the listed values and the dropped ones'
        # first and last (a chart of 11 strikes has over a thousand values).
        values = ranked(target.damage)
        likely, rest = sorted(values[:SHOWN_DAMAGE]), values[SHOWN_DAMAGE:]
        mean = float_mean(target.damage)
        lines = [f"Missed: {percent(target.missed)} · mean damage {mean:.2f}"]
        lines += [f"{value} damage: {percent(target.damage[value])}" for value in likely]
        listed = sum((target.damage[value] for value in likely), Fraction(0))
        dropped = more_values(ChancesOf(rest, target.damage), 1 - listed)
        lines += [dropped] if dropped else []
        embed.add_field(
            name=f"Target {index} ({plural(target.strikes, 'strike')})",
            value=truncate("\n".join(lines), FIELD_LIMIT),
        )
    return embed


# What a trait lets its holder do, as its announcements say (docs/players/realms.md, "The reroll is
# a trait").
TRAIT_GIVES = {
    Trait.REROLL: (
        "they may reroll one die of their own latest roll here, once per roll "
        "(a 🔁 button per die under it, or `/realms reroll`)"
    ),
}


def trait_granted(user_id: int, trait: Trait) -> str:
    """Announce to the table that a GM gave ``user_id`` a trait."""
    return f"🍀 <@{user_id}> has the {trait.value} trait: {TRAIT_GIVES[trait]}."


def trait_revoked(user_id: int, trait: Trait) -> str:
    """Announce to the table that a GM took a trait from ``user_id``."""
    return (
        f"🍂 <@{user_id}> no longer has the {trait.value} trait: only a GM gives it, "
        "with `/realms trait add`."
    )


def trait_holders(trait: Trait, holders: list[int]) -> str:
    """``/campaign info``'s line of a trait's holders in an Enchanted Realms campaign, within
    a field's limit however many hold it."""
    label = f"{trait.value.capitalize()} trait: "
    if not holders:
        return f"{label}nobody yet (a GM gives it with `/realms trait add`)"
    mentions = [f"<@{user_id}>" for user_id in holders]
    return label + joined(mentions, FIELD_LIMIT - len(label), more="more")


# The refusals of Enchanted Realms' rerolls and traits (bot.storage.realms), as the table reads
# them.


@describe.register
def _(error: NotLatestRoll) -> str:
    return (
        f"Roll #{error.roll_id} is no longer your latest roll here: the reroll trait takes one "
        "die of your latest roll, once."
    )


@describe.register
def _(error: NoRollToReroll) -> str:
    return (
        "A reroll takes one die of your latest roll here, and it must be a `/realms` attack, "
        "check or stealth roll."
    )


@describe.register
def _(error: AlreadyRerolled) -> str:
    return f"Roll #{error.roll_id} was rerolled already: one die, once per roll."


@describe.register
def _(error: TraitAlreadyHeld) -> str:
    return f"<@{error.user_id}> already has the {error.trait.value} trait here; nothing changed."


@describe.register
def _(error: TraitNotHeld) -> str:
    return (
        f"<@{error.user_id}> doesn't have the {error.trait.value} trait here; nothing changed. "
        "`/campaign info` lists who has it."
    )
