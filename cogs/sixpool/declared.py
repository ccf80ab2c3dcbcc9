"""Six-pool d20 contests against a player, the defender's side (docs/players/sixpool.md, "Rules
notes"): their Declare button, their private spend (and inspiration), then both spends and both
rolls in one transaction. Each player's side is logged as their own roll, the challenger's first;
against a GM's NPC, the player's alone. A tie goes to the defender."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.access import postable_channel
from bot.asker import Asker
from bot.buttons import retire_rolled_past, roll_buttons, shown_messages
from bot.errors import CommandError
from bot.publish import announce, remember_message
from bot.render import sixpool as render
from bot.storage import Character, LoggedRoll, RollEntry, Visibility
from bot.storage.sixpool import Contest, ContestClosed, ContestOutcome
from cogs.sixpool.buttons import spend_view
from cogs.sixpool.contest_log import NPC_NAME, ContestLog, side_text
from cogs.sixpool.inspiration import rerolls_now
from cogs.sixpool.options import CONTEST_KIND
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import Contestant, ContestResult, ContestSide, EdgeOption, Pool

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = ["Declared", "declare", "pick_spend"]

Decide = Callable[[Contest, Character[Any] | None, Character[Any]], ContestOutcome[Any]]


@dataclass(frozen=True, slots=True)
class Declared:
    """The defender's private choice: their spend, and whether they spend inspiration."""

    spend: int
    inspiration: bool = False


async def _open_contest(
    cog: SixpoolCog, interaction: discord.Interaction, contest_id: int
) -> Contest:
    """Return a pending contest the presser defends, or refuse (privately)."""
    contest = await cog.contests.get(contest_id)
    defender = await cog.characters.by_id(contest.defender_id)
    if defender.user_id != interaction.user.id:
        raise CommandError(f"Only <@{defender.user_id}> declares a spend in this contest.")
    if contest.status == "pending" and contest.expires_at <= time.time():
        await cog.contests.expire(contest_id, time.time())
        await _close_prompt(interaction, contest, "⌛ Expired: nothing was spent, nothing rolled.")
        raise ContestClosed(contest_id, "expired")
    if contest.status != "pending":
        raise ContestClosed(contest_id, contest.status)
    return contest


async def _close_prompt(interaction: discord.Interaction, contest: Contest, text: str) -> None:
    """Take the Declare button off the contest's prompt in the channel."""
    channel = postable_channel(interaction)
    if contest.message_id is None or channel is None:
        return
    try:
        message = channel.get_partial_message(contest.message_id)
        await message.edit(content=None, embed=render.contest_closed(text), view=None)
    except discord.HTTPException:  # the prompt was deleted: nothing to tidy
        pass


async def declare(cog: SixpoolCog, interaction: discord.Interaction, contest_id: int) -> None:
    """The defender's Declare button: a private choice of how many points to spend (and,
    holding inspiration, a second list that spends it for advantage too)."""
    contest = await _open_contest(cog, interaction, contest_id)
    defender = await cog.characters.by_id(contest.defender_id)
    pool = Pool(contest.defender_pool)
    most = sixpool.most_spendable(defender.sheet, pool)
    inspired = defender.sheet.inspired
    await interaction.response.send_message(
        f"How many {pool} points do you spend? (Effort and your pool allow {most}; "
        "your choice stays private until both roll.)"
        + (" You hold inspiration: the second list spends it for advantage." if inspired else ""),
        view=spend_view(contest_id, most, inspired=inspired),
        ephemeral=True,
    )


@dataclass(frozen=True, slots=True)
class _Table:
    """What a contest's decision reads from its campaign: the asker, Edge option, list."""

    asker: Asker
    option: EdgeOption
    trained_only: Collection[str]


@dataclass(frozen=True, slots=True)
class _Rolled:
    """A contest rolled: its log (names, sides), the result, each player's side (the NPC's:
    None), and the sheets after."""

    log: ContestLog
    result: ContestResult
    attack: ContestSide | None
    defence: ContestSide


def _attack(
    table: _Table, found: Contest, challenger: Character[Any] | None
) -> tuple[tuple[sixpool.Modifier, ...], ContestSide | None, str | None]:
    """The challenger's side: a character's (its spend, help and inspiration), or a GM's NPC's
    bare modifier."""
    if challenger is None:
        assert found.npc_modifier is not None
        return sixpool.opponent_modifier(found.npc_modifier, "NPC's modifier"), None, None
    assert found.pool is not None
    pool = Pool(found.pool)
    side = sixpool.contest_side(challenger.sheet, pool, found.spend, table.option,
                                skill=found.skill, name=challenger.name,
                                trained_only=table.trained_only,
                                inspiration=found.inspiration)  # fmt: skip
    return side.parts, side, side_text(pool, found.skill)


def _roll(
    table: _Table,
    rng: Rng,
    declared: Declared,
    found: Contest,
    players: tuple[Character[Any] | None, Character[Any]],
) -> _Rolled:
    """Both sides decided and rolled: the challenger's mode on their die, each side's help or
    inspiration its own advantage."""
    challenger, defender = players
    parts, attack, attack_text = _attack(table, found, challenger)
    defending = Pool(found.defender_pool)
    defence = sixpool.contest_side(defender.sheet, defending, declared.spend, table.option,
                                   skill=found.defender_skill, name=defender.name,
                                   trained_only=table.trained_only,
                                   inspiration=declared.inspiration)  # fmt: skip
    inspired_or_helped = attack is not None and attack.advantage
    result = sixpool.contest(rng, parts, defence.parts,
                             advantage=found.advantage or inspired_or_helped,
                             disadvantage=found.disadvantage,
                             defender_advantage=defence.advantage)  # fmt: skip
    names = (NPC_NAME if challenger is None else challenger.name, defender.name)
    sides = (attack_text, side_text(defending, found.defender_skill))
    return _Rolled(ContestLog(names, sides, found.id), result, attack, defence)


def _entry(
    table: _Table,
    found: Contest,
    declared: Declared,
    rolled: _Rolled,
    side: tuple[Contestant, Character[Any]],
) -> RollEntry:
    """One player's side logged as their roll, their pool spent shown with each other's."""
    roller, who = side
    log, attack, mine = rolled.log, rolled.attack, rolled.result.rolled_by(roller)
    notes = render.contest_notes((log.names[0], attack), (log.names[1], rolled.defence))
    embed = log.embed(mine, notes)
    if attack is not None and found.pool is not None:
        render.add_pool_left(embed, attack.after, Pool(found.pool), found.spend, log.names[0])
    render.add_pool_left(embed, rolled.defence.after, Pool(found.defender_pool),
                         declared.spend, log.names[1])  # fmt: skip
    return log.entry(mine, embed, table.asker, who.user_id, who)


def _decider(table: _Table, rng: Rng, declared: Declared) -> Decide:
    """Return the contest's decision, made in the storage's transaction: both spends (helps
    and inspiration used up), both rolls, one log entry per player's side (the defender's
    naming the challenger's as the roll the contest was first logged under)."""

    def decide(
        found: Contest, challenger: Character[Any] | None, defender: Character[Any]
    ) -> ContestOutcome[Any]:
        rolled = _roll(table, rng, declared, found, (challenger, defender))
        after = None if rolled.attack is None else rolled.attack.after

        def defending(root: int | None = None) -> RollEntry:
            log = rolled.log if root is None else rolled.log.rooted(root)
            rooted = _Rolled(log, rolled.result, rolled.attack, rolled.defence)
            return _entry(table, found, declared, rooted, (Contestant.DEFENDER, defender))

        if challenger is None:  # a GM's NPC: the player's roll alone
            return ContestOutcome(after, rolled.defence.after, defending())
        first = _entry(table, found, declared, rolled, (Contestant.ATTACKER, challenger))
        return ContestOutcome(after, rolled.defence.after, first, defending)

    return decide


async def pick_spend(
    cog: SixpoolCog, interaction: discord.Interaction, contest_id: int, declared: Declared
) -> None:
    """The defender's private spend: both spends and both rolls in one transaction."""
    contest = await _open_contest(cog, interaction, contest_id)
    asker, campaign = await cog.asker(interaction)
    option = campaign.settings.get(sixpool.EDGE_OPTION)
    table = _Table(asker, option, await cog.trained_only.skills(campaign))
    decide = _decider(table, cog.bot.rng, declared)
    resolved, roll_ids = await cog.contests.resolve(contest.id, time.time(), decide)
    rolls = [await cog.storage.rolls.get(roll_id) for roll_id in roll_ids]
    logged = [roll for roll in rolls if roll is not None]
    numbers = " and ".join(f"#{roll.id}" for roll in logged)
    spent = f"{declared.spend} and your inspiration" if declared.inspiration else declared.spend
    try:
        await interaction.response.edit_message(
            content=f"✅ You spend {spent}. The result is in the channel.", view=None
        )
        roll_word = "rolls" if len(logged) > 1 else "roll"
        settled = f"Both declared: the dice are rolled ({roll_word} {numbers}, in the channel)."
        await _close_prompt(interaction, resolved, settled)
    finally:  # the contest is settled and logged: the channel hears it whatever else fails
        await _show(cog, interaction, logged)


async def _show(
    cog: SixpoolCog, interaction: discord.Interaction, logged: list[LoggedRoll]
) -> None:
    """Post the contest to the channel, as its first roll's reply (the challenger's, against a
    GM's NPC the player's), with each player's inspiration rerolls; remember the message on
    each of its rolls; each player's roll before it loses its rerolls."""
    first = logged[0]
    embed = discord.Embed.from_dict(first.embed_data)
    embed.set_footer(text=("Rolls " if len(logged) > 1 else "Roll ")
                     + " and ".join(f"#{roll.id}" for roll in logged))  # fmt: skip
    shown = shown_messages(interaction)
    with contextlib.ExitStack() as showing:
        for roll in logged:  # what edits it meanwhile (inspiration awarded) waits for it
            showing.enter_context(shown.being_shown(roll.id))
        rerolls = await rerolls_now(cog, interaction, first)
        view = roll_buttons(first.id, CONTEST_KIND, Visibility.PUBLIC, extra=rerolls)
        sent = await announce(interaction, embed, view=view)
        for roll in logged:
            await remember_message(cog.storage, roll.id, sent.id)
    for roll in logged:
        await retire_rolled_past(interaction, cog.storage, roll.id, CONTEST_KIND,
                                 roll.channel_id, roll.user_id)  # fmt: skip
