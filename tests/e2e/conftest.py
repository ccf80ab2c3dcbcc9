"""The real bot, started in-process against the fake Discord with a fresh database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from bot.client import DiceBot, create_bot
from bot.config import Settings
from rules.randomness import new_rng
from tests.fakediscord.fixtures import run_bot
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
            bot.tree.copy_global_to(guild=discord.Object(guild_id))  # as sync_commands does
        fake.register_commands(guild_id, first)

    # On this bot only, not its class (an instance attribute, which mypy calls a method-assign).
    setattr(bot, "sync_commands", sync_or_register)  # noqa: B010


@pytest.fixture
async def dicebot(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[DiceBot]:
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite), rng=new_rng(DICE_SEED))
    sync_as_the_first_start_did(bot, fake_discord)
    async with run_bot(fake_discord, bot):
        yield bot
        # What a command still does after its reply (a blind roll's DMs to the GMs, an
        # announcement) finishes before the test closes the bot's connection to Discord.
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


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
