"""`/roll`: any standard dice expression, public or hidden for a GM."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.anywhere import anywhere
from bot.asker import Asker
from bot.buttons import register_reroll
from bot.client import DiceBot
from bot.options import BLIND_HELP, HIDDEN_HELP
from bot.publish import Roll, publish_or_show_unlogged, roll_command
from bot.render import dice as render
from bot.storage import Visibility
from rules.expressions import (
    MAX_EXPRESSION_LENGTH,
    roll_request,
)
from rules.expressions.kinds import DICE_KIND_NAME as KIND


class DiceCog(commands.Cog):
    """Generic dice, usable in any channel."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        register_reroll(
            bot,
            KIND,
            lambda interaction, options, visibility: self.roll_dice(
                interaction, **options, visibility=visibility
            ),
        )

    @roll_command
    @anywhere
    @app_commands.command(name="roll", description="Roll dice notation, e.g. 4d6kh3+2 or 2d20kl1")
    @app_commands.describe(
        expression="Dice like 4d6kh3+2, 1d20+5 adv, 1d20+5>=15, 2d6+3 fire; `;` between rolls",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        expression: app_commands.Range[str, 1, MAX_EXPRESSION_LENGTH],
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        visibility = await Asker.visibility_asked(interaction, self.bot.storage, hidden, blind)
        await self.roll_dice(interaction, expression, visibility)

    async def roll_dice(
        self, interaction: discord.Interaction, expression: str, visibility: Visibility
    ) -> None:
        """Roll an expression for the user: the command, a dice macro, and Roll again."""
        asker = await Asker.for_roll(interaction, self.bot.storage, visibility)
        roll = self._roll(interaction, expression)
        # Nothing builds on a /roll, so a public one still answers (marked unlogged) on a full
        # disk.
        await publish_or_show_unlogged(interaction, self.bot.storage, asker, roll, visibility)

    def _roll(self, interaction: discord.Interaction, expression: str) -> Roll:
        """Roll a request: one expression as before, or sets, `;` parts and a comment."""
        roller = interaction.user.display_name
        options = {"expression": expression}
        rolled = roll_request(expression, self.bot.rng)
        if rolled.request.single:  # one plain expression: shown (and logged) as it always was
            result = rolled.rolls[0][0]
            hint = rolled.request.parts[0].hint  # "did you mean" d20's reading
            reply = render.expression_roll(result, roller, hint)
            return Roll(KIND, result, reply, options=options)
        return Roll(KIND, rolled, render.request_roll(rolled, roller, expression), options=options)


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(DiceCog(bot))
