"""`/macro`: saved rolls, a player's own or a campaign's (saved by a GM), with autocomplete."""

from __future__ import annotations

import builtins

import discord
from discord import app_commands
from discord.ext import commands

from bot.anywhere import anywhere, anywhere_group
from bot.asker import Asker, campaign_here
from bot.client import DiceBot
from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP, matching, suggest
from bot.publish import roll_command
from bot.render.errors import describe
from bot.render.style import listed
from bot.saved_commands import SavedCommand, parse_command_line, run_saved_command
from bot.storage.macros import MacroNameTaken, MacroNotFound, MacroStore, TooManyMacros
from cogs.dice import DiceCog
from rules.expressions import MAX_EXPRESSION_LENGTH, parse_request
from rules.inputs import checked_name

MACRO_NAME_MAX = 40
MacroName = app_commands.Range[str, 1, MACRO_NAME_MAX]
Expression = app_commands.Range[str, 1, MAX_EXPRESSION_LENGTH]
# What `/macro list` says of the macros past Discord's 4,096 characters (50 of a player's own
# and 50 of the campaign's, each up to a 200-character roll, don't all fit).
MORE_MACROS = "more macros: `/macro roll` finds any by name"


@anywhere_group
class MacroCog(commands.GroupCog, group_name="macro", group_description="Saved rolls"):
    """Saved dice expressions: save once, roll by name."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.macros = MacroStore(bot.storage.database)

    @anywhere
    @app_commands.command(name="save", description="Save a dice expression under a name")
    @app_commands.describe(
        name=f"The macro's name (up to {MACRO_NAME_MAX} characters)",
        expression="Dice (1d20+7) or a roll command with options (/cosmos roll attribute:3 tn:15)",
        campaign="GMs: save it for everyone in this channel's campaign",
    )
    async def save(
        self,
        interaction: discord.Interaction,
        name: MacroName,
        expression: Expression,
        campaign: bool = False,
    ) -> None:
        asker = await Asker.of(interaction, self.bot.storage)
        clean = checked_name(name, "Macro name", MACRO_NAME_MAX)  # docs/players/index.md, "Names"
        text, command = self._checked_macro(expression)
        campaign_id = None
        if campaign:
            campaign_id = asker.require_campaign().id
            asker.require_gm("save a macro for the whole campaign")
        saved = await self.macros.save(
            clean,
            text,
            user_id=None if campaign else asker.user_id,
            campaign_id=campaign_id,
            command=command.encode() if command else None,
        )
        whose = "the campaign's" if saved.campaign_wide else "your"
        await interaction.response.send_message(
            f"💾 Saved {whose} macro **{discord.utils.escape_markdown(saved.name)}**: "
            f"`{saved.expression}`. Roll it with `/macro roll name:{saved.name}`.",
            ephemeral=True,
        )

    def _checked_macro(self, expression: str) -> tuple[str, SavedCommand | None]:
        """Read a macro's text as it will be rolled, refusing a bad expression or command now
        rather than when rolled: a dice expression, or a command line (`/sinew test …`)."""
        if expression.lstrip().startswith("/"):
            command = parse_command_line(self.bot.tree, expression)
            return command.text().strip(), command
        parse_request(expression)  # anything /roll reads: labels, `;`, sets
        return expression.strip(), None

    @roll_command
    @anywhere
    @app_commands.command(name="roll", description="Roll a saved macro")
    @app_commands.describe(
        name="The macro (yours, or the campaign's)", hidden=HIDDEN_HELP, blind=BLIND_HELP
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        name: MacroName,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        asker = await Asker.of(interaction, self.bot.storage)
        campaign_id = asker.campaign.id if asker.campaign else None
        macro = await self.macros.find(name, asker.user_id, campaign_id)
        saved = None if macro.command is None else SavedCommand.decode(macro.command)
        if saved is not None and hidden is None and not blind:
            hidden, blind = saved.secrecy()  # unsaid here: as the saved command says, typed
        visibility = asker.visibility(hidden=hidden, blind=blind)
        if saved is not None:
            await run_saved_command(interaction, saved, visibility)
            return
        dice = self.bot.get_cog("DiceCog")
        if not isinstance(dice, DiceCog):
            raise CommandError("Dice are not loaded; try again in a moment.")
        await dice.roll_dice(interaction, macro.expression, visibility)

    @anywhere
    @app_commands.command(name="list", description="List your macros and the campaign's")
    async def list(self, interaction: discord.Interaction) -> None:
        asker = await Asker.of(interaction, self.bot.storage)
        campaign_id = asker.campaign.id if asker.campaign else None
        macros = await self.macros.visible(asker.user_id, campaign_id)
        lines = [
            f"{'🏰' if m.campaign_wide else '👤'} **{discord.utils.escape_markdown(m.name)}**: "
            f"`{m.expression}`"
            for m in macros
        ]
        text = listed(lines, more=MORE_MACROS) or "None yet: `/macro save name expression`."
        embed = discord.Embed(title="💾 Macros", description=text)
        embed.set_footer(text="👤 yours · 🏰 the campaign's")
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @anywhere
    @app_commands.command(name="delete", description="Delete a macro (the campaign's: GM)")
    @app_commands.describe(name="The macro to delete")
    async def delete(self, interaction: discord.Interaction, name: MacroName) -> None:
        asker = await Asker.of(interaction, self.bot.storage)
        campaign_id = asker.campaign.id if asker.campaign else None
        macro = await self.macros.find(name, asker.user_id, campaign_id)
        if macro.campaign_wide:
            asker.require_gm("delete the campaign's macros")
        await self.macros.delete(macro)
        await interaction.response.send_message(
            f"🗑️ Deleted **{discord.utils.escape_markdown(macro.name)}**.", ephemeral=True
        )

    @roll.autocomplete("name")
    @delete.autocomplete("name")
    @suggest
    async def _names(
        self, interaction: discord.Interaction, current: str
    ) -> builtins.list[app_commands.Choice[str]]:  # `list` in this class is /macro list
        campaign = await campaign_here(interaction, self.bot.storage)  # none outside a server
        campaign_id = campaign.id if campaign else None
        macros = await self.macros.visible(interaction.user.id, campaign_id)
        names = list(dict.fromkeys(m.name for m in macros))
        return [app_commands.Choice(name=n, value=n) for n in matching(current, names)]


@describe.register
def _(error: MacroNotFound) -> str:
    return f"No macro called **{error.name[:40]}**; `/macro list` shows yours and the campaign's."


@describe.register
def _(error: MacroNameTaken) -> str:
    return (
        f"A macro called **{error.name[:40]}** exists already; "
        "delete it first or pick another name."
    )


@describe.register
def _(error: TooManyMacros) -> str:
    return f"That's {error.most} macros already: delete one first."


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(MacroCog(bot))
