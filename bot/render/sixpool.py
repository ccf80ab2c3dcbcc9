"""Rendering of six-pool d20 sheets, rolls, passive scores and odds."""

from __future__ import annotations

import discord

from bot.render.grammar import plural, possessive
from bot.render.numbers import percent, signed
from bot.render.reply import Part, RollReply, Verdict, add_part, kept_among
from bot.render.style import (
    EMBED_DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    TITLE_LIMIT,
    Colour,
    joined,
    listed,
    shown,
    truncate,
)
from bot.storage import Character
from bot.storage.sixpool import GroupCheck
from rules.sixpool import (
    Contestant,
    ContestResult,
    ContestSide,
    DamageRoll,
    Degree,
    Mode,
    Modifier,
    Pool,
    PreparedRoll,
    RollAsked,
    RollKind,
    RollOdds,
    RollResult,
    Sheet,
    dc_label,
    group_succeeds,
)

__all__ = [
    "add_damage",
    "character_sheet",
    "contest",
    "contest_closed",
    "contest_notes",
    "contest_prompt",
    "dc_text",
    "group_check",
    "odds",
    "passive",
    "rested",
    "roll_label",
    "roll_notes",
    "roll_result",
    "sheet_changed",
    "trained_only",
]


_DEGREE_COLOUR = {
    Degree.CRITICAL_SUCCESS: Colour.CRITICAL_SUCCESS,
    Degree.STRONG_SUCCESS: Colour.SUCCESS,
    Degree.SUCCESS: Colour.SUCCESS,
    Degree.FAILURE: Colour.FAILURE,
    Degree.BAD_FAILURE: Colour.FAILURE,
    Degree.CRITICAL_FAILURE: Colour.CRITICAL_FAILURE,
}
_MODE_TEXT = {
    Mode.STRAIGHT: "1d20",
    Mode.ADVANTAGE: "2d20, keep the higher (advantage)",
    Mode.DISADVANTAGE: "2d20, keep the lower (disadvantage)",
}


def roll_label(asked: RollAsked) -> str:
    """Return what a roll is, for its embed and its log: "DEX check (stealth)", "STR save"…"""
    if asked.kind is RollKind.SAVE:
        return f"{asked.pool} save"
    if asked.kind is RollKind.ATTACK:
        return f"{asked.pool} attack vs AC {asked.dc}"
    skill = f" ({asked.skill.strip().lower()})" if asked.skill else ""
    return f"{asked.pool} check{skill}"


def roll_notes(prepared: PreparedRoll, disadvantage: bool) -> tuple[str, ...]:
    """Say where advantage came from, and that it cancelled against disadvantage."""
    notes = []
    if prepared.helped:
        notes.append("Helped: advantage from an ally's help (used up by this roll).")
    if prepared.inspired:
        notes.append("Inspiration spent for advantage.")
    if prepared.advantage and disadvantage:
        notes.append("Advantage and disadvantage cancel: a straight roll.")
    return tuple(notes)


def _dice(result: RollResult) -> str:
    if result.take is not None:
        return f"take {result.take} (no die rolled)"
    return f"{_MODE_TEXT[result.mode]}: {kept_among(result.dice, result.kept_index)}"


def _modifiers(parts: tuple[Modifier, ...]) -> str:
    """Each modifier named, then its value: "3 DEX points spent (Edge 1, option B): +5"."""
    return "\n".join(f"{part.label}: {signed(part.value)}" for part in parts) or "no modifiers: 0"


def _verdict(result: RollResult) -> tuple[Verdict, str]:
    """The verdict and its word: a natural unmistakable, then the degree."""
    text = result.degree.value.capitalize()
    if result.natural_twenty:
        return Verdict.CRITICAL, f"NATURAL 20 · {text}"
    if result.natural_one:
        return Verdict.FUMBLE, f"NATURAL 1 · {text}"
    return (Verdict.SUCCESS if result.success else Verdict.FAILURE), text


def dc_text(dc: int) -> str:
    """Return a DC with its label on the document's scale: "DC 17 (Medium–Hard)"."""
    return f"DC {dc} ({dc_label(dc)})"


def _target(result: RollResult, kind: RollKind) -> str:
    """Return what the total is compared with: an attack's AC, else the DC and its label."""
    if kind is RollKind.ATTACK:
        return f"AC {result.dc}"
    target = dc_text(result.dc)
    if result.dc != result.base_dc:
        change = result.dc - result.base_dc
        target += f" [{result.base_dc} {signed(change)} {result.situation.value}]"
    return target


def _arithmetic(result: RollResult) -> str:
    """The dice and each modifier added, named: "1d20: **19** + 2 [proficiency (stealth)] +
    2 [2 DEX points spent]" (the total is the title's)."""
    added = "".join(
        f" {'−' if part.value < 0 else '+'} {abs(part.value)} [{part.label}]"
        for part in result.modifiers
    )
    return _dice(result) + added


def roll_result(
    result: RollResult,
    roller: str,
    what: str,
    notes: tuple[str, ...] = (),
    *,
    kind: RollKind = RollKind.CHECK,
) -> discord.Embed:
    """Show a roll: the dice and every modifier added, against the DC (an attack's AC is its
    title's); the degree and total are the title's."""
    verdict, word = _verdict(result)
    # An attack's AC is in its title ("DEX attack vs AC 14"); a check's or save's DC isn't.
    versus = "" if kind is RollKind.ATTACK else f" vs {_target(result, kind)}"
    return RollReply(
        who=roller,
        what=shown(what),
        verdict=verdict,
        word=word,
        total=f"total {result.total}",
        dice=_arithmetic(result) + versus,
        notes=notes,
        colour=_DEGREE_COLOUR[result.degree],
    ).embed()


def add_damage(embed: discord.Embed, damage: DamageRoll | None, expression: str | None) -> None:
    """Add an attack's damage: rolled on a hit (dice doubled on a natural 20), none on a miss."""
    if expression is None:
        return
    if damage is None:
        add_part(embed, Part("Damage", f"0: a miss (`{expression}` not rolled)"))
        return
    doubled = f" (natural 20: `{expression}` with its dice doubled)" if damage.critical else ""
    add_part(
        embed,
        Part(
            "Damage",
            f"**{damage.total}** from `{damage.expression}`{doubled}\n{damage.breakdown}",
        ),
    )


def add_pool_left(
    embed: discord.Embed, sheet: Sheet, pool: Pool, spent: int, who: str | None = None
) -> None:
    """Add the points spent and the pool left to a roll's embed (``who``: whose pool, when a
    contest shows two)."""
    if spent:
        owner = f"{possessive(shown(who))} " if who else ""
        add_part(
            embed,
            Part(
                f"{owner}{pool} pool",
                f"{spent} spent: {sheet.points(pool)}/{sheet.maximum(pool)} left",
            ),
        )


def character_sheet(character: Character[Sheet], owner: str) -> discord.Embed:
    """Show a sheet: level, proficiency, each pool with Effort and Edge, training, flags."""
    sheet = character.sheet
    embed = discord.Embed(
        title=truncate(f"{shown(character.name)} · level {sheet.level}", TITLE_LIMIT),
        description=(
            f"Player: {shown(owner)} · proficiency {signed(sheet.proficiency)} · "
            f"primary pool {sheet.primary}"
        ),
        colour=Colour.CAMPAIGN,
    )
    lines = []
    for pool in Pool:
        line = (
            f"**{pool}** {sheet.points(pool)}/{sheet.maximum(pool)} · Effort {sheet.effort(pool)}"
        )
        if sheet.edge(pool):
            line += f" · Edge {sheet.edge(pool)}"
        training = sheet.save_training(pool)
        if training.value != "untrained":
            line += f" · save {training.value}"
        lines.append(line)
    embed.add_field(name="Pools", value="\n".join(lines), inline=False)
    # Up to 40 skills of 40 characters: more than a field holds; the rest are counted.
    skills = [f"{shown(name)} ({training.value})" for name, training in sheet.skills.items()]
    embed.add_field(
        name="Skills", value=joined(skills, FIELD_LIMIT, more="more skills") or "none trained"
    )
    flags = [text for on, text in ((sheet.helped, "helped: advantage on the next roll"),
                                   (sheet.inspired, "holds inspiration")) if on]  # fmt: skip
    if flags:
        embed.add_field(name="Now", value="\n".join(flags), inline=False)
    return embed


def sheet_changed(character: Character[Sheet], what: str) -> discord.Embed:
    """Confirm a sheet change."""
    return discord.Embed(
        title=truncate(f"{shown(character.name)}: {shown(what)}", TITLE_LIMIT),
        colour=Colour.CAMPAIGN,
    )


def passive(roller: str, what: str, parts: tuple[Modifier, ...], score: int) -> discord.Embed:
    """Show a passive score: 10 + modifiers."""
    embed = discord.Embed(
        title=truncate(f"{shown(roller)}: passive {shown(what)} {score}", TITLE_LIMIT),
        description="10 + modifiers (no roll, no spend)",  # the score is the title's
        colour=Colour.ROLL,
    )
    embed.add_field(name="Modifiers", value=truncate(_modifiers(parts), FIELD_LIMIT))
    return embed


def odds(result: RollOdds) -> discord.Embed:
    """Show exact chances: success, naturals, degrees, and what each point spent adds."""
    embed = discord.Embed(
        title=f"🎯 1d20 {signed(result.modifier)} vs {dc_text(result.dc)}, {result.mode.value}",
        description=(
            f"Success **{percent(result.success)}** · natural 20 {percent(result.natural_twenty)}"
            f" · natural 1 {percent(result.natural_one)}"
        ),
        colour=Colour.ROLL,
    )
    embed.add_field(
        name="Degrees",
        value="\n".join(
            f"{found.value.capitalize()}: {percent(chance)}"
            for found, chance in result.degrees.items()
        ),
    )
    lines = []
    for points, chance in enumerate(result.per_point):
        gain = f" (+{percent(chance - result.per_point[points - 1])})" if points else ""
        lines.append(f"{plural(points, 'point')}: {percent(chance)}{gain}")
    embed.add_field(name="Success by points spent (+1 each)", value="\n".join(lines))
    return embed


def contest(
    result: ContestResult, attacker: str, defender: str, what: str, notes: tuple[str, ...] = ()
) -> discord.Embed:
    """Show both rolls of a contest (the attacker's first), both totals, and the winner (a tie
    goes to the defender), as its roller's roll (``result.roller``): their name, ``what`` as
    they roll it, their total first and their verdict."""
    shown_attacker, shown_defender = shown(attacker), shown(defender)
    winner = shown_attacker if result.attacker_wins else shown_defender
    reason = "higher total" if result.attacker.total != result.defender.total else "a tie holds"
    sides = ((shown_attacker, result.attacker), (shown_defender, result.defender))
    roller, other = (attacker, shown_defender)
    if result.roller is Contestant.DEFENDER:
        roller, other = defender, shown_attacker
    return RollReply(
        who=roller,
        what=f"contest vs {other}: {shown(what)}",
        verdict=Verdict.SUCCESS if result.roller_wins else Verdict.FAILURE,
        word=f"{winner} wins ({reason})",
        total=f"{result.own.total} vs {result.other.total}",
        dice="\n".join(f"{name}: {_arithmetic(side)}" for name, side in sides),
        notes=notes,
    ).embed()


def contest_notes(*sides: tuple[str, ContestSide | None]) -> tuple[str, ...]:
    """Say which side an ally's help or inspiration spent gave advantage (used up by this
    contest); an NPC's side (None) has neither."""
    notes = []
    for name, side in sides:
        if side is not None and side.helped:
            notes.append(
                f"{shown(name)} was helped: advantage from an ally's help (used up by this roll)."
            )
        if side is not None and side.inspired:
            notes.append(f"{shown(name)} spent inspiration for advantage.")
    return tuple(notes)


def contest_prompt(attacker: str, defender_id: int, what: str, minutes: int) -> discord.Embed:
    """Ask the defending player, in the channel, to declare their spend privately."""
    return discord.Embed(
        title=truncate(f"⚔️ {shown(attacker)} challenges you: {shown(what)}", TITLE_LIMIT),
        description=(
            f"<@{defender_id}>, declare how many points you spend (privately) before anyone "
            f"rolls. The challenger's spend is secret too. Open for {minutes} minutes; "
            "after that it ends with nothing spent."
        ),
        colour=Colour.WARNING,
    )


def contest_closed(text: str) -> discord.Embed:
    """A contest's prompt once it is settled (rolled or expired): it asks nobody any more."""
    return discord.Embed(title="⚔️ Contest settled", description=text, colour=Colour.CAMPAIGN)


def group_check(group: GroupCheck, participants_note: str = "") -> discord.Embed:
    """Show a group check: its roll, who rolled what, and (closed) whether the group succeeds."""
    skill = f" ({group.skill})" if group.skill else ""
    successes = sum(roll.success for roll in group.rolls)
    lines = [
        f"{'✅' if roll.success else '❌'} {shown(roll.name)}: {roll.total} (roll #{roll.roll_id})"
        for roll in group.rolls
    ]
    if group.status == "closed":
        if group.rolls:
            verdict = "succeeds" if group_succeeds(successes, len(group.rolls)) else "fails"
            head = (
                f"**The group {verdict}**: {successes} of {len(group.rolls)} succeeded "
                "(at least half must)."
            )
        else:
            head = "Closed before anyone rolled."
        colour = Colour.CAMPAIGN
    else:
        head = (
            "Press **Roll** to roll with your own sheet (once each). A GM closes it; "
            "at least half must succeed."
        )
        colour = Colour.ROLL
    embed = discord.Embed(
        title=truncate(f"👥 Group check: {group.pool}{skill} vs {dc_text(group.dc)}", TITLE_LIMIT),
        description=head + participants_note,
        colour=colour,
    )
    if group.boost:
        embed.add_field(name="Leader's boost", value=f"+{group.boost} on one ally's roll")
    embed.add_field(
        name=f"Rolls ({successes}/{len(group.rolls)} succeeded)",
        value=listed(lines, FIELD_LIMIT, more="more rolls") or "none yet",
        inline=False,
    )
    return embed


def trained_only(skills: frozenset[str], changed: str | None = None) -> discord.Embed:
    """Show the campaign's trained-only skills (and what just changed)."""
    rule = (
        "\n\nAn untrained check in one of these is refused; helping with any "
        "skill needs training in it (a GM may always help)."
    )
    names = [shown(skill) for skill in sorted(skills)]  # a GM lists as many as they like
    more = "more trained-only skills"
    text = joined(names, EMBED_DESCRIPTION_LIMIT - len(rule), more=more)
    return discord.Embed(
        title=truncate(
            f"🎓 Trained-only skills{': ' + shown(changed) if changed else ''}", TITLE_LIMIT
        ),
        description=(text or "none (every skill can be attempted untrained)") + rule,
        colour=Colour.CAMPAIGN,
    )


def rested(names: list[str]) -> discord.Embed:
    """Say whose pools a GM's rest refilled (every character of the campaign, by default)."""
    text = joined([shown(name) for name in names], more="more characters")
    return discord.Embed(
        title="🛏️ Rest: pools refilled", description=text or "nobody (no characters yet)"
    )
