"""`/roll` and hidden rolls with `/campaign reveal`, end to end through the fake Discord."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from bot.client import DiceBot
from bot.storage import Visibility
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.expect import logged_roll, revealed_line
from tests.fakediscord.server import FakeDiscord
from tests.storage.writes import trips_to_the_writer

pytestmark = pytest.mark.shared_bot


async def start_campaign(fake: FakeDiscord) -> None:
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Voidrunners"}, user="gm")


async def test_ruling_stateless_roll_works_without_campaign_and_is_logged(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    expected = roll_expression("4d6kh3+2", new_rng(DICE_SEED))
    reply = await fake_discord.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert expected.breakdown in embed["description"]
    assert "fields" not in embed  # the total is the title's alone (issue 53)
    assert embed["title"] == f"🎲 player: 4d6kh3+2 · total {expected.total}"
    roll_id = int(embed["footer"]["text"].removeprefix("Roll #"))
    logged = await dicebot.storage.rolls.get(roll_id)
    assert logged is not None and logged.visibility is Visibility.PUBLIC
    assert logged.payload["result"]["total"] == expected.total


async def test_roll_shows_its_total_once_and_bold_only_on_kept_dice(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    expected = roll_expression("4d6kh3+2", new_rng(DICE_SEED))
    reply = await fake_discord.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    description = reply.embeds[0]["description"]
    assert reply.embeds[0]["title"].endswith(f" · total {expected.total}")
    assert "fields" not in reply.embeds[0]
    assert "= `" not in description and "Total" not in description
    assert f"**{expected.total}**" not in description
    # every die is either bold (kept) or struck through (dropped), never both
    faces = description.split("(")[1].split(")")[0].split(", ")
    assert sum(face.startswith("**") for face in faces) == 3
    assert sum(face.startswith("~~") for face in faces) == 1
    assert not any("**" in face and "~~" in face for face in faces)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("4d6kh3+", "the expression ends too soon"),
        ("1000000d6", "At most 1000 dice"),
        ("d0", "at least 1 side"),
        ("abc", "Couldn't read `abc` as dice"),
    ],
)
async def test_bad_expression_gets_an_ephemeral_explanation(
    fake_discord: FakeDiscord, dicebot: DiceBot, expression: str, message: str
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": expression}, user="player")
    assert reply.ephemeral and message in reply.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_endless_explosions_are_refused_and_others_still_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    bombs = [
        await fake_discord.send("roll", {"expression": expression}, user="player")
        for expression in ["1d1ie1", "1d2ie<3", "1d1!>0"] * 8
    ]
    plain = await fake_discord.send("roll", {"expression": "1d20"}, user="gm")
    await fake_discord.wait_answered([*bombs, plain])
    for reply in bombs:
        assert reply.ephemeral and "would explode forever" in reply.content
    assert not plain.ephemeral and "1d20" in plain.embeds[0]["title"]
    assert await dicebot.storage.rolls.get(2) is None  # only the 1d20 was rolled and logged


async def test_ruling_hidden_gm_roll_is_private_logged_and_revealed_by_id(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    reply = await fake_discord.invoke("roll", {"expression": "2d20kl1", "hidden": True}, user="gm")
    assert reply.ephemeral
    footer = reply.embeds[0]["footer"]["text"]
    assert footer.startswith("Hidden roll #")
    roll_id = int(footer.removeprefix("Hidden roll #").split(":")[0])
    logged = await logged_roll(dicebot.storage, roll_id)
    assert logged.visibility is Visibility.HIDDEN and logged.revealed_at is None

    revealed = await fake_discord.invoke("campaign reveal", {"roll_id": roll_id}, user="gm")
    assert not revealed.ephemeral
    assert revealed.embeds[0]["title"] == reply.embeds[0]["title"]  # the verdict first, as rolled
    assert reply.embeds[0]["description"] == revealed.embeds[0]["description"]
    rolled_at = int(datetime.fromisoformat(logged.created_at).timestamp())
    assert revealed_line(revealed.embeds[0]) == (
        f"Rolled in secret <t:{rolled_at}:f> (<t:{rolled_at}:R>): a GM's hidden roll"
    )
    assert revealed.embeds[0]["footer"]["text"] == f"Roll #{roll_id}"
    assert "UTC" not in str(revealed.embeds[0])
    assert (await logged_roll(dicebot.storage, roll_id)).revealed_at is not None


async def test_ruling_hidden_player_is_refused_and_nothing_rolled(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    reply = await fake_discord.invoke("roll", {"expression": "1d20", "hidden": True}, user="player")
    assert reply.ephemeral and "Only a GM can roll hidden" in reply.content
    assert reply.embeds == []
    assert await dicebot.storage.rolls.get(1) is None
    # the dice source was not touched: the next roll is the seed's first
    expected = roll_expression("1d20", new_rng(DICE_SEED))
    public = await fake_discord.invoke("roll", {"expression": "1d20"}, user="player")
    assert expected.breakdown in public.embeds[0]["description"]


async def test_a_players_hidden_roll_refusal_points_to_blind(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    hidden = {"expression": "1d20", "hidden": True}
    outside = await fake_discord.invoke("roll", hidden, user="player")
    assert outside.ephemeral and outside.content == (
        "❌ Only a GM can roll hidden, and there is no campaign here: roll without `hidden`. (A "
        "player's secret roll is `blind:true`, in a campaign's channel, where its GMs see it.)"
    )
    await start_campaign(fake_discord)
    refused = await fake_discord.invoke("roll", hidden, user="player")
    assert refused.ephemeral and refused.content == (
        "❌ Only a GM can roll hidden. For a secret roll, use `blind:true` instead: the GMs see "
        "the result and you don't. Or roll without `hidden`."
    )
    assert await dicebot.storage.rolls.get(1) is None
    # What it points to works: the same roll, blind, is the player's secret roll.
    blind = await fake_discord.invoke("roll", {"expression": "1d20", "blind": True}, user="player")
    assert blind.ephemeral
    assert (await logged_roll(dicebot.storage, 1)).visibility is Visibility.BLIND


async def test_ruling_gms_manage_server_member_is_gm_even_without_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "1d6", "hidden": True}, user="admin")
    assert reply.ephemeral and reply.embeds[0]["footer"]["text"].startswith("Hidden roll #")


async def test_a_roll_outside_campaigns_is_revealed_by_manage_server_only_in_its_channel(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    await fake_discord.invoke(
        "roll",
        {"expression": "1d6", "hidden": True},
        user="admin",
        channel=fake_discord.other_channel_id,
    )
    # The table's GM is no GM of a roll made outside any campaign.
    reply = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="gm")
    assert reply.ephemeral and "Manage Server" in reply.content
    assert (await logged_roll(dicebot.storage, 1)).revealed_at is None
    # Manage Server, asked from the table: the roll is shown where it was rolled.
    done = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="admin")
    assert done.ephemeral and done.content == (
        f"🔓 Revealed roll #1 in <#{fake_discord.other_channel_id}>."
    )
    [shown] = await fake_discord.wait_channel_messages(fake_discord.other_channel_id)
    assert revealed_line(shown["embeds"][0]).startswith("Rolled in secret")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_player_cannot_reveal(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start_campaign(fake_discord)
    await fake_discord.invoke("roll", {"expression": "1d6", "hidden": True}, user="gm")
    reply = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="player")
    assert reply.ephemeral and "Only a GM of the campaign" in reply.content


async def test_player_cannot_reveal_a_hidden_roll_of_an_earlier_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    secret = await fake_discord.invoke(
        "roll", {"expression": "1d1+765431", "hidden": True}, user="gm"
    )
    assert secret.ephemeral
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    end_button = prompt.original.custom_ids()[0]
    await fake_discord.click(prompt, end_button, user="gm")
    started = await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Heist"}, user="player"
    )
    assert not started.ephemeral
    reply = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="player")
    assert reply.ephemeral and "Only a GM of the campaign roll #1 was made in" in reply.content
    assert "765432" not in str(fake_discord.channel_messages(fake_discord.channel_id))
    assert (await logged_roll(dicebot.storage, 1)).revealed_at is None


async def test_player_cannot_reveal_an_admins_hidden_roll_made_outside_campaigns(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("roll", {"expression": "1d1+765431", "hidden": True}, user="admin")
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Heist"}, user="player"
    )
    reply = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="player")
    assert reply.ephemeral and "Manage Server" in reply.content
    assert (await logged_roll(dicebot.storage, 1)).revealed_at is None
    revealed = await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="admin")
    assert not revealed.ephemeral and "765432" in str(revealed.embeds[0])


async def test_hidden_roll_in_a_thread_reveals_in_the_thread(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    thread = fake_discord.thread_id
    reply = await fake_discord.invoke(
        "roll", {"expression": "1d6", "hidden": True}, user="gm", channel=thread
    )
    assert reply.ephemeral
    revealed = await fake_discord.invoke(
        "campaign reveal", {"roll_id": 1}, user="gm", channel=thread
    )
    assert revealed_line(revealed.embeds[0]).startswith("Rolled in secret")


async def test_roll_sets_several_rolls_and_a_label_in_one_reply(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "2 4d6kh3; 1d20+5 ! fireball"})
    embed = reply.embeds[0]
    lines = embed["description"].splitlines()
    assert len(lines) == 3 and lines[0].startswith("🎲 1. 4d6kh3 (") and lines[1].startswith("2. ")
    assert lines[2].startswith("fireball: 1d20 (") and " = **" in lines[2]  # the `;` roll's own
    assert "fields" not in embed  # each line has its total: no field restates them
    assert embed["title"] == "🎲 gm: 2 4d6kh3; 1d20+5 ! fireball · 3 rolls"
    again = await fake_discord.click(reply, "roll:again:1")
    assert len(again.embeds[0]["description"].splitlines()) == 3
    too_many = await fake_discord.invoke("roll", {"expression": "1d4; 1d6; 1d8; 1d10; 1d12"})
    assert too_many.ephemeral and "at most 4 rolls separated by `;`" in too_many.content


async def test_twenty_rolls_take_no_verdict_from_one_rolls_natural(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # new_rng(1) draws 10, 11, 16, 20, 1, … for twenty d20 (issue 53, item 3: the title was
    # "natural 20 · … 20 rolls" because one of the twenty was a 20).
    dicebot.rng = new_rng(1)
    reply = await fake_discord.invoke("roll", {"expression": "20 1d20"}, user="player")
    embed = reply.embeds[0]
    assert embed["title"] == "🎲 player: 20 1d20 · 20 rolls"
    lines = embed["description"].removeprefix("🎲 ").splitlines()
    assert lines[3:5] == ["4. 1d20 (20) = **20** ✨", "5. 1d20 (1) = **1** 💀"]
    assert lines[0] == "1. 1d20 (10) = **10**" and len(lines) == 20
    roll_id = int(embed["footer"]["text"].removeprefix("Roll #"))
    logged = await logged_roll(dicebot.storage, roll_id)
    assert [roll["total"] for roll in logged.payload["result"]["rolls"][0]][3:5] == [20, 1]


async def test_rule_each_semicolon_roll_shows_its_own_label_and_is_logged(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # new_rng(1) draws 10 for the d20, then 4 and 5 for the 2d6 (tests/rules/test_notation_corpus)
    dicebot.rng = new_rng(1)
    typed = "1d20+5 ! Attack; 2d6+3 ! Damage"
    reply = await fake_discord.invoke("roll", {"expression": typed}, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["description"].splitlines() == [
        "🎲 Attack: 1d20 (10) + 5 = **15**",
        "Damage: 2d6 (4, 5) + 3 = **12**",
    ]
    roll_id = int(embed["footer"]["text"].removeprefix("Roll #"))
    logged = await logged_roll(dicebot.storage, roll_id)
    labels = [part["label"] for part in logged.payload["result"]["request"]["parts"]]
    assert labels == ["Attack", "Damage"]


async def test_rule_advantage_word_and_comparison_show_the_d20s_and_the_outcome(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # new_rng(1) draws 10 and 11 for two d20: advantage keeps the 11, 11 + 5 >= 15 succeeds
    dicebot.rng = new_rng(1)
    reply = await fake_discord.invoke(
        "roll", {"expression": "1d20+5>=15 adv Stealth"}, user="player"
    )
    embed = reply.embeds[0]
    # The verdict, the comparison, the label and the total are the title's (issue 53).
    assert embed["description"] == "🎲 2d20kh1 (~~10~~, **11**) + 5"
    assert embed["title"] == "✅ Success · player: 1d20+5\\>=15 adv Stealth · total 16"
    dicebot.rng = new_rng(1)
    failed = await fake_discord.invoke("roll", {"expression": "1d20>=15"}, user="player")
    assert failed.embeds[0]["description"] == "🎲 1d20 (10)"
    assert failed.embeds[0]["title"] == "❌ Failure · player: 1d20\\>=15 · total 10"


async def test_rule_percent_is_the_remainder_never_a_label(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("roll", {"expression": "13 % 2"}, user="player")
    embed = reply.embeds[0]
    assert embed["description"] == "🎲 13 % 2" and embed["title"].endswith(" · total 1")
    refused = await fake_discord.invoke("roll", {"expression": "13 & 2"}, user="player")
    assert refused.ephemeral and "A label after the dice starts with a letter" in refused.content


async def test_rule_double_equals_compares_as_equals(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    dicebot.rng = new_rng(1)  # the d20 draws 10
    reply = await fake_discord.invoke("roll", {"expression": "1d20==10"}, user="player")
    assert reply.embeds[0]["description"] == "🎲 1d20 (10)"
    assert reply.embeds[0]["title"] == "✅ Success · player: 1d20==10 · total 10"


async def test_rule_private_prefix_is_refused_naming_the_hidden_option_and_logs_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    refused = await fake_discord.invoke("roll", {"expression": "p 1d20"}, user="player")
    assert refused.ephemeral
    assert "did you mean `/roll expression:1d20 hidden:true`?" in refused.content
    assert await dicebot.storage.rolls.get(1) is None  # nothing rolled, nothing logged


async def test_rule_sort_and_dndstats_show_sorted_dice_and_six_numbered_sets(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # new_rng(1) draws 3, 4, 5, 6, 1, 1, 5, 6 for eight d6 (tests/rules/test_notation_corpus)
    dicebot.rng = new_rng(1)
    sorted_roll = await fake_discord.invoke("roll", {"expression": "8d6 s"}, user="player")
    assert sorted_roll.embeds[0]["description"] == "🎲 8d6 (1, 1, 3, 4, 5, 5, 6, 6)"
    assert sorted_roll.embeds[0]["title"].endswith(" · total 31")
    dicebot.rng = new_rng(1)
    stats = await fake_discord.invoke("roll", {"expression": "dndstats"}, user="player")
    lines = stats.embeds[0]["description"].splitlines()
    assert lines[0] == "🎲 1. 4d6kh3 (~~3~~, **4**, **5**, **6**) = **15**"
    assert [line.removeprefix("🎲 ")[:3] for line in lines] == [f"{n}. " for n in range(1, 7)]


async def test_a_lone_roll_is_logged_on_the_loops_thread_and_many_at_once_together(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot tells its database how many interactions are in flight (docs/benchmarks.md):
    a roll alone, its row and message id, makes no trip to SQLite's writer thread; rolls in
    flight together are group-committed there."""
    # The shared bot's database counts its writes on the loop's thread across tests: from 0
    # here, no checkpoint (a trip of its own, every CHECKPOINT_EVERY) falls in this test.
    monkeypatch.setattr(dicebot.storage.database, "_written_here", 0)
    trips = trips_to_the_writer(dicebot.storage, monkeypatch)
    reply = await fake_discord.invoke("roll", {"expression": "4d6kh3+2"}, user="player")
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the roll's message remembered")
    roll_id = int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #"))
    logged = await dicebot.storage.rolls.get(roll_id)
    assert logged is not None and logged.message_id == reply.message_id
    assert trips == []
    replies = await asyncio.gather(
        *(fake_discord.invoke("roll", {"expression": "1d20"}, user="player") for _ in range(20))
    )
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the rolls' messages remembered")
    assert len({reply.embeds[0]["footer"]["text"] for reply in replies}) == 20
    assert 0 < len(trips) < 2 * 20  # several rows a trip
