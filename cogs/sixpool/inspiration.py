"""Six-pool d20 inspiration's reroll of one die (docs/players/sixpool.md, "Rules notes"):
offered under a check, attack, save, contest side or group-check roll of a character holding
inspiration while it is their latest roll here, and spent in one transaction with the new roll.
A contest between players shows both sides' rerolls, each its own player's; a side's reroll
changes the contest as it stands now (after the other side's reroll, if any)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.asker import Asker
from bot.buttons import roll_buttons, shown_messages
from bot.errors import CommandError
from bot.publish import Roll, deliver_roll, remember_message
from bot.render import sixpool as render
from bot.render.style import shown
from bot.storage import Campaign, Character, LoggedRoll
from bot.storage.errors import CharacterNotFound
from bot.storage.sixpool import Contest, ContestNotFound, NotLatestRoll, Rerolled
from cogs.sixpool import groups
from cogs.sixpool.buttons import RerollButton, reroll_buttons
from cogs.sixpool.contest_log import ContestLog
from cogs.sixpool.options import CONTEST_KIND
from cogs.sixpool.rolls import ATTACK_KIND, hit_damage, logged_roll
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import Contestant, RollKind, Sheet
from rules.sixpool.kinds import kind_of

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = ["LATEST_ONLY_KINDS", "reroll_die", "rerolls_now"]

# Inspiration rerolls a die of these only while they are their roller's latest roll here (the
# cog registers them with ``bot.buttons.register_latest_only``, and ``rerolls_now``). A group
# roll is shown privately (its count in the group check's message): its rerolls are offered
# there when it is rolled, and refused once it is no longer the latest.
_INSPIRED_KINDS = (RollKind.CHECK, RollKind.ATTACK, RollKind.SAVE)
LATEST_ONLY_KINDS = (*map(kind_of, _INSPIRED_KINDS), CONTEST_KIND)

Apply = Callable[[LoggedRoll, LoggedRoll, Character[Any]], Rerolled[Sheet]]


async def reroll_die(
    cog: SixpoolCog, interaction: discord.Interaction, roll_id: int, index: int
) -> None:
    """Inspiration's "Reroll one die": the roller spends it on a die of their latest roll."""
    asker, campaign = await cog.asker(interaction)
    apply = _rerolled(asker, cog.bot.rng, index)
    try:
        outcome = await cog.rerolls.reroll(
            campaign, asker.channel_id, asker.user_id, roll_id, time.time(), apply
        )
    except NotLatestRoll as error:
        if error.owner_id is not None and error.owner_id != asker.user_id:
            raise CommandError(
                f"Only <@{error.owner_id}>, who made roll #{roll_id}, can reroll its dice."
            ) from None
        raise
    new_id = outcome.roll_id
    logged, embed = await logged_roll(cog, new_id)
    rerolls = await rerolls_now(cog, interaction, logged)  # none, unless inspired again since
    view = roll_buttons(new_id, logged.kind, logged.visibility, extra=rerolls)
    message_id = await deliver_roll(
        interaction, asker, new_id, logged.visibility, embed, view=view, edit=True
    )
    if outcome.group is not None:  # shown privately: the group check's message counts it anew
        await groups.refresh(interaction, outcome.group)
        return
    await remember_message(cog.storage, new_id, message_id)  # inspired again: its buttons here


async def rerolls_now(
    cog: SixpoolCog, interaction: discord.Interaction, logged: LoggedRoll
) -> list[RerollButton]:
    """Return the inspiration rerolls under ``logged`` (its roller's latest roll here) from what
    is stored now: one per die while the rolling character holds inspiration; under a contest
    between players, each side's own (docs/players/index.md, "Buttons and announcements")."""
    campaign = await cog.storage.campaigns.active(logged.channel_id)
    if campaign is None or campaign.id != logged.campaign_id:
        return []
    if logged.kind == CONTEST_KIND:
        return await _contest_rerolls(cog, interaction, campaign, logged)
    who = await _roller(cog, campaign, logged)
    if who is None or not who.sheet.inspired:
        return []
    return reroll_buttons(logged.id, logged.decoded())


async def _roller(
    cog: SixpoolCog, campaign: Campaign, logged: LoggedRoll
) -> Character[Sheet] | None:
    """The character who made ``logged`` (None: gone since, no inspiration to spend)."""
    return await cog.characters.roller(campaign, logged.user_id, logged.payload)


async def _contest_rerolls(
    cog: SixpoolCog, interaction: discord.Interaction, campaign: Campaign, logged: LoggedRoll
) -> list[RerollButton]:
    """A contest's rerolls: its roller's against a bare modifier; in a stored contest, each
    player's whose latest roll here is their side of it, on the dice it has now."""
    log = ContestLog.of(logged.options, logged.id)
    if log is None:  # rolled before its sides could be rerolled
        return []
    if log.contest_id is None:  # against an NPC's bare modifier: one roller
        who = await _roller(cog, campaign, logged)
        if who is None or not who.sheet.inspired:
            return []
        return reroll_buttons(logged.id, logged.decoded().own)
    try:
        contest = await cog.contests.get(log.contest_id)
    except ContestNotFound:
        return []
    return await _stored_contest_rerolls(cog, interaction, logged, contest)


async def _stored_contest_rerolls(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    logged: LoggedRoll,
    contest: Contest,
) -> list[RerollButton]:
    """A stored contest's rerolls: each player's whose latest roll here is their side of it
    (``logged``, or the other side's), on the dice it has now."""
    current = await cog.storage.rolls.get(contest.roll_id) if contest.roll_id else None
    result = (current or logged).decoded()
    buttons: list[RerollButton] = []
    players: list[int] = []
    for character_id, side in zip(
        (contest.challenger_id, contest.defender_id), Contestant, strict=True
    ):
        who = await _character(cog, character_id)
        if who is None:
            continue
        players.append(who.user_id)
        latest = await cog.storage.rolls.latest(logged.channel_id, who.user_id)
        if who.sheet.inspired and latest is not None and _side_of(latest, contest.id):
            # Two players' rerolls on one message: each names whose die it rerolls.
            named = who.name if contest.challenger_id is not None else None
            buttons.extend(reroll_buttons(latest.id, result.side(side), named))
    _note_shown(interaction, logged.channel_id, players)
    return buttons


async def _character(cog: SixpoolCog, character_id: int | None) -> Character[Sheet] | None:
    if character_id is None:  # a GM's NPC: nothing to reroll
        return None
    try:
        return await cog.characters.by_id(character_id)
    except CharacterNotFound:
        return None


def _side_of(latest: LoggedRoll, contest_id: int) -> bool:
    """Whether a player's latest roll here is their side of this stored contest."""
    if latest.kind != CONTEST_KIND:
        return False
    log = ContestLog.of(latest.options, latest.id)
    return log is not None and log.contest_id == contest_id


def _note_shown(interaction: discord.Interaction, channel_id: int, players: list[int]) -> None:
    """Each player's latest roll here shows the other's rerolls: either's next roll or
    inspiration re-derives that message (``ShownMessages.shows_buttons_of``)."""
    shown_here = shown_messages(interaction)
    for user_id in players:
        for other in players:
            if other != user_id:
                shown_here.shows_buttons_of(channel_id, user_id, other)


def _rerolled(asker: Asker, rng: Rng, index: int) -> Apply:
    """Return the reroll, made in the storage's transaction: inspiration spent, die rerolled."""

    def apply(logged: LoggedRoll, current: LoggedRoll, who: Character[Any]) -> Rerolled[Sheet]:
        after_sheet = sixpool.use_inspiration(who.sheet, who.name)
        if logged.kind == CONTEST_KIND:
            return _contest_rerolled(asker, rng, index, (logged, current), who, after_sheet)
        before = logged.decoded()
        after = sixpool.reroll_die(rng, before, index)
        options = logged.options
        note = (
            f"Inspiration spent: die {index + 1} rerolled, "
            f"{before.dice[index]} → {after.dice[index]}."
        )
        kind = RollKind.ATTACK if logged.kind == ATTACK_KIND else RollKind.CHECK
        what = str(options.get("what") or "roll")
        embed = render.roll_result(after, who.name, what, (note,), kind=kind)
        damage = options.get("damage")
        expression = damage if isinstance(damage, str) else None
        render.add_damage(embed, hit_damage(rng, after, expression), expression)
        # As secret as the roll it changes: a blind roll's reroll stays blind.
        roll = Roll(logged.kind, after, embed, options=options, character_id=who.id)
        entry = roll.entry(asker, logged.visibility)
        return Rerolled(after_sheet, entry, after.total, after.success)

    return apply


def _contest_rerolled(
    asker: Asker,
    rng: Rng,
    index: int,
    rolls: tuple[LoggedRoll, LoggedRoll],
    who: Character[Any],
    after_sheet: Sheet,
) -> Rerolled[Sheet]:
    """A contest side's reroll: the roller's die of the contest as it stands now (``rolls``:
    their roll, and the one holding the contest's result now), logged as a new roll of
    theirs in the same contest."""
    logged, current = rolls
    log = ContestLog.of(logged.options, logged.id)
    if log is None:
        raise CommandError("This contest was rolled before its sides could be rerolled.")
    roller = logged.decoded().roller
    before = current.decoded().rolled_by(roller)
    rolled = sixpool.reroll_die(rng, before.own, index)
    after = before.with_own(rolled)
    note = (
        f"Inspiration spent: {shown(who.name)}'s die {index + 1} rerolled, "
        f"{before.own.dice[index]} → {rolled.dice[index]}."
    )
    entry = log.entry(after, log.embed(after, (note,)), asker, asker.user_id, who)
    return Rerolled(after_sheet, entry, after.own.total, after.roller_wins)
