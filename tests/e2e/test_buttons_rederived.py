"""Issue 37: the buttons under a roll are derived anew from the stored state whenever it changes, on
the message that shows them (docs/players/index.md, "Buttons and announcements"): a GM's grant, a
rest, a milestone, an advance, a Pressure change, a spend on another roll, inspiration awarded; a
defender's own Luck ends when they roll again; a Luck spend typed at once edits the roll's one
message; concurrent changes end with the buttons of the serial result."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from bot.client import DiceBot
from cogs.sinew.luck import LuckCommands
from rules import sinew
from rules.randomness import new_rng
from tests.e2e import test_sixpool as six
from tests.e2e.test_buttons import restarted
from tests.e2e.test_sinew import (
    character,
    create,
    labels,
    seed_where,
    start_sinew,
    store,
)
from tests.e2e.test_sinew_audit import attack_brakka, defender_ids, hit_on_brakka
from tests.expect import sign
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

STR = 12  # Brakka's STR (tests.e2e.test_sinew.BALANCED)


async def set_sheet(fake: FakeDiscord, bot: DiceBot, name: str, **changes: Any) -> None:
    """Change a stored sheet behind the bot's back (the set-up, not what is tested)."""
    found = await character(fake, bot, name)
    await store(bot).update(found, lambda sheet: replace(sheet, **changes))


async def brakka_fails(
    fake: FakeDiscord, bot: DiceBot, tokens: int, needs: Callable[[int], bool]
) -> tuple[Reply, int]:
    """Brakka (STR 12, ``tokens`` Luck tokens) fails a STR test that ``needs`` tokens to turn;
    return the roll's reply and the tokens that turn it."""
    await start_sinew(fake)
    await create(fake, "Brakka")
    await set_sheet(fake, bot, "Brakka", luck_tokens=tokens)
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and needs(r.roll - STR), STR)
    needed = sinew.test(new_rng(seed), STR).roll - STR  # by hand: the die down to the score
    bot.rng = new_rng(seed)
    reply = await fake.invoke("sinew test", {"attribute": "str"}, user="player")
    return reply, needed


async def settled(fake: FakeDiscord, bot: DiceBot) -> None:
    await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


# --- Sinew: Luck tokens and Pressure change outside a roll


async def test_rule_gm_luck_grant_rederives_the_latest_rolls_luck_buttons_in_place(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, needed = await brakka_fails(fake_discord, dicebot, 2, lambda n: 4 <= n <= 6)
    assert labels(reply) == ["Spend 1 Luck"]  # 2 tokens can't pay the turning spend
    grant = {"character": "Brakka", "tokens": 5, "reason": "a lucky find"}
    await fake_discord.invoke("sinew luck grant", grant, user="gm")
    turning = ["Spend 1 Luck", f"Spend {needed} (turns it)"]
    await fake_discord.wait_until(lambda: labels(reply) == turning, "the turning spend to show")
    # The roll's own message, edited: the channel has only the grant's announcement.
    assert reply.embeds[0]["footer"]["text"] == "Roll #1"
    [announced] = fake_discord.channel_messages(fake_discord.channel_id)
    assert "Brakka" in str(announced["embeds"])
    pressed = await fake_discord.click(reply, "sinew:luck:1:n", user="player")
    assert pressed.embeds[0]["title"].startswith("✅ Success")
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 7 - needed


async def test_rule_a_grant_while_the_rolls_message_is_being_sent_still_shows_on_it(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The roll's buttons are derived before its message is sent; a grant stored meanwhile
    # finds no message id yet: it waits for the message, then derives them anew.
    rolls = dicebot.storage.rolls
    remember = rolls.set_message

    def waited_for() -> bool:
        return dicebot.shown_messages.awaited(1)

    async def held(roll_id: int, message_id: int) -> None:
        await fake_discord.wait_until(waited_for, "the grant to wait for the roll's message")
        await remember(roll_id, message_id)

    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await set_sheet(fake_discord, dicebot, "Brakka", luck_tokens=2)
    monkeypatch.setattr(rolls, "set_message", held)
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - STR == 4, STR)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert labels(reply) == ["Spend 1 Luck"]  # derived from 2 tokens
    grant = {"character": "Brakka", "tokens": 2, "reason": "a lucky find"}
    await fake_discord.invoke("sinew luck grant", grant, user="gm")
    turning = ["Spend 1 Luck", "Spend 4 (turns it)"]
    await fake_discord.wait_until(lambda: labels(reply) == turning, "the turning spend to show")


@pytest.mark.parametrize(
    ("command", "options", "user", "build_points", "expected"),
    [
        ("sinew rest", {"kind": "calm"}, "player", 0, ["Spend 1 Luck"]),  # +1 token
        ("sinew milestone", {"character": "Brakka"}, "gm", 0, ["Spend 1 Luck", "turns"]),
        ("sinew advance", {"score": "lck"}, "player", 2, ["Spend 1 Luck"]),  # LCK 11: +1
    ],
)
async def test_rule_tokens_regained_outside_a_roll_offer_the_spends_they_pay_for(
    fake_discord: FakeDiscord,
    dicebot: DiceBot,
    command: str,
    options: dict[str, Any],
    user: str,
    build_points: int,
    expected: list[str],
) -> None:
    reply, needed = await brakka_fails(fake_discord, dicebot, 0, lambda n: 2 <= n <= 5)
    assert reply.original.custom_ids() == ["roll:again:1"]  # no token: nothing to offer
    await set_sheet(fake_discord, dicebot, "Brakka", build_points=build_points)
    answer = await fake_discord.invoke(command, options, user=user)
    assert not answer.ephemeral, answer.content
    want = [label.replace("turns", f"Spend {needed} (turns it)") for label in expected]
    await fake_discord.wait_until(lambda: labels(reply) == want, f"{want} after /{command}")
    await settled(fake_discord, dicebot)
    assert labels(reply) == want and reply.embeds[0]["footer"]["text"] == "Roll #1"


async def test_rule_pressure_that_prices_a_spend_out_of_reach_takes_its_button_off(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await brakka_fails(fake_discord, dicebot, 1, lambda n: 2 <= n <= 5)
    assert labels(reply) == ["Spend 1 Luck"]
    # The party's Pressure 4 weighs on Brakka: a spend costs 1 more, 2 tokens; Brakka has 1.
    await fake_discord.invoke("sinew pressure add", {"amount": 4}, user="gm")
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:1"], "the unpayable spend to go"
    )
    await fake_discord.invoke("sinew pressure remove", {"amount": 4}, user="gm")
    await fake_discord.wait_until(lambda: labels(reply) == ["Spend 1 Luck"], "it to come back")
    refused = await fake_discord.invoke("sinew luck spend", {"tokens": 2}, user="player")
    assert refused.ephemeral  # what the buttons offer is what can be paid: 1, not 2
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 1


async def test_rule_a_defenders_spend_rederives_the_buttons_of_their_own_latest_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Brakka's failed test (roll 1) offers the turning spend; then the GM's NPC attacks Brakka
    # (roll 2) and Brakka defends with Luck: the tokens left no longer turn roll 1.
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - STR == 7, STR)
    dicebot.rng = new_rng(seed)
    test = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert labels(test) == ["Spend 1 Luck", "Spend 7 (turns it)"]
    hit, needed = await attack_brakka(fake_discord, dicebot, lambda tokens: 4 <= tokens <= 7)
    defended = await fake_discord.click(hit, "sinew:dluck:2:n", user="player")
    assert defended.embeds[0]["title"].startswith("❌ Brakka wins · ")
    tokens = (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens
    assert tokens == 10 - needed < 7
    await fake_discord.wait_until(lambda: labels(test) == ["Spend 1 Luck"], "roll 1's to go")


async def test_rule_a_players_rest_rederives_the_gms_roll_for_their_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await set_sheet(fake_discord, dicebot, "Brakka", luck_tokens=3)
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - STR == 4, STR)
    dicebot.rng = new_rng(seed)
    options = {"attribute": "str", "character": "Brakka"}
    reply = await fake_discord.invoke("sinew test", options, user="gm")  # Brakka's Luck pays
    assert labels(reply) == ["Spend 1 Luck"]
    await fake_discord.invoke("sinew rest", {"kind": "calm"}, user="player")  # 4 tokens
    turning = ["Spend 1 Luck", "Spend 4 (turns it)"]
    await fake_discord.wait_until(lambda: labels(reply) == turning, "the GM's roll to offer it")


# --- Sinew: a defender's own Luck ends when either side rolls again


async def test_rule_defenders_luck_buttons_go_when_the_defender_rolls_again(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await hit_on_brakka(fake_discord, dicebot)
    assert defender_ids(reply) == ["sinew:dluck:1:1", "sinew:dluck:1:n"]
    await fake_discord.invoke("roll", {"expression": "1d6"}, user="player")  # any roll
    await fake_discord.wait_until(lambda: defender_ids(reply) == [], "Brakka's buttons to go")
    assert reply.original.custom_ids() == ["roll:again:1"]  # the roller's own stay (an NPC: none)


async def test_rule_defenders_luck_buttons_go_when_the_attacker_rolls_again(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await hit_on_brakka(fake_discord, dicebot)
    await fake_discord.invoke("roll", {"expression": "1d6"}, user="gm")
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:1"], "every Luck button to go"
    )


async def test_rule_defenders_buttons_kept_over_a_restart_go_when_pressed_too_late(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await hit_on_brakka(fake_discord, dicebot)
    async with restarted(fake_discord, dicebot, seed=5) as bot:
        # What the bot kept in memory is gone: the defender's roll can't find the message...
        await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
        await settled(fake_discord, bot)
        # ...so the press does: refused, and the message derived anew without them.
        late = await fake_discord.click(reply, "sinew:dluck:1:1", user="player", stale_client=True)
        assert late.ephemeral and "You have rolled again here since roll #1" in late.content
        await fake_discord.wait_until(lambda: defender_ids(reply) == [], "the buttons to go")


# --- Sinew: a Luck spend typed at once


async def test_rule_typed_luck_spend_before_the_rolls_message_is_stored_edits_it_in_place(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    # Hold the roll's message id back (it is stored just after the reply) until the spend is
    # stored and goes looking for the roll's message (reads the roll, or waits for it to be
    # shown), as a spend typed within milliseconds of the roll finds it.
    rolls, cog = dicebot.storage.rolls, dicebot.get_cog("SinewCog")
    assert isinstance(cog, LuckCommands)
    remember, spend, get = rolls.set_message, cog.luck_store.spend, rolls.get
    spent, looked = asyncio.Event(), asyncio.Event()

    def looking() -> bool:
        return looked.is_set() or dicebot.shown_messages.awaited(1)

    async def held(roll_id: int, message_id: int) -> None:
        await fake_discord.wait_until(looking, "the spend to look for the roll's message")
        await remember(roll_id, message_id)

    async def spending(*args: Any, **kwargs: Any) -> Any:
        try:
            return await spend(*args, **kwargs)
        finally:
            spent.set()

    async def getting(roll_id: int) -> Any:
        if roll_id == 1 and spent.is_set():
            looked.set()
        return await get(roll_id)

    monkeypatch.setattr(rolls, "set_message", held)
    monkeypatch.setattr(rolls, "get", getting)
    monkeypatch.setattr(cog.luck_store, "spend", spending)
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - STR == 4, STR)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    logged = await rolls.get(1)
    assert logged is not None and logged.message_id is None  # not stored yet
    typed = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert typed.ephemeral and typed.content.startswith("🍀 Luck spent on roll #1"), typed.content
    # The roll's one message shows the spend, its buttons priced anew; no second copy.
    assert reply.embeds[0]["footer"]["text"] == "Roll #2"
    assert labels(reply) == ["Spend 1 Luck", "Spend 3 (turns it)"]
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


# --- Six-pool: inspiration awarded after the roll


async def test_rule_inspiration_awarded_after_a_roll_offers_its_die_rerolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await six.start(fake_discord)
    await six.create(fake_discord)
    old = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 15}, user="player")
    reply = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 15}, user="player")
    assert reply.original.custom_ids() == ["roll:again:2"]  # no inspiration: no reroll
    player = fake_discord.users["player"]
    await fake_discord.invoke("sixpool inspire", {"user": player}, user="gm")
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:2", "sixpool:reroll:2:0"],
        "the latest roll's reroll to show",
    )
    await settled(fake_discord, dicebot)
    assert old.original.custom_ids() == ["roll:again:1"]  # only the latest roll: not roll 1
    dicebot.rng = new_rng(7)
    pressed = await fake_discord.click(reply, "sixpool:reroll:2:0", user="player")
    assert pressed.original.custom_ids() == ["roll:again:3"]  # inspiration spent
    # Inspired again: the rerolled roll (its message remembered) offers its die once more.
    await fake_discord.invoke("sixpool inspire", {"user": player}, user="gm")
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:3", "sixpool:reroll:3:0"],
        "the rerolled roll's reroll to show",
    )


async def test_rule_a_contest_roll_takes_the_die_rerolls_off_the_rollers_older_message(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await six.start(fake_discord)
    await six.create(fake_discord)
    await fake_discord.invoke("sixpool inspire", {"user": fake_discord.users["player"]}, user="gm")
    check = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 15}, user="player")
    assert check.original.custom_ids() == ["roll:again:1", "sixpool:reroll:1:0"]
    contest = {"pool": "DEX", "vs_modifier": 4, "spend": 0}
    await fake_discord.invoke("sixpool contest", contest, user="player")  # the latest roll now
    await fake_discord.wait_until(
        lambda: check.original.custom_ids() == ["roll:again:1"], "roll 1's rerolls to go"
    )
    assert (await six.character(fake_discord, dicebot)).sheet.inspired  # still held


# --- Concurrency


async def test_concurrent_grants_and_rests_end_with_the_buttons_of_the_serial_result(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, needed = await brakka_fails(fake_discord, dicebot, 0, lambda n: n == 5)
    # Serially: 4 grants of 1 and 1 calm rest (+1) give 5 tokens: the turning spend shows.
    # Any edit made from a state read before the last change would leave it off.
    grant = {"character": "Brakka", "tokens": 1, "reason": "fortune"}

    def change(n: int) -> Awaitable[Reply]:
        if n == 2:
            return fake_discord.send("sinew rest", {"kind": "calm"}, user="player")
        return fake_discord.send("sinew luck grant", grant, user="gm")

    replies = await asyncio.gather(*(change(n) for n in range(5)))
    await fake_discord.wait_answered(list(replies))
    await settled(fake_discord, dicebot)
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == needed == 5
    assert labels(reply) == ["Spend 1 Luck", "Spend 5 (turns it)"]


async def test_concurrent_spends_and_grants_end_with_the_roll_and_buttons_of_the_serial_result(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, needed = await brakka_fails(fake_discord, dicebot, 3, lambda n: n == 5)
    assert labels(reply) == ["Spend 1 Luck"]  # 3 tokens don't turn a 5
    # Serially, in any order: two spends of 1 (always payable from 3) and two grants of 1 leave
    # 3 tokens and a die 2 lower, which 3 tokens turn; the message shows the second spend.
    grant = {"character": "Brakka", "tokens": 1, "reason": "fortune"}
    changes = [
        fake_discord.send("sinew luck grant", grant, user="gm"),
        fake_discord.send("sinew luck spend", {"tokens": 1}, user="player"),
        fake_discord.click(reply, "sinew:luck:1:1", user="player", stale_client=True),
        fake_discord.send("sinew luck grant", grant, user="gm"),
    ]
    replies = await asyncio.gather(*changes)
    await fake_discord.wait_answered(list(replies))
    await settled(fake_discord, dicebot)
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 3
    assert reply.embeds[0]["footer"]["text"] == "Roll #3"
    # The die, 2 Luck off it (two spends of 1), against STR: the dice line (issue 53).
    die = STR + needed
    assert reply.embeds[0]["description"].split("\n")[0] == (
        f"🎲 1d20: **{die}** − 2 Luck = {die - 2} vs STR {STR}, margin {sign(STR - (die - 2))}"
    )
    spent = reply.embeds[0]["fields"][-1]
    assert spent["name"] == "Luck spent" and spent["value"].startswith("−1 on the die for 1 token;")
    assert labels(reply) == ["Spend 1 Luck", f"Spend {needed - 2} (turns it)"]
