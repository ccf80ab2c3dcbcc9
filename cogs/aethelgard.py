"""`/aethelgard`: d10 success-counting pools in the document's display format, and odds."""

from __future__ import annotations

import io

import discord
from discord import app_commands
from discord.ext import commands

from bot.client import DiceBot
from bot.options import HIDDEN_HELP
from bot.publish import Roll, announce, publish_roll
from bot.render import aethelgard as render
from bot.render.charts import draw_chart
from bot.table import Table
from rules import aethelgard
from rules.aethelgard import Pool, PoolPart
from rules.odds import Outcome

PoolSize = app_commands.Range[int, 1, aethelgard.MAX_POOL]
DC = app_commands.Range[int, 0, aethelgard.DC_MAX]
ModifierDice = app_commands.Range[int, 0, aethelgard.MODIFIER_DICE_MAX]
Label = app_commands.Range[str, 1, 100]
POOL_HELP = f"Dice in the pool, 1–{aethelgard.MAX_POOL}"
BONUS_HELP = "Bonus dice added to the pool (they stack)"
PENALTY_HELP = "Penalty dice removed from the pool (at least 1 die stays)"


def _bare(dice: int, label: str = "pool", bonus: int = 0, penalty: int = 0) -> Pool:
    return aethelgard.build_pool((PoolPart(label, dice),), bonus=bonus, penalty=penalty)


class AethelgardCog(
    commands.GroupCog, group_name="aethelgard", group_description="Aethelgard d10 pools"
):
    """Aethelgard: count 8-10 as successes and 1s as botches."""

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage

    async def _publish(
        self,
        interaction: discord.Interaction,
        kind: str,
        result: aethelgard.PoolRoll,
        pool: Pool,
        label: str,
        hidden: bool,
    ) -> None:
        """Log and show a pool roll; announce a public critical or fumble to the channel."""
        table = await Table.of(interaction, self.storage)
        table.check_hidden(hidden)
        roller = interaction.user.display_name
        embed = render.roll_result(result, pool, label, roller)
        await publish_roll(
            interaction, self.storage, table, Roll(kind, result, embed), hidden=hidden
        )
        if not hidden and (loud := render.announcement(result, label, roller)) is not None:
            await announce(interaction, loud)

    @app_commands.command(name="roll", description="Roll a d10 pool: 8–10 succeed, 1s botch")
    @app_commands.describe(
        pool=POOL_HELP,
        dc=f"Net successes needed, 0–{aethelgard.DC_MAX} (default 1)",
        bonus=BONUS_HELP,
        penalty=PENALTY_HELP,
        label="What the roll is for (shown with it)",
        hidden=HIDDEN_HELP,
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        pool: PoolSize,
        dc: DC = aethelgard.DEFAULT_DC,
        bonus: ModifierDice = 0,
        penalty: ModifierDice = 0,
        label: Label | None = None,
        hidden: bool = False,
    ) -> None:
        built = _bare(pool, bonus=bonus, penalty=penalty)
        result = aethelgard.roll_pool(self.bot.rng, built, dc)
        name = label.strip() if label and label.strip() else "pool roll"
        await self._publish(interaction, "aethelgard.roll", result, built, name, hidden)

    @app_commands.command(name="opposed", description="Opposed pools: the higher net wins")
    @app_commands.describe(pool="Your pool", vs_pool="The defender's pool (wins ties)")
    async def opposed(
        self, interaction: discord.Interaction, pool: PoolSize, vs_pool: PoolSize
    ) -> None:
        table = await Table.of(interaction, self.storage)
        result = aethelgard.opposed(self.bot.rng, _bare(pool), _bare(vs_pool))
        embed = render.opposed(result, interaction.user.display_name)
        roll = Roll("aethelgard.opposed", result, embed)
        await publish_roll(interaction, self.storage, table, roll, hidden=False)

    @app_commands.command(
        name="attack", description="Accuracy vs Defense, then damage less soak and block"
    )
    @app_commands.describe(
        accuracy="Accuracy pool (a critical doubles the damage pool)",
        defense=f"The target's Defense: accuracy net needed to hit, 0–{aethelgard.DEFENSE_MAX}",
        damage="Damage pool",
        soak=f"Armour soak taken off the damage net, 0–{aethelgard.SOAK_MAX}",
        block="The defender's block or parry pool (its net cancels damage one for one)",
    )
    async def attack(
        self,
        interaction: discord.Interaction,
        accuracy: PoolSize,
        defense: DC,
        damage: PoolSize,
        soak: DC = 0,
        block: PoolSize | None = None,
    ) -> None:
        table = await Table.of(interaction, self.storage)
        result = aethelgard.attack(
            self.bot.rng,
            _bare(accuracy),
            defense,
            _bare(damage),
            soak=soak,
            block=_bare(block) if block is not None else None,
        )
        embed = render.attack(result, interaction.user.display_name)
        roll = Roll("aethelgard.attack", result, embed)
        await publish_roll(interaction, self.storage, table, roll, hidden=False)

    @app_commands.command(name="craft", description="Craft: Standard, Masterwork or Legendary")
    @app_commands.describe(pool=POOL_HELP, bonus=BONUS_HELP)
    async def craft(
        self, interaction: discord.Interaction, pool: PoolSize, bonus: ModifierDice = 0
    ) -> None:
        table = await Table.of(interaction, self.storage)
        built = _bare(pool, bonus=bonus)
        result = aethelgard.roll_pool(self.bot.rng, built, 0)
        tier = aethelgard.craft_tier(result)
        roller = interaction.user.display_name
        embed = render.craft(result, tier, built, roller)
        await publish_roll(
            interaction, self.storage, table, Roll("aethelgard.craft", result, embed), hidden=False
        )
        if (loud := render.announcement(result, "crafting", roller)) is not None:
            await announce(interaction, loud)

    @app_commands.command(name="odds", description="Exact chances of a pool, with a chart")
    @app_commands.describe(
        pool=POOL_HELP, dc=f"Net successes needed, 0–{aethelgard.DC_MAX} (default 1)"
    )
    async def odds(
        self, interaction: discord.Interaction, pool: PoolSize, dc: DC = aethelgard.DEFAULT_DC
    ) -> None:
        result = aethelgard.odds(pool, dc)
        shown = aethelgard.shown_distribution(pool)
        outcomes = [_outcome(int(net), dc) for net in shown.outcomes()]
        png = await draw_chart(
            shown, outcomes, title=f"Net successes of {pool}d10", marker=dc, marker_label=f"DC {dc}"
        )
        await interaction.response.send_message(
            embed=render.odds(result), file=discord.File(io.BytesIO(png), filename="odds.png")
        )


def _outcome(net: int, dc: int) -> Outcome:
    if net >= max(aethelgard.CRITICAL_NET, dc):
        return Outcome.CRITICAL_SUCCESS
    return Outcome.SUCCESS if net >= dc and net > 0 else Outcome.FAILURE


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(AethelgardCog(bot))
