"""`/sinew` after the rules audit, end to end through the fake Discord (README, Rules notes:
Sinew & Steel): Luck buttons the roller can pay, texts, NPC scores, the defender's Luck, the
GM's windfall, boons, armour and the defender's advantage."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.client import DiceBot
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.e2e.test_sinew import (
    TOUGH,
    character,
    contest_seed,
    create,
    labels,
    seed_where,
    start_sinew,
    store,
)
from tests.e2e.test_sinew_pressure import add, d6_seed
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


# --- Texts: the attribute's name, what was healed, who a Crisis strikes, why no Luck


def fields_of(embed: dict[str, Any]) -> dict[str, str]:
    return {field["name"]: field["value"] for field in embed["fields"]}


async def test_rule_contest_results_name_each_sides_attribute(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    await create(fake_discord, "Vex", TOUGH, user="gm")  # INT 6
    versus = {"vs_user": fake_discord.users["gm"], "vs_attribute": "int"}
    opposed = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", **versus}, user="player"
    )
    fields = fields_of(opposed.embeds[0])
    assert "vs STR 12" in fields["Brakka"] and "vs INT 6" in fields["Vex"]
    assert "score" not in fields["Brakka"] + fields["Vex"]
    attack = await fake_discord.invoke(
        "sinew attack", {"attribute": "str", "edge": "light", **versus}, user="player"
    )
    fields = fields_of(attack.embeds[0])
    assert "vs STR 12" in fields["Brakka"] and "vs INT 6" in fields["Vex"]
    # A defender given by a bare score has no attribute to name.
    npc = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 14}, user="player"
    )
    assert "vs score 14" in fields_of(npc.embeds[0])["Defender"]


async def test_rule_contest_after_luck_still_names_the_attribute(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    seed = contest_seed(lambda r: r.defender.roll > 11 and 14 <= r.attacker.roll <= 17, 12, 11)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 11}, user="player"
    )
    pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
    assert "Luck vs STR 12" in fields_of(pressed.embeds[0])["Brakka"]


async def test_rule_heal_says_what_was_restored(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Wren")  # STA 5
    hurt = await fake_discord.invoke("sinew damage", {"character": "Wren", "amount": 4})
    assert hurt.embeds[0]["title"] == "Wren takes 4 (5 → 1)"
    healed = await fake_discord.invoke("sinew heal", {"character": "Wren", "amount": 9})
    # 9 asked, but Stamina stops at the STA score: 1 → 5 restores 4.
    assert healed.embeds[0]["title"] == "Wren heals 4 (1 → 5)"
    again = await fake_discord.invoke("sinew damage", {"character": "Wren", "amount": 9})
    assert again.embeds[0]["title"] == "Wren takes 5 (5 → 0)"


async def test_rule_party_crisis_says_who_is_struck(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await create(fake_discord, "Vex", TOUGH, user="gm")
    await add(fake_discord, 4)
    dicebot.rng = new_rng(d6_seed(1))  # Possession: no Stamina lost, so only "Struck" names them
    await add(fake_discord, 1)
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 3)
    crisis = posted[2]["embeds"][0]
    assert crisis["title"].startswith("💥 CRISIS · The party")
    assert fields_of(crisis)["Struck"] == "Every character: Brakka, Vex"


async def test_rule_luck_on_a_tamper_test_is_refused_saying_why(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # INT 7
    dicebot.rng = new_rng(seed_where(lambda r: not r.success and not r.natural_twenty, 7))
    await fake_discord.invoke("sinew tamper", {"attribute": "int"}, user="player")
    refused = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert refused.ephemeral
    assert "Luck can't change a tamper or cleansing-rite test (house rule)" in refused.content
    assert "its Pressure was applied when it was rolled" in refused.content
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10
    assert await dicebot.storage.rolls.get(2) is None


# --- The GM rolls NPCs by a bare score


async def test_rule_gm_rolls_an_npc_test_by_score(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    options = {"attribute": "int", "score": 14, "hidden": True}
    reply = await fake_discord.invoke("sinew test", options, user="gm")  # the GM has no character
    expected = sinew.test(new_rng(DICE_SEED), 14)
    assert reply.ephemeral and reply.embeds[0]["title"].endswith("NPC: INT test")
    assert f"vs INT 14: margin **{expected.margin:+d}**" in reply.embeds[0]["description"]
    assert reply.message.custom_ids() == ["roll:reveal:1"]  # an NPC has no Luck to spend
    logged = await dicebot.storage.rolls.get(1)
    assert logged.kind == "sinew.test" and logged.payload["options"]["score"] == 14
    refused = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="gm")
    assert refused.ephemeral and "NPCs have no Luck tokens to spend" in refused.content
    assert await dicebot.storage.rolls.get(2) is None


async def test_rule_npc_score_is_for_gms_and_not_with_a_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    player = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "score": 14}, user="player"
    )
    assert player.ephemeral and "Only a GM can roll for an NPC by `score`" in player.content
    both = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "score": 14, "character": "Brakka"}, user="gm"
    )
    assert both.ephemeral and "Give `score` (an NPC) or `character`, not both." in both.content
    contest = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "score": 14, "vs_score": 9}, user="player"
    )
    assert contest.ephemeral and "Only a GM can roll for an NPC" in contest.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_rule_npc_attacks_a_players_character_by_score(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # REF 11, STA 5, armour 0
    edge = sinew.Edge.STANDARD
    seed = next(s for s in range(10_000) if sinew.attack(new_rng(s), 14, 11, edge=edge).hit)
    expected = sinew.attack(new_rng(seed), 14, 11, edge=edge)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sinew attack",
        {
            "attribute": "str",
            "score": 14,
            "edge": "standard",
            "vs_user": fake_discord.users["player"],
            "vs_attribute": "ref",
        },
        user="gm",
    )
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"].startswith("🗡️ Attack · NPC vs Brakka")
    fields = fields_of(embed)
    assert "vs STR 14" in fields["NPC"] and "vs REF 11" in fields["Brakka"]
    after = 5 - expected.damage_taken
    assert fields["Brakka's Stamina"].startswith(f"{after}/5")
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == after
    npc_opposed = await fake_discord.invoke(
        "sinew opposed", {"attribute": "emp", "score": 9, "vs_score": 12}, user="gm"
    )
    assert npc_opposed.embeds[0]["title"].startswith("⚔️ Opposed roll · NPC vs Defender")
