"""Pytest plugin: the ``fake_discord`` fixture, and ``run_bot`` to run a bot against it.

Registered from tests/conftest.py with ``pytest_plugins = ["tests.fakediscord.fixtures"]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Protocol, TypeVar, runtime_checkable

import discord
import pytest
import pytest_asyncio
import yarl
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.http import Route

from bot.discord_private import set_guild_ready_timeout

from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)


@pytest_asyncio.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """Yield a started FakeDiscord; fail at teardown on unimplemented routes or ERROR logs."""
    async with serving_fake() as fake:
        yield fake
    fail_unless_clean(fake)


@asynccontextmanager
async def serving_fake() -> AsyncIterator[FakeDiscord]:
    """A started FakeDiscord, stopped on exit."""
    # The bot's own factory may point discord.py at the fake before run_bot does: restore here.
    original = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = original


def fail_unless_clean(fake: FakeDiscord) -> None:
    """Fail the test (no traceback) if the bot used a route the fake lacks or logged an ERROR."""
    try:
        fake.check_clean()
    except AssertionError as problem:
        pytest.fail(str(problem), pytrace=False)


@asynccontextmanager
async def run_bot(
    fake: FakeDiscord,
    bot: ClientT,
    *,
    expect_sync: bool | None = None,
    guild_ready_timeout: float = 0.001,
) -> AsyncIterator[ClientT]:
    """Run ``bot`` against ``fake`` until the block exits; yield it once ready.

    Waits for READY and, if ``expect_sync`` (by default: if ``bot.tree`` holds any command),
    for the bot's first command sync (or its finding that the commands are as last synced).
    Closes the bot on exit and re-raises anything that ended ``bot.start``.
    """
    previous = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    point_discord_py_at(fake)
    # discord.py waits guild_ready_timeout (2 s by default) after the last GUILD_CREATE before
    # READY, and only takes it as a constructor option: lower it on the built bot. The fake
    # sends a connection's GUILD_CREATEs together right after READY, and a guild that came
    # after the wait would still be cached before any interaction (the gateway is in order).
    set_guild_ready_timeout(bot, guild_ready_timeout)
    if expect_sync is None:
        expect_sync = _has_app_commands(bot, fake.guild_id)
    syncs_before = fake.sync_count
    _wake_when_ready(fake, bot)
    _wake_when_answered(fake, bot)
    task = asyncio.create_task(bot.start(fake.token), name="fake-discord-bot")
    task.add_done_callback(lambda _: fake.notify())
    try:
        await fake.wait_until(lambda: task.done() or bot.is_ready(), "the bot to be ready")
        if expect_sync:
            # The dice bot skips a sync of the very commands it last synced on its database.
            await fake.wait_until(
                lambda: (
                    task.done()
                    or fake.sync_count > syncs_before
                    or getattr(bot, "commands_unchanged", False)
                ),
                "the bot to sync",
            )
        if task.done():
            raise RuntimeError("bot.start() ended during start-up")
        yield bot
    finally:
        await bot.close()
        try:
            await asyncio.wait_for(task, fake.timeout)  # re-raises what ended bot.start
        finally:
            Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = previous


def point_discord_py_at(fake: FakeDiscord) -> None:
    """Send discord.py's REST requests and gateway connections to ``fake`` (both are globals
    of discord.py, read as each request or connection is made)."""
    Route.BASE = fake.api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)


def _wake_when_ready(fake: FakeDiscord, bot: discord.Client) -> None:
    """Wake ``fake``'s waits the moment ``bot`` is ready (a commands bot takes extra
    listeners), not at the fake's next poll: ~5 ms of every test's start-up."""
    # The dice bot is an AutoShardedBot, which is not a commands.Bot: both take listeners.
    if not isinstance(bot, (commands.Bot, commands.AutoShardedBot)):
        return  # a bare client: the poll sees it ready

    async def on_ready() -> None:
        bot.remove_listener(on_ready)
        fake.notify()

    bot.add_listener(on_ready)


def _wake_when_answered(fake: FakeDiscord, bot: discord.Client) -> None:
    """Wake ``fake``'s waits the moment the dice bot finishes answering an interaction, not
    at the fake's next poll: what a command does after its reply (storing its message id, say)
    ends with no request the fake sees, and waiting on ``in_flight`` (every test's teardown,
    ``settled``) idled ~10 ms each time. The bot's ``admit`` counts the interaction's task in
    flight until it ends (a done callback); the one added here runs after it."""
    admit = getattr(bot, "admit", None)
    if admit is None:
        return  # a bare client counts nothing in flight

    def admit_and_wake_when_answered(interaction: discord.Interaction) -> bool:
        admitted = bool(admit(interaction))
        task = asyncio.current_task()
        if task is not None:
            task.add_done_callback(lambda _: fake.notify())
        return admitted

    # On this bot only, not its class (an instance attribute, which mypy calls a method-assign).
    setattr(bot, "admit", admit_and_wake_when_answered)  # noqa: B010


@runtime_checkable
class CountsInFlight(Protocol):
    """A bot that counts the interactions it has started and not yet answered (the dice bot)."""

    @property
    def in_flight(self) -> int: ...


async def settled(fake: FakeDiscord, bot: discord.Client) -> None:
    """Wait until the bot has finished every interaction it started: what it posts after its
    reply (an announcement, a DM) is there now, so "nothing else was posted" can be checked."""
    if not isinstance(bot, CountsInFlight):
        raise TypeError("settled() needs the dice bot, which counts interactions in flight")
    await fake.wait_until(lambda: not bot.in_flight, "the bot to settle")


def _has_app_commands(bot: discord.Client, guild_id: int) -> bool:
    tree = getattr(bot, "tree", None)
    if not isinstance(tree, discord.app_commands.CommandTree):
        return False
    return bool(tree.get_commands() or tree.get_commands(guild=discord.Object(guild_id)))
