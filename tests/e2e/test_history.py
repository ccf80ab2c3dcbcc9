"""`/campaign log`: the roll history, paged by a persistent button, and the GM's export."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta

import pytest

from bot.client import DiceBot
from tests.e2e.test_buttons import restarted
from tests.e2e.test_forged_ids import BUTTON, forged_message
from tests.fakediscord.messages import Reply, interactive_components
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def rolls_made(fake: FakeDiscord) -> None:
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm")
    for number in range(1, 6):
        await fake.invoke("roll", {"expression": f"1d{number + 1}"}, user="player")
    hidden = await fake.invoke("roll", {"expression": "1d20", "hidden": True}, user="gm")
    assert hidden.ephemeral


def ids_of(reply: Reply) -> list[str]:
    """The roll ids a page of the log shows, in order."""
    return [line.split("`")[1] for line in reply.embeds[0]["description"].splitlines()]


def page_buttons(reply: Reply) -> list[tuple[str, str, bool]]:
    """The page's buttons: label, custom id and whether it can be pressed."""
    assert reply.message is not None
    return [
        (button["label"], button["custom_id"], not button.get("disabled", False))
        for button in interactive_components(reply.message.components)
    ]


async def dice_total(bot: DiceBot, roll_id: int) -> int:
    logged = await bot.storage.rolls.get(roll_id)
    assert logged is not None
    return int(logged.payload["result"]["total"])


async def test_history_pages_newest_first_and_hides_secret_rolls_from_players(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    page = await fake_discord.invoke("campaign log", {"limit": 2}, user="player")
    assert page.ephemeral
    assert ids_of(page) == ["#5", "#4"]  # #6 is the GM's hidden roll
    assert page_buttons(page) == [
        ("← Newer", "campaign:log:newer:5:0:2", False),  # the newest page: nothing newer
        ("Older →", "campaign:log:older:4:0:2", True),
    ]
    older = await fake_discord.click(page, "campaign:log:older:4:0:2", user="player")
    assert ids_of(older) == ["#3", "#2"]
    gm = await fake_discord.invoke("campaign log", {"limit": 3}, user="gm")
    first = gm.embeds[0]["description"].splitlines()[0]
    assert first.startswith("`#6`") and first.endswith("🔒 hidden")
    assert gm.embeds[0]["footer"]["text"].startswith("GM view")


async def test_history_line_shows_who_what_total_and_verdict(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    page = await fake_discord.invoke("campaign log", {"limit": 5}, user="player")
    player = fake_discord.users["player"].id
    lines = page.embeds[0]["description"].splitlines()
    for line, roll_id, sides in zip(lines, range(5, 0, -1), range(6, 1, -1), strict=True):
        total = await dice_total(dicebot, roll_id)
        assert 1 <= total <= sides
        # The reply's title (docs/players/index.md, "Reading a reply") is "🎲 player: 1d6 ·
        # total 4": the log names the roller itself and shows the total once, after the arrow.
        assert line == f"`#{roll_id}` · <@{player}> · 1d{sides} → **{total}**"


async def test_history_pages_older_then_newer_back_to_the_first_page_with_ends_disabled(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    page = await fake_discord.invoke("campaign log", {"limit": 2}, user="player")
    first = page.embeds[0]["description"]
    await fake_discord.click(page, "campaign:log:older:4:0:2", user="player")
    middle = await fake_discord.click(page, "campaign:log:older:2:0:2", user="player")
    assert ids_of(middle) == ["#1"]
    assert page_buttons(middle) == [
        ("← Newer", "campaign:log:newer:1:0:2", True),
        ("Older →", "campaign:log:older:1:0:2", False),  # the oldest page
    ]
    back = await fake_discord.click(page, "campaign:log:newer:1:0:2", user="player")
    assert ids_of(back) == ["#3", "#2"]
    assert [enabled for _, _, enabled in page_buttons(back)] == [True, True]
    newest = await fake_discord.click(page, "campaign:log:newer:3:0:2", user="player")
    assert newest.embeds[0]["description"] == first
    assert page_buttons(newest) == [
        ("← Newer", "campaign:log:newer:5:0:2", False),
        ("Older →", "campaign:log:older:4:0:2", True),
    ]


async def test_history_pages_stay_put_while_new_rolls_arrive(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    page = await fake_discord.invoke("campaign log", {"limit": 2}, user="player")
    await fake_discord.click(page, "campaign:log:older:4:0:2", user="player")
    await fake_discord.invoke("roll", {"expression": "1d8"}, user="player")  # roll #7
    newer = await fake_discord.click(page, "campaign:log:newer:3:0:2", user="player")
    assert ids_of(newer) == ["#5", "#4"]  # the same page as before, not shifted by #7
    assert page_buttons(newer)[0] == ("← Newer", "campaign:log:newer:5:0:2", True)
    latest = await fake_discord.click(page, "campaign:log:newer:5:0:2", user="player")
    assert ids_of(latest) == ["#7"]


async def test_history_buttons_after_a_restart_and_by_user(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    mine = await fake_discord.invoke(
        "campaign log", {"user": fake_discord.users["gm"]}, user="player"
    )
    assert mine.embeds[0]["description"] == "No rolls yet."  # the GM's only roll is hidden
    assert page_buttons(mine) == []
    page = await fake_discord.invoke("campaign log", {"limit": 4}, user="player")
    async with restarted(fake_discord, dicebot, seed=2):
        older = await fake_discord.click(page, "campaign:log:older:2:0:4", user="player")
        assert older.embeds[0]["description"].splitlines()[0].startswith("`#1`")
        assert [enabled for _, _, enabled in page_buttons(older)] == [True, False]
        newer = await fake_discord.click(page, "campaign:log:newer:1:0:4", user="player")
        assert ids_of(newer) == ["#5", "#4", "#3", "#2"]
        # An Older → posted before ← Newer existed still turns the page.
        posted = forged_message(fake_discord, "campaign:log:2:0:4", BUTTON)
        legacy = await fake_discord.click(posted, "campaign:log:2:0:4", user="player")
        assert ids_of(legacy) == ["#1"]


async def test_gm_exports_the_whole_log_as_csv_or_json(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    refused = await fake_discord.invoke("campaign log", {"export": "csv"}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    exported = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    assert exported.ephemeral and exported.content == "📜 6 rolls of Far Stars."
    name, data = exported.attachments[0]
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert name == "roll-log.csv" and [row["id"] for row in rows] == ["1", "2", "3", "4", "5", "6"]
    assert rows[5]["visibility"] == "hidden"
    as_json = await fake_discord.invoke("campaign log", {"export": "json"}, user="gm")
    records = json.loads(as_json.attachments[0][1])
    assert len(records) == 6 and records[0]["kind"] == "dice" and "result" in records[0]
    assert records[0]["user"] == "player"


async def test_export_csv_has_names_plain_text_totals_and_iso_times(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)
    await fake_discord.invoke("roll", {"expression": "1d20+2>=12 Sneak_attack"}, user="gm")
    exported = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    rows = list(csv.DictReader(io.StringIO(exported.attachments[0][1].decode())))
    player, gm = fake_discord.users["player"], fake_discord.users["gm"]
    assert [(row["user"], row["user_id"]) for row in rows[:2]] == [
        ("player", str(player.id)),
        ("player", str(player.id)),
    ]
    for row in rows[:5]:
        total = await dice_total(dicebot, int(row["id"]))
        assert (row["total"], row["verdict"]) == (str(total), "")
        assert row["title"] == f"player: 1d{int(row['id']) + 1} · total {total}"
    assert "gm: 1d20+2>=12 Sneak_attack · total " in rows[6]["title"]
    compared = await dicebot.storage.rolls.get(7)
    assert compared is not None
    total = int(compared.payload["result"]["rolls"][0][0]["total"])
    assert rows[6]["user"] == "gm" and rows[6]["total"] == str(total)
    assert rows[6]["verdict"] == ("success" if total >= 12 else "failure")
    for row in rows:
        for cell in row.values():
            assert not any(mark in cell for mark in ("**", "`", "\\", "<@", "🎲", "✅", "❌"))
        when = datetime.fromisoformat(row["created_at"])
        assert when.utcoffset() == timedelta(0)
    fake_discord.member_leaves("player")  # gone from the server: the export shows their id
    again = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    rows = list(csv.DictReader(io.StringIO(again.attachments[0][1].decode())))
    assert [row["user"] for row in rows] == [str(player.id)] * 5 + ["gm", "gm"]
    assert gm.name == "gm"


async def test_a_page_size_out_of_range_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await rolls_made(fake_discord)  # found by the fuzz test: limit 0 crashed the paging
    options = [{"name": "limit", "type": 4, "value": 0}]  # no Discord client sends this
    refused = await fake_discord.send_raw("campaign log", options, user="player")
    await fake_discord.wait_answered([refused])
    assert refused.ephemeral and "Limit must be between 1 and 25" in refused.content


async def test_rule_log_line_shows_a_system_rolls_total_and_verdict_as_its_reply(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    options = {"attribute": 3, "skill": 2, "tn": 15}
    reply = await fake_discord.invoke("cosmos roll", options, user="player")
    secret = await fake_discord.invoke("cosmos roll", {**options, "hidden": True}, user="gm")
    assert secret.ephemeral
    player, gm = fake_discord.users["player"].id, fake_discord.users["gm"].id
    expected = []
    for roll_id, who in ((2, gm), (1, player)):
        logged = await dicebot.storage.rolls.get(roll_id)
        assert logged is not None
        first, second = logged.payload["result"]["roll"]["dice"]  # 2d10, both kept
        total = first + second + 5
        if (first, second) == (10, 10):
            verdict = "✨"
        elif (first, second) == (1, 1):
            verdict = "💀"
        else:
            verdict = "✅" if total >= 15 else "❌"
        what = "roll vs TN 15 (Hard)"
        expected.append(f"`#{roll_id}` · <@{who}> · {what} → **{total}** {verdict}")
    expected[0] += " 🔒 hidden"
    assert ": roll vs TN 15 (Hard) · total " in reply.embeds[0]["title"]
    gm_page = await fake_discord.invoke("campaign log", {}, user="gm")
    assert gm_page.embeds[0]["description"].splitlines() == expected
    player_page = await fake_discord.invoke("campaign log", {}, user="player")
    assert player_page.embeds[0]["description"].splitlines() == expected[1:]
