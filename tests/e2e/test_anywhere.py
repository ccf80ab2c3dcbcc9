"""Rolling anywhere: DMs, group DMs and servers without the bot, as a user-installed app
(docs/players/index.md, "Where commands work"), end to end through the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import discord
import pytest
from discord import app_commands

from bot.anywhere import anywhere, invite_url, is_anywhere
from bot.client import DiceBot, create_bot
from bot.config import DatabaseLocation, Settings
from bot.publish import announce
from bot.ratelimit import RollLimit
from bot.storage import CharacterStore, Visibility
from bot.storage.cosmos import ChallengeStore
from bot.storage.macros import MacroStore
from cogs.sixpool import SHEET_CODEC
from rules import cosmos, sixpool
from rules.campaigns import CampaignSettings
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings, sync_as_the_first_start_did
from tests.expect import logged_roll
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

ANYWHERE = ["aethelgard", "cosmos", "help", "macro", "realms", "roll", "sinew", "sixpool"]
WHERE = "only in a server channel where the bot is installed"
CONTEXTS = ["dm", "group_dm", "foreign_guild"]


@pytest.fixture
async def anybot(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[DiceBot]:
    """The bot with its commands synced globally, as in production: what DMs see."""
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite, guild_sync=False),
                     rng=new_rng(DICE_SEED))  # fmt: skip
    bot.tree.add_command(_natural_twenty)
    sync_as_the_first_start_did(bot, fake_discord)
    async with run_bot(fake_discord, bot):
        yield bot
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


@anywhere
@app_commands.command(name="nat20", description="Test only: reply, then announce to the table")
async def _natural_twenty(interaction: discord.Interaction) -> None:
    """A roll whose result the whole table must hear: the reply, then an announcement."""
    await interaction.response.send_message("🎲 20", ephemeral=True)
    await announce(interaction, discord.Embed(title="Natural 20!"))


def channel_in(fake: FakeDiscord, context: str) -> int:
    """A channel of the given kind: the player's DM with the bot, a group DM of the player
    and the GM, or a channel of a server the bot is not in."""
    if context == "dm":
        return fake.open_dm("player")
    if context == "group_dm":
        return fake.add_group_dm(("player", "gm"))
    return fake.add_foreign_guild().channel_id


def roll_id_of(reply: Reply) -> int:
    return int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #"))


async def test_sync_offers_stateless_commands_to_user_installs_everywhere_and_campaign_to_servers(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    synced = {command["name"]: command for command in fake_discord.synced_commands()}
    for name in ANYWHERE:
        assert synced[name]["integration_types"] == [0, 1], name  # guild and user install
        assert synced[name]["contexts"] == [0, 1, 2], name  # servers, bot DM, private channels
    assert synced["campaign"]["integration_types"] == [0]
    assert synced["campaign"]["contexts"] == [0]
    dm, group = fake_discord.open_dm("player"), fake_discord.add_group_dm()
    foreign = fake_discord.add_foreign_guild().channel_id
    everywhere = sorted([*ANYWHERE, "nat20"])
    for channel in (dm, group, foreign):
        assert fake_discord.commands_offered(channel) == everywhere
    assert fake_discord.commands_offered(fake_discord.channel_id) == sorted(
        [*everywhere, "campaign"]
    )


@pytest.mark.parametrize("context", CONTEXTS)
async def test_roll_outside_a_server_with_the_bot_is_shown_logged_and_rolled_again(
    fake_discord: FakeDiscord, anybot: DiceBot, context: str
) -> None:
    fake = fake_discord
    channel = channel_in(fake, context)
    rng = new_rng(DICE_SEED)
    first, again = roll_expression("2d6+1", rng), roll_expression("2d6+1", rng)
    reply = await fake.invoke("roll", {"expression": "2d6+1"}, user="player", channel=channel)
    assert not reply.ephemeral
    assert reply.embeds[0]["title"].endswith(f" · total {first.total}")
    logged = await logged_roll(anybot.storage, roll_id_of(reply))
    guild_id = None if context != "foreign_guild" else int(reply.interaction["guild_id"])
    assert (logged.guild_id, logged.channel_id) == (guild_id, channel)
    assert (logged.user_id, logged.visibility) == (fake.users["player"].id, Visibility.PUBLIC)
    assert logged.campaign_id is None
    rolled_again = await fake.click(reply, f"roll:again:{logged.id}", user="player")
    assert rolled_again.embeds[0]["title"].endswith(f" · total {again.total}")
    assert (await logged_roll(anybot.storage, roll_id_of(rolled_again))).channel_id == channel
    assert fake.channel_messages(channel) == []  # everything went through the interactions


async def test_a_systems_stateless_roll_and_odds_work_in_a_dm(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    dm = fake_discord.open_dm("player")
    rolled = await fake_discord.invoke(
        "realms check", {"die": "d20", "target": 12}, user="player", channel=dm
    )
    assert not rolled.ephemeral and rolled.embeds, rolled.content
    logged = await logged_roll(anybot.storage, roll_id_of(rolled))
    assert (logged.kind, logged.guild_id, logged.channel_id) == ("realms.check", None, dm)
    # Its die buttons work there too: the press edits the roll into its reroll, once.
    pressed = await fake_discord.click(rolled, f"realms:reroll:{logged.id}:1", user="player")
    assert not pressed.ephemeral, pressed.content
    rerolled = await logged_roll(anybot.storage, logged.id + 1)
    assert (rerolled.guild_id, rerolled.channel_id) == (None, dm)
    # 1d20 + 4 vs DC 15 needs 11 or more: faces 11–20, 10 of 20.
    odds = await fake_discord.invoke(
        "sixpool odds", {"modifier": 4, "dc": 15}, user="player", channel=dm
    )
    assert odds.embeds[0]["description"].startswith("Success **50.00%**")
    assert odds.attachments[0][0] == "odds.png"


async def test_a_personal_macro_saved_in_a_server_rolls_in_a_dm(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    fake = fake_discord
    saved = await fake.invoke("macro save", {"name": "axe", "expression": "1d12+3"},
                              user="player")  # fmt: skip
    assert saved.ephemeral and "Saved your macro" in saved.content
    dm = fake.open_dm("player")
    expected = roll_expression("1d12+3", new_rng(DICE_SEED))
    rolled = await fake.invoke("macro roll", {"name": "axe"}, user="player", channel=dm)
    assert rolled.embeds[0]["title"].endswith(f" · total {expected.total}")
    logged = await logged_roll(anybot.storage, roll_id_of(rolled))
    assert (logged.guild_id, logged.channel_id) == (None, dm)
    listed = await fake.invoke("macro list", user="player", channel=dm)
    assert "**axe**: `1d12+3`" in listed.embeds[0]["description"]


async def test_help_works_in_a_dm(fake_discord: FakeDiscord, anybot: DiceBot) -> None:
    dm = fake_discord.open_dm("player")
    reply = await fake_discord.invoke("help", user="player", channel=dm)
    assert reply.ephemeral and reply.embeds and reply.embeds[0]["title"]


REFUSED = [
    ("campaign start", {"system": "cosmos", "name": "Voidrunners"}),
    ("campaign log", {}),
    ("sixpool character create", {"name": "Rin", "level": 1, "primary": "DEX", "str": 6,
                                  "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}),
    ("sinew pressure show", {}),
    ("aethelgard stress add", {"character": "Ysolde", "amount": 1}),
    ("cosmos challenge start", {"name": "Escape", "tn": 15, "successes": 3, "max_rolls": 5}),
]  # fmt: skip


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize(("command", "options"), REFUSED, ids=[c for c, _ in REFUSED])
async def test_campaign_character_and_track_commands_are_refused_in_one_line_elsewhere(
    fake_discord: FakeDiscord,
    anybot: DiceBot,
    context: str,
    command: str,
    options: dict[str, object],
) -> None:
    fake = fake_discord
    channel = channel_in(fake, context)
    # /campaign isn't offered there at all; an outdated client could still send it.
    stale = command.startswith("campaign")
    reply = await fake.invoke(command, options, user="gm", channel=channel, stale_client=stale)
    assert reply.ephemeral
    assert reply.content == (
        f"❌ `/{command}` works {WHERE} (campaigns, characters and tracks live there; /roll, "
        "each system's rolls and odds, your macros and /help work anywhere): invite it with "
        f"<{invite_url(fake.application_id)}>"
    )
    assert "\n" not in reply.content
    assert await anybot.storage.campaigns.active(channel) is None
    assert await anybot.storage.rolls.get(1) is None
    assert fake.channel_messages(channel) == []


@pytest.mark.parametrize("context", CONTEXTS)
async def test_what_needs_a_campaign_inside_an_anywhere_command_is_refused_elsewhere(
    fake_discord: FakeDiscord, anybot: DiceBot, context: str
) -> None:
    fake = fake_discord
    channel = channel_in(fake, context)
    # A blind roll, a roll into a challenge, and a macro holding a command that needs a sheet.
    blind = await fake.invoke("roll", {"expression": "1d20", "blind": True}, user="player",
                              channel=channel)  # fmt: skip
    challenge = await fake.invoke(
        "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15, "challenge": "Escape"},
        user="player", channel=channel,
    )  # fmt: skip
    assert blind.content == challenge.content
    assert blind.ephemeral and blind.content.startswith(f"❌ Campaigns work {WHERE}")
    saved = await fake.invoke(
        "macro save", {"name": "sneak", "expression": "/sixpool check pool:DEX dc:12"},
        user="player",
    )  # fmt: skip
    assert saved.ephemeral and "Saved your macro" in saved.content, saved.content
    macro = await fake.invoke("macro roll", {"name": "sneak"}, user="player", channel=channel)
    assert macro.ephemeral and macro.content.startswith(f"❌ `/sixpool check` works {WHERE}")
    assert await anybot.storage.rolls.get(1) is None


async def test_a_campaign_left_behind_in_a_server_without_the_bot_is_not_used(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    """A server that removed the bot keeps its campaign; the user install ignores it there."""
    fake = fake_discord
    foreign = fake.add_foreign_guild()
    await anybot.storage.campaigns.start(
        guild_id=foreign.id,
        channel_id=foreign.channel_id,
        user_id=fake.users["gm"].id,
        settings=CampaignSettings.create(cosmos.SYSTEM, "Old table"),
    )
    reply = await fake.invoke("roll", {"expression": "1d20"}, user="gm",
                              channel=foreign.channel_id)  # fmt: skip
    assert (await logged_roll(anybot.storage, roll_id_of(reply))).campaign_id is None
    refused = await fake.invoke("cosmos challenge status", user="gm", channel=foreign.channel_id)
    assert refused.ephemeral and f"works {WHERE}" in refused.content


async def test_nothing_of_a_campaign_is_suggested_in_a_server_without_the_bot(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    """A server that removed the bot keeps its campaigns (written as the bot wrote them while it was
    there): an open challenge, a campaign macro, a character. Typing there, a user install suggests
    none of them, as using them is refused (docs/players/index.md, "Suggestions while typing")."""
    fake, storage = fake_discord, anybot.storage
    gm = fake.users["gm"].id
    foreign = fake.add_foreign_guild()
    vault = cosmos.start_challenge("Vault of Secrets", 15, 3, 5)
    old = await storage.campaigns.start(
        guild_id=foreign.id, channel_id=foreign.channel_id, user_id=gm,
        settings=CampaignSettings.create(cosmos.SYSTEM, "Old table"),
    )  # fmt: skip
    await ChallengeStore(storage.database).open(old, vault, gm)
    await MacroStore(storage.database).save("Vault dive", "1d20", user_id=None, campaign_id=old.id)
    other = await storage.campaigns.start(
        guild_id=foreign.id, channel_id=foreign.other_channel_id, user_id=gm,
        settings=CampaignSettings.create(sixpool.SYSTEM, "Older table"),
    )  # fmt: skip
    pools = dict.fromkeys(sixpool.Pool, 5)
    sheet = sixpool.new_sheet(1, sixpool.Pool.DEX, pools)
    await CharacterStore(storage.database, SHEET_CODEC).create(other, gm, "Vex", sheet)
    # Where the bot is, the same challenge and macro are suggested.
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Here"}, user="gm")
    await fake.invoke("cosmos challenge start", {"name": vault.name, "tn": 15, "successes": 3,
                                                 "max_rolls": 5}, user="gm")  # fmt: skip
    await fake.invoke("macro save", {"name": "Vault dive", "expression": "1d20",
                                     "campaign": True}, user="gm")  # fmt: skip
    roll = {"attribute": 3, "skill": 2, "tn": 15, "challenge": "vau"}
    check = {"pool": "DEX", "dc": 10, "character": ""}
    here = await fake.autocomplete("cosmos roll", roll, "challenge", user="gm")
    assert [choice["value"] for choice in here] == ["Vault of Secrets"]
    macros = await fake.autocomplete("macro roll", {"name": "vau"}, "name", user="gm")
    assert [choice["value"] for choice in macros] == ["Vault dive"]
    for command, options, focused, channel in (
        ("cosmos roll", roll, "challenge", foreign.channel_id),
        ("cosmos challenge status", {"name": ""}, "name", foreign.channel_id),
        ("cosmos challenge end", {"name": ""}, "name", foreign.channel_id),
        ("macro roll", {"name": ""}, "name", foreign.channel_id),
        ("macro delete", {"name": ""}, "name", foreign.channel_id),
        ("sixpool check", check, "character", foreign.other_channel_id),
        ("sixpool rest", {"character": ""}, "character", foreign.other_channel_id),
    ):
        suggested = await fake.autocomplete(command, options, focused, user="gm", channel=channel)
        assert suggested == [], (command, focused)
    used = await fake.invoke("cosmos roll", {**roll, "challenge": vault.name}, user="gm",
                             channel=foreign.channel_id)  # fmt: skip
    assert used.ephemeral and used.content.startswith(f"❌ Campaigns work {WHERE}")
    assert fake.channel_messages(foreign.channel_id) == []


@pytest.mark.parametrize("context", CONTEXTS)
async def test_an_announcement_outside_a_server_with_the_bot_is_a_public_followup(
    fake_discord: FakeDiscord, anybot: DiceBot, context: str
) -> None:
    fake = fake_discord
    channel = channel_in(fake, context)
    reply = await fake.invoke("nat20", user="player", channel=channel)
    assert reply.ephemeral and reply.content == "🎲 20"
    [followup] = await fake.wait_followups(reply)
    assert not followup.ephemeral and followup.raw["embeds"][0]["title"] == "Natural 20!"
    assert fake.channel_messages(channel) == []


async def test_an_announcement_in_a_server_with_the_bot_is_a_channel_message(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    fake = fake_discord
    reply = await fake.invoke("nat20", user="player")
    [announced] = await fake.wait_channel_messages(fake.channel_id)
    assert announced["embeds"][0]["title"] == "Natural 20!"
    assert reply.followups == []


async def test_the_roll_rate_limit_applies_to_a_user_in_a_dm(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    fake = fake_discord
    settings = replace(
        bot_settings(fake, migrated_sqlite, guild_sync=False), roll_limit=RollLimit(2, 60)
    )
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake, bot):
        dm = fake.open_dm("player")
        replies = [
            await fake.invoke("roll", {"expression": "1d6"}, user="player", channel=dm)
            for _ in range(3)
        ]
        assert [reply.ephemeral for reply in replies] == [False, False, True]
        assert "faster than this bot allows (2 rolls per 60 seconds" in replies[2].content
        await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> DatabaseLocation:
    if request.param == "sqlite":
        return DatabaseLocation.sqlite(request.getfixturevalue("migrated_sqlite"))
    return DatabaseLocation.postgresql(request.getfixturevalue("migrated_postgres_url"))


async def test_a_dm_roll_is_logged_without_a_server_on_sqlite_and_postgresql(
    fake_discord: FakeDiscord, database: DatabaseLocation, tmp_path: Path
) -> None:
    fake = fake_discord
    settings = Settings(
        token=fake.token,
        database_path=database.path or tmp_path / "unused.db",
        database=database,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
    )
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    expected = roll_expression("3d8", new_rng(DICE_SEED))
    async with run_bot(fake, bot):
        dm = fake.open_dm("player")
        reply = await fake.invoke("roll", {"expression": "3d8"}, user="player", channel=dm)
        assert reply.embeds[0]["title"].endswith(f" · total {expected.total}")
        logged = await logged_roll(bot.storage, roll_id_of(reply))
        assert (logged.guild_id, logged.channel_id, logged.user_id) == (
            None,
            dm,
            fake.users["player"].id,
        )
        assert logged.payload["result"]["total"] == expected.total
        await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


async def test_an_announcement_the_channel_refuses_is_a_public_followup(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """A server with the bot whose channel denies it Send Messages: the challenge's end is
    still announced, as a followup to the GM's command."""
    fake = fake_discord
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Voidrunners"}, user="gm")
    start = {"name": "Escape", "tn": 12, "successes": 2, "max_rolls": 3}
    assert not (await fake.invoke("cosmos challenge start", start, user="gm")).ephemeral
    fake.muted_channels.add(fake.channel_id)
    reply = await fake.invoke("cosmos challenge end", {"name": "Escape"}, user="gm")
    assert reply.ephemeral
    [announcement] = await fake.wait_followups(reply)
    assert not announcement.ephemeral
    assert announcement.raw["embeds"][0]["title"] == "🛑 Challenge ended by the GM: Escape"
    assert fake.channel_messages(fake.channel_id) == []


async def test_suggestions_outside_a_server_offer_your_macros_and_nothing_server_only(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    fake = fake_discord
    await fake.invoke("macro save", {"name": "axe", "expression": "1d12+3"}, user="player")
    dm = fake.open_dm("player")
    names = await fake.autocomplete("macro roll", {"name": "a"}, "name", user="player", channel=dm)
    assert names == [{"name": "axe", "value": "axe"}]
    skills = await fake.autocomplete(
        "sixpool check", {"pool": "DEX", "skill": ""}, "skill", user="player", channel=dm
    )
    assert skills == []


async def test_a_dm_roll_reaches_shard_zero_of_a_sharded_bot(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    """Discord sends a DM's interactions to shard 0 (they have no server to route by)."""
    fake = fake_discord
    fake.recommended_shards = 2
    fake.max_concurrency = 2  # both shards identify at once, not 5 s apart
    bot = create_bot(bot_settings(fake, migrated_sqlite, guild_sync=False), rng=new_rng(1))
    async with run_bot(fake, bot):
        await fake.wait_until(lambda: len(fake.connected_shards) == 2, "both shards")
        dm = fake.open_dm("player")
        reply = await fake.invoke("roll", {"expression": "1d20"}, user="player", channel=dm)
        assert not reply.ephemeral and fake.undeliverable == []
        await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


# Every command that works anywhere: one more needs its line in the docs/players/index.md ("Where
# commands work") and here.
WORKS_ANYWHERE = {
    "help", "roll", "nat20", "macro save", "macro roll", "macro list", "macro delete",
    "cosmos roll", "cosmos opposed", "cosmos convert", "cosmos odds",
    "realms attack", "realms check", "realms stealth", "realms spell", "realms reroll",
    "realms odds",
    "aethelgard roll", "aethelgard opposed", "aethelgard attack", "aethelgard craft",
    "aethelgard odds",
    "sinew odds", "sixpool odds",
}  # fmt: skip


async def test_every_other_command_is_refused_in_a_dm_before_its_options_are_read(
    fake_discord: FakeDiscord, anybot: DiceBot
) -> None:
    fake = fake_discord
    dm = fake.open_dm("gm")
    leaves = [c for c in anybot.tree.walk_commands() if isinstance(c, app_commands.Command)]
    assert {c.qualified_name for c in leaves if is_anywhere(c)} == WORKS_ANYWHERE
    server_only = sorted(c.qualified_name for c in leaves if not is_anywhere(c))
    assert len(server_only) > 40  # campaigns, characters, tracks of every system
    # As an outdated client would send them: no options at all.
    replies = [await fake.send_raw(name, [], user="gm", channel=dm) for name in server_only]
    await fake.wait_answered(replies)
    for name, reply in zip(server_only, replies, strict=True):
        assert reply.ephemeral and reply.content.startswith(f"❌ `/{name}` works {WHERE}"), name
    assert await anybot.storage.rolls.get(1) is None
