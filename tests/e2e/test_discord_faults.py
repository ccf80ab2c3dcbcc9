"""Discord answering 429 and 5xx: discord.py retries, and nothing is applied or said twice.

The fake refuses a request before acting on it (``fail_next``), as Discord's rate limiter and
front end do, so a retry that gets through is the first the fake acts on; with ``acted=True``
it acts first and loses only its answer, so the retry meets what the first try did. Each test
checks the failures were really served, that the reply and every announcement arrived exactly
once, and that the state and the roll log moved exactly once. When Discord never takes an
answer, the change stays saved once, the channel still hears of it, the user is told not to
repeat it, and the next command works.

discord.py waits ``retry_after`` (50 ms here) after a 429, but 1 + 2·n s after a 5xx on its
n-th retry: a test fails a request with one 5xx at most, and that one first, and discord.py's
waits are shortened here (``short_retry_waits``), its retries otherwise unchanged.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord.http
import discord.webhook.async_
import pytest

from bot.client import DiceBot
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.test_sinew import campaign_of, character, create, seed_where, start_sinew
from tests.e2e.test_sinew_pressure import add, pressure_of
from tests.fakediscord.server import Endpoint, FakeDiscord

pytestmark = pytest.mark.shared_bot

# discord.py's waits before a retry, this many times shorter: a second after a 5xx would make
# each of these tests wait idle for a second or more.
RETRY_WAIT_DIVISOR = 50


class _AsyncioWithShortSleeps:
    """asyncio as discord.py's two HTTP clients see it (discord.http's for the REST API,
    discord.webhook's for interaction answers), but for ``sleep``: every wait of their retry
    loops and rate limiters is ``RETRY_WAIT_DIVISOR`` times shorter. The retries themselves,
    their order and what each request meets at the fake are unchanged."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float, result: Any = None) -> Any:
        return await asyncio.sleep(delay / RETRY_WAIT_DIVISOR, result)


@pytest.fixture(autouse=True)
def short_retry_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    for client in (discord.http, discord.webhook.async_):
        monkeypatch.setattr(client, "asyncio", _AsyncioWithShortSleeps())


async def rolls_logged(bot: DiceBot) -> int:
    row = await bot.storage.database.fetch_one("SELECT count(*) FROM rolls")
    assert row is not None
    return int(row[0])


async def settled(fake: FakeDiscord, bot: DiceBot) -> None:
    """Wait until every failure set was served and the bot has finished every interaction it
    started (retries included), so a duplicate it would send has been sent."""
    await fake.wait_until(lambda: fake.pending_failures == 0, "the failures to be served")
    await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its interactions")


def served(fake: FakeDiscord) -> list[tuple[Endpoint, int]]:
    return [(failure.endpoint, failure.status) for failure in fake.served_failures]


async def test_luck_spend_answered_after_a_500_and_a_429_pays_once_and_logs_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12, 10 Luck tokens
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - 12 <= 3, 12)
    dicebot.rng = new_rng(seed)
    test = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    needed = sinew.tokens_to_succeed(sinew.test(new_rng(seed), 12))
    assert needed is not None
    logged_before = await rolls_logged(dicebot)

    fake_discord.fail_next(Endpoint.CALLBACK, 500, 429)
    reply = await fake_discord.invoke("sinew luck spend", {"tokens": needed}, user="player")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CALLBACK, 500), (Endpoint.CALLBACK, 429)]
    assert reply.ephemeral and reply.content.startswith("🍀 Luck spent")
    assert reply.followups == []  # answered once: no error notice after it
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - needed
    # A spend logs one new entry (the test as lowered), shown on the test's own message.
    assert await rolls_logged(dicebot) == logged_before + 1
    assert test.embeds[0]["title"].startswith("✅ Success")
    assert test.embeds[0]["footer"]["text"] == f"Roll #{logged_before + 1}"


async def test_pressure_add_survives_502_and_429_on_its_reply_and_its_announcement(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    fake_discord.fail_next(Endpoint.CALLBACK, 502, 429)
    fake_discord.fail_next(Endpoint.CHANNEL_MESSAGE, 502, 429)

    reply = await add(fake_discord, 2, "Brakka")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [
        (Endpoint.CALLBACK, 502),
        (Endpoint.CALLBACK, 429),
        (Endpoint.CHANNEL_MESSAGE, 502),
        (Endpoint.CHANNEL_MESSAGE, 429),
    ]
    assert reply.ephemeral and reply.content == "✅ Pressure 0 → 2. Announced in the channel."
    assert reply.followups == []
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 2"
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2


async def test_gm_add_answered_after_two_429s_adds_the_gm_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    fake_discord.fail_next(Endpoint.CALLBACK, 429, 429)
    player = fake_discord.users["player"]
    reply = await fake_discord.invoke("campaign gm add", {"user": player}, user="gm")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CALLBACK, 429)] * 2
    assert reply.raw is not None and reply.followups == []
    campaign = await campaign_of(fake_discord, dicebot)
    assert player.id in campaign.gm_ids
    again = await fake_discord.invoke("campaign gm add", {"user": player}, user="gm")
    assert again.ephemeral and "already" in again.content.lower()


async def test_a_roll_discord_never_takes_is_logged_once_and_the_next_roll_works(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    errors = fake_discord.expect_errors()
    # discord.py tries five times, then raises; the error notice after it gets through.
    fake_discord.fail_next(Endpoint.CALLBACK, *[429] * 5)
    lost = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CALLBACK, 429)] * 5
    assert await rolls_logged(dicebot) == 1  # committed once, before the reply failed
    assert [line for line in errors if line.startswith("ERROR bot.errors: Error")]
    # The roller is told the roll may be saved, not to roll again.
    assert lost.ephemeral and "Discord refused part of the answer" in lost.content
    assert "is saved" in lost.content and "try again" not in lost.content
    reply = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
    assert reply.embeds[0]["footer"]["text"] == "Roll #2"


async def test_pressure_announced_even_when_discord_never_takes_the_gms_confirmation(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake_discord.expect_errors()
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    fake_discord.fail_next(Endpoint.CALLBACK, *[429] * 5)
    await add(fake_discord, 2, "Brakka")  # answered only by the error notice
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CALLBACK, 429)] * 5
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2
    # The change happened: the channel must hear it even if the GM's own reply was lost.
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 2"
    reply = await add(fake_discord, 1, "Brakka")
    assert reply.content == "✅ Pressure 2 → 3. Announced in the channel."
    await settled(fake_discord, dicebot)
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 2


async def test_an_announcement_discord_refuses_with_503_is_not_retried_and_the_change_stays(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # discord.py retries 500, 502, 504 and 524 on a bot route, but not 503: it raises at once.
    fake_discord.expect_errors()
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    fake_discord.fail_next(Endpoint.CHANNEL_MESSAGE, 503)
    fake_discord.fail_next(Endpoint.FOLLOWUP, 429)  # the error notice is retried too
    reply = await add(fake_discord, 2, "Brakka")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CHANNEL_MESSAGE, 503), (Endpoint.FOLLOWUP, 429)]
    assert reply.content == "✅ Pressure 0 → 2. Announced in the channel."
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2
    [notice] = reply.followups
    assert notice.ephemeral and "error id" in notice.content
    assert "try again" not in notice.content  # the change is saved: repeating it would double it
    again = await add(fake_discord, 1, "Brakka")
    assert again.content == "✅ Pressure 2 → 3. Announced in the channel."
    await settled(fake_discord, dicebot)
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 1
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 3


async def test_a_collapse_is_announced_even_when_discord_never_takes_the_damage_reply(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake_discord.expect_errors()
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STA 5
    fake_discord.fail_next(Endpoint.CALLBACK, *[429] * 5)
    notice = await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 9})
    await settled(fake_discord, dicebot)

    assert notice.ephemeral and "is saved" in notice.content
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 0
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "💀 Brakka collapses!"


async def test_an_announcement_whose_answer_is_lost_after_discord_posted_it_is_posted_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    # Discord posts the message, but its answer comes back as a 502: discord.py sends it again,
    # with the same nonce, which Discord enforces: the retry gets the first message back.
    fake_discord.fail_next(Endpoint.CHANNEL_MESSAGE, 502, acted=True)
    reply = await add(fake_discord, 2, "Brakka")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CHANNEL_MESSAGE, 502)]
    assert reply.content == "✅ Pressure 0 → 2. Announced in the channel."
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 2"
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2


async def test_a_tamper_adding_pressure_is_announced_even_when_its_roll_never_reaches_discord(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake_discord.expect_errors()
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # INT 7
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, 7))
    fake_discord.fail_next(Endpoint.CALLBACK, *[429] * 5)
    notice = await fake_discord.invoke("sinew tamper", {"attribute": "int"}, user="player")
    await settled(fake_discord, dicebot)

    assert notice.ephemeral and "is saved" in notice.content
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 1
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 1"


async def test_a_reply_discord_took_before_its_502_is_shown_once_and_reported_as_no_error(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    # Discord takes the answer but its own answer is lost: discord.py's retry is refused with
    # 40060 "already acknowledged". The GM has the reply; nobody needs an error notice.
    fake_discord.fail_next(Endpoint.CALLBACK, 502, acted=True)
    reply = await add(fake_discord, 2, "Brakka")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [(Endpoint.CALLBACK, 502)]
    assert reply.content == "✅ Pressure 0 → 2. Announced in the channel."
    assert reply.followups == []
    [posted] = fake_discord.channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 2"
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2
    # No ERROR logged: the fake_discord fixture fails the test on one.


async def test_campaign_end_confirmed_through_429s_and_a_504_ends_once_announced_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    confirm_id = prompt.components[0]["components"][0]["custom_id"]
    fake_discord.fail_next(Endpoint.CALLBACK, 504, 429)
    fake_discord.fail_next(Endpoint.CHANNEL_MESSAGE, 429, 429)
    confirmed = await fake_discord.click(prompt, confirm_id, user="gm")
    await settled(fake_discord, dicebot)

    assert served(fake_discord) == [
        (Endpoint.CALLBACK, 504),
        (Endpoint.CALLBACK, 429),
        (Endpoint.CHANNEL_MESSAGE, 429),
        (Endpoint.CHANNEL_MESSAGE, 429),
    ]
    assert confirmed.content == "Campaign ended." and confirmed.followups == []
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None
    [announcement] = fake_discord.channel_messages(fake_discord.channel_id)
    assert "has ended" in announcement["content"]
    row = await dicebot.storage.database.fetch_one(
        "SELECT count(*) FROM campaigns WHERE ended_at IS NOT NULL"
    )
    assert row is not None and row[0] == 1
