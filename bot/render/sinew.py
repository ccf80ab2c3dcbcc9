"""Rendering of Sinew & Steel sheets, tests, odds, contests and sheet changes."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.render.errors import describe
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
from bot.storage.sinew import (
    DefenderMovedOn,
    NoRollToSpendOn,
    NotTheDefender,
    NpcHasNoLuck,
    RollSuperseded,
)
from rules.sinew import (
    LUCK_SURCHARGE_STEP,
    AttackResult,
    LuckGrant,
    LuckOdds,
    LuckOffer,
    Mode,
    OpposedOdds,
    OpposedResult,
    Score,
    Sheet,
    Side,
    TestOdds,
    TestResult,
)
from rules.sinew_pressure import PressureChange

__all__ = [
    "add_luck_spent",
    "add_pressure_result",
    "advanced",
    "armour_changed",
    "attack",
    "attack_offer_label",
    "boons",
    "character_sheet",
    "collapse_announcement",
    "health",
    "items",
    "luck_button_label",
    "luck_granted",
    "luck_granted_note",
    "luck_spent_in_place",
    "milestone",
    "odds",
    "opposed",
    "rested",
    "test_result",
]


_MODE_TEXT = {
    Mode.STRAIGHT: "1d20",
    Mode.ADVANTAGE: "2d20, keep the lower (advantage)",
    Mode.DISADVANTAGE: "2d20, keep the higher (disadvantage)",
}


def _dice(result: TestResult) -> str:
    """Every d20 in roll order: the kept one bold, the other struck through."""
    return kept_among(result.dice, result.kept_index)


def headline(result: TestResult) -> tuple[str, discord.Colour]:
    """Return a test's headline and colour; naturals are unmistakable."""
    verdict, word = _verdict(result)
    return f"{verdict.value} {word or verdict.word}", verdict.colour


def _verdict(result: TestResult) -> tuple[Verdict, str | None]:
    if result.natural_one:
        return Verdict.CRITICAL, "NATURAL 1: EXTRAORDINARY SUCCESS!"
    if result.natural_twenty:
        return Verdict.FUMBLE, "NATURAL 20: CATASTROPHE!"
    return (Verdict.SUCCESS if result.success else Verdict.FAILURE), None


def _margins(result: OpposedResult) -> str:
    return f"{signed(result.attacker.margin)} vs {signed(result.defender.margin)}"


def _roll_line(result: TestResult, score_label: str, *, margin: bool = True) -> str:
    """Every die, the kept one (after any Luck) against the score, and the margin: "1d20:
    **19** vs STR 12, margin −7" (``margin``: unless the title gives it, as a contest's does)."""
    line = f"{_MODE_TEXT[result.mode]}: {_dice(result)}"
    if result.shifted:
        line += f" − {result.shift} Luck = {result.roll}"
    line += f" vs {score_label} {result.score}"
    return line + (f", margin {signed(result.margin)}" if margin else "")


def test_result(result: TestResult, roller: str, what: str, score_label: str) -> discord.Embed:
    """Show a roll-under test: every die, the kept one against the score with its margin, and
    why the mode."""
    verdict, word = _verdict(result)
    return RollReply(
        who=roller,
        what=shown(what),
        verdict=verdict,
        word=word,
        total=f"roll {result.roll}",
        dice=_roll_line(result, score_label),
        notes=[f"⚠️ {reason}" for reason in result.reasons],
    ).embed()


test_result.__dict__["__test__"] = False  # not a pytest test


# Where a reader finds what a sheet's field leaves out.
MORE_ITEMS = "more items: `/sinew item list` shows them all"
MORE_BOONS = "more boons: adding or removing one shows them all"


def _items_text(sheet: Sheet, limit: int = FIELD_LIMIT, more: str = MORE_ITEMS) -> str:
    """The items, in a line: as many as ``limit`` holds, then how many more."""
    if not sheet.items:
        return "none"
    return joined([shown(item) for item in sheet.items], limit, more=more)


def _boon_lines(sheet: Sheet) -> list[str]:
    return [f"{n}. {shown(boon)}" for n, boon in enumerate(sheet.boons, 1)]


def character_sheet(character: Character[Sheet], pressure: int, owner: str) -> discord.Embed:
    """Show a character: scores, Luck, Stamina, armour, items, build points, boons, Pressure."""
    sheet = character.sheet
    embed = discord.Embed(
        title=truncate(f"📜 {shown(character.name)} · {shown(owner)}", TITLE_LIMIT),
        colour=Colour.CRITICAL_FAILURE if sheet.collapsed else Colour.CAMPAIGN,
    )
    embed.add_field(
        name="Scores",
        value=" · ".join(f"{score.value} {sheet.score(score)}" for score in Score),
        inline=False,
    )
    embed.add_field(name="Luck", value=f"{sheet.luck_tokens}/{sheet.luck} tokens")
    stamina = f"{sheet.current_stamina}/{sheet.stamina}"
    embed.add_field(name="Stamina", value=stamina + (" (collapsed)" if sheet.collapsed else ""))
    embed.add_field(name="Armour", value=str(sheet.armour))
    embed.add_field(name="Pressure", value=f"{pressure}")
    embed.add_field(name="Build points", value=str(sheet.build_points))
    carried = f"Items ({len(sheet.items)})"
    if sheet.encumbered:
        carried += " · over the carry limit: REF tests at disadvantage"
    embed.add_field(name=carried, value=_items_text(sheet), inline=False)
    boons = listed(_boon_lines(sheet), FIELD_LIMIT, more=MORE_BOONS) or "none"
    embed.add_field(name="Boons", value=boons, inline=False)
    return embed


def mode_text(mode: Mode) -> str:
    """Say how a test's die is rolled: "1d20", "2d20, keep the lower (advantage)"."""
    return _MODE_TEXT[mode]


def odds(result: TestOdds, versus: OpposedOdds | None, luck: Sequence[LuckOdds]) -> discord.Embed:
    """Show the exact chances of a test, an opposed roll, and each Luck token's gain."""
    embed = discord.Embed(
        title=f"🎯 Odds · d20 under {result.score} ({_MODE_TEXT[result.mode]})",
        colour=Colour.ROLL,
    )
    embed.description = (
        f"Success: **{percent(result.success)}** · failure {percent(result.failure)}\n"
        f"Natural 1 (extraordinary success): {percent(result.natural_one)}\n"
        f"Natural 20 (catastrophe): {percent(result.natural_twenty)}"
    )
    if versus is not None:
        embed.add_field(
            name=f"Opposed vs score {versus.defender_score}",
            value=(
                f"You win: **{percent(versus.attacker_wins)}** "
                f"(you succeed, they fail: {percent(versus.attacker_only_succeeds)}; "
                f"both succeed, your margin larger: {percent(versus.attacker_wins_on_margin)})\n"
                f"Defender wins (ties included): {percent(versus.defender_wins)}"
            ),
            inline=False,
        )
    # Tokens that add nothing are left out, and the list says so (docs/players/index.md, "Odds
    # charts").
    shown = [row for row in luck if row.tokens == 0 or row.gain > 0]
    rows = [
        f"{plural(row.tokens, 'token')}: {percent(row.success)}"
        + (f" (+{percent(row.gain)})" if row.tokens else "")
        for row in shown
    ]
    dropped = [row for row in luck if row not in shown]
    if dropped:
        first, last = dropped[0].tokens, dropped[-1].tokens
        counts = f"{first}–{last} tokens" if len(dropped) > 1 else f"{first} tokens"
        if all(row.success == dropped[0].success for row in dropped):
            each = " each" if len(dropped) > 1 else ""
            rows.append(f"… {counts}: {percent(dropped[0].success)}{each} (no gain)")
        else:
            rows.append(f"… {counts}: no gain over one token fewer")
    embed.add_field(
        name="Success holding Luck tokens (spent only to turn a failure)",
        value=truncate("\n".join(rows), FIELD_LIMIT),
        inline=False,
    )
    return embed


def opposed(
    result: OpposedResult,
    attacker: str,
    defender: str,
    what: str = "opposed roll",
    labels: tuple[str, str] = ("score", "score"),
) -> discord.Embed:
    """Show both rolls, both margins, the winner and why (``what``: the kind of contest, e.g.
    "attack after Luck"; ``labels``: what each side rolls under, e.g. "INT", or "score")."""
    return _contest(result, attacker, defender, what, labels).embed()


def _contest(
    result: OpposedResult,
    attacker: str,
    defender: str,
    what: str,
    labels: tuple[str, str],
    more: Sequence[str] = (),
    total: str | None = None,
) -> RollReply:
    shown_attacker, shown_defender = shown(attacker), shown(defender)
    attacker_won = result.winner is Side.ATTACKER
    sides = (
        (shown_attacker, result.attacker, labels[0]),
        (shown_defender, result.defender, labels[1]),
    )
    # The margins are the title's total, unless it is the damage taken (an attack).
    dice = "\n".join(
        f"{name}: {_roll_line(side, label, margin=total is not None)} ({headline(side)[0]})"
        for name, side, label in sides
    )
    notes = [f"{name}: ⚠️ {reason}" for name, side, _ in sides for reason in side.reasons]
    return RollReply(
        who=attacker,
        what=f"{what} vs {shown_defender}",
        verdict=Verdict.SUCCESS if attacker_won else Verdict.FAILURE,
        word=f"{shown_attacker if attacker_won else shown_defender} wins",
        total=total or f"margins {_margins(result)}",
        dice=dice,
        notes=[f"Why: {result.reason.value}.", *notes, *more],
    )


def attack(
    result: AttackResult,
    attacker: str,
    defender: str,
    what: str = "attack",
    labels: tuple[str, str] = ("score", "score"),
) -> discord.Embed:
    """Show an attack: the opposed roll, then damage, soak and damage taken."""
    if result.hit:
        parts = [f"{result.base_damage} ({result.edge.value} edge)"]
        if result.extra_damage:
            parts.append(f"+{result.extra_damage} (natural 1 or margin over 10)")
        if result.soak_ignored:
            soak = "ignored (natural 1)"
        else:
            soak = (
                f"{result.soak} (armour {result.armour}"
                + (", −1 explosive" if result.explosive else "")
                + (f", −{result.soak_cut_by_margin} margin" if result.soak_cut_by_margin else "")
                + ")"
            )
        # The damage taken is the title's total: its arithmetic, not its sum again (nor the sum
        # of one part: "Damage 2 (standard edge); soak 0").
        added = f" = {result.damage}" if len(parts) > 1 else ""
        more = [f"Damage {' '.join(parts)}{added}; soak {soak}"]
    else:
        more = []  # the title says it: the defender wins, 0 damage taken
    reply = _contest(
        result.contest,
        attacker,
        defender,
        what,
        labels,
        more=more,
        total=f"{result.damage_taken} damage taken",
    )
    return reply.embed()


def add_defender_stamina(embed: discord.Embed, character: Character[Sheet]) -> None:
    """Add the defender's Stamina after the hit to an attack's embed."""
    sheet = character.sheet
    value = f"{sheet.current_stamina}/{sheet.stamina}"
    if sheet.collapsed:
        value += " · **collapsed**"
    add_part(embed, Part(f"{possessive(shown(character.name))} Stamina", value))


def collapse_announcement(character: Character[Sheet]) -> discord.Embed:
    """Tell the channel that a character collapsed at 0 Stamina."""
    return discord.Embed(
        title=truncate(f"💀 {shown(character.name)} collapses!", TITLE_LIMIT),
        description=f"<@{character.user_id}>'s character is at 0 Stamina.",
        colour=Colour.CRITICAL_FAILURE,
    )


def health(character: Character[Sheet], before: int, verb: str) -> discord.Embed:
    """Show Stamina after damage or healing: what actually changed ("heals 3 (1 → 4)")."""
    sheet = character.sheet
    collapsed = sheet.collapsed
    changed = abs(sheet.current_stamina - before)
    embed = discord.Embed(
        title=truncate(
            f"{shown(character.name)} {verb} {changed} ({before} → {sheet.current_stamina})",
            TITLE_LIMIT,
        ),
        description=(
            f"Stamina {before} → **{sheet.current_stamina}**/{sheet.stamina}"
            + (" · **collapsed**" if collapsed else "")
        ),
        colour=Colour.CRITICAL_FAILURE if collapsed else Colour.CAMPAIGN,
    )
    return embed


def rested(character: Character[Sheet], kind: str, luck: int, stamina: int) -> discord.Embed:
    """Show what a rest restored."""
    sheet = character.sheet
    return discord.Embed(
        title=truncate(f"🛏️ {shown(character.name)}: {kind} rest", TITLE_LIMIT),
        description=(
            f"Luck +{luck}: {sheet.luck_tokens}/{sheet.luck} tokens\n"
            f"Stamina +{stamina}: {sheet.current_stamina}/{sheet.stamina}"
        ),
        colour=Colour.CAMPAIGN,
    )


def milestone(character: Character[Sheet], points: int, tokens: int) -> discord.Embed:
    """Show a milestone: build points gained, Luck refilled."""
    sheet = character.sheet
    return discord.Embed(
        title=truncate(f"🏁 Milestone · {shown(character.name)}", TITLE_LIMIT),
        description=(
            f"Build points +{points}: {sheet.build_points}\n"
            f"Luck refilled (+{tokens}): {sheet.luck_tokens}/{sheet.luck} tokens"
        ),
        colour=Colour.CAMPAIGN,
    )


def advanced(
    character: Character[Sheet], score: Score, before: int, after: int, cost: int
) -> discord.Embed:
    """Show a score bought up with build points."""
    sheet = character.sheet
    return discord.Embed(
        title=truncate(
            f"📈 {shown(character.name)}: {score.value} {before} → {after}", TITLE_LIMIT
        ),
        description=f"Spent {cost} build points; {sheet.build_points} left.",
        colour=Colour.CAMPAIGN,
    )


def boons(character: Character[Sheet], change: str) -> discord.Embed:
    """Show a character's boons after one was added or removed."""
    lines = _boon_lines(character.sheet)
    text = listed(["Boons:", *lines], more="more boons") if lines else "Boons: none"
    return discord.Embed(
        title=truncate(f"🎁 {shown(character.name)}: {shown(change)}", TITLE_LIMIT),
        description=text,
        colour=Colour.CAMPAIGN,
    )


def armour_changed(character: Character[Sheet], before: int) -> discord.Embed:
    """Show a character's armour after a change."""
    return discord.Embed(
        title=truncate(
            f"🛡️ {shown(character.name)}: armour {before} → {character.sheet.armour}", TITLE_LIMIT
        ),
        description="Armour soaks that much damage from each hit, less 1 per 4 points of margin.",
        colour=Colour.CAMPAIGN,
    )


def luck_granted(character: Character[Sheet], grant: LuckGrant) -> discord.Embed:
    """Tell the channel about a GM's windfall of Luck, with its reason."""
    sheet = character.sheet
    embed = discord.Embed(
        title=truncate(
            f"🍀 Windfall · {shown(character.name)}: +{grant.granted} Luck", TITLE_LIMIT
        ),
        description=f"Luck {grant.before} → **{sheet.luck_tokens}**/{sheet.luck} tokens"
        + (" (already at the cap)" if grant.granted == 0 else ""),
        colour=Colour.SUCCESS,
    )
    embed.add_field(name="Why", value=truncate(shown(grant.reason), FIELD_LIMIT), inline=False)
    return embed


def luck_granted_note(character: Character[Sheet], grant: LuckGrant) -> str:
    """Confirm a windfall privately to the GM who gave it."""
    sheet = character.sheet
    return (
        f"✅ Gave {shown(character.name)} {plural(grant.granted, 'Luck token')} "
        f"({sheet.luck_tokens}/{sheet.luck}). "
        "Announced in the channel."
    )


def items(character: Character[Sheet], change: str | None = None) -> discord.Embed:
    """Show a character's items, after an optional change."""
    sheet = character.sheet
    name = shown(character.name)
    title = f"🎒 {name}: {shown(change)}" if change else f"🎒 {possessive(name)} items"
    carrying = f"Carrying {len(sheet.items)}: "
    carried = _items_text(sheet, EMBED_DESCRIPTION_LIMIT - len(carrying), "more items")
    embed = discord.Embed(
        title=truncate(title, TITLE_LIMIT),
        description=carrying + carried,
        colour=Colour.WARNING if sheet.encumbered else Colour.CAMPAIGN,
    )
    if sheet.encumbered:
        embed.add_field(
            name="Over the carry limit", value="REF tests get disadvantage automatically."
        )
    return embed


NO_LUCK_ON_PRESSURE_TEST = (
    "Luck can't change a tamper or cleansing-rite test (house rule): its Pressure was applied "
    "when it was rolled. Luck is spent on tests, opposed rolls and attacks."
)


@describe.register
def _(error: NoRollToSpendOn) -> str:
    return (
        "Luck is spent on your latest roll here, and it must be a Sinew & Steel test, "
        "opposed roll or attack of this campaign."
    )


@describe.register
def _(error: NpcHasNoLuck) -> str:
    return f"Roll #{error.roll_id} is an NPC's (a bare `score`): NPCs have no Luck tokens to spend."


def defender_luck_ended(roll_id: int) -> str:
    """Say why a defender's Luck button under a superseded roll was refused and removed."""
    return (
        f"Roll #{roll_id}'s roller has rolled again here: Luck on it lasts until either side "
        "rolls again. Its buttons are gone."
    )


@describe.register
def _(error: NotTheDefender) -> str:
    return (
        f"Only <@{error.defender_id}>, who defends in roll #{error.roll_id}, can spend Luck "
        "with these buttons."
    )


@describe.register
def _(error: DefenderMovedOn) -> str:
    return (
        f"You have rolled again here since roll #{error.roll_id}: a defender's Luck on it lasts "
        "until either side rolls again."
    )


@describe.register
def _(error: RollSuperseded) -> str:
    return (
        f"Roll #{error.roll_id} is no longer your latest roll here: Luck is spent only on your "
        "latest roll, until your next one. Its buttons are gone."
    )


def _surcharge_note(tokens: int, cost: int) -> str:
    return f" · costs {cost} at Pressure {LUCK_SURCHARGE_STEP}+" if cost != tokens else ""


def luck_spent_in_place(root_id: int, roll_id: int, jump_url: str) -> str:
    """Tell the spender where a typed Luck spend shows: the roll's own message, edited."""
    return f"🍀 Luck spent on roll #{root_id}: [its message]({jump_url}) now shows roll #{roll_id}."


def luck_button_label(tokens: int, cost: int, *, turns: str | None = None) -> str:
    """Label a Luck button: how far it lowers the die, what it costs, and what it does
    (``turns``: "turns it" under a test, "wins it" under an opposed roll)."""
    label = f"Spend {tokens}" + (f" ({turns})" if turns else " Luck")
    return label + _surcharge_note(tokens, cost)


def attack_offer_label(offer: LuckOffer, cost: int, *, hit_now: bool) -> str:
    """Label a Luck button under an attack: the spend and what it makes of the attack."""
    effect = f"{offer.damage_taken} damage"
    if not hit_now:
        effect = f"hit, {effect}"
    return f"Spend {offer.tokens} → {effect}" + _surcharge_note(offer.tokens, cost)


def add_pressure_result(
    embed: discord.Embed, change: PressureChange | None, step_text: str | None, pressure: int
) -> None:
    """Add what a tamper test or a cleansing rite did to Pressure to its embed (``pressure``:
    the track's value as read before the test, shown when the test leaves it as it was)."""
    if change is None:
        add_part(embed, Part("Pressure", f"{pressure} (unchanged)"))
        return
    value = f"{change.before} → {change.reached}: {step_text}"
    if change.crisis is not None:
        value += f"\n**Crisis!** The track resets to {change.after}."
    add_part(embed, Part("Pressure", value))


def defender_button_label(name: str, tokens: int, cost: int, *, turns: str | None) -> str:
    """Label a defender's Luck button: whose it is, then as ``luck_button_label``."""
    return truncate(f"{shown(name)}: {luck_button_label(tokens, cost, turns=turns)}", 80)


def add_luck_spent(
    embed: discord.Embed,
    lowered: int,
    cost: int,
    sheet: Sheet,
    *,
    payer: str | None = None,
    given_back: int = 0,
) -> None:
    """Add what a Luck spend did and cost to the roll's embed (``payer``: a defender who spent
    on their own die; ``given_back``: the Stamina a hit turned into a miss gives back)."""
    if given_back:
        add_part(embed, Part("Stamina given back", f"+{given_back}: the hit became a miss"))
    add_part(
        embed,
        Part(
            "Luck spent" if payer is None else f"Luck spent by {shown(payer)}",
            f"−{lowered} on the die for {plural(cost, 'token')}"
            + (
                f" ({cost - lowered} extra at Pressure {LUCK_SURCHARGE_STEP}+)"
                if cost > lowered
                else ""
            )
            + f"; {sheet.luck_tokens}/{sheet.luck} left",
        ),
    )
