"""The bot the tests of a ``shared_bot`` module share (tests/e2e/conftest.py): each test gets it
as a new one would be, and a test that leaves what can't be undone leaves a new bot to the next."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import SharedTables
from tests.fakediscord.fixtures import settled


async def test_the_shared_bot_comes_back_with_nothing_of_the_last_test(
    shared_tables: SharedTables,
) -> None:
    table = await shared_tables.take()
    fake, bot = table.fake, table.bot
    first = await fake.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Voidrunners"}, user="gm")
    fake.expect_errors()
    await settled(fake, bot)
    await shared_tables.give_back(table)

    again = await shared_tables.take()
    assert again.bot is bot and not bot.is_closed()  # nothing was left behind: the same bot
    assert await bot.storage.campaigns.active(fake.channel_id) is None  # an empty database
    assert not fake.errors_expected and fake.error_logs == []
    second = await fake.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    # The first roll logged again (its id from 1 again), with the same dice (seeded anew).
    assert second.embeds[0]["footer"]["text"] == first.embeds[0]["footer"]["text"] == "Roll #1"
    assert second.embeds[0]["description"] == first.embeds[0]["description"]
    await settled(fake, bot)
    await shared_tables.give_back(again)


async def test_a_changed_world_or_a_task_left_running_leaves_a_new_bot_to_the_next_test(
    shared_tables: SharedTables,
) -> None:
    table = await shared_tables.take()
    table.fake.closed_dms.add(table.fake.users["player"].id)  # what the bot can't unlearn
    await shared_tables.give_back(table)
    changed = await shared_tables.take()
    assert changed.bot is not table.bot and table.bot.is_closed()

    sleeper = asyncio.create_task(asyncio.sleep(60), name="left-running")
    await shared_tables.give_back(changed)
    sleeper.cancel()
    after_the_task = await shared_tables.take()
    assert after_the_task.bot is not changed.bot and changed.bot.is_closed()
    await shared_tables.give_back(after_the_task)
