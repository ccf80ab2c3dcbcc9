"""`/sixpool`: six-pool d20 characters, checks, attacks and saves with pool spends, odds."""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.buttons import answer_component, roll_buttons
from bot.client import DiceBot
from bot.errors import CommandError
from bot.options import (
    BLIND_HELP,
    CHARACTER_NAME_HELP,
    HIDDEN_HELP,
    ID_PATTERN,
    CharacterName,
    choices_of,
    given_name,
    matching,
    stored_id,
    suggest,
)
from bot.publish import (
    Roll,
    announce,
    deliver_roll,
    publish_roll,
    roll_command,
)
from bot.render import sixpool as render
from bot.render.charts import draw_chart
from bot.render.errors import describe
from bot.render.style import shown
from bot.storage import Campaign, Character, CharacterStore, Visibility
from bot.storage.sixpool import (
    AlreadyRolled,
    BoostTooLate,
    Contest,
    ContestClosed,
    ContestOutcome,
    ContestStore,
    GroupCheck,
    GroupClosed,
    GroupNotFound,
    GroupRollOutcome,
    GroupStore,
    NotLatestRoll,
    RerollStore,
)
from bot.table import Table, campaign_channel_id
from rules import sixpool
from rules.choices import parse_choice
from rules.sheets import DataclassSheet
from rules.sixpool import Pool, RollKind, Sheet, Training
from rules.systems import System

CONTEST_MINUTES = 10  # (house) how long a defender has to declare their spend
CONTEST_KIND = "sixpool.contest"
GROUP_MINUTES = 30  # (house) how long a group check stays open if no GM closes it
GROUP_KIND = "sixpool.group"
SHEET_CODEC: DataclassSheet[Sheet] = DataclassSheet(Sheet)

SkillName = app_commands.Range[str, 1, sixpool.SKILL_NAME_MAX]
Level = app_commands.Range[int, sixpool.LEVEL_MIN, sixpool.LEVEL_MAX]
PoolSize = app_commands.Range[int, 0, sixpool.POOL_MAX]
Edge = app_commands.Range[int, sixpool.EDGE_MIN, sixpool.EDGE_MAX]
DC = app_commands.Range[int, sixpool.DC_MIN, sixpool.DC_MAX]
Spend = app_commands.Range[int, 0, sixpool.POOL_MAX]
Modifier = app_commands.Range[int, sixpool.MODIFIER_MIN, sixpool.MODIFIER_MAX]

POOL_CHOICES = choices_of(Pool)
TRAINING_CHOICES = choices_of(Training, lambda training: training.value.capitalize())
SITUATION_CHOICES = choices_of(sixpool.Situation, lambda s: s.value.capitalize())
ROLL_HELP = {
    "spend": "Pool points to spend, declared before the roll (at most Effort and the pool)",
    "advantage": "Roll 2d20 and keep the higher (one disadvantage cancels it)",
    "disadvantage": "Roll 2d20 and keep the lower (one advantage cancels it)",
    "inspiration": "Spend your inspiration for advantage on this roll",
    "character": "GMs: the character who rolls, by name (default: your own)",
    "hidden": HIDDEN_HELP,
    "blind": BLIND_HELP,
}


@dataclass(frozen=True, slots=True)
class RollAsked:
    """What a check, attack or save asks, before the sheet is read."""

    kind: RollKind
    pool: Pool
    dc: int
    spend: int = 0
    skill: str | None = None
    situation: sixpool.Situation = sixpool.Situation.NORMAL
    advantage: bool = False
    disadvantage: bool = False
    inspiration: bool = False


def _has_advantage(sheet: Sheet, asked: RollAsked) -> bool:
    """Whether any source gives advantage: the option, an ally's help, or inspiration spent."""
    return asked.advantage or sheet.helped or asked.inspiration


def _roll_notes(sheet: Sheet, asked: RollAsked) -> tuple[str, ...]:
    """Say where advantage came from, and that it cancelled against disadvantage."""
    notes = []
    if sheet.helped:
        notes.append("Helped: advantage from an ally's help (used up by this roll).")
    if asked.inspiration:
        notes.append("Inspiration spent for advantage.")
    if _has_advantage(sheet, asked) and asked.disadvantage:
        notes.append("Advantage and disadvantage cancel: a straight roll.")
    return tuple(notes)


class SixpoolCog(commands.GroupCog, group_name="sixpool", group_description="Six-pool d20"):
    """Six-pool d20: 1d20 + modifiers + pool points spent before the roll."""

    character = app_commands.Group(
        name="character", description="Create, show and change characters"
    )

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.characters: CharacterStore[Sheet] = CharacterStore(bot.storage.database, SHEET_CODEC)
        self.contests = ContestStore(bot.storage.database, SHEET_CODEC)  # type: ignore[arg-type]
        self.groups = GroupStore(bot.storage.database, SHEET_CODEC)  # type: ignore[arg-type]
        self.rerolls = RerollStore(bot.storage.database, SHEET_CODEC)  # type: ignore[arg-type]

    async def _table(self, interaction: discord.Interaction) -> tuple[Table, Campaign]:
        table = await Table.of(interaction, self.storage)
        return table, table.require_campaign(System.SIXPOOL)

    # --- characters

    @character.command(name="create", description="Create your character with full pools")
    @app_commands.rename(strength="str", dexterity="dex", constitution="con",
                         intelligence="int", wisdom="wis", charisma="cha")  # fmt: skip
    @app_commands.describe(
        name=CHARACTER_NAME_HELP,
        level=f"Level, {sixpool.LEVEL_MIN}–{sixpool.LEVEL_MAX}",
        primary="The class's primary pool (+2 Effort with it)",
        strength=f"STR pool maximum, 0–{sixpool.POOL_MAX}",
        dexterity=f"DEX pool maximum, 0–{sixpool.POOL_MAX}",
        constitution=f"CON pool maximum, 0–{sixpool.POOL_MAX}",
        intelligence=f"INT pool maximum, 0–{sixpool.POOL_MAX}",
        wisdom=f"WIS pool maximum, 0–{sixpool.POOL_MAX}",
        charisma=f"CHA pool maximum, 0–{sixpool.POOL_MAX}",
    )
    @app_commands.choices(primary=POOL_CHOICES)
    async def character_create(
        self,
        interaction: discord.Interaction,
        name: CharacterName,
        level: Level,
        primary: str,
        strength: PoolSize,
        dexterity: PoolSize,
        constitution: PoolSize,
        intelligence: PoolSize,
        wisdom: PoolSize,
        charisma: PoolSize,
    ) -> None:
        table, campaign = await self._table(interaction)
        name = given_name(name, "your character")
        maxima = dict(
            zip(
                Pool,
                (strength, dexterity, constitution, intelligence, wisdom, charisma),
                strict=True,
            )
        )
        sheet = sixpool.new_sheet(level, sixpool.parse_pool(primary), maxima)
        created = await self.characters.create(campaign, table.user_id, name, sheet)
        await interaction.response.send_message(
            embed=render.character_sheet(created, interaction.user.display_name)
        )

    @character.command(name="sheet", description="Show a character sheet (private reply)")
    @app_commands.describe(user="Whose character (default: yours)")
    async def character_sheet(
        self, interaction: discord.Interaction, user: discord.Member | None = None
    ) -> None:
        _, campaign = await self._table(interaction)
        owner = user or interaction.user
        found = await self.characters.find(campaign, user_id=owner.id)
        await interaction.response.send_message(
            embed=render.character_sheet(found, owner.display_name), ephemeral=True
        )

    @character.command(name="set", description="Change your level, a pool, its Edge or training")
    @app_commands.describe(
        level=f"New level, {sixpool.LEVEL_MIN}–{sixpool.LEVEL_MAX}",
        pool="The pool that maximum, edge and save change",
        maximum=f"The pool's new maximum, 0–{sixpool.POOL_MAX} (current points stop at it)",
        edge=f"The pool's Edge, {sixpool.EDGE_MIN}–{sixpool.EDGE_MAX}",
        save="Training in the pool's saving throw",
        skill=f"A skill to train (up to {sixpool.SKILL_NAME_MAX} characters), with training",
        training="Training in the skill (untrained removes it)",
        character="GMs: the character to change, by name (default: your own)",
    )
    @app_commands.choices(pool=POOL_CHOICES, save=TRAINING_CHOICES, training=TRAINING_CHOICES)
    async def character_set(
        self,
        interaction: discord.Interaction,
        level: Level | None = None,
        pool: str | None = None,
        maximum: PoolSize | None = None,
        edge: Edge | None = None,
        save: str | None = None,
        skill: SkillName | None = None,
        training: str | None = None,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._table(interaction)
        changes = _sheet_changes(level, pool, maximum, edge, save, skill, training)
        found = await table.own_or_named(self.characters, campaign, character, "change the sheet")

        def change(sheet: Sheet) -> Sheet:
            for step in changes:
                sheet = step(sheet)
            return sheet

        changed = await self.characters.update(found, change)
        await interaction.response.send_message(
            embed=render.character_sheet(changed.after, interaction.user.display_name)
        )

    # --- rolls

    async def _roll(
        self,
        interaction: discord.Interaction,
        asked: RollAsked,
        character: str | None,
        hidden: bool,
        blind: bool = False,
    ) -> None:
        """Spend, roll and log in one transaction, then deliver the roll (and its Reroll buttons,
        which a blind roll's roller never sees)."""
        table, campaign = await self._table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        who = await table.own_or_named(self.characters, campaign, character, "roll")
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        rng = self.bot.rng
        rolled: list[tuple[sixpool.RollResult, tuple[str, ...]]] = []

        def spend_and_roll(sheet: Sheet) -> Sheet:
            if asked.inspiration and not sheet.inspired:
                raise CommandError("You hold no inspiration to spend; a GM awards it.")
            training, label = _training(sheet, asked)
            parts = sixpool.modifiers(
                sheet,
                asked.pool,
                training,
                asked.spend,
                option,
                training_label=label,
                always_proficient=asked.kind is RollKind.ATTACK,
            )
            paid = sixpool.spend(sheet, asked.pool, asked.spend)
            result = sixpool.roll(
                rng,
                parts,
                asked.dc,
                advantage=_has_advantage(sheet, asked),
                disadvantage=asked.disadvantage,
                situation=asked.situation,
            )
            rolled.append((result, _roll_notes(sheet, asked)))
            return replace(paid, helped=False, inspired=sheet.inspired and not asked.inspiration)

        def log(after: Character[Sheet]) -> Any:
            result, notes = rolled[-1]
            embed = render.roll_result(result, who.name, _what(asked), notes)
            render.add_pool_left(embed, after.sheet, asked.pool, asked.spend)
            options = {
                "pool": asked.pool.value,
                "dc": asked.dc,
                "character": character,
                "what": _what(asked),
            }
            return Roll(f"sixpool.{asked.kind.value}", result, embed, options=options).entry(
                table, visibility
            )

        changed = await self.characters.update(who, spend_and_roll, log)
        assert changed.roll_id is not None
        logged = await self.storage.rolls.get(changed.roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        result, _ = rolled[-1]
        rerolls = _reroll_buttons(logged.id, result) if changed.after.sheet.inspired else []
        view = roll_buttons(logged.id, logged.kind, visibility, extra=rerolls)
        await deliver_roll(interaction, table, logged.id, visibility, embed, view=view)

    async def press_reroll(
        self, interaction: discord.Interaction, roll_id: int, index: int
    ) -> None:
        """Inspiration's "Reroll one die": the roller spends it on a die of their latest roll."""
        table, campaign = await self._table(interaction)
        rng = self.bot.rng

        def apply(logged: Any, who: Character[Any]) -> tuple[Sheet, Any]:
            sheet: Sheet = who.sheet
            if not sheet.inspired:
                raise CommandError(f"{who.name} holds no inspiration to spend; a GM awards it.")
            before = sixpool.RollResult(**logged.payload["result"])
            after = sixpool.reroll_die(rng, before, index)
            options = logged.payload.get("options", {})
            note = (
                f"Inspiration spent: die {index + 1} rerolled, "
                f"{before.dice[index]} → {after.dice[index]}."
            )
            what = str(options.get("what") or "roll")
            embed = render.roll_result(after, who.name, what, (note,))
            roll = Roll(logged.kind, after, embed, options=options)
            # As secret as the roll it changes: a blind roll's reroll stays blind.
            return replace(sheet, inspired=False), roll.entry(table, logged.visibility)

        try:
            new_id = await self.rerolls.reroll(
                campaign, table.channel_id, table.user_id, roll_id, apply
            )
        except NotLatestRoll as error:
            if error.owner_id is not None and error.owner_id != table.user_id:
                raise CommandError(
                    f"Only <@{error.owner_id}>, who made roll #{roll_id}, can reroll its dice."
                ) from None
            raise
        logged = await self.storage.rolls.get(new_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        view = roll_buttons(new_id, logged.kind, logged.visibility)
        await deliver_roll(interaction, table, new_id, logged.visibility, embed, view=view,
                           edit=True)  # fmt: skip

    @roll_command
    @app_commands.command(name="check", description="A skill check: 1d20 + training + points")
    @app_commands.describe(
        pool="The pool the check uses (and spends from)",
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX} (easy 10, medium 15, hard 20)",
        skill="The skill (its training from your sheet; untrained if not listed)",
        situation="Favorable −2, unfavorable +2, extreme +5 or perfect −5 to the DC",
        **{key: ROLL_HELP[key] for key in ROLL_HELP},
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
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        chosen = parse_choice(sixpool.Situation, situation or "normal", "situation")
        asked = RollAsked(RollKind.CHECK, sixpool.parse_pool(pool), dc, spend, skill, chosen,
                          advantage, disadvantage, inspiration)  # fmt: skip
        await self._roll(interaction, asked, character, hidden, blind)

    @roll_command
    @app_commands.command(name="attack", description="An attack: 1d20 + proficiency + points vs AC")
    @app_commands.describe(
        pool="STR for melee, DEX for ranged, INT/WIS/CHA for spells",
        ac=f"The target's Armor Class, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        **{key: ROLL_HELP[key] for key in ROLL_HELP},
    )
    @app_commands.choices(pool=POOL_CHOICES)
    async def attack(
        self,
        interaction: discord.Interaction,
        pool: str,
        ac: DC,
        spend: Spend = 0,
        advantage: bool = False,
        disadvantage: bool = False,
        inspiration: bool = False,
        character: CharacterName | None = None,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        asked = RollAsked(
            RollKind.ATTACK,
            sixpool.parse_pool(pool),
            ac,
            spend,
            advantage=advantage,
            disadvantage=disadvantage,
            inspiration=inspiration,
        )
        await self._roll(interaction, asked, character, hidden, blind)

    @roll_command
    @app_commands.command(name="save", description="A saving throw: 1d20 + save training + points")
    @app_commands.describe(
        pool="The save (STR shoved, DEX traps, CON poison, INT illusions, WIS charm, CHA exile)",
        dc=f"Difficulty, {sixpool.DC_MIN}–{sixpool.DC_MAX}",
        **{key: ROLL_HELP[key] for key in ROLL_HELP},
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
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        asked = RollAsked(
            RollKind.SAVE,
            sixpool.parse_pool(pool),
            dc,
            spend,
            advantage=advantage,
            disadvantage=disadvantage,
            inspiration=inspiration,
        )
        await self._roll(interaction, asked, character, hidden, blind)

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
        table, campaign = await self._table(interaction)
        who = await table.own_or_named(self.characters, campaign, character, "roll")
        asked = RollAsked(RollKind.CHECK, sixpool.parse_pool(pool), 0, 0, skill)
        parts = self._parts(campaign, who.sheet, asked)
        what = skill.strip().lower() if skill else asked.pool.value
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
    @app_commands.choices(
        pool=POOL_CHOICES,
        value=[app_commands.Choice(name=f"Take {v}", value=v) for v in sixpool.TAKE_VALUES],
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
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        table, campaign = await self._table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        who = await table.own_or_named(self.characters, campaign, character, "roll")
        asked = RollAsked(RollKind.CHECK, sixpool.parse_pool(pool), dc, spend, skill)
        result = sixpool.take(self._parts(campaign, who.sheet, asked), dc, value)
        embed = render.roll_result(result, who.name, _what(asked))
        roll = Roll("sixpool.take", result, embed, options={"pool": asked.pool.value, "dc": dc})
        await publish_roll(interaction, self.storage, table, roll, visibility)

    def _parts(
        self, campaign: Campaign, sheet: Sheet, asked: RollAsked
    ) -> tuple[sixpool.Modifier, ...]:
        training, label = _training(sheet, asked)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        return sixpool.modifiers(
            sheet, asked.pool, training, asked.spend, option, training_label=label
        )

    # --- contests

    @roll_command
    @app_commands.command(
        name="contest", description="A contest: both declare spends, higher total wins"
    )
    @app_commands.describe(
        pool="Your pool (and what you spend from)",
        vs_user="The opposing player: they declare their spend privately before anyone rolls",
        vs_modifier=f"Or the opponent's total modifier, {sixpool.MODIFIER_MIN}–"
        f"{sixpool.MODIFIER_MAX} (an NPC)",
        vs_pool="The opposing player's pool (default: the same as yours)",
        spend=ROLL_HELP["spend"] + "; secret until both roll",
        advantage=ROLL_HELP["advantage"],
        disadvantage=ROLL_HELP["disadvantage"],
    )
    @app_commands.choices(pool=POOL_CHOICES, vs_pool=POOL_CHOICES)
    async def contest(
        self,
        interaction: discord.Interaction,
        pool: str,
        vs_user: discord.Member | None = None,
        vs_modifier: Modifier | None = None,
        vs_pool: str | None = None,
        spend: Spend = 0,
        advantage: bool = False,
        disadvantage: bool = False,
    ) -> None:
        table, campaign = await self._table(interaction)
        if (vs_user is None) == (vs_modifier is None):
            raise CommandError("Name the opponent once: `vs_user` (a player) or `vs_modifier`.")
        chosen = sixpool.parse_pool(pool)
        who = await self.characters.find(campaign, user_id=table.user_id)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        if vs_modifier is not None:
            if vs_pool is not None:
                raise CommandError("`vs_pool` goes with `vs_user`; with `vs_modifier` omit it.")
            await self._contest_npc(
                interaction, table, who, chosen, option, vs_modifier, spend, advantage, disadvantage
            )
            return
        assert vs_user is not None
        defender = await self.characters.find(campaign, user_id=vs_user.id)
        if defender.id == who.id:
            raise CommandError("A contest needs an opponent: you can't contest yourself.")
        sixpool.spend(who.sheet, chosen, spend)  # refuse a spend you can't pay now
        defending = sixpool.parse_pool(vs_pool) if vs_pool else chosen
        contest = await self.contests.open(
            campaign,
            table.channel_id,
            who,  # type: ignore[arg-type]
            defender,  # type: ignore[arg-type]
            pool=chosen.value,
            defender_pool=defending.value,
            spend=spend,
            advantage=advantage,
            disadvantage=disadvantage,
            expires_at=time.time() + CONTEST_MINUTES * 60,
        )
        what = f"{chosen} vs {defending}"
        await interaction.response.send_message(
            f"⚔️ Contest #{contest.id} sent to {defender.name}: your spend ({spend}) stays "
            "secret until both roll.",
            ephemeral=True,
        )
        view = discord.ui.View(timeout=None)
        view.add_item(DeclareButton(contest.id))
        view.stop()
        assert interaction.channel is not None
        prompt = await interaction.channel.send(  # type: ignore[union-attr]
            content=f"<@{defender.user_id}>",
            embed=render.contest_prompt(who.name, defender.user_id, what, CONTEST_MINUTES),
            view=view,
        )
        await self.contests.set_message(contest.id, prompt.id)

    async def _contest_npc(
        self,
        interaction: discord.Interaction,
        table: Table,
        who: Character[Sheet],
        pool: Pool,
        option: sixpool.EdgeOption,
        vs_modifier: int,
        spend: int,
        advantage: bool,
        disadvantage: bool,
    ) -> None:
        """A contest against a bare modifier: spend and both rolls in one transaction."""
        rng = self.bot.rng
        rolled: list[sixpool.ContestResult] = []

        def spend_and_roll(sheet: Sheet) -> Sheet:
            parts = sixpool.modifiers(
                sheet, pool, Training.UNTRAINED, spend, option, training_label="contest"
            )
            paid = sixpool.spend(sheet, pool, spend)
            opponent = (sixpool.Modifier("opponent's modifier", vs_modifier),)
            rolled.append(
                sixpool.contest(
                    rng, parts, opponent, advantage=advantage, disadvantage=disadvantage
                )
            )
            return paid

        def log(after: Character[Sheet]) -> Any:
            embed = render.contest(rolled[-1], who.name, "Opponent", f"{pool} contest")
            render.add_pool_left(embed, after.sheet, pool, spend)
            # Public: the opponent takes part and sees the outcome (README, "Blind rolls").
            return Roll(CONTEST_KIND, rolled[-1], embed).entry(table, Visibility.PUBLIC)

        changed = await self.characters.update(who, spend_and_roll, log)
        assert changed.roll_id is not None
        logged = await self.storage.rolls.get(changed.roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        await deliver_roll(interaction, table, logged.id, Visibility.PUBLIC, embed)

    async def _open_contest(self, interaction: discord.Interaction, contest_id: int) -> Contest:
        """Return a pending contest the presser defends, or refuse (privately)."""
        contest = await self.contests.get(contest_id)
        defender = await self.characters.by_id(contest.defender_id)
        if defender.user_id != interaction.user.id:
            raise CommandError(f"Only <@{defender.user_id}> declares a spend in this contest.")
        if contest.status == "pending" and contest.expires_at <= time.time():
            await self.contests.expire(contest_id, time.time())
            await self._close_prompt(interaction, contest, "⌛ Expired: nothing was spent.")
            raise ContestClosed(contest_id, "expired")
        if contest.status != "pending":
            raise ContestClosed(contest_id, contest.status)
        return contest

    async def _close_prompt(
        self, interaction: discord.Interaction, contest: Contest, text: str
    ) -> None:
        """Take the Declare button off the contest's prompt in the channel."""
        channel = interaction.channel
        if contest.message_id is None or channel is None:
            return
        try:
            message = channel.get_partial_message(contest.message_id)  # type: ignore[union-attr]
            await message.edit(content=text, view=None)
        except discord.HTTPException:  # the prompt was deleted: nothing to tidy
            pass

    async def press_declare(self, interaction: discord.Interaction, contest_id: int) -> None:
        """The defender's Declare button: a private choice of how many points to spend."""
        contest = await self._open_contest(interaction, contest_id)
        defender = await self.characters.by_id(contest.defender_id)
        pool = Pool(contest.defender_pool)
        most = min(defender.sheet.effort(pool), defender.sheet.points(pool))
        view = discord.ui.View(timeout=None)
        view.add_item(SpendSelect(contest_id, most))
        view.stop()
        await interaction.response.send_message(
            f"How many {pool} points do you spend? (Effort and your pool allow {most}; "
            "your choice stays private until both roll.)",
            view=view,
            ephemeral=True,
        )

    async def pick_spend(
        self, interaction: discord.Interaction, contest_id: int, spend: int
    ) -> None:
        """The defender's private spend: both spends and both rolls in one transaction."""
        contest = await self._open_contest(interaction, contest_id)
        table, campaign = await self._table(interaction)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        rng = self.bot.rng

        def decide(
            found: Contest, challenger: Character[Any], defender: Character[Any]
        ) -> ContestOutcome:
            pool, defending = Pool(found.pool), Pool(found.defender_pool)
            attack = sixpool.modifiers(
                challenger.sheet, pool, Training.UNTRAINED, found.spend, option,
                training_label="contest",
            )  # fmt: skip
            defence = sixpool.modifiers(
                defender.sheet, defending, Training.UNTRAINED, spend, option,
                training_label="contest",
            )  # fmt: skip
            paid = sixpool.spend(challenger.sheet, pool, found.spend)
            held = sixpool.spend(defender.sheet, defending, spend)
            result = sixpool.contest(
                rng, attack, defence, advantage=found.advantage, disadvantage=found.disadvantage
            )
            embed = render.contest(result, challenger.name, defender.name, f"{pool} vs {defending}")
            render.add_pool_left(embed, paid, pool, found.spend)
            render.add_pool_left(embed, held, defending, spend)
            entry = Roll(CONTEST_KIND, result, embed).entry(table, Visibility.PUBLIC)
            return ContestOutcome(paid, held, entry)

        resolved, roll_id = await self.contests.resolve(contest.id, time.time(), decide)
        logged = await self.storage.rolls.get(roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        embed.set_footer(text=f"Roll #{roll_id}")
        try:
            await interaction.response.edit_message(
                content=f"✅ You spend {spend}. The result is in the channel.", view=None
            )
            await self._close_prompt(interaction, resolved, "⚔️ Both declared: the dice are rolled.")
        finally:  # the contest is settled and logged: the channel hears it whatever else fails
            await announce(interaction, embed)

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
        table, campaign = await self._table(interaction)
        chosen = sixpool.parse_pool(pool)
        name = " ".join(skill.split()).lower() if skill and skill.strip() else None
        group = await self.groups.open(
            campaign,
            table.channel_id,
            dc=dc,
            pool=chosen.value,
            skill=name,
            expires_at=time.time() + GROUP_MINUTES * 60,
        )
        sent = await interaction.response.send_message(
            embed=render.group_check(group), view=_group_view(group.id)
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
        table, campaign = await self._table(interaction)
        group = await self.groups.open_in(campaign, table.channel_id)
        leader = await self.characters.find(campaign, user_id=table.user_id)
        ally = await self.characters.find(campaign, user_id=user.id)
        if ally.id == leader.id:
            raise CommandError("A leader boosts an ally, not themselves.")
        pool = Pool(group.pool)
        boosted = await self.groups.boost(
            group.id,
            time.time(),
            leader,  # type: ignore[arg-type]
            ally,  # type: ignore[arg-type]
            points,
            lambda sheet: sixpool.spend(sheet, pool, points),  # type: ignore[arg-type]
        )
        await interaction.response.send_message(
            f"🫡 {leader.name} leads: +{points} on {ally.name}'s roll ({points} {pool} spent)."
        )
        await self._refresh_group(interaction, boosted)

    async def _refresh_group(self, interaction: discord.Interaction, group: GroupCheck) -> None:
        """Edit the group check's message to show its rolls (and result, once closed)."""
        channel = interaction.channel
        if group.message_id is None or channel is None:
            return
        view = None if group.status == "closed" else _group_view(group.id)
        try:
            message = channel.get_partial_message(group.message_id)  # type: ignore[union-attr]
            await message.edit(embed=render.group_check(group), view=view)
        except discord.HTTPException:  # the message was deleted: the result is announced anyway
            pass

    async def _close_group(self, interaction: discord.Interaction, group_id: int) -> GroupCheck:
        """Close a group check, show its result, and announce it (once)."""
        closed, now = await self.groups.close(group_id)
        if now:
            await self._refresh_group(interaction, closed)
            await announce(interaction, render.group_check(closed))
        return closed

    async def press_group_roll(self, interaction: discord.Interaction, group_id: int) -> None:
        """A participant's Roll: a private choice of how many points to spend."""
        group = await self.groups.get(group_id)
        if group.status != "open" or group.expires_at <= time.time():
            await self._close_group(interaction, group_id)
            raise GroupClosed(group_id)
        table, campaign = await self._table(interaction)
        who = await self.characters.find(campaign, user_id=table.user_id)
        if any(roll.character_id == who.id for roll in group.rolls):
            raise AlreadyRolled(who.name)
        pool = Pool(group.pool)
        most = min(who.sheet.effort(pool), who.sheet.points(pool))
        view = discord.ui.View(timeout=None)
        view.add_item(GroupSpendSelect(group_id, most))
        view.stop()
        await interaction.response.send_message(
            f"Rolling {pool} for the group: how many points do you spend? (up to {most})",
            view=view,
            ephemeral=True,
        )

    async def pick_group_spend(
        self, interaction: discord.Interaction, group_id: int, spend: int
    ) -> None:
        """Roll a participant's check with their spend, counted once, and update the message."""
        table, campaign = await self._table(interaction)
        who = await self.characters.find(campaign, user_id=table.user_id)
        option = campaign.settings.get(sixpool.EDGE_OPTION)
        rng = self.bot.rng

        def decide(group: GroupCheck, current: Character[Any]) -> GroupRollOutcome:
            pool = Pool(group.pool)
            asked = RollAsked(RollKind.CHECK, pool, group.dc, spend, group.skill)
            training, label = _training(current.sheet, asked)
            parts = sixpool.modifiers(
                current.sheet, pool, training, spend, option, training_label=label
            )
            if group.boosted_id == current.id and group.boost:
                parts = (*parts, sixpool.Modifier("the leader's boost", group.boost))
            paid = sixpool.spend(current.sheet, pool, spend)
            result = sixpool.roll(rng, parts, group.dc, advantage=current.sheet.helped)
            embed = render.roll_result(result, current.name, f"group {_what(asked)}")
            render.add_pool_left(embed, paid, pool, spend)
            entry = Roll(GROUP_KIND, result, embed).entry(table, Visibility.PUBLIC)
            after = replace(paid, helped=False)
            return GroupRollOutcome(after, entry, result.total, result.success)

        try:
            group, roll_id = await self.groups.roll(group_id, time.time(), who, decide)  # type: ignore[arg-type]
        except GroupClosed:
            await self._close_group(interaction, group_id)
            raise
        logged = await self.storage.rolls.get(roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        embed.set_footer(text=f"Roll #{roll_id}")
        await interaction.response.edit_message(content=None, embed=embed, view=None)
        await self._refresh_group(interaction, group)

    async def press_group_close(self, interaction: discord.Interaction, group_id: int) -> None:
        """The GM's Close: the result, announced to the channel."""
        table = await Table.of(interaction, self.storage)
        table.require_campaign(System.SIXPOOL)
        table.require_gm("close a group check")
        closed = await self._close_group(interaction, group_id)
        successes = sum(roll.success for roll in closed.rolls)
        await interaction.response.send_message(
            f"Closed: {successes} of {len(closed.rolls)} succeeded.", ephemeral=True
        )

    # --- help, inspiration, rest

    @app_commands.command(name="help", description="Help an ally: advantage on their next roll")
    @app_commands.describe(user="The player whose character you help")
    async def help(self, interaction: discord.Interaction, user: discord.Member) -> None:
        table, campaign = await self._table(interaction)
        helper = await self.characters.find(campaign, user_id=table.user_id)
        target = await self.characters.find(campaign, user_id=user.id)
        if target.id == helper.id:
            raise CommandError("You can't help yourself; help an ally.")
        changed = await self.characters.update(target, lambda sheet: replace(sheet, helped=True))
        embed = render.sheet_changed(
            changed.after, f"helped by {helper.name}: advantage on the next roll"
        )
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="inspire", description="Award inspiration, one at a time (GM)")
    @app_commands.describe(user="The player whose character earns it")
    async def inspire(self, interaction: discord.Interaction, user: discord.Member) -> None:
        table, campaign = await self._table(interaction)
        table.require_gm("award inspiration")
        target = await self.characters.find(campaign, user_id=user.id)

        def award(sheet: Sheet) -> Sheet:
            if sheet.inspired:
                raise CommandError(
                    f"{target.name} already holds inspiration: one at a time. "
                    "It is spent for advantage with `inspiration: true`."
                )
            return replace(sheet, inspired=True)

        changed = await self.characters.update(target, award)
        await interaction.response.send_message(
            embed=render.sheet_changed(changed.after, "inspired ✨ (spend it for advantage)")
        )

    @app_commands.command(name="rest", description="Refill pools to their maxima (GM)")
    @app_commands.describe(character="The character who rests (default: every character)")
    async def rest(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        table, campaign = await self._table(interaction)
        table.require_gm("grant rests")
        if character is not None:
            targets = [await self.characters.find(campaign, name=character)]
        else:
            targets = await self.characters.all(campaign)
        for target in targets:
            await self.characters.update(target, sixpool.rest)
        names = ", ".join(shown(target.name) for target in targets) or "nobody (no characters yet)"
        await interaction.response.send_message(
            embed=discord.Embed(title="🛏️ Rest: pools refilled", description=names[:4000])
        )

    # --- odds

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
        png = await draw_chart(
            result.rolls,
            result.outcomes,
            title=f"Kept d20 (+{modifier} vs DC {dc})",
            marker=max(1, min(dc - modifier, sixpool.DIE_SIDES)),
            marker_label=f"needs {dc - modifier}",
        )
        await interaction.response.send_message(
            embed=render.odds(result), file=discord.File(io.BytesIO(png), filename="odds.png")
        )

    @check.autocomplete("skill")
    @passive.autocomplete("skill")
    @take.autocomplete("skill")
    @character_set.autocomplete("skill")
    @suggest
    async def _skills(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the skills on the caller's sheet."""
        campaign = await self.storage.campaigns.active(campaign_channel_id(interaction))
        if campaign is None or campaign.system is not System.SIXPOOL:
            return []
        found = await self.characters.find(campaign, user_id=interaction.user.id)
        names = list(found.sheet.skills)
        return [app_commands.Choice(name=name, value=name) for name in matching(current, names)]


def _training(sheet: Sheet, asked: RollAsked) -> tuple[Training, str]:
    """Return the training that applies and what it is for (a skill, the save, the attack)."""
    if asked.kind is RollKind.SAVE:
        return sheet.save_training(asked.pool), f"{asked.pool} save"
    if asked.kind is RollKind.ATTACK:
        return Training.TRAINED, "attack"
    if asked.skill:
        return sheet.skill_training(asked.skill), asked.skill.strip().lower()
    return Training.UNTRAINED, "no skill"


def _what(asked: RollAsked) -> str:
    if asked.kind is RollKind.SAVE:
        return f"{asked.pool} save"
    if asked.kind is RollKind.ATTACK:
        return f"{asked.pool} attack vs AC {asked.dc}"
    skill = f" ({asked.skill.strip().lower()})" if asked.skill else ""
    return f"{asked.pool} check{skill}"


def _sheet_changes(
    level: int | None,
    pool: str | None,
    maximum: int | None,
    edge: int | None,
    save: str | None,
    skill: str | None,
    training: str | None,
) -> list[Callable[[Sheet], Sheet]]:
    """Return the sheet changes `/sixpool character set` asks for, or refuse a bad mix."""
    steps: list[Callable[[Sheet], Sheet]] = []
    if level is not None:
        steps.append(lambda sheet: sixpool.set_level(sheet, level))
    per_pool = {"maximum": maximum, "edge": edge, "save": save}
    if any(value is not None for value in per_pool.values()):
        if pool is None:
            raise CommandError("`maximum`, `edge` and `save` change one pool: give `pool` too.")
        chosen = sixpool.parse_pool(pool)
        if maximum is not None:
            steps.append(lambda sheet: sixpool.set_pool_maximum(sheet, chosen, maximum))
        if edge is not None:
            steps.append(lambda sheet: sixpool.set_edge(sheet, chosen, edge))
        if save is not None:
            trained = parse_choice(Training, save, "save")
            steps.append(lambda sheet: sixpool.set_save(sheet, chosen, trained))
    elif pool is not None:
        raise CommandError("With `pool`, say what changes: `maximum`, `edge` or `save`.")
    if (skill is None) != (training is None):
        raise CommandError("`skill` and `training` go together.")
    if skill is not None and training is not None:
        skill_training = parse_choice(Training, training, "training")
        steps.append(lambda sheet: sixpool.set_skill(sheet, skill, skill_training))
    if not steps:
        raise CommandError("Say what to change: level, a pool's maximum, edge or save, or a skill.")
    return steps


def _cog(interaction: discord.Interaction) -> SixpoolCog:
    cog = interaction.client.get_cog(SixpoolCog.__cog_name__)  # type: ignore[attr-defined]
    if not isinstance(cog, SixpoolCog):
        raise CommandError("Six-pool d20 is not loaded; try again in a moment.")
    return cog


class DeclareButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"sixpool:contest:(?P<contest_id>{ID_PATTERN})",
):
    """On a contest's prompt: the defender opens their private spend choice (persistent)."""

    def __init__(self, contest_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Declare my spend",
                emoji="🤫",
                style=discord.ButtonStyle.primary,
                custom_id=f"sixpool:contest:{contest_id}",
            )
        )
        self.contest_id = contest_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DeclareButton:
        return cls(int(match["contest_id"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_component(
            interaction,
            lambda: _cog(interaction).press_declare(
                interaction, stored_id(self.contest_id, "contest")
            ),
        )


class SpendSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"sixpool:spend:(?P<contest_id>{ID_PATTERN}):(?P<most>[0-9]{{1,2}})",
):
    """The defender's private choice of spend, 0 to what Effort and the pool allow."""

    def __init__(self, contest_id: int, most: int) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"sixpool:spend:{contest_id}:{most}",
                placeholder="Points to spend",
                options=[
                    discord.SelectOption(label=f"Spend {n}", value=str(n)) for n in range(most + 1)
                ],
            )
        )
        self.contest_id = contest_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SpendSelect:
        return cls(int(match["contest_id"]), min(int(match["most"]), 24))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def pick() -> None:
            values = (interaction.data or {}).get("values") or ["0"]
            contest_id = stored_id(self.contest_id, "contest")
            spend = sixpool_spend(values[0])
            await _cog(interaction).pick_spend(interaction, contest_id, spend)

        await answer_component(interaction, pick)


def sixpool_spend(value: object) -> int:
    """Read a spend picked in the select (a client can send anything: refuse non-numbers)."""
    text = str(value)
    if not text.isdigit() or len(text) > 2:
        raise CommandError("Pick a number of points from the list.")
    return int(text)


def _reroll_buttons(roll_id: int, result: sixpool.RollResult) -> list[RerollButton]:
    """Offer inspiration's reroll on each die of a roll (its holder decides after seeing it)."""
    if result.take is not None:
        return []
    return [RerollButton(roll_id, index, face) for index, face in enumerate(result.dice)]


class RerollButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"sixpool:reroll:(?P<roll_id>{ID_PATTERN}):(?P<index>[01])",
):
    """Under a roll whose roller holds inspiration: spend it to reroll this die (persistent)."""

    def __init__(self, roll_id: int, index: int, face: int | None = None) -> None:
        shown = f" ({face})" if face is not None else ""
        super().__init__(
            discord.ui.Button(
                label=f"Reroll die {index + 1}{shown}",
                emoji="✨",
                style=discord.ButtonStyle.secondary,
                custom_id=f"sixpool:reroll:{roll_id}:{index}",
            )
        )
        self.roll_id = roll_id
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RerollButton:
        return cls(int(match["roll_id"]), int(match["index"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await answer_component(
            interaction,
            lambda: _cog(interaction).press_reroll(
                interaction, stored_id(self.roll_id, "roll"), self.index
            ),
        )


def _group_view(group_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(GroupButton(group_id, "roll"))
    view.add_item(GroupButton(group_id, "close"))
    view.stop()
    return view


class GroupButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"sixpool:group:(?P<group_id>{ID_PATTERN}):(?P<action>roll|close)",
):
    """Under a group check: Roll (each participant, once) and Close (a GM); persistent."""

    def __init__(self, group_id: int, action: str) -> None:
        roll = action == "roll"
        super().__init__(
            discord.ui.Button(
                label="Roll" if roll else "Close (GM)",
                emoji="🎲" if roll else "🏁",
                style=discord.ButtonStyle.primary if roll else discord.ButtonStyle.secondary,
                custom_id=f"sixpool:group:{group_id}:{action}",
            )
        )
        self.group_id = group_id
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GroupButton:
        return cls(int(match["group_id"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = _cog(interaction)
        press = cog.press_group_roll if self.action == "roll" else cog.press_group_close
        await answer_component(
            interaction, lambda: press(interaction, stored_id(self.group_id, "group check"))
        )


class GroupSpendSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"sixpool:groupspend:(?P<group_id>{ID_PATTERN}):(?P<most>[0-9]{{1,2}})",
):
    """A participant's private choice of spend for their group roll."""

    def __init__(self, group_id: int, most: int) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"sixpool:groupspend:{group_id}:{most}",
                placeholder="Points to spend, then roll",
                options=[
                    discord.SelectOption(label=f"Roll, spending {n}", value=str(n))
                    for n in range(most + 1)
                ],
            )
        )
        self.group_id = group_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GroupSpendSelect:
        return cls(int(match["group_id"]), min(int(match["most"]), 24))

    async def callback(self, interaction: discord.Interaction) -> None:
        async def pick() -> None:
            values = (interaction.data or {}).get("values") or ["0"]
            group_id = stored_id(self.group_id, "group check")
            spend = sixpool_spend(values[0])
            await _cog(interaction).pick_group_spend(interaction, group_id, spend)

        await answer_component(interaction, pick)


@describe.register
def _(error: NotLatestRoll) -> str:
    return (
        f"Roll #{error.roll_id} is no longer your latest roll here: inspiration rerolls a die of "
        "your latest roll, once."
    )


@describe.register
def _(error: GroupClosed) -> str:
    return f"Group check #{error.group_id} is closed: its result is in the channel."


@describe.register
def _(error: GroupNotFound) -> str:
    return "There is no open group check here; start one with `/sixpool group`."


@describe.register
def _(error: AlreadyRolled) -> str:
    return f"{error.name} has rolled in this group check already: once each."


@describe.register
def _(error: BoostTooLate) -> str:
    if error.rolled:
        return "Too late to boost: a leader boosts before any die of the group check is rolled."
    return "This group check has its leader's boost already: one leader, one boost."


@describe.register
def _(error: ContestClosed) -> str:
    if error.status == "expired":
        return f"Contest #{error.contest_id} expired: nothing was spent. Start a new one."
    return f"Contest #{error.contest_id} is settled already: its dice were rolled."


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(DeclareButton, SpendSelect, GroupButton, GroupSpendSelect, RerollButton)
    await bot.add_cog(SixpoolCog(bot))
