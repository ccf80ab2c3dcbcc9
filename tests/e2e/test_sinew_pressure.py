"""`/sinew pressure`, `tamper`, `purge` end to end: the channel hears every change and Crisis."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from bot.client import DiceBot
from bot.storage import Visibility
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.e2e.test_sinew import (
    TOUGH,
    campaign_of,
    character,
    create,
    faces,
    labels,
    reply_text,
    seed_where,
)
from tests.expect import logged_roll, sign
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def start(fake: FakeDiscord, **settings: Any) -> None:
    options = {"system": "sinew", "name": "Iron Age", **settings}
    reply = await fake.invoke("campaign start", options, user="gm")
    assert not reply.ephemeral, reply.content


def d6_faces(seed: int, count: int) -> list[int]:
    """The first ``count`` d6 a seeded generator rolls, one at a time (as the bot does)."""
    rng = np.random.default_rng(seed)
    return [int(rng.integers(1, 7, size=1)[0]) for _ in range(count)]


def d6_seed(*faces: int) -> int:
    """Find a seed whose first d6 rolls are ``faces``."""
    for seed in range(200_000):
        if d6_faces(seed, len(faces)) == list(faces):
            return seed
    raise AssertionError(f"no seed rolls {faces}")


async def add(fake: FakeDiscord, amount: int = 1, character: str | None = None) -> Reply:
    options: dict[str, Any] = {"amount": amount}
    if character is not None:
        options["character"] = character
    return await fake.invoke("sinew pressure add", options, user="gm")


async def pressure_of(fake: FakeDiscord, bot: DiceBot, name: str | None = None) -> int:
    campaign = await campaign_of(fake, bot)
    if name is None:
        return await bot.storage.tracks.value(campaign, "pressure")
    found = await character(fake, bot, name)
    return await bot.storage.tracks.value(campaign, "pressure", character_id=found.id)


def titles(fake: FakeDiscord) -> list[str]:
    return [message["embeds"][0]["title"] for message in fake.channel_messages(fake.channel_id)]


# --- the track and its announcements


async def test_ruling_sinew_pressure_add_is_announced_with_the_step_in_its_skin(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    reply = await add(fake_discord, 2, "Brakka")
    assert reply.ephemeral and reply.content == "✅ Pressure 0 → 2. Announced in the channel."
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    embed = posted["embeds"][0]
    assert embed["title"] == "🌡️ Pressure rises · Brakka: 0 → 2"
    assert embed["description"] == (
        "**Bad omens** — minor GM moves, e.g. disadvantage for one scene"
    )
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2
    assert await pressure_of(fake_discord, dicebot) == 0  # the party's track is its own


async def test_ruling_sinew_every_step_in_both_skins(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fantasy = ["Uneasy whisper", "Bad omens", "Eldritch tremor", "Veil thins"]
    scifi = ["Data-glitch", "Quantum flutter", "System alarms", "Causality shear"]
    await start(fake_discord)
    for _ in range(4):
        await add(fake_discord)  # the party's track
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 4)
    steps = [message["embeds"][0]["description"].split("**")[1] for message in posted]
    assert steps == fantasy
    assert posted[3]["embeds"][0]["description"].endswith(
        "power or pool use costs +1 (each Luck spend costs 1 extra token), NPCs grow hostile"
    )
    fake_discord.channel_id = fake_discord.other_channel_id  # a second campaign, sci-fi
    await start(fake_discord, skin="scifi")
    for _ in range(4):
        await add(fake_discord)
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 4)
    assert [message["embeds"][0]["description"].split("**")[1] for message in posted] == scifi
    assert posted[0]["embeds"][0]["title"] == "🌡️ Pressure rises · The party: 0 → 1"


async def test_pressure_remove_stops_at_zero_and_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await add(fake_discord, 2)
    removed = await fake_discord.invoke("sinew pressure remove", {"amount": 5}, user="gm")
    assert removed.content == "✅ Pressure 2 → 0. Announced in the channel."
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    assert posted[1]["embeds"][0]["title"] == "🕊️ Pressure falls · The party: 2 → 0"
    again = await fake_discord.invoke("sinew pressure remove", {}, user="gm")
    assert again.ephemeral and "already 0" in again.content
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 2


async def test_pressure_changes_are_for_the_gm_and_show_is_for_everyone(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    refused = await fake_discord.invoke("sinew pressure add", {}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    unknown = await add(fake_discord, 1, "Nobody")
    assert unknown.ephemeral and "Nobody" in unknown.content
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    await add(fake_discord, 3, "Brakka")
    await add(fake_discord, 1)
    board = await fake_discord.invoke("sinew pressure show", {}, user="player")
    embed = board.embeds[0]
    assert (
        board.ephemeral
        and embed["description"] == "The party: 1/5 · **Uneasy whisper** — cosmetic flavour"
    )
    assert embed["fields"][0]["value"] == (
        "Brakka: 3/5 · **Eldritch tremor** — serious side-effect chosen by GM or player"
    )
    info = await fake_discord.invoke("campaign info", {}, user="player")
    tracks = {field["name"]: field["value"] for field in info.embeds[0]["fields"]}["Tracks"]
    assert "Party · pressure: 1/5" in tracks and "Brakka · pressure: 3/5" in tracks


async def test_campaign_info_lists_pressure_tracks_that_never_moved(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    info = await fake_discord.invoke("campaign info", {}, user="player")
    tracks = {field["name"]: field["value"] for field in info.embeds[0]["fields"]}["Tracks"]
    assert tracks.splitlines() == ["Party · pressure: 0/5", "Brakka · pressure: 0/5"]


# --- Crisis


async def test_ruling_sinew_crisis_at_five_two_takes_stamina_and_resets_to_zero(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")  # STA 5
    await add(fake_discord, 4, "Brakka")
    dicebot.rng = new_rng(d6_seed(2))
    reply = await add(fake_discord, 1, "Brakka")
    assert (
        reply.content
        == "✅ Pressure 4 → 5: Crisis! The track resets to 0. Announced in the channel."
    )
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 3)
    step, crisis = posted[1]["embeds"][0], posted[2]["embeds"][0]
    assert step["title"] == "🌡️ Pressure rises · Brakka: 4 → 5"
    assert step["description"].startswith("**Backlash, possession, curse**")
    assert crisis["title"] == "💥 CRISIS · Brakka: Backlash, possession, curse"
    assert crisis["description"] == "• **Withering**: loses 1 Stamina and a key item melts"
    fields = {field["name"]: field["value"] for field in crisis["fields"]}
    assert fields["Crisis d6"] == "2"
    assert fields["Stamina lost"] == "Brakka: Stamina 5 → **4**"
    assert fields["Aftermath"] == "Pressure resets to 0: **Spirit calm** — nothing"
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 0
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 4
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "sinew.crisis" and logged.payload["result"]["events"] == [2]


async def test_ruling_sinew_crossing_five_at_once_fires_one_crisis_lingering_taint_leaves_one(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, lingering_taint=True)
    await add(fake_discord, 3)
    dicebot.rng = new_rng(d6_seed(4))
    await add(fake_discord, 5)  # 3 + 5 would be 8: one Crisis
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 3)
    await asyncio.sleep(0.05)
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 3
    crisis = posted[2]["embeds"][0]
    assert (
        crisis["description"] == "• **Unwanted Summons**: the party is yanked to a hostile locale"
    )
    assert (
        crisis["fields"][-1]["value"]
        == "Pressure resets to 1: **Uneasy whisper** — cosmetic flavour"
    )
    assert await pressure_of(fake_discord, dicebot) == 1
    assert (await dicebot.storage.rolls.get(2)) is None  # one Crisis logged


async def test_ruling_sinew_crisis_six_rolls_twice_more_rerolling_sixes_on_the_party(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, skin="scifi")
    await create(fake_discord, "Brakka")  # STA 5
    await create(fake_discord, "Vex", TOUGH, user="gm")  # STA 9
    await add(fake_discord, 4)
    dicebot.rng = new_rng(d6_seed(6, 6, 2, 5))
    await add(fake_discord, 1)
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 3)
    crisis = posted[2]["embeds"][0]
    assert crisis["title"] == "💥 CRISIS · The party: Temporal implosion, AI seizure"
    assert crisis["description"].splitlines() == [
        "• **Tech burnout**: loses 1 Stamina and a key item melts",
        "• **Data leak**: a secret is revealed; foes gain an edge",
    ]
    fields = {field["name"]: field["value"] for field in crisis["fields"]}
    assert fields["Crisis d6"] == "6, 6, 2, 5 (6: roll twice more, rerolling further 6s)"
    # A party Crisis strikes every character (house).
    assert fields["Stamina lost"].splitlines() == [
        "Brakka: Stamina 5 → **4**",
        "Vex: Stamina 9 → **8**",
    ]
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 8


async def test_crisis_that_empties_stamina_announces_the_collapse(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 4}, user="gm")
    await add(fake_discord, 4, "Brakka")
    dicebot.rng = new_rng(d6_seed(2))
    await add(fake_discord, 1, "Brakka")
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 4)
    assert [message["embeds"][0]["title"] for message in posted[1:]] == [
        "🌡️ Pressure rises · Brakka: 4 → 5",
        "💥 CRISIS · Brakka: Backlash, possession, curse",
        "💀 Brakka collapses!",
    ]
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.collapsed


async def test_two_hundred_concurrent_adds_lose_nothing_and_fire_one_crisis_per_crossing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    replies = await asyncio.gather(
        *(fake_discord.send("sinew pressure add", {"amount": 1}, user="gm") for _ in range(200))
    )
    await fake_discord.wait_answered(replies)
    assert not any("❌" in reply.content for reply in replies)
    # Serially: every fifth add reaches 5, fires a Crisis and resets to 0: 40 Crises, ending at 0.
    assert sum("Crisis!" in reply.content for reply in replies) == 40
    assert await pressure_of(fake_discord, dicebot) == 0
    kinds = [(await logged_roll(dicebot.storage, n)).kind for n in range(1, 41)]
    assert kinds == ["sinew.crisis"] * 40 and await dicebot.storage.rolls.get(41) is None
    await fake_discord.wait_channel_messages(fake_discord.channel_id, 240)


async def test_tracks_survive_a_restart_and_nothing_fires_twice(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    await add(fake_discord, 3, "Brakka")
    await add(fake_discord, 4)
    await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    async with restarted(fake_discord, dicebot, seed=5) as bot:
        assert await pressure_of(fake_discord, bot, "Brakka") == 3
        assert await pressure_of(fake_discord, bot) == 4
        await asyncio.sleep(0.05)
        assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 2


# --- Luck at step 4


async def test_ruling_sinew_party_pressure_four_surcharges_luck_on_buttons_and_command(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    await add(fake_discord, 4)  # the party's track weighs on every member (house)
    dicebot.rng = new_rng(seed_where(lambda r: not r.natural_twenty and r.roll - 12 == 3, 12))
    reply = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert labels(reply) == [
        "Spend 1 Luck · costs 2 at Pressure 4+",
        "Spend 3 (turns it) · costs 4 at Pressure 4+",
    ]
    spent = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert spent.ephemeral  # the test's own message shows the spend
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Luck spent"] == "−1 on the die for 2 tokens (1 extra at Pressure 4+); 8/10 left"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 8


# --- tampering


def failing_seed(score: int) -> int:
    return seed_where(lambda r: not r.success, score)


async def test_ruling_sinew_failed_tamper_adds_one_pressure_with_the_announcement(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")  # INT 7
    seed = failing_seed(7)
    expected = sinew.test(new_rng(seed), 7)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew tamper", {"attribute": "int"}, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == f"❌ Failure · Brakka: INT test to tamper · roll {expected.roll}"
    assert reply_text(embed).startswith(
        f"🎲 1d20: {faces(expected)} vs INT 7, margin {sign(expected.margin)}\n"
    )
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert fields["Pressure"] == "0 → 1: **Uneasy whisper** — cosmetic flavour"
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    announced = posted["embeds"][0]
    assert announced["title"] == "🌡️ Pressure rises · Brakka: 0 → 1"
    assert announced["fields"][0]["value"] == "Brakka tampered with forces beyond ken, and failed."
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 1
    assert (await logged_roll(dicebot.storage, 1)).kind == "sinew.tamper"


async def test_passed_tamper_changes_nothing_and_shows_the_pressure_it_leaves(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    await add(fake_discord, 2, "Brakka")
    [_] = await fake_discord.wait_channel_messages(fake_discord.channel_id)  # 0 → 2, announced
    dicebot.rng = new_rng(seed_where(lambda r: r.success and not r.natural_one, 12))
    reply = await fake_discord.invoke("sinew tamper", {"attribute": "str"}, user="player")
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Pressure"] == "2 (unchanged)"  # the track's value, every number named
    await asyncio.sleep(0.05)
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 1  # nothing more
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2


async def test_hidden_tamper_keeps_the_dice_secret_and_still_announces_the_pressure(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    seed = failing_seed(7)
    expected = sinew.test(new_rng(seed), 7)
    dicebot.rng = new_rng(seed)
    options = {"attribute": "int", "character": "Brakka", "hidden": True}
    reply = await fake_discord.invoke("sinew tamper", options, user="gm")
    assert reply.ephemeral and reply.embeds[0]["title"].endswith(f" · roll {expected.roll}")
    assert reply_text(reply.embeds[0]).startswith(
        f"🎲 1d20: {faces(expected)} vs INT 7, margin {sign(expected.margin)}\n"
    )
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    text = str(posted)
    assert "🎲" not in text and "Roll " not in text and "INT" not in text
    assert "1d20" not in text and f"roll {expected.roll}" not in text
    assert posted["embeds"][0]["title"] == "🌡️ Pressure rises · Brakka: 0 → 1"
    assert (await logged_roll(dicebot.storage, 1)).visibility is Visibility.HIDDEN
    refused = await fake_discord.invoke(
        "sinew tamper", {"attribute": "int", "hidden": True}, user="player"
    )
    assert refused.ephemeral and await pressure_of(fake_discord, dicebot, "Brakka") == 1


# --- purging


async def test_ruling_sinew_sacrifice_lowers_the_attribute_and_pressure(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    nothing = await fake_discord.invoke(
        "sinew purge", {"method": "sacrifice", "attribute": "str"}, user="player"
    )
    assert nothing.ephemeral and "already 0" in nothing.content
    await add(fake_discord, 2, "Brakka")
    reply = await fake_discord.invoke(
        "sinew purge", {"method": "sacrifice", "attribute": "str"}, user="player"
    )
    assert reply.content == "✅ Pressure 2 → 1. Announced in the channel."
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    assert posted[1]["embeds"][0]["fields"][0]["value"] == "Brakka sacrificed 1 STR (12 → 11)."
    stored = await character(fake_discord, dicebot, "Brakka")
    assert stored.sheet.strength == 11 and await pressure_of(fake_discord, dicebot, "Brakka") == 1
    floor = await fake_discord.invoke(
        "sinew purge", {"method": "sacrifice", "attribute": "int"}, user="player"
    )  # INT 7 → 6 is allowed; again is not
    assert floor.content == "✅ Pressure 1 → 0. Announced in the channel."
    await add(fake_discord, 1, "Brakka")
    refused = await fake_discord.invoke(
        "sinew purge", {"method": "sacrifice", "attribute": "int"}, user="player"
    )
    assert refused.ephemeral and "INT is 6, its lowest" in refused.content
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 1
    missing = await fake_discord.invoke("sinew purge", {"method": "sacrifice"}, user="player")
    assert missing.ephemeral and "needs `attribute`" in missing.content


async def test_ruling_sinew_cleansing_rite_once_per_downtime_renewed_by_thorough_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")  # EMP 7
    await add(fake_discord, 3, "Brakka")
    dicebot.rng = new_rng(seed_where(lambda r: r.success, 7))
    rite = {"method": "rite", "attribute": "emp"}
    reply = await fake_discord.invoke("sinew purge", rite, user="player")
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert (
        fields["Pressure"]
        == "3 → 2: **Bad omens** — minor GM moves, e.g. disadvantage for one scene"
    )
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    assert posted[1]["embeds"][0]["title"] == "🕊️ Pressure falls · Brakka: 3 → 2"
    again = await fake_discord.invoke("sinew purge", rite, user="player")
    assert again.ephemeral and "already tried this downtime" in again.content
    await fake_discord.invoke("sinew rest", {"kind": "thorough"}, user="player")
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, 7))
    failed = await fake_discord.invoke("sinew purge", rite, user="player")
    fields = {field["name"]: field["value"] for field in failed.embeds[0]["fields"]}
    assert fields["Pressure"] == "2 (unchanged)"
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 2
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.rite_used
    stamina = await fake_discord.invoke(
        "sinew purge", {"method": "rite", "attribute": "sta"}, user="player"
    )
    assert stamina.ephemeral and "STA is not tested" in stamina.content


async def test_ruling_sinew_quest_clears_the_track_by_the_gm(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Brakka")
    await add(fake_discord, 4, "Brakka")
    refused = await fake_discord.invoke("sinew purge", {"method": "quest"}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    reply = await fake_discord.invoke(
        "sinew purge", {"method": "quest", "character": "Brakka"}, user="gm"
    )
    assert reply.content == "✅ Pressure 4 → 0. Announced in the channel."
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    assert posted[1]["embeds"][0]["fields"][0]["value"] == (
        "A story quest is complete: the track is cleared."
    )
    assert await pressure_of(fake_discord, dicebot, "Brakka") == 0
