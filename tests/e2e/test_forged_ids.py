"""Ids no row can have, in a button's custom id or an option: a private refusal, no ERROR.

The database stores ids as signed 64-bit integers; a forged custom id such as
``roll:again:99999999999999999999`` used to reach it and raise OverflowError ("Something went wrong
on our side", an ERROR in the log). docs/players/index.md, "Input Discord's client wouldn't send".
"""

from __future__ import annotations

import time

import pytest

from bot.client import DiceBot
from tests.e2e.test_properties import snapshot
from tests.fakediscord import payloads
from tests.fakediscord.messages import FakeMessage
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

TOO_BIG = "99999999999999999999"  # 20 digits, past 2^63 - 1
JUST_PAST = str(2**63)  # 19 digits: the first id SQLite can't hold
BUTTON, SELECT = 2, 3
REFUSAL = "ids run from 1 to 9223372036854775807"


def forged_message(fake: FakeDiscord, custom_id: str, kind: int) -> FakeMessage:
    """A message of the bot's carrying one component with ``custom_id``, as a forged
    interaction presents it."""
    if kind == BUTTON:
        component: JSON = {"type": BUTTON, "style": 1, "label": "Press", "custom_id": custom_id}
    else:
        options = [{"label": f"Spend {n}", "value": str(n)} for n in range(3)]
        component = {"type": SELECT, "custom_id": custom_id, "options": options}
    return FakeMessage(
        id=payloads.snowflake(),
        channel_id=fake.channel_id,
        author=payloads.user(fake.bot_user),
        components=[{"type": 1, "components": [component]}],
    )


def end_prompt_id(fake: FakeDiscord, *, prompt: str, campaign: str, requester: str) -> str:
    deadline = int(time.time()) + 120
    return f"campaign:end:end:{prompt}:{campaign}:{requester}:{deadline}"


@pytest.mark.parametrize(
    ("custom_id", "kind", "what"),
    [
        (f"roll:reveal:{TOO_BIG}", BUTTON, "roll"),
        (f"roll:reveal:{JUST_PAST}", BUTTON, "roll"),
        (f"roll:again:{TOO_BIG}", BUTTON, "roll"),
        (f"roll:again:{JUST_PAST}", BUTTON, "roll"),
        (f"sinew:luck:{TOO_BIG}:1", BUTTON, "roll"),
        (f"sinew:luck:{TOO_BIG}:n", BUTTON, "roll"),
        (f"sinew:dluck:{TOO_BIG}:1", BUTTON, "roll"),
        (f"sinew:dluck:{TOO_BIG}:n", BUTTON, "roll"),
        (f"sixpool:contest:{TOO_BIG}", BUTTON, "contest"),
        (f"sixpool:spend:{TOO_BIG}:2", SELECT, "contest"),
        (f"sixpool:reroll:{TOO_BIG}:0", BUTTON, "roll"),
        (f"realms:reroll:{TOO_BIG}:1", BUTTON, "roll"),
        (f"sixpool:group:{TOO_BIG}:roll", BUTTON, "group check"),
        (f"sixpool:group:{TOO_BIG}:close", BUTTON, "group check"),
        (f"sixpool:groupspend:{TOO_BIG}:2", SELECT, "group check"),
        (f"campaign:log:{TOO_BIG}:0:2", BUTTON, "roll"),
        (f"campaign:log:1:{TOO_BIG}:2", BUTTON, "member"),
        ("end", BUTTON, "prompt"),
        ("end-campaign", BUTTON, "campaign"),
    ],
)
async def test_forged_custom_id_past_the_database_range_is_refused_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot, custom_id: str, kind: int, what: str
) -> None:
    gm = str(fake_discord.users["gm"].id)
    await fake_discord.invoke("campaign start", {"system": "sixpool", "name": "Forgery"})
    await fake_discord.invoke("roll", {"expression": "1d20"}, user="gm")
    if custom_id == "end":
        custom_id = end_prompt_id(fake_discord, prompt=TOO_BIG, campaign="1", requester=gm)
    elif custom_id == "end-campaign":
        custom_id = end_prompt_id(fake_discord, prompt="1", campaign=TOO_BIG, requester=gm)
    # The roll's message id is remembered just after its reply: let that land first.
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to settle")
    before = snapshot(dicebot.settings.database_path)
    posted = len(fake_discord.channel_messages(fake_discord.channel_id))

    values = ["1"] if kind == SELECT else None
    message = forged_message(fake_discord, custom_id, kind)
    refused = await fake_discord.click(message, custom_id, user="gm", values=values)

    assert refused.ephemeral, refused.content
    assert f"There is no {what} " in refused.content and REFUSAL in refused.content
    assert "went wrong" not in refused.content
    assert fake_discord.error_logs == []
    assert snapshot(dicebot.settings.database_path) == before
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == posted


async def test_option_naming_a_member_past_the_database_range_is_refused_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Forgery"})
    before = snapshot(dicebot.settings.database_path)
    forged = payloads.FakeUser(int(TOO_BIG), "forged")
    resolved = {"users": {TOO_BIG: payloads.user(forged)}}
    reply = await fake_discord.send_raw(
        "campaign gm add",
        [{"name": "user", "type": 6, "value": TOO_BIG}],
        resolved=resolved,
        user="gm",
    )
    await fake_discord.wait_answered([reply])
    assert reply.ephemeral, reply.content
    assert f"There is no member {TOO_BIG}" in reply.content and REFUSAL in reply.content
    assert fake_discord.error_logs == []
    assert snapshot(dicebot.settings.database_path) == before
