"""`/sinew`: Sinew & Steel characters, roll-under tests, odds, contests and sheet changes.

docs/players/sinew.md, "Rules notes". One cog, ``SinewCog``, made of one mixin per concern (the
bot loads this package as one extension through ``setup``):

- ``common``: roll kinds, option types and dataclasses, the subcommand groups, the shared base.
- ``luck``: `/sinew luck test|spend` and the persistent Luck buttons.
- ``rolls``: `/sinew test` and `/sinew odds`.
- ``sheets``: `/sinew character`, `item`, `damage`, `heal`, `rest`, `milestone`, `advance`.
- ``characters``: `/sinew character edit|rename|delete|give`.
- ``pressure``: `/sinew pressure add|remove|show`, `tamper` and `purge`.
- ``contests``: `/sinew opposed` and `/sinew attack`.

The mixins' order below is the order of the commands in the synced tree.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import discord
from discord.ext import commands

from bot.anywhere import anywhere_group
from bot.buttons import Reroller, register_reroll
from bot.character_admin import CharacterAdmin, DeleteButton
from bot.client import DiceBot
from bot.data_tables import load_table
from bot.render import sinew_pressure as render_pressure
from bot.storage import CharacterStore, Visibility
from bot.storage.sinew import LuckStore, PressureStore
from cogs.sinew.characters import CharacterCommands
from cogs.sinew.common import (
    ATTACK_KIND,
    LUCK_KIND,
    OPPOSED_KIND,
    TEST_KIND,
    AttackOptions,
    ContestOptions,
    LuckTestOptions,
    TestOptions,
)
from cogs.sinew.contests import ContestCommands
from cogs.sinew.luck_buttons import DefenderLuckButton, LuckButton
from cogs.sinew.pressure import PressureCommands
from cogs.sinew.rolls import TestCommands
from cogs.sinew.sheets import SheetCommands
from rules import sinew, sinew_pressure

__all__ = ["DefenderLuckButton", "LuckButton", "SinewCog", "setup"]


@anywhere_group
class SinewCog(
    ContestCommands,
    PressureCommands,
    SheetCommands,
    CharacterCommands,
    TestCommands,
    commands.GroupCog,
    group_name="sinew",
    group_description="Sinew & Steel",
):
    """Sinew & Steel: roll-under d20 with Luck, Stamina and a creation ledger."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.characters = CharacterStore(bot.storage.database, sinew.SHEET_CODEC)
        self.admin = CharacterAdmin(bot.storage, sinew.SYSTEM, self.characters)
        self.luck_store = LuckStore(bot.storage.database, sinew.SHEET_CODEC)
        self.pressure_store = PressureStore(bot.storage.database, sinew.SHEET_CODEC)
        pressure_table = load_table("sinew/pressure.toml", sinew_pressure.parse_pressure_table)
        self.texts = {
            skin: render_pressure.Texts(
                load_table(f"sinew/skins/{skin.value}.toml", sinew_pressure.parse_skin),
                pressure_table,
            )
            for skin in sinew.Skin
        }
        for kind, reroller in self._rerollers().items():
            register_reroll(bot, kind, reroller)

    async def cog_unload(self) -> None:
        self.admin.close()

    def _rerollers(self) -> dict[str, Reroller]:
        """Return what Roll again runs for each roll kind, with the options the roll logged."""

        def again(run: Callable[..., Awaitable[None]], options_type: type) -> Reroller:
            def reroll(
                interaction: discord.Interaction, options: Mapping[str, Any], seen: Visibility
            ) -> Awaitable[None]:
                return run(interaction, options_type(**options), seen)

            return reroll

        return {
            TEST_KIND: again(self.run_test, TestOptions),
            LUCK_KIND: again(self.run_luck_test, LuckTestOptions),
            OPPOSED_KIND: again(self.run_opposed, ContestOptions),
            ATTACK_KIND: again(self.run_attack, AttackOptions),
        }


async def setup(bot: DiceBot) -> None:
    """Load `/sinew`: its persistent Luck buttons (the roller's and the defender's), the
    character delete prompt's, and the cog (one extension for the package)."""
    bot.add_dynamic_items(LuckButton, DefenderLuckButton, DeleteButton)
    await bot.add_cog(SinewCog(bot))
