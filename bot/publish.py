"""The one way a roll reaches the table: logged (with any state it changes), shown, announced.

Every system's roll command ends here, public or hidden, with or without a state change:

    roll = Roll("cosmos.roll", result, render.roll_result(result, roller))
    await publish_roll(interaction, storage, table, roll, hidden=hidden, change=StateChange(
        apply=partial(challenges.count_roll, campaign, name, advance),  # one transaction
        show=render.add_challenge_progress,   # the new state, on the roll's own embed
        announce=render.challenge_announcement,  # to the whole channel, or None
    ))

The state change and the roll-log entry commit together, and the logged embed is the one shown
(with the new state on it), so a hidden roll revealed later looks exactly as the GM saw it.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

import discord

from bot.buttons import roll_buttons
from bot.storage import Campaign, Change, RollEntry, Storage
from bot.storage.errors import CannotSave
from bot.table import Table

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = [
    "Roll",
    "StateChange",
    "announce",
    "announce_natural",
    "deliver_blind",
    "post_to_gm_channel",
    "publish_blind",
    "publish_roll",
    "set_roll_footer",
    "show_roll",
    "show_unlogged",
]

S = TypeVar("S")
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Roll:
    """A rules result about to be published: its log kind, the result, and its embed."""

    kind: str  # 'dice' for /roll, else '<system>.<command>'
    result: DataclassInstance
    embed: discord.Embed
    files: list[discord.File] = field(default_factory=list)
    # The command's options, as JSON: what Roll again repeats (see bot.buttons).
    options: Mapping[str, object] = field(default_factory=dict)

    def entry(self, table: Table, *, hidden: bool, blind: bool = False) -> RollEntry:
        """Describe this roll for the roll log: its rules result and how it was shown (a blind
        roll is logged hidden, marked blind)."""
        entry = RollEntry(
            campaign_id=table.campaign.id if table.campaign else None,
            guild_id=table.guild_id,
            channel_id=table.channel_id,
            user_id=table.user_id,
            kind=self.kind,
            hidden=hidden,
            payload={
                "result": dataclasses.asdict(self.result),
                "embed": self.embed.to_dict(),
                "options": dict(self.options),
            },
        )
        if blind:
            entry = dataclasses.replace(
                entry, hidden=True, payload={**entry.payload, "blind": True}
            )
        return entry


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
    table: Table,
    roll: Roll,
    *,
    hidden: bool,
    change: StateChange[S] | None = None,
    extra_buttons: Callable[[int], Sequence[discord.ui.Item[discord.ui.View]]] | None = None,
    blind: bool = False,
    log_optional: bool = False,
    natural: discord.Embed | None = None,
) -> Published[S]:
    """Log a roll (and the state it changes, in the same transaction), show it, announce.

    ``extra_buttons`` gives a system's own buttons for the roll, from its new id. ``blind``: a
    player's secret roll: the GMs get it (see ``deliver_blind``) and nothing is announced.
    ``log_optional``: a public roll no other command builds on (`/roll`) is still shown when
    the database can't be written, without an id or buttons and saying it wasn't logged; any
    other roll is then refused (CannotSave), since a secret roll, a Luck spend or a reroll
    needs the logged roll. ``natural``: a crit or fumble for the channel, announced (see
    ``announce_natural``) once a public roll is shown; never for a hidden or blind one.
    """
    if blind:
        table.check_secret(hidden, blind)
    if change is None:
        try:
            roll_id = await storage.rolls.record(roll.entry(table, hidden=hidden, blind=blind))
        except CannotSave:
            if not log_optional or hidden or blind:
                raise
            await show_unlogged(interaction, roll)
            return Published(None, None)
        changed = None
    else:

        def log(state: S) -> RollEntry:
            change.show(roll.embed, state)
            return roll.entry(table, hidden=hidden, blind=blind)

        changed = await change.apply(log)
        assert changed.roll_id is not None
        roll_id = changed.roll_id
    if blind:
        await deliver_blind(interaction, table, roll_id, roll.embed)
        return Published(roll_id, changed)
    try:
        await show_roll(
            interaction,
            roll_id,
            hidden=hidden,
            embed=roll.embed,
            files=roll.files,
            view=roll_buttons(
                roll_id,
                roll.kind,
                hidden=hidden,
                extra=extra_buttons(roll_id) if extra_buttons else (),
            ),
            table=table,
        )
    finally:
        # What the channel must hear happened, whether or not the roller's reply got through.
        announcement = None if changed is None else change.announce(changed.after)  # type: ignore[union-attr]
        if announcement is not None:
            await announce(interaction, announcement)
    if natural is not None and not hidden:
        await announce_natural(interaction, table, natural)
    return Published(roll_id, changed)


async def post_to_gm_channel(
    interaction: discord.Interaction, table: Table, roll_id: int, embed: discord.Embed
) -> bool:
    """Post a hidden or blind roll to the campaign's GM log channel with a Reveal button.

    Returns whether it got there (no channel set, or one the bot can't reach: False).
    """
    campaign = table.campaign
    channel_id = campaign.switches.gm_channel_id if campaign else None
    if channel_id is None:
        return False
    channel = interaction.client.get_channel(channel_id)
    if not isinstance(channel, discord.abc.Messageable):
        return False
    copy = discord.Embed.from_dict(embed.to_dict())
    copy.set_footer(text=f"Secret roll #{roll_id} by {interaction.user.display_name}")
    try:
        await channel.send(embed=copy, view=roll_buttons(roll_id, "", hidden=True))
    except discord.HTTPException:
        log.warning("Could not post secret roll #%d to the GM log channel %d", roll_id, channel_id)
        return False
    return True


async def publish_blind(
    interaction: discord.Interaction, storage: Storage, table: Table, roll: Roll
) -> int:
    """Log a player's blind roll and deliver it to the GMs only (see ``deliver_blind``)."""
    published = await publish_roll(interaction, storage, table, roll, hidden=False, blind=True)
    assert published.roll_id is not None  # a blind roll is never shown unlogged
    return published.roll_id


async def deliver_blind(
    interaction: discord.Interaction, table: Table, roll_id: int, embed: discord.Embed
) -> None:
    """Tell the player only that they rolled; give the GMs the result.

    The GMs get it in the GM log channel when the campaign has one, else by direct message
    (each GM whose DMs are open); the player is told if no GM could be reached.
    """
    campaign = table.require_campaign()
    await interaction.response.send_message(
        f"🙈 You rolled in secret: the GM has the result (roll #{roll_id}).", ephemeral=True
    )
    reached = await post_to_gm_channel(interaction, table, roll_id, embed)
    if not reached:
        reached = await _direct_to_gms(interaction, campaign, roll_id, embed)
    if not reached:
        await interaction.followup.send(
            "⚠️ No GM could be reached (no GM log channel, and their DMs are closed). The roll "
            "is logged: a GM sees it in `/campaign log`.",
            ephemeral=True,
        )
    if campaign.switches.secret_notice:
        assert interaction.channel is not None
        await interaction.channel.send(f"🎲 {interaction.user.display_name} rolled in secret.")


async def _direct_to_gms(
    interaction: discord.Interaction, campaign: Campaign, roll_id: int, embed: discord.Embed
) -> bool:
    """Send a blind roll to each GM by direct message; return whether any got it."""
    copy = discord.Embed.from_dict(embed.to_dict())
    copy.set_footer(
        text=f"Blind roll #{roll_id} by {interaction.user.display_name}. "
        f"Reveal it with /campaign reveal roll_id:{roll_id} in the campaign's channel"
    )
    reached = False
    for gm_id in sorted({campaign.created_by, *campaign.gm_ids}):
        try:
            user = interaction.client.get_user(gm_id) or await interaction.client.fetch_user(gm_id)
            await user.send(embed=copy)
            reached = True
        except discord.HTTPException:  # DMs closed (403), or the user is gone
            log.info("GM %d can't get blind roll #%d by DM", gm_id, roll_id)
    return reached


async def show_roll(
    interaction: discord.Interaction,
    roll_id: int,
    *,
    hidden: bool,
    embed: discord.Embed,
    files: list[discord.File] | None = None,
    view: discord.ui.View | None = None,
    table: Table | None = None,
) -> None:
    """Show a logged roll: to the channel, or to the GM alone (with how to reveal it) if hidden;
    a hidden roll at ``table`` is also copied to its campaign's GM log channel, if it has one."""
    set_roll_footer(embed, roll_id, hidden=hidden)
    await interaction.response.send_message(
        embed=embed, ephemeral=hidden, files=files or [], view=view or discord.utils.MISSING
    )
    if hidden and table is not None:
        await post_to_gm_channel(interaction, table, roll_id, embed)


async def show_unlogged(interaction: discord.Interaction, roll: Roll) -> None:
    """Show a public roll the database could not log: no id, no buttons, and a note saying so
    (the player keeps their roll; nobody is told of an id that doesn't exist)."""
    roll.embed.set_footer(text="Not in the roll log: the bot can't save right now")
    await interaction.response.send_message(embed=roll.embed, files=roll.files)


def set_roll_footer(embed: discord.Embed, roll_id: int, *, hidden: bool) -> None:
    """Put the roll's id under it (and, when hidden, how to reveal it)."""
    if hidden:
        embed.set_footer(
            text=f"Hidden roll #{roll_id}: only you see it. "
            f"Show it to the table with /campaign reveal roll_id:{roll_id}"
        )
    else:
        embed.set_footer(text=f"Roll #{roll_id}")


async def announce_natural(
    interaction: discord.Interaction, table: Table, embed: discord.Embed
) -> None:
    """Announce a public crit or fumble, unless the campaign switched those announcements off."""
    if table.campaign is not None and not table.campaign.switches.announce_naturals:
        return
    await announce(interaction, embed)


async def announce(interaction: discord.Interaction, embed: discord.Embed) -> None:
    """Post to the whole channel as a message of its own, never hidden."""
    assert interaction.channel is not None
    await interaction.channel.send(embed=embed)
