"""The real bot, started in-process against the fake Discord with a fresh database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import DiceBot, create_bot
from bot.config import Settings
from rules.randomness import new_rng
from tests.fakediscord.fixtures import run_bot
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


@pytest.fixture
async def dicebot(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[DiceBot]:
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite), rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, bot):
        yield bot
        # What a command still does after its reply (a blind roll's DMs to the GMs, an
        # announcement) finishes before the test closes the bot's connection to Discord.
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
