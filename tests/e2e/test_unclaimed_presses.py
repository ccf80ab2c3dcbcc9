"""Every press is answered (docs/players/index.md, "Buttons and announcements"): a button or menu
with a custom id no button of the bot's takes (forged, or pressed from a client that hasn't seen the
button taken off its message) gets a private "This button is no longer active.", and nothing
changes.

discord.py drops such a press (bot/discord_private.py, item 8): Discord would show the presser
"This interaction failed".
"""

from __future__ import annotations

import pytest

from bot.client import DiceBot
from tests.e2e.test_forged_ids import BUTTON, SELECT, TOO_BIG, forged_message
from tests.e2e.test_properties import snapshot
from tests.fakediscord.messages import FakeMessage, Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

NO_LONGER_ACTIVE = "This button is no longer active."

UNCLAIMED = [
    "help:next:-1",  # a real button's pattern, a page no id can be
    "nonsense",
    "x" * 100,  # Discord's longest custom id
    "roll:again:abc",  # a known prefix, then garbage
    "roll:again:-1",
    "roll:again:",
    "roll:again:1:2",
    "campaign:log:older:1:0:999",
    "sixpool:spend:1",
    "help:next:1 ",
]


async def a_roll(fake: FakeDiscord) -> Reply:
    await fake.invoke("campaign start", {"system": "sixpool", "name": "Presses"}, user="gm")
    roll = await fake.invoke("roll", {"expression": "1d20"}, user="player")
    assert roll.message is not None and roll.message.custom_ids() == ["roll:again:1"]
    return roll


async def pressed_unchanged(
    fake: FakeDiscord,
    bot: DiceBot,
    target: Reply | FakeMessage,
    custom_id: str,
    *,
    user: str,
    stale_client: bool = False,
    values: list[str] | None = None,
) -> Reply:
    """Press ``custom_id`` on ``target``; check that the press was answered privately as no
    longer active, and that nothing changed."""
    await fake.wait_until(lambda: not bot.in_flight, "the bot to settle")
    before = snapshot(bot.settings.database_path)
    posted = len(fake.channel_messages(fake.channel_id))
    reply = await fake.click(target, custom_id, user=user, values=values, stale_client=stale_client)
    assert reply.ephemeral, reply.content
    assert "no longer active" in reply.content and "went wrong" not in reply.content
    assert fake.error_logs == []
    assert snapshot(bot.settings.database_path) == before
    assert len(fake.channel_messages(fake.channel_id)) == posted
    return reply


@pytest.mark.parametrize("custom_id", UNCLAIMED)
async def test_a_stale_press_matching_no_button_is_answered_no_longer_active(
    fake_discord: FakeDiscord, dicebot: DiceBot, custom_id: str
) -> None:
    roll = await a_roll(fake_discord)
    reply = await pressed_unchanged(
        fake_discord, dicebot, roll, custom_id, user="player", stale_client=True
    )
    assert reply.content.endswith(NO_LONGER_ACTIVE)


@pytest.mark.parametrize("custom_id", UNCLAIMED[:4])
@pytest.mark.parametrize("kind", [BUTTON, SELECT])
async def test_a_forged_component_matching_no_button_is_answered_no_longer_active(
    fake_discord: FakeDiscord, dicebot: DiceBot, custom_id: str, kind: int
) -> None:
    await a_roll(fake_discord)
    message = forged_message(fake_discord, custom_id, kind)
    values = ["1"] if kind == SELECT else None
    reply = await pressed_unchanged(
        fake_discord, dicebot, message, custom_id, user="gm", values=values
    )
    what = "button" if kind == BUTTON else "menu"
    assert reply.content.endswith(f"This {what} is no longer active.")


async def test_a_real_button_pressed_after_it_left_its_message_is_answered(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Roll again of roll #1 pressed on another message: the button isn't there (a client that
    # hasn't seen an edit presses what the message used to show).
    await a_roll(fake_discord)
    help_page = await fake_discord.invoke("help", {}, user="player")
    await pressed_unchanged(
        fake_discord, dicebot, help_page, "roll:again:1", user="player", stale_client=True
    )


async def test_a_real_press_is_answered_once_by_its_button(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll = await a_roll(fake_discord)
    again = await fake_discord.click(roll, "roll:again:1", user="player")
    assert not again.ephemeral and " player: 1d20 · total " in again.embeds[0]["title"]
    refused = await fake_discord.click(roll, "roll:again:1", user="gm")
    assert refused.ephemeral and "Only <@" in refused.content
    assert "no longer active" not in refused.content
    past = await fake_discord.click(
        forged_message(fake_discord, f"roll:again:{TOO_BIG}", BUTTON),
        f"roll:again:{TOO_BIG}",
        user="player",
    )
    assert past.ephemeral and "There is no roll" in past.content
    assert fake_discord.error_logs == []
