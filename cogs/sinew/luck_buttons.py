"""The Luck buttons under a Sinew & Steel roll: its roller's (🍀) and a defending player's (🛡️).

docs/players/sinew.md, "Rules notes" ("Luck buttons show only what helps"). Which spends to offer
is ``rules.sinew.luck_choices``; a press is handed to the cog (cogs.sinew.luck), which spends
in one transaction and edits the message in place.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar, Self

import discord

from bot.access import loaded_cog
from bot.buttons import RollButton
from bot.options import ID_PATTERN
from bot.render import sinew as render
from bot.storage import Character, Storage
from cogs.sinew.common import COG_NAME, Sheet
from rules import sinew

if TYPE_CHECKING:
    from cogs.sinew.luck import LuckCommands

ATTACK_OFFERS_SHOWN = 4  # Luck buttons under an attack; with Roll again, one row of five


def luck_buttons(
    root_id: int, result: sinew.Spendable, pressure: int, held: int
) -> list[LuckButton]:
    """Return the Luck buttons worth showing under a roll its roller can still change."""
    choices = sinew.luck_choices(result, held=held, pressure=pressure)[:ATTACK_OFFERS_SHOWN]
    return [LuckButton(root_id, choice.tokens, _label(result, choice)) for choice in choices]


def _label(result: sinew.Spendable, choice: sinew.LuckChoice) -> str:
    """Return a Luck button's label: what the spend costs and what it gives."""
    if choice.offer is not None:
        assert isinstance(result, sinew.AttackResult)
        return render.attack_offer_label(choice.offer, choice.cost, hit_now=result.hit)
    effect = "turns it" if isinstance(result, sinew.TestResult) else "wins it"
    turns = effect if choice.turns else None
    return render.luck_button_label(choice.shift, choice.cost, turns=turns)


def defender_buttons(
    root_id: int, result: sinew.Spendable, pressure: int, defender: Character[Sheet]
) -> list[DefenderLuckButton]:
    """Return a defending player's Luck buttons under a contest they are losing."""
    choices = sinew.luck_choices(
        result, held=defender.sheet.luck_tokens, pressure=pressure, side=sinew.Side.DEFENDER
    )
    effect = "makes it a miss" if isinstance(result, sinew.AttackResult) else "wins it"
    return [
        DefenderLuckButton(
            root_id,
            choice.tokens,
            render.defender_button_label(
                defender.name, choice.shift, choice.cost, turns=effect if choice.turns else None
            ),
        )
        for choice in choices
    ]


class _LuckSpendButton(RollButton, template=r"sinew:spend:(?!)"):
    """A persistent Luck button: the roll spent on and the tokens (``n``: what turns or wins
    it) are in the custom_id; the rest is read from the roll log and the sheet when pressed.
    A subclass gives its template, its look and which side of the roll spends."""

    id_prefix: ClassVar[str]
    button_emoji: ClassVar[str]
    button_style: ClassVar[discord.ButtonStyle]
    default_label: ClassVar[str]

    def __init__(self, roll_id: int, tokens: int | None, label: str | None = None) -> None:
        super().__init__(
            roll_id,
            discord.ui.Button(
                label=label or self.default_label,
                emoji=self.button_emoji,
                style=self.button_style,
                custom_id=f"{self.id_prefix}:{roll_id}:{'n' if tokens is None else tokens}",
            ),
        )
        self.tokens = tokens

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> Self:
        tokens = None if match["tokens"] == "n" else int(match["tokens"])
        return cls(int(match["roll_id"]), tokens, getattr(item, "label", None))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        from cogs.sinew.luck import LuckCommands  # which builds these buttons: imported late

        cog = loaded_cog(interaction, LuckCommands, COG_NAME, sinew.SYSTEM.display_name)
        await self.spend(cog, interaction)

    async def spend(self, cog: LuckCommands, interaction: discord.Interaction) -> None:
        raise NotImplementedError


class LuckButton(
    _LuckSpendButton,
    template=rf"sinew:luck:(?P<roll_id>{ID_PATTERN}):(?P<tokens>[0-9]{{1,2}}|n)",
):
    """Under a failed test: its roller spends Luck on it, in the same transaction as
    `/sinew luck spend`."""

    id_prefix = "sinew:luck"
    button_emoji = "🍀"
    button_style = discord.ButtonStyle.success
    default_label = "Spend Luck"

    async def spend(self, cog: LuckCommands, interaction: discord.Interaction) -> None:
        await cog.press_luck(interaction, self.roll_id, self.tokens)


class DefenderLuckButton(
    _LuckSpendButton,
    template=rf"sinew:dluck:(?P<roll_id>{ID_PATTERN}):(?P<tokens>[0-9]{{1,2}}|n)",
):
    """Under a contest against a player's character: its defender spends Luck on their own die;
    only the defender may press it, until either side rolls again in the channel."""

    id_prefix = "sinew:dluck"
    button_emoji = "🛡️"
    button_style = discord.ButtonStyle.secondary
    default_label = "Defend with Luck"

    async def spend(self, cog: LuckCommands, interaction: discord.Interaction) -> None:
        await cog.press_defender_luck(interaction, self.roll_id, self.tokens)
