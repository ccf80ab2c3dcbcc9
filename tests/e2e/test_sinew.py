"""`/sinew` end to end through the fake Discord: characters, tests, odds, changes, contests."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from bot.client import DiceBot
from bot.render.numbers import percent
from bot.render.style import Colour
from bot.storage import Campaign, Character, CharacterStore, Visibility
from rules import sinew
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, hold_message_of
from tests.e2e.test_buttons import restarted
from tests.expect import logged_roll, sign
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


def reply_text(embed: dict[str, Any]) -> str:
    """A roll reply's dice and breakdown as one text: the description, then "name value" per
    field (docs/players/index.md, "Reading a reply")."""
    fields = [f"{field['name']} {field['value']}" for field in embed.get("fields", [])]
    return "\n".join([embed.get("description", ""), *fields])


def faces(result: sinew.TestResult) -> str:
    """A test's d20 as its reply's dice line shows them: the kept one bold, the other struck."""
    return ", ".join(
        f"**{face}**" if index == result.kept_index else f"~~{face}~~"
        for index, face in enumerate(result.dice)
    )


def line_of(embed: dict[str, Any], name: str) -> str:
    """One side's line of a contest's dice ("Brakka: 1d20: **9** vs STR 12 (✅ Success)")."""
    lines = embed["description"].removeprefix("🎲 ").split("\n")
    [line] = [line for line in lines if line.startswith(f"{name}: ")]
    return line


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Balanced: STR +2 and REF +1 (3 above, owes 6) paid by INT 7 (3) and EMP 7 (3).
BALANCED = {"str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
BALANCED_SHEET = sinew.create_sheet(
    strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5
)
# STA 9 (+4, owes 8) paid by STR 6 and INT 6.
TOUGH = {"str": 6, "ref": 10, "int": 6, "emp": 10, "lck": 10, "sta": 9}


async def start_sinew(fake: FakeDiscord) -> None:
    reply = await fake.invoke("campaign start", {"system": "sinew", "name": "Iron Age"}, user="gm")
    assert not reply.ephemeral, reply.content


async def create(
    fake: FakeDiscord,
    name: str,
    scores: dict[str, int] = BALANCED,
    user: str = "player",
    **extra: Any,
) -> Reply:
    return await fake.invoke("sinew character create", {"name": name, **scores, **extra}, user=user)


def store(bot: DiceBot) -> CharacterStore[sinew.Sheet]:
    return CharacterStore(bot.storage.database, sinew.SHEET_CODEC)


async def campaign_of(fake: FakeDiscord, bot: DiceBot) -> Campaign:
    campaign = await bot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    return campaign


async def character(fake: FakeDiscord, bot: DiceBot, name: str) -> Character[sinew.Sheet]:
    return await store(bot).find(await campaign_of(fake, bot), name=name)


def seed_where(predicate: Callable[[sinew.TestResult], bool], score: int, **flags: bool) -> int:
    """Find a seed whose first test under ``score`` satisfies ``predicate``."""
    for seed in range(10_000):
        if predicate(sinew.test(new_rng(seed), score, **flags)):
            return seed
    raise AssertionError("no seed found")


# --- characters


async def test_ruling_sinew_balanced_ledger_creates_a_full_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    reply = await create(fake_discord, "Brakka", armour=2)
    assert not reply.ephemeral
    assert reply.embeds[0]["title"].startswith("📜 Brakka")
    stored = await character(fake_discord, dicebot, "Brakka")
    assert stored.user_id == fake_discord.users["player"].id
    assert stored.sheet == sinew.create_sheet(
        strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5, armour=2
    )
    assert (stored.sheet.luck_tokens, stored.sheet.current_stamina) == (10, 5)


async def test_ruling_sinew_unbalanced_ledger_is_refused_with_the_ledger_line_by_line(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    # The document's "brute": +9 paid with only 9 below.
    brute = {"str": 16, "ref": 13, "int": 7, "emp": 7, "lck": 7, "sta": 5}
    reply = await create(fake_discord, "Brute", brute)
    assert reply.ephemeral
    for line in (
        "STR 10 → 16: +6 gained",
        "REF 10 → 13: +3 gained",
        "INT 10 → 7: 3 paid",
        "LCK 10 → 7: 3 paid",
        "STA 5 → 5: even",
        "Total: +9 gained owes 18; paid 9 (9 short).",
    ):
        assert line in reply.content.splitlines(), line
    assert await store(dicebot).all(await campaign_of(fake_discord, dicebot)) == []


async def test_ruling_sinew_one_character_per_player_per_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    second = await create(fake_discord, "Other")
    assert second.ephemeral and "already has 1 character" in second.content
    names = [c.name for c in await store(dicebot).all(await campaign_of(fake_discord, dicebot))]
    assert names == ["Brakka"]


async def test_sinew_command_in_another_systems_campaign_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"}, user="gm")
    reply = await create(fake_discord, "Brakka")
    assert reply.ephemeral and "this needs Sinew & Steel" in reply.content
    tested = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert tested.ephemeral and await dicebot.storage.rolls.get(1) is None


async def test_sheet_shows_scores_luck_stamina_items_and_pressure_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka", armour=1)
    campaign = await campaign_of(fake_discord, dicebot)
    stored = await character(fake_discord, dicebot, "Brakka")
    await dicebot.storage.tracks.change(campaign, "pressure", 2, character_id=stored.id)
    await fake_discord.invoke("sinew item add", {"name": "Rope"}, user="player")
    reply = await fake_discord.invoke(
        "sinew character sheet", {"user": fake_discord.users["player"]}, user="gm"
    )
    assert reply.ephemeral
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Scores"] == "STR 12 · REF 11 · INT 7 · EMP 7 · LCK 10 · STA 5"
    assert fields["Luck"] == "10/10 tokens" and fields["Stamina"] == "5/5"
    assert fields["Armour"] == "1" and fields["Pressure"] == "2"
    assert fields["Build points"] == "0" and fields["Items (1)"] == "Rope"


# --- tests


async def test_ruling_sinew_attribute_test_rolls_under_the_score_with_the_margin(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    reply = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "advantage": True}, user="player"
    )
    expected = sinew.test(new_rng(DICE_SEED), 12, advantage=True)
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert ("Success" in embed["title"] or "NATURAL 1" in embed["title"]) == expected.success
    assert embed["description"].split("\n")[0] == (
        f"🎲 2d20, keep the lower (advantage): {faces(expected)} vs STR 12, "
        f"margin {sign(expected.margin)}"
    )
    assert embed["title"].endswith(f" · Brakka: STR test · roll {expected.roll}")
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "sinew.test" and logged.payload["result"]["dice"] == list(expected.dice)


async def test_ruling_sinew_natural_one_is_gold_in_its_title_and_not_announced_apart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    dicebot.rng = new_rng(seed_where(lambda r: r.natural_one, 7))
    reply = await fake_discord.invoke("sinew test", {"attribute": "int"}, user="player")
    embed = reply.embeds[0]
    assert embed["title"].startswith("✨ NATURAL 1") and embed["color"] == (
        Colour.CRITICAL_SUCCESS.value
    )
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to settle")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # no second embed


async def test_ruling_sinew_natural_twenty_fails_and_a_hidden_one_is_not_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    seed = seed_where(lambda r: r.natural_twenty, 12)
    dicebot.rng = new_rng(seed)
    secret = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "character": "Brakka", "hidden": True}, user="gm"
    )
    assert secret.ephemeral and secret.embeds[0]["title"].startswith("💀 NATURAL 20")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    dicebot.rng = new_rng(seed)
    public = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert public.embeds[0]["color"] == Colour.CRITICAL_FAILURE.value
    assert public.embeds[0]["title"].startswith("💀 NATURAL 20")
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to settle")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # its title says it


async def test_player_naming_another_players_character_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await create(fake_discord, "Gmchar", user="gm")
    refused = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "character": "Gmchar"}, user="player"
    )
    assert refused.ephemeral and "Only a GM can roll for another player's" in refused.content
    assert await dicebot.storage.rolls.get(1) is None


async def test_ruling_sinew_ref_tests_get_disadvantage_over_six_items_and_say_why(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    for number in range(sinew.CARRY_LIMIT + 1):
        await fake_discord.invoke("sinew item add", {"name": f"Crate {number}"}, user="player")
    dicebot.rng = new_rng(3)
    reply = await fake_discord.invoke("sinew test", {"attribute": "ref"}, user="player")
    expected = sinew.test(new_rng(3), 11, disadvantage=True)
    description = reply_text(reply.embeds[0])
    assert "2d20, keep the higher (disadvantage)" in description
    assert "Carrying 7 substantial items (more than 6)" in description
    assert (
        f"🎲 2d20, keep the higher (disadvantage): {faces(expected)} vs REF 11, "
        f"margin {sign(expected.margin)}\n"
    ) in description


async def test_ruling_sinew_luck_test_rolls_under_the_current_tokens(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    reply = await fake_discord.invoke("sinew luck test", {}, user="player")
    expected = sinew.test(new_rng(DICE_SEED), 10)
    assert reply.embeds[0]["description"].split("\n")[0] == (
        f"🎲 1d20: {faces(expected)} vs Luck tokens 10, margin {sign(expected.margin)}"
    )
    assert (await logged_roll(dicebot.storage, 1)).kind == "sinew.luck_test"


# --- odds


async def test_ruling_sinew_odds_are_exact_with_opposed_and_luck_gain(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("sinew odds", {"score": 12, "vs_score": 10})
    description = reply.embeds[0]["description"]
    assert f"Success: **{percent(sinew.odds(12).success)}**" in description  # 12/20 = 60%
    assert "60.00%" in description and "Natural 1 (extraordinary success): 5.00%" in description
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    versus = sinew.opposed_odds(12, 10)
    assert f"You win: **{percent(versus.attacker_wins)}**" in fields["Opposed vs score 10"]
    luck = fields["Success holding Luck tokens (spent only to turn a failure)"]
    # One token turns a 13 into a 12: +5%.
    assert "1 token: 65.00% (+5.00%)" in luck
    name, png = reply.attachments[0]
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)


# --- sheet changes


async def test_ruling_sinew_damage_to_zero_collapses_and_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    refused = await fake_discord.invoke(
        "sinew damage", {"character": "Brakka", "amount": 2}, user="player"
    )
    assert refused.ephemeral and "Only a GM can deal damage" in refused.content
    hurt = await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 3})
    assert not hurt.ephemeral and "Stamina 5 → **2**/5" in hurt.embeds[0]["description"]
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    down = await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 4})
    assert "collapsed" in down.embeds[0]["description"]
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "💀 Brakka collapses!"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 0
    healed = await fake_discord.invoke("sinew heal", {"character": "Brakka", "amount": 9})
    assert "Stamina 0 → **5**/5" in healed.embeds[0]["description"]
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 5


async def test_twenty_concurrent_damages_end_as_if_serial_with_one_collapse(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Tank", TOUGH)
    replies = [
        await fake_discord.send("sinew damage", {"character": "Tank", "amount": 1})
        for _ in range(20)
    ]
    await fake_discord.wait_answered(replies)
    steps = sorted(reply.embeds[0]["description"].split("/")[0] for reply in replies)
    serial = sorted(f"Stamina {n} → **{max(n - 1, 0)}**" for n in [*range(9, 0, -1), *[0] * 11])
    assert steps == serial
    assert (await character(fake_discord, dicebot, "Tank")).sheet.current_stamina == 0
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert [m["embeds"][0]["title"] for m in posted] == ["💀 Tank collapses!"]


async def test_ruling_sinew_rest_restores_up_to_the_caps(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await fake_discord.invoke("sinew damage", {"character": "Brakka", "amount": 4})
    reply = await fake_discord.invoke("sinew rest", {"kind": "thorough"}, user="player")
    assert not reply.ephemeral and "Stamina +2: 3/5" in reply.embeds[0]["description"]
    calm = await fake_discord.invoke("sinew rest", {"kind": "calm"}, user="player")
    assert "Luck +0: 10/10 tokens" in calm.embeds[0]["description"]  # already at the cap
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.current_stamina == 3


async def test_ruling_sinew_milestone_then_advance_below_baseline_gains_two(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    poor = await fake_discord.invoke("sinew advance", {"score": "int"}, user="player")
    assert poor.ephemeral and "costs 2 build points; you have 0" in poor.content
    refused = await fake_discord.invoke("sinew milestone", {"character": "Brakka"}, user="player")
    assert refused.ephemeral
    given = await fake_discord.invoke("sinew milestone", {"character": "Brakka"})
    assert "Build points +2: 2" in given.embeds[0]["description"]
    raised = await fake_discord.invoke("sinew advance", {"score": "int"}, user="player")
    assert raised.embeds[0]["title"] == "📈 Brakka: INT 7 → 9"
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert (sheet.intellect, sheet.build_points) == (9, 0)


async def test_items_add_remove_and_list(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await fake_discord.invoke("sinew item add", {"name": "Rope"}, user="player")
    await fake_discord.invoke("sinew item add", {"name": "Shield"}, user="player")
    missing = await fake_discord.invoke("sinew item remove", {"name": "Lamp"}, user="player")
    assert missing.ephemeral and "No item called 'Lamp'" in missing.content
    await fake_discord.invoke("sinew item remove", {"name": "rope"}, user="player")
    listed = await fake_discord.invoke("sinew item list", {}, user="player")
    assert listed.ephemeral and listed.embeds[0]["description"] == "Carrying 1: Shield"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.items == ("Shield",)


# --- contests


async def test_ruling_sinew_opposed_shows_both_rolls_and_the_winner(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    reply = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 11}, user="player"
    )
    expected = sinew.opposed(new_rng(DICE_SEED), 12, 11)
    winner = "Brakka" if expected.winner is sinew.Side.ATTACKER else "Defender"
    embed = reply.embeds[0]
    assert embed["title"].startswith(f"{'✅' if winner == 'Brakka' else '❌'} {winner} wins · ")
    assert f"\nWhy: {expected.reason.value}." in embed["description"]
    margins = f"margins {sign(expected.attacker.margin)} vs {sign(expected.defender.margin)}"
    assert embed["title"].endswith(f": opposed roll vs Defender · {margins}")
    assert line_of(embed, "Brakka").startswith(
        f"Brakka: 1d20: {faces(expected.attacker)} vs STR 12 ("
    )
    assert line_of(embed, "Defender").startswith(
        f"Defender: 1d20: {faces(expected.defender)} vs score 11 ("
    )
    assert "vs score 11" in str(embed)  # a bare score, without the attribute it stands for


async def test_ruling_sinew_npc_defenders_score_may_name_its_attribute(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    options = {"attribute": "str", "vs_score": 11, "vs_attribute": "ref"}
    reply = await fake_discord.invoke("sinew opposed", options, user="player")
    assert not reply.ephemeral
    embed = reply.embeds[0]
    assert "vs REF 11" in str(embed) and "vs score" not in str(embed)
    attack = await fake_discord.invoke(
        "sinew attack", {**options, "edge": "light", "vs_attribute": "lck"}, user="player"
    )
    assert "vs LCK 11" in str(attack.embeds[0])  # an NPC's bare score: no Luck tokens


async def test_ruling_sinew_attack_takes_damage_from_the_defending_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    await create(fake_discord, "Vex", TOUGH, user="gm", armour=1)  # REF 10, STA 9
    options: dict[str, Any] = {"edge": sinew.Edge.BRUTAL, "armour": 1}
    seed = next(
        s for s in range(10_000) if sinew.attack(new_rng(s), 12, 10, **options).damage_taken > 0
    )
    expected = sinew.attack(new_rng(seed), 12, 10, **options)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sinew attack",
        {
            "attribute": "str",
            "edge": "brutal",
            "vs_user": fake_discord.users["gm"],
            "vs_attribute": "ref",
        },
        user="player",
    )
    embed = reply.embeds[0]
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert embed["title"].endswith(f" · {expected.damage_taken} damage taken")
    assert expected.extra_damage == 0  # one part: its damage, not its sum again
    damage = f"Damage {expected.damage} (brutal edge); soak {expected.soak} (armour 1"
    assert damage in embed["description"]
    after = 9 - expected.damage_taken
    assert fields["Vex's Stamina"].startswith(f"{after}/9")
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == after
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "sinew.attack" and logged.payload["result"]["armour"] == 1
    assert logged.payload["options"]["armour"] is None  # Roll again reads the armour anew


async def test_ruling_sinew_luck_spend_lowers_the_latest_test_and_pays_tokens(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12, 10 tokens
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - 12 <= 3, 12)
    expected = sinew.test(new_rng(seed), 12)
    needed = sinew.tokens_to_succeed(expected)
    assert needed is not None
    dicebot.rng = new_rng(seed)
    test = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    greedy = await fake_discord.invoke("sinew luck spend", {"tokens": 16}, user="player")
    assert greedy.ephemeral and "at most" in greedy.content
    reply = await fake_discord.invoke("sinew luck spend", {"tokens": needed}, user="player")
    # The spender is answered privately; the test's own message shows the spend.
    assert reply.ephemeral and reply.content.startswith("🍀 Luck spent on roll #1: [its message]")
    assert test.embeds[0]["title"].startswith("✅ Success")
    assert test.embeds[0]["description"].split("\n")[0] == (
        f"🎲 1d20: **{expected.natural}** − {needed} Luck = 12 vs STR 12, margin 0"
    )
    assert reply_text(test.embeds[0]).endswith(
        f"Luck spent −{needed} on the die for {needed} token{'s' if needed > 1 else ''}; "
        f"{10 - needed}/10 left"
    )
    assert test.original.custom_ids() == ["roll:again:2"]  # succeeded: nothing left to buy
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # no copy posted
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert sheet.luck_tokens == 10 - needed
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.kind == "sinew.test" and logged.payload["result"]["shift"] == needed


async def test_luck_spend_without_a_test_is_refused_and_nothing_paid(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await fake_discord.invoke("roll", {"expression": "1d6"}, user="player")
    reply = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert reply.ephemeral and "latest roll here" in reply.content
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10


async def test_every_sinew_string_option_has_a_max_length_or_choices(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    [sinew_command] = [c for c in fake_discord.synced_commands(guild=True) if c["name"] == "sinew"]

    def leaves(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
        found = []
        for option in options:
            if option["type"] in (1, 2):
                found.extend(leaves(option.get("options", [])))
            else:
                found.append(option)
        return found

    for option in leaves(sinew_command["options"]):
        assert option.get("description"), option["name"]
        if option["type"] == 3:
            assert option.get("max_length") or option.get("choices"), option["name"]


# --- Luck buttons under a failed test


async def failed_test(
    fake: FakeDiscord,
    bot: DiceBot,
    name: str = "Brakka",
    scores: dict[str, int] = BALANCED,
    score: int = 12,
    needs: Callable[[int], bool] = lambda needed: 2 <= needed <= 5,
) -> tuple[Reply, sinew.TestResult]:
    """Create a character and roll a failed STR test whose turning needs ``needs`` tokens."""
    await start_sinew(fake)
    await create(fake, name, scores)
    seed = seed_where(
        lambda r: not r.success and not r.natural_twenty and needs(r.roll - score), score
    )
    bot.rng = new_rng(seed)
    reply = await fake.invoke("sinew test", {"attribute": "str"}, user="player")
    return reply, sinew.test(new_rng(seed), score)


def labels(reply: Reply) -> list[str]:
    return [
        button["label"]
        for row in reply.components
        for button in row["components"]
        if button["custom_id"].startswith("sinew:luck:")
    ]


async def test_luck_buttons_show_under_a_failed_test_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, expected = await failed_test(fake_discord, dicebot)
    needed = sinew.tokens_to_succeed(expected)
    assert reply.original.custom_ids() == ["roll:again:1", "sinew:luck:1:1", "sinew:luck:1:n"]
    assert labels(reply) == ["Spend 1 Luck", f"Spend {needed} (turns it)"]
    dicebot.rng = new_rng(seed_where(lambda r: r.success and not r.natural_one, 12))
    success = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert success.original.custom_ids() == ["roll:again:2"]
    dicebot.rng = new_rng(seed_where(lambda r: r.natural_twenty, 12))
    natural = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert natural.original.custom_ids() == ["roll:again:3"]


async def test_luck_button_pressed_by_the_roller_edits_the_roll_and_pays(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, expected = await failed_test(fake_discord, dicebot, needs=lambda n: 3 <= n <= 5)
    pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
    assert pressed.callback_type == 7 and pressed.message is reply.message
    embed = reply.embeds[0]
    assert embed["title"].startswith("❌ Failure") and embed["footer"]["text"] == "Roll #2"
    assert embed["description"].split("\n")[0] == (
        f"🎲 1d20: **{expected.natural}** − 1 Luck = {expected.roll - 1} vs STR 12, "
        f"margin {sign(expected.margin + 1)}"
    )
    assert embed["fields"][-1]["value"].endswith("9/10 left")
    assert reply.original.custom_ids() == ["roll:again:2", "sinew:luck:1:1", "sinew:luck:1:n"]
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 9
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.payload["result"]["shift"] == 1 and logged.payload["luck_of"] == 1
    # A spend by command is a step on the same roll: its buttons still work after it.
    await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    again = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
    assert f"**{expected.natural}** − 3 Luck = {expected.roll - 3} vs STR 12" in reply_text(
        again.embeds[0]
    )
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 7


async def test_luck_spend_n_button_turns_the_failure_into_a_success(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, expected = await failed_test(fake_discord, dicebot)
    needed = sinew.tokens_to_succeed(expected)
    assert needed is not None
    pressed = await fake_discord.click(reply, "sinew:luck:1:n", user="player")
    embed = pressed.embeds[0]
    assert embed["title"].startswith("✅ Success")
    assert embed["description"].split("\n")[0] == (
        f"🎲 1d20: **{expected.natural}** − {needed} Luck = 12 vs STR 12, margin 0"
    )
    assert pressed.original.custom_ids() == ["roll:again:2"]
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - needed


async def test_luck_button_pressed_by_someone_else_is_refused_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await failed_test(fake_discord, dicebot)
    before = list(reply.embeds)
    refused = await fake_discord.click(reply, "sinew:luck:1:1", user="gm")
    assert refused.ephemeral and "who made roll #1, can spend Luck on it" in refused.content
    assert reply.embeds == before and "sinew:luck:1:1" in reply.original.custom_ids()
    assert await dicebot.storage.rolls.get(2) is None
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10


async def test_rule_typed_luck_spend_edits_the_rolls_message_and_rederives_its_buttons(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, expected = await failed_test(fake_discord, dicebot, needs=lambda n: 4 <= n <= 6)
    needed = sinew.tokens_to_succeed(expected)
    assert needed is not None
    assert labels(reply) == ["Spend 1 Luck", f"Spend {needed} (turns it)"]
    typed = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert typed.ephemeral and typed.content.startswith("🍀 Luck spent on roll #1")
    assert "now shows roll #2" in typed.content
    # The one message of the test shows the spend, with buttons priced from the new state.
    assert reply.embeds[0]["footer"]["text"] == "Roll #2"
    assert reply.embeds[0]["description"].split("\n")[0] == (
        f"🎲 1d20: **{expected.natural}** − 1 Luck = {expected.roll - 1} vs STR 12, "
        f"margin {sign(expected.margin + 1)}"
    )
    assert labels(reply) == ["Spend 1 Luck", f"Spend {needed - 1} (turns it)"]
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # no second copy
    pressed = await fake_discord.click(reply, "sinew:luck:1:n", user="player")
    assert pressed.message is reply.message and pressed.embeds[0]["title"].startswith("✅")
    # What the label said is what was paid: 1 + (needed - 1) in all.
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - needed
    assert reply.original.custom_ids() == ["roll:again:3"]  # turned: nothing left to buy


async def test_rule_typed_luck_spend_offers_only_what_the_roller_can_still_pay(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # STR 6 and a die of 17–19: 11+ tokens to turn it, more than Tank's 10.
    reply, _ = await failed_test(
        fake_discord, dicebot, "Tank", TOUGH, score=6, needs=lambda needed: needed > 10
    )
    assert labels(reply) == ["Spend 1 Luck"]
    await fake_discord.invoke("sinew luck spend", {"tokens": 9}, user="player")
    assert labels(reply) == ["Spend 1 Luck"]  # 1 token left: still one step
    await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert reply.original.custom_ids() == ["roll:again:3"]  # no token left: no Luck button
    assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 0


async def test_rule_older_rolls_lose_their_luck_buttons_when_their_roller_rolls_again(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, _ = await failed_test(fake_discord, dicebot)
    assert reply.original.custom_ids() == ["roll:again:1", "sinew:luck:1:1", "sinew:luck:1:n"]
    await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert reply.original.custom_ids()[0] == "roll:again:2"
    again = await fake_discord.click(reply, "roll:again:2", user="player")
    assert not again.ephemeral and again.embeds[0]["footer"]["text"] == "Roll #3"
    # Luck spends only the latest roll: the older message keeps Roll again alone (edited
    # once the new roll is shown).
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:2"], "the old Luck buttons to go"
    )
    await fake_discord.invoke("sinew test", {"attribute": "ref"}, user="player")
    await fake_discord.wait_until(
        lambda: again.original.custom_ids() == ["roll:again:3"], "roll #3's buttons to go"
    )


async def test_rule_a_roll_of_any_kind_takes_the_luck_buttons_off_the_rollers_older_message(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Issue 37: buttons are re-derived from the stored state on every message that shows them.
    # A /roll is the roller's latest roll here too: Luck on the Sinew test before it has ended.
    reply, _ = await failed_test(fake_discord, dicebot)
    assert reply.original.custom_ids() == ["roll:again:1", "sinew:luck:1:1", "sinew:luck:1:n"]
    dice = await fake_discord.invoke("roll", {"expression": "1d20"}, user="player")
    assert not dice.ephemeral and dice.embeds[0]["footer"]["text"] == "Roll #2"
    await fake_discord.wait_until(
        lambda: reply.original.custom_ids() == ["roll:again:1"], "the old Luck buttons to go"
    )
    refused = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert refused.ephemeral  # nothing left to spend on: the latest roll is the /roll
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert sheet.luck_tokens == sheet.luck  # and nothing was spent


async def test_typed_luck_spend_on_a_hidden_test_answers_the_gm_privately(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    dicebot.rng = new_rng(seed_where(lambda r: not r.natural_twenty and 14 <= r.roll <= 17, 12))
    options = {"attribute": "str", "character": "Brakka", "hidden": True}
    await fake_discord.invoke("sinew test", options, user="gm")
    typed = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="gm")
    # A private reply can't be edited later: the GM gets the roll anew, privately.
    assert typed.ephemeral and typed.embeds[0]["footer"]["text"].startswith("Hidden roll #2")
    assert typed.original.custom_ids()[0] == "roll:reveal:2"
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_luck_button_on_a_superseded_roll_is_refused_and_removed(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply, _ = await failed_test(fake_discord, dicebot)
    release = hold_message_of(dicebot, monkeypatch, 2)
    await fake_discord.invoke("roll", {"expression": "1d6"}, user="player")
    pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
    release.set()
    # The refusal leaves what rolling past it leaves, Roll again only: the /roll's own edit,
    # once released, agrees.
    assert reply.original.custom_ids() == ["roll:again:1"]
    [refusal] = await fake_discord.wait_followups(pressed)
    assert refusal.ephemeral and "Roll #1 is no longer your latest roll here" in refusal.content
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10
    assert await dicebot.storage.rolls.get(3) is None


async def test_luck_button_works_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply, expected = await failed_test(fake_discord, dicebot)
    async with restarted(fake_discord, dicebot, seed=3) as bot:
        pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="player")
        assert f"🎲 1d20: **{expected.natural}** − 1 Luck = {expected.roll - 1} vs STR 12" in (
            reply_text(pressed.embeds[0])
        )
        sheet = (await character(fake_discord, bot, "Brakka")).sheet
        assert sheet.luck_tokens == 9


async def test_hundred_concurrent_luck_spends_pay_ten_tokens_and_refuse_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # STR 6 and a die of 17–19: 11+ tokens to turn, so ten spends of 1 all stay legal.
    reply, _ = await failed_test(
        fake_discord, dicebot, "Tank", TOUGH, score=6, needs=lambda needed: needed > 10
    )

    def spend(n: int) -> Awaitable[Reply]:
        if n % 2:
            return fake_discord.send("sinew luck spend", {"tokens": 1}, user="player")
        return fake_discord.click(reply, "sinew:luck:1:1", user="player", stale_client=True)

    replies = await asyncio.gather(*(spend(n) for n in range(100)))
    await fake_discord.wait_answered(replies)
    spent = [r for r in replies if not r.ephemeral or r.content.startswith("🍀 Luck spent")]
    refused = [r for r in replies if r not in spent]
    assert len(spent) == 10 and len(refused) == 90
    assert {r.source is None for r in spent} == {True, False}  # commands and presses both won
    assert all("costs 1 Luck token; Tank has 0." in r.content for r in refused)
    assert (await character(fake_discord, dicebot, "Tank")).sheet.luck_tokens == 0
    shifts = [
        (await logged_roll(dicebot.storage, n)).payload["result"]["shift"] for n in range(2, 12)
    ]
    assert shifts == list(range(1, 11)) and await dicebot.storage.rolls.get(12) is None


async def test_luck_buttons_at_pressure_four_show_and_charge_the_surcharge(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    stored = await character(fake_discord, dicebot, "Brakka")
    campaign = await campaign_of(fake_discord, dicebot)
    await dicebot.storage.tracks.change(campaign, "pressure", 4, character_id=stored.id)
    seed = seed_where(lambda r: not r.success and not r.natural_twenty and r.roll - 12 == 3, 12)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    assert labels(reply) == [
        "Spend 1 Luck · costs 2 at Pressure 4+",
        "Spend 3 (turns it) · costs 4 at Pressure 4+",
    ]
    pressed = await fake_discord.click(reply, "sinew:luck:1:n", user="player")
    assert pressed.embeds[0]["title"].startswith("✅ Success")
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 6


# --- Luck on opposed rolls and attacks, on hidden rolls; Roll again on contests


def contest_seed(
    predicate: Callable[[sinew.OpposedResult], bool], attacker: int, defender: int
) -> int:
    """Find a seed whose first contest of ``attacker`` against ``defender`` satisfies it."""
    for seed in range(10_000):
        if predicate(sinew.opposed(new_rng(seed), attacker, defender)):
            return seed
    raise AssertionError("no seed found")


async def test_ruling_sinew_luck_wins_a_lost_opposed_roll_by_button(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12
    # The defender (11) fails and the attacker fails by 2-5: succeeding is winning.
    seed = contest_seed(lambda r: r.defender.roll > 11 and 14 <= r.attacker.roll <= 17, 12, 11)
    die = sinew.opposed(new_rng(seed), 12, 11).attacker.roll
    needed = die - 12
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "sinew opposed", {"attribute": "str", "vs_score": 11}, user="player"
    )
    assert reply.embeds[0]["title"].startswith("❌ Defender wins · ")
    assert reply.original.custom_ids() == ["roll:again:1", "sinew:luck:1:1", "sinew:luck:1:n"]
    assert labels(reply) == ["Spend 1 Luck", f"Spend {needed} (wins it)"]
    pressed = await fake_discord.click(reply, "sinew:luck:1:n", user="player")
    embed = pressed.embeds[0]
    assert ": opposed roll after Luck vs Defender · " in embed["title"]
    assert embed["title"].startswith("✅ Brakka wins · ")
    assert "Why: the attacker succeeded" in embed["description"]
    assert line_of(embed, "Brakka") == (
        f"Brakka: 1d20: **{die}** − {needed} Luck = 12 vs STR 12 (✅ Success)"
    )
    assert {field["name"]: field["value"] for field in embed["fields"]}["Luck spent"] == (
        f"−{needed} on the die for {needed} tokens; {10 - needed}/10 left"
    )
    assert pressed.original.custom_ids() == ["roll:again:2"]  # won: nothing left to buy
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 10 - needed
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.kind == "sinew.opposed" and logged.payload["luck_of"] == 1


async def won_attack_on_vex(fake: FakeDiscord, bot: DiceBot, margin: int) -> Reply:
    """Brakka (STR 12) hits Vex (REF 10, armour 3, STA 9) by ``margin``: 2 damage, soak 3."""
    await start_sinew(fake)
    await create(fake, "Brakka")
    await create(fake, "Vex", TOUGH, user="gm", armour=3)
    die = 12 - margin
    bot.rng = new_rng(
        contest_seed(lambda r: r.defender.roll > 10 and r.attacker.roll == die, 12, 10)
    )
    return await fake.invoke(
        "sinew attack",
        {
            "attribute": "str",
            "edge": "standard",
            "vs_user": fake.users["gm"],
            "vs_attribute": "ref",
        },
        user="player",
    )


async def test_ruling_sinew_luck_after_a_won_attack_cuts_soak_and_hurts_the_defender(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await won_attack_on_vex(fake_discord, dicebot, margin=2)
    fields = {field["name"]: field["value"] for field in reply.embeds[0].get("fields", [])}
    assert reply.embeds[0]["title"].endswith(" · 0 damage taken") and "Vex's Stamina" not in fields
    assert "\nDamage 2 (standard edge); soak 3 (armour 3)" in reply.embeds[0]["description"]
    # By hand: margin 8 (6 tokens) cuts soak to 1 → 1 taken; margin 11 (9 tokens) adds +1
    # damage → 3 - 1 = 2. Margin 4 cuts soak to 2, still 0 taken: not worth offering.
    assert labels(reply) == ["Spend 6 → 1 damage", "Spend 9 → 2 damage"]
    ids = reply.original.custom_ids()  # then Vex's own Luck buttons: Vex is losing
    assert ids[:3] == ["roll:again:1", "sinew:luck:1:6", "sinew:luck:1:9"]
    assert ids[3:] and all(i.startswith("sinew:dluck:1:") for i in ids[3:])
    pressed = await fake_discord.click(reply, "sinew:luck:1:9", user="player")
    embed = pressed.embeds[0]
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert embed["title"].startswith("✅ Brakka wins · Brakka: attack after Luck vs Vex · ")
    assert embed["title"].endswith(" · 2 damage taken")
    assert embed["description"].endswith(
        "\nDamage 2 (standard edge) +1 (natural 1 or margin over 10) = 3; "
        "soak 1 (armour 3, −2 margin)"
    )
    assert fields["Vex's Stamina"] == "7/9"
    assert fields["Luck spent"] == "−9 on the die for 9 tokens; 1/10 left"
    assert pressed.original.custom_ids() == ["roll:again:2"]  # the die is at 1
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 7
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 1
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_luck_spent_by_command_on_an_attack_can_collapse_the_defender(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await won_attack_on_vex(fake_discord, dicebot, margin=2)
    await fake_discord.invoke("sinew damage", {"character": "Vex", "amount": 7}, user="gm")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    spent = await fake_discord.invoke("sinew luck spend", {"tokens": 9}, user="player")
    assert spent.ephemeral and spent.content.startswith("🍀 Luck spent on roll #1")
    assert ": attack after Luck vs " in reply.embeds[0]["title"]  # edited in place
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert fields["Vex's Stamina"] == "0/9 · **collapsed**"
    [posted] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert posted["embeds"][0]["title"] == "💀 Vex collapses!"
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 0
    # The buttons are re-derived from the stored state: Brakka's 1 token left buys nothing,
    # and Vex (REF 10) can't beat margin 11 with any die, so only Roll again is left.
    assert reply.original.custom_ids() == ["roll:again:2"]


async def test_missed_attack_offers_the_hit_only_when_the_tokens_pay_for_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    # The attacker (12) rolls 15 and the defender (10) fails: 3 tokens make a hit for 1 (light
    # edge, no armour); the +1 past margin 10 needs 14 tokens, more than Brakka's 10.
    seed = contest_seed(lambda r: r.defender.roll > 10 and r.attacker.roll == 15, 12, 10)
    dicebot.rng = new_rng(seed)
    options = {"attribute": "str", "edge": "light", "vs_score": 10}
    reply = await fake_discord.invoke("sinew attack", options, user="player")
    assert reply.embeds[0]["title"] == (
        "❌ Defender wins · Brakka: attack vs Defender · 0 damage taken"
    )
    assert "Damage" not in reply.embeds[0]["description"]  # a miss: nothing rolled to soak
    assert labels(reply) == ["Spend 3 → hit, 1 damage"]
    brakka = await character(fake_discord, dicebot, "Brakka")
    await store(dicebot).update(brakka, lambda sheet: replace(sheet, luck_tokens=2))
    dicebot.rng = new_rng(seed)  # Roll again repeats the attack: the same dice
    again = await fake_discord.click(reply, "roll:again:1", user="player")
    assert (
        again.embeds[0]["title"] == "❌ Defender wins · Brakka: attack vs Defender · 0 damage taken"
    )
    assert again.original.custom_ids() == ["roll:again:2"]  # 2 tokens can't buy the hit
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.kind == "sinew.attack" and logged.payload["options"]["vs_score"] == 10


async def test_spend_on_a_hidden_test_for_a_player_by_the_gm_button(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    dicebot.rng = new_rng(seed_where(lambda r: not r.natural_twenty and 14 <= r.roll <= 17, 12))
    options = {"attribute": "str", "character": "Brakka", "hidden": True}
    reply = await fake_discord.invoke("sinew test", options, user="gm")
    assert reply.ephemeral
    assert reply.original.custom_ids() == ["roll:reveal:1", "sinew:luck:1:1", "sinew:luck:1:n"]
    pressed = await fake_discord.click(reply, "sinew:luck:1:1", user="gm")
    assert pressed.embeds[0]["footer"]["text"].startswith("Hidden roll #2: only you see it.")
    assert pressed.original.custom_ids()[0] == "roll:reveal:2"
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 9
    assert (await logged_roll(dicebot.storage, 2)).visibility is Visibility.HIDDEN
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_concurrent_luck_spends_on_an_attack_hurt_the_defender_once_per_step(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    attack = await won_attack_on_vex(fake_discord, dicebot, margin=1)  # die 11: room for 10
    replies = await asyncio.gather(
        *(fake_discord.send("sinew luck spend", {"tokens": 1}, user="player") for _ in range(12))
    )
    await fake_discord.wait_answered(replies)
    assert sum(reply.content.startswith("🍀 Luck spent") for reply in replies) == 10
    # The attack's message ends showing the last spend (roll #11), as spent one at a time.
    assert attack.embeds[0]["footer"]["text"] == "Roll #11"
    # By hand: the die ends at 1, margin 11: damage 2 + 1, soak 3 - 2 = 1, so 2 taken in all.
    assert (await character(fake_discord, dicebot, "Vex")).sheet.current_stamina == 9 - 2
    assert (await character(fake_discord, dicebot, "Brakka")).sheet.luck_tokens == 0
    last = await logged_roll(dicebot.storage, 11)
    assert last.payload["result"]["contest"]["attacker"]["shift"] == 10


async def test_roll_again_repeats_a_luck_test_and_an_opposed_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    luck = await fake_discord.invoke("sinew luck test", {"advantage": True}, user="player")
    again = await fake_discord.click(luck, "roll:again:1", user="player")
    assert again.embeds[0]["title"].endswith(
        "Brakka: Luck test · roll " + again.embeds[0]["title"].rsplit(" ", 1)[1]
    )
    assert (await logged_roll(dicebot.storage, 2)).payload["options"]["advantage"] is True
    options = {"attribute": "str", "vs_user": fake_discord.users["gm"], "vs_attribute": "ref"}
    await create(fake_discord, "Vex", TOUGH, user="gm")
    opposed = await fake_discord.invoke("sinew opposed", options, user="player")
    repeated = await fake_discord.click(opposed, "roll:again:3", user="player")
    assert "· Brakka: opposed roll vs Vex · margins " in repeated.embeds[0]["title"]
    refused = await fake_discord.click(opposed, "roll:again:3", user="gm")
    assert refused.ephemeral
