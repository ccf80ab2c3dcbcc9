"""`/roll` reads what avrae/d20 and Dice Maiden players type, end to end (docs/players/dice.md,
"Read differently on purpose" and "Game modes"): a form read otherwise says "did you mean"."""

from __future__ import annotations

import pytest

from bot.client import DiceBot
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


@pytest.mark.parametrize(
    ("typed", "ours", "meant"),
    [
        ("4d6k3", "4d6kh3", "4d6k=3"),
        ("1d6e", "1d6e6", "1d6ie"),
        ("2d%+1", "2d100+1", "((2d10-2)*10)+1"),
    ],
)
async def test_rule_a_form_d20_reads_otherwise_rolls_ours_and_names_d20s_in_one_line(
    fake_discord: FakeDiscord, dicebot: DiceBot, typed: str, ours: str, meant: str
) -> None:
    dicebot.rng = new_rng(DICE_SEED)
    expected = roll_expression(ours, new_rng(DICE_SEED))
    reply = await fake_discord.invoke("roll", {"expression": typed}, user="player")
    embed = reply.embeds[0]
    assert embed["title"].endswith(f" · total {expected.total}")
    hints = [line for line in embed["description"].splitlines() if line.startswith("💡")]
    assert len(hints) == 1 and f"did you mean `{meant}`?" in hints[0]
    # The hint's form rolls as d20 reads it: here, a roll of its own.
    again = await fake_discord.invoke("roll", {"expression": meant}, user="player")
    assert "💡" not in again.embeds[0]["description"]


async def test_rule_our_own_spelling_has_no_hint(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    assert "💡" not in reply.embeds[0]["description"]


async def test_rule_a_leading_minus_on_dice_is_refused_naming_d20s_reading(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    refused = await fake_discord.invoke("roll", {"expression": "-1d8 + 4"}, user="player")
    assert refused.ephemeral and "did you mean `0-1d8` (as d20 reads it)?" in refused.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_rule_d20s_comparison_in_parentheses_is_one_or_zero(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "1 + (2 == 2)"}, user="player")
    assert reply.embeds[0]["title"].endswith(" · total 2")
    assert "(2 == 2)" in reply.embeds[0]["description"]


async def test_rule_exalted_and_wrath_and_glory_count_a_top_face_twice(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # new_rng(1) draws 5, 6, 8, 10, 1 for five d10: 8 is one success, the 10 two.
    dicebot.rng = new_rng(1)
    exalted = await fake_discord.invoke("roll", {"expression": "ex5"}, user="player")
    assert exalted.embeds[0]["title"].endswith(" · total 3")
    assert "5d10t7t10 (5, 6, **8**, **10**, 1: 3 successes)" in exalted.embeds[0]["description"]
    # new_rng(1) draws 3, 4, 5, 6 for four d6: two icons and an exalted icon worth two.
    dicebot.rng = new_rng(1)
    wrath = await fake_discord.invoke("roll", {"expression": "wng dn5 4d6"}, user="player")
    assert wrath.embeds[0]["title"].endswith(" · total 4")
    assert "4d6t4t6 (3, **4**, **5**, **6**: 4 successes)" in wrath.embeds[0]["description"]


async def test_rule_no_total_is_not_a_label_and_says_the_total_shows(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "4d6 nr"}, user="player")
    description = reply.embeds[0]["description"]
    assert "💬" not in description and "nr" not in reply.embeds[0]["title"].split("·")[-1]
    assert "💡 `nr`: the total is always shown here" in description
