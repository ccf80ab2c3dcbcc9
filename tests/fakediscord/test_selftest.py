"""Self-test of the fake Discord: a tiny discord.py bot, driven end to end through it."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, run_bot

pytest_plugins = ["pytester"]


class ChoiceView(discord.ui.View):
    @discord.ui.button(label="Yes", custom_id="choose:yes")
    async def yes(
        self, interaction: discord.Interaction, button: discord.ui.Button[ChoiceView]
    ) -> None:
        await interaction.response.edit_message(
            content=f"{interaction.user.name} chose yes", view=None
        )


def build_bot(guild_id: int) -> commands.Bot:
    """Return a bot with one command per thing the fake must carry."""
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
    tree = bot.tree

    campaign = app_commands.Group(
        name="campaign",
        description="Campaign admin",
        default_permissions=discord.Permissions(manage_guild=True),
    )
    gm = app_commands.Group(name="gm", description="Game masters", parent=campaign)

    @gm.command(name="add", description="Make someone a GM")
    async def gm_add(interaction: discord.Interaction, user: discord.Member) -> None:
        await interaction.response.send_message(f"{user.name} is a GM now", ephemeral=True)

    tree.add_command(campaign)

    @tree.command(description="Roll dice")
    async def roll(
        interaction: discord.Interaction, dice: str, bonus: app_commands.Range[int, -5, 5] = 0
    ) -> None:
        embed = discord.Embed(title=f"Roll {dice}", description=f"bonus {bonus}")
        await interaction.response.send_message(embed=embed)

    @tree.command(description="Send a character sheet")
    async def sheet(interaction: discord.Interaction) -> None:
        file = discord.File(io.BytesIO(b"STR 12\nDEX 9\n"), filename="sheet.txt")
        await interaction.response.send_message("your sheet", file=file)

    @tree.command(description="Think, then answer")
    async def slow(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        await interaction.edit_original_response(content="done thinking")

    @tree.command(description="Answer twice")
    async def twice(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        await interaction.followup.send("second", ephemeral=True)

    @tree.command(description="Announce in the campaign channel")
    async def announce(interaction: discord.Interaction, text: str) -> None:
        channel = interaction.channel
        target = channel.parent if isinstance(channel, discord.Thread) else channel
        assert isinstance(target, discord.TextChannel)
        await interaction.response.send_message("announced", ephemeral=True)
        await target.send(text)

    @tree.command(description="Say where this was invoked")
    async def where(interaction: discord.Interaction) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.Thread) and channel.parent is not None
        await interaction.response.send_message(f"{channel.name} in {channel.parent.name}")

    @tree.command(description="Offer a choice")
    async def choose(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("yes or no?", view=ChoiceView())

    @tree.command(description="Answer, then fail")
    async def boom(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("about to fail")
        raise RuntimeError("boom")

    async def setup_hook() -> None:
        await tree.sync()  # global, so the test can see the fake prefers the guild tree
        tree.copy_global_to(guild=discord.Object(guild_id))
        await tree.sync(guild=discord.Object(guild_id))

    bot.setup_hook = setup_hook  # type: ignore[method-assign]  # discord.py: a hook to override; this test's one bot sets it on the instance
    return bot


@pytest.fixture
async def fake(fake_discord: FakeDiscord) -> AsyncIterator[FakeDiscord]:
    async with run_bot(fake_discord, build_bot(fake_discord.guild_id)):
        yield fake_discord


async def test_sync_keeps_both_trees_with_permissions_as_strings(fake: FakeDiscord) -> None:
    guild_tree = {command["name"]: command for command in fake.synced_commands(guild=True)}
    global_names = {command["name"] for command in fake.synced_commands()}
    assert global_names == set(guild_tree)
    campaign = guild_tree["campaign"]
    assert campaign["default_member_permissions"] == "32"
    assert campaign["guild_id"] == str(fake.guild_id)
    [gm] = campaign["options"]
    [add] = gm["options"]
    assert (gm["type"], add["type"], add["options"][0]["type"]) == (2, 1, 6)


async def test_subcommand_group_with_user_option_replies_ephemeral(fake: FakeDiscord) -> None:
    reply = await fake.invoke("campaign gm add", {"user": fake.users["player"]}, user="admin")

    assert reply.content == "player is a GM now"
    assert reply.ephemeral
    assert reply.interaction["data"]["guild_id"] == str(fake.guild_id)
    assert reply.interaction["member"]["permissions"] == str(fake.users["admin"].permissions)


async def test_public_reply_with_embed(fake: FakeDiscord) -> None:
    reply = await fake.invoke("roll", {"dice": "2d6", "bonus": 3})

    assert not reply.ephemeral
    assert reply.embeds[0]["title"] == "Roll 2d6"
    assert reply.embeds[0]["description"] == "bonus 3"


async def test_file_attachment_round_trips(fake: FakeDiscord) -> None:
    reply = await fake.invoke("sheet")

    assert reply.content == "your sheet"
    assert reply.attachments == [("sheet.txt", b"STR 12\nDEX 9\n")]


async def test_deferred_reply_returns_the_edit(fake: FakeDiscord) -> None:
    reply = await fake.invoke("slow")

    assert reply.callback_type == 5
    assert reply.content == "done thinking"
    assert reply.ephemeral
    assert not reply.original.loading


async def test_followup_is_recorded_against_the_reply(fake: FakeDiscord) -> None:
    reply = await fake.invoke("twice")
    [followup] = await fake.wait_followups(reply)

    assert reply.content == "first"
    assert (followup.content, followup.ephemeral) == ("second", True)


async def test_announcement_from_a_thread_goes_to_its_parent_channel(fake: FakeDiscord) -> None:
    reply = await fake.invoke("announce", {"text": "Session at 8"}, channel=fake.thread_id)
    [announcement] = await fake.wait_channel_messages(fake.channel_id)

    assert reply.content == "announced"
    assert announcement["content"] == "Session at 8"
    assert fake.channel_messages(fake.thread_id) == []


async def test_command_invoked_from_the_thread_sees_thread_and_parent(fake: FakeDiscord) -> None:
    reply = await fake.invoke("where", channel=fake.thread_id, user="player")

    assert reply.content == "scene-1 in table"


async def test_button_click_edits_the_message(fake: FakeDiscord) -> None:
    reply = await fake.invoke("choose")
    assert reply.message is not None and reply.message.custom_ids() == ["choose:yes"]

    clicked = await fake.click(reply, "choose:yes", user="player")

    assert clicked.callback_type == 7
    assert clicked.message_id == reply.message_id
    assert (clicked.content, clicked.components) == ("player chose yes", [])
    assert reply.content == "player chose yes"  # the same message, edited in place


async def test_send_returns_at_once_and_stamps_the_answer(fake: FakeDiscord) -> None:
    replies = [await fake.send("roll", {"dice": f"{n}d6"}) for n in range(1, 4)]
    assert fake.sync_count and fake.synced_at and fake.identified_at

    await fake.wait_answered(replies)

    assert [reply.embeds[0]["title"] for reply in replies] == ["Roll 1d6", "Roll 2d6", "Roll 3d6"]
    assert all(reply.latency is not None and reply.latency > 0 for reply in replies)
    fake.forget(replies)
    assert not fake._replies


async def test_invoke_rejects_options_the_command_does_not_take(fake: FakeDiscord) -> None:
    with pytest.raises(ValueError, match="unknown option"):
        await fake.invoke("roll", {"dice": "d20", "nope": 1})
    with pytest.raises(ValueError, match="needs a subcommand"):
        await fake.invoke("campaign gm")
    with pytest.raises(ValueError, match="within"):  # Discord's client enforces the range
        await fake.invoke("roll", {"dice": "d20", "bonus": 9})


async def test_error_logged_by_the_bot_fails_unless_expected(fake: FakeDiscord) -> None:
    reply = await fake.invoke("boom")
    await fake.wait_until(lambda: fake.error_logs, "the bot to log the error")

    assert reply.content == "about to fail"
    with pytest.raises(AssertionError, match="ERROR logged"):
        fake.check_clean()
    errors = fake.expect_errors()
    assert "Ignoring exception in command 'boom'" in errors[0]
    assert "RuntimeError: boom" in errors[0]
    fake.check_clean()


async def test_unimplemented_route_is_recorded_and_answered_404(fake_discord: FakeDiscord) -> None:
    bot = build_bot(fake_discord.guild_id)
    async with run_bot(fake_discord, bot):
        guild = bot.get_guild(fake_discord.guild_id)
        assert guild is not None
        with pytest.raises(discord.NotFound):
            await guild.fetch_roles()

    assert fake_discord.unhandled_requests == [f"GET /api/v10/guilds/{fake_discord.guild_id}/roles"]
    with pytest.raises(AssertionError, match="does not implement"):
        fake_discord.check_clean()
    fake_discord.unhandled_requests.clear()


def test_fixture_fails_a_test_that_logs_an_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import logging

        async def test_logs_an_error(fake_discord):
            logging.getLogger("some.module").error("something broke")
        """
    )
    # In-process, without hypothesis's plugin (re-importing it costs about a second).
    plugins = "-p tests.fakediscord.fixtures -p no:hypothesispytest -p no:cacheprovider"
    options = "-o asyncio_mode=auto -o asyncio_default_fixture_loop_scope=function"
    result = pytester.runpytest(*plugins.split(), *options.split())

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*ERROR some.module: something broke*"])


@pytest.mark.parametrize("count", [2, 3, 7])
def test_a_guild_added_for_a_shard_is_on_that_shard(count: int) -> None:
    fake = FakeDiscord()
    for shard_id in range(count):
        guild = fake.add_guild(f"shard {shard_id}", shard=(shard_id, count))
        assert (guild.id >> 22) % count == shard_id == guild.on_shard(count)
    assert fake.guild_id >> 22 & 1 == 0  # the first guild is on shard 0 of 2


async def test_an_unsharded_client_gets_every_guild_and_their_interactions(
    fake_discord: FakeDiscord,
) -> None:
    """A client that sends no ``shard`` in IDENTIFY is shard 0 of 1: it owns every guild."""
    second = fake_discord.add_guild()
    bot = build_bot(fake_discord.guild_id)
    async with run_bot(fake_discord, bot):
        assert fake_discord.identified_shards == [(0, 1)]
        assert {guild.id for guild in bot.guilds} == {fake_discord.guild_id, second.id}
        # /roll is global: the second guild's client sees it too.
        reply = await fake_discord.invoke("roll", {"dice": "1d6"}, channel=second.channel_id)
        assert reply.interaction["guild_id"] == str(second.id)
        assert reply.embeds[0]["title"] == "Roll 1d6"
        with pytest.raises(RuntimeError, match="before the bot connects"):
            fake_discord.add_guild()
    assert fake_discord.undeliverable == []


def build_anywhere_bot() -> commands.Bot:
    """A bot with one global command offered to both installs everywhere: it says what
    discord.py read from the interaction and whether it could post in the channel."""
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())

    @bot.tree.command(description="Say where this was invoked")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def whereami(interaction: discord.Interaction) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.abc.Messageable)
        seen = (
            f"context={interaction.context!r} guild={interaction.guild_id} "
            f"type={channel.type.name} member={isinstance(interaction.user, discord.Member)} "
            f"guild_install={interaction.is_guild_integration()} "
            f"user_install={interaction.is_user_integration()}"
        )
        await interaction.response.send_message(seen, ephemeral=True)
        try:
            await channel.send("posted")
            await interaction.followup.send("posted: yes", ephemeral=True)
        except discord.Forbidden as refused:
            await interaction.followup.send(f"posted: {refused.code}", ephemeral=True)

    @bot.tree.command(description="Only in servers")
    async def serverish(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("in a server")

    async def setup_hook() -> None:
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]  # discord.py: a hook to override; this test's one bot sets it on the instance
    return bot


async def test_dms_group_dms_and_servers_without_the_bot_carry_their_context(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    async with run_bot(fake, build_anywhere_bot()):
        [whereami] = [c for c in fake.synced_commands() if c["name"] == "whereami"]
        assert (whereami["integration_types"], whereami["contexts"]) == ([0, 1], [0, 1, 2])
        dm, group = fake.open_dm("player"), fake.add_group_dm(("player", "gm"))
        foreign = fake.add_foreign_guild()
        player = fake.users["player"].id
        expected = {
            fake.channel_id: (f"guild={fake.guild_id} type=text member=True guild_install=True"
                              " user_install=False", "yes", {"0": str(fake.guild_id)}),
            dm: ("guild=None type=private member=False guild_install=False user_install=True",
                 "yes", {"1": str(player)}),
            group: ("guild=None type=group member=False guild_install=False user_install=True",
                    "50001", {"1": str(player)}),
            foreign.channel_id: (f"guild={foreign.id} type=text member=True guild_install=False"
                                 " user_install=True", "50001", {"1": str(player)}),
        }  # fmt: skip
        for channel, (seen, posted, owners) in expected.items():
            reply = await fake.invoke("whereami", user="player", channel=channel)
            assert seen in reply.content
            assert reply.interaction["authorizing_integration_owners"] == owners
            [followup] = await fake.wait_followups(reply)
            assert followup.raw["content"] == f"posted: {posted}"
        assert fake.commands_offered(dm) == ["whereami"]
        assert fake.commands_offered(fake.channel_id) == ["serverish", "whereami"]
        with pytest.raises(ValueError, match="does not offer /serverish"):
            await fake.invoke("serverish", user="player", channel=dm)
        stale = await fake.invoke("serverish", user="player", channel=dm, stale_client=True)
        assert stale.content == "in a server"  # discord.py runs what Discord delivers


async def test_wait_until_polls_a_condition_the_fake_does_not_see_change() -> None:
    fake = FakeDiscord()  # waits need no server: nothing is sent
    flag = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, flag.set)  # changes nothing on the fake's side
    await fake.wait_until(flag.is_set, "the flag")
    assert flag.is_set()


async def test_a_fake_side_wait_wakes_on_the_fakes_change_and_times_out_naming_it() -> None:
    fake = FakeDiscord(timeout=0.2)
    seen: list[str] = []

    def change() -> None:  # as the fake's handlers do: change its state, then notify
        seen.append("posted")
        fake.notify()

    asyncio.get_running_loop().call_later(0.05, change)
    await fake.wait_until(lambda: seen, "the change", fake_side=True)
    with pytest.raises(TimeoutError, match=r"timed out after 0\.2 s waiting for what never comes"):
        await fake.wait_until(lambda: False, "what never comes", fake_side=True)
