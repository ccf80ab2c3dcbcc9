"""Six-pool d20's persistent buttons and selects: contests, inspiration rerolls, group checks.

Each derives from ``bot.buttons.PersistentItem`` (restart refusal, id range check, one error
path) and hands its press to the cog; the custom_id formats are those of every message sent so
far, so old messages keep working.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import discord

from bot.access import dice_bot
from bot.buttons import PersistentItem, RollButton
from bot.errors import CommandError
from bot.options import ID_PATTERN
from bot.render.style import truncate
from bot.storage import Storage
from cogs.sixpool.options import COG_NAME, read_spend
from rules import sixpool

__all__ = [
    "DeclareButton",
    "GroupButton",
    "GroupSpendSelect",
    "RerollButton",
    "SpendSelect",
    "contest_view",
    "group_spend_view",
    "group_view",
    "reroll_buttons",
    "spend_view",
]

SELECT_MOST = 24  # a select offers at most 25 options: spend 0 to 24
INSPIRED = ":inspired"  # a spend select's id ends so when its pick spends inspiration too
LABEL_LIMIT = 80  # a button's label (Discord's limit)


@runtime_checkable
class Presses(Protocol):
    """What the cog does when one of these is pressed (the cog implements it)."""

    async def press_declare(self, interaction: discord.Interaction, contest_id: int) -> None: ...

    async def pick_spend(
        self, interaction: discord.Interaction, contest_id: int, spend: int, inspired: bool
    ) -> None: ...

    async def press_reroll(
        self, interaction: discord.Interaction, roll_id: int, index: int
    ) -> None: ...

    async def press_group_roll(self, interaction: discord.Interaction, group_id: int) -> None: ...

    async def press_group_close(self, interaction: discord.Interaction, group_id: int) -> None: ...

    async def pick_group_spend(
        self, interaction: discord.Interaction, group_id: int, spend: int, inspired: bool
    ) -> None: ...


def _cog(interaction: discord.Interaction) -> Presses:
    cog = dice_bot(interaction).get_cog(COG_NAME)
    if not isinstance(cog, Presses):
        raise CommandError("Six-pool d20 is not loaded; try again in a moment.")
    return cog


def _picked(interaction: discord.Interaction) -> int:
    """Return the spend picked in a select (a forged one is refused)."""
    data: Mapping[str, Any] = interaction.data or {}  # a select's: {"values": [...], ...}
    values = data.get("values") or ["0"]
    return read_spend(values[0])


def _stopped(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()  # discord.py keeps no view: the dynamic items answer every press
    return view


class DeclareButton(
    PersistentItem[discord.ui.Button[Any]],
    template=rf"sixpool:contest:(?P<contest_id>{ID_PATTERN})",
):
    """On a contest's prompt: the defender opens their private spend choice (persistent)."""

    id_kind = "contest"

    def __init__(self, contest_id: int) -> None:
        super().__init__(
            contest_id,
            discord.ui.Button(
                label="Declare my spend",
                emoji="🤫",
                style=discord.ButtonStyle.primary,
                custom_id=f"sixpool:contest:{contest_id}",
            ),
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> DeclareButton:
        return cls(int(match["contest_id"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        await _cog(interaction).press_declare(interaction, self.target_id)


class SpendSelect(
    PersistentItem[discord.ui.Select[Any]],
    template=rf"sixpool:spend:(?P<contest_id>{ID_PATTERN}):(?P<most>[0-9]{{1,2}})"
    rf"(?P<inspired>{INSPIRED})?",
):
    """The defender's private choice of spend, 0 to what Effort and the pool allow; a second
    one (``inspired``) spends their inspiration for advantage too."""

    id_kind = "contest"

    def __init__(self, contest_id: int, most: int, inspired: bool = False) -> None:
        plus = " + inspiration" if inspired else ""
        super().__init__(
            contest_id,
            discord.ui.Select(
                custom_id=f"sixpool:spend:{contest_id}:{most}{INSPIRED if inspired else ''}",
                placeholder=f"Points to spend{plus} (advantage)" if inspired else "Points to spend",
                options=[
                    discord.SelectOption(label=f"Spend {n}{plus}", value=str(n))
                    for n in range(most + 1)
                ],
            ),
        )
        self.inspired = inspired

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SpendSelect:
        most = min(int(match["most"]), SELECT_MOST)
        return cls(int(match["contest_id"]), most, bool(match["inspired"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        spend = _picked(interaction)
        await _cog(interaction).pick_spend(interaction, self.target_id, spend, self.inspired)


class RerollButton(
    RollButton, template=rf"sixpool:reroll:(?P<roll_id>{ID_PATTERN}):(?P<index>[01])"
):
    """Under a roll whose roller holds inspiration: spend it to reroll this die (persistent).
    ``who``: whose die, under a contest showing both players' sides."""

    def __init__(
        self, roll_id: int, index: int, face: int | None = None, who: str | None = None
    ) -> None:
        shown = f" ({face})" if face is not None else ""
        label = f"Reroll die {index + 1}{shown}"
        super().__init__(
            roll_id,
            discord.ui.Button(
                label=truncate(f"{who}: {label[0].lower()}{label[1:]}", LABEL_LIMIT)
                if who
                else label,
                emoji="✨",
                style=discord.ButtonStyle.secondary,
                custom_id=f"sixpool:reroll:{roll_id}:{index}",
            ),
        )
        self.index = index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RerollButton:
        return cls(int(match["roll_id"]), int(match["index"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        await _cog(interaction).press_reroll(interaction, self.roll_id, self.index)


class GroupButton(
    PersistentItem[discord.ui.Button[Any]],
    template=rf"sixpool:group:(?P<group_id>{ID_PATTERN}):(?P<action>roll|close)",
):
    """Under a group check: Roll (each participant, once) and Close (a GM); persistent."""

    id_kind = "group check"

    def __init__(self, group_id: int, action: str) -> None:
        roll = action == "roll"
        super().__init__(
            group_id,
            discord.ui.Button(
                label="Roll" if roll else "Close (GM)",
                emoji="🎲" if roll else "🏁",
                style=discord.ButtonStyle.primary if roll else discord.ButtonStyle.secondary,
                custom_id=f"sixpool:group:{group_id}:{action}",
            ),
        )
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GroupButton:
        return cls(int(match["group_id"]), match["action"])

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        cog = _cog(interaction)
        press = cog.press_group_roll if self.action == "roll" else cog.press_group_close
        await press(interaction, self.target_id)


class GroupSpendSelect(
    PersistentItem[discord.ui.Select[Any]],
    template=rf"sixpool:groupspend:(?P<group_id>{ID_PATTERN}):(?P<most>[0-9]{{1,2}})"
    rf"(?P<inspired>{INSPIRED})?",
):
    """A participant's private choice of spend for their group roll; a second one
    (``inspired``) spends their inspiration for advantage too."""

    id_kind = "group check"

    def __init__(self, group_id: int, most: int, inspired: bool = False) -> None:
        plus = " and inspiration" if inspired else ""
        super().__init__(
            group_id,
            discord.ui.Select(
                custom_id=f"sixpool:groupspend:{group_id}:{most}{INSPIRED if inspired else ''}",
                placeholder=(
                    "Points to spend, with inspiration (advantage), then roll"
                    if inspired
                    else "Points to spend, then roll"
                ),
                options=[
                    discord.SelectOption(label=f"Roll, spending {n}{plus}", value=str(n))
                    for n in range(most + 1)
                ],
            ),
        )
        self.inspired = inspired

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GroupSpendSelect:
        most = min(int(match["most"]), SELECT_MOST)
        return cls(int(match["group_id"]), most, bool(match["inspired"]))

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        spend = _picked(interaction)
        await _cog(interaction).pick_group_spend(interaction, self.target_id, spend, self.inspired)


def contest_view(contest_id: int) -> discord.ui.View:
    """Return the Declare button under a contest's prompt."""
    return _stopped(DeclareButton(contest_id))


def spend_view(contest_id: int, most: int, inspired: bool = False) -> discord.ui.View:
    """Return the defender's private spend select (and, holding inspiration, the one that
    spends it too)."""
    selects = [SpendSelect(contest_id, most)]
    if inspired:
        selects.append(SpendSelect(contest_id, most, inspired=True))
    return _stopped(*selects)


def group_view(group_id: int) -> discord.ui.View:
    """Return a group check's Roll and Close buttons."""
    return _stopped(GroupButton(group_id, "roll"), GroupButton(group_id, "close"))


def group_spend_view(group_id: int, most: int, inspired: bool = False) -> discord.ui.View:
    """Return a participant's private spend select for a group roll (and, holding
    inspiration, the one that spends it too)."""
    selects = [GroupSpendSelect(group_id, most)]
    if inspired:
        selects.append(GroupSpendSelect(group_id, most, inspired=True))
    return _stopped(*selects)


def reroll_buttons(
    roll_id: int, result: sixpool.RollResult, who: str | None = None
) -> list[RerollButton]:
    """Offer inspiration's reroll on each die of a roll (its holder decides after seeing it;
    ``who``: whose, under a contest showing both players' sides)."""
    if result.take is not None:
        return []
    return [RerollButton(roll_id, index, face, who) for index, face in enumerate(result.dice)]
