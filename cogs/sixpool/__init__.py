"""`/sixpool`: six-pool d20, loaded as one extension (docs/players/sixpool.md, "Rules notes").

- ``cog``: the slash commands (parse → rules → storage → reply); ``characters``: its mixin of
  `/sixpool character` commands (create, sheet, set, rename, delete, give);
- ``rolls``, ``contests`` (started) and ``declared`` (the defender's side), ``groups``: what a
  roll, a contest and a group check store and send; ``contest_log``: what a contest's rolls log;
- ``inspiration``: inspiration's reroll of one die, under any d20 roll of its holder;
- ``buttons``: the persistent buttons and selects (``bot.buttons.PersistentItem``);
- ``options``: option types, choices, help texts and parsing; ``errors``: refusals' wording.
"""

from __future__ import annotations

from bot.character_admin import DeleteButton
from bot.client import DiceBot
from cogs.sixpool import errors as errors
from cogs.sixpool.buttons import (
    DeclareButton,
    GroupButton,
    GroupSpendSelect,
    RerollButton,
    SpendSelect,
)
from cogs.sixpool.cog import SixpoolCog
from cogs.sixpool.options import CONTEST_KIND, GROUP_KIND, SHEET_CODEC

__all__ = ["CONTEST_KIND", "GROUP_KIND", "SHEET_CODEC", "SixpoolCog", "setup"]


async def setup(bot: DiceBot) -> None:
    """Register the persistent items and the cog."""
    bot.add_dynamic_items(DeclareButton, SpendSelect, GroupButton, GroupSpendSelect, RerollButton)
    bot.add_dynamic_items(DeleteButton)  # character delete prompts (as /sinew's)
    await bot.add_cog(SixpoolCog(bot))
