"""Payloads no Discord client sends, oversize input, expired interactions and stale buttons.

Each case gets a private answer (or, when Discord no longer takes one, a WARNING line), never a
traceback or an ERROR: the ``fake_discord`` fixture fails a test that logged one, and the fake
refuses any message over Discord's size limits with 400, as Discord does.
"""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from bot.client import DiceBot
from rules import cosmos
from rules.randomness import new_rng
from tests.e2e.test_cosmos import open_challenge, seed_where, start_campaign
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

RELOAD_HINT = "reload Discord"
LONG_TEXT = "x" * 6_000


def option(name: str, kind: int, value: object) -> JSON:
    return {"name": name, "type": kind, "value": value}


def every_option(node: JSON):
    for child in node.get("options", []):
        yield child
        yield from every_option(child)


async def test_every_string_option_has_a_max_length_or_fixed_choices(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    for command in fake_discord.synced_commands(guild=True):
        for child in every_option(command):
            if child["type"] == 3:
                assert child.get("max_length") or child.get("choices"), (command["name"], child)


@pytest.mark.parametrize(
    ("command", "options", "resolved", "message"),
    [
        ("roll", [option("expression", 3, 5)], None, "`expression` must be text"),
        (
            "roll",
            [option("expression", 3, "1d6"), option("hidden", 5, "yes")],
            None,
            "`hidden` must be true or false",
        ),
        ("roll", [], None, RELOAD_HINT),  # a required option missing: an outdated client
        ("roll", [option("expression", 3, "1d6"), option("loud", 5, True)], None, RELOAD_HINT),
        ("roll", [option("expression", 4, 5)], None, RELOAD_HINT),  # the type of old
        (
            "campaign reveal",
            [option("roll_id", 4, 2**63 + 5)],
            None,
            "within ±9,007,199,254,740,991",
        ),
        ("campaign reveal", [option("roll_id", 4, 1.5)], None, "whole number"),
        (
            "campaign gm add",
            [option("user", 6, "123456789012345678")],
            None,
            "didn't say which member",
        ),
        (
            "campaign gm add",
            [option("user", 6, "not-a-snowflake")],
            None,
            "didn't say which member",
        ),
        (
            "cosmos roll",
            [option("attribute", 4, "3"), option("skill", 4, 2), option("tn", 4, 10)],
            None,
            "`attribute` must be a whole number",
        ),
        (
            "cosmos challenge end",
            [option("name", 3, LONG_TEXT)],
            None,
            "`name` can be at most 100 characters (got 6,000)",
        ),
        (
            "campaign start",
            [option("system", 3, LONG_TEXT), option("name", 3, "x")],
            None,
            "Unknown system `" + "x" * 40 + "…`: choose one of",
        ),
        ("nosuchcommand", [], None, RELOAD_HINT),
    ],
)
async def test_payload_no_client_would_send_gets_a_private_refusal(
    fake_discord: FakeDiscord,
    dicebot: DiceBot,
    caplog: pytest.LogCaptureFixture,
    command: str,
    options: list[JSON],
    resolved: JSON | None,
    message: str,
) -> None:
    await start_campaign(fake_discord)
    if command == "nosuchcommand":  # a command the bot no longer has, from a stale client
        fake_discord._synced[fake_discord.guild_id].append(
            {"id": "1", "name": "nosuchcommand", "type": 1, "options": []}
        )
    reply = await fake_discord.send_raw(command, options, resolved=resolved, user="gm")
    await fake_discord.wait_answered([reply])
    assert reply.ephemeral, reply.content
    assert message in reply.content
    assert "Traceback" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert await dicebot.storage.rolls.get(1) is None


async def test_a_6000_character_name_is_refused_in_a_message_discord_accepts(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    for command in ("cosmos challenge status", "cosmos challenge end"):
        reply = await fake_discord.invoke(
            command, {"name": LONG_TEXT}, user="gm", stale_client=True
        )
        limit = f"at most {cosmos.CHALLENGE_NAME_MAX} characters"
        assert reply.ephemeral and limit in reply.content
        assert len(reply.content) < 300
    # the fixture also fails the test if any message broke Discord's limits
    assert fake_discord.refused_requests == []


async def test_refusal_to_an_expired_interaction_is_logged_once_as_a_warning(
    fake_discord: FakeDiscord, dicebot: DiceBot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    fake_discord.expired_interactions = 1
    reply = await fake_discord.send("roll", {"expression": "1d6", "hidden": True}, user="player")
    await fake_discord.wait_until(
        lambda: "Could not send the refusal" in caplog.text, "the failed refusal to be logged"
    )
    assert reply.raw is None  # Discord took no answer
    gc.collect()  # an unretrieved task exception is reported when the task is collected
    warnings = [r for r in caplog.records if "Could not send the refusal" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert "never retrieved" not in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_second_click_on_a_used_end_button_is_answered(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    end_button = prompt.original.custom_ids()[0]
    # A double click: both clicks reach Discord before the bot's answer takes the buttons away.
    # Either may reach the database first: one ends the campaign, the other is told so.
    again, first = sorted(
        await asyncio.gather(
            fake_discord.click(prompt, end_button, user="gm"),
            fake_discord.click(prompt, end_button, user="gm"),
        ),
        key=lambda reply: reply.content == "Campaign ended.",
    )
    assert first.content == "Campaign ended."
    assert again.ephemeral and "already answered: the campaign was ended" in again.content
    [ended] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert "has ended" in ended["content"]
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 1


async def test_challenge_end_is_announced_even_when_the_rolls_own_reply_fails(
    fake_discord: FakeDiscord, dicebot: DiceBot, caplog: pytest.LogCaptureFixture
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Hold the line", tn=40, successes=1, max_rolls=1)
    roll_options = {"attribute": 0, "skill": 0, "tn": 40}
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, **roll_options))
    fake_discord.expired_interactions = 1
    reply = await fake_discord.send(
        "cosmos roll", {**roll_options, "challenge": "Hold the line"}, user="player"
    )
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announcement["embeds"][0]["title"] == "🪦 Challenge lost: Hold the line"
    assert reply.raw is None
    assert (await dicebot.storage.rolls.get(1)) is not None  # the roll counted and was logged
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
