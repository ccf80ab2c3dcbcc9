"""Six-pool d20 contests (README, "Rules notes" → "Six-pool d20"): against an NPC's bare
modifier at once; against a player once both have declared their spends, privately. Each
character's side adds proficiency and training for the skill it names, as a check does, and
uses up an ally's help for advantage."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.access import postable_channel
from bot.asker import Asker
from bot.buttons import retire_rolled_past
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

__all__ = [
    "Challenger",
    "ContestAsked",
    "Opponent",
    "challenge",
    "contest_npc",
    "contest_player",
    "declare",
    "pick_spend",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContestAsked:
    """The challenger's side of a contest: their pool, spend, skill and mode."""

    pool: Pool
    spend: int = 0
    skill: str | None = None
    advantage: bool = False
    disadvantage: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Opponent:
    """The other side as asked: a player (with their pool and skill), or an NPC's bare
    modifier."""

    vs_user: discord.abc.User | None = None
    vs_pool: str | None = None
    vs_skill: str | None = None
    vs_modifier: int | None = None

    def defending(self, asked: ContestAsked) -> tuple[Pool, str | None]:
        """Return the defending player's pool (default: the challenger's) and skill (default:
        the challenger's when they defend with the same pool)."""
        pool = sixpool.parse_pool(self.vs_pool) if self.vs_pool else asked.pool
        if self.vs_skill is not None:
            return pool, self.vs_skill
        return pool, asked.skill if pool is asked.pool else None


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
    trained_only: Collection[str] = ()
    rolled: list[tuple[sixpool.ContestResult, bool]] = field(default_factory=list)

    def spend_and_roll(self, sheet: Sheet) -> Sheet:
        asked = self.asked
        side = sixpool.contest_side(sheet, asked.pool, asked.spend, self.option, skill=asked.skill,
                                    trained_only=self.trained_only)  # fmt: skip
        opponent = sixpool.opponent_modifier(self.vs_modifier)
        mode = {"advantage": asked.advantage or side.helped, "disadvantage": asked.disadvantage}
        self.rolled.append((sixpool.contest(self.rng, side.parts, opponent, **mode), side.helped))
        return side.after

    def log(self, after: Character[Sheet]) -> RollEntry:
        (result, helped), pool = self.rolled[-1], self.asked.pool
        name = self.challenger.who.name
        notes = render.contest_notes(name, helped, "Opponent", False)
        embed = render.contest(result, name, "Opponent", _what(pool, self.asked.skill), notes)
        render.add_pool_left(embed, after.sheet, pool, self.asked.spend)
        # Public: the opponent takes part and sees the outcome (README, "Blind rolls").
        return Roll(CONTEST_KIND, result, embed).entry(self.challenger.asker, Visibility.PUBLIC)


async def challenge(
    cog: SixpoolCog, interaction: discord.Interaction, asked: ContestAsked, opponent: Opponent
) -> None:
    """Start a contest: against an NPC at once, against a player once they declare."""
    asker, campaign = await cog.asker(interaction)
    if (opponent.vs_user is None) == (opponent.vs_modifier is None):
        raise CommandError("Name the opponent once: `vs_user` (a player) or `vs_modifier`.")
    who = await cog.characters.find(campaign, user_id=asker.user_id)
    challenger = Challenger(asker, campaign, who)
    if opponent.vs_user is None:
        await contest_npc(cog, interaction, challenger, asked, opponent)
        return
    defender = await cog.characters.find(campaign, user_id=opponent.vs_user.id)
    await contest_player(cog, interaction, challenger, asked, defender, opponent)


def _what(pool: Pool, skill: str | None, vs: str = "contest") -> str:
    """Return what a contest is: "CHA (persuasion) vs WIS (insight)", "DEX contest"."""
    named = f"{pool} ({sixpool.skill_name(skill)})" if skill else str(pool)
    return f"{named} {vs}"


async def contest_npc(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    challenger: Challenger,
    asked: ContestAsked,
    opponent: Opponent,
) -> None:
    """A contest against a bare modifier: spend and both rolls in one transaction."""
    if opponent.vs_pool is not None or opponent.vs_skill is not None:
        raise CommandError(
            "`vs_pool` and `vs_skill` go with `vs_user`; with `vs_modifier` (everything the "
            "NPC adds) omit them."
        )
    assert opponent.vs_modifier is not None
    option = challenger.campaign.settings.get(sixpool.EDGE_OPTION)
    trained_only = await cog.trained_only.skills(challenger.campaign)
    step = _NpcStep(cog.bot.rng, option, challenger, asked, opponent.vs_modifier, trained_only)
    changed = await cog.characters.update(challenger.who, step.spend_and_roll, step.log)
    assert changed.roll_id is not None
    logged, embed = await logged_roll(cog, changed.roll_id)
    asker = challenger.asker
    await deliver_roll(interaction, asker, logged.id, Visibility.PUBLIC, embed)
    # A roll of theirs: inspiration's rerolls under their roll before it have ended.
    await retire_rolled_past(interaction, cog.storage, logged.id, logged.kind, asker.channel_id,
                             asker.user_id)  # fmt: skip


async def contest_player(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    challenger: Challenger,
    asked: ContestAsked,
    defender: Character[Sheet],
    opponent: Opponent,
) -> None:
    """Open a contest against a player: nothing is spent until they declare their spend."""
    who = challenger.who
    if defender.id == who.id:
        raise CommandError("A contest needs an opponent: you can't contest yourself.")
    defending, defender_skill = opponent.defending(asked)
    # Refuse now what can't be rolled: a spend you can't pay, an untrained trained-only side.
    trained_only = await cog.trained_only.skills(challenger.campaign)
    option = challenger.campaign.settings.get(sixpool.EDGE_OPTION)
    sixpool.contest_side(who.sheet, asked.pool, asked.spend, option, skill=asked.skill,
                         trained_only=trained_only)  # fmt: skip
    sixpool.require_training(defender.sheet, defender_skill, trained_only, defender.name)
    contest = await _open(cog, challenger, asked, defender, (defending, defender_skill))
    await interaction.response.send_message(
        f"⚔️ Contest #{contest.id} sent to {defender.name}: your spend ({asked.spend}) stays "
        "secret until both roll.",
        ephemeral=True,
    )
    what = _what(asked.pool, asked.skill, "vs " + _what(defending, defender_skill, "").strip())
    prompt = render.contest_prompt(who.name, defender.user_id, what, CONTEST_MINUTES)
    await _post_prompt(cog, interaction, contest.id, defender.user_id, prompt)


async def _open(
    cog: SixpoolCog,
    challenger: Challenger,
    asked: ContestAsked,
    defender: Character[Sheet],
    defending: tuple[Pool, str | None],
) -> Contest:
    """Store the pending contest; it lapses after CONTEST_MINUTES with nothing spent."""
    pool, skill = defending
    return await cog.contests.open(
        challenger.campaign,
        challenger.asker.channel_id,
        challenger.who,
        defender,
        pool=asked.pool.value,
        defender_pool=pool.value,
        spend=asked.spend,
        advantage=asked.advantage,
        disadvantage=asked.disadvantage,
        expires_at=time.time() + CONTEST_MINUTES * 60,
        skill=sixpool.skill_name(asked.skill) if asked.skill else None,
        defender_skill=sixpool.skill_name(skill) if skill else None,
    )


async def _post_prompt(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    contest_id: int,
    defender_user_id: int,
    prompt: discord.Embed,
) -> None:
    """Post the defender's prompt, with its Declare button, to the channel (to edit it later);
    where the channel refuses the bot, as a public followup (``announce``)."""
    sent = await announce(
        interaction, prompt, content=f"<@{defender_user_id}>", view=contest_view(contest_id)
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


@dataclass(frozen=True, slots=True)
class _Table:
    """What a contest's decision reads from its campaign: the asker, Edge option, list."""

    asker: Asker
    option: EdgeOption
    trained_only: Collection[str]


def _decider(
    table: _Table, rng: Rng, spend: int
) -> Callable[[Contest, Character[Any], Character[Any]], ContestOutcome]:
    """Return the contest's decision, made in the storage's transaction: both spends (and
    helps used up), both rolls, the log entry."""
    option, trained_only = table.option, table.trained_only

    def decide(
        found: Contest, challenger: Character[Any], defender: Character[Any]
    ) -> ContestOutcome:
        pool, defending = Pool(found.pool), Pool(found.defender_pool)
        attack = sixpool.contest_side(challenger.sheet, pool, found.spend, option,
                                      skill=found.skill, name=challenger.name,
                                      trained_only=trained_only)  # fmt: skip
        defence = sixpool.contest_side(defender.sheet, defending, spend, option,
                                       skill=found.defender_skill, name=defender.name,
                                       trained_only=trained_only)  # fmt: skip
        mode = {"advantage": found.advantage or attack.helped, "disadvantage": found.disadvantage}
        result = sixpool.contest(rng, attack.parts, defence.parts, **mode,
                                 defender_advantage=defence.helped)  # fmt: skip
        what = _what(pool, found.skill, "vs " + _what(defending, found.defender_skill, "").strip())
        notes = render.contest_notes(challenger.name, attack.helped, defender.name, defence.helped)
        embed = render.contest(result, challenger.name, defender.name, what, notes)
        render.add_pool_left(embed, attack.after, pool, found.spend, challenger.name)
        render.add_pool_left(embed, defence.after, defending, spend, defender.name)
        entry = Roll(CONTEST_KIND, result, embed).entry(table.asker, Visibility.PUBLIC)
        return ContestOutcome(attack.after, defence.after, entry)

    return decide


async def pick_spend(
    cog: SixpoolCog, interaction: discord.Interaction, contest_id: int, spend: int
) -> None:
    """The defender's private spend: both spends and both rolls in one transaction."""
    contest = await _open_contest(cog, interaction, contest_id)
    asker, campaign = await cog.asker(interaction)
    option = campaign.settings.get(sixpool.EDGE_OPTION)
    table = _Table(asker, option, await cog.trained_only.skills(campaign))
    decide = _decider(table, cog.bot.rng, spend)
    resolved, roll_id = await cog.contests.resolve(contest.id, time.time(), decide)
    _, embed = await logged_roll(cog, roll_id)
    embed.set_footer(text=f"Roll #{roll_id}")
    try:
        await interaction.response.edit_message(
            content=f"✅ You spend {spend}. The result is in the channel.", view=None
        )
        settled = f"Both declared: the dice are rolled (roll #{roll_id}, in the channel)."
        await _close_prompt(interaction, resolved, settled)
    finally:  # the contest is settled and logged: the channel hears it whatever else fails
        await announce(interaction, embed)
    # Logged as the defender's roll: inspiration's rerolls under their roll before it ended.
    await retire_rolled_past(interaction, cog.storage, roll_id, CONTEST_KIND, asker.channel_id,
                             asker.user_id)  # fmt: skip
