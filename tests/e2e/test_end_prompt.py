"""The `/campaign end` confirmation keeps its state in its buttons and the database (issue 24):
any process of the bot answers it, before or after a restart, and its first answer stands."""

from __future__ import annotations

import asyncio
import sys
import time
from types import SimpleNamespace

import pytest

from bot.client import DiceBot
from tests.e2e.test_buttons import restarted
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

ENDED_TEXT = "Campaign ended."
KEPT_TEXT = "The campaign goes on."
EDIT_PROMPT = 7  # interaction callback: update the message the button is on


async def ask_to_end(fake: FakeDiscord) -> tuple[Reply, str, str]:
    """Start a campaign, run `/campaign end`; return the prompt and its two buttons' ids."""
    started = await fake.invoke("campaign start", {"system": "cosmos", "name": "Voidrunners"})
    assert not started.ephemeral, started.content
    prompt = await fake.invoke("campaign end", {}, user="gm")
    assert prompt.ephemeral
    end_button, keep_button = prompt.original.custom_ids()
    return prompt, end_button, keep_button


async def prompt_answers(bot: DiceBot) -> list[tuple[int, str]]:
    rows = await bot.storage.database.fetch_all("SELECT prompt_id, answer FROM end_prompts")
    return [(row["prompt_id"], row["answer"]) for row in rows]


async def test_an_end_prompt_asked_before_a_restart_is_answered_after_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    prompt, end_button, _ = await ask_to_end(fake_discord)
    async with restarted(fake_discord, dicebot, seed=5) as bot:
        ended = await fake_discord.click(prompt, end_button, user="gm")
        assert ended.content == ENDED_TEXT and ended.components == []
        [announced] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
        assert "**Voidrunners** has ended" in announced["content"]
        assert await bot.storage.campaigns.active(fake_discord.channel_id) is None
        assert await prompt_answers(bot) == [(int(prompt.interaction["id"]), "ended")]


async def test_a_click_past_the_deadline_after_a_restart_is_refused_and_changes_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The restart cancels the prompt's expiry; the deadline in its buttons still holds.
    prompt, end_button, _ = await ask_to_end(fake_discord)
    deadline = int(end_button.rsplit(":", 1)[1])
    assert 0 < deadline - time.time() <= 121  # CONFIRM_TIMEOUT_SECONDS from now
    async with restarted(fake_discord, dicebot, seed=5) as bot:
        # The restarted bot loaded the cog's module afresh: it reads a clock past the deadline.
        later = SimpleNamespace(time=lambda: deadline + 1.0)
        monkeypatch.setattr(sys.modules["cogs.campaign"], "time", later)
        late = await fake_discord.click(prompt, end_button, user="gm")
        assert late.content == (
            "No answer: the campaign goes on. Run `/campaign end` again to end it."
        )
        assert late.components == []
        assert await bot.storage.campaigns.active(fake_discord.channel_id) is not None
        assert await prompt_answers(bot) == [(int(prompt.interaction["id"]), "expired")]
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_only_the_gm_who_asked_can_answer_and_a_refusal_changes_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    prompt, end_button, keep_button = await ask_to_end(fake_discord)
    for button in (end_button, keep_button):
        other = await fake_discord.click(prompt, button, user="admin")  # a GM, not the asker
        assert other.ephemeral and other.content == "❌ Only the GM who asked can confirm this."
    assert prompt.components  # the prompt is still open for the GM who asked
    assert await prompt_answers(dicebot) == []
    kept = await fake_discord.click(prompt, keep_button, user="gm")
    assert kept.content == KEPT_TEXT
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is not None


@pytest.mark.parametrize("first_click", ["end", "keep"])
async def test_ten_clicks_at_once_get_one_answer_and_the_rest_are_told_it(
    fake_discord: FakeDiscord, dicebot: DiceBot, first_click: str
) -> None:
    # Clicks from a double click or two open clients, all before the answer takes the buttons
    # away, End and Keep mixed: the serial result is one answer, nine told what it was.
    prompt, end_button, keep_button = await ask_to_end(fake_discord)
    buttons = [end_button, keep_button] if first_click == "end" else [keep_button, end_button]
    replies = await asyncio.gather(
        *(fake_discord.click(prompt, buttons[n % 2], user="gm") for n in range(10))
    )
    # The answer edits the (private) prompt; a refusal is a private message of its own.
    answered = [reply for reply in replies if reply.callback_type == EDIT_PROMPT]
    told = [reply.content for reply in replies if reply.callback_type != EDIT_PROMPT]
    assert all(reply.ephemeral for reply in replies)
    assert len(answered) == 1 and len(told) == 9
    [(_, answer)] = await prompt_answers(dicebot)
    running = await dicebot.storage.campaigns.active(fake_discord.channel_id)
    if answered[0].content == ENDED_TEXT:
        assert answer == "ended" and running is None
        assert told == ["❌ This was already answered: the campaign was ended."] * 9
        [announced] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
        assert "has ended" in announced["content"]
    else:
        assert answered[0].content == KEPT_TEXT
        assert answer == "kept" and running is not None
        assert told == ["❌ This was already answered: the campaign goes on."] * 9
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to finish")
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == (answer == "ended")


async def test_an_ended_campaign_is_announced_as_a_followup_where_the_channel_refuses_the_bot(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Nothing depends on the bot being able to post in the channel (docs/players/index.md, "Where
    # commands work"): a channel denying it Send Messages still hears the campaign end.
    prompt, end_button, _ = await ask_to_end(fake_discord)
    fake_discord.muted_channels.add(fake_discord.channel_id)
    ended = await fake_discord.click(prompt, end_button, user="gm")
    assert ENDED_TEXT in ended.content
    [announcement] = await fake_discord.wait_followups(ended)
    assert not announcement.ephemeral
    assert "The campaign **Voidrunners** has ended" in announcement.content
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None
