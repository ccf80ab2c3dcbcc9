"""A full disk or a read-only database while the bot runs, through the real handlers.

Writes get a clear ephemeral refusal and change nothing; `/roll`, odds and sheets keep
answering (a `/roll` says it wasn't logged, with no id); once the database takes writes again
the very next command works, with no restart. The faults are real SQLite errors on the bot's
writer connection (see tests/storage/faults.py).
"""

from __future__ import annotations

import logging

import pytest

from bot.client import DiceBot
from tests.e2e.test_sinew import TOUGH, campaign_of, character, create, failed_test, start_sinew
from tests.expect import logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord
from tests.storage.faults import FILLER_CHANNEL, disk_full, read_only

UNLOGGED = "Not in the roll log: the bot can't save right now"


def not_saved(why: str) -> str:
    return (
        f"❌ The bot can't save anything right now ({why}), so nothing was changed. "
        "Try again in a while; `/roll`, odds and sheets still work."
    )


async def logged_rolls(bot: DiceBot) -> list[int]:
    rows = await bot.storage.database.fetch_all(
        "SELECT id FROM rolls WHERE channel_id != ? ORDER BY id", (FILLER_CHANNEL,)
    )
    return [row["id"] for row in rows]


def assert_unlogged_roll(reply: Reply) -> None:
    """A public roll shown without an id or buttons, saying it wasn't logged."""
    assert not reply.ephemeral and not reply.content.startswith("❌"), reply.content
    assert reply.embeds[0]["footer"]["text"] == UNLOGGED
    assert reply.components == []


def database_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "bot.storage.database" and record.levelno >= logging.WARNING
    ]


async def test_read_only_database_refuses_writes_clearly_rolls_go_on_and_it_recovers_alone(
    fake_discord: FakeDiscord, dicebot: DiceBot, caplog: pytest.LogCaptureFixture
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STA 5
    player = fake_discord.users["player"]
    before = await logged_rolls(dicebot)
    refusal = not_saved("its database has become read-only")
    async with read_only(dicebot.storage.database):
        added = await fake_discord.invoke("campaign gm add", {"user": player})
        assert added.ephemeral and added.content == refusal
        hurt = await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 2})
        assert hurt.ephemeral and hurt.content == refusal
        secret = await fake_discord.invoke("roll", {"expression": "1d6", "hidden": True})
        assert secret.ephemeral and secret.content == refusal  # a hidden roll lives in the log
        tested = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
        assert tested.ephemeral and tested.content == refusal  # Luck would spend on the log
        rolled = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
        assert_unlogged_roll(rolled)
        odds = await fake_discord.invoke("sinew odds", {"score": 12, "vs_score": 10})
        assert not odds.ephemeral and odds.embeds and odds.attachments
        sheet = await fake_discord.invoke("sinew character sheet", {}, user="player")
        assert sheet.embeds[0]["title"].startswith("📜 Brakka")
        # Nothing changed, and the outage is one warning line, not a traceback per command.
        assert player.id not in (await campaign_of(fake_discord, dicebot)).gm_ids
        assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 5
        assert await logged_rolls(dicebot) == before
        assert database_warnings(caplog) == [
            "The database can't be written (read-only): attempt to write a readonly database"
        ]
    # Writable again: the next commands work on the same running bot.
    added = await fake_discord.invoke("campaign gm add", {"user": player})
    assert not added.ephemeral, added.content
    assert player.id in (await campaign_of(fake_discord, dicebot)).gm_ids
    rolled = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
    [roll_id] = [n for n in await logged_rolls(dicebot) if n not in before]
    assert rolled.embeds[0]["footer"]["text"] == f"Roll #{roll_id}"


async def test_full_disk_refuses_a_luck_spend_whole_keeps_rolls_and_it_recovers_alone(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await failed_test(
        fake_discord, dicebot, "Tank", TOUGH, score=6, needs=lambda needed: needed > 10
    )
    assert reply.embeds[0]["footer"]["text"] == "Roll #1"
    async with disk_full(dicebot.storage.database):
        spent = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
        assert spent.ephemeral and spent.content == not_saved("its disk is full")
        # The sheet's new Luck and the spend's roll go together or not at all.
        assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 10
        assert await logged_rolls(dicebot) == [1]
        assert_unlogged_roll(await fake_discord.invoke("roll", {"expression": "1d20"}))
    spent = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert spent.content.startswith("🍀 Luck spent on roll #1"), spent.content
    assert reply.embeds[0]["footer"]["text"] != "Roll #1"  # the test's message shows the spend
    assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 9
    [spend_id] = (await logged_rolls(dicebot))[1:]
    assert (await logged_roll(dicebot.storage, spend_id)).payload["luck_of"] == 1
