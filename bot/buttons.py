"""Buttons under every roll: Reveal (a hidden roll, for its GM) and Roll again (a public roll).

Both are persistent: the roll's id is in the button's custom_id and everything else is read
from the roll log when it is pressed, so they keep working after a restart and no view is held
in memory per roll. A command opts in to Roll again by registering a re-roller for its roll
kind (``register_reroll``), which repeats the command with the options it logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar, cast

import discord

from bot.access import dice_bot, postable_channel, storage_of
from bot.asker import Asker
from bot.discord_private import press_is_dispatched
from bot.errors import RESTARTING_MESSAGE, CommandError, reply_ephemeral, report_error
from bot.options import ID_PATTERN, stored_id
from bot.render import campaign as render
from bot.storage import LoggedRoll, Storage, Visibility
from bot.storage.errors import RollNotFound
from rules.roll_kinds import OPTIONS

__all__ = [
    "NO_LONGER_ACTIVE",
    "PersistentItem",
    "Rebuilder",
    "Reroller",
    "RevealButton",
    "RollAgainButton",
    "RollButton",
    "SentView",
    "ShownMessages",
    "acts_on_latest",
    "answer_component",
    "answer_unclaimed_press",
    "refresh_latest_buttons",
    "register_latest_only",
    "register_reroll",
    "retire_buttons",
    "retire_rolled_past",
    "retired_view",
    "retires_past",
    "reveal_roll",
    "roll_buttons",
    "shown_messages",
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


# A system's own buttons under a roll of its (the roller's latest roll here, or a spend on it),
# derived from what is stored now (None: leave the message as it is). The same code builds them
# when the roll is shown.
Rebuilder = Callable[
    [discord.Interaction, LoggedRoll], Awaitable[Sequence[discord.ui.Item[Any]] | None]
]


@dataclass(frozen=True, slots=True)
class _LatestOnly:
    """How a kind of roll shows buttons that act on its roller's latest roll only: the roll
    whose message shows them, and how to derive them anew from the stored state."""

    shown_on: Callable[[LoggedRoll], int]
    rebuild: Rebuilder | None = None


# The kinds of roll whose own buttons (a Luck spend, a die reroll, inspiration) act only on their
# roller's latest roll here, each with the roll whose message shows them (a Luck spend shows on
# the roll it spends on): when the roller rolls again, those buttons no longer apply.
_latest_only: dict[str, _LatestOnly] = {}


def register_latest_only(
    kind: str,
    shown_on: Callable[[LoggedRoll], int] = lambda roll: roll.id,
    rebuild: Rebuilder | None = None,
) -> None:
    """Declare that a public roll of ``kind`` loses its system's buttons (not Roll again) once its
    roller rolls again in the channel, and (``rebuild``) how its buttons are derived anew when the
    state they depend on changes (docs/players/index.md, "Buttons and announcements")."""
    _latest_only[kind] = _LatestOnly(shown_on, rebuild)


class ShownMessages:
    """What one bot keeps in memory about its rolls' messages. Each bot has its own
    (``DiceBot.shown_messages``): roll and message ids are unique only within one bot's
    database and Discord, and a process may run several bots (the tests do)."""

    def __init__(self) -> None:
        # One edit at a time of a roll's message (by id), so the last edit shows the last state.
        self._editing: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        # The rolls being shown (by id): what edits their message waits until it is known (an
        # Event made only when someone waits). See ``being_shown``.
        self._sending: dict[int, asyncio.Event | None] = {}
        # Whose latest roll here shows buttons of another user (a defender's Luck under an
        # attacker's contest), by (channel, that user): their rolls and state changes re-derive
        # those messages too. After a restart such a button is refused when pressed, and
        # removed then.
        self._shown_for: dict[tuple[int, int], set[int]] = {}

    def editing(self, message_id: int) -> asyncio.Lock:
        """Return the lock that orders the edits of a roll's message (hold it while reading
        the state the edit shows, so that the last edit shows the last state)."""
        lock = self._editing.get(message_id)
        if lock is None:
            lock = self._editing[message_id] = asyncio.Lock()
        return lock

    def shows_buttons_of(self, channel_id: int, user_id: int, roller_id: int) -> None:
        """Note that ``roller_id``'s latest roll here shows buttons of ``user_id`` (a defender's
        Luck): ``user_id``'s next roll or state change re-derives that message as well."""
        self._shown_for.setdefault((channel_id, user_id), set()).add(roller_id)

    def shows_any_of(self, channel_id: int, user_id: int) -> bool:
        """Whether a roll here shows buttons of ``user_id`` (``shows_buttons_of``)."""
        return (channel_id, user_id) in self._shown_for

    def take_shown_for(self, channel_id: int, user_id: int) -> list[int]:
        """Return, and forget, the rollers whose latest roll here shows buttons of ``user_id``:
        the caller derives those messages anew."""
        return sorted(self._shown_for.pop((channel_id, user_id), ()))

    @contextlib.contextmanager
    def being_shown(self, roll_id: int) -> Iterator[None]:
        """While roll ``roll_id`` is being sent and its message remembered (``publish_roll``),
        what edits that message (a typed Luck spend, inspiration awarded) waits for it
        (``until_shown``) instead of finding no message yet. Cheap: an Event is made only when
        someone waits."""
        self._sending[roll_id] = None
        try:
            yield
        finally:  # sent and remembered, or failed: wake what waits
            event = self._sending.pop(roll_id, None)
            if event is not None:
                event.set()

    def awaited(self, roll_id: int) -> bool:
        """Whether something waits (``until_shown``) for roll ``roll_id``'s message now."""
        return self._sending.get(roll_id) is not None

    async def until_shown(self, roll_id: int) -> None:
        """Wait until roll ``roll_id``'s message is sent and remembered, if it is being shown
        now."""
        if roll_id not in self._sending:
            return
        event = self._sending[roll_id]
        if event is None:
            event = self._sending[roll_id] = asyncio.Event()
        await event.wait()


def shown_messages(interaction: discord.Interaction) -> ShownMessages:
    """Return what the bot that received ``interaction`` keeps about its rolls' messages."""
    return dice_bot(interaction).shown_messages


async def retire_buttons(
    interaction: discord.Interaction, storage: Storage, previous: LoggedRoll | None
) -> None:
    """Take the buttons that no longer apply off ``previous``'s message (its roller has rolled
    past it): the buttons are derived anew from what is stored, so only Roll again stays. A
    message that can't be edited keeps them, refused when pressed."""
    if previous is None or previous.visibility is not Visibility.PUBLIC:
        return
    latest_only = _latest_only.get(previous.kind)
    if latest_only is None:
        return
    root = await _shown_on(storage, previous, latest_only)
    channel = postable_channel(interaction)
    if root is None or root.message_id is None or channel is None:
        return
    async with shown_messages(interaction).editing(root.message_id):
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(root.message_id).edit(view=retired_view(previous))


def retired_view(roll: LoggedRoll) -> discord.ui.View | None:
    """Return the buttons a roll keeps once its roller has rolled past it: Roll again (or
    Reveal) only. A refused press shows the same, so whichever edit lands last agrees."""
    return roll_buttons(roll.id, roll.kind, roll.visibility)


async def _shown_on(
    storage: Storage, roll: LoggedRoll, latest_only: _LatestOnly
) -> LoggedRoll | None:
    """Return the roll whose message shows ``roll``'s buttons (itself, or the roll spent on)."""
    root_id = latest_only.shown_on(roll)
    return roll if root_id == roll.id else await storage.rolls.get(root_id)


async def refresh_latest_buttons(
    interaction: discord.Interaction, storage: Storage, channel_id: int, user_id: int
) -> None:
    """Re-derive from the stored state the buttons of ``user_id``'s latest roll here, and of the
    rolls here that show buttons of theirs (a defender's Luck): called after a state change they
    depend on (Luck tokens, Pressure, inspiration), so a newly payable spend appears and an
    unpayable one goes (docs/players/index.md, "Buttons and announcements")."""
    await _rederive(interaction, storage, channel_id, user_id)
    for roller_id in shown_messages(interaction).take_shown_for(channel_id, user_id):
        if roller_id != user_id:
            await _rederive(interaction, storage, channel_id, roller_id)


async def _rederive(
    interaction: discord.Interaction, storage: Storage, channel_id: int, user_id: int
) -> None:
    """Edit the view of ``user_id``'s latest roll here to what its system derives now."""
    latest = await storage.rolls.latest(channel_id, user_id)
    latest_only = None if latest is None else _latest_only.get(latest.kind)
    if latest is None or latest_only is None or latest_only.rebuild is None:
        return
    root = await _shown_on(storage, latest, latest_only)
    channel = postable_channel(interaction)
    if latest.visibility is not Visibility.PUBLIC or channel is None or root is None:
        return
    shown = shown_messages(interaction)
    if root.message_id is None:  # being shown, maybe with buttons derived before the change
        await shown.until_shown(root.id)
        root = await storage.rolls.get(root.id)
        if root is None or root.message_id is None:
            return  # never shown in the channel: nothing to edit
    # Read under the lock: the last edit shows the last state.
    async with shown.editing(root.message_id):
        now = await storage.rolls.latest(channel_id, user_id)
        if now is None or now.kind != latest.kind or latest_only.shown_on(now) != root.id:
            return  # rolled past meanwhile: that roll took the buttons off
        extra = await latest_only.rebuild(interaction, now)
        if extra is None:
            return
        view = roll_buttons(now.id, now.kind, now.visibility, extra=extra)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(root.message_id).edit(view=view)


def acts_on_latest(kind: str | None) -> bool:
    """Whether a public roll of ``kind`` has buttons that act only on its roller's latest roll
    (``register_latest_only``): only then does rolling past it, or being it, retire any."""
    return kind in _latest_only


def retires_past(
    interaction: discord.Interaction,
    kind: str,
    previous_kind: str | None,
    channel_id: int,
    user_id: int,
) -> bool:
    """Whether ``retire_rolled_past`` has anything to do for a roll of ``kind`` whose roller's
    roll before it here is a public one of ``previous_kind`` (None: none, or a secret one):
    either has buttons acting on the latest roll, or a roll here shows buttons of the roller's."""
    return (
        acts_on_latest(kind)
        or acts_on_latest(previous_kind)
        or shown_messages(interaction).shows_any_of(channel_id, user_id)
    )


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
    last, only the latest keeps them). Rolls here showing buttons of the roller's (a defender's
    Luck) are derived anew: those end with this roll."""
    await retire_buttons(
        interaction, storage, await storage.rolls.latest(channel_id, user_id, before=roll_id)
    )
    for roller_id in shown_messages(interaction).take_shown_for(channel_id, user_id):
        if roller_id != user_id:
            await _rederive(interaction, storage, channel_id, roller_id)
    if kind not in _latest_only:
        return  # its own buttons don't depend on being the latest
    latest = await storage.rolls.latest(channel_id, user_id)
    if latest is None or latest.id == roll_id:
        return
    latest_only = _latest_only.get(latest.kind)
    if latest_only is not None and latest_only.shown_on(latest) == roll_id:
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


NO_LONGER_ACTIVE = "This {} is no longer active."
_unclaimed: set[asyncio.Task[None]] = set()  # answers under way (the loop keeps weak refs)


def answer_unclaimed_press(client: discord.Client, interaction: discord.Interaction) -> None:
    """Answer privately a press no item of the bot's takes, as it arrives: a forged or outdated
    custom id (one no button ever had, a button since removed from its message), which discord.py
    drops (``bot.discord_private.press_is_dispatched``) and Discord would show as "This interaction
    failed". Nothing else is done (docs/players/index.md, "Buttons and announcements")."""
    if interaction.type is not discord.InteractionType.component:
        return
    if press_is_dispatched(client, interaction):
        return
    data: Any = interaction.data or {}
    what = "button" if data.get("component_type") == discord.ComponentType.button.value else "menu"

    async def refuse() -> None:
        raise CommandError(NO_LONGER_ACTIVE.format(what))

    task = asyncio.create_task(answer_component(interaction, refuse), name="unclaimed-press")
    _unclaimed.add(task)
    task.add_done_callback(_unclaimed.discard)


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
        options = logged.payload.get(OPTIONS)
        if reroller is None or not isinstance(options, dict):
            raise CommandError("This roll can't be rolled again; use its command instead.")
        await reroller(interaction, options, logged.visibility)


def _check_roller(logged: LoggedRoll, user_id: int) -> None:
    if logged.user_id != user_id:
        raise CommandError(
            f"Only <@{logged.user_id}>, who made roll #{logged.id}, can roll it again. "
            "Make your own roll with the same command."
        )
