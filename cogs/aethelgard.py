"""`/aethelgard`: d10 success-counting pools in the document's display format, and odds."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.anywhere import anywhere, anywhere_group
from bot.asker import Asker
from bot.buttons import Reroller, register_reroll
from bot.character_admin import CharacterAdmin, DeleteButton
from bot.client import DiceBot
from bot.errors import CommandError
from bot.options import (
    BLIND_HELP,
    CHARACTER_NAME_HELP,
    HIDDEN_HELP,
    NEW_NAME_HELP,
    WHOSE_CHARACTER_HELP,
    CharacterName,
    character_name,
    matching,
    suggest,
)
from bot.publish import Roll, publish_roll, roll_command
from bot.render import aethelgard as render
from bot.render import odds_charts
from bot.render.charts import draw_spec
from bot.storage import Campaign, Character, CharacterStore, Visibility
from bot.suggestions import sheet_being_typed_for
from rules import aethelgard
from rules.aethelgard import Attribute, Pool, PoolPart, Sheet
from rules.sheets import DataclassSheet

SHEET_CODEC: DataclassSheet[Sheet] = DataclassSheet(Sheet)
SkillName = app_commands.Range[str, 1, aethelgard.SKILL_NAME_MAX]
AttributeScore = app_commands.Range[int, aethelgard.ATTRIBUTE_MIN, aethelgard.ATTRIBUTE_MAX]
TraumaChange = app_commands.Range[int, -aethelgard.TRAUMA_MAX, aethelgard.TRAUMA_MAX]
ATTRIBUTE_CHOICES = [app_commands.Choice(name=a.value, value=a.value) for a in Attribute]
PoolSize = app_commands.Range[int, 1, aethelgard.MAX_POOL]
DC = app_commands.Range[int, 0, aethelgard.DC_MAX]
ModifierDice = app_commands.Range[int, 0, aethelgard.MODIFIER_DICE_MAX]
Label = app_commands.Range[str, 1, 100]
TRAUMA_HELP = f"Points, −{aethelgard.TRAUMA_MAX}…{aethelgard.TRAUMA_MAX}; each full 20 costs a die"
POOL_HELP = f"Dice in the pool, 1–{aethelgard.MAX_POOL}"
BONUS_HELP = "Bonus dice added to the pool (they stack)"
PENALTY_HELP = "Penalty dice removed from the pool (at least 1 die stays)"
ATTRIBUTE_RANGE = f"{aethelgard.ATTRIBUTE_MIN}–{aethelgard.ATTRIBUTE_MAX}"
SkillsText = app_commands.Range[str, 0, 400]


def _pool_roll(
    kind: str,
    result: aethelgard.PoolRoll,
    pool: Pool,
    label: str,
    roller: str,
    options: CheckOptions | RollOptions,
) -> Roll:
    """A pool roll to publish: a critical or fumble is in its title, never announced apart
    (docs/players/index.md, "Buttons and announcements")."""
    embed = render.roll_result(result, pool, label, roller)
    return Roll(kind, result, embed, options=asdict(options))


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckOptions:
    """`/aethelgard check`'s options, as logged for Roll again."""

    attribute: str
    skill: str | None = None
    dc: int = aethelgard.DEFAULT_DC
    bonus: int = 0
    penalty: int = 0
    character: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RollOptions:
    """`/aethelgard roll`'s options, as logged for Roll again."""

    pool: int
    dc: int = aethelgard.DEFAULT_DC
    bonus: int = 0
    penalty: int = 0
    label: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class OpposedOptions:
    """`/aethelgard opposed`'s options, as logged for Roll again."""

    pool: int
    vs_pool: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AttackOptions:
    """`/aethelgard attack`'s options, as logged for Roll again."""

    accuracy: int
    defense: int
    damage: int
    soak: int = 0
    block: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CraftOptions:
    """`/aethelgard craft`'s options, as logged for Roll again."""

    pool: int
    bonus: int = 0


Options = CheckOptions | RollOptions | OpposedOptions | AttackOptions | CraftOptions


def _again(run: Callable[..., Awaitable[None]], options_type: type[Options]) -> Reroller:
    """Return what Roll again runs: the command's body, with the options the roll logged and
    as secret as it was (a roll logged before Roll again existed here is refused)."""

    def reroll(
        interaction: discord.Interaction, options: Mapping[str, Any], seen: Visibility
    ) -> Awaitable[None]:
        try:
            asked = options_type(**options)
        except TypeError:
            raise CommandError(
                "This roll can't be rolled again; use its command instead."
            ) from None
        return run(interaction, asked, seen)

    return reroll


def _bare(dice: int, label: str = "pool", bonus: int = 0, penalty: int = 0) -> Pool:
    return aethelgard.build_pool((PoolPart(label, dice),), bonus=bonus, penalty=penalty)


@anywhere_group
class AethelgardCog(
    commands.GroupCog, group_name="aethelgard", group_description="Aethelgard d10 pools"
):
    """Aethelgard: count 8-10 as successes and 1s as botches."""

    character = app_commands.Group(
        name="character", description="Create, show, edit, rename, delete and give characters"
    )
    stress = app_commands.Group(name="stress", description="Psychic Stress (GM)")
    corruption = app_commands.Group(name="corruption", description="Runic Blight Corruption (GM)")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.characters: CharacterStore[Sheet] = CharacterStore(bot.storage.database, SHEET_CODEC)
        self.admin = CharacterAdmin(bot.storage, aethelgard.SYSTEM, self.characters)
        for kind, reroller in {
            aethelgard.CHECK_KIND: _again(self.run_check, CheckOptions),
            aethelgard.ROLL_KIND: _again(self.run_roll, RollOptions),
            aethelgard.OPPOSED_KIND: _again(self.run_opposed, OpposedOptions),
            aethelgard.ATTACK_KIND: _again(self.run_attack, AttackOptions),
            aethelgard.CRAFT_KIND: _again(self.run_craft, CraftOptions),
        }.items():
            register_reroll(bot, kind, reroller)

    async def cog_unload(self) -> None:
        self.admin.close()

    async def _table(self, interaction: discord.Interaction) -> tuple[Asker, Campaign]:
        asker = await Asker.of(interaction, self.storage)
        return asker, asker.require_campaign(aethelgard.SYSTEM)

    async def _trauma(self, campaign: Campaign, character: Character[Sheet]) -> tuple[int, int]:
        """Return the character's Psychic Stress and Runic Blight Corruption."""
        stress = await self.storage.tracks.value(
            campaign, aethelgard.STRESS.name, character_id=character.id
        )
        corruption = await self.storage.tracks.value(
            campaign, aethelgard.CORRUPTION.name, character_id=character.id
        )
        return stress, corruption

    @character.command(name="create", description="Create your character")
    @app_commands.describe(
        name=CHARACTER_NAME_HELP,
        **{a.value.lower(): f"{a.value}, {ATTRIBUTE_RANGE}" for a in Attribute},
        skills="Skills with ranks 0–5, as 'System Bypass 3; Stealth 2'",
    )
    async def character_create(
        self,
        interaction: discord.Interaction,
        name: CharacterName,
        might: AttributeScore,
        finesse: AttributeScore,
        wits: AttributeScore,
        will: AttributeScore,
        sturdiness: AttributeScore,
        skills: SkillsText = "",
    ) -> None:
        asker, campaign = await self._table(interaction)
        name = character_name(name)
        scores = (might, finesse, wits, will, sturdiness)
        sheet = Sheet(
            {a.value: score for a, score in zip(Attribute, scores, strict=True)},
            aethelgard.parse_skills(skills),
        )
        created = await self.characters.create(campaign, asker.user_id, name, sheet)
        embed = render.character_sheet(created, 0, 0, interaction.user.display_name)
        await interaction.response.send_message(embed=embed)

    @character.command(
        name="edit", description="Fix a sheet: yours before its first roll, then a GM's (announced)"
    )
    @app_commands.describe(
        **{a.value.lower(): f"New {a.value}, {ATTRIBUTE_RANGE}" for a in Attribute},
        skills="Skills to change, as 'Melee 3; Stealth 0' (0 takes one off)",
        character=WHOSE_CHARACTER_HELP,
    )
    async def character_edit(
        self,
        interaction: discord.Interaction,
        might: AttributeScore | None = None,
        finesse: AttributeScore | None = None,
        wits: AttributeScore | None = None,
        will: AttributeScore | None = None,
        sturdiness: AttributeScore | None = None,
        skills: SkillsText | None = None,
        character: CharacterName | None = None,
    ) -> None:
        given = zip(Attribute, (might, finesse, wits, will, sturdiness), strict=True)
        scores = {attribute: value for attribute, value in given if value is not None}
        if not scores and skills is None:
            raise CommandError("Give at least one new value: an attribute or `skills`.")
        edit = partial(aethelgard.edit_sheet, attributes=scores, skills=skills)
        await self.admin.edit(interaction, character, lambda sheet, _: edit(sheet))

    @character.command(name="rename", description="Rename a character (yours, or any as GM)")
    @app_commands.describe(new_name=NEW_NAME_HELP, character=WHOSE_CHARACTER_HELP)
    async def character_rename(
        self, interaction: discord.Interaction, new_name: CharacterName,
        character: CharacterName | None = None,
    ) -> None:  # fmt: skip
        await self.admin.rename(interaction, character, new_name)

    @character.command(name="delete", description="Delete a character, once you confirm")
    @app_commands.describe(character=WHOSE_CHARACTER_HELP)
    async def character_delete(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        await self.admin.ask_delete(interaction, character)

    @character.command(name="give", description="Give a character to another player (GM)")
    @app_commands.describe(character="The character, by name", user="The new owner")
    async def character_give(
        self, interaction: discord.Interaction, character: CharacterName, user: discord.Member
    ) -> None:
        await self.admin.give(interaction, character, user)

    @character.command(name="sheet", description="Show a character sheet (private reply)")
    @app_commands.describe(user="Whose character (default: yours)")
    async def character_sheet(
        self, interaction: discord.Interaction, user: discord.Member | None = None
    ) -> None:
        _, campaign = await self._table(interaction)
        owner = user or interaction.user
        found = await self.characters.find(campaign, user_id=owner.id)
        stress, corruption = await self._trauma(campaign, found)
        embed = render.character_sheet(found, stress, corruption, owner.display_name)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @roll_command
    @app_commands.command(name="check", description="Roll a character's pool from the sheet")
    @app_commands.describe(
        attribute="The attribute the pool starts from",
        skill="A skill on the sheet or the document's (suggested); its rank adds dice",
        dc=f"Net successes needed, 0–{aethelgard.DC_MAX} (default 1)",
        bonus=BONUS_HELP,
        penalty=PENALTY_HELP,
        character="GMs: the character who rolls, by name (default: your own)",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    @app_commands.choices(attribute=ATTRIBUTE_CHOICES)
    async def check(
        self,
        interaction: discord.Interaction,
        attribute: str,
        skill: SkillName | None = None,
        dc: DC = aethelgard.DEFAULT_DC,
        bonus: ModifierDice = 0,
        penalty: ModifierDice = 0,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = CheckOptions(
            attribute=attribute, skill=skill, dc=dc, bonus=bonus, penalty=penalty,
            character=character,
        )  # fmt: skip
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_check(interaction, options, visibility)

    async def run_check(
        self,
        interaction: discord.Interaction,
        options: CheckOptions,
        visibility: Visibility,
    ) -> None:
        """Roll a character's pool: the command and its Roll again button."""
        asker, campaign = await self._table(interaction)
        asker.may_roll(visibility)
        which = aethelgard.parse_attribute(options.attribute)
        who = await asker.own_or_named(self.characters, campaign, options.character, "roll")
        stress, corruption = await self._trauma(campaign, who)
        skill = options.skill
        pool = aethelgard.check_pool(
            who.sheet, which, skill, bonus=options.bonus, penalty=options.penalty,
            stress=stress, corruption=corruption,
        )  # fmt: skip
        result = aethelgard.roll_pool(self.bot.rng, pool, options.dc)
        label = which.value + (f" + {pool.parts[1].label.removesuffix(' (rank)')}" if skill else "")
        roll = _pool_roll(aethelgard.CHECK_KIND, result, pool, label, who.name, options)
        roll = replace(roll, first_rolls=who.first_rolls)  # the sheet is the GM's to edit now
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    @check.autocomplete("skill")
    @suggest
    async def _skills(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the sheet's skills, then the document's (docs/players/aethelgard.md,
        "Skills")."""
        sheet = await sheet_being_typed_for(interaction, self.characters, aethelgard.SYSTEM)
        names = matching(current, aethelgard.known_skills(sheet))
        return [app_commands.Choice(name=name, value=name) for name in names]

    @stress.command(name="add", description="Add (or with a negative amount, remove) Stress (GM)")
    @app_commands.describe(
        character="The character, by name",
        amount=TRAUMA_HELP,
    )
    async def stress_add(
        self, interaction: discord.Interaction, character: CharacterName, amount: TraumaChange
    ) -> None:
        await self._change_trauma(
            interaction, aethelgard.STRESS.name, "Psychic Stress", character, amount
        )

    @corruption.command(
        name="add", description="Add (or with a negative amount, remove) Corruption (GM)"
    )
    @app_commands.describe(
        character="The character, by name",
        amount=TRAUMA_HELP,
    )
    async def corruption_add(
        self, interaction: discord.Interaction, character: CharacterName, amount: TraumaChange
    ) -> None:
        await self._change_trauma(
            interaction, aethelgard.CORRUPTION.name, "Runic Blight Corruption", character, amount
        )

    async def _change_trauma(
        self,
        interaction: discord.Interaction,
        track: str,
        label: str,
        character: str,
        amount: int,
    ) -> None:
        asker, campaign = await self._table(interaction)
        asker.require_gm(f"change {label}")
        if amount == 0:
            raise CommandError("Give a change other than 0 (negative removes).")
        found = await self.characters.find(campaign, name=character)
        changed = await self.storage.tracks.change(campaign, track, amount, character_id=found.id)
        embed = render.trauma_changed(found.name, label, changed.before, changed.after)
        await interaction.response.send_message(embed=embed)

    @roll_command
    @anywhere
    @app_commands.command(name="roll", description="Roll a d10 pool: 8–10 succeed, 1s botch")
    @app_commands.describe(
        pool=POOL_HELP,
        dc=f"Net successes needed, 0–{aethelgard.DC_MAX} (default 1)",
        bonus=BONUS_HELP,
        penalty=PENALTY_HELP,
        label="What the roll is for (shown with it)",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        pool: PoolSize,
        dc: DC = aethelgard.DEFAULT_DC,
        bonus: ModifierDice = 0,
        penalty: ModifierDice = 0,
        label: Label | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = RollOptions(pool=pool, dc=dc, bonus=bonus, penalty=penalty, label=label)
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_roll(interaction, options, visibility)

    async def run_roll(
        self,
        interaction: discord.Interaction,
        options: RollOptions,
        visibility: Visibility,
    ) -> None:
        """Roll a bare pool: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        built = _bare(options.pool, bonus=options.bonus, penalty=options.penalty)
        result = aethelgard.roll_pool(self.bot.rng, built, options.dc)
        label = options.label
        name = label.strip() if label and label.strip() else "pool roll"
        roller = interaction.user.display_name
        roll = _pool_roll(aethelgard.ROLL_KIND, result, built, name, roller, options)
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    @roll_command
    @anywhere
    @app_commands.command(name="opposed", description="Opposed pools: the higher net wins")
    @app_commands.describe(
        pool="Your pool",
        vs_pool="The defender's pool (wins ties)",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    async def opposed(
        self,
        interaction: discord.Interaction,
        pool: PoolSize,
        vs_pool: PoolSize,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = OpposedOptions(pool=pool, vs_pool=vs_pool)
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_opposed(interaction, options, visibility)

    async def run_opposed(
        self,
        interaction: discord.Interaction,
        options: OpposedOptions,
        visibility: Visibility,
    ) -> None:
        """Roll opposed pools: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        result = aethelgard.opposed(self.bot.rng, _bare(options.pool), _bare(options.vs_pool))
        embed = render.opposed(result, interaction.user.display_name)
        roll = Roll(aethelgard.OPPOSED_KIND, result, embed, options=asdict(options))
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    @roll_command
    @anywhere
    @app_commands.command(
        name="attack", description="Accuracy vs Defense, then damage less soak and block"
    )
    @app_commands.describe(
        accuracy="Accuracy pool (a critical doubles the damage pool)",
        defense=f"The target's Defense: accuracy net needed to hit, 0–{aethelgard.DEFENSE_MAX}",
        damage="Damage pool",
        soak=f"Armour soak taken off the damage net, 0–{aethelgard.SOAK_MAX}",
        block="The defender's block or parry pool (its net cancels damage one for one)",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    async def attack(
        self,
        interaction: discord.Interaction,
        accuracy: PoolSize,
        defense: DC,
        damage: PoolSize,
        soak: DC = 0,
        block: PoolSize | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = AttackOptions(
            accuracy=accuracy, defense=defense, damage=damage, soak=soak, block=block
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_attack(interaction, options, visibility)

    async def run_attack(
        self,
        interaction: discord.Interaction,
        options: AttackOptions,
        visibility: Visibility,
    ) -> None:
        """Roll an attack: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        block = options.block
        result = aethelgard.attack(
            self.bot.rng,
            _bare(options.accuracy),
            options.defense,
            _bare(options.damage),
            soak=options.soak,
            block=_bare(block) if block is not None else None,
        )
        embed = render.attack(result, interaction.user.display_name)
        roll = Roll(aethelgard.ATTACK_KIND, result, embed, options=asdict(options))
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    @roll_command
    @anywhere
    @app_commands.command(name="craft", description="Craft: Standard, Masterwork or Legendary")
    @app_commands.describe(pool=POOL_HELP, bonus=BONUS_HELP, hidden=HIDDEN_HELP, blind=BLIND_HELP)
    async def craft(
        self,
        interaction: discord.Interaction,
        pool: PoolSize,
        bonus: ModifierDice = 0,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = CraftOptions(pool=pool, bonus=bonus)
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_craft(interaction, options, visibility)

    async def run_craft(
        self,
        interaction: discord.Interaction,
        options: CraftOptions,
        visibility: Visibility,
    ) -> None:
        """Craft: the command and its Roll again button."""
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        built = _bare(options.pool, bonus=options.bonus)
        result = aethelgard.roll_pool(self.bot.rng, built, 0)
        tier = aethelgard.craft_tier(result)
        roller = interaction.user.display_name
        embed = render.craft(result, tier, built, roller)
        roll = Roll(aethelgard.CRAFT_KIND, result, embed, options=asdict(options))
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    @anywhere
    @app_commands.command(name="odds", description="Exact chances of a pool, with a chart")
    @app_commands.describe(
        pool=POOL_HELP, dc=f"Net successes needed, 0–{aethelgard.DC_MAX} (default 1)"
    )
    async def odds(
        self, interaction: discord.Interaction, pool: PoolSize, dc: DC = aethelgard.DEFAULT_DC
    ) -> None:
        result = aethelgard.odds(pool, dc)
        png = await draw_spec(odds_charts.aethelgard_chart, result)
        await interaction.response.send_message(
            embed=render.odds(result), file=discord.File(io.BytesIO(png), filename="odds.png")
        )


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(DeleteButton)  # character delete prompts (as /sinew's)
    await bot.add_cog(AethelgardCog(bot))
