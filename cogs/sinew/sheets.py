"""`/sinew character`, `item`, `boon` and the sheet changes: damage, heal, rest, milestone,
advance, armour, and the GM's windfall of Luck (`/sinew luck grant`).

docs/players/sinew.md, "Rules notes". Character sheets and item lists reply privately.
"""

from __future__ import annotations

from collections.abc import Callable

import discord
from discord import app_commands

from bot.options import CHARACTER_NAME_HELP, CharacterName, character_name, choices_of
from bot.publish import announce
from bot.render import sinew as render
from cogs.sinew.common import (
    BOON,
    CHARACTER,
    ITEM,
    LUCK,
    Amount,
    Armour,
    AttributeScore,
    BoonNumber,
    BoonText,
    ItemName,
    Reason,
    Sheet,
    SinewBase,
    StaminaScore,
    Tokens,
    score_choices,
)
from rules import sinew
from rules.choices import parse_choice

# The ledger's rule, in each score's description (docs/players/sinew.md, "Rules notes").
COST = f"+1 above costs {sinew.PAID_PER_POINT_ABOVE} below"


def rest_choice(kind: sinew.Rest) -> str:
    """A kind of rest as its choice says it: "Short: +1 Stamina"."""
    luck, stamina = sinew.REST_GAINS[kind]
    gains = [f"+{luck} Luck"] if luck else []
    gains += [f"+{stamina} Stamina"] if stamina else []
    return f"{kind.value.capitalize()}: {', '.join(gains)}"


class SheetCommands(SinewBase):
    """Characters, items and the changes a sheet goes through in play."""

    @CHARACTER.command(name="create", description="Create your character (the ledger must balance)")
    @app_commands.rename(
        strength="str",
        reflex="ref",
        intellect="int",
        empathy="emp",
        luck_score="lck",
        stamina="sta",
    )
    @app_commands.describe(
        name=CHARACTER_NAME_HELP,
        strength=f"Strength 6–16 (base 10); {COST}",
        reflex=f"Reflex 6–16 (base 10); {COST}",
        intellect=f"Intellect 6–16 (base 10); {COST}",
        empathy=f"Empathy 6–16 (base 10); {COST}",
        luck_score=f"Luck 6–16 (base 10, your token cap); {COST}",
        stamina=f"Stamina 3–9 (base 5); {COST}",
        armour=f"Armour soak, {sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX} (default 0)",
    )
    async def character_create(
        self,
        interaction: discord.Interaction,
        name: CharacterName,
        strength: AttributeScore,
        reflex: AttributeScore,
        intellect: AttributeScore,
        empathy: AttributeScore,
        luck_score: AttributeScore,
        stamina: StaminaScore,
        armour: Armour = 0,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        name = character_name(name)
        sheet = sinew.create_sheet(
            strength=strength,
            reflex=reflex,
            intellect=intellect,
            empathy=empathy,
            luck=luck_score,
            stamina=stamina,
            armour=armour,
        )
        created = await self.characters.create(campaign, table.user_id, name, sheet)
        embed = render.character_sheet(created, 0, interaction.user.display_name)
        await interaction.response.send_message(embed=embed)

    @CHARACTER.command(name="sheet", description="Show a character sheet (private reply)")
    @app_commands.describe(user="Whose character (default: yours)")
    async def character_sheet(
        self, interaction: discord.Interaction, user: discord.Member | None = None
    ) -> None:
        _, campaign = await self._sinew_table(interaction)
        owner = user or interaction.user
        found = await self.characters.find(campaign, user_id=owner.id)
        pressure = await self.storage.tracks.value(
            campaign, sinew.PRESSURE.name, character_id=found.id
        )
        embed = render.character_sheet(found, pressure, owner.display_name)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(name="damage", description="Take Stamina from a character (GM)")
    @app_commands.describe(
        character="The character, by name",
        amount=f"Stamina lost, 1–{sinew.HEALTH_CHANGE_MAX}",
    )
    async def damage(
        self, interaction: discord.Interaction, character: CharacterName, amount: Amount
    ) -> None:
        await self._change_stamina(interaction, character, amount, sinew.take_damage, "takes")

    @app_commands.command(name="heal", description="Restore a character's Stamina (GM)")
    @app_commands.describe(
        character="The character, by name",
        amount=f"Stamina regained, 1–{sinew.HEALTH_CHANGE_MAX} (up to the STA score)",
    )
    async def heal(
        self, interaction: discord.Interaction, character: CharacterName, amount: Amount
    ) -> None:
        await self._change_stamina(interaction, character, amount, sinew.heal, "heals")

    async def _change_stamina(
        self,
        interaction: discord.Interaction,
        character: str,
        amount: int,
        rule: Callable[[Sheet, int], sinew.StaminaChange],
        verb: str,
    ) -> None:
        """Damage or heal a character (GM): one update, the new Stamina, a collapse announced."""
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("deal damage" if verb == "takes" else "heal characters")
        found = await self.characters.find(campaign, name=character)
        before, after = await self._update(found, lambda sheet: rule(sheet, amount).sheet)
        before_stamina = before.sheet.current_stamina
        try:
            await interaction.response.send_message(
                embed=render.health(after, before_stamina, verb)
            )
        finally:  # the change is saved: the channel hears a collapse even if the reply is lost
            if before_stamina > 0 and after.sheet.collapsed:
                await announce(interaction, render.collapse_announcement(after))

    @app_commands.command(
        name="rest", description="Rest: calm +1 Luck, short +1 or thorough +2 STA"
    )
    @app_commands.describe(
        kind="How well you rest: what it restores",
        character="GMs: the character who rests, by name (default: your own)",
    )
    @app_commands.choices(kind=choices_of(sinew.Rest, rest_choice))
    async def rest(
        self,
        interaction: discord.Interaction,
        kind: str,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        chosen = parse_choice(sinew.Rest, kind, "kind")
        found = await table.own_or_named(self.characters, campaign, character, "rest")
        after, rested = await self._decided(found, lambda sheet: sinew.rest(sheet, chosen))
        embed = render.rested(after, chosen.value, rested.luck_gained, rested.stamina_gained)
        await interaction.response.send_message(embed=embed)
        await self.refresh_luck(interaction, after)  # a calm rest's token

    @app_commands.command(
        name="milestone", description="Give a milestone: +2 build points, Luck refilled (GM)"
    )
    @app_commands.describe(character="The character, by name")
    async def milestone(self, interaction: discord.Interaction, character: CharacterName) -> None:
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("give milestones")
        found = await self.characters.find(campaign, name=character)
        after, reached = await self._decided(found, sinew.milestone)
        embed = render.milestone(after, reached.build_points_gained, reached.tokens_restored)
        await interaction.response.send_message(embed=embed)
        await self.refresh_luck(interaction, after)  # Luck refilled

    @app_commands.command(name="advance", description="Spend 2 build points to raise a score")
    @app_commands.describe(score="The score to raise (+1, or +2 below baseline up to it)")
    @app_commands.choices(score=score_choices())
    async def advance(self, interaction: discord.Interaction, score: str) -> None:
        table, campaign = await self._sinew_table(interaction)
        which = sinew.parse_score(score)
        found = await self.characters.find(campaign, user_id=table.user_id)
        before, after = await self._update(found, lambda sheet: sinew.advance(sheet, which).sheet)
        embed = render.advanced(
            after,
            which,
            before.sheet.score(which),
            after.sheet.score(which),
            before.sheet.build_points - after.sheet.build_points,
        )
        await interaction.response.send_message(embed=embed)
        await self.refresh_luck(interaction, after)  # a raised LCK adds tokens

    @ITEM.command(name="add", description="Carry one more substantial item")
    @app_commands.describe(name=f"The item (up to {sinew.ITEM_NAME_MAX} characters)")
    async def item_add(self, interaction: discord.Interaction, name: ItemName) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        _, after = await self._update(found, lambda sheet: sinew.add_item(sheet, name))
        embed = render.items(after, f"added {after.sheet.items[-1]}")  # as stored
        await interaction.response.send_message(embed=embed)

    @ITEM.command(name="remove", description="Drop a carried item")
    @app_commands.describe(name="The item to drop (any case)")
    async def item_remove(self, interaction: discord.Interaction, name: ItemName) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        _, after = await self._update(found, lambda sheet: sinew.remove_item(sheet, name))
        embed = render.items(after, f"dropped {name.strip()}")
        await interaction.response.send_message(embed=embed)

    @ITEM.command(name="list", description="List your carried items (private reply)")
    async def item_list(self, interaction: discord.Interaction) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        await interaction.response.send_message(embed=render.items(found), ephemeral=True)

    @BOON.command(name="add", description="Add a boon to a sheet (yours, or any as GM)")
    @app_commands.describe(
        text=f"The boon, free text (up to {sinew.BOON_TEXT_MAX} characters)",
        character="GMs: whose sheet, by name (default: your own)",
    )
    async def boon_add(
        self,
        interaction: discord.Interaction,
        text: BoonText,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await table.own_or_named(self.characters, campaign, character, "change boons")
        _, after = await self._update(found, lambda sheet: sinew.add_boon(sheet, text))
        gained = f"gained {after.sheet.boons[-1]}"  # as stored
        await interaction.response.send_message(embed=render.boons(after, gained))

    @BOON.command(name="remove", description="Remove a boon by its number (yours, or any as GM)")
    @app_commands.describe(
        number="The boon's number, as the sheet lists it",
        character="GMs: whose sheet, by name (default: your own)",
    )
    async def boon_remove(
        self,
        interaction: discord.Interaction,
        number: BoonNumber,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await table.own_or_named(self.characters, campaign, character, "change boons")
        before, after = await self._update(found, lambda sheet: sinew.remove_boon(sheet, number))
        lost = before.sheet.boons[number - 1]
        await interaction.response.send_message(embed=render.boons(after, f"lost {lost}"))

    @app_commands.command(name="armour", description="Change armour (yours, or any as GM)")
    @app_commands.describe(
        value=f"The armour's base soak, {sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX} (0: none)",
        character="GMs: whose sheet, by name (default: your own)",
    )
    async def armour(
        self,
        interaction: discord.Interaction,
        value: Armour,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await table.own_or_named(self.characters, campaign, character, "change armour")
        before, after = await self._update(found, lambda sheet: sinew.set_armour(sheet, value))
        embed = render.armour_changed(after, before.sheet.armour)
        await interaction.response.send_message(embed=embed)

    @LUCK.command(name="grant", description="GM windfall: give a character Luck tokens")
    @app_commands.describe(
        character="The character, by name",
        tokens=f"Tokens to give, 1–{sinew.Score.LCK.maximum} (never above the LCK score)",
        reason=f"Why, as the channel hears it (up to {sinew.LUCK_REASON_MAX} characters)",
    )
    async def luck_grant(
        self,
        interaction: discord.Interaction,
        character: CharacterName,
        tokens: Tokens,
        reason: Reason,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("grant Luck")
        found = await self.characters.find(campaign, name=character)
        granted: list[sinew.LuckGrant] = []

        def grant(sheet: Sheet) -> Sheet:
            granted.append(sinew.grant_luck(sheet, tokens, reason))
            return granted[-1].sheet

        _, after = await self._update(found, grant)
        await interaction.response.send_message(
            render.luck_granted_note(after, granted[-1]), ephemeral=True
        )
        await announce(interaction, render.luck_granted(after, granted[-1]))
        await self.refresh_luck(interaction, after)
