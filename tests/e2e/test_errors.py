"""The one error path: unexpected failures are logged with an id the user sees."""

from __future__ import annotations

import re

import pytest

from bot.client import DiceBot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_unexpected_error_is_logged_with_the_id_the_user_sees(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    errors = fake_discord.expect_errors()

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(dicebot.storage.campaigns, "start", broken)
    reply = await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Voidrunners"}, user="gm"
    )
    assert reply.ephemeral
    match = re.search(r"error id `([0-9a-f]{8})`", reply.content)
    assert match, reply.content
    assert "disk on fire" not in reply.content and "Traceback" not in reply.content
    [logged] = errors
    assert match.group(1) in logged and "disk on fire" in logged
    monkeypatch.undo()
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None


async def test_error_in_a_button_goes_through_the_same_path(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    errors = fake_discord.expect_errors()
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Voidrunners"}, user="gm"
    )
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("lost connection")

    monkeypatch.setattr(dicebot.storage.campaigns, "end_as_answered", broken)
    reply = await fake_discord.click(prompt, prompt.components[0]["components"][0]["custom_id"])
    assert reply.ephemeral
    match = re.search(r"error id `([0-9a-f]{8})`", reply.content)
    assert match, reply.content
    [logged] = errors
    assert match.group(1) in logged and "lost connection" in logged
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is not None
