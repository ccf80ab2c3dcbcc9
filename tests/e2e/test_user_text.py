"""User text in public embeds and messages can't make links or mentions (docs/players/index.md,
"User text"): a masked link, a mention or @everyone typed into a comment, a defender's name, a
campaign or a character name is shown as typed, as plain text."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from bot.client import DiceBot
from tests.e2e.test_sixpool import POOLS
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

MASKED_LINK = "[free nitro](https://nitro.example/claim)"
MENTIONS = "<@123456789012345678> <#12345678901234567> @everyone"  # a comment holds 100
HOSTILE = f"{MASKED_LINK} {MENTIONS}"

# What Discord would render as a live masked link or mention: an opening bracket or angle
# bracket (or the @ of @everyone) that no backslash escapes.
LIVE_LINK = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(")
LIVE_MENTION = re.compile(r"(?<!\\)<(?:@|#|/)|(?<!\\)@(?:everyone|here)")


def texts(message: JSON) -> Iterator[str]:
    """Every text of a message Discord renders markdown in: content, embed titles,
    descriptions and fields."""
    yield message.get("content") or ""
    for embed in message.get("embeds") or []:
        yield embed.get("title") or ""
        yield embed.get("description") or ""
        for field in embed.get("fields") or []:
            yield field["name"]
            yield field["value"]


def assert_plain(message: JSON, *, shows: str) -> None:
    """The message shows ``shows`` (the hostile text, each markup character escaped) and
    nothing Discord would render as a link or a mention of the user's."""
    rendered = list(texts(message))
    assert any(shows in text for text in rendered), rendered
    for text in rendered:
        assert not LIVE_LINK.search(text), text
        # The bot's own mentions (<@GM id>) are fine; the user's ids and @everyone are not.
        for found in LIVE_MENTION.finditer(text):
            assert "123456789012345" not in text[found.start() : found.start() + 25], text
            assert not found[0].startswith("@"), text


ESCAPED_LINK = r"\[free nitro\](https://nitro.example/claim)"
ESCAPED_MENTION = r"\<@123456789012345678\>"


async def test_roll_comment_with_a_masked_link_and_mentions_is_shown_as_plain_text(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # After `#` the label runs to the end (after ` ! ` a second `#`, here the channel mention's,
    # would start a second label, which is refused).
    reply = await fake_discord.invoke("roll", {"expression": f"1d20+2 # {HOSTILE}"}, user="player")
    assert not reply.ephemeral
    message = reply.original.raw
    assert_plain(message, shows=ESCAPED_LINK)
    assert_plain(message, shows=ESCAPED_MENTION)
    assert_plain(message, shows=r"\@everyone")


async def test_defender_name_with_a_masked_link_is_shown_as_plain_text(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"})
    options = {"attribute": 2, "skill": 1, "vs_attribute": 2, "vs_skill": 1}
    reply = await fake_discord.invoke(
        "cosmos opposed", {**options, "vs_name": MASKED_LINK}, user="player"
    )
    assert not reply.ephemeral
    assert_plain(reply.original.raw, shows=ESCAPED_LINK)


async def test_campaign_name_with_a_link_and_a_mention_is_shown_as_plain_text(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    name = "[join](https://x.example) <@123456789012345678>"
    started = await fake_discord.invoke("campaign start", {"system": "cosmos", "name": name})
    assert not started.ephemeral
    assert_plain(started.original.raw, shows=r"\[join\](https://x.example) " + ESCAPED_MENTION)
    added = await fake_discord.invoke("campaign gm add", {"user": fake_discord.users["player"]})
    assert not added.ephemeral
    assert_plain(added.original.raw, shows=r"\[join\](https://x.example) " + ESCAPED_MENTION)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    assert_plain(prompt.original.raw, shows=r"\[join\](https://x.example)")
    await fake_discord.click(prompt, prompt.original.custom_ids()[0], user="gm")
    [ended] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert_plain(ended, shows=r"\[join\](https://x.example)")


async def test_character_name_with_a_masked_link_is_shown_as_plain_text_on_its_rolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "sixpool", "name": "Six"})
    name = "[Rin](https://x.example)"
    created = await fake_discord.invoke(
        "sixpool character create",
        {"name": name, "level": 1, "primary": "DEX", **POOLS},
        user="player",
    )
    assert_plain(created.original.raw, shows=r"\[Rin\](https://x.example)")
    rolled = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 10}, user="player")
    assert not rolled.ephemeral
    assert_plain(rolled.original.raw, shows=r"\[Rin\](https://x.example)")
    rested = await fake_discord.invoke("sixpool rest", {}, user="gm")
    assert not rested.ephemeral
    assert_plain(rested.original.raw, shows=r"\[Rin\](https://x.example)")
