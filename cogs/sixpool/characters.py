"""`/sixpool character create|sheet|set|rename|delete|give`: six-pool d20 characters.

docs/players/sixpool.md, "Characters forgive mistakes". `set` is six-pool d20's edit: its owner's
until the character's first roll, then a GM's, announced; rename, delete and give are the flows
every system with characters shares (``bot.character_admin``). A mixin of ``SixpoolCog``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.asker import Asker
from bot.character_admin import CharacterAdmin
from bot.client import DiceBot
from bot.options import (
    CHARACTER_NAME_HELP,
    NEW_NAME_HELP,
    WHOSE_CHARACTER_HELP,
    CharacterName,
    character_name,
)
from bot.render import sixpool as render
from bot.storage import Campaign, CharacterStore, Storage
from cogs.sixpool.options import (
    POOL_CHOICES,
    TRAINING_CHOICES,
    Edge,
    Level,
    PoolSize,
    SheetAsked,
    SkillName,
    sheet_changes,
)
from rules import sixpool
from rules.sheets import SheetEdit
from rules.sixpool import Pool, Sheet

__all__ = ["CHARACTER", "CharacterCommands"]

CHARACTER = app_commands.Group(
    name="character", description="Create, show, change, rename, delete and give characters"
)

if TYPE_CHECKING:  # the commands are a cog's (SixpoolCog), as discord.py's decorators require
    _CogPart = commands.Cog
else:  # at run time a plain class, so the mixin isn't made a cog of its own
    _CogPart = object


class CharacterCommands(_CogPart):
    """The `/sixpool character` commands, and the asker's six-pool table."""

    character = CHARACTER

    bot: DiceBot
    storage: Storage
    characters: CharacterStore[Sheet]
    admin: CharacterAdmin[Sheet]

    async def asker(self, interaction: discord.Interaction) -> tuple[Asker, Campaign]:
        """Return the asker's table and its running six-pool campaign, or refuse."""
        asker = await Asker.of(interaction, self.storage)
        return asker, asker.require_campaign(sixpool.SYSTEM)

    @CHARACTER.command(name="create", description="Create your character with full pools")
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
        asker, campaign = await self.asker(interaction)
        name = character_name(name)
        sizes = (strength, dexterity, constitution, intelligence, wisdom, charisma)
        maxima = dict(zip(Pool, sizes, strict=True))
        sheet = sixpool.new_sheet(level, sixpool.parse_pool(primary), maxima)
        created = await self.characters.create(campaign, asker.user_id, name, sheet)
        await interaction.response.send_message(
            embed=render.character_sheet(created, interaction.user.display_name)
        )

    @CHARACTER.command(name="sheet", description="Show a character sheet (private reply)")
    @app_commands.describe(user="Whose character (default: yours)")
    async def character_sheet(
        self, interaction: discord.Interaction, user: discord.Member | None = None
    ) -> None:
        _, campaign = await self.asker(interaction)
        owner = user or interaction.user
        found = await self.characters.find(campaign, user_id=owner.id)
        await interaction.response.send_message(
            embed=render.character_sheet(found, owner.display_name), ephemeral=True
        )

    @CHARACTER.command(
        name="set", description="Fix a sheet: yours before its first roll, then a GM's (announced)"
    )
    @app_commands.describe(
        level=f"New level, {sixpool.LEVEL_MIN}–{sixpool.LEVEL_MAX}",
        pool="The pool that maximum, edge and save change",
        maximum=f"The pool's new maximum, 0–{sixpool.POOL_MAX} (current points stop at it)",
        edge=f"The pool's Edge, {sixpool.EDGE_MIN}–{sixpool.EDGE_MAX}",
        save="Training in the pool's saving throw",
        skill=f"A skill to train (up to {sixpool.SKILL_NAME_MAX} characters), with training",
        training="Training in the skill (untrained removes it)",
        character=WHOSE_CHARACTER_HELP,
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
        asked = SheetAsked(level=level, pool=pool, maximum=maximum, edge=edge, save=save,
                           skill=skill, training=training)  # fmt: skip
        change = sheet_changes(asked)

        def edit(sheet: Sheet, _creation: bool) -> SheetEdit[Sheet]:
            return sixpool.edit_sheet(sheet, change)  # no ledger: the same rails for both

        await self.admin.edit(interaction, character, edit)

    @CHARACTER.command(name="rename", description="Rename a character (yours, or any as GM)")
    @app_commands.describe(new_name=NEW_NAME_HELP, character=WHOSE_CHARACTER_HELP)
    async def character_rename(
        self,
        interaction: discord.Interaction,
        new_name: CharacterName,
        character: CharacterName | None = None,
    ) -> None:
        await self.admin.rename(interaction, character, new_name)

    @CHARACTER.command(name="delete", description="Delete a character, once you confirm")
    @app_commands.describe(character=WHOSE_CHARACTER_HELP)
    async def character_delete(
        self, interaction: discord.Interaction, character: CharacterName | None = None
    ) -> None:
        await self.admin.ask_delete(interaction, character)

    @CHARACTER.command(name="give", description="Give a character to another player (GM)")
    @app_commands.describe(character="The character, by name", user="The new owner")
    async def character_give(
        self, interaction: discord.Interaction, character: CharacterName, user: discord.Member
    ) -> None:
        await self.admin.give(interaction, character, user)
