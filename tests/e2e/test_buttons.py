"""Reveal under hidden rolls and Roll again under public ones: by the right user, by the wrong
one, and after the bot restarted (the buttons are persistent: the roll id is their custom_id)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from bot.client import DiceBot, create_bot
from rules import cosmos
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.test_cosmos import open_challenge, start_campaign
from tests.expect import logged_roll, revealed_line
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


def roll_id_of(reply: Reply) -> int:
    footer = reply.embeds[0]["footer"]["text"]
    return int(footer.removeprefix("Hidden roll #").removeprefix("Roll #").split(":")[0])


@asynccontextmanager
async def restarted(fake: FakeDiscord, bot: DiceBot, seed: int) -> AsyncIterator[DiceBot]:
    """Stop the bot as a restart does (the interactions in flight finish first), and run a new
    one on the same database (views in memory are gone)."""
    await bot.shutdown()
    async with run_bot(fake, create_bot(bot.settings, rng=new_rng(seed))) as again:
        yield again
        # What a command still does after its reply (a blind roll's DMs to the GMs) finishes
        # before the connection to Discord closes.
        await fake.wait_until(lambda: not again.in_flight, "the bot to finish its work")


async def test_roll_again_repeats_the_roll_with_new_dice_for_its_roller(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    first = await fake_discord.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    assert first.original.custom_ids() == ["roll:again:1"]
    dicebot.rng = new_rng(99)
    again = await fake_discord.click(first, "roll:again:1", user="player")
    assert not again.ephemeral
    expected = roll_expression("4d6kh3+2", new_rng(99))
    assert expected.breakdown in again.embeds[0]["description"]
    assert roll_id_of(again) == 2 and again.original.custom_ids() == ["roll:again:2"]
    logged = await logged_roll(dicebot.storage, 2)
    assert (logged.user_id, logged.payload["options"]) == (
        fake_discord.users["player"].id,
        {"expression": "4d6kh3+2"},
    )


async def test_roll_again_by_someone_else_is_refused_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    first = await fake_discord.invoke("roll", {"expression": "1d20"}, user="player")
    refused = await fake_discord.click(first, "roll:again:1", user="gm")
    assert refused.ephemeral and "who made roll #1, can roll it again" in refused.content
    assert await dicebot.storage.rolls.get(2) is None


async def test_roll_again_works_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    first = await fake_discord.invoke("roll", {"expression": "3d6"}, user="player")
    async with restarted(fake_discord, dicebot, seed=5) as bot:
        again = await fake_discord.click(first, "roll:again:1", user="player")
        assert roll_id_of(again) == 2
        expected = roll_expression("3d6", new_rng(5))
        assert again.embeds[0]["title"].endswith(f" · total {expected.total}")
        assert (await logged_roll(bot.storage, 2)).payload["options"] == {"expression": "3d6"}


async def test_reveal_button_posts_the_hidden_roll_for_its_gm_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    secret = await fake_discord.invoke("roll", {"expression": "1d1+765431", "hidden": True})
    assert secret.ephemeral and secret.original.custom_ids() == ["roll:reveal:1"]
    refused = await fake_discord.click(secret, "roll:reveal:1", user="player")
    assert refused.ephemeral and "Only a GM of the campaign" in refused.content
    revealed = await fake_discord.click(secret, "roll:reveal:1", user="gm")
    assert not revealed.ephemeral
    assert revealed_line(revealed.embeds[0]).endswith("a GM's hidden roll")
    assert revealed.embeds[0]["title"].endswith(" · total 765432")
    assert (await logged_roll(dicebot.storage, 1)).revealed_at is not None
    twice = await fake_discord.click(secret, "roll:reveal:1", user="gm")
    assert twice.ephemeral and "already revealed" in twice.content


async def test_reveal_button_works_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    secret = await fake_discord.invoke("roll", {"expression": "2d6", "hidden": True})
    async with restarted(fake_discord, dicebot, seed=1) as bot:
        revealed = await fake_discord.click(secret, "roll:reveal:1", user="gm")
        assert revealed_line(revealed.embeds[0]).startswith("Rolled in secret")
        assert (await logged_roll(bot.storage, 1)).revealed_at is not None


async def test_cosmos_roll_again_keeps_every_option_and_counts_into_the_challenge(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Escape", tn=2, successes=5, max_rolls=5)
    options = {"attribute": 5, "skill": 5, "tn": 2, "advantage": 2, "challenge": "Escape"}
    first = await fake_discord.invoke("cosmos roll", options, user="player")
    dicebot.rng = new_rng(7)
    again = await fake_discord.click(first, "roll:again:1", user="player")
    expected = cosmos.roll(new_rng(7), attribute=5, skill=5, tn=2, advantage=2)
    roll = expected.roll
    assert expected.success and not roll.critical_success  # new_rng(7): 10 and 9 kept
    # The total is the title's alone; the dice line shows the kept and dropped dice (issue 53).
    assert again.embeds[0]["title"] == (
        f"✅ Success · player: roll vs TN 2 (Easy) · total {roll.total}"
    )
    kept = " + ".join(f"**{face}**" for face in roll.kept)
    dropped = ", ".join(
        f"~~{face}~~" for index, face in enumerate(roll.dice) if index not in roll.kept_indices
    )
    assert again.embeds[0]["description"].split("\n")[0] == (
        f"🎲 4d10, keep the two highest: {kept} (kept; dropped {dropped}) + 5 + 5"
    )
    progress = again.embeds[0]["fields"][-1]
    assert progress["name"] == "Challenge" and "2 of 5 rolls used" in progress["value"]


async def test_opposed_roll_again_keeps_the_defenders_name(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"attribute": 2, "skill": 1, "vs_attribute": 1, "vs_skill": 2, "vs_name": "Vex"}
    first = await fake_discord.invoke("cosmos opposed", options, user="player")
    again = await fake_discord.click(first, "roll:again:1", user="player")
    assert "· player: opposed roll vs Vex · " in again.embeds[0]["title"]
