"""Buttons under every roll: Reveal (a hidden roll, for its GM) and Roll again (a public roll).

Both are persistent: the roll's id is in the button's custom_id and everything else is read
from the roll log when it is pressed, so they keep working after a restart and no view is held
in memory per roll. A command opts in to Roll again by registering a re-roller for its roll
kind (``register_reroll``), which repeats the command with the options it logged.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, cast

import discord

from bot.access import dice_bot, postable_channel, storage_of
from bot.asker import Asker
from bot.errors import RESTARTING_MESSAGE, CommandError, reply_ephemeral, report_error
from bot.options import ID_PATTERN, stored_id
from bot.render import campaign as render
from bot.storage import LoggedRoll, Storage, Visibility
from bot.storage.errors import RollNotFound

__all__ = [
    "PersistentItem",
    "Reroller",
    "RevealButton",
    "RollAgainButton",
    "RollButton",
    "SentView",
    "answer_component",
    "register_latest_only",
    "register_reroll",
    "retire_buttons",
    "retire_rolled_past",
    "reveal_roll",
    "roll_buttons",
]

# Repeats a logged roll for the user who pressed Roll again, with the options it logged and as
# secret as it was (a forged press under a blind roll rolls blind again).
Reroller = Callable[[discord.Interaction, Mapping[str, Any], Visibility], Awaitable[None]]
# The kinds of roll any system rolls again, which decide whether a roll gets the button. The
# rerollers themselves are kept by each bot (bound to its own cogs: a test process runs many).
_rerollable: set[str] = set()


class RerollHost(Protocol):
    """A bot that keeps the rerollers of its cogs (``DiceBot``)."""

    rerollers: dict[str, Reroller]


# The kinds of roll whose own buttons (a Luck spend, a die reroll, inspiration) act only on their
# roller's latest roll here, each with the roll whose message shows them (a Luck spend shows on
# the roll it spends on): when the roller rolls again, those buttons no longer apply.
_latest_only: dict[str, Callable[[LoggedRoll], int]] = {}


def register_latest_only(
    kind: str, shown_on: Callable[[LoggedRoll], int] = lambda roll: roll.id
) -> None:
    """Declare that a public roll of ``kind`` loses its system's buttons (not Roll again) once its
    roller rolls again in the channel (README, "Buttons and announcements")."""
    _latest_only[kind] = shown_on


async def retire_buttons(
    interaction: discord.Interaction, storage: Storage, previous: LoggedRoll | None
) -> None:
    """Take the buttons that no longer apply off ``previous``'s message (its roller has rolled
    past it): the buttons are derived anew from what is stored, so only Roll again stays. A
    message that can't be edited keeps them, refused when pressed."""
    if previous is None or previous.visibility is not Visibility.PUBLIC:
        return
    shown_on = _latest_only.get(previous.kind)
    if shown_on is None:
        return
    root = (
        previous
        if shown_on(previous) == previous.id
        else await storage.rolls.get(shown_on(previous))
    )
    channel = postable_channel(interaction)
    if root is None or root.message_id is None or channel is None:
        return
    view = roll_buttons(previous.id, previous.kind, previous.visibility)
    with contextlib.suppress(discord.HTTPException):
        await channel.get_partial_message(root.message_id).edit(view=view)


async def retire_rolled_past(
    interaction: discord.Interaction,
    storage: Storage,
    roll_id: int,
    kind: str,
    channel_id: int,
    user_id: int,
) -> None:
    """Once roll ``roll_id``'s message is shown and remembered: the roller's roll before it here
    loses the buttons that act on the latest roll, and so does ``roll_id`` itself (of ``kind``)
    when a newer roll of theirs has landed meanwhile (two rolls at once: whichever is shown
    last, only the latest keeps them)."""
    await retire_buttons(
        interaction, storage, await storage.rolls.latest(channel_id, user_id, before=roll_id)
    )
    if kind not in _latest_only:
        return  # its own buttons don't depend on being the latest
    latest = await storage.rolls.latest(channel_id, user_id)
    if latest is None or latest.id == roll_id:
        return
    shown_on = _latest_only.get(latest.kind)
    if shown_on is not None and shown_on(latest) == roll_id:
        return  # a Luck spend on this very roll: it shows on this roll's message
    await retire_buttons(interaction, storage, await storage.rolls.get(roll_id))


def register_reroll(bot: RerollHost, kind: str, reroller: Reroller) -> None:
    """Let public rolls of ``kind`` be rolled again by their roller, through ``bot``'s cog."""
    bot.rerollers[kind] = reroller
    _rerollable.add(kind)


def roll_buttons(
    roll_id: int,
    kind: str,
    visibility: Visibility,
    *,
    extra: Sequence[discord.ui.Item[Any]] = (),
) -> discord.ui.View | None:
    """Return the buttons under a roll: Reveal when secret, Roll again when it can be, and a
    system's own (``extra``, e.g. Sinew & Steel's Luck spends)."""
    button: type[RevealButton | RollAgainButton] | None = None
    if visibility.secret:
        button = RevealButton
    elif kind in _rerollable:
        button = RollAgainButton
    if not extra:  # the usual roll: its one button as a payload (see SentView)
        return None if button is None else SentView.of(button, roll_id)
    items: list[discord.ui.Item[Any]] = [] if button is None else [button(roll_id)]
    items.extend(extra)
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    # Stopped, so discord.py keeps no view per roll: the dynamic item answers every press.
    view.stop()
    return view


class SentView(discord.ui.View):
    """A roll's one button (Reveal or Roll again), as the payload discord.py sends.

    discord.py asks a view it sends for its components and whether it is finished (this one
    is: the dynamic items answer presses, so no view is kept per message, as a stopped view).
    A full View and its dynamic item cost a future, an id and the item's copies on every roll
    (~0.12 ms on the bench machine under load); this is one dict per roll (~5 µs), from a
    template laid out once per button class by discord.py itself, so the payload is the same.
    """

    _templates: ClassVar[dict[type[RollButton], tuple[dict[str, Any], dict[str, Any]]]] = {}

    def __init__(self, components: list[dict[str, Any]]) -> None:
        # Deliberately not View.__init__: nothing of a live view is used (see the class).
        self._components = components

    @classmethod
    def of(cls, button: type[RevealButton | RollAgainButton], roll_id: int) -> SentView:
        """The view holding ``button`` for roll ``roll_id``, laid out as a View lays it out."""
        template = cls._templates.get(button)
        if template is None:
            view = discord.ui.View(timeout=None)
            view.add_item(button(0))
            view.stop()
            [row] = view.to_components()
            [item] = row["components"]
            template = cls._templates[button] = (dict(row), dict(item))
        row, item = template
        custom_id = button.custom_id_of(roll_id)
        return cls([{**row, "components": [{**item, "custom_id": custom_id}]}])

    def to_components(self) -> list[dict[str, Any]]:
        return self._components

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False

    @property
    def timeout(self) -> float | None:
        return None

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        raise TypeError("a sent roll's view has no timeout: it is finished")

    def __repr__(self) -> str:
        return f"<SentView components={self._components!r}>"


async def reveal_roll(interaction: discord.Interaction, storage: Storage, roll_id: int) -> None:
    """Show a secret roll to the channel it was rolled in, as `/campaign reveal` and Reveal do.

    The roll log decides, in the roll's own server and campaign, whether the asker may (see
    ``RollLog.reveal``). Asked in the roll's channel (or a thread of it), the answer is the
    roll; asked elsewhere (the GM log channel), the roll is posted to its channel and the GM
    is told so privately.
    """
    asker = await Asker.of(interaction, storage)
    elsewhere: list[discord.abc.Messageable] = []  # the roll's channel, when not this one

    def reach(roll: LoggedRoll) -> None:  # before it is marked: a roll nobody can see stays
        elsewhere.clear()  # a retried transaction asks again
        if roll.channel_id != asker.channel_id:
            channel = interaction.client.get_channel(roll.channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                raise CommandError("I can't reach the roll's channel any more to reveal it there.")
            elsewhere.append(channel)

    roll = await storage.rolls.reveal(roll_id, asker.revealer, before=reach)
    if not elsewhere:
        await interaction.response.send_message(embed=render.revealed_roll(roll))
        return
    await elsewhere[0].send(embed=render.revealed_roll(roll))
    await interaction.response.send_message(
        f"🔓 Revealed roll #{roll_id} in <#{roll.channel_id}>.", ephemeral=True
    )


async def answer_component(
    interaction: discord.Interaction, press: Callable[[], Awaitable[None]]
) -> None:
    """Run a persistent component's press like a command: refused while restarting, and any
    error answered privately through the bot's one error path."""
    admit = getattr(interaction.client, "admit", None)
    if admit is not None and not admit(interaction):
        await reply_ephemeral(interaction, RESTARTING_MESSAGE)
        return
    try:
        await press()
    except Exception as error:  # discord.py would only log it: answer like a command
        await report_error(interaction, error)


# A persistent item is a button or a select: anything discord.py dispatches by custom_id.
ItemT = TypeVar("ItemT", bound=discord.ui.Item[Any])


class PersistentItem(discord.ui.DynamicItem[ItemT], template=r"persistent:(?!)"):
    """A persistent button or select naming one stored thing (a roll, a contest…) by id.

    Every system's persistent components derive from it: a press is refused while restarting,
    the id from the custom_id is range-checked (a forged one never reaches storage), and any
    error is answered privately through the bot's one error path. A subclass gives its own
    ``template``, builds its item in ``__init__``, says what its id names in ``id_kind`` and
    does its work in ``press``.
    """

    id_kind: ClassVar[str] = "roll"

    def __init__(self, target_id: int, item: ItemT) -> None:
        super().__init__(item)
        self.target_id = target_id

    async def callback(self, interaction: discord.Interaction) -> None:
        async def press() -> None:
            stored_id(self.target_id, self.id_kind)
            await self.press(interaction, storage_of(interaction))

        await answer_component(interaction, press)

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        """Do what the press asks (the id is already checked)."""
        raise NotImplementedError


class RollButton(PersistentItem[discord.ui.Button[Any]], template=r"roll:(?!)"):
    """A button naming a roll by id; presses go through the bot's one error path."""

    action = ""
    custom_id_prefix: ClassVar[str] = ""  # its custom_id is this and the roll's id

    @classmethod
    def custom_id_of(cls, roll_id: int) -> str:
        """Return the custom_id of this button under roll ``roll_id``."""
        return f"{cls.custom_id_prefix}{roll_id}"

    def __init__(self, roll_id: int, button: discord.ui.Button[Any]) -> None:
        super().__init__(roll_id, button)

    @property
    def roll_id(self) -> int:
        """Return the id of the roll the button is under."""
        return self.target_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> RollButton:
        # Every concrete roll button is built from its roll id alone.
        return cast("Callable[[int], RollButton]", cls)(int(match["roll_id"]))


class RevealButton(RollButton, template=rf"roll:reveal:(?P<roll_id>{ID_PATTERN})"):
    """Under a hidden roll's private reply: post it to the table (a GM of its campaign)."""

    custom_id_prefix = "roll:reveal:"

    def __init__(self, roll_id: int) -> None:
        super().__init__(
            roll_id,
            discord.ui.Button(
                label="Reveal",
                emoji="🔓",
                style=discord.ButtonStyle.secondary,
                custom_id=self.custom_id_of(roll_id),
            ),
        )

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        await reveal_roll(interaction, storage, self.roll_id)


class RollAgainButton(RollButton, template=rf"roll:again:(?P<roll_id>{ID_PATTERN})"):
    """Under a public roll: its roller rolls the same again (new dice, a new log entry)."""

    custom_id_prefix = "roll:again:"

    def __init__(self, roll_id: int) -> None:
        super().__init__(
            roll_id,
            discord.ui.Button(
                label="Roll again",
                emoji="🎲",
                style=discord.ButtonStyle.primary,
                custom_id=self.custom_id_of(roll_id),
            ),
        )

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        logged = await storage.rolls.get(self.roll_id)
        if logged is None:
            raise RollNotFound(self.roll_id)
        _check_roller(logged, interaction.user.id)
        reroller = dice_bot(interaction).rerollers.get(logged.kind)
        options = logged.payload.get("options")
        if reroller is None or not isinstance(options, dict):
            raise CommandError("This roll can't be rolled again; use its command instead.")
        await reroller(interaction, options, logged.visibility)


def _check_roller(logged: LoggedRoll, user_id: int) -> None:
    if logged.user_id != user_id:
        raise CommandError(
            f"Only <@{logged.user_id}>, who made roll #{logged.id}, can roll it again. "
            "Make your own roll with the same command."
        )
