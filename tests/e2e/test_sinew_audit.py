"""`/sinew` after the rules audit, end to end through the fake Discord (README, Rules notes:
Sinew & Steel): Luck buttons the roller can pay, texts, NPC scores, the defender's Luck, the
GM's windfall, boons, armour and the defender's advantage."""

from __future__ import annotations

from dataclasses import replace

from bot.client import DiceBot
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.test_sinew import (
    TOUGH,
    character,
    create,
    labels,
    seed_where,
    start_sinew,
    store,
)
from tests.fakediscord.server import FakeDiscord

# --- Luck buttons offer only what the roller can pay


async def test_rule_luck_buttons_offer_only_what_the_roller_can_pay(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Tank", TOUGH)  # STR 6
    tank = await character(fake_discord, dicebot, "Tank")
    await store(dicebot).update(tank, lambda sheet: replace(sheet, luck_tokens=2))
    seed = seed_where(lambda r: not r.natural_twenty and r.roll - 6 >= 3, 6)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert labels(reply) == ["Spend 1 Luck"]  # turning it costs more than the 2 held
    tank = await character(fake_discord, dicebot, "Tank")
    await store(dicebot).update(tank, lambda sheet: replace(sheet, luck_tokens=0))
    dicebot.rng = new_rng(seed)
    broke = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert broke.embeds[0]["title"].startswith("❌ Failure")
    assert broke.message.custom_ids() == ["roll:again:2"]
    assert sinew.test(new_rng(seed), 6).roll - 6 >= 3
