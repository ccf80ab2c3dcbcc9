"""The per-user limit on roll commands: a flood is refused privately, saying when to try again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.client import DiceBot, create_bot
from bot.ratelimit import RollLimit
from rules.randomness import new_rng
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_a_user_past_the_roll_limit_is_told_when_to_try_again_and_others_roll_on(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await dicebot.shutdown()
    limited = create_bot(replace(dicebot.settings, roll_limit=RollLimit(3, 60)), rng=new_rng(1))
    async with run_bot(fake_discord, limited):
        await fake_discord.invoke("macro save", {"name": "Hit", "expression": "1d20+5"})
        rolls = [await fake_discord.invoke("roll", {"expression": "1d6"}) for _ in range(2)]
        by_macro = await fake_discord.invoke("macro roll", {"name": "Hit"})  # counts once
        assert [reply.content for reply in [*rolls, by_macro] if reply.ephemeral] == []
        refused = await fake_discord.invoke("cosmos roll", {"attribute": 3, "skill": 2, "tn": 15})
        assert refused.ephemeral and refused.embeds == []
        assert refused.content.startswith(
            "❌ You're rolling faster than this bot allows (3 rolls per 60 seconds each). "
            "Try again in "
        )
        wait = int(refused.content.removeprefix("❌ ").split("Try again in ")[1].split(" s")[0])
        assert 55 <= wait <= 60
        assert await limited.storage.rolls.get(4) is None  # nothing rolled or logged
        other = await fake_discord.invoke("roll", {"expression": "1d6"}, user="player")
        assert not other.ephemeral, other.content  # another user's window is their own
        listed = await fake_discord.invoke("macro list", {})  # not a roll: never limited
        assert listed.embeds[0]["title"] == "💾 Macros"
