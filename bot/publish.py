"""The one way a roll reaches the table: logged (with any state it changes), shown, announced.

Every system's roll command ends here, public or hidden, with or without a state change:

    roll = Roll(CHECK_KIND, result, render.roll_result(result, roller))  # its declared kind
    await publish_roll(interaction, storage, table, roll, visibility, change=StateChange(
        apply=partial(challenges.count_roll, campaign, name, advance),  # one transaction
        show=render.add_challenge_progress,   # the new state, on the roll's own embed
        announce=render.challenge_announcement,  # to the whole channel, or None
    ))

The state change and the roll-log entry commit together, and the logged embed is the one shown
(with the new state on it), so a hidden roll revealed later looks exactly as the GM saw it.

A roll's visibility (public, hidden, blind) is one value, logged with it. Everything derived
from a logged roll (a reroll, a Luck spend, an inspiration reroll) logs the same visibility and
reaches the table through the same ``deliver_roll``, so a blind roll's follow-up shows its
roller only that they rolled in secret.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import discord
from discord import app_commands

from bot.access import postable_channel, storage_of
from bot.anywhere import in_server
from bot.asker import Asker
from bot.buttons import retire_rolled_past, retires_past, roll_buttons, shown_messages
from bot.gm_channel import readable_by_players
from bot.render.reply import what_of
from bot.render.style import shown
from bot.storage import Campaign, Change, RollEntry, Storage, Visibility
from bot.storage.errors import CannotSave
from bot.storage.rolls import ROLLER_CHARACTER
from rules.roll_kinds import EMBED, OPTIONS, PAYLOAD_VERSION, RESULT, VERSION, WHAT

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "Roll",
    "StateChange",
    "announce",
    "deliver_roll",
    "is_roll_command",
    "publish_or_show_unlogged",
    "publish_roll",
    "remember_message",
    "roll_command",
    "set_roll_footer",
    "show_logged_roll",
    "show_unlogged",
]

S = TypeVar("S")
C = TypeVar("C", bound=app_commands.Command[Any, Any, Any])
log = logging.getLogger(__name__)

_ROLLS = "rolls"  # the key of ``roll_command`` in a command's extras


def roll_command(command: C) -> C:
    """Declare a command that rolls dice or logs a roll (above ``app_commands.command``).

    The bot gives every roll command the user's roll rate limit and the campaign's default
    visibility of GM rolls (see ``bot.client``), and macros may hold one; a test walks the
    command tree for commands that log rolls without saying so.
    """
    command.extras[_ROLLS] = True
    return command


def is_roll_command(command: object) -> bool:
    """Whether ``command`` was declared with ``roll_command``."""
    return isinstance(command, app_commands.Command) and command.extras.get(_ROLLS) is True


@dataclass(frozen=True, slots=True)
class Roll:
    """A rules result about to be published: its log kind, the result, and its embed."""

    kind: str  # 'dice' for /roll, else '<system>.<command>'
    result: DataclassInstance
    embed: discord.Embed
    files: list[discord.File] = field(default_factory=list)
    # The command's options, as JSON: what Roll again repeats (see bot.buttons).
    options: Mapping[str, object] = field(default_factory=dict)
    # The characters this roll is the first of (``Character.first_rolls``): marked rolled with it.
    first_rolls: tuple[int, ...] = ()
    # The character who rolled, by id (``ROLLER_CHARACTER``): found again whatever it is called.
    character_id: int | None = None

    def entry(self, asker: Asker, visibility: Visibility) -> RollEntry:
        """Describe this roll for the roll log: its rules result and who may see it."""
        return RollEntry(
            campaign_id=asker.campaign.id if asker.campaign else None,
            guild_id=asker.guild_id,
            channel_id=asker.channel_id,
            user_id=asker.user_id,
            kind=self.kind,
            visibility=visibility,
            payload={
                # The dataclass itself: the roll log writes it as ``asdict`` would give it
                # (bot.storage.rolls), without copying it into dicts first.
                RESULT: self.result,
                EMBED: self.embed.to_dict(),
                OPTIONS: dict(self.options),
                VERSION: PAYLOAD_VERSION,
                **({} if (what := what_of(self.embed)) is None else {WHAT: what}),
                **({} if self.character_id is None else {ROLLER_CHARACTER: self.character_id}),
            },
            first_rolls=self.first_rolls,
        )


@dataclass(frozen=True, slots=True)
class StateChange(Generic[S]):
    """What a roll changes, as three steps the publish path runs in order.

    ``apply`` is a storage operation (bound to everything but the log entry) that reads the
    state, applies a pure rule, writes it and logs the roll in one transaction. ``show`` adds
    the new state to the roll's embed before it is logged; ``announce`` returns an embed for
    the whole channel (a challenge won, a Crisis) or None.
    """

    apply: Callable[[Callable[[S], RollEntry]], Awaitable[Change[S]]]
    show: Callable[[discord.Embed, S], None] = lambda embed, state: None
    announce: Callable[[S], discord.Embed | None] = lambda state: None


@dataclass(frozen=True, slots=True)
class Published(Generic[S]):
    """A published roll: its id in the log (None: shown unlogged, see ``publish_roll``), and
    the state change it made (if any)."""

    roll_id: int | None
    change: Change[S] | None


async def publish_roll(
    interaction: discord.Interaction,
    storage: Storage,
    asker: Asker,
    roll: Roll,
    visibility: Visibility,
    *,
    change: StateChange[S] | None = None,
    extra_buttons: Callable[[int], Sequence[discord.ui.Item[Any]]] | None = None,
) -> Published[S]:
    """Log a roll (and the state it changes, in the same transaction), deliver it, announce.

    ``visibility`` was checked by ``Asker.may_roll``. ``extra_buttons`` gives a system's own buttons
    for the roll, from its new id (a secret roll's roller may still use them: they lead to
    ``deliver_roll`` again). When the database can't be written the roll is refused (CannotSave): a
    secret roll, a Luck spend or a reroll needs the logged roll (but see
    ``publish_or_show_unlogged``). A crit or fumble is never announced on its own: a public roll
    shows it in its title, and a secret one is nobody else's business (docs/players/index.md,
    "Buttons and announcements").
    """
    # Whether the roller's roll before this one may need its buttons retired (unknown with a
    # state change: its transaction logs the roll).
    retire = True
    if change is None:
        recorded = await storage.rolls.record_noting_previous(roll.entry(asker, visibility))
        roll_id, changed = recorded.id, None
        retire = retires_past(
            interaction, roll.kind, recorded.previous_kind, asker.channel_id, asker.user_id
        )
    else:

        def log(state: S) -> RollEntry:
            change.show(roll.embed, state)
            return roll.entry(asker, visibility)

        changed = await change.apply(log)
        assert changed.roll_id is not None
        roll_id = changed.roll_id
    try:
        await show_logged_roll(
            interaction,
            storage,
            asker,
            roll_id,
            roll.kind,
            visibility,
            roll.embed,
            files=roll.files,
            view=roll_buttons(
                roll_id,
                roll.kind,
                visibility,
                extra=extra_buttons(roll_id) if extra_buttons else (),
            ),
            retire=retire,
        )
    finally:
        # What the channel must hear happened, whether or not the roller's reply got through.
        # (``changed`` is only ever set with a ``change``.)
        announcement = None if change is None or changed is None else change.announce(changed.after)
        if announcement is not None:
            await announce(interaction, announcement)
    return Published(roll_id, changed)


async def publish_or_show_unlogged(
    interaction: discord.Interaction,
    storage: Storage,
    asker: Asker,
    roll: Roll,
    visibility: Visibility,
) -> Published[Any]:
    """``publish_roll`` for a roll no other command builds on (`/roll`): when the database
    can't be written, a public one is still shown, without an id or buttons and saying it
    wasn't logged. A secret one is refused as ``publish_roll`` refuses it: its GMs would never
    see it."""
    try:
        return await publish_roll(interaction, storage, asker, roll, visibility)
    except CannotSave:
        if visibility.secret:
            raise
    await show_unlogged(interaction, roll)
    return Published(None, None)


async def show_logged_roll(
    interaction: discord.Interaction,
    storage: Storage,
    asker: Asker,
    roll_id: int,
    kind: str,
    visibility: Visibility,
    embed: discord.Embed,
    *,
    files: Sequence[discord.File] = (),
    view: discord.ui.View | None = None,
    retire: bool = True,
) -> None:
    """Deliver a newly logged roll (``deliver_roll``) and remember its message; then the
    roller's roll before it here loses the buttons that act on the latest roll
    (``retire``: unless the caller knows there are none). Until its message is remembered,
    what edits it (a typed Luck spend, inspiration awarded) waits for it (bot.buttons)."""
    with shown_messages(interaction).being_shown(roll_id):
        message_id = await deliver_roll(
            interaction, asker, roll_id, visibility, embed, files=files, view=view
        )
        await remember_message(storage, roll_id, message_id)
        if retire:
            await retire_rolled_past(
                interaction, storage, roll_id, kind, asker.channel_id, asker.user_id
            )


async def deliver_roll(
    interaction: discord.Interaction,
    asker: Asker,
    roll_id: int,
    visibility: Visibility,
    embed: discord.Embed,
    *,
    files: Sequence[discord.File] = (),
    view: discord.ui.View | None = None,
    edit: bool = False,
) -> int | None:
    """Answer ``interaction`` with a logged roll as its visibility allows: the one way any
    roll, first or derived from another, reaches anyone. Return the id of the public message
    that shows it (None: a secret roll's private reply, or no id known).

    Public: to the channel. Hidden: to the GM who rolled alone, with Reveal, and a copy to the
    campaign's GM log channel (and, with ``secret_notice`` on, "rolled in secret" to the
    channel, as for a blind roll). Blind: the roller is told only that they rolled in secret; the
    GMs get it (the GM log channel, else DMs). ``edit``: a button under the roll was pressed,
    so the message is edited in place (a blind roll's never is: its roller gets the notice).
    """
    if visibility is Visibility.BLIND:  # each copy for the GMs carries its own footer
        await _deliver_blind(interaction, asker, roll_id, embed)
        return None
    set_roll_footer(embed, roll_id, visibility)
    hidden = visibility is Visibility.HIDDEN
    message_id: int | None
    if edit:  # the pressed message keeps its attachments: a derived roll adds none
        await interaction.response.edit_message(embed=embed, view=view)
        message_id = interaction.message.id if interaction.message is not None else None
    else:
        sent = await interaction.response.send_message(
            embed=embed, ephemeral=hidden, files=list(files), view=view or discord.utils.MISSING
        )
        message_id = sent.message_id
    if hidden:
        await _post_to_gm_channel(interaction, asker, roll_id, embed)
        await _secret_notice(interaction, asker)
        return None
    return message_id


async def _secret_notice(interaction: discord.Interaction, asker: Asker) -> None:
    """With the campaign's ``secret_notice`` on, tell the channel that someone rolled in secret:
    the same line for a GM's hidden roll as for a player's blind one (docs/gms.md, "Hidden,
    blind and reveal")."""
    if asker.campaign is not None and asker.campaign.switches.secret_notice:
        roller = shown(interaction.user.display_name)
        await announce(interaction, content=f"🎲 {roller} rolled in secret.")


async def remember_message(storage: Storage, roll_id: int, message_id: int | None) -> None:
    """Remember the public message showing a roll, for what later edits it in place (a typed
    Luck spend); when the database can't be written the roll is shown all the same."""
    if message_id is None:
        return
    try:
        await storage.rolls.set_message(roll_id, message_id)
    except CannotSave:
        log.warning("Could not remember the message of roll #%d", roll_id)


async def _post_to_gm_channel(
    interaction: discord.Interaction, asker: Asker, roll_id: int, embed: discord.Embed
) -> bool:
    """Post a secret roll to the campaign's GM log channel with a Reveal button.

    Returns whether it got there (no channel set, one the bot can't reach, or one that members
    who aren't GMs can now read: False; see ``_stop_gm_channel``).
    """
    campaign = asker.campaign
    channel_id = campaign.switches.gm_channel_id if campaign else None
    if campaign is None or channel_id is None:
        return False
    channel = interaction.client.get_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        return False
    if isinstance(channel, discord.abc.GuildChannel):
        readers = readable_by_players(channel, campaign)
        if readers is not None:
            await _stop_gm_channel(interaction, asker, campaign, channel_id, readers)
            return False
    copy = discord.Embed.from_dict(embed.to_dict())
    copy.set_footer(text=f"Secret roll #{roll_id} by {interaction.user.display_name}")
    view = roll_buttons(roll_id, "", Visibility.HIDDEN)
    assert view is not None  # a hidden roll always has its Reveal button
    try:
        await channel.send(embed=copy, view=view)
    except discord.HTTPException:
        log.warning("Could not post secret roll #%d to the GM log channel %d", roll_id, channel_id)
        return False
    return True


async def _stop_gm_channel(
    interaction: discord.Interaction,
    asker: Asker,
    campaign: Campaign,
    channel_id: int,
    readers: str,
) -> None:
    """The GM log channel became readable by players: stop copying secret rolls there (the
    setting is cleared) and tell the GMs, once: only the roll that clears it tells them."""
    storage = storage_of(interaction)
    try:
        cleared = await storage.campaigns.drop_gm_channel(campaign, channel_id)
    except CannotSave:
        return  # still not posted there; the next secret roll tries again
    if not cleared:
        return
    notice = (
        f"⚠️ <#{channel_id}> can now be read by {readers}, who aren't GMs of "
        f"**{campaign.settings.name}**: I stopped copying secret rolls there. Choose a channel "
        "only GMs can read with `/campaign settings gm_channel`."
    )
    log.warning("GM log channel %d of campaign %d became readable: cleared", channel_id,
                campaign.id)  # fmt: skip
    if asker.is_gm:
        await interaction.followup.send(notice, ephemeral=True)
    await _direct_to_gms(interaction, campaign, notice, embed=None, skip=asker.user_id)


async def _deliver_blind(
    interaction: discord.Interaction, asker: Asker, roll_id: int, embed: discord.Embed
) -> None:
    """Tell the player only that they rolled; give the GMs the result.

    The GMs get it in the GM log channel when the campaign has one, else by direct message
    (each GM whose DMs are open); the player is told if no GM could be reached.
    """
    campaign = asker.require_campaign()
    await interaction.response.send_message(
        f"🙈 You rolled in secret: the GM has the result (roll #{roll_id}).", ephemeral=True
    )
    reached = await _post_to_gm_channel(interaction, asker, roll_id, embed)
    if not reached:
        copy = discord.Embed.from_dict(embed.to_dict())
        copy.set_footer(
            text=f"Blind roll #{roll_id} by {interaction.user.display_name}. "
            f"Reveal it with /campaign reveal roll_id:{roll_id} in the campaign's channel"
        )
        reached = await _direct_to_gms(interaction, campaign, None, embed=copy)
    if not reached:
        await interaction.followup.send(
            "⚠️ No GM could be reached (no GM log channel, and their DMs are closed). The roll "
            "is logged: a GM sees it in `/campaign log`.",
            ephemeral=True,
        )
    await _secret_notice(interaction, asker)


async def _direct_to_gms(
    interaction: discord.Interaction,
    campaign: Campaign,
    content: str | None,
    *,
    embed: discord.Embed | None,
    skip: int | None = None,
) -> bool:
    """Send a message to each GM of the campaign by direct message; return whether any got it."""
    reached = False
    for gm_id in sorted({campaign.created_by, *campaign.gm_ids} - {skip}):
        try:
            user = interaction.client.get_user(gm_id) or await interaction.client.fetch_user(gm_id)
            await user.send(content, embed=embed)  # type: ignore[arg-type]  # discord.py: send() takes embed=None (its default), its overloads omit it
            reached = True
        except discord.HTTPException:  # DMs closed (403), or the user is gone
            log.info("GM %d can't be reached by DM", gm_id)
    return reached


async def show_unlogged(interaction: discord.Interaction, roll: Roll) -> None:
    """Show a public roll the database could not log: no id, no buttons, and a note saying so
    (the player keeps their roll; nobody is told of an id that doesn't exist)."""
    roll.embed.set_footer(text="Not in the roll log: the bot can't save right now")
    await interaction.response.send_message(embed=roll.embed, files=roll.files)


def set_roll_footer(embed: discord.Embed, roll_id: int, visibility: Visibility) -> None:
    """Put the roll's id under it (and, when secret, how to reveal it)."""
    if visibility is Visibility.PUBLIC:
        embed.set_footer(text=f"Roll #{roll_id}")
    else:
        embed.set_footer(
            text=f"Hidden roll #{roll_id}: only you see it. "
            f"Show it to the table with /campaign reveal roll_id:{roll_id}"
        )


async def announce(
    interaction: discord.Interaction,
    embed: discord.Embed | None = None,
    *,
    content: str | None = None,
    view: discord.ui.View | None = None,
) -> discord.Message | discord.WebhookMessage:
    """Post to the whole channel as a message of its own, never hidden; after the reply. Return
    the message (a six-pool contest's prompt is edited later through its id).

    Outside a server channel where the bot is installed (a DM, a group DM, a server where only the
    user installed it), or where the channel refuses the bot, it is a public followup to the
    interaction instead: nothing depends on the bot being able to post in the channel
    (docs/players/index.md, "Where commands work")."""
    missing = discord.utils.MISSING
    channel = postable_channel(interaction)
    if channel is not None and in_server(interaction):
        try:
            return await channel.send(content, embed=embed or missing, view=view or missing)
        except discord.Forbidden:
            log.info("Can't post in channel %s: announcing in a followup", interaction.channel_id)
    return await interaction.followup.send(
        content or missing, embed=embed or missing, view=view or missing, wait=True
    )
