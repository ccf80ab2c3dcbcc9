"""`/sinew test` and `/sinew odds`: roll-under tests and their exact chances.

docs/players/sinew.md, "Rules notes".
"""

from __future__ import annotations

import io
from dataclasses import asdict

import discord
from discord import app_commands

from bot.anywhere import anywhere
from bot.asker import Asker
from bot.options import BLIND_HELP, CharacterName
from bot.publish import Roll, roll_command
from bot.render import odds_charts
from bot.render import sinew as render
from bot.render.charts import draw_spec
from bot.storage import Character, Visibility
from cogs.sinew.common import (
    NPC,
    NPC_TEST_HELP,
    SCORE_HELP,
    TEST_HELP,
    TEST_KIND,
    Sheet,
    TestOptions,
    TestScore,
    attribute_choices,
    roller_label,
)
from cogs.sinew.luck import LuckCommands
from rules import sinew


class TestCommands(LuckCommands):
    """Attribute tests (with Luck buttons) and their odds."""

    __test__ = False  # not a pytest test class

    @roll_command
    @app_commands.command(name="test", description="Roll a d20 under an attribute")
    @app_commands.describe(
        attribute="The attribute to test (LCK rolls under your tokens)",
        blind=BLIND_HELP,
        score=NPC_TEST_HELP,
        **TEST_HELP,
    )
    @app_commands.choices(attribute=attribute_choices())
    async def test(
        self,
        interaction: discord.Interaction,
        attribute: str,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
        score: TestScore | None = None,
    ) -> None:
        options = TestOptions(
            attribute=attribute,
            advantage=advantage,
            disadvantage=disadvantage,
            character=character,
            score=score,
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_test(interaction, options, visibility)

    async def run_test(
        self,
        interaction: discord.Interaction,
        options: TestOptions,
        visibility: Visibility,
    ) -> None:
        """Roll an attribute test: the command and its Roll again button."""
        table, campaign = await self._for_roll(interaction, visibility)
        attribute = sinew.parse_attribute(options.attribute)
        who = await self._roller(table, campaign, options.character, options.score)
        result = self._roll_test(who, attribute, options)
        what, label = f"{attribute.value} test", roller_label(attribute, npc=who is None)
        embed = render.test_result(result, who.name if who else NPC, what, label)
        roll = Roll(TEST_KIND, result, embed, options=asdict(options))
        await self._publish_with_luck(interaction, table, campaign, roll, who, visibility)

    def _roll_test(
        self, who: Character[Sheet] | None, attribute: sinew.Score, options: TestOptions
    ) -> sinew.TestResult:
        """Roll a character's attribute test, or an NPC's under its bare score."""
        modes = {"advantage": options.advantage, "disadvantage": options.disadvantage}
        if who is None:
            assert options.score is not None
            return sinew.test(self.bot.rng, options.score, **modes)
        return sinew.attribute_test(self.bot.rng, who.sheet, attribute, **modes)

    @anywhere
    @app_commands.command(name="odds", description="Exact chances of a test, with a chart")
    @app_commands.describe(
        score=f"The score rolled under, {SCORE_HELP}",
        advantage=TEST_HELP["advantage"],
        disadvantage=TEST_HELP["disadvantage"],
        vs_score=f"An opposing score, {SCORE_HELP}: adds the chance to win an opposed roll",
    )
    async def odds(
        self,
        interaction: discord.Interaction,
        score: TestScore,
        advantage: bool = False,
        disadvantage: bool = False,
        vs_score: TestScore | None = None,
    ) -> None:
        result = sinew.odds(score, advantage=advantage, disadvantage=disadvantage)
        versus = None
        if vs_score is not None:
            versus = sinew.opposed_odds(
                score, vs_score, attacker_advantage=advantage, attacker_disadvantage=disadvantage
            )
        rows = sinew.luck_odds(
            score, sinew.Score.LCK.maximum, advantage=advantage, disadvantage=disadvantage
        )
        await interaction.response.send_message(
            embed=render.odds(result, versus, rows), file=await _chart(result, versus)
        )


async def _chart(result: sinew.TestOdds, versus: sinew.OpposedOdds | None) -> discord.File:
    """Return the chart of the kept die's faces and, against a score, the opposed roll."""
    png = await draw_spec(odds_charts.sinew_chart, result, versus)
    return discord.File(io.BytesIO(png), filename="odds.png")
