"""`/roll` totals of any size the notation can write (docs/players/dice.md, "Limits"): shown
whole, logged, and read back the same by the log, its export, the recap and a reveal."""

from __future__ import annotations

import csv
import io
import json

import pytest

from bot.client import DiceBot
from rules.randomness import new_rng
from tests.e2e.test_history import page_buttons
from tests.e2e.test_sixpool import create, seed_rolling, start
from tests.expect import logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

DIGITS_150 = "1234567890" * 15  # a 150-digit number: past 64 bits (20 digits) many times over
NINES_99 = "1" + "*9" * 99  # 9^99, 95 digits, from 199 characters


async def rolled_in_a_campaign(fake: FakeDiscord, expression: str, **options: object) -> int:
    """Roll ``expression`` in a new campaign; return the id of the roll."""
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Big Numbers"}, user="gm")
    reply = await fake.invoke("roll", {"expression": expression, **options}, user="gm")
    footer = reply.embeds[0]["footer"]["text"]
    return int(footer.split("#")[1].split(":")[0])


@pytest.mark.parametrize(
    ("expression", "total"),
    [(DIGITS_150, int(DIGITS_150)), (NINES_99, 9**99), ("-" + "9" * 199, -(10**199 - 1))],
    ids=["150-digits", "99-nines", "199-digits-negative"],
)
async def test_a_total_past_64_bits_is_shown_whole_and_logged(
    fake_discord: FakeDiscord, dicebot: DiceBot, expression: str, total: int
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": expression}, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert "fields" not in embed  # the total is the title's alone (issue 53)
    # The title keeps the total whole (within 256 characters): what was rolled is shortened.
    assert embed["title"].endswith(f" · total {total}") and len(embed["title"]) <= 256
    roll_id = int(embed["footer"]["text"].removeprefix("Roll #"))
    logged = await logged_roll(dicebot.storage, roll_id)
    assert logged.payload["result"]["total"] == total


async def test_a_huge_total_reads_back_the_same_in_the_log_and_its_exports(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    total = int(DIGITS_150)
    roll_id = await rolled_in_a_campaign(fake_discord, DIGITS_150)
    page = await fake_discord.invoke("campaign log", {}, user="player")
    line = page.embeds[0]["description"].splitlines()[0]
    assert line.startswith(f"`#{roll_id}`") and line.endswith(f" → **{total}**")
    exported = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    rows = list(csv.DictReader(io.StringIO(exported.attachments[0][1].decode())))
    assert [(row["id"], row["total"]) for row in rows] == [(str(roll_id), str(total))]
    as_json = await fake_discord.invoke("campaign log", {"export": "json"}, user="gm")
    (record,) = json.loads(as_json.attachments[0][1])
    assert record["total"] == str(total) and record["result"]["total"] == total


async def test_a_huge_total_is_the_recaps_biggest_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    first = await rolled_in_a_campaign(fake_discord, NINES_99)  # ×: counted, not scored
    for expression in (DIGITS_150, f"1d20+{'9' * 150}", f"1d20-{'9' * 150}", "2d6"):
        await fake_discord.invoke("roll", {"expression": expression}, user="player")
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    description = reply.embeds[0]["description"]
    assert "(4 scored rolls)" in description  # the number, the two d20s and 2d6
    biggest = await logged_roll(dicebot.storage, first + 2)
    total = biggest.payload["result"]["total"]
    assert total > 10**150 and f"Biggest: **{total}** `#{first + 2}`" in description


async def test_a_hidden_huge_total_is_revealed_as_rolled(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll_id = await rolled_in_a_campaign(fake_discord, NINES_99, hidden=True)
    revealed = await fake_discord.invoke("campaign reveal", {"roll_id": roll_id}, user="gm")
    assert not revealed.ephemeral
    assert revealed.embeds[0]["title"].endswith(f" · total {9**99}")


async def test_an_attacks_huge_damage_is_shown_whole_and_logged(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Six-pool damage is written in the same notation (docs/players/sixpool.md, "Rules notes").
    await start(fake_discord)
    await create(fake_discord)
    dicebot.rng = new_rng(seed_rolling(lambda face: face == 20))  # a natural 20: dice doubled
    damage = "1d1*" + "9" * 150
    reply = await fake_discord.invoke(
        "sixpool attack", {"pool": "STR", "ac": 10, "damage": damage}, user="player"
    )
    total = 2 * (10**150 - 1)
    (shown,) = [field for field in reply.embeds[0]["fields"] if field["name"] == "Damage"]
    assert shown["value"].startswith(f"**{total}** from `2d1*{'9' * 150}`")
    roll_id = int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #"))
    logged = await logged_roll(dicebot.storage, roll_id)
    assert shown in logged.payload["embed"]["fields"]  # as a reveal would show it


async def test_a_log_page_of_huge_totals_shows_the_rolls_that_fit_and_pages_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Big"}, user="gm")
    for number in range(25):
        await fake_discord.invoke("roll", {"expression": f"{'9' * 190}+{number}"}, user="player")

    def shown(page: Reply) -> list[int]:
        description = page.embeds[0]["description"]
        assert "cut to fit" not in description
        lines = description.splitlines()
        ids = [int(line.split("`")[1].removeprefix("#")) for line in lines]
        for roll_id, line in zip(ids, lines, strict=True):  # every total whole
            assert line.endswith(f" → **{10**190 - 1 + roll_id - 1}**")
        return ids

    first = await fake_discord.invoke("campaign log", {"limit": 25}, user="player")
    newest = shown(first)
    assert newest == list(range(25, 25 - len(newest), -1)) and len(newest) < 25
    assert page_buttons(first)[0][2] is False  # nothing newer
    older = await fake_discord.click(first, page_buttons(first)[1][1], user="player")
    rest = shown(older)
    assert rest == list(range(newest[-1] - 1, newest[-1] - 1 - len(rest), -1))
    back = await fake_discord.click(older, page_buttons(older)[0][1], user="player")
    assert shown(back) == newest  # the rolls next to the boundary: the first page again
