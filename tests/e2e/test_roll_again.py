"""Roll again under every public roll of every system (docs/players/index.md, "Buttons and
announcements"): six-pool d20, Aethelgard and Enchanted Realms repeat their command with every
option the roll logged, for its roller only, with new dice; a hidden roll has Reveal instead."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.client import DiceBot
from bot.storage import RollEntry, Visibility
from rules.aethelgard import PoolRoll, display_lines
from rules.randomness import new_rng
from rules.sixpool import Pool
from tests.e2e.test_aethelgard import block, d10s
from tests.e2e.test_buttons import restarted
from tests.e2e.test_realms import d20s as realms_d20s
from tests.e2e.test_secrecy import forged
from tests.e2e.test_sixpool import character, create, d20s, start
from tests.expect import logged_roll
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_rule_roll_again_under_a_sixpool_check_spends_again_with_every_option(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await fake_discord.invoke(
        "sixpool character set", {"skill": "Stealth", "training": "expert"}, user="player"
    )
    options = {"pool": "DEX", "dc": 15, "spend": 2, "skill": "stealth", "situation": "favorable"}
    first = await fake_discord.invoke("sixpool check", options, user="player")
    assert first.original.custom_ids() == ["roll:again:1"]
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 6
    refused = await fake_discord.click(first, "roll:again:1", user="gm")
    assert refused.ephemeral and "who made roll #1, can roll it again" in refused.content
    dicebot.rng = new_rng(11)
    again = await fake_discord.click(first, "roll:again:1", user="player")
    assert not again.ephemeral and again.original.custom_ids() == ["roll:again:2"]
    [face] = d20s(11)
    assert f"**{face}**" in again.embeds[0]["description"]
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 4  # paid again
    first_options = (await logged_roll(dicebot.storage, 1)).payload["options"]
    assert (await logged_roll(dicebot.storage, 2)).payload["options"] == first_options
    assert first_options["skill"] == "stealth" and first_options["situation"] == "favorable"


async def test_rule_roll_again_under_a_sixpool_attack_keeps_its_damage(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    options = {"pool": "STR", "ac": 5, "damage": "1d8+3"}
    first = await fake_discord.invoke("sixpool attack", options, user="player")
    async with restarted(fake_discord, dicebot, seed=3) as bot:
        again = await fake_discord.click(first, "roll:again:1", user="player")
        logged = await logged_roll(bot.storage, 2)
        assert logged.kind == "sixpool.attack" and logged.payload["options"]["damage"] == "1d8+3"
        assert again.embeds[0]["footer"]["text"] == "Roll #2"


async def test_rule_roll_again_under_an_aethelgard_roll_keeps_pool_dc_and_label(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"pool": 4, "dc": 2, "bonus": 2, "penalty": 1, "label": "Hack"}
    first = await fake_discord.invoke("aethelgard roll", options, user="player")
    assert first.original.custom_ids() == ["roll:again:1"]
    dicebot.rng = new_rng(21)
    again = await fake_discord.click(first, "roll:again:1", user="player")
    rolled = PoolRoll(d10s(21, 5), 2)
    assert again.embeds[0]["title"].endswith(f" · player: Hack vs DC 2 · {rolled.net} net")
    assert again.embeds[0]["description"] == (
        "🎲 pool: 4 dice + 2 bonus dice − 1 penalty die = 5d10\n" + block(display_lines(rolled))
    )
    assert again.original.custom_ids() == ["roll:again:2"]


async def test_rule_roll_again_under_every_aethelgard_roll_kind(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    commands = {
        "aethelgard opposed": {"pool": 3, "vs_pool": 2},
        "aethelgard attack": {"accuracy": 4, "defense": 1, "damage": 3, "soak": 1, "block": 2},
        "aethelgard craft": {"pool": 5, "bonus": 1},
    }
    for number, (command, options) in enumerate(commands.items()):
        roll_id = 2 * number + 1
        first = await fake_discord.invoke(command, options, user="player")
        assert first.original.custom_ids() == [f"roll:again:{roll_id}"]
        again = await fake_discord.click(first, f"roll:again:{roll_id}", user="player")
        assert again.original.custom_ids() == [f"roll:again:{roll_id + 1}"], command
        logged = await logged_roll(dicebot.storage, roll_id + 1)
        assert logged.payload["options"] == {
            **(await logged_roll(dicebot.storage, roll_id)).payload["options"]
        }
        assert set(options) <= set(logged.payload["options"])


async def test_rule_roll_again_under_a_realms_check_keeps_target_and_sources(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = {"die": "d20", "target": 12, "kind": "save", "advantage": 1}
    first = await fake_discord.invoke("realms check", options, user="player")
    assert first.original.custom_ids() == [
        "roll:again:1", "realms:reroll:1:1", "realms:reroll:1:2",
    ]  # fmt: skip
    dicebot.rng = new_rng(4)
    again = await fake_discord.click(first, "roll:again:1", user="player")
    faces = realms_d20s(4, 2)
    kept = faces.index(max(faces))  # the higher kept (bold), the other struck
    shown = ", ".join(
        f"**{face}**" if number == kept else f"~~{face}~~" for number, face in enumerate(faces)
    )
    assert again.embeds[0]["description"].split("\n")[0] == f"🎲 d20: {shown}"
    assert again.embeds[0]["title"].endswith(f"vs 12 · result {max(faces)}")
    assert again.original.custom_ids()[0] == "roll:again:2"
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.payload["options"]["target"] == 12 and logged.payload["options"]["kind"] == "save"


async def test_rule_roll_again_under_a_realms_attack_and_stealth(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    attack = await fake_discord.invoke(
        "realms attack", {"dice": 2, "to_hit": 10, "damage": "1d6", "split": "1,1"}, user="player"
    )
    again = await fake_discord.click(attack, "roll:again:1", user="player")
    assert (await logged_roll(dicebot.storage, 2)).payload["options"]["split"] == "1,1"
    assert ": attack (to hit 10, 1d6) · " in again.embeds[0]["title"]
    stealth = await fake_discord.invoke("realms stealth", {"dice": 3}, user="player")
    pressed = await fake_discord.click(stealth, "roll:again:3", user="player")
    assert "stealth" in pressed.embeds[0]["title"]


async def test_hidden_rolls_offer_reveal_not_roll_again_in_every_system(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord, "Vex", user="gm")
    hidden: dict[str, dict[str, Any]] = {
        "sixpool check": {"pool": "DEX", "dc": 10},
        "aethelgard roll": {"pool": 3},
        "realms stealth": {"dice": 2},
    }
    for roll_id, (command, options) in enumerate(hidden.items(), start=1):
        reply = await fake_discord.invoke(command, {**options, "hidden": True}, user="gm")
        assert reply.ephemeral and reply.original.custom_ids()[0] == f"roll:reveal:{roll_id}"
        assert f"roll:again:{roll_id}" not in reply.original.custom_ids()


async def test_concurrent_roll_again_presses_under_a_sixpool_check_spend_as_serial_ones(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)  # DEX 8 points
    first = await fake_discord.invoke(
        "sixpool check", {"pool": "DEX", "dc": 10, "spend": 2}, user="player"
    )
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 6
    presses = await asyncio.gather(
        *(
            fake_discord.click(first, "roll:again:1", user="player", stale_client=True)
            for _ in range(10)
        )
    )
    await fake_discord.wait_answered(presses)
    rolled = [press for press in presses if not press.ephemeral]
    # By hand: 6 points left pay for three more spends of 2; the other seven are refused.
    assert len(rolled) == 3
    assert all(press.ephemeral for press in presses if press not in rolled)
    assert (await character(fake_discord, dicebot)).sheet.points(Pool.DEX) == 0
    assert await dicebot.storage.rolls.get(5) is None


async def test_roll_again_under_a_roll_logged_without_its_options_is_refused_clearly(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # An Aethelgard or Realms roll logged before Roll again existed there has no options.
    for kind in ("aethelgard.roll", "realms.check", "sixpool.check"):
        entry = RollEntry(
            campaign_id=None, guild_id=fake_discord.guild_id, channel_id=fake_discord.channel_id,
            user_id=fake_discord.users["player"].id, kind=kind, visibility=Visibility.PUBLIC,
            payload={"result": {}, "embed": {}, "options": {}},
        )  # fmt: skip
        roll_id = await dicebot.storage.rolls.record(entry)
        custom_id = f"roll:again:{roll_id}"
        button = forged(fake_discord, fake_discord.channel_id, custom_id)
        refused = await fake_discord.click(button, custom_id, user="player")
        assert refused.ephemeral and "can't be rolled again" in refused.content, kind
        assert await dicebot.storage.rolls.get(roll_id + 1) is None


async def test_cosmos_opposed_with_a_blank_defender_name_names_the_defender(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Found by the fuzzer once Roll again changed its path: a name of blanks made an empty
    # field name, which Discord refuses (400).
    options = {"attribute": 2, "skill": 1, "vs_attribute": 1, "vs_skill": 2, "vs_name": "   "}
    reply = await fake_discord.invoke("cosmos opposed", options, user="player")
    title = reply.embeds[0]["title"]
    assert not reply.ephemeral and "· player: opposed roll vs the defender · " in title
    # Each side's dice on its own line, the blank name shown as "the defender" (issue 53: no
    # field at all, so no empty field name for Discord to refuse).
    assert "fields" not in reply.embeds[0]
    sides = reply.embeds[0]["description"].removeprefix("🎲 ").split("\n")
    assert len(sides) == 2 and sides[0].startswith("player") and sides[1].startswith("the defender")
    again = await fake_discord.click(reply, "roll:again:1", user="player")
    assert "· player: opposed roll vs the defender · " in again.embeds[0]["title"]
