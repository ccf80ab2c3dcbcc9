"""The GM log channel must be one only GMs can read: every secret roll is copied there in full.

Permissions are as Discord computes them: the default role (@everyone), each role with the
channel's overwrites for it, and overwrites for single members. Members with Manage Server count
as GMs (docs/gms.md, "The GM log channel").
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import discord
import pytest

from bot.client import DiceBot, create_bot
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings, sync_as_the_first_start_did
from tests.fakediscord import payloads
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

VIEW = payloads.VIEW_CHANNEL


@dataclass
class Table:
    fake: FakeDiscord
    bot: DiceBot
    players_role: int  # a role of players, no Manage Server
    stewards_role: int  # a role with Manage Server: its members count as GMs
    players_see: int  # hidden from @everyone, shown to the players' role
    player_sees: int  # hidden from @everyone, shown to the player by name
    stewards_see: int  # hidden from @everyone, shown to the stewards' role
    moderators_see: int  # ... shown to a role with Manage Channels (not Manage Server)
    other_bot_sees: int  # ... shown to another bot's managed role
    this_bot_sees: int  # ... shown to this bot's own managed role

    async def settled(self) -> None:
        await self.fake.wait_until(lambda: not self.bot.in_flight, "the bot to settle")


@pytest.fixture
async def table(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[Table]:
    fake = fake_discord
    players = fake.add_role("Players", payloads.EVERYONE_PERMISSIONS)
    stewards = fake.add_role("Stewards", payloads.MANAGE_GUILD)
    hidden = payloads.overwrite(fake.guild_id, deny=VIEW)
    players_see = fake.add_text_channel(
        "players", [hidden, payloads.overwrite(players, allow=VIEW)]
    )
    player = fake.users["player"].id
    player_sees = fake.add_text_channel(
        "whispers", [hidden, payloads.overwrite(player, member=True, allow=VIEW)]
    )
    stewards_see = fake.add_text_channel(
        "stewards", [hidden, payloads.overwrite(stewards, allow=VIEW)]
    )
    # Manage Channels is not Manage Server: a moderator is no GM of a campaign.
    moderators = fake.add_role("Moderators", payloads.MANAGE_CHANNELS)
    moderators_see = fake.add_text_channel(
        "moderators", [hidden, payloads.overwrite(moderators, allow=VIEW)]
    )
    # Another bot's role: whoever runs that bot reads what it reads.
    other_bot = fake.add_role("Other Bot", 0, bot_id=payloads.snowflake())
    other_bot_sees = fake.add_text_channel(
        "other-bot", [hidden, payloads.overwrite(other_bot, allow=VIEW)]
    )
    this_bot = fake.add_role("Fake Dice Bot", 0, bot_id=fake.application_id)
    this_bot_sees = fake.add_text_channel(
        "this-bot", [hidden, payloads.overwrite(this_bot, allow=VIEW)]
    )
    bot = create_bot(bot_settings(fake, migrated_sqlite), rng=new_rng(DICE_SEED))
    sync_as_the_first_start_did(bot, fake)
    async with run_bot(fake, bot):
        found = Table(
            fake, bot, players, stewards, players_see, player_sees, stewards_see,
            moderators_see, other_bot_sees, this_bot_sees,
        )  # fmt: skip
        await fake.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"})
        yield found
        await found.settled()


async def gm_channel_of(table: Table) -> int | None:
    campaign = await table.bot.storage.campaigns.active(table.fake.channel_id)
    assert campaign is not None
    return campaign.switches.gm_channel_id


@pytest.mark.parametrize(
    ("channel", "readers"),
    [
        ("lobby", "everyone"),
        ("players", "the role Players"),
        ("whispers", "<@player>"),
        ("moderators", "the role Moderators"),
        ("other bot", "the role Other Bot"),
    ],
)
async def test_a_gm_log_channel_players_can_read_is_refused_and_nothing_changes(
    table: Table, channel: str, readers: str
) -> None:
    fake = table.fake
    channel_id = {
        "lobby": fake.other_channel_id,
        "players": table.players_see,
        "whispers": table.player_sees,
        "moderators": table.moderators_see,
        "other bot": table.other_bot_sees,
    }[channel]
    readers = readers.replace("player", str(fake.users["player"].id))
    refused = await fake.invoke("campaign settings", {"gm_channel": channel_id})
    assert refused.ephemeral
    assert refused.content == (
        f"❌ <#{channel_id}> can be read by {readers}, who aren't GMs of this campaign, and "
        "every secret roll is copied there in full. Choose a channel only GMs can read (deny "
        "View Channel to @everyone and to players' roles), or make them GMs."
    )
    assert await gm_channel_of(table) is None


async def test_a_gm_log_channel_only_gms_and_manage_server_roles_read_is_accepted(
    table: Table,
) -> None:
    fake = table.fake
    for channel_id in (fake.gm_log_channel_id, table.stewards_see, table.this_bot_sees):
        done = await fake.invoke("campaign settings", {"gm_channel": channel_id})
        assert done.ephemeral and f"GM log channel: <#{channel_id}>" in done.content
        assert await gm_channel_of(table) == channel_id


async def test_a_gm_log_channel_made_public_later_gets_no_more_rolls_and_the_gms_are_told_once(
    table: Table,
) -> None:
    fake = table.fake
    gm_log = fake.gm_log_channel_id
    await fake.invoke("campaign settings", {"gm_channel": gm_log})
    await fake.invoke("campaign gm add", {"user": fake.users["admin"]})
    await fake.invoke("roll", {"expression": "1d20", "hidden": True})
    await table.settled()
    assert len(fake.channel_messages(gm_log)) == 1
    # A server admin opens the channel to everyone.
    await fake.set_overwrites(gm_log, [])
    channel = table.bot.get_channel(gm_log)
    assert isinstance(channel, discord.TextChannel)
    await fake.wait_until(lambda: not channel.overwrites, "the bot to see the new overwrites")

    hidden = await fake.invoke("roll", {"expression": "3d6", "hidden": True})
    await table.settled()
    assert hidden.ephemeral and hidden.embeds  # the GM still has their roll
    assert len(fake.channel_messages(gm_log)) == 1  # not copied where everyone reads
    notice = (
        f"⚠️ <#{gm_log}> can now be read by everyone, who aren't GMs of **Far Stars**: I "
        "stopped copying secret rolls there. Choose a channel only GMs can read with "
        "`/campaign settings gm_channel`."
    )
    assert [message.content for message in hidden.followups] == [notice]
    assert [m["content"] for m in fake.dm_messages("admin")] == [notice]  # the other GM
    assert await gm_channel_of(table) is None

    # Told once: the next secret rolls neither go there nor repeat the notice; a blind roll
    # reaches the GMs by DM instead.
    again = await fake.invoke("roll", {"expression": "1d4", "hidden": True})
    blind = await fake.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    await table.settled()
    assert again.followups == [] and blind.ephemeral and blind.embeds == []
    assert len(fake.channel_messages(gm_log)) == 1
    assert fake.channel_messages(fake.channel_id) == []
    dms = [m for m in fake.dm_messages("gm") if m["embeds"]]
    assert len(dms) == 1 and "Blind roll #4" in dms[0]["embeds"][0]["footer"]["text"]
    notices = [m["content"] for m in fake.dm_messages("admin") if m["content"]]
    assert notices == [notice]
