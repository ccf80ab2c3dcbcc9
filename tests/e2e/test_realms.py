"""`/realms` end to end: attacks, checks, stealth, spells, rerolls, odds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from bot.client import DiceBot
from bot.render.numbers import percent
from bot.storage.realms import TraitStore
from rules.randomness import new_rng
from rules.realms import Trait
from tests.e2e.conftest import hold_message_of
from tests.e2e.test_buttons import restarted
from tests.e2e.test_secrecy import forged
from tests.expect import active_campaign, logged_roll
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def d20s(seed: int, count: int) -> list[int]:
    return [int(f) for f in np.random.default_rng(seed).integers(1, 21, size=count)]


def seed_where(count: int, predicate: Callable[[list[int]], bool]) -> int:
    return next(s for s in range(20_000) if predicate(d20s(s, count)))


def fields(reply: Reply) -> dict[str, str]:
    return {f["name"]: f["value"] for f in reply.embeds[0]["fields"]}


def kept(faces: list[int], face: int) -> str:
    """Two d20 as a reply shows them: the kept one bold, the other struck (issue 53)."""
    index = faces.index(face)
    return ", ".join(f"**{f}**" if n == index else f"~~{f}~~" for n, f in enumerate(faces))


def struck(line: str) -> list[int]:
    """The damage each hitting d20 of a dice line or target note dealt ("19 hits → 7")."""
    return [int(part.split(",")[0].split(" ")[0]) for part in line.split("hits → ")[1:]]


async def test_ruling_realms_attack_extra_die_split_and_bonus_per_target(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(3, lambda faces: all(11 <= f <= 19 for f in faces))
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "realms attack",
        {"dice": 2, "to_hit": 11, "damage": "1d6+1", "split": "1,1", "advantage": 2},
        user="player",
    )
    embed = reply.embeds[0]
    faces = d20s(seed, 3)
    dice, state, *targets = embed["description"].split("\n")
    assert dice == f"🎲 d20: {faces[0]}, {faces[1]}, {faces[2]}"
    assert state == "**Advantage**: 2 advantages → at advantage (they never stack)"
    assert len(targets) == 2 and "fields" not in embed  # each target is a note (issue 53)
    first, second = targets
    # the extra die joins the first target
    assert first.startswith(f"Target 1: #1 {faces[0]} hits → ") and first.count("hits") == 2
    assert f", #2 {faces[1]} hits → " in first
    assert second.startswith(f"Target 2: #3 {faces[2]} hits → ") and second.count("hits") == 1
    damages = []
    for target in targets:
        rolled = struck(target)
        damage = sum(rolled) + 2
        sums = " + ".join(map(str, rolled))
        assert target.endswith(
            f" · {damage} damage: {sums} + 2 advantage, once for this target; riders apply"
        )
        damages.append(damage)
    assert embed["title"] == (
        f"✅ Hit · player: attack (to hit 11, 1d6+1) · {damages[0]} + {damages[1]} damage"
    )
    assert (await logged_roll(dicebot.storage, 1)).kind == "realms.attack"


async def test_ruling_realms_zero_dice_and_half_movement(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(2, lambda faces: faces[0] != faces[1] and max(faces) < 10)
    dicebot.rng = new_rng(seed)
    reply = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "disadvantage": 1}
    )
    embed = reply.embeds[0]
    faces = d20s(seed, 2)
    # No strike die left: two d20, the lower is the one strike (it misses: both under 10).
    assert embed["description"] == (
        f"🎲 d20, two with the lower kept: {kept(faces, min(faces))}\n"
        "**Disadvantage**: 1 disadvantage → at disadvantage; half movement this round"
    )
    assert embed["title"] == "❌ Miss · gm: attack (to hit 10, 1d8) · 0 damage"
    assert "fields" not in embed


async def test_hidden_gm_attack_shows_nothing_to_the_channel(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    dicebot.rng = new_rng(seed_where(1, lambda faces: faces[0] == 20))
    hidden = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "hidden": True}, user="gm"
    )
    assert hidden.ephemeral and hidden.embeds[0]["title"].startswith("✨ NATURAL 20 · Hit")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    refused = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1d8", "hidden": True}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    bad = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 10, "damage": "1000d1000"}
    )
    assert bad.ephemeral and "dice like 1d8+1" in bad.content


async def test_ruling_realms_check_mix_cancels_and_natural_20_is_in_the_title_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    mixed = await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "advantage": 2, "disadvantage": 1}
    )
    assert "2 advantages + 1 disadvantage → straight roll" in mixed.embeds[0]["description"]
    assert mixed.embeds[0]["description"].count(",") == 0  # one die rolled
    dicebot.rng = new_rng(seed_where(2, lambda faces: max(faces) == 20))
    natural = await fake_discord.invoke(
        "realms check", {"die": "d20", "target": 15, "advantage": 1}, user="player"
    )
    faces = d20s(seed_where(2, lambda faces: max(faces) == 20), 2)
    assert natural.embeds[0]["description"] == (
        f"🎲 d20: {kept(faces, 20)}\n**Advantage**: 1 advantage → at advantage"
    )
    # The target reached is the title's alone (issue 53): no field restates it.
    assert natural.embeds[0]["title"] == (
        "✨ NATURAL 20 · Success · player: check (d20) vs 15 · result 20"
    )
    assert "fields" not in natural.embeds[0]
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to settle")
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # no second embed
    wrong = await fake_discord.invoke("realms check", {"die": "d20", "kind": "competition"})
    assert wrong.ephemeral and "A competition uses a d12" in wrong.content


async def test_stealth_and_spell(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    pool = await fake_discord.invoke("realms stealth", {"dice": 1, "disadvantage": 1})
    # The lower of two d6 is the Awareness target, the title's total (issue 53).
    dice = pool.embeds[0]["description"].split("\n")[0]
    assert dice.startswith("🎲 d6, keep the lower: ")
    faces = [int(face.strip("*~")) for face in dice.split(": ")[1].split(", ")]
    assert dice == f"🎲 d6, keep the lower: {kept(faces, min(faces))}"
    assert pool.embeds[0]["title"] == f"🎲 gm: stealth · Awareness target {min(faces)}"
    cost = await fake_discord.invoke(
        "realms spell", {"kind": "incantation", "cost": 0, "advantage": 1}
    )
    assert "**Spirit cost 0 → 0**" in cost.embeds[0]["description"]
    axiom = await fake_discord.invoke("realms spell", {"kind": "axiom", "disadvantage": 1})
    assert "**Casting time doubled**" in axiom.embeds[0]["description"]


async def test_ruling_realms_reroll_one_die_once_of_your_latest_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    nothing = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert nothing.ephemeral and "your latest roll here" in nothing.content
    await fake_discord.invoke("realms check", {"die": "d12", "kind": "competition"}, user="player")
    dicebot.rng = new_rng(seed_where(2, lambda faces: True))
    await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "disadvantage": 1}, user="player"
    )
    seed = 3
    dicebot.rng = new_rng(seed)
    again = await fake_discord.invoke("realms reroll", {"position": 2}, user="player")
    assert not again.ephemeral
    rerolled = fields(again)["Rerolled die 2"]
    assert f"→ **{d20s(seed, 1)[0]}**" in rerolled  # the save (the latest roll), not the d12
    logged = await logged_roll(dicebot.storage, 3)
    assert logged.payload["rerolled_from"] == 2
    twice = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert twice.ephemeral and "rerolled already" in twice.content
    others = await fake_discord.invoke("realms reroll", {"position": 1}, user="gm")
    assert others.ephemeral  # the GM has no roll of their own here


async def test_rule_a_typed_reroll_takes_the_die_buttons_off_the_rolls_message(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Issue 37: a die is rerolled once per roll, so once typed the message's die buttons go;
    # and a newer roll takes them off the older roll's message (only the latest is rerolled).
    first = await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "advantage": 1}, user="player"
    )
    assert first.original.custom_ids() == ["roll:again:1", "realms:reroll:1:1", "realms:reroll:1:2"]
    # Typed at once, as the test does: the roll's message id may not be stored yet (it is,
    # just after the reply); the buttons go all the same.
    typed = await fake_discord.invoke("realms reroll", {"position": 2}, user="player")
    assert not typed.ephemeral and "Rerolled die 2" in fields(typed)
    await fake_discord.wait_until(
        lambda: first.original.custom_ids() == ["roll:again:1"], "roll #1's die buttons to go"
    )
    second = await fake_discord.invoke("realms stealth", {"dice": 2}, user="player")
    assert second.original.custom_ids() == [
        "roll:again:3",
        "realms:reroll:3:1",
        "realms:reroll:3:2",
    ]
    third = await fake_discord.invoke("realms check", {"die": "d20"}, user="player")
    assert third.original.custom_ids() == ["roll:again:4", "realms:reroll:4:1"]
    await fake_discord.wait_until(
        lambda: second.original.custom_ids() == ["roll:again:3"], "roll #3's die buttons to go"
    )
    assert third.original.custom_ids() == ["roll:again:4", "realms:reroll:4:1"]  # the latest


async def test_concurrent_rolls_leave_die_buttons_only_under_the_latest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Six rolls at once by one roller: whatever order they are shown in, in the end only the
    # latest roll's message offers its die (serially: each roll takes them off the one before).
    replies = await asyncio.gather(
        *(fake_discord.send("realms check", {"die": "d20"}, user="player") for _ in range(6))
    )
    await fake_discord.wait_answered(replies)
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the bot to settle")
    by_id = {
        int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #")): reply for reply in replies
    }
    assert sorted(by_id) == list(range(1, 7))
    for roll_id, reply in by_id.items():
        expected = [f"roll:again:{roll_id}"]
        if roll_id == 6:
            expected.append("realms:reroll:6:1")
        assert reply.original.custom_ids() == expected, roll_id


async def test_reroll_works_after_a_restart(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await fake_discord.invoke("realms stealth", {"dice": 3}, user="player")
    async with restarted(fake_discord, dicebot, seed=9):
        again = await fake_discord.invoke("realms reroll", {"position": 3}, user="player")
        assert not again.ephemeral and "Rerolled die 3" in fields(again)


async def test_odds_for_a_check_and_an_attack_with_charts(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    check = await fake_discord.invoke("realms odds", {"die": "d20", "target": 15})
    assert check.embeds[0]["description"].startswith("Straight **30.00%**")
    name, png = check.attachments[0]
    assert name == "odds.png" and png.startswith(PNG_SIGNATURE)
    attack = await fake_discord.invoke(
        "realms odds", {"dice": 2, "to_hit": 11, "damage": "1d8+1", "split": "1,1"}
    )
    assert set(fields(attack)) == {"Hits", "Target 1 (1 strike)", "Target 2 (1 strike)"}
    assert "Missed: 50.00%" in fields(attack)["Target 1 (1 strike)"]  # 10 of 20 faces miss
    assert attack.attachments[0][1].startswith(PNG_SIGNATURE)
    incomplete = await fake_discord.invoke("realms odds", {"dice": 2})
    assert incomplete.ephemeral and "need `dice`, `to_hit` and `damage`" in incomplete.content


# --- After the rules audit: the primary attack's ±2, the GM's forced state, concentration


async def test_rule_realms_bonus_damage_applies_to_the_primary_attack_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(2, lambda faces: all(11 <= f <= 19 for f in faces))
    options = {"dice": 1, "to_hit": 11, "damage": "1d6", "advantage": 1}
    dicebot.rng = new_rng(seed)
    primary = await fake_discord.invoke("realms attack", options, user="player")
    faces = d20s(seed, 2)
    dice = primary.embeds[0]["description"].split("\n")[0]
    assert dice.startswith(f"🎲 d20: {faces[0]} hits → ") and f", {faces[1]} hits → " in dice
    rolled = struck(dice)
    sums = " + ".join(map(str, rolled))
    assert primary.embeds[0]["description"].split("\n")[1:] == [
        "**Advantage**: 1 advantage → at advantage",
        f"Damage {sums} + 2 advantage, once for this target; riders apply.",
    ]
    assert primary.embeds[0]["title"].endswith(f" · {sum(rolled) + 2} damage")
    dicebot.rng = new_rng(seed)
    secondary = await fake_discord.invoke(
        "realms attack", {**options, "primary": False}, user="player"
    )
    # The extra die, not the +2: both strikes' damage summed, nothing added.
    assert secondary.embeds[0]["description"] == (
        f"{dice}\n"
        "**Advantage**: 1 advantage → at advantage\n"
        "Secondary attack (off-hand, opportunity): no ±2 damage\n"
        f"Damage {sums}; riders apply."
    )
    assert secondary.embeds[0]["title"].endswith(f" · {sum(rolled)} damage")
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.payload["result"]["primary"] is False
    assert [t["shift"] for t in logged.payload["result"]["targets"]] == [0]


async def test_rule_realms_gm_forces_the_state_over_the_cancel_rule(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    seed = seed_where(2, lambda faces: faces[0] != faces[1])
    dicebot.rng = new_rng(seed)
    mixed = {"die": "d20", "kind": "save", "target": 11, "advantage": 1, "disadvantage": 1}
    forced = await fake_discord.invoke(
        "realms check", {**mixed, "force": "disadvantage"}, user="gm"
    )
    description = forced.embeds[0]["description"]
    assert not forced.ephemeral
    low = min(d20s(seed, 2))
    assert description == (
        f"🎲 d20: {kept(d20s(seed, 2), low)}\n"
        "**Disadvantage**: forced by the GM, overriding 1 advantage + 1 disadvantage "
        "(a specific effect beats the cancel rule); half movement this round"
    )
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.payload["result"]["decision"]["forced"] is True
    attack = await fake_discord.invoke(
        "realms attack",
        {"dice": 1, "to_hit": 10, "damage": "1d4", "disadvantage": 2, "force": "advantage"},
        user="gm",
    )
    assert (
        attack.embeds[0]["description"].split("\n")[1].startswith("**Advantage**: forced by the GM")
    )
    assert (await logged_roll(dicebot.storage, 2)).payload["result"]["dice"].__len__() == 2


async def test_rule_realms_a_player_may_not_force_the_state(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    for command, options in (
        ("realms check", {"die": "d20", "force": "advantage"}),
        ("realms attack", {"dice": 2, "to_hit": 10, "damage": "1d8", "force": "advantage"}),
        ("realms stealth", {"dice": 2, "force": "disadvantage"}),
        ("realms spell", {"kind": "axiom", "force": "advantage"}),
    ):
        refused = await fake_discord.invoke(command, options, user="player")
        assert refused.ephemeral, command
        assert refused.content.startswith(
            "❌ Only a GM can force advantage or disadvantage (a specific effect the GM rules on)."
        )
    assert await dicebot.storage.rolls.get(1) is None  # nothing rolled, nothing logged
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    spell = await fake_discord.invoke(
        "realms spell", {"kind": "incantation", "cost": 2, "disadvantage": 1, "force": "advantage"}
    )
    assert "**Spirit cost 2 → 1**" in spell.embeds[0]["description"]


async def test_rule_realms_concentration_rolls_as_a_save(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(2, lambda faces: min(faces) < 12 <= max(faces))
    for kind in ("concentration", "save"):
        dicebot.rng = new_rng(seed)
        reply = await fake_discord.invoke(
            "realms check",
            {"die": "d20", "kind": kind, "target": 12, "disadvantage": 1},
            user="player",
        )
        faces = d20s(seed, 2)
        title = f"❌ Failure · player: {kind} (d20) vs 12 · result {min(faces)}"
        assert reply.embeds[0]["title"] == title
        assert reply.embeds[0]["description"] == (
            f"🎲 d20: {kept(faces, min(faces))}\n"
            "**Disadvantage**: 1 disadvantage → at disadvantage; half movement this round"
        )
        assert "fields" not in reply.embeds[0]  # the target missed is the title's (issue 53)
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "realms.check" and logged.payload["result"]["kind"] == "concentration"
    wrong = await fake_discord.invoke(
        "realms check", {"die": "d12", "kind": "concentration"}, user="player"
    )
    assert wrong.ephemeral and "A concentration uses a d20 (got d12)" in wrong.content
    assert await dicebot.storage.rolls.get(3) is None


def _enumerated_target(
    strikes: int, kept_lower: bool, to_hit: int, sides: int, shift: int
) -> dict[int, Fraction]:
    """One target's damage by enumerating every d20 and every 1d<sides> of damage."""
    weights: dict[int, int] = {}
    rolled = 2 if kept_lower else strikes
    for faces in product(range(1, 21), repeat=rolled):
        strikes_faces = (min(faces),) if kept_lower else faces
        hitting = [f for f in strikes_faces if f == 20 or f >= to_hit]
        for damages in product(range(1, sides + 1), repeat=len(hitting)):
            weight = sides ** (len(strikes_faces) - len(hitting))
            raw = sum(damages) + shift
            value = 0 if not hitting else raw if raw > 0 else (1 if 20 in hitting else 0)
            weights[value] = weights.get(value, 0) + weight
    total = sum(weights.values())
    return {value: Fraction(weight, total) for value, weight in weights.items()}


def _summary(chances: dict[int, Fraction]) -> str:
    mean = sum((value * chance for value, chance in chances.items()), Fraction(0))
    return f"Missed: {percent(chances.get(0, Fraction(0)))} · mean damage {float(mean):.2f}"


async def test_odds_cover_secondary_and_forced_attacks_by_enumeration(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # A 1d20 attack whose mix would cancel, forced to advantage: two strikes, each 1d4.
    query = {"dice": 1, "to_hit": 11, "damage": "1d4", "advantage": 1, "disadvantage": 1}
    for primary, shift in ((True, 2), (False, 0)):
        reply = await fake_discord.invoke(
            "realms odds", {**query, "force": "advantage", "primary": primary}, user="player"
        )
        assert not reply.ephemeral  # odds are a what-if: anyone may ask about a forced roll
        description = reply.embeds[0]["description"]
        assert description.startswith("**Advantage**: forced by the GM")
        assert ("Secondary attack" in description) is not primary
        [first] = _summary(_enumerated_target(2, False, 11, 4, shift)).split("\n")
        assert fields(reply)["Target 1 (2 strikes)"].startswith(first)
    # Forced to disadvantage: 1d20 loses its die, two rolled keep the lower; -2 if primary.
    for primary, shift in ((True, -2), (False, 0)):
        reply = await fake_discord.invoke(
            "realms odds", {**query, "force": "disadvantage", "primary": primary}
        )
        expected = _summary(_enumerated_target(1, True, 11, 4, shift))
        assert fields(reply)["Target 1 (1 strike)"].startswith(expected)


async def test_odds_of_a_forced_check_by_enumeration(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    pairs = list(product(range(1, 21), repeat=2))
    straight = percent(Fraction(sum(a >= 14 for a in range(1, 21)), 20))
    higher = percent(Fraction(sum(max(a, b) >= 14 for a, b in pairs), 400))
    lower = percent(Fraction(sum(min(a, b) >= 14 for a, b in pairs), 400))
    reply = await fake_discord.invoke(
        "realms odds", {"die": "d20", "target": 14, "advantage": 2, "force": "disadvantage"}
    )
    assert reply.embeds[0]["description"] == (
        f"Straight {straight} · advantage {higher} · disadvantage **{lower}**\n"
        "**Disadvantage**: forced by the GM, overriding 2 advantages "
        "(a specific effect beats the cancel rule); half movement this round"
    )
    mixed = await fake_discord.invoke(
        "realms odds", {"die": "d20", "target": 14, "advantage": 1, "disadvantage": 1}
    )
    assert mixed.embeds[0]["description"].startswith(
        f"Straight **{straight}** · advantage {higher} · disadvantage {lower}\n"
    )
    bad = await fake_discord.invoke(
        "realms odds", {"die": "d20", "target": 14, "force": "both"}, stale_client=True
    )
    assert bad.ephemeral and "force" in bad.content


# --- The reply: a verdict and total in the title, a breakdown that names every number


async def test_realms_title_has_the_verdict_and_a_straight_roll_says_nothing_of_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(1, lambda faces: 10 <= faces[0] <= 19)
    dicebot.rng = new_rng(seed)
    [face] = d20s(seed, 1)
    save = await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "target": 10}, user="player"
    )
    assert save.embeds[0]["title"] == f"✅ Success · player: save (d20) vs 10 · result {face}"
    assert save.embeds[0]["description"] == f"🎲 d20: {face}"
    assert "fields" not in save.embeds[0]  # the target reached is the title's (issue 53)
    dicebot.rng = new_rng(seed)
    plain = await fake_discord.invoke("realms check", {"die": "d20"}, user="player")
    assert plain.embeds[0]["title"] == f"🎲 player: check (d20) · result {face}"
    dicebot.rng = new_rng(seed_where(1, lambda faces: faces[0] != 20))
    miss = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 21, "damage": "1d4"}, user="player"
    )  # only a natural 20 could hit
    assert miss.embeds[0]["title"] == "❌ Miss · player: attack (to hit 21, 1d4) · 0 damage"
    assert "\n" not in miss.embeds[0]["description"]  # a straight roll: no state line
    assert not miss.embeds[0]["description"].startswith("🎲 **Normal**")


async def test_realms_damage_breakdown_names_every_number(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Two strikes that hit (11-19), straight: the damage is their sum, with no "14 = 14".
    seed = seed_where(2, lambda faces: all(11 <= f <= 19 for f in faces))
    dicebot.rng = new_rng(seed)
    straight = await fake_discord.invoke(
        "realms attack", {"dice": 2, "to_hit": 11, "damage": "1d6+8"}, user="player"
    )
    faces = d20s(seed, 2)
    dice, note = straight.embeds[0]["description"].split("\n")
    first, second = struck(dice)
    assert dice == f"🎲 d20: {faces[0]} hits → {first}, {faces[1]} hits → {second}"
    assert note == f"Damage {first} + {second}; riders apply."  # the sum is the title's
    assert straight.embeds[0]["title"] == (
        f"✅ Hit · player: attack (to hit 11, 1d6+8) · {first + second} damage"
    )
    # One strike at advantage's extra die... on a split: each target names its +2.
    dicebot.rng = new_rng(seed)
    split = await fake_discord.invoke(
        "realms attack",
        {"dice": 1, "to_hit": 11, "damage": "1d6+8", "split": "1,1", "advantage": 1},
        user="player",
    )
    totals = []
    dice, state, *targets = split.embeds[0]["description"].split("\n")
    assert dice == f"🎲 d20: {faces[0]}, {faces[1]}"
    assert state == "**Advantage**: 1 advantage → at advantage"
    assert len(targets) == 2 and "fields" not in split.embeds[0]
    for number, (face, target) in enumerate(zip(faces, targets, strict=True), start=1):
        [rolled] = struck(target)
        assert target == (
            f"Target {number}: #{number} {face} hits → {rolled} · {rolled + 2} damage: "
            f"{rolled} + 2 advantage, once for this target; riders apply"
        )
        totals.append(rolled + 2)
    assert split.embeds[0]["title"] == (
        f"✅ Hit · player: attack (to hit 11, 1d6+8) · {totals[0]} + {totals[1]} damage"
    )
    single = await fake_discord.invoke(
        "realms attack", {"dice": 1, "to_hit": 1, "damage": "1d4"}, user="player"
    )
    # the hit and its damage, then only that riders apply: no sum of one number
    assert single.embeds[0]["description"].split("\n")[1:] == ["Riders apply."]
    assert " hits" in single.embeds[0]["description"] and "fields" not in single.embeds[0]


# --- The reroll trait by a button per die (persistent, once, its roller's latest roll only)


def labels(reply: Reply) -> list[str]:
    rows = reply.original.components
    return [button["label"] for row in rows for button in row["components"]]


async def test_realms_reroll_by_a_button_per_die(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    seed = seed_where(2, lambda faces: True)
    dicebot.rng = new_rng(seed)
    save = await fake_discord.invoke(
        "realms check", {"die": "d20", "kind": "save", "disadvantage": 1}, user="player"
    )
    first, second = d20s(seed, 2)
    assert save.original.custom_ids() == ["roll:again:1", "realms:reroll:1:1", "realms:reroll:1:2"]
    assert labels(save) == ["Roll again", f"Reroll die 1 ({first})", f"Reroll die 2 ({second})"]
    stranger = await fake_discord.click(save, "realms:reroll:1:2", user="gm")
    player_id = fake_discord.users["player"].id
    assert stranger.ephemeral
    assert f"Only <@{player_id}>, who made roll #1, can reroll its dice." in stranger.content
    assert await dicebot.storage.rolls.get(2) is None
    dicebot.rng = new_rng(5)
    [new_face] = d20s(5, 1)
    pressed = await fake_discord.click(save, "realms:reroll:1:2", user="player")
    assert not pressed.ephemeral
    assert fields(pressed)["Rerolled die 2"].startswith(f"{second} → **{new_face}** (once;")
    # Edited in place: no die is left to reroll, the reroll can be rolled again.
    assert save.original.custom_ids() == ["roll:again:2"]
    assert save.embeds[0]["footer"]["text"].startswith("Roll #2")
    logged = await logged_roll(dicebot.storage, 2)
    assert logged.payload["rerolled_from"] == 1
    assert logged.payload["result"]["dice"] == [first, new_face]
    replayed = forged(fake_discord, fake_discord.channel_id, "realms:reroll:1:1")
    again = await fake_discord.click(replayed, "realms:reroll:1:1", user="player")
    assert again.ephemeral and "Roll #1 was rerolled already" in again.content
    assert await dicebot.storage.rolls.get(3) is None


async def test_realms_die_button_under_an_older_roll_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = await fake_discord.invoke("realms stealth", {"dice": 2}, user="player")
    release = hold_message_of(dicebot, monkeypatch, 2)  # the press comes before it retires #1
    newer = await fake_discord.invoke(
        "realms attack", {"dice": 2, "to_hit": 10, "damage": "1d4", "advantage": 1}, user="player"
    )
    assert newer.original.custom_ids() == [
        "roll:again:2",
        *(f"realms:reroll:2:{n}" for n in (1, 2, 3)),
    ]
    superseded = await fake_discord.click(old, "realms:reroll:1:1", user="player")
    release.set()
    assert superseded.ephemeral
    assert "Roll #1 is no longer your latest roll here" in superseded.content
    assert await dicebot.storage.rolls.get(3) is None
    past = forged(fake_discord, fake_discord.channel_id, "realms:reroll:2:9")
    beyond = await fake_discord.click(past, "realms:reroll:2:9", user="player")
    assert beyond.ephemeral and "Position must be between 1 and 3" in beyond.content
    assert await dicebot.storage.rolls.get(3) is None


async def test_realms_die_buttons_are_offered_as_far_as_the_roll_is_seen(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    blind = await fake_discord.invoke("realms check", {"die": "d20", "blind": True}, user="player")
    assert blind.components == []  # the buttons would show the dice the roller may not see
    hidden = await fake_discord.invoke(
        "realms check", {"die": "d20", "hidden": True, "advantage": 1}, user="gm"
    )
    assert hidden.ephemeral
    assert hidden.original.custom_ids() == [
        "roll:reveal:2", "realms:reroll:2:1", "realms:reroll:2:2",
    ]  # fmt: skip
    pressed = await fake_discord.click(hidden, "realms:reroll:2:1", user="gm")
    assert pressed.ephemeral and "Rerolled die 1" in fields(pressed)
    assert hidden.original.custom_ids() == ["roll:reveal:3"]  # the reroll: Reveal, no dice
    assert (await logged_roll(dicebot.storage, 3)).visibility.value == "hidden"
    # In a campaign the reroll is a trait: the player's pool offers its dice once they hold it.
    await fake_discord.invoke("realms trait add", {"user": fake_discord.users["player"]})
    pool = await fake_discord.invoke("realms stealth", {"dice": 20, "advantage": 1}, user="player")
    assert len(pool.original.custom_ids()) == 22  # Roll again, 21 dice: Discord allows 25


async def test_realms_die_button_works_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll = await fake_discord.invoke("realms stealth", {"dice": 3}, user="player")
    async with restarted(fake_discord, dicebot, seed=9):
        pressed = await fake_discord.click(roll, "realms:reroll:1:3", user="player")
        assert not pressed.ephemeral and "Rerolled die 3" in fields(pressed)


async def test_realms_concurrent_presses_of_a_die_button_reroll_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll = await fake_discord.invoke("realms check", {"die": "d20", "advantage": 1}, user="player")
    assert roll.original.custom_ids() == ["roll:again:1", "realms:reroll:1:1", "realms:reroll:1:2"]
    presses = 20  # each a replay of the message as it was (a double click, a slow client)
    custom_ids = [f"realms:reroll:1:{1 + n % 2}" for n in range(presses)]
    replies = await asyncio.gather(
        *(
            fake_discord.click(forged(fake_discord, fake_discord.channel_id, c), c, user="player")
            for c in custom_ids
        )
    )
    done = [reply for reply in replies if not reply.ephemeral]
    refused = [reply for reply in replies if reply.ephemeral]
    assert (len(done), len(refused)) == (1, presses - 1)  # as serial presses: the first rerolls
    assert all("Roll #1 was rerolled already" in reply.content for reply in refused)
    assert (await logged_roll(dicebot.storage, 2)).payload["rerolled_from"] == 1
    assert await dicebot.storage.rolls.get(3) is None


# --- The reroll is a trait (RULINGS: the document's "chance trait", not everyone's): in a
# campaign only its holders and a GM (their own rolls) reroll; outside one, anyone, as before.

NEEDS_THE_TRAIT = (
    "❌ You can't reroll in this campaign yet; the reroll is a trait: a GM gives it with "
    "`/realms trait add` (a GM may always reroll their own rolls)."
)


async def start_realms(fake: FakeDiscord) -> None:
    started = await fake.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    assert not started.ephemeral, started.content


async def trait(fake: FakeDiscord, action: str, user: str = "player", by: str = "gm") -> Reply:
    return await fake.invoke(f"realms trait {action}", {"user": fake.users[user]}, user=by)


async def test_ruling_realms_reroll_is_a_trait_given_and_taken_by_the_gm(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)
    player = fake_discord.users["player"].id
    # Without the trait: no die buttons under the roll, and `/realms reroll` is refused.
    plain = await fake_discord.invoke("realms check", {"die": "d20", "advantage": 1}, user="player")
    assert plain.original.custom_ids() == ["roll:again:1"]
    refused = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert refused.ephemeral and refused.content == NEEDS_THE_TRAIT
    assert await dicebot.storage.rolls.get(2) is None
    # Given: announced to the table; the next roll carries its dice and rerolls, typed or pressed.
    given = await trait(fake_discord, "add")
    assert not given.ephemeral
    assert given.content.startswith(f"🍀 <@{player}> has the reroll trait: they may reroll one")
    typed = await fake_discord.invoke("realms reroll", {"position": 2}, user="player")
    assert not typed.ephemeral and "Rerolled die 2" in fields(typed)  # roll #1 is still latest
    attack = await fake_discord.invoke(
        "realms attack", {"dice": 2, "to_hit": 10, "damage": "1d6"}, user="player"
    )
    assert attack.original.custom_ids() == [
        "roll:again:3", "realms:reroll:3:1", "realms:reroll:3:2",
    ]  # fmt: skip
    pressed = await fake_discord.click(attack, "realms:reroll:3:1", user="player")
    assert not pressed.ephemeral and "Rerolled die 1" in fields(pressed)
    # Taken: announced; refused again, and the next roll offers no die.
    taken = await trait(fake_discord, "remove")
    assert not taken.ephemeral
    assert taken.content.startswith(f"🍂 <@{player}> no longer has the reroll trait")
    save = await fake_discord.invoke("realms check", {"die": "d20", "kind": "save"}, user="player")
    assert save.original.custom_ids() == ["roll:again:5"]
    again = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert again.ephemeral and again.content == NEEDS_THE_TRAIT
    assert await dicebot.storage.rolls.get(6) is None


async def test_ruling_realms_reroll_trait_a_gms_own_roll_carries_its_dice(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)
    own = await fake_discord.invoke("realms stealth", {"dice": 2}, user="gm")
    assert own.original.custom_ids() == ["roll:again:1", "realms:reroll:1:1", "realms:reroll:1:2"]
    pressed = await fake_discord.click(own, "realms:reroll:1:2", user="gm")
    assert not pressed.ephemeral and "Rerolled die 2" in fields(pressed)
    managing = await fake_discord.invoke("realms check", {"die": "d20"}, user="admin")
    assert managing.original.custom_ids() == ["roll:again:3", "realms:reroll:3:1"]  # a GM too
    # A GM's own rolls only: a player's roll (with the trait) is its roller's to reroll.
    await trait(fake_discord, "add")
    theirs = await fake_discord.invoke("realms check", {"die": "d20"}, user="player")
    assert theirs.original.custom_ids() == ["roll:again:4", "realms:reroll:4:1"]
    stolen = await fake_discord.click(theirs, "realms:reroll:4:1", user="gm")
    player = fake_discord.users["player"].id
    assert stolen.ephemeral
    assert f"Only <@{player}>, who made roll #4, can reroll its dice." in stolen.content
    assert await dicebot.storage.rolls.get(5) is None


async def test_ruling_realms_reroll_trait_a_forged_or_stale_press_by_a_non_holder_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)
    roll = await fake_discord.invoke("realms check", {"die": "d20", "advantage": 1}, user="player")
    assert roll.original.custom_ids() == ["roll:again:1"]
    before = await logged_roll(dicebot.storage, 1)
    button = forged(fake_discord, fake_discord.channel_id, "realms:reroll:1:1")
    refused = await fake_discord.click(button, "realms:reroll:1:1", user="player")
    assert refused.ephemeral and refused.content == NEEDS_THE_TRAIT
    assert await dicebot.storage.rolls.get(2) is None
    assert (await logged_roll(dicebot.storage, 1)).payload == before.payload
    assert roll.original.custom_ids() == ["roll:again:1"]
    # Stale: the trait was taken after the roll showed its dice; the button no longer rerolls.
    await trait(fake_discord, "add")
    shown = await fake_discord.invoke("realms stealth", {"dice": 2}, user="player")
    await trait(fake_discord, "remove")
    stale = await fake_discord.click(shown, "realms:reroll:2:2", user="player")
    assert stale.ephemeral and stale.content == NEEDS_THE_TRAIT
    assert await dicebot.storage.rolls.get(3) is None
    assert shown.original.custom_ids() == ["roll:again:2", "realms:reroll:2:1", "realms:reroll:2:2"]


async def test_ruling_realms_reroll_trait_only_a_gm_gives_or_takes_it_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    traits = TraitStore(dicebot.storage.database)
    by_player = await trait(fake_discord, "add", by="player")
    assert by_player.ephemeral
    assert by_player.content.startswith("❌ Only a GM can give the reroll trait. GMs are")
    assert await traits.holders(campaign, Trait.REROLL) == []
    taking = await trait(fake_discord, "remove", by="player")
    assert taking.ephemeral and taking.content.startswith("❌ Only a GM can take the reroll trait.")
    player = fake_discord.users["player"].id
    missing = await trait(fake_discord, "remove")
    assert missing.ephemeral
    assert missing.content.startswith(f"❌ <@{player}> doesn't have the reroll trait here;")
    assert not (await trait(fake_discord, "add")).ephemeral
    twice = await trait(fake_discord, "add", by="admin")  # a GM by Manage Server
    assert twice.ephemeral
    assert twice.content == f"❌ <@{player}> already has the reroll trait here; nothing changed."
    assert await traits.holders(campaign, Trait.REROLL) == [player]


async def test_ruling_realms_reroll_trait_needs_an_enchanted_realms_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    nowhere = await trait(fake_discord, "add")
    assert nowhere.ephemeral and nowhere.content == (
        "❌ This channel has no running campaign; this needs an Enchanted Realms campaign. "
        "Start one with `/campaign start`."
    )
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Far"}, user="gm")
    elsewhere = await trait(fake_discord, "add")
    assert elsewhere.ephemeral and elsewhere.content == (
        "❌ This channel runs the Cosmos Engine campaign **Far**; this needs Enchanted Realms: "
        "use a channel running one, or start one with `/campaign start system:realms` in a "
        "channel that has none."
    )
    # No trait can be given in another system's campaign: a `/realms` roll there is as one
    # outside any campaign, its roller rerolls it.
    roll = await fake_discord.invoke("realms check", {"die": "d20"}, user="player")
    assert roll.original.custom_ids() == ["roll:again:1", "realms:reroll:1:1"]
    rerolled = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert not rerolled.ephemeral and "Rerolled die 1" in fields(rerolled)


async def test_ruling_realms_reroll_trait_binds_in_a_campaign_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)
    refused = await fake_discord.invoke("realms check", {"die": "d20"}, user="player")
    assert refused.original.custom_ids() == ["roll:again:1"]
    # A channel with no campaign: anyone rerolls their own latest roll, as before the ruling.
    free = fake_discord.other_channel_id
    roll = await fake_discord.invoke(
        "realms check", {"die": "d20", "advantage": 1}, user="player", channel=free
    )
    assert roll.original.custom_ids() == ["roll:again:2", "realms:reroll:2:1", "realms:reroll:2:2"]
    pressed = await fake_discord.click(roll, "realms:reroll:2:2", user="player")
    assert not pressed.ephemeral and "Rerolled die 2" in fields(pressed)
    await fake_discord.invoke("realms stealth", {"dice": 2}, user="player", channel=free)
    typed = await fake_discord.invoke("realms reroll", {"position": 1}, user="player", channel=free)
    assert not typed.ephemeral and "Rerolled die 1" in fields(typed)
    still = await fake_discord.invoke("realms reroll", {"position": 1}, user="player")
    assert still.ephemeral and still.content == NEEDS_THE_TRAIT  # the campaign's channel


async def test_ruling_realms_reroll_trait_campaign_info_lists_its_holders(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_realms(fake_discord)

    async def traits_field() -> str:
        info = await fake_discord.invoke("campaign info", {}, user="player")
        return fields(info)["Traits"]

    assert await traits_field() == (
        "Reroll trait: nobody yet (a GM gives it with `/realms trait add`)"
    )
    await trait(fake_discord, "add", user="admin")
    await trait(fake_discord, "add", user="player")
    ids = sorted(fake_discord.users[name].id for name in ("admin", "player"))
    assert await traits_field() == f"Reroll trait: <@{ids[0]}>, <@{ids[1]}>"
    # However many hold it, the line stays within a field's 1,024 characters.
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    store = TraitStore(dicebot.storage.database)
    for n in range(60):
        await store.grant_trait(campaign, 9 * 10**18 + n, Trait.REROLL, fake_discord.users["gm"].id)
    crowded = await traits_field()
    assert len(crowded) <= 1024 and crowded.endswith(" more")
    assert crowded.startswith(f"Reroll trait: <@{ids[0]}>, <@{ids[1]}>, <@{9 * 10**18}>")
    # Only an Enchanted Realms campaign keeps traits.
    far = fake_discord.other_channel_id
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Far"}, channel=far)
    cosmos_info = await fake_discord.invoke("campaign info", {}, user="player", channel=far)
    assert "Traits" not in fields(cosmos_info)
