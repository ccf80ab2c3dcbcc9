"""Six-pool d20 group checks (docs/players/sixpool.md, "Rules notes"): each participant rolls
once with a private spend (and their inspiration, if they spend it); a leader boosts one ally
first; a GM (or time) closes it."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import discord

from bot.access import postable_channel
from bot.asker import Asker
from bot.buttons import retire_rolled_past, roll_buttons
from bot.errors import CommandError
from bot.publish import Roll, announce
from bot.render import sixpool as render
from bot.storage import Character, Visibility
from bot.storage.sixpool import AlreadyRolled, GroupCheck, GroupClosed, GroupRollOutcome
from cogs.sixpool.buttons import group_spend_view, group_view, reroll_buttons
from cogs.sixpool.options import GROUP_KIND
from cogs.sixpool.rolls import logged_roll
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import EdgeOption, Pool, RollAsked, RollKind, Sheet

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = ["GroupAsked", "boost", "close", "pick_spend", "press_roll", "refresh"]


async def refresh(interaction: discord.Interaction, group: GroupCheck) -> bool:
    """Edit the group check's message to show its rolls (and result, once closed); return
    whether the message could be edited."""
    channel = postable_channel(interaction)
    if group.message_id is None or channel is None:
        return False
    view = None if group.status == "closed" else group_view(group.id)
    try:
        message = channel.get_partial_message(group.message_id)
        await message.edit(embed=render.group_check(group), view=view)
    except discord.HTTPException:  # the message was deleted: the result is posted instead
        return False
    return True


async def _close_once(
    cog: SixpoolCog, interaction: discord.Interaction, group_id: int
) -> GroupCheck:
    """Close a group check and show its result, once: the check's own message is edited (the
    table sees it there); only when it can't be (deleted) is the result posted anew."""
    closed, now = await cog.groups.close(group_id)
    if now and not await refresh(interaction, closed):
        await announce(interaction, render.group_check(closed))
    return closed


async def boost(
    cog: SixpoolCog, interaction: discord.Interaction, user: discord.Member, points: int
) -> None:
    """Lead the channel's open group check: the leader's points on one ally's roll, before any
    die is rolled, once."""
    asker, campaign = await cog.asker(interaction)
    group = await cog.groups.open_in(campaign, asker.channel_id)
    leader = await cog.characters.find(campaign, user_id=asker.user_id)
    ally = await cog.characters.find(campaign, user_id=user.id)
    if ally.id == leader.id:
        raise CommandError("A leader boosts an ally, not themselves.")
    pool = Pool(group.pool)
    pay = partial(sixpool.spend, pool=pool, points=points)
    boosted = await cog.groups.boost(group.id, time.time(), leader, ally, points, pay)
    await interaction.response.send_message(
        f"🫡 {leader.name} leads: +{points} on {ally.name}'s roll ({points} {pool} spent)."
    )
    await refresh(interaction, boosted)


async def press_roll(cog: SixpoolCog, interaction: discord.Interaction, group_id: int) -> None:
    """A participant's Roll: a private choice of how many points to spend."""
    group = await cog.groups.get(group_id)
    if group.status != "open" or group.expires_at <= time.time():
        await _close_once(cog, interaction, group_id)
        raise GroupClosed(group_id)
    asker, campaign = await cog.asker(interaction)
    who = await cog.characters.find(campaign, user_id=asker.user_id)
    if any(roll.character_id == who.id for roll in group.rolls):
        raise AlreadyRolled(who.name)
    pool = Pool(group.pool)
    trained_only = await cog.trained_only.skills(campaign)
    sixpool.require_training(who.sheet, group.skill, trained_only)  # refused before the spend
    most = sixpool.most_spendable(who.sheet, pool)
    inspired = " (holding inspiration: the second list spends it for advantage)"
    await interaction.response.send_message(
        f"Rolling {pool} for the group: how many points do you spend? (up to {most})"
        + (inspired if who.sheet.inspired else ""),
        view=group_spend_view(group_id, most, inspired=who.sheet.inspired),
        ephemeral=True,
    )


@dataclass(frozen=True, slots=True)
class GroupAsked:
    """A participant's choice at the Roll step: their spend, and whether they spend their
    inspiration for advantage."""

    spend: int
    inspiration: bool = False


def _decider(
    asker: Asker,
    option: EdgeOption,
    rng: Rng,
    chosen: GroupAsked,
    trained_only: Collection[str],
    kept: list[Sheet],
) -> Callable[[GroupCheck, Character[Any]], GroupRollOutcome]:
    """Return a participant's roll, decided in the storage's transaction (counted once; an
    ally's help used up, and their inspiration if they spend it); ``kept`` gets the sheet
    after it."""

    def decide(group: GroupCheck, current: Character[Any]) -> GroupRollOutcome:
        asked = RollAsked(kind=RollKind.CHECK, pool=Pool(group.pool), dc=group.dc,
                          spend=chosen.spend, skill=group.skill,
                          inspiration=chosen.inspiration)  # fmt: skip
        boost = group.boost if group.boosted_id == current.id else 0
        prepared = sixpool.prepare_roll(
            current.sheet, asked, option, boost=boost or 0, trained_only=trained_only
        )
        result = sixpool.roll(rng, prepared.parts, group.dc, advantage=prepared.advantage)
        what = f"group {render.roll_label(asked)}"
        embed = render.roll_result(result, current.name, what, render.roll_notes(prepared, False))
        render.add_pool_left(embed, prepared.after, asked.pool, chosen.spend)
        # "what": how an inspiration reroll of it names it (``inspiration``).
        roll = Roll(GROUP_KIND, result, embed, options={"what": what},
                    first_rolls=current.first_rolls, character_id=current.id)  # fmt: skip
        kept.append(prepared.after)
        return GroupRollOutcome(prepared.after, roll.entry(asker, Visibility.PUBLIC),
                                result.total, result.success)  # fmt: skip

    return decide


async def pick_spend(
    cog: SixpoolCog, interaction: discord.Interaction, group_id: int, chosen: GroupAsked
) -> None:
    """Roll a participant's check with their spend (and inspiration), counted once, and update
    the message; holding inspiration still, its rerolls are offered under the roll."""
    asker, campaign = await cog.asker(interaction)
    who = await cog.characters.find(campaign, user_id=asker.user_id)
    option, trained_only = (
        campaign.settings.get(sixpool.EDGE_OPTION),
        await cog.trained_only.skills(campaign),
    )
    kept: list[Sheet] = []
    decide = _decider(asker, option, cog.bot.rng, chosen, trained_only, kept)
    try:
        group, roll_id = await cog.groups.roll(group_id, time.time(), who, decide)
    except GroupClosed:
        await _close_once(cog, interaction, group_id)
        raise
    logged, embed = await logged_roll(cog, roll_id)
    embed.set_footer(text=f"Roll #{roll_id}")
    rerolls = reroll_buttons(roll_id, logged.decoded())
    view = roll_buttons(roll_id, GROUP_KIND, Visibility.PUBLIC,
                        extra=rerolls if kept[-1].inspired else ())  # fmt: skip
    await interaction.response.edit_message(content=None, embed=embed, view=view)
    await refresh(interaction, group)
    # A roll of theirs: inspiration's rerolls under their roll before it have ended.
    await retire_rolled_past(interaction, cog.storage, roll_id, GROUP_KIND, asker.channel_id,
                             asker.user_id)  # fmt: skip


async def close(cog: SixpoolCog, interaction: discord.Interaction, group_id: int) -> None:
    """The GM's Close: the result, announced to the channel."""
    asker = await Asker.of(interaction, cog.storage)
    asker.require_campaign(sixpool.SYSTEM)
    asker.require_gm("close a group check")
    closed = await _close_once(cog, interaction, group_id)
    successes = sum(roll.success for roll in closed.rolls)
    await interaction.response.send_message(
        f"Closed: {successes} of {len(closed.rolls)} succeeded.", ephemeral=True
    )
