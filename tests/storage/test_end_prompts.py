"""`/campaign end` prompts' answers in the database (issue 24): the first answer stands, and
ending the campaign and recording the answer are one transaction."""

from __future__ import annotations

import asyncio

import pytest

from bot.storage import Storage
from bot.storage.errors import CampaignEnded, EndAnswer, EndPromptAnswered
from rules import cosmos
from rules.campaigns import CampaignSettings

CHANNEL, GM = 3001, 11
PROMPT, OTHER_PROMPT = 7001, 7002


async def start(storage: Storage):
    return await storage.campaigns.start(
        guild_id=1, channel_id=CHANNEL, user_id=GM,
        settings=CampaignSettings.create(cosmos.SYSTEM, "Voidrunners"),
    )  # fmt: skip


async def test_a_prompts_first_answer_stands(storage: Storage) -> None:
    campaign = await start(storage)
    assert await storage.campaigns.end_prompt_answer(PROMPT) is None
    await storage.campaigns.answer_end_prompt(PROMPT, EndAnswer.KEPT)
    with pytest.raises(EndPromptAnswered) as expired:
        await storage.campaigns.answer_end_prompt(PROMPT, EndAnswer.EXPIRED)
    assert expired.value.answer is EndAnswer.KEPT
    with pytest.raises(EndPromptAnswered):
        await storage.campaigns.end_as_answered(PROMPT, campaign.id, GM)
    assert await storage.campaigns.active(CHANNEL) == campaign  # still running
    assert await storage.campaigns.end_prompt_answer(PROMPT) is EndAnswer.KEPT


async def test_ending_by_a_prompt_records_its_answer_with_the_end(storage: Storage) -> None:
    campaign = await start(storage)
    ended = await storage.campaigns.end_as_answered(PROMPT, campaign.id, GM)
    assert ended == campaign
    assert await storage.campaigns.active(CHANNEL) is None
    assert await storage.campaigns.end_prompt_answer(PROMPT) is EndAnswer.ENDED
    # Another prompt about the same campaign: refused, and its answer is not recorded, since
    # the transaction that would have recorded it is rolled back.
    with pytest.raises(CampaignEnded) as refused:
        await storage.campaigns.end_as_answered(OTHER_PROMPT, campaign.id, GM)
    assert refused.value.campaign_name == "Voidrunners"
    assert await storage.campaigns.end_prompt_answer(OTHER_PROMPT) is None


async def test_a_prompt_about_an_unknown_campaign_is_refused(storage: Storage) -> None:
    with pytest.raises(CampaignEnded) as refused:
        await storage.campaigns.end_as_answered(PROMPT, 999, GM)
    assert refused.value.campaign_name is None
    assert await storage.campaigns.end_prompt_answer(PROMPT) is None


async def test_50_concurrent_answers_to_one_prompt_record_exactly_one(storage: Storage) -> None:
    campaign = await start(storage)

    async def answer(number: int) -> EndAnswer | None:
        try:
            if number % 2:
                await storage.campaigns.answer_end_prompt(PROMPT, EndAnswer.KEPT)
                return EndAnswer.KEPT
            await storage.campaigns.end_as_answered(PROMPT, campaign.id, GM)
            return EndAnswer.ENDED
        except EndPromptAnswered:
            return None

    outcomes = await asyncio.gather(*(answer(n) for n in range(50)))
    [winner] = [outcome for outcome in outcomes if outcome is not None]
    assert await storage.campaigns.end_prompt_answer(PROMPT) is winner
    running = await storage.campaigns.active(CHANNEL)
    assert (running is None) == (winner is EndAnswer.ENDED)


async def test_answers_older_than_a_day_are_dropped_when_another_is_recorded(
    storage: Storage,
) -> None:
    async with storage.database.transaction() as session:
        await session.execute(
            "INSERT INTO end_prompts (prompt_id, answer, answered_at) VALUES (?, ?, ?)",
            (OTHER_PROMPT, "kept", "2026-01-01T00:00:00.000Z"),
        )
    await storage.campaigns.answer_end_prompt(PROMPT, EndAnswer.EXPIRED)
    rows = await storage.database.fetch_all("SELECT prompt_id FROM end_prompts")
    assert [row["prompt_id"] for row in rows] == [PROMPT]
