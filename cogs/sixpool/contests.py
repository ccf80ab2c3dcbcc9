"""Six-pool d20 contests started (docs/players/sixpool.md, "Rules notes"): against an NPC's
bare modifier at once; against a player once they have declared their spend, privately (a GM
may challenge a player as an NPC, with its total modifier). Each character's side adds
proficiency and training for the skill it names, as a check does, uses up an ally's help for
advantage, and may spend its inspiration for advantage. The defender's side is ``declared``'s."""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import discord

from bot.asker import Asker
from bot.buttons import roll_buttons
from bot.errors import CommandError
from bot.publish import announce, show_logged_roll
from bot.render import sixpool as render
from bot.storage import Campaign, Character, RollEntry, Visibility
from bot.storage.sixpool import Contest, ContestTerms
from cogs.sixpool.buttons import contest_view
from cogs.sixpool.contest_log import NPC_NAME, OPPONENT_NAME, ContestLog, side_text
from cogs.sixpool.inspiration import rerolls_now
from cogs.sixpool.options import CONTEST_MINUTES
from cogs.sixpool.rolls import logged_roll
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import ContestSide, EdgeOption, Pool, Sheet

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = [
    "Challenger",
    "ContestAsked",
    "Opponent",
    "challenge",
    "contest_npc",
    "contest_player",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContestAsked:
    """The challenger's side of a contest: their pool (None: a GM's NPC has none), spend,
    skill, mode and inspiration."""

    pool: Pool | None
    spend: int = 0
    skill: str | None = None
    advantage: bool = False
    disadvantage: bool = False
    inspiration: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Opponent:
    """The other side as asked: a player (with their pool and skill), or an NPC's bare
    modifier; ``npc_modifier``: a GM challenges the player as an NPC with this total."""

    vs_user: discord.abc.User | None = None
    vs_pool: str | None = None
    vs_skill: str | None = None
    vs_modifier: int | None = None
    npc_modifier: int | None = None

    def defending(self, asked: ContestAsked) -> tuple[Pool, str | None]:
        """Return the defending player's pool (default: the challenger's) and skill (default:
        the challenger's when they defend with the same pool)."""
        if self.vs_pool:
            pool = sixpool.parse_pool(self.vs_pool)
        elif asked.pool is not None:
            pool = asked.pool
        else:
            raise CommandError("Name the player's pool with `vs_pool`.")
        if self.vs_skill is not None:
            return pool, self.vs_skill
        return pool, asked.skill if pool is asked.pool else None


@dataclass(frozen=True, slots=True)
class Challenger:
    """Where a contest is asked and who asks: the table, its campaign, their character (None:
    a GM challenging as an NPC)."""

    asker: Asker
    campaign: Campaign
    who: Character[Sheet] | None


@dataclass(slots=True)
class _NpcStep:
    """A contest against a bare modifier inside the sheet's transaction: roll, then log."""

    rng: Rng
    option: EdgeOption
    challenger: Challenger
    asked: ContestAsked
    vs_modifier: int
    trained_only: Collection[str] = ()
    rolled: list[tuple[sixpool.ContestResult, ContestSide]] = field(default_factory=list)

    def spend_and_roll(self, sheet: Sheet) -> Sheet:
        asked = self.asked
        assert asked.pool is not None
        side = sixpool.contest_side(sheet, asked.pool, asked.spend, self.option, skill=asked.skill,
                                    trained_only=self.trained_only,
                                    inspiration=asked.inspiration)  # fmt: skip
        opponent = sixpool.opponent_modifier(self.vs_modifier)
        mode = {"advantage": asked.advantage or side.advantage, "disadvantage": asked.disadvantage}
        self.rolled.append((sixpool.contest(self.rng, side.parts, opponent, **mode), side))
        return side.after

    def log(self, after: Character[Sheet]) -> RollEntry:
        (result, side), pool = self.rolled[-1], self.asked.pool
        assert pool is not None
        log = ContestLog((after.name, OPPONENT_NAME), (side_text(pool, self.asked.skill), None))
        embed = log.embed(result, render.contest_notes((after.name, side)))
        render.add_pool_left(embed, after.sheet, pool, self.asked.spend)
        asker = self.challenger.asker
        return log.entry(result, embed, asker, asker.user_id, after)


async def challenge(
    cog: SixpoolCog, interaction: discord.Interaction, asked: ContestAsked, opponent: Opponent
) -> None:
    """Start a contest: against an NPC at once, against a player once they declare; a GM's
    as an NPC against a player."""
    asker, campaign = await cog.asker(interaction)
    if opponent.npc_modifier is not None:
        await npc_challenge(cog, interaction, Challenger(asker, campaign, None), asked, opponent)
        return
    if (opponent.vs_user is None) == (opponent.vs_modifier is None):
        raise CommandError("Name the opponent once: `vs_user` (a player) or `vs_modifier`.")
    if asked.pool is None:
        raise CommandError("Name your `pool` (what you roll and spend from).")
    who = await cog.characters.find(campaign, user_id=asker.user_id)
    challenger = Challenger(asker, campaign, who)
    if opponent.vs_user is None:
        await contest_npc(cog, interaction, challenger, asked, opponent)
        return
    defender = await cog.characters.find(campaign, user_id=opponent.vs_user.id)
    await contest_player(cog, interaction, challenger, asked, defender, opponent)


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
    assert opponent.vs_modifier is not None and challenger.who is not None
    option = challenger.campaign.settings.get(sixpool.EDGE_OPTION)
    trained_only = await cog.trained_only.skills(challenger.campaign)
    step = _NpcStep(cog.bot.rng, option, challenger, asked, opponent.vs_modifier, trained_only)
    changed = await cog.characters.update(challenger.who, step.spend_and_roll, step.log)
    assert changed.roll_id is not None
    logged, embed = await logged_roll(cog, changed.roll_id)
    rerolls = await rerolls_now(cog, interaction, logged)  # inspiration kept: its rerolls
    view = roll_buttons(logged.id, logged.kind, Visibility.PUBLIC, extra=rerolls)
    # A roll of theirs: inspiration's rerolls under their roll before it end.
    await show_logged_roll(interaction, cog.storage, challenger.asker, logged.id, logged.kind,
                           Visibility.PUBLIC, embed, view=view)  # fmt: skip


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
    assert who is not None and asked.pool is not None
    if defender.id == who.id:
        raise CommandError("A contest needs an opponent: you can't contest yourself.")
    defending, defender_skill = opponent.defending(asked)
    # Refuse now what can't be rolled: a spend you can't pay, inspiration you don't hold, an
    # untrained side in a trained-only skill.
    trained_only = await cog.trained_only.skills(challenger.campaign)
    option = challenger.campaign.settings.get(sixpool.EDGE_OPTION)
    sixpool.contest_side(who.sheet, asked.pool, asked.spend, option, skill=asked.skill,
                         trained_only=trained_only, inspiration=asked.inspiration)  # fmt: skip
    sixpool.require_training(defender.sheet, defender_skill, trained_only, defender.name)
    contest = await _open(cog, challenger, asked, defender, (defending, defender_skill))
    await interaction.response.send_message(
        f"⚔️ Contest #{contest.id} sent to {defender.name}: your spend ({asked.spend}) stays "
        "secret until both roll.",
        ephemeral=True,
    )
    what = f"{side_text(asked.pool, asked.skill)} vs {side_text(defending, defender_skill)}"
    prompt = render.contest_prompt(who.name, defender.user_id, what, CONTEST_MINUTES)
    await _post_prompt(cog, interaction, contest.id, defender.user_id, prompt)


async def npc_challenge(
    cog: SixpoolCog,
    interaction: discord.Interaction,
    challenger: Challenger,
    asked: ContestAsked,
    opponent: Opponent,
) -> None:
    """A GM challenges a player as an NPC (its total modifier): the player declares and
    rolls as a defender does; a tie goes to them (docs/players/sixpool.md, "Rules notes")."""
    challenger.asker.require_gm("challenge a player as an NPC")
    _refuse_npc_mixes(asked, opponent)
    assert opponent.vs_user is not None and opponent.npc_modifier is not None
    defender = await cog.characters.find(challenger.campaign, user_id=opponent.vs_user.id)
    defending, defender_skill = opponent.defending(asked)
    trained_only = await cog.trained_only.skills(challenger.campaign)
    sixpool.require_training(defender.sheet, defender_skill, trained_only, defender.name)
    contest = await _open(cog, challenger, asked, defender, (defending, defender_skill),
                          opponent.npc_modifier)  # fmt: skip
    await interaction.response.send_message(
        f"⚔️ Contest #{contest.id} sent to {defender.name}: the NPC's modifier "
        f"({opponent.npc_modifier:+d}) stays secret until both roll.",
        ephemeral=True,
    )
    what = ContestLog((NPC_NAME, defender.name), (None, side_text(defending, defender_skill)))
    prompt = render.contest_prompt(
        NPC_NAME, defender.user_id, what.what(sixpool.Contestant.DEFENDER), CONTEST_MINUTES
    )
    await _post_prompt(cog, interaction, contest.id, defender.user_id, prompt)


def _refuse_npc_mixes(asked: ContestAsked, opponent: Opponent) -> None:
    """Refuse what a GM's NPC challenge can't mean: no player, two NPCs, or a character's own
    options for the NPC (everything it adds is in ``npc_modifier``)."""
    if opponent.vs_user is None:
        raise CommandError("`npc_modifier` challenges a player: name them with `vs_user`.")
    if opponent.vs_modifier is not None:
        raise CommandError(
            "`npc_modifier` is the challenging NPC's and `vs_modifier` an NPC opponent's: a "
            "contest of two NPCs needs no bot. Give `vs_user` the defending player."
        )
    if asked.pool is not None or asked.spend or asked.skill is not None or asked.inspiration:
        raise CommandError(
            "`pool`, `spend`, `skill` and `inspiration` are a character's: the NPC adds "
            "everything in `npc_modifier`. Give the player's with `vs_pool` and `vs_skill`."
        )
    if opponent.vs_pool is None:
        raise CommandError("Name the player's pool with `vs_pool`.")


async def _open(
    cog: SixpoolCog,
    challenger: Challenger,
    asked: ContestAsked,
    defender: Character[Sheet],
    defending: tuple[Pool, str | None],
    npc_modifier: int | None = None,
) -> Contest:
    """Store the pending contest; it lapses after CONTEST_MINUTES with nothing spent."""
    pool, skill = defending
    terms = ContestTerms(
        pool=None if asked.pool is None else asked.pool.value,
        defender_pool=pool.value,
        spend=asked.spend,
        advantage=asked.advantage,
        disadvantage=asked.disadvantage,
        skill=sixpool.skill_name(asked.skill) if asked.skill else None,
        defender_skill=sixpool.skill_name(skill) if skill else None,
        npc_modifier=npc_modifier,
        inspiration=asked.inspiration,
    )
    expires_at = time.time() + CONTEST_MINUTES * 60
    return await cog.contests.open(challenger.campaign, challenger.asker.channel_id,
                                   challenger.who, defender, terms, expires_at)  # fmt: skip


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
