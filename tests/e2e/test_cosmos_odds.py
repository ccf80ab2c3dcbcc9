"""`/cosmos odds` end to end: the success figure, criticals read at a glance, and the chart.

Whether the chart's bars agree with the figures is checked where the chart is built
(tests/render/test_charts.py, against brute force); here the reply carries both.
"""

from __future__ import annotations

import pytest

from bot.client import DiceBot
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def ask_odds(fake: FakeDiscord, **options: int) -> tuple[Reply, dict[str, str]]:
    """Ask for odds as a player; return the reply and its embed's fields by name."""
    reply = await fake.invoke("cosmos odds", options, user="player")
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    return reply, fields


def assert_chart_attached(reply: Reply) -> None:
    """Check the reply attaches one PNG chart and shows it as the embed's image."""
    [(filename, data)] = reply.attachments
    assert filename == "odds.png" and data.startswith(PNG_SIGNATURE)
    assert reply.embeds[0]["image"]["url"] == "attachment://odds.png"


async def test_odds_tn_above_every_total_succeeds_only_on_a_critical(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, fields = await ask_odds(fake_discord, attribute=5, skill=5, tn=40)
    assert fields["Success"] == "1.00%"  # both dice 10, though 30 < 40
    assert fields["Critical success"] == "1.00%"
    assert fields["Critical failure"] == "1.00%"
    assert not reply.ephemeral
    assert_chart_attached(reply)


async def test_odds_tn_below_every_total_still_fails_on_a_critical(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, fields = await ask_odds(fake_discord, attribute=5, skill=5, tn=8, disadvantage=5)
    # 7d10 keep the two lowest: a critical failure is two or more 1s, 1 - 0.9^7 - 7·0.1·0.9^6.
    assert fields["Critical failure"] == "14.97%"
    assert fields["Success"] == "85.03%"
    assert fields["Critical success"] == "< 0.001% (1 in 10,000,000)"  # all seven dice 10
    assert_chart_attached(reply)


async def test_odds_with_five_advantage_dice_show_one_in_ten_million_readably(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"attribute": 5, "skill": 5, "tn": 2, "advantage": 5}
    reply, fields = await ask_odds(fake_discord, **options)
    # The two highest of seven dice are both 1 only when all seven are: 1 in 10^7, and against
    # TN 2 with +10 nothing else fails.
    assert fields["Critical failure"] == "< 0.001% (1 in 10,000,000)"
    assert fields["Success"] == "> 99.999% (all but 1 in 10,000,000)"
    assert "e-0" not in str(reply.embeds[0])
    assert_chart_attached(reply)


@pytest.mark.parametrize(
    ("advantage", "critical_failure"),
    [(0, "1.00%"), (1, "0.10%"), (2, "0.01%"), (3, "0.001%"), (4, "< 0.001% (1 in 1,000,000)")],
)
async def test_odds_critical_failure_with_advantage_is_one_in_ten_to_the_dice(
    fake_discord: FakeDiscord, dicebot: DiceBot, advantage: int, critical_failure: str
) -> None:
    _, fields = await ask_odds(fake_discord, attribute=0, skill=0, tn=10, advantage=advantage)
    assert fields["Critical failure"] == critical_failure
