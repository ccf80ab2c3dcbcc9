"""`/sixpool`: six-pool d20 characters, checks, attacks and saves with pool spends, odds.

The commands parse their options and hand them on: the rules decide (``rules.sixpool``), the flows
in ``rolls``, ``contests``, ``declared``, ``groups`` and ``inspiration`` store and reply
(docs/players/sixpool.md, "Rules notes").
"""

from __future__ import annotations

import io
import time
from functools import partial

import discord
from discord import app_commands
from discord.ext import commands

from bot.access import loaded_cog
from bot.anywhere import anywhere, anywhere_group
from bot.asker import Asker
from bot.buttons import refresh_latest_buttons, register_latest_only, register_reroll
from bot.character_admin import CharacterAdmin
from bot.client import DiceBot
from bot.options import (
    BLIND_HELP,
    HIDDEN_HELP,
    CharacterName,
    matching,
    suggest,
)
from bot.publish import Roll, publish_roll, roll_command
from bot.render import odds_charts
from bot.render import sixpool as render
from bot.render.charts import draw_spec
from bot.storage import CharacterStore, LoggedRoll
from bot.storage.sixpool import ContestStore, GroupStore, RerollStore, TrainedOnlyStore
from bot.suggestions import sheet_being_typed_for
from cogs.sixpool import contests, declared, groups, rolls, training
from cogs.sixpool import inspiration as rerolls
from cogs.sixpool.buttons import RerollButton, group_view
from cogs.sixpool.characters import CharacterCommands
from cogs.sixpool.options import (
    COG_NAME,
    DAMAGE_HELP,
    DC,
    GROUP_MINUTES,
    POOL_CHOICES,
    ROLL_HELP,
    SHEET_CODEC,
    SITUATION_CHOICES,
    DamageText,
    Modifier,
    SkillName,
    Spend,
)
from rules import sixpool
from rules.choices import parse_choice
from rules.sixpool import RollAsked, RollKind, Sheet
from rules.sixpool.kinds import TAKE_KIND, kind_of
from rules.sixpool.skills import known_skills

__all__ = ["SixpoolCog"]


@anywhere_group
class SixpoolCog(
    CharacterCommands, commands.GroupCog, group_name="sixpool", group_description="Six-pool d20"
):
    """Six-pool d20: 1d20 + modifiers + pool points spent before the roll."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.characters: CharacterStore[Sheet] = CharacterStore(bot.storage.database, SHEET_CODEC)
        self.admin = CharacterAdmin(bot.storage, sixpool.SYSTEM, self.characters)
        self.contests = ContestStore(bot.storage.database, SHEET_CODEC)
        self.groups = GroupStore(bot.storage.database, SHEET_CODEC)
        self.rerolls = RerollStore(bot.storage.database, SHEET_CODEC)
        self.trained_only = TrainedOnlyStore(bot.storage.database)
        for kind in (RollKind.CHECK, RollKind.ATTACK, RollKind.SAVE):
            register_reroll(bot, kind_of(kind), rolls.roll_again(self, kind))

    async def cog_unload(self) -> None:
        self.admin.close()

    # --- rolls

    @roll_command
    @app_commands.command(name="check", description="A skill check: 1d20 + training + points")
    @app_commands.describe(
        pool="The pool the check uses (and spends from)",
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX} (easy 10, medium 15, hard 20)",
        skill="The skill (its training from your sheet; untrained if not listed)",
        situation="Favorable −2, unfavorable +2, extreme +5 or perfect −5 to the DC",
        **ROLL_HELP,
    )
    @app_commands.choices(pool=POOL_CHOICES, situation=SITUATION_CHOICES)
    async def check(
        self,
        interaction: discord.Interaction,
        pool: str,
        dc: DC,
        spend: Spend = 0,
        skill: SkillName | None = None,
        situation: str | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        inspiration: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        chosen = parse_choice(sixpool.Situation, situation or "normal", "situation")
        asked = RollAsked(kind=RollKind.CHECK, pool=sixpool.parse_pool(pool), dc=dc, spend=spend,
                          skill=skill, situation=chosen, advantage=advantage,
                          disadvantage=disadvantage, inspiration=inspiration)  # fmt: skip
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        rolling = rolls.RollFor(character=character, visibility=visibility)
        await rolls.roll_asked(self, interaction, asked, rolling)

    @roll_command
    @app_commands.command(name="attack", description="An attack: 1d20 + proficiency + points vs AC")
    @app_commands.describe(
        pool="STR for melee, DEX for ranged, INT/WIS/CHA for spells",
        ac=f"The target's Armor Class, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        damage=DAMAGE_HELP,
        **ROLL_HELP,
    )
    @app_commands.choices(pool=POOL_CHOICES)
    async def attack(
        self,
        interaction: discord.Interaction,
        pool: str,
        ac: DC,
        spend: Spend = 0,
        damage: DamageText | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        inspiration: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        asked = RollAsked(kind=RollKind.ATTACK, pool=sixpool.parse_pool(pool), dc=ac, spend=spend,
                          advantage=advantage, disadvantage=disadvantage,
                          inspiration=inspiration, damage=damage)  # fmt: skip
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        rolling = rolls.RollFor(character=character, visibility=visibility)
        await rolls.roll_asked(self, interaction, asked, rolling)

    @roll_command
    @app_commands.command(name="save", description="A saving throw: 1d20 + save training + points")
    @app_commands.describe(
        pool="The save (STR shoved, DEX traps, CON poison, INT illusions, WIS charm, CHA exile)",
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        **ROLL_HELP,
    )
    @app_commands.choices(pool=POOL_CHOICES)
    async def save(
        self,
        interaction: discord.Interaction,
        pool: str,
        dc: DC,
        spend: Spend = 0,
        advantage: bool = False,
        disadvantage: bool = False,
        inspiration: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        asked = RollAsked(
            kind=RollKind.SAVE,
            pool=sixpool.parse_pool(pool),
            dc=dc,
            spend=spend,
            advantage=advantage,
            disadvantage=disadvantage,
            inspiration=inspiration,
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        rolling = rolls.RollFor(character=character, visibility=visibility)
        await rolls.roll_asked(self, interaction, asked, rolling)

    @app_commands.command(name="passive", description="A passive score: 10 + modifiers, no roll")
    @app_commands.describe(
        pool="The pool (its Edge counts with option A)",
        skill="The skill (its training from your sheet)",
        character=ROLL_HELP["character"],
    )
    @app_commands.choices(pool=POOL_CHOICES)
    async def passive(
        self,
        interaction: discord.Interaction,
        pool: str,
        skill: SkillName | None = None,
        character: CharacterName | None = None,
    ) -> None:
        asker, campaign = await self.asker(interaction)
        who = await asker.own_or_named(self.characters, campaign, character, "roll")
        asked = RollAsked(kind=RollKind.CHECK, pool=sixpool.parse_pool(pool), dc=0, skill=skill)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        trained_only = await self.trained_only.skills(campaign)
        parts = sixpool.roll_modifiers(who.sheet, asked, option, trained_only)
        what = sixpool.skill_name(skill) if skill else asked.pool.value
        embed = render.passive(who.name, what, parts, sixpool.passive(parts))
        await interaction.response.send_message(embed=embed)

    @roll_command
    @app_commands.command(name="take", description="Take 10 or take 20: no roll, no spend")
    @app_commands.describe(
        pool="The pool the check uses",
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        value="10 (routine, no pressure) or 20 (unlimited time, failure harmless)",
        skill="The skill (its training from your sheet)",
        spend="Must be 0: taking 10 or 20 spends no pool points (roll `check` to spend)",
        character=ROLL_HELP["character"],
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    @app_commands.choices(pool=POOL_CHOICES)  # text choices and number choices: one call each
    @app_commands.choices(
        value=[app_commands.Choice(name=f"Take {v}", value=v) for v in sixpool.TAKE_VALUES]
    )
    async def take(
        self,
        interaction: discord.Interaction,
        pool: str,
        dc: DC,
        value: int,
        skill: SkillName | None = None,
        spend: Spend = 0,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        asker, campaign = await self.asker(interaction)
        visibility = asker.may_roll(asker.visibility(hidden=hidden, blind=blind))
        who = await asker.own_or_named(self.characters, campaign, character, "roll")
        chosen = sixpool.parse_pool(pool)
        asked = RollAsked(kind=RollKind.CHECK, pool=chosen, dc=dc, spend=spend, skill=skill)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        trained_only = await self.trained_only.skills(campaign)
        parts = sixpool.roll_modifiers(who.sheet, asked, option, trained_only)
        result = sixpool.take(parts, dc, value)
        embed = render.roll_result(result, who.name, render.roll_label(asked))
        options = {"pool": chosen.value, "dc": dc}
        roll = Roll(TAKE_KIND, result, embed, options=options, first_rolls=who.first_rolls,
                    character_id=who.id)  # fmt: skip
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    # --- contests

    @roll_command
    @app_commands.command(
        name="contest", description="A contest: both declare spends, higher total wins"
    )
    @app_commands.describe(
        pool="Your pool (and what you spend from); a GM's NPC (npc_modifier) has none",
        vs_user="The opposing player: they declare their spend privately before anyone rolls",
        vs_modifier=f"Or the opponent's total modifier, {sixpool.MODIFIER_MIN}–"
        f"{sixpool.MODIFIER_MAX} (an NPC)",
        vs_pool="The opposing player's pool (default: the same as yours)",
        spend=ROLL_HELP["spend"] + "; secret until both roll",
        skill="Your skill: its proficiency and training count, as in a check",
        vs_skill="The opposing player's skill (default: yours, if they use your pool)",
        advantage=ROLL_HELP["advantage"],
        disadvantage=ROLL_HELP["disadvantage"],
        inspiration="Spend your inspiration: advantage on this roll",
        npc_modifier="GM: challenge vs_user as an NPC with this total modifier (a tie is theirs)",
    )
    @app_commands.choices(pool=POOL_CHOICES, vs_pool=POOL_CHOICES)
    async def contest(
        self,
        interaction: discord.Interaction,
        pool: str | None = None,
        vs_user: discord.Member | None = None,
        vs_modifier: Modifier | None = None,
        vs_pool: str | None = None,
        spend: Spend = 0,
        skill: SkillName | None = None,
        vs_skill: SkillName | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        inspiration: bool = False,
        npc_modifier: Modifier | None = None,
    ) -> None:
        asked = contests.ContestAsked(pool=sixpool.parse_pool(pool) if pool else None,
                                      spend=spend, skill=skill, advantage=advantage,
                                      disadvantage=disadvantage,
                                      inspiration=inspiration)  # fmt: skip
        opponent = contests.Opponent(vs_user=vs_user, vs_pool=vs_pool, vs_skill=vs_skill,
                                     vs_modifier=vs_modifier,
                                     npc_modifier=npc_modifier)  # fmt: skip
        await contests.challenge(self, interaction, asked, opponent)

    async def press_declare(self, interaction: discord.Interaction, contest_id: int) -> None:
        """The defender's Declare button: a private choice of how many points to spend."""
        await declared.declare(self, interaction, contest_id)

    async def pick_spend(
        self, interaction: discord.Interaction, contest_id: int, spend: int, inspired: bool
    ) -> None:
        """The defender's private spend (and inspiration): both sides rolled in one
        transaction."""
        choice = declared.Declared(spend, inspired)
        await declared.pick_spend(self, interaction, contest_id, choice)

    async def press_reroll(
        self, interaction: discord.Interaction, roll_id: int, index: int
    ) -> None:
        """Inspiration's "Reroll one die": the roller spends it on a die of their latest roll."""
        await rerolls.reroll_die(self, interaction, roll_id, index)

    # --- group checks

    @app_commands.command(
        name="group", description="A group check: a Roll button for everyone; half must succeed"
    )
    @app_commands.describe(
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        pool="The pool everyone rolls (and spends from)",
        skill="The skill (each participant's own training)",
    )
    @app_commands.choices(pool=POOL_CHOICES)
    async def group(
        self,
        interaction: discord.Interaction,
        dc: DC,
        pool: str,
        skill: SkillName | None = None,
    ) -> None:
        asker, campaign = await self.asker(interaction)
        chosen = sixpool.parse_pool(pool)
        name = sixpool.skill_name(skill) if skill and skill.strip() else None
        expires_at = time.time() + GROUP_MINUTES * 60
        group = await self.groups.open(campaign, asker.channel_id, dc=dc, pool=chosen.value,
                                       skill=name, expires_at=expires_at)  # fmt: skip
        sent = await interaction.response.send_message(
            embed=render.group_check(group), view=group_view(group.id)
        )
        if sent.message_id is not None:  # to edit it as participants roll
            await self.groups.set_message(group.id, sent.message_id)

    @app_commands.command(
        name="boost", description="Lead the open group check: boost one ally before any roll"
    )
    @app_commands.describe(
        user="The ally whose roll gets your points",
        points="Your points from the check's pool, +1 each (at most Effort and the pool)",
    )
    async def boost(
        self,
        interaction: discord.Interaction,
        user: discord.Member,
        points: app_commands.Range[int, 1, sixpool.POOL_MAX],
    ) -> None:
        await groups.boost(self, interaction, user, points)

    async def press_group_roll(self, interaction: discord.Interaction, group_id: int) -> None:
        """A participant's Roll: a private choice of how many points to spend."""
        await groups.press_roll(self, interaction, group_id)

    async def pick_group_spend(
        self, interaction: discord.Interaction, group_id: int, spend: int, inspired: bool
    ) -> None:
        """Roll a participant's check with their spend (and inspiration), counted once."""
        await groups.pick_spend(self, interaction, group_id, groups.GroupAsked(spend, inspired))

    async def press_group_close(self, interaction: discord.Interaction, group_id: int) -> None:
        """The GM's Close: the result, announced to the channel."""
        await groups.close(self, interaction, group_id)

    # --- help, inspiration, rest

    @app_commands.command(name="help", description="Help an ally: advantage on their next roll")
    @app_commands.describe(
        user="The player whose character you help",
        skill="The skill you help with: you need training in it (a GM may always help)",
    )
    async def help(
        self,
        interaction: discord.Interaction,
        user: discord.Member,
        skill: SkillName | None = None,
    ) -> None:
        await training.help_ally(self, interaction, user, skill)

    @app_commands.command(
        name="trained_only", description="List or change the skills that need training (GM)"
    )
    @app_commands.describe(
        skill="A skill to list or unlist (omit to see the list)",
        trained_only="True: an untrained check in it is refused; false: anyone may try it",
    )
    async def trained_only_skills(
        self,
        interaction: discord.Interaction,
        skill: SkillName | None = None,
        trained_only: bool = True,
    ) -> None:
        await training.trained_only(self, interaction, skill, trained_only)

    @app_commands.command(name="inspire", description="Award inspiration, one at a time (GM)")
    @app_commands.describe(user="The player whose character earns it")
    async def inspire(self, interaction: discord.Interaction, user: discord.Member) -> None:
        asker, campaign = await self.asker(interaction)
        asker.require_gm("award inspiration")
        target = await self.characters.find(campaign, user_id=user.id)
        award = partial(sixpool.award_inspiration, name=target.name)
        changed = await self.characters.update(target, award)
        await interaction.response.send_message(
            embed=render.sheet_changed(changed.after, "inspired ✨ (spend it for advantage)")
        )
        for user_id in sorted({asker.user_id, target.user_id}):  # their latest roll: rerolls
            await refresh_latest_buttons(interaction, self.storage, asker.channel_id, user_id)

    @app_commands.command(name="rest", description="Refill pools to their maxima (GM)")
    @app_commands.describe(character="The character who rests (default: every character)")
    async def rest(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        asker, campaign = await self.asker(interaction)
        asker.require_gm("grant rests")
        if character is not None:
            targets = [await self.characters.find(campaign, name=character)]
        else:
            targets = await self.characters.all(campaign)
        for target in targets:
            await self.characters.update(target, sixpool.rest)
        await interaction.response.send_message(
            embed=render.rested([target.name for target in targets])
        )

    # --- odds

    @anywhere
    @app_commands.command(name="odds", description="Exact chances of 1d20 + modifier vs a DC")
    @app_commands.describe(
        modifier=f"Everything added to the d20, {sixpool.MODIFIER_MIN}–{sixpool.MODIFIER_MAX}",
        dc=f"The DC or AC, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        advantage=ROLL_HELP["advantage"],
        disadvantage=ROLL_HELP["disadvantage"],
    )
    async def odds(
        self,
        interaction: discord.Interaction,
        modifier: Modifier,
        dc: DC,
        advantage: bool = False,
        disadvantage: bool = False,
    ) -> None:
        result = sixpool.odds(modifier, dc, advantage=advantage, disadvantage=disadvantage)
        png = await draw_spec(odds_charts.sixpool_chart, result)
        await interaction.response.send_message(
            embed=render.odds(result), file=discord.File(io.BytesIO(png), filename="odds.png")
        )

    @check.autocomplete("skill")
    @contest.autocomplete("skill")
    @group.autocomplete("skill")
    @help.autocomplete("skill")
    @passive.autocomplete("skill")
    @take.autocomplete("skill")
    @trained_only_skills.autocomplete("skill")
    @CharacterCommands.character_set.autocomplete("skill")
    @suggest
    async def _skills(  # ``self``: any part of the cog, `/sixpool character set` too
        self: CharacterCommands, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the skills on the sheet (the one named, else the caller's), then the document's
        (docs/players/sixpool.md, "Skills")."""
        sheet = await sheet_being_typed_for(interaction, self.characters, sixpool.SYSTEM)
        names = matching(current, known_skills(sheet))
        return [app_commands.Choice(name=name, value=name) for name in names]

    @contest.autocomplete("vs_skill")
    @suggest
    async def _opponent_skills(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the opposing player's (``vs_user``) trained skills, then the document's."""
        sheet = await sheet_being_typed_for(
            interaction, self.characters, sixpool.SYSTEM, owner_option="vs_user"
        )
        names = matching(current, known_skills(sheet))
        return [app_commands.Choice(name=name, value=name) for name in names]


assert SixpoolCog.__cog_name__ == COG_NAME  # the persistent buttons find the cog by this name


async def _rerolls_now(interaction: discord.Interaction, logged: LoggedRoll) -> list[RerollButton]:
    cog = loaded_cog(interaction, SixpoolCog, COG_NAME, sixpool.SYSTEM.display_name)
    return await rerolls.rerolls_now(cog, interaction, logged)


# Inspiration rerolls a die of the latest roll only: the roller's next roll takes them off;
# inspiration awarded derives them anew (``bot.buttons.refresh_latest_buttons``).
for _kind in rerolls.LATEST_ONLY_KINDS:
    register_latest_only(_kind, rebuild=_rerolls_now)
