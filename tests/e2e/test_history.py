"""`/campaign log`: the roll history, paged by a persistent button, and the GM's export."""

from __future__ import annotations

import csv
import io
import json

from bot.client import DiceBot
from tests.e2e.test_buttons import restarted
from tests.fakediscord.server import FakeDiscord


async def rolls_made(fake: FakeDiscord) -> None:
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm")
    for number in range(1, 6):
        await fake.invoke("roll", {"expression": f"1d{number + 1}"}, user="player")
    hidden = await fake.invoke("roll", {"expression": "1d20", "hidden": True}, user="gm")
    assert hidden.ephemeral


async def test_history_pages_newest_first_and_hides_secret_rolls_from_players(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    page = await fake_discord.invoke("campaign log", {"limit": 2}, user="player")
    assert page.ephemeral
    lines = page.embeds[0]["description"].splitlines()
    assert [line.split("`")[1] for line in lines] == ["#5", "#4"]  # #6 is the GM's hidden roll
    assert page.original.custom_ids() == ["campaign:log:4:0:2"]
    older = await fake_discord.click(page, "campaign:log:4:0:2", user="player")
    assert [line.split("`")[1] for line in older.embeds[0]["description"].splitlines()] == [
        "#3", "#2",
    ]  # fmt: skip
    gm = await fake_discord.invoke("campaign log", {"limit": 3}, user="gm")
    first = gm.embeds[0]["description"].splitlines()[0]
    assert first.startswith("`#6`") and first.endswith("🔒")
    assert gm.embeds[0]["footer"]["text"].startswith("GM view")


async def test_history_button_after_a_restart_and_by_user(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    mine = await fake_discord.invoke(
        "campaign log", {"user": fake_discord.users["gm"]}, user="player"
    )
    assert mine.embeds[0]["description"] == "No rolls yet."  # the GM's only roll is hidden
    page = await fake_discord.invoke("campaign log", {"limit": 4}, user="player")
    async with restarted(fake_discord, dicebot, seed=2):
        older = await fake_discord.click(page, "campaign:log:2:0:4", user="player")
        assert older.embeds[0]["description"].splitlines()[0].startswith("`#1`")
        assert older.original.custom_ids() == []


async def test_gm_exports_the_whole_log_as_csv_or_json(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    refused = await fake_discord.invoke("campaign log", {"export": "csv"}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    exported = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    name, data = exported.attachments[0]
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert name == "roll-log.csv" and [row["id"] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert rows[5]["visibility"] == "hidden"
    as_json = await fake_discord.invoke("campaign log", {"export": "json"}, user="gm")
    records = json.loads(as_json.attachments[0][1])
    assert len(records) == 6 and records[0]["kind"] == "dice" and "result" in records[0]


async def test_a_page_size_out_of_range_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)  # found by the fuzz test: limit 0 crashed the paging
    options = [{"name": "limit", "type": 4, "value": 0}]  # no Discord client sends this
    refused = await fake_discord.send_raw("campaign log", options, user="player")
    await fake_discord.wait_answered([refused])
    assert refused.ephemeral and "Limit must be between 1 and 25" in refused.content
