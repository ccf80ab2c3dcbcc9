"""The real bot, started in-process against the fake Discord with a fresh database."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, closing
from dataclasses import dataclass
from pathlib import Path

import discord
import pytest
import pytest_asyncio

from bot.anywhere import copy_as_guild_commands
from bot.buttons import ShownMessages
from bot.client import DiceBot, create_bot
from bot.config import Settings
from bot.storage.copy import data_table_names
from rules.randomness import new_rng
from rules.systems import install
from tests.fakediscord.fixtures import (
    fail_unless_clean,
    point_discord_py_at,
    run_bot,
    serving_fake,
)
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

DICE_SEED = 20261123


def bot_settings(fake: FakeDiscord, database_path: Path, *, guild_sync: bool = True) -> Settings:
    """Settings for a bot against ``fake``: its commands synced to the fake's first guild, or
    (``guild_sync=False``) globally, so that clients in every guild of the fake see them."""
    return Settings(
        token=fake.token,
        database_path=database_path,
        guild_id=fake.guild_id if guild_sync else None,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
    )


# What the first bot of each kind (where it syncs, its extra systems, its commands) synced in
# this worker process: a later bot of the same kind syncs the very same commands.
_first_syncs: dict[tuple[object, ...], list[JSON]] = {}


def sync_as_the_first_start_did(bot: DiceBot, fake: FakeDiscord) -> None:
    """Let ``bot`` sync for real if it is the first of its kind in this worker, else register
    the commands that first one synced on ``fake`` directly (as its sync would have).

    discord.py building ~400 option objects from each sync's answer was a third of an e2e
    test's start-up. The sync itself is still tested by each worker's first start of each kind
    and by tests/e2e/test_startup.py.
    """
    guild_id = bot.settings.guild_id
    original = bot.sync_commands

    async def sync_or_register() -> None:
        names = sorted(command.qualified_name for command in bot.tree.walk_commands())
        kind = (guild_id is None, bot.settings.system_packages, *names)
        first = _first_syncs.get(kind)
        if first is None:
            await original()
            _first_syncs[kind] = fake.synced_commands(guild=guild_id is not None)
            return
        if guild_id is not None:
            copy_as_guild_commands(bot.tree, discord.Object(guild_id))  # as sync_commands does
        fake.register_commands(guild_id, first)

    # On this bot only, not its class (an instance attribute, which mypy calls a method-assign).
    setattr(bot, "sync_commands", sync_or_register)  # noqa: B010


@pytest.fixture
async def dicebot(
    request: pytest.FixtureRequest, fake_discord: FakeDiscord, shared_tables: SharedTables
) -> AsyncIterator[DiceBot]:
    """A dice bot ready on ``fake_discord`` with an empty database and the dice seeded with
    DICE_SEED: the shared one in a module marked ``shared_bot``, else one of its own."""
    async with AsyncExitStack() as stack:
        if _shares_a_bot(request):
            bot = shared_tables.current().bot
        else:
            database = request.getfixturevalue("migrated_sqlite")
            bot = create_bot(bot_settings(fake_discord, database), rng=new_rng(DICE_SEED))
            sync_as_the_first_start_did(bot, fake_discord)
            await stack.enter_async_context(run_bot(fake_discord, bot))
        yield bot
        # What a command still does after its reply (a blind roll's DMs to the GMs, an
        # announcement) finishes before the test ends (and before its own bot is closed).
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


# --- one bot for many tests: the modules marked ``shared_bot``
#
# Starting a bot (connecting, identifying, setting up the cogs) and stopping it was most of a
# short end-to-end test's CPU. The tests of a module marked ``shared_bot`` that take the plain
# ``dicebot`` get one bot and fake Discord per xdist worker instead, handed to each test as a
# new one would be: an empty database, the dice seeded anew, no message of the last test. A test
# that leaves anything else behind (a changed guild or channel, a task still running, an
# interaction not yet answered, a closed bot) makes the next test start a new pair.


@pytest_asyncio.fixture
async def fake_discord(
    request: pytest.FixtureRequest, shared_tables: SharedTables
) -> AsyncIterator[FakeDiscord]:
    """Yield a started FakeDiscord (the shared one when the test shares a bot); fail at
    teardown on unimplemented routes or ERROR logs."""
    if not _shares_a_bot(request):
        async with serving_fake() as fake:
            yield fake
        fail_unless_clean(fake)
        return
    table = await shared_tables.take()
    yield table.fake
    await shared_tables.give_back(table)
    fail_unless_clean(table.fake)


def _shares_a_bot(request: pytest.FixtureRequest) -> bool:
    """Whether the test takes the shared bot: in a ``shared_bot`` module, a test of the plain
    ``dicebot`` that doesn't also look at a database file of its own (``migrated_sqlite``)."""
    return (
        request.node.get_closest_marker("shared_bot") is not None
        and "dicebot" in request.fixturenames
        and "migrated_sqlite" not in request.fixturenames
    )


@dataclass
class SharedTable:
    """A fake Discord and a dice bot ready on it, for one test after another."""

    fake: FakeDiscord
    bot: DiceBot
    database: Path
    data_tables: tuple[str, ...]  # the bot's own tables (not the migrations' records)
    world: str  # the fake's world when the bot got ready (FakeDiscord.world)
    running: set[asyncio.Task[object]]  # the tasks alive then, and later serving the bot
    stack: AsyncExitStack

    def leftovers(self) -> list[str]:
        """What the last test left that the next would see: empty while the table is reusable."""
        problems = []
        if self.bot.is_closed() or not self.fake.bot_connected:
            problems.append("the bot is closed or disconnected")
        if self.fake.unanswered:
            problems.append("an interaction sent to the bot is unanswered: it may come later")
        if self.fake.world() != self.world:
            problems.append("the fake's guilds, channels, roles or members changed")
        for task in asyncio.all_tasks():
            if task.done() or task in self.running or task is asyncio.current_task():
                continue
            if _serves_a_connection(task):
                self.running.add(task)  # the fake's side of a new keep-alive HTTP connection
            else:
                problems.append(f"task {task.get_name()} still runs")
        return problems

    def reset(self) -> None:
        """Hand the table over as a new one: nothing posted or planned, an empty database (ids
        from 1 again), no campaign cached, no roll's message known, the dice seeded anew."""
        self.fake.forget_the_test()
        with closing(sqlite3.connect(self.database, isolation_level=None)) as connection:
            connection.execute("BEGIN IMMEDIATE")
            for table in self.data_tables:
                connection.execute(f'DELETE FROM "{table}"')
            connection.execute("COMMIT")
        self.bot.storage.campaigns.forget()
        self.bot.shown_messages = ShownMessages()
        self.bot.rng = new_rng(DICE_SEED)
        # A test's own bot with other SYSTEM_PACKAGES installed its registry: the rules read the
        # shared bot's systems again (rules.systems.install).
        install(self.bot.systems)
        # A test's own bot and fake pointed discord.py elsewhere and back: make sure.
        point_discord_py_at(self.fake)


def _serves_a_connection(task: asyncio.Task[object]) -> bool:
    """Whether ``task`` is aiohttp's server handling one HTTP connection (of the fake)."""
    return getattr(task.get_coro(), "__qualname__", "") == "RequestHandler.start"


class SharedTables:
    """The shared table of this worker: made when first taken, made anew when a test left
    something behind (``SharedTable.leftovers``)."""

    def __init__(self, folder: Path, template: Path) -> None:
        self._folder = folder
        self._template = template
        with closing(sqlite3.connect(template)) as connection:
            self._data_tables = tuple(data_table_names(connection))
        self._table: SharedTable | None = None
        self.made = 0

    def current(self) -> SharedTable:
        assert self._table is not None, "no test has taken the shared table"
        return self._table

    async def take(self) -> SharedTable:
        if self._table is None:
            self._table = await self._make()
        self._table.reset()
        return self._table

    async def give_back(self, table: SharedTable) -> None:
        if table.leftovers():
            await self.close()

    async def close(self) -> None:
        if self._table is not None:
            table, self._table = self._table, None
            await table.stack.aclose()

    async def _make(self) -> SharedTable:
        self.made += 1
        database = self._folder / f"shared-{self.made}.db"
        shutil.copyfile(self._template, database)
        stack = AsyncExitStack()
        fake = await stack.enter_async_context(serving_fake())
        bot = create_bot(bot_settings(fake, database), rng=new_rng(DICE_SEED))
        sync_as_the_first_start_did(bot, fake)
        await stack.enter_async_context(run_bot(fake, bot))
        running = {task for task in asyncio.all_tasks() if not task.done()}
        return SharedTable(fake, bot, database, self._data_tables, fake.world(), running, stack)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def shared_tables(
    tmp_path_factory: pytest.TempPathFactory, migrated_sqlite_template: Path
) -> AsyncIterator[SharedTables]:
    tables = SharedTables(tmp_path_factory.mktemp("shared"), migrated_sqlite_template)
    yield tables
    await tables.close()


def hold_message_of(
    dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch, roll_id: int
) -> asyncio.Event:
    """Hold back storing roll ``roll_id``'s message id, and with it what follows it (taking the
    buttons off the roller's roll before), until the returned event is set: a press on those
    buttons then surely comes first (once they are off, discord.py drops a press on a button its
    message no longer has)."""
    rolls, release = dicebot.storage.rolls, asyncio.Event()
    remember = rolls.set_message

    async def held(held_id: int, message_id: int) -> None:
        if held_id == roll_id:
            await release.wait()
        await remember(held_id, message_id)

    monkeypatch.setattr(rolls, "set_message", held)
    return release
