"""Six-pool d20 contests (README, "Rules notes" → "Six-pool d20"): against an NPC's bare
modifier at once; against a player once both have declared their spends, privately."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.access import postable_channel
from bot.asker import Asker
from bot.errors import CommandError
from bot.publish import Roll, announce, deliver_roll
from bot.render import sixpool as render
from bot.storage import Campaign, Character, RollEntry, Visibility
from bot.storage.sixpool import Contest, ContestClosed, ContestOutcome
from cogs.sixpool.buttons import contest_view, spend_view
from cogs.sixpool.options import CONTEST_KIND, CONTEST_MINUTES
from cogs.sixpool.rolls import logged_roll
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import EdgeOption, Pool, Sheet

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = ["Challenger", "ContestAsked", "contest_npc", "contest_player", "declare", "pick_spend"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContestAsked:
    """The challenger's side of a contest: their pool, spend and mode."""

    pool: Pool
    spend: int = 0
    advantage: bool = False
    disadvantage: bool = False


@dataclass(frozen=True, slots=True)
class Challenger:
    """Where a contest is asked and who asks: the table, its campaign, their character."""

    asker: Asker
    campaign: Campaign
    who: Character[Sheet]


@dataclass(slots=True)
class _NpcStep:
    """A contest against a bare modifier inside the sheet's transaction: roll, then log."""

    rng: Rng
    option: EdgeOption
    challenger: Challenger
    asked: ContestAsked
    vs_modifier: int
    rolled: list[sixpool.ContestResult] = field(default_factory=list)

    def spend_and_roll(self, sheet: Sheet) -> Sheet:
        asked = self.asked
        side = sixpool.contest_side(sheet, asked.pool, asked.spend, self.option)
        opponent = sixpool.opponent_modifier(self.vs_modifier)
        mode = {"advantage": asked.advantage, "disadvantage": asked.disadvantage}
        self.rolled.append(sixpool.contest(self.rng, side.parts, opponent, **mode))
        return side.after

    def log(self, after: Character[Sheet]) -> RollEntry:
        result, pool = self.rolled[-1], self.asked.pool
        embed = render.contest(result, self.challenger.who.name, "Opponent", f"{pool} contest")
        render.add_pool_left(embed, after.sheet, pool, self.asked.spend)
        # Public: the opponent takes part and sees the outcome (README, "Blind rolls").
        return Roll(CONTEST_KIND, result, embed).entry(self.challenger.asker, Visibility.PUBLIC)


async def contest_npc(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    challenger: Challenger,
    asked: ContestAsked,
    vs_modifier: int,
    vs_pool: str | None,
) -> None:
    """A contest against a bare modifier: spend and both rolls in one transaction."""
    if vs_pool is not None:
        raise CommandError("`vs_pool` goes with `vs_user`; with `vs_modifier` omit it.")
    option = challenger.campaign.settings.get(sixpool.EDGE_OPTION)
    step = _NpcStep(cog.bot.rng, option, challenger, asked, vs_modifier)
    changed = await cog.characters.update(challenger.who, step.spend_and_roll, step.log)
    assert changed.roll_id is not None
    logged, embed = await logged_roll(cog, changed.roll_id)
    await deliver_roll(interaction, challenger.asker, logged.id, Visibility.PUBLIC, embed)


async def contest_player(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    challenger: Challenger,
    asked: ContestAsked,
    defender: Character[Sheet],
    vs_pool: str | None,
) -> None:
    """Open a contest against a player: nothing is spent until they declare their spend."""
    who = challenger.who
    if defender.id == who.id:
        raise CommandError("A contest needs an opponent: you can't contest yourself.")
    sixpool.spend(who.sheet, asked.pool, asked.spend)  # refuse a spend you can't pay now
    defending = sixpool.parse_pool(vs_pool) if vs_pool else asked.pool
    contest = await _open(cog, challenger, asked, defender, defending)
    await interaction.response.send_message(
        f"⚔️ Contest #{contest.id} sent to {defender.name}: your spend ({asked.spend}) stays "
        "secret until both roll.",
        ephemeral=True,
    )
    prompt = render.contest_prompt(
        who.name, defender.user_id, f"{asked.pool} vs {defending}", CONTEST_MINUTES
    )
    await _post_prompt(cog, interaction, contest.id, defender.user_id, prompt)


async def _open(
    cog: SixpoolCog,
    challenger: Challenger,
    asked: ContestAsked,
    defender: Character[Sheet],
    defending: Pool,
) -> Contest:
    """Store the pending contest; it lapses after CONTEST_MINUTES with nothing spent."""
    return await cog.contests.open(
        challenger.campaign,
        challenger.asker.channel_id,
        challenger.who,
        defender,
        pool=asked.pool.value,
        defender_pool=defending.value,
        spend=asked.spend,
        advantage=asked.advantage,
        disadvantage=asked.disadvantage,
        expires_at=time.time() + CONTEST_MINUTES * 60,
    )


async def _post_prompt(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    contest_id: int,
    defender_user_id: int,
    prompt: discord.Embed,
) -> None:
    """Post the defender's prompt, with its Declare button, to the channel (to edit it later)."""
    assert isinstance(interaction.channel, discord.abc.Messageable)
    sent = await interaction.channel.send(
        content=f"<@{defender_user_id}>", embed=prompt, view=contest_view(contest_id)
    )
    await cog.contests.set_message(contest_id, sent.id)


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
        await _close_prompt(interaction, contest, "⌛ Expired: nothing was spent.")
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
        await message.edit(content=text, view=None)
    except discord.HTTPException:  # the prompt was deleted: nothing to tidy
        pass


async def declare(cog: SixpoolCog, interaction: discord.Interaction, contest_id: int) -> None:
    """The defender's Declare button: a private choice of how many points to spend."""
    contest = await _open_contest(cog, interaction, contest_id)
    defender = await cog.characters.by_id(contest.defender_id)
    pool = Pool(contest.defender_pool)
    most = sixpool.most_spendable(defender.sheet, pool)
    await interaction.response.send_message(
        f"How many {pool} points do you spend? (Effort and your pool allow {most}; "
        "your choice stays private until both roll.)",
        view=spend_view(contest_id, most),
        ephemeral=True,
    )


def _decider(
    asker: Asker, option: EdgeOption, rng: Rng, spend: int
) -> Callable[[Contest, Character[Any], Character[Any]], ContestOutcome]:
    """Return the contest's decision, made in the storage's transaction: both spends, both
    rolls, the log entry."""

    def decide(
        found: Contest, challenger: Character[Any], defender: Character[Any]
    ) -> ContestOutcome:
        pool, defending = Pool(found.pool), Pool(found.defender_pool)
        attack = sixpool.contest_side(challenger.sheet, pool, found.spend, option)
        defence = sixpool.contest_side(defender.sheet, defending, spend, option)
        mode = {"advantage": found.advantage, "disadvantage": found.disadvantage}
        result = sixpool.contest(rng, attack.parts, defence.parts, **mode)
        embed = render.contest(result, challenger.name, defender.name, f"{pool} vs {defending}")
        render.add_pool_left(embed, attack.after, pool, found.spend)
        render.add_pool_left(embed, defence.after, defending, spend)
        entry = Roll(CONTEST_KIND, result, embed).entry(asker, Visibility.PUBLIC)
        return ContestOutcome(attack.after, defence.after, entry)

    return decide


async def pick_spend(
    cog: SixpoolCog, interaction: discord.Interaction, contest_id: int, spend: int
) -> None:
    """The defender's private spend: both spends and both rolls in one transaction."""
    contest = await _open_contest(cog, interaction, contest_id)
    asker, campaign = await cog.asker(interaction)
    decide = _decider(asker, campaign.settings.get(sixpool.EDGE_OPTION), cog.bot.rng, spend)
    resolved, roll_id = await cog.contests.resolve(contest.id, time.time(), decide)
    _, embed = await logged_roll(cog, roll_id)
    embed.set_footer(text=f"Roll #{roll_id}")
    try:
        await interaction.response.edit_message(
            content=f"✅ You spend {spend}. The result is in the channel.", view=None
        )
        await _close_prompt(interaction, resolved, "⚔️ Both declared: the dice are rolled.")
    finally:  # the contest is settled and logged: the channel hears it whatever else fails
        await announce(interaction, embed)
