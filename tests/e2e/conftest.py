"""The real bot, started in-process against the fake Discord with a fresh database."""

from __future__ import annotations

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


# The commands the `dicebot` fixture's bot synced at its first start in this worker process.
_first_sync: list[JSON] = []


def sync_as_the_first_start_did(
    bot: DiceBot, fake: FakeDiscord, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Let ``bot`` sync for real at the worker's first start, then register the same commands
    on each later fake directly. Every start of the fixture's bot syncs the same commands, and
    discord.py building ~400 option objects from the sync's answer was a third of a test's
    start-up; the sync itself is tested by each worker's first start and tests/e2e/test_startup.py.
    """
    original = bot.sync_commands
    if not _first_sync:

        async def sync_and_keep() -> None:
            await original()
            _first_sync.extend(fake.synced_commands(guild=True))

        monkeypatch.setattr(bot, "sync_commands", sync_and_keep)
        return

    async def register_again() -> None:
        bot.tree.copy_global_to(guild=discord.Object(fake.guild_id))  # as sync_commands does
        fake.register_commands(fake.guild_id, _first_sync)

    monkeypatch.setattr(bot, "sync_commands", register_again)


@pytest.fixture
async def dicebot(
    fake_discord: FakeDiscord, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[DiceBot]:
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite), rng=new_rng(DICE_SEED))
    sync_as_the_first_start_did(bot, fake_discord, monkeypatch)
    async with run_bot(fake_discord, bot):
        yield bot
        # What a command still does after its reply (a blind roll's DMs to the GMs, an
        # announcement) finishes before the test closes the bot's connection to Discord.
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
