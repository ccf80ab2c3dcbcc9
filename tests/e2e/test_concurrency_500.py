"""500 concurrent state changes of every kind on one character or track, through the handlers.

Each test fires 500 commands (or button presses) at once against ONE character, track, pool,
challenge or roll, then checks three things against a serial replay worked out by hand:
the stored state is the serial result, the replies that succeeded are exactly the steps a
serial run takes (each step once: nothing handed out twice, nothing lost), and every other
reply is a clear ephemeral refusal. Operations are chosen so the serial result does not depend
on the order (all one way, or bounded by a limit), since the order the bot runs them in is
not ours to pick.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.client import DiceBot
from bot.storage import CharacterStore
from rules import sinew
from rules.cosmos import ChallengeStatus
from rules.sixpool import Pool
from tests.e2e.test_aethelgard import create as create_aethelgard
from tests.e2e.test_aethelgard import start_campaign as start_aethelgard
from tests.e2e.test_cosmos import open_challenge
from tests.e2e.test_cosmos import start_campaign as start_cosmos
from tests.e2e.test_sinew import TOUGH, campaign_of, character, create, failed_test, start_sinew
from tests.e2e.test_sixpool import character as sixpool_character
from tests.e2e.test_sixpool import create as create_sixpool
from tests.e2e.test_sixpool import fields as sixpool_fields
from tests.e2e.test_sixpool import start as start_sixpool
from tests.expect import active_campaign, logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

N = 500
# 500 interactions at once take 1-3 s here; the fake's default 5 s wait is too tight for a
# loaded CI machine. A passing test never waits for this: it only bounds a failing one.
ANSWER_TIMEOUT = 60.0


async def fire(fake: FakeDiscord, send: Callable[[int], Awaitable[Reply]]) -> list[Reply]:
    """Send ``send(0)`` … ``send(N - 1)`` together and wait until the bot answered them all."""
    fake.timeout = ANSWER_TIMEOUT
    # The serial result is the point here, not speed: 500 at once beside the other tests on two
    # cores may take past Discord's 3 s (the benchmarks measure bursts: bench/).
    fake.callback_deadline = None
    replies = await asyncio.gather(*(send(n) for n in range(N)))
    await fake.wait_answered(replies)
    return list(replies)


def split(replies: list[Reply]) -> tuple[list[Reply], list[Reply]]:
    """Return the replies that changed something and the refusals (ephemeral, with ❌)."""
    refused = [r for r in replies if r.content.startswith("❌")]
    assert all(r.ephemeral for r in refused)
    return [r for r in replies if not r.content.startswith("❌")], refused


def descriptions(replies: list[Reply]) -> Counter[str]:
    return Counter(reply.embeds[0]["description"] for reply in replies)


# --- Sinew & Steel: Luck, Stamina, Pressure


async def test_500_concurrent_luck_spends_pay_exactly_the_ten_tokens_held(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # STR 6 and a die needing 11+ tokens to turn: every one of the ten spends of 1 is legal.
    reply, _ = await failed_test(
        fake_discord, dicebot, "Tank", TOUGH, score=6, needs=lambda needed: needed > 10
    )

    def spend(n: int) -> Awaitable[Reply]:  # half by command, half by the roll's button
        if n % 2:
            return fake_discord.send("sinew luck spend", {"tokens": 1}, user="player")
        return fake_discord.click(reply, "sinew:luck:1:1", user="player", stale_client=True)

    spent, refused = split(await fire(fake_discord, spend))
    # Serially: the first ten spends pay 10 → 0 tokens, the other 490 find none left.
    assert (len(spent), len(refused)) == (10, N - 10)
    assert all("costs 1 Luck token; Tank has 0." in r.content for r in refused)
    assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 0
    # Each spend logged one step: the die lowered by 1, 2, …, 10, no step twice, none more.
    logged = [await logged_roll(dicebot.storage, n) for n in range(2, 12)]
    assert [roll.payload["result"]["shift"] for roll in logged] == list(range(1, 11))
    assert await dicebot.storage.rolls.get(12) is None


async def test_500_concurrent_calm_rests_regain_luck_up_to_the_cap_once_per_token(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Tank", TOUGH)  # LCK 10
    store = CharacterStore(dicebot.storage.database, sinew.SHEET_CODEC)
    tank = await character(fake_discord, dicebot, "Tank")
    await store.update(tank, lambda sheet: replace(sheet, luck_tokens=0))
    rests = await fire(
        fake_discord,
        lambda _: fake_discord.send("sinew rest", {"kind": "calm"}, user="player"),
    )
    rested, refused = split(rests)
    assert refused == []
    # Serially: tokens 0 → 1 → … → 10 (each step once), then 490 rests at the cap gain nothing.
    gains = Counter(r.embeds[0]["description"].splitlines()[0] for r in rested)
    assert gains == Counter(
        {**{f"Luck +1: {n}/10 tokens": 1 for n in range(1, 11)}, "Luck +0: 10/10 tokens": N - 10}
    )
    assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 10


async def test_500_concurrent_damages_then_heals_end_in_the_serial_stamina_with_one_collapse(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Tank", TOUGH)  # STA 9

    def change(command: str) -> Callable[[int], Awaitable[Reply]]:
        return lambda _: fake_discord.send(command, {"character": "Tank", "amount": 1})

    damaged, refused = split(await fire(fake_discord, change("sinew damage")))
    assert refused == []
    # Serially: 9 → 8 → … → 0, each step once; the other 491 find Tank at 0 already.
    collapsed = " · **collapsed**"
    assert descriptions(damaged) == Counter(
        {
            **{f"Stamina {n} → **{n - 1}**/9": 1 for n in range(9, 1, -1)},
            f"Stamina 1 → **0**/9{collapsed}": 1,
            f"Stamina 0 → **0**/9{collapsed}": N - 9,
        }
    )
    assert (await character(fake_discord, dicebot, "Tank")).sheet.current_stamina == 0
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert [m["embeds"][0]["title"] for m in posted] == ["💀 Tank collapses!"]  # once, not 491

    healed, refused = split(await fire(fake_discord, change("sinew heal")))
    assert refused == []
    # Serially: 0 → 1 → … → 9 (the STA score), each step once; 491 heals at the cap.
    assert descriptions(healed) == Counter(
        {
            **{f"Stamina {n} → **{n + 1}**/9": 1 for n in range(9)},
            "Stamina 9 → **9**/9": N - 9,
        }
    )
    assert (await character(fake_discord, dicebot, "Tank")).sheet.current_stamina == 9
    assert len(fake_discord.channel_messages(fake_discord.channel_id)) == 1


async def test_500_concurrent_pressure_adds_fire_one_crisis_per_crossing_exactly(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    added, refused = split(
        await fire(
            fake_discord,
            lambda _: fake_discord.send("sinew pressure add", {"amount": 1}, user="gm"),
        )
    )
    assert refused == []
    # Serially: every fifth add reaches 5, fires a Crisis and resets to 0: 100 Crises, ending
    # at 0. Each step 0→1 … 4→5 happens 100 times, never more.
    assert sum("Crisis!" in reply.content for reply in added) == N // 5
    campaign = await campaign_of(fake_discord, dicebot)
    assert await dicebot.storage.tracks.value(campaign, "pressure") == 0
    kinds = [(await logged_roll(dicebot.storage, n)).kind for n in range(1, N // 5 + 1)]
    assert kinds == ["sinew.crisis"] * (N // 5)
    assert await dicebot.storage.rolls.get(N // 5 + 1) is None
    # The channel hears each rise once and each Crisis once: 500 + 100 announcements.
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, N + N // 5)
    titles = Counter(message["embeds"][0]["title"] for message in posted)
    rises = {title: count for title, count in titles.items() if "Pressure rises" in title}
    assert sorted(rises.values()) == [N // 5] * 5 and len(rises) == 5
    assert sum(count for title, count in titles.items() if "CRISIS" in title) == N // 5
    assert len(posted) == N + N // 5


# --- Six-pool: pool points and inspiration


async def test_500_concurrent_pool_spends_never_overspend_and_rests_refill_exactly(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sixpool(fake_discord)
    await create_sixpool(fake_discord)  # DEX 8

    def check(_: int) -> Awaitable[Reply]:
        options = {"pool": "DEX", "dc": 10, "spend": 1}
        return fake_discord.send("sixpool check", options, user="player")

    spent, refused = split(await fire(fake_discord, check))
    # Serially: 8 checks spend 8 → 0 (each point once), the other 492 find DEX empty.
    assert (len(spent), len(refused)) == (8, N - 8)
    assert all("DEX has 0 points left; you asked for 1." in r.content for r in refused)
    lefts = sorted(sixpool_fields(reply)["DEX pool"] for reply in spent)
    assert lefts == sorted(f"1 spent: {n}/8 left" for n in range(8))
    assert (await sixpool_character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 0
    assert await dicebot.storage.rolls.get(9) is None  # refused checks rolled nothing

    rested, refused = split(
        await fire(
            fake_discord,
            lambda _: fake_discord.send("sixpool rest", {"character": "Rin"}, user="gm"),
        )
    )
    # Refilling to the maximum gives the same result in any order: DEX 8, not 8 × 500.
    assert (len(rested), refused) == (N, [])
    assert (await sixpool_character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 8


async def test_500_concurrent_inspirations_award_one_and_refuse_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sixpool(fake_discord)
    await create_sixpool(fake_discord)
    player = fake_discord.users["player"]
    awarded, refused = split(
        await fire(fake_discord, lambda _: fake_discord.send("sixpool inspire", {"user": player}))
    )
    assert (len(awarded), len(refused)) == (1, N - 1)
    assert all("Rin already holds inspiration: one at a time" in r.content for r in refused)
    assert (await sixpool_character(fake_discord, dicebot)).sheet.inspired


# --- Cosmos: one challenge's progress


def challenge_points(kept: list[int]) -> int:
    """What a roll against an unreachable TN adds: +2 on double 10, −1 on double 1, else 0."""
    if kept == [10, 10]:
        return 2
    if kept == [1, 1]:
        return -1
    return 0


async def test_500_concurrent_challenge_rolls_count_exactly_the_rolls_it_allows(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_cosmos(fake_discord)
    # TN 30 with +0 can't be reached (2d10 ≤ 20): only a critical moves the tally, and twenty
    # successes would need ten double tens in 50 rolls. So it ends by running out of rolls.
    await open_challenge(fake_discord, "Hold", tn=30, successes=20, max_rolls=50)
    options = {"attribute": 0, "skill": 0, "tn": 30, "challenge": "Hold"}
    counted, refused = split(
        await fire(fake_discord, lambda _: fake_discord.send("cosmos roll", options, user="player"))
    )
    # Serially: the first 50 rolls count (1/50 … 50/50 rolls used, each once) and the 50th
    # loses it; the other 450 find it over and roll nothing.
    assert (len(counted), len(refused)) == (50, N - 50)
    assert all("The challenge **Hold** here is over (lost)" in r.content for r in refused)
    progress = [
        re.search(r"(\d+) of 50 rolls used", r.embeds[0]["fields"][-1]["value"]) for r in counted
    ]
    used = sorted(int(found[1]) for found in progress if found)
    assert used == list(range(1, 51))
    # Replay the logged rolls in the order they were committed (their ids) by hand.
    tally = 0
    for roll_id in range(1, 51):
        logged = await logged_roll(dicebot.storage, roll_id)
        tally = max(0, tally + challenge_points(logged.payload["result"]["roll"]["kept"]))
    assert await dicebot.storage.rolls.get(51) is None
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    rows = await dicebot.storage.database.fetch_all(
        "SELECT successes, rolls_used, status FROM cosmos_challenges WHERE campaign_id = ?",
        (campaign.id,),
    )
    assert [tuple(row) for row in rows] == [(tally, 50, ChallengeStatus.LOST.value)]
    [announcement] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert announcement["embeds"][0]["title"] == "🪦 Challenge lost: Hold"


# --- Aethelgard: Stress on one character


async def test_500_concurrent_stress_adds_stop_exactly_at_the_maximum(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_aethelgard(fake_discord)
    await create_aethelgard(fake_discord)
    options = {"character": "Ysolde", "amount": 1}
    added, refused = split(
        await fire(fake_discord, lambda _: fake_discord.send("aethelgard stress add", options))
    )
    # Serially: 0 → 1 → … → 200 (the house maximum), each step once; 300 adds refused.
    assert (len(added), len(refused)) == (200, N - 200)
    titles = sorted((r.embeds[0]["title"] for r in added), key=lambda t: int(t.split()[-1]))
    assert titles == [f"Ysolde: Psychic Stress {n} → {n + 1}" for n in range(200)]
    assert all("stress is 200; changing it by +1 would leave 0–200" in r.content for r in refused)
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    ysolde = await dicebot.storage.database.fetch_one("SELECT id FROM characters")
    assert ysolde is not None
    stress = await dicebot.storage.tracks.value(campaign, "stress", character_id=ysolde["id"])
    assert stress == 200


# --- Enchanted Realms: one reroll per roll; the reroll trait given once


async def test_500_concurrent_trait_adds_of_one_player_give_it_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"})
    player = fake_discord.users["player"]
    given, refused = split(
        await fire(fake_discord, lambda _: fake_discord.send("realms trait add", {"user": player}))
    )
    # Serially: the first gives it, every other finds it held already.
    assert (len(given), len(refused)) == (1, N - 1)
    assert given[0].content.startswith(f"🍀 <@{player.id}> has the reroll trait")
    assert all("already has the reroll trait here" in reply.content for reply in refused)
    rows = await dicebot.storage.database.fetch_all("SELECT user_id, trait FROM realms_traits")
    assert [tuple(row) for row in rows] == [(player.id, "reroll")]


async def test_500_concurrent_rerolls_of_one_roll_reroll_it_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("realms check", {"die": "d20", "kind": "save"}, user="player")
    rerolled, refused = split(
        await fire(
            fake_discord,
            lambda _: fake_discord.send("realms reroll", {"position": 1}, user="player"),
        )
    )
    assert (len(rerolled), len(refused)) == (1, N - 1)
    assert all("rerolled already" in reply.content for reply in refused)
    assert (await logged_roll(dicebot.storage, 2)).payload["rerolled_from"] == 1
    assert await dicebot.storage.rolls.get(3) is None
