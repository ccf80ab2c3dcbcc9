"""What a roll's payload keeps (docs/development.md, "Roll kinds"): its rules result, and since
version 2 what was rolled, as data the log reads instead of the reply's title."""

from __future__ import annotations

import pytest

from bot.client import DiceBot
from rules.roll_kinds import PAYLOAD_VERSION, RESULT, VERSION, WHAT
from tests.e2e.test_big_totals import rolled_in_a_campaign
from tests.expect import logged_roll
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_a_roll_is_logged_with_its_version_and_what_was_rolled_which_the_log_shows(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll_id = await rolled_in_a_campaign(fake_discord, "3d6+2")
    logged = await logged_roll(dicebot.storage, roll_id)
    assert logged.payload[VERSION] == PAYLOAD_VERSION == 2
    what = logged.payload[WHAT]
    assert isinstance(what, str) and "3d6+2" in what
    assert f": {what} · total {logged.payload[RESULT]['total']}" in logged.payload["embed"]["title"]
    page = await fake_discord.invoke("campaign log", {}, user="player")
    line = page.embeds[0]["description"].splitlines()[0]
    gm, total = fake_discord.users["gm"].id, logged.payload[RESULT]["total"]
    assert line == f"`#{roll_id}` · <@{gm}> · {what} → **{total}**"
