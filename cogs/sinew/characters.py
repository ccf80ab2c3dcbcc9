"""`/sinew character edit|rename|delete|give`: characters that forgive mistakes.

docs/players/sinew.md, "Characters forgive mistakes". The flows are shared by every
system with characters (``bot.character_admin``); the edit's rule is Sinew & Steel's own
(``rules.sinew.edit_sheet``): the owner's edit before the first roll keeps the ledger, a
GM's keeps the rails.
"""

from __future__ import annotations

import discord
from discord import app_commands

from bot.errors import CommandError
from bot.options import NEW_NAME_HELP, WHOSE_CHARACTER_HELP, CharacterName
from cogs.sinew.common import CHARACTER, Armour, AttributeScore, Sheet, SinewBase, StaminaScore
from rules import sinew
from rules.sheets import SheetEdit

SCORE_RENAMES = {
    "strength": "str", "reflex": "ref", "intellect": "int", "empathy": "emp",
    "luck_score": "lck", "stamina": "sta",
}  # fmt: skip


def new_score(name: str, rails: str) -> str:
    return f"New {name}, {rails}"


class CharacterCommands(SinewBase):
    """Edit, rename, delete and give characters."""

    @CHARACTER.command(
        name="edit", description="Fix a sheet: yours before its first roll, then a GM's (announced)"
    )
    @app_commands.rename(**SCORE_RENAMES)
    @app_commands.describe(
        strength=new_score("Strength", "6–16"),
        reflex=new_score("Reflex", "6–16"),
        intellect=new_score("Intellect", "6–16"),
        empathy=new_score("Empathy", "6–16"),
        luck_score=new_score("Luck", "6–16"),
        stamina=new_score("Stamina", "3–9"),
        armour=new_score("armour soak", f"{sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX}"),
        character=WHOSE_CHARACTER_HELP,
    )
    async def character_edit(
        self,
        interaction: discord.Interaction,
        strength: AttributeScore | None = None,
        reflex: AttributeScore | None = None,
        intellect: AttributeScore | None = None,
        empathy: AttributeScore | None = None,
        luck_score: AttributeScore | None = None,
        stamina: StaminaScore | None = None,
        armour: Armour | None = None,
        character: CharacterName | None = None,
    ) -> None:
        given = (strength, reflex, intellect, empathy, luck_score, stamina)
        scores = {s: v for s, v in zip(sinew.Score, given, strict=True) if v is not None}
        if not scores and armour is None:
            raise CommandError("Give at least one new value: `str` … `sta` or `armour`.")

        def edit(sheet: Sheet, creation: bool) -> SheetEdit[Sheet]:
            return sinew.edit_sheet(sheet, scores, armour, creation=creation)

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
