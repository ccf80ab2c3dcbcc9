"""`/cosmos` end to end through the fake Discord: rolls, opposed, convert, challenges, odds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from bot.client import DiceBot
from bot.render.numbers import percent
from bot.render.style import Colour
from bot.storage import Visibility
from rules import cosmos
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.expect import logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def seed_where(predicate: Callable[[cosmos.CheckResult], bool], **roll_options: Any) -> int:
    """Find a seed whose first Cosmos roll with these options satisfies ``predicate``."""
    for seed in range(10_000):
        if predicate(cosmos.roll(new_rng(seed), **roll_options)):
            return seed
    raise AssertionError("no seed found")


async def start_campaign(fake: FakeDiscord, system: str = "cosmos") -> None:
    await fake.invoke("campaign start", {"system": system, "name": "Voidrunners"}, user="gm")


async def open_challenge(
    fake: FakeDiscord, name: str, *, tn: int, successes: int, max_rolls: int
) -> Reply:
    return await fake.invoke(
        "cosmos challenge start",
        {"name": name, "tn": tn, "successes": successes, "max_rolls": max_rolls},
        user="gm",
    )


async def test_roll_shows_every_die_the_kept_two_total_label_and_outcome(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options: dict[str, Any] = {"attribute": 3, "skill": 2, "tn": 15, "advantage": 2}
    expected = cosmos.roll(new_rng(DICE_SEED), **options)
    reply = await fake_discord.invoke("cosmos roll", options, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert "vs TN 15 (Hard)" in embed["title"]
    assert ("Success" in embed["title"]) == expected.success
    assert "4d10, keep the two highest" in embed["description"]
    roll = expected.roll
    kept = " + ".join(f"**{face}**" for face in roll.kept)
    dropped = ", ".join(
        f"~~{face}~~" for index, face in enumerate(roll.dice) if index not in roll.kept_indices
    )
    # One dice line with the arithmetic; the total is the title's alone (issue 53).
    assert embed["description"] == (
        f"🎲 4d10, keep the two highest: {kept} (kept; dropped {dropped}) + 3 + 2"
    )
    assert "fields" not in embed
    assert embed["title"].endswith(f" · total {expected.roll.total}")
    roll_id = int(embed["footer"]["text"].removeprefix("Roll #"))
    logged = await logged_roll(dicebot.storage, roll_id)
    assert logged.kind == "cosmos.roll" and logged.payload["result"]["success"] == expected.success


async def test_ruling_crits_highlighted_critical_success_shows_the_scale_effect(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll_options = {"attribute": 1, "skill": 1, "tn": 30, "advantage": 5}
    dicebot.rng = new_rng(seed_where(lambda r: r.roll.critical_success, **roll_options))
    reply = await fake_discord.invoke(
        "cosmos roll",
        {**roll_options, "scale": "starship", "action": "navigation"},
        user="player",
    )
    embed = reply.embeds[0]
    assert embed["title"].startswith("✨ CRITICAL SUCCESS!")  # succeeds even against TN 30
    assert embed["color"] == Colour.CRITICAL_SUCCESS.value
    assert embed["description"].endswith(
        "\n**Critical effect · Starship Navigation**: Perfect course + time advantage"
    )


async def test_critical_failure_is_red_and_fails_an_easy_tn(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll_options = {"attribute": 5, "skill": 5, "tn": 2, "disadvantage": 3}
    dicebot.rng = new_rng(seed_where(lambda r: r.roll.critical_failure, **roll_options))
    reply = await fake_discord.invoke("cosmos roll", roll_options, user="player")
    embed = reply.embeds[0]
    assert embed["title"].startswith("💀 CRITICAL FAILURE!")
    assert embed["color"] == Colour.CRITICAL_FAILURE.value
    assert "5d10, keep the two lowest" in embed["description"]


async def test_gm_hidden_roll_is_private_and_player_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    options = {"attribute": 2, "skill": 2, "tn": 12, "hidden": True}
    refused = await fake_discord.invoke("cosmos roll", options, user="player")
    assert refused.ephemeral and "Only a GM can roll hidden" in refused.content
    assert await dicebot.storage.rolls.get(1) is None
    secret = await fake_discord.invoke("cosmos roll", options, user="gm")
    assert secret.ephemeral and secret.embeds[0]["footer"]["text"].startswith("Hidden roll #1")
    assert (await logged_roll(dicebot.storage, 1)).visibility is Visibility.HIDDEN


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"attribute": 7, "skill": 2, "tn": 15}, "Attribute must be between 0 and 5 (got 7)"),
        ({"attribute": 2, "skill": -1, "tn": 15}, "Skill must be between 0 and 5 (got -1)"),
        ({"attribute": 2, "skill": 2, "tn": 41}, "TN must be between 2 and 40 (got 41)"),
        (
            {"attribute": 2, "skill": 2, "tn": 15, "advantage": -1},
            "Advantage can't be negative (got -1)",
        ),
    ],
)
async def test_out_of_range_input_is_explained_and_nothing_rolled(
    fake_discord: FakeDiscord, dicebot: DiceBot, options: dict[str, int], message: str
) -> None:
    # Discord's client enforces the option ranges; a stale client could still send these.
    reply = await fake_discord.invoke("cosmos roll", options, user="player", stale_client=True)
    assert reply.ephemeral and message in reply.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_unknown_scale_action_pair_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "cosmos roll",
        {"attribute": 2, "skill": 2, "tn": 12, "scale": "personal", "action": "fleet"},
        user="player",
    )
    assert reply.ephemeral
    assert "'fleet' is not a personal action; choose one of: combat, skill, social" in reply.content


async def test_opposed_shows_both_sides_and_a_tie_goes_to_the_defender(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"attribute": 2, "skill": 1, "vs_attribute": 1, "vs_skill": 2}
    seed = next(
        seed for seed in range(10_000) if cosmos.opposed(new_rng(seed), **options).margin == 0
    )
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("cosmos opposed", options, user="player")
    embed = reply.embeds[0]
    assert embed["title"].startswith("❌ Tie: the defender wins · player: opposed roll vs ")
    expected = cosmos.opposed(new_rng(seed), **options)
    assert embed["title"].endswith(f" · {expected.attacker.total} vs {expected.defender.total}")
    lines = embed["description"].splitlines()
    assert lines[0].startswith("🎲 player: 2d10: ") and lines[0].endswith(" + 2 + 1")
    assert lines[1].startswith("the defender: 2d10: ") and lines[1].endswith(" + 1 + 2")
    assert "fields" not in embed


@pytest.mark.parametrize(
    ("defender", "shown"),
    [({"vs_user": "gm"}, "gm"), ({"vs_name": "Captain *Vex*"}, "Captain \\*Vex\\*")],
)
async def test_opposed_names_the_defender_the_roller_gave(
    fake_discord: FakeDiscord, dicebot: DiceBot, defender: dict[str, str], shown: str
) -> None:
    options = {"attribute": 2, "skill": 1, "vs_attribute": 1, "vs_skill": 2}
    seed = next(
        seed for seed in range(10_000) if cosmos.opposed(new_rng(seed), **options).margin < 0
    )
    dicebot.rng = new_rng(seed)
    given = {
        key: fake_discord.users[value] if key == "vs_user" else value
        for key, value in defender.items()
    }
    reply = await fake_discord.invoke("cosmos opposed", {**options, **given}, user="player")
    embed = reply.embeds[0]
    margin = -cosmos.opposed(new_rng(seed), **options).margin
    # The name as typed, its markdown escaped everywhere it is shown (title and field too).
    expected = cosmos.opposed(new_rng(seed), **options)
    assert embed["title"] == (
        f"❌ {shown} wins by {margin} · player: opposed roll vs {shown} · "
        f"{expected.attacker.total} vs {expected.defender.total}"
    )
    assert embed["description"].splitlines()[1].startswith(f"{shown}: ")


async def test_opposed_refuses_two_names_for_the_defender(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"attribute": 2, "skill": 1, "vs_attribute": 1, "vs_skill": 2}
    reply = await fake_discord.invoke(
        "cosmos opposed",
        {**options, "vs_user": fake_discord.users["gm"], "vs_name": "Vex"},
        user="player",
    )
    assert reply.ephemeral and "give `vs_user` or `vs_name`, not both" in reply.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_convert_gives_the_net_pool_after_cancellation_and_cap(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "cosmos convert", {"era": "advanced", "situational": -3, "rating": 5}, user="player"
    )
    description = reply.embeds[0]["description"]
    assert "Era advanced: +2 advantage" in description
    assert "Situational -3: +2 disadvantage" in description
    assert "System rating 5: +2 advantage" in description
    assert "Total: 4 advantage, 2 disadvantage → **4d10, keep the two highest" in description
    capped = await fake_discord.invoke(
        "cosmos convert", {"era": "cosmic", "situational": 6, "rating": 12}, user="player"
    )
    assert "7d10, keep the two highest; net dice capped at 5" in capped.embeds[0]["description"]


async def test_odds_gives_exact_chances_and_a_chart_attachment(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"attribute": 3, "skill": 2, "tn": 15, "advantage": 2}
    expected = cosmos.odds(3, 2, 15, 2, 0)
    reply = await fake_discord.invoke("cosmos odds", options, user="player")
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Success"] == percent(expected.success)
    assert fields["Critical success"] == "5.23%"  # 523/10000 for 4d10 keep two highest
    assert fields["Critical failure"] == "0.01%"  # every die a 1: 1/10^4
    assert fields["Mean total"] == f"{14.9666 + 5:.3f}"
    [(filename, data)] = reply.attachments
    assert filename == "odds.png" and data.startswith(PNG_SIGNATURE)
    assert reply.embeds[0]["image"]["url"] == "attachment://odds.png"


async def test_odds_base_pool_needs_a_critical_against_tn_20_without_modifiers(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "cosmos odds", {"attribute": 0, "skill": 0, "tn": 20}, user="player"
    )
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Success"] == "1.00%" and fields["Critical success"] == "1.00%"


async def test_ruling_campaign_state_commands_need_a_campaign_of_that_system(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    start = {"name": "Escape", "tn": 12, "successes": 3, "max_rolls": 5}
    no_campaign = await fake_discord.invoke("cosmos challenge start", start, user="gm")
    assert no_campaign.ephemeral and "needs a Cosmos Engine campaign" in no_campaign.content
    await start_campaign(fake_discord)
    player = await fake_discord.invoke("cosmos challenge start", start, user="player")
    assert player.ephemeral and "Only a GM can open a challenge" in player.content
    status = await fake_discord.invoke("cosmos challenge status", {}, user="player")
    assert "No open challenge" in status.embeds[0]["description"]


async def test_challenge_counts_rolls_and_announces_the_win(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    opened = await open_challenge(fake_discord, "Escape", tn=2, successes=2, max_rolls=5)
    assert not opened.ephemeral and "Escape" in opened.embeds[0]["title"]
    roll_options = {"attribute": 5, "skill": 5, "tn": 2}
    # With +10 against TN 2 only a critical failure fails; pick dice that succeed plainly.
    dicebot.rng = new_rng(
        seed_where(lambda r: r.success and not r.roll.critical_success, **roll_options)
    )
    first = await fake_discord.invoke(
        "cosmos roll", {**roll_options, "challenge": "escape"}, user="player"
    )
    progress = first.embeds[0]["fields"][-1]
    assert (
        progress["name"] == "Challenge"
        and "1 success (2 needed), 1 of 5 rolls used" in progress["value"]
    )
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    dicebot.rng = new_rng(
        seed_where(lambda r: r.success and not r.roll.critical_success, **roll_options)
    )
    await fake_discord.invoke("cosmos roll", {**roll_options, "challenge": "Escape"}, user="gm")
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announcement["embeds"][0]["title"] == "🏆 Challenge won: Escape"
    ended = await fake_discord.invoke(
        "cosmos roll", {**roll_options, "challenge": "Escape"}, user="player"
    )
    # Right after the win: the challenge is over, not "no open challenge" (issue 37, found 5)
    assert ended.ephemeral and "The challenge **Escape** here is over (won)" in ended.content
    assert "no open challenge" not in ended.content


async def test_revealed_hidden_challenge_roll_shows_its_challenge_as_the_gm_saw_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Escape", tn=2, successes=3, max_rolls=5)
    roll_options = {"attribute": 5, "skill": 5, "tn": 2, "challenge": "Escape", "hidden": True}
    secret = await fake_discord.invoke("cosmos roll", roll_options, user="gm")
    assert secret.ephemeral
    [field] = [f for f in secret.embeds[0]["fields"] if f["name"] == "Challenge"]
    revealed = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="gm")
    assert field in revealed.embeds[0]["fields"]
    logged = await logged_roll(dicebot.storage, 1)
    assert field in logged.payload["embed"]["fields"]


async def test_challenge_is_lost_when_the_rolls_run_out(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Hold the line", tn=40, successes=1, max_rolls=1)
    roll_options = {"attribute": 0, "skill": 0, "tn": 40}
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, **roll_options))
    reply = await fake_discord.invoke(
        "cosmos roll", {**roll_options, "challenge": "Hold the line"}, user="player"
    )
    assert (
        "0 successes (1 needed), 1 of 1 rolls used · lost" in reply.embeds[0]["fields"][-1]["value"]
    )
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announcement["embeds"][0]["title"] == "🪦 Challenge lost: Hold the line"


async def test_roll_into_a_missing_challenge_or_at_the_wrong_tn_rolls_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    missing = await fake_discord.invoke(
        "cosmos roll", {"attribute": 1, "skill": 1, "tn": 12, "challenge": "Nope"}, user="player"
    )
    assert missing.ephemeral and "no open challenge called **Nope**" in missing.content
    await open_challenge(fake_discord, "Escape", tn=12, successes=2, max_rolls=3)
    wrong_tn = await fake_discord.invoke(
        "cosmos roll", {"attribute": 1, "skill": 1, "tn": 14, "challenge": "Escape"}, user="player"
    )
    assert wrong_tn.ephemeral and "is at TN 12" in wrong_tn.content
    assert await dicebot.storage.rolls.get(1) is None
    status = await fake_discord.invoke("cosmos challenge status", {"name": "escape"}, user="gm")
    assert "0 successes (2 needed), 0 of 3 rolls used · open" in status.embeds[0]["description"]
    # No die was drawn: the next roll is the seed's first.
    expected = cosmos.roll(new_rng(DICE_SEED), attribute=1, skill=1, tn=12)
    right_tn = await fake_discord.invoke(
        "cosmos roll", {"attribute": 1, "skill": 1, "tn": 12, "challenge": "Escape"}, user="player"
    )
    assert right_tn.embeds[0]["title"].endswith(
        f"vs TN 12 (Moderate) · total {expected.roll.total}"
    )


async def test_gm_ends_a_challenge_early_and_it_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Escape", tn=12, successes=2, max_rolls=3)
    refused = await fake_discord.invoke("cosmos challenge end", {"name": "Escape"}, user="player")
    assert refused.ephemeral and "Only a GM can end a challenge" in refused.content
    reply = await fake_discord.invoke("cosmos challenge end", {"name": "Escape"}, user="gm")
    assert reply.ephemeral
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announcement["embeds"][0]["title"] == "🛑 Challenge ended by the GM: Escape"
    again = await fake_discord.invoke("cosmos challenge end", {"name": "Escape"}, user="gm")
    assert again.ephemeral and "**Escape** here is over (ended by the GM)" in again.content


async def test_duplicate_open_challenge_name_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    start = {"name": "Escape", "tn": 12, "successes": 2, "max_rolls": 3}
    await fake_discord.invoke("cosmos challenge start", start, user="gm")
    again = await fake_discord.invoke(
        "cosmos challenge start", {**start, "name": "ESCAPE"}, user="gm"
    )
    assert again.ephemeral and "already open" in again.content


async def test_ruling_ended_challenge_is_announced_publicly_even_after_a_hidden_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await open_challenge(fake_discord, "Ambush", tn=40, successes=1, max_rolls=1)
    roll_options = {"attribute": 0, "skill": 0, "tn": 40}
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, **roll_options))
    secret = await fake_discord.invoke(
        "cosmos roll", {**roll_options, "challenge": "Ambush", "hidden": True}, user="gm"
    )
    assert secret.ephemeral
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announcement["embeds"][0]["title"] == "🪦 Challenge lost: Ambush"
    assert not announcement.get("flags")
