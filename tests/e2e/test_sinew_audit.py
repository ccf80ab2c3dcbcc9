"""`/sinew` after the rules audit, end to end through the fake Discord (docs/players/sinew.md,
"Rules notes"): Luck buttons the roller can pay, texts, NPC scores, the defender's Luck, the GM's
windfall, boons, armour and the defender's advantage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from bot.client import DiceBot
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, hold_message_of
from tests.e2e.test_buttons import restarted
from tests.e2e.test_sinew import (
    TOUGH,
    character,
    contest_seed,
    create,
    faces,
    labels,
    line_of,
    seed_where,
    start_sinew,
    store,
)
from tests.e2e.test_sinew_pressure import add, d6_seed
from tests.expect import logged_roll, sign
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

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
    assert broke.original.custom_ids() == ["roll:again:2"]
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
    brakka, vex = line_of(opposed.embeds[0], "Brakka"), line_of(opposed.embeds[0], "Vex")
    assert "vs STR 12 (" in brakka and "vs INT 6 (" in vex
    assert "score" not in brakka + vex
    attack = await fake_discord.invoke(
        "sinew attack", {"attribute": "str", "edge": "light", **versus}, user="player"
    )
    assert "vs STR 12, margin " in line_of(attack.embeds[0], "Brakka")
    assert "vs INT 6, margin " in line_of(attack.embeds[0], "Vex")
    # A defender given by a bare score has no attribute to name.
    npc = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 14}, user="player"
    )
    assert "vs score 14 (" in line_of(npc.embeds[0], "Defender")


async def test_rule_contest_after_luck_still_names_the_attribute(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    seed = contest_seed(lambda r: r.defender.roll > 11 and 14 <= r.attacker.roll <= 17, 12, 11)
    die = sinew.opposed(new_rng(seed), 12, 11).attacker.roll
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 11}, user="player"
    )
    pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
    assert line_of(pressed.embeds[0], "Brakka") == (
        f"Brakka: 1d20: **{die}** − 1 Luck = {die - 1} vs STR 12 (❌ Failure)"
    )


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
    assert reply.ephemeral and f"NPC: INT test · roll {expected.roll}" in reply.embeds[0]["title"]
    assert reply.embeds[0]["description"].split("\n")[0] == (
        f"🎲 1d20: {faces(expected)} vs INT 14, margin {sign(expected.margin)}"
    )
    assert reply.original.custom_ids() == ["roll:reveal:1"]  # an NPC has no Luck to spend
    logged = await logged_roll(dicebot.storage, 1)
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
    assert " · NPC: attack vs Brakka · " in embed["title"]
    assert embed["title"].endswith(f" · {expected.damage_taken} damage taken")
    attacker, defender = expected.contest.attacker, expected.contest.defender
    assert line_of(embed, "NPC").startswith(
        f"NPC: 1d20: {faces(attacker)} vs STR 14, margin {sign(attacker.margin)} ("
    )
    assert line_of(embed, "Brakka").startswith(
        f"Brakka: 1d20: {faces(defender)} vs REF 11, margin {sign(defender.margin)} ("
    )
    fields = fields_of(embed)
    after = 5 - expected.damage_taken
    assert fields["Brakka's Stamina"].startswith(f"{after}/5")
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == after
    npc_opposed = await fake_discord.invoke(
        "sinew opposed", {"attribute": "emp", "score": 9, "vs_score": 12}, user="gm"
    )
    assert " · NPC: opposed roll vs Defender · " in npc_opposed.embeds[0]["title"]


# --- The defender's Luck


def npc_attack_options(fake: FakeDiscord, **extra: Any) -> dict[str, Any]:
    """The GM's NPC (STR 14) against Brakka's REF 11."""
    return {
        "attribute": "str",
        "score": 14,
        "vs_user": fake.users["player"],
        "vs_attribute": "ref",
        **extra,
    }


def defender_ids(reply: Reply) -> list[str]:
    return [i for i in reply.original.custom_ids() if i.startswith("sinew:dluck:")]


async def test_rule_defender_spends_luck_on_their_own_die_by_button(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # REF 11, 10 tokens
    # The NPC (14) succeeds with margin 2-6 and Brakka fails: Brakka needs margin ≥ the NPC's
    # (a tie holds), i.e. a die of 11 - margin, from a die that takes 2-10 tokens to get there.
    seed = contest_seed(
        lambda r: (
            8 <= r.attacker.roll <= 12
            and 2 <= r.defender.roll - (11 - (14 - r.attacker.roll)) <= 10
            and r.defender.roll < 20
        ),
        14,
        11,
    )
    contest = sinew.opposed(new_rng(seed), 14, 11)
    needed = contest.defender.roll - (11 - contest.attacker.margin)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew opposed", npc_attack_options(fake_discord), user="gm")
    assert reply.embeds[0]["title"].startswith("✅ NPC wins · ")
    # No roller's buttons (an NPC has no Luck); Brakka's own, which only Brakka may press.
    assert reply.original.custom_ids() == ["roll:again:1", "sinew:dluck:1:1", "sinew:dluck:1:n"]
    assert [b for b in labels_all(reply) if b.startswith("Brakka")] == [
        "Brakka: Spend 1 Luck",
        f"Brakka: Spend {needed} (wins it)",
    ]
    refused = await fake_discord.click(reply, "sinew:dluck:1:n", user="gm")
    player_id = fake_discord.users["player"].id
    assert refused.ephemeral and f"Only <@{player_id}>, who defends in roll #1" in refused.content
    pressed = await fake_discord.click(reply, "sinew:dluck:1:n", user="player")
    embed = pressed.embeds[0]
    assert embed["title"].startswith("❌ Brakka wins · ")
    assert line_of(embed, "Brakka") == (
        f"Brakka: 1d20: **{contest.defender.roll}** − {needed} Luck = "
        f"{contest.defender.roll - needed} vs REF 11 (✅ Success)"
    )
    assert fields_of(embed)["Luck spent by Brakka"].endswith(f"{10 - needed}/10 left")
    assert pressed.original.custom_ids() == ["roll:again:2"]  # Brakka wins: nothing left to buy
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - needed
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.user_id == fake_discord.users["gm"].id  # the roll stays its roller's
    assert logged.payload["luck_of"] == 1 and logged.payload["luck_by"] == player_id


async def test_rule_defenders_luck_spend_pays_the_pressure_surcharge_at_step_4(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Brakka at Pressure 4 defends with Luck: each spend costs one token more (house rule,
    +1 a spend at step 4), the defender's spend as the roller's."""
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # REF 11, 10 tokens
    await add(fake_discord, 4, "Brakka")
    seed = contest_seed(
        lambda r: (
            8 <= r.attacker.roll <= 12
            and 2 <= r.defender.roll - (11 - (14 - r.attacker.roll)) <= 8
            and r.defender.roll < 20
        ),
        14,
        11,
    )
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew opposed", npc_attack_options(fake_discord), user="gm")
    assert "sinew:dluck:1:1" in reply.original.custom_ids()
    pressed = await fake_discord.click(reply, "sinew:dluck:1:1", user="player")
    assert not pressed.ephemeral
    # One token moves the die by 1; at Pressure 4 it costs 1 + 1.
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - 2
    assert fields_of(pressed.embeds[0])["Luck spent by Brakka"].endswith("8/10 left")


def labels_all(reply: Reply) -> list[str]:
    return [button["label"] for row in reply.components for button in row["components"]]


def within_ten(tokens: int) -> bool:
    return tokens <= 10


def brakka_hit_seed(needing: Callable[[int], bool] = within_ten) -> int:
    """A seed where the NPC (14) hits Brakka (11) by a margin of 2-10 (no natural 1), and
    the tokens Brakka's failed die needs to make it a miss pass ``needing`` (at most 10)."""
    return contest_seed(
        lambda r: (
            4 <= r.attacker.roll <= 12
            and 11 < r.defender.roll < 20
            and needing(r.defender.roll - (11 - r.attacker.margin))
        ),
        14,
        11,
    )


async def hit_on_brakka(fake: FakeDiscord, bot: DiceBot) -> tuple[Reply, int]:
    """The GM's NPC (STR 14) hits Brakka (REF 11, STA 5, no armour) with a standard edge:
    2 damage. Returns the reply and the tokens that make it a miss."""
    await start_sinew(fake)
    await create(fake, "Brakka")
    return await attack_brakka(fake, bot)


async def attack_brakka(
    fake: FakeDiscord, bot: DiceBot, needing: Callable[[int], bool] = within_ten
) -> tuple[Reply, int]:
    """``hit_on_brakka`` in a campaign already started, Brakka's tokens to a miss passing
    ``needing``."""
    seed = brakka_hit_seed(needing)
    contest = sinew.opposed(new_rng(seed), 14, 11)
    bot.rng = new_rng(seed)
    reply = await fake.invoke("sinew attack", npc_attack_options(fake, edge="standard"), user="gm")
    return reply, contest.defender.roll - (11 - contest.attacker.margin)


async def test_rule_defender_turning_a_hit_into_a_miss_gives_back_the_stamina_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, needed = await hit_on_brakka(fake_discord, dicebot)
    assert reply.embeds[0]["title"].endswith(" · 2 damage taken")
    assert "\nDamage 2 (standard edge); soak 0 (armour 0)" in reply.embeds[0]["description"]
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 3
    assert defender_ids(reply) == ["sinew:dluck:1:1", "sinew:dluck:1:n"]
    # Two presses at once: one spend, the other refused (Brakka already wins).
    presses = await asyncio.gather(
        fake_discord.click(reply, "sinew:dluck:1:n", user="player", stale_client=True),
        fake_discord.click(reply, "sinew:dluck:1:n", user="player", stale_client=True),
    )
    await fake_discord.wait_answered(list(presses))
    refused = [press for press in presses if press.ephemeral]
    assert len(refused) == 1 and "already wins" in refused[0].content
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert (sheet.current_stamina, sheet.luck_tokens) == (5, 10 - needed)
    logged = await logged_roll(dicebot.storage, 2)
    fields = fields_of(logged.payload["embed"])
    assert logged.payload["embed"]["title"].endswith(" · 0 damage taken")
    assert "Damage" not in logged.payload["embed"]["description"]  # a miss: no damage to soak
    assert fields["Stamina given back"] == "+2: the hit became a miss"
    assert fields["Brakka's Stamina"] == "5/5"
    assert await dicebot.storage.rolls.get(3) is None


async def test_rule_defender_luck_ends_when_either_side_rolls_again(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply, _ = await hit_on_brakka(fake_discord, dicebot)
    await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")  # roll 2
    # The defender's own buttons go (issue 37); one still shown after a restart is refused
    # when pressed (tests/e2e/test_buttons_rederived.py).
    await fake_discord.wait_until(lambda: defender_ids(reply) == [], "Brakka's buttons to go")
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10
    assert await dicebot.storage.rolls.get(3) is None
    # Once the attacker rolls again, the buttons go.
    dicebot.rng = new_rng(brakka_hit_seed())
    options = npc_attack_options(fake_discord, edge="standard")
    second = await fake_discord.invoke("sinew attack", options, user="gm")  # roll 3
    assert defender_ids(second) == ["sinew:dluck:3:1", "sinew:dluck:3:n"]
    release = hold_message_of(dicebot, monkeypatch, 4)  # the press comes first
    await fake_discord.invoke("sinew test", {"attribute": "int", "score": 9}, user="gm")
    pressed = await fake_discord.click(second, "sinew:dluck:3:1", user="player")
    release.set()
    # Roll again only, as the GM's next roll leaves it once it goes on: the two edits agree.
    assert second.original.custom_ids() == ["roll:again:3"]
    [refusal] = await fake_discord.wait_followups(pressed)
    assert refusal.ephemeral and "Roll #3's roller has rolled again here" in refusal.content
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10


# --- GM windfall, boons, armour, the defender's advantage


async def test_rule_gm_windfall_grants_luck_with_a_reason_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # LCK 10
    brakka = await character(fake_discord, dicebot, "Brakka")
    await store(dicebot).update(brakka, lambda sheet: replace(sheet, luck_tokens=4))
    options = {"character": "Brakka", "tokens": 3, "reason": "Found a four-leaf clover"}
    refused = await fake_discord.invoke("sinew luck grant", options, user="player")
    assert refused.ephemeral and "Only a GM can grant Luck" in refused.content
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    reply = await fake_discord.invoke("sinew luck grant", options, user="gm")
    assert reply.ephemeral and reply.content == (
        "✅ Gave Brakka 3 Luck tokens (7/10). Announced in the channel."
    )
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    embed = posted["embeds"][0]
    assert embed["title"] == "🍀 Windfall · Brakka: +3 Luck"
    assert embed["description"] == "Luck 4 → **7**/10 tokens"
    assert fields_of(embed)["Why"] == "Found a four-leaf clover"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 7
    # Up to the cap: 7 + 5 gives 3.
    more = await fake_discord.invoke("sinew luck grant", {**options, "tokens": 5}, user="gm")
    assert more.content.startswith("✅ Gave Brakka 3 Luck tokens (10/10).")


async def test_twenty_concurrent_windfalls_end_at_the_cap_as_if_serial(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # LCK 10
    brakka = await character(fake_discord, dicebot, "Brakka")
    await store(dicebot).update(brakka, lambda sheet: replace(sheet, luck_tokens=0))
    options = {"character": "Brakka", "tokens": 1, "reason": "Fortune smiles"}
    replies = [await fake_discord.send("sinew luck grant", options, user="gm") for _ in range(20)]
    await fake_discord.wait_answered(replies)
    # Serially: ten grants of 1 (0 → 10), then ten at the cap that give nothing.
    gave = sorted(reply.content.split(" (")[0] for reply in replies)
    assert gave == ["✅ Gave Brakka 0 Luck tokens"] * 10 + ["✅ Gave Brakka 1 Luck token"] * 10
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 20)
    assert len(posted) == 20


async def test_rule_boons_are_added_and_removed_by_their_owner_or_a_gm(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await create(fake_discord, "Vex", TOUGH, user="gm")
    own = await fake_discord.invoke(
        "sinew boon add", {"text": "Favour of the tribe"}, user="player"
    )
    assert not own.ephemeral and own.embeds[0]["title"] == "🎁 Brakka: gained Favour of the tribe"
    gm = await fake_discord.invoke(
        "sinew boon add", {"text": "Enchanted blade", "character": "Brakka"}, user="gm"
    )
    assert gm.embeds[0]["description"] == "Boons:\n1. Favour of the tribe\n2. Enchanted blade"
    refused = await fake_discord.invoke(
        "sinew boon add", {"text": "Stolen luck", "character": "Vex"}, user="player"
    )
    assert refused.ephemeral and "Only a GM can change boons for another player's" in (
        refused.content
    )
    assert (await character(fake_discord, dicebot, "Vex")).sheet.boons == ()
    removed = await fake_discord.invoke("sinew boon remove", {"number": 1}, user="player")
    assert removed.embeds[0]["title"] == "🎁 Brakka: lost Favour of the tribe"
    missing = await fake_discord.invoke("sinew boon remove", {"number": 5}, user="player")
    assert missing.ephemeral
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.boons == ("Enchanted blade",)
    sheet = await fake_discord.invoke("sinew character sheet", {}, user="player")
    assert fields_of(sheet.embeds[0])["Boons"] == "1. Enchanted blade"


async def test_rule_sinew_boon_removed_by_number_other_than_the_first(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    for boon in ("Favour of the tribe", "Enchanted blade", "A debt owed"):
        await fake_discord.invoke("sinew boon add", {"text": boon}, user="player")
    removed = await fake_discord.invoke("sinew boon remove", {"number": 2}, user="player")
    assert removed.embeds[0]["title"] == "🎁 Brakka: lost Enchanted blade"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.boons == (
        "Favour of the tribe",
        "A debt owed",
    )
    by_gm = await fake_discord.invoke(
        "sinew boon remove", {"number": 2, "character": "Brakka"}, user="gm"
    )
    assert by_gm.embeds[0]["title"] == "🎁 Brakka: lost A debt owed"
    sheet = await fake_discord.invoke("sinew character sheet", {}, user="player")
    assert fields_of(sheet.embeds[0])["Boons"] == "1. Favour of the tribe"


async def test_rule_armour_changes_after_creation_by_its_owner_or_a_gm(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await create(fake_discord, "Vex", TOUGH, user="gm")
    own = await fake_discord.invoke("sinew armour", {"value": 2}, user="player")
    assert not own.ephemeral and own.embeds[0]["title"] == "🛡️ Brakka: armour 0 → 2"
    refused = await fake_discord.invoke(
        "sinew armour", {"value": 3, "character": "Vex"}, user="player"
    )
    assert refused.ephemeral and (await character(fake_discord, dicebot, "Vex")).sheet.armour == 0
    gm = await fake_discord.invoke("sinew armour", {"value": 3, "character": "Brakka"}, user="gm")
    assert gm.embeds[0]["title"] == "🛡️ Brakka: armour 2 → 3"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.armour == 3
    # An attack on Brakka meets the new armour.
    await fake_discord.invoke(
        "sinew attack",
        {
            "attribute": "str",
            "edge": "light",
            "vs_user": fake_discord.users["player"],
            "vs_attribute": "ref",
        },
        user="gm",
    )
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "sinew.attack" and logged.payload["result"]["armour"] == 3


async def test_rule_defender_advantage_and_disadvantage_on_contests(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    await create(fake_discord, "Vex", TOUGH, user="gm")  # REF 10
    blind = await fake_discord.invoke(
        "sinew opposed",
        {"attribute": "str", "vs_score": 11, "vs_disadvantage": True},
        user="player",
    )
    expected = sinew.opposed(new_rng(DICE_SEED), 12, 11, defender_disadvantage=True)
    margins = f"margins {sign(expected.attacker.margin)} vs {sign(expected.defender.margin)}"
    assert blind.embeds[0]["title"].endswith(f" · {margins}")
    assert line_of(blind.embeds[0], "Defender").startswith(
        f"Defender: 2d20, keep the higher (disadvantage): {faces(expected.defender)} vs score 11 ("
    )
    assert (await logged_roll(dicebot.storage, 1)).payload["options"]["vs_disadvantage"] is True
    dicebot.rng = new_rng(DICE_SEED)
    covered = await fake_discord.invoke(
        "sinew attack",
        {
            "attribute": "str",
            "edge": "light",
            "vs_user": fake_discord.users["gm"],
            "vs_attribute": "ref",
            "vs_advantage": True,
        },
        user="player",
    )
    expected = sinew.opposed(new_rng(DICE_SEED), 12, 10, defender_advantage=True)
    assert line_of(covered.embeds[0], "Vex").startswith(
        f"Vex: 2d20, keep the lower (advantage): {faces(expected.defender)} vs REF 10, "
        f"margin {sign(expected.defender.margin)} ("
    )


async def test_rule_both_sides_spend_on_one_result_in_turn(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12, 10 tokens
    await create(fake_discord, "Vex", TOUGH, user="gm")  # REF 10, STA 9, no armour
    # Brakka hits by a margin of 2-8 (die 4-10) and Vex fails with a die that 1-10 tokens
    # bring to 10 - margin (a tie holds for the defender).
    seed = contest_seed(
        lambda r: (
            4 <= r.attacker.roll <= 10
            and 10 < r.defender.roll < 20
            and r.defender.roll - (10 - r.attacker.margin) <= 10
        ),
        12,
        10,
    )
    contest = sinew.opposed(new_rng(seed), 12, 10)
    needed = contest.defender.roll - (10 - contest.attacker.margin)
    dicebot.rng = new_rng(seed)
    options = {
        "attribute": "str",
        "edge": "standard",
        "vs_user": fake_discord.users["gm"],
        "vs_attribute": "ref",
    }
    reply = await fake_discord.invoke("sinew attack", options, user="player")
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 7
    defended = await fake_discord.click(reply, "sinew:dluck:1:n", user="gm")
    assert defended.embeds[0]["title"].startswith("❌ Vex wins · ")
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 9
    # Brakka's buttons came back under the miss: one more token beats the tied margin.
    assert "sinew:luck:1:1" in defended.original.custom_ids()
    again = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert again.ephemeral and again.content.startswith("🍀 Luck spent on roll #1")
    assert reply.embeds[0]["title"].startswith("✅ Brakka wins · ")  # edited in place
    logged = await logged_roll(dicebot.storage, 3)
    shifts = logged.payload["result"]["contest"]
    assert (shifts["attacker"]["shift"], shifts["defender"]["shift"]) == (1, needed)
    vex = (await character(fake_discord, dicebot, "Vex")).sheet
    assert (vex.current_stamina, vex.luck_tokens) == (7, 10 - needed)
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 9


async def test_defender_gets_no_buttons_under_a_hidden_contest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    dicebot.rng = new_rng(brakka_hit_seed())
    options = npc_attack_options(fake_discord, edge="standard", hidden=True)
    reply = await fake_discord.invoke("sinew attack", options, user="gm")
    assert reply.ephemeral and defender_ids(reply) == []


async def test_concurrent_boons_and_armour_changes_end_as_if_serial(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    boons = await asyncio.gather(
        *(
            fake_discord.send("sinew boon add", {"text": f"Boon {n}"}, user="player")
            for n in range(sinew.BOONS_MAX + 2)
        )
    )
    await fake_discord.wait_answered(list(boons))
    # Serially: 20 fit, the 21st and 22nd are refused.
    assert sum(not reply.ephemeral for reply in boons) == sinew.BOONS_MAX
    assert all("at most 20 boons" in reply.content for reply in boons if reply.ephemeral)
    stored = (await character(fake_discord, dicebot, "Brakka")).sheet.boons
    assert len(stored) == sinew.BOONS_MAX and len(set(stored)) == sinew.BOONS_MAX
    armour = await asyncio.gather(
        *(fake_discord.send("sinew armour", {"value": n}, user="player") for n in (1, 2, 3))
    )
    await fake_discord.wait_answered(list(armour))
    # Each change reads the one before it: the before → after steps chain from 0.
    steps = {}
    for reply in armour:
        before, after = reply.embeds[0]["title"].split("armour ")[1].split(" → ")
        steps[int(before)] = int(after)
    value, seen = 0, []
    while value in steps:
        value = steps.pop(value)
        seen.append(value)
    assert sorted(seen) == [1, 2, 3] and not steps
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.armour == seen[-1]


async def test_defender_who_is_also_the_roller_spends_in_several_steps(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # The GM's NPC attacks the GM's own character: the defender's spends are steps of the roll,
    # not new rolls of the defender's, so the second press still works.
    await start_sinew(fake_discord)
    await create(fake_discord, "Vex", TOUGH, user="gm")  # REF 10
    seed = contest_seed(
        lambda r: r.attacker.success and 13 <= r.defender.roll < 20 and r.attacker.margin < 8,
        14,
        10,
    )
    dicebot.rng = new_rng(seed)
    options = {
        "attribute": "str",
        "score": 14,
        "edge": "light",
        "vs_user": fake_discord.users["gm"],
        "vs_attribute": "ref",
    }
    reply = await fake_discord.invoke("sinew attack", options, user="gm")
    await fake_discord.click(reply, "sinew:dluck:1:1", user="gm")
    second = await fake_discord.click(reply, "sinew:dluck:1:1", user="gm")
    assert not second.ephemeral, second.content
    assert (await character(fake_discord, dicebot, "Vex")).sheet.luck_tokens == 8
    logged = await logged_roll(dicebot.storage, 3)
    assert logged.payload["result"]["contest"]["defender"]["shift"] == 2


async def test_defender_luck_button_works_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, needed = await hit_on_brakka(fake_discord, dicebot)
    async with restarted(fake_discord, dicebot, seed=3) as bot:
        pressed = await fake_discord.click(reply, "sinew:dluck:1:n", user="player")
        assert pressed.embeds[0]["title"].endswith(" · 0 damage taken")
        assert fields_of(pressed.embeds[0])["Stamina given back"] == "+2: the hit became a miss"
        sheet = (await character(fake_discord, bot, "Brakka")).sheet
        assert (sheet.current_stamina, sheet.luck_tokens) == (5, 10 - needed)
