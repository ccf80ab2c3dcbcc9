"""Odds charts end to end: each query's reply carries a phone-sized PNG of what was asked.

What the charts show is checked against the text in tests/render/test_chart_matches_text.py;
here the fake Discord's replies show that the options reach the chart (an opposed or split
query draws a different image than the plain one, as issue 37 found they did not).
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
from typing import Any

import pytest
from PIL import Image

from bot import offload
from bot.client import DiceBot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def _chart(fake: FakeDiscord, command: str, options: dict[str, Any]) -> tuple[bytes, str]:
    """Ask for odds; return the attached PNG (checked to be a 1000 px wide chart) and the text."""
    reply = await fake.invoke(command, options, user="player")
    assert not reply.ephemeral
    ((name, png),) = reply.attachments
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)
    with Image.open(io.BytesIO(png)) as image:
        assert image.width == 1000 and image.height >= 560
    embed = reply.embeds[0]
    text = "\n".join(
        [embed.get("description", "")] + [field["value"] for field in embed.get("fields", [])]
    )
    return png, text


async def test_sinew_odds_vs_score_draws_the_opposed_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    plain, _ = await _chart(fake_discord, "sinew odds", {"score": 10})
    versus, text = await _chart(fake_discord, "sinew odds", {"score": 10, "vs_score": 10})
    assert versus != plain
    assert "You win:" in text
    with Image.open(io.BytesIO(versus)) as image:
        assert image.height > 560  # the test's panel and the opposed roll's, one above the other


async def test_realms_split_attack_draws_a_panel_per_target(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    attack = {"dice": 3, "to_hit": 11, "damage": "1d8+1"}
    whole, _ = await _chart(fake_discord, "realms odds", attack)
    split, text = await _chart(fake_discord, "realms odds", {**attack, "split": "2,1"})
    assert split != whole
    with Image.open(io.BytesIO(whole)) as one, Image.open(io.BytesIO(split)) as two:
        assert two.height > one.height  # two panels
    assert "more values" in text  # the damage lists say what they left out


async def test_aethelgard_and_sixpool_odds_charts_follow_their_query(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    few, text = await _chart(fake_discord, "aethelgard odds", {"pool": 10, "dc": 2})
    assert "0 net: " in text and "(fumble 2.22%)" in text
    more, _ = await _chart(fake_discord, "aethelgard odds", {"pool": 10, "dc": 3})
    assert few != more
    easy, _ = await _chart(fake_discord, "sixpool odds", {"modifier": 3, "dc": 15})
    hard, _ = await _chart(fake_discord, "sixpool odds", {"modifier": 3, "dc": 25})
    assert easy != hard
    cosmos, _ = await _chart(fake_discord, "cosmos odds", {"attribute": 3, "skill": 2, "tn": 15})
    assert cosmos not in (easy, hard, few)


async def test_concurrent_realms_attack_odds_in_the_worker_process_match_one_at_a_time(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    queries = [
        {"dice": 3, "to_hit": 11, "damage": "1d8+1", "split": "2,1"},
        {"dice": 4, "to_hit": 9, "damage": "2d6", "advantage": 1},
        {"dice": 2, "to_hit": 15, "damage": "1d4-3", "disadvantage": 1},
    ]
    serial = [await _chart(fake_discord, "realms odds", query) for query in queries]
    together = await asyncio.gather(
        *(_chart(fake_discord, "realms odds", query) for query in queries * 2)
    )
    assert list(together) == serial * 2


async def test_bad_realms_attack_odds_are_refused_before_the_worker(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "realms odds", {"dice": 2, "to_hit": 11, "damage": "1d8", "split": "5,5"}, user="player"
    )
    assert reply.ephemeral and not reply.attachments
    assert "split" in reply.content.lower() or "split" in str(reply.embeds).lower()


async def test_realms_attack_odds_survive_a_killed_worker_process(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    query = {"dice": 3, "to_hit": 11, "damage": "1d8+1", "split": "2,1"}
    first, _ = await _chart(fake_discord, "realms odds", query)
    pool = offload._executor()
    for process in list(pool._processes.values()):  # the worker dies between two queries
        assert process.pid is not None
        os.kill(process.pid, signal.SIGKILL)
        process.join()
    again, _ = await _chart(fake_discord, "realms odds", query)
    assert again == first
