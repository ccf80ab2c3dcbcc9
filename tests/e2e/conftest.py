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


@pytest.fixture
async def dicebot(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[DiceBot]:
    settings = Settings(
        token=fake_discord.token,
        database_path=migrated_sqlite,
        guild_id=fake_discord.guild_id,
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, bot):
        yield bot
        # What a command still does after its reply (a blind roll's DMs to the GMs, an
        # announcement) finishes before the test closes the bot's connection to Discord.
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
