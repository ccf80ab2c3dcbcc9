"""The reply kinds ``test_snapshots`` renders beyond ``test_reply_layout.CASES`` (issue 53):
each from seeded dice or a fixed rules result, through the render functions the cog calls and
what it adds afterwards (the Luck spent, the pool left, the damage, Pressure, a challenge).

``ROLLS`` are logged rolls (``publish_roll`` puts the roll id under them); ``UNLOGGED`` are
replies that are no roll in the log (a spell, a passive score, a group check's board, a
challenge's end), shown as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import discord

from bot.asker import Asker
from bot.data_tables import load_table
from bot.render import aethelgard as aethelgard_render
from bot.render import cosmos as cosmos_render
from bot.render import realms as realms_render
from bot.render import sinew as sinew_render
from bot.render import sinew_pressure as pressure_render
from bot.render import sixpool as sixpool_render
from bot.storage import Character, Visibility
from bot.storage.sixpool import GroupCheck, GroupRoll
from cogs.aethelgard import _bare as bare_pool
from cogs.sixpool.rolls import RollStep, hit_damage
from rules import aethelgard, cosmos, realms, sinew, sinew_pressure, sixpool
from rules.randomness import new_rng

SEED = 7
Render = Callable[[], discord.Embed]


def _sinew_sheet() -> sinew.Sheet:
    return sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)


def _sinew_character(name: str, sheet: sinew.Sheet) -> Character[sinew.Sheet]:
    return Character(id=1, campaign_id=1, user_id=1, name=name, sheet=sheet)


def _sinew_luck_test() -> discord.Embed:
    """`/sinew luck test`: under the current tokens."""
    result = sinew.luck_test(new_rng(SEED), 10)
    return sinew_render.test_result(result, "Alice", "Luck test", "Luck tokens")


def _sinew_luck_spent() -> discord.Embed:
    """`/sinew luck spend tokens:7` on a failed STR test (seed 7: 19 vs 12), as the cog shows
    the roll again after the spend."""
    sheet = _sinew_sheet()
    failed = sinew.attribute_test(new_rng(SEED), sheet, sinew.Score.STR)
    decided = sinew.luck_consequences(failed, sheet, 7, pressure=0, roller="Alice")
    spent = decided.spent
    assert isinstance(spent.after, sinew.TestResult)
    embed = sinew_render.test_result(spent.after, "Alice", "STR test after Luck", "STR")
    sinew_render.add_luck_spent(embed, spent.shift, spent.cost, decided.payer)
    return embed


def _sinew_attack_hit() -> discord.Embed:
    """`/sinew attack` on a player's character (seed 11: a hit for 2): the defender's Stamina
    after it, as ``publish_roll``'s state change shows it."""
    result = sinew.attack(new_rng(11), 12, 10, armour=1)
    embed = sinew_render.attack(result, "Alice", "Bob", labels=("STR", "REF"))
    hurt = sinew.take_damage(_sinew_sheet(), result.damage_taken).sheet
    sinew_render.add_defender_stamina(embed, _sinew_character("Bob", hurt))
    return embed


def _pressure_texts() -> pressure_render.Texts:
    table = load_table("sinew/pressure.toml", sinew_pressure.parse_pressure_table)
    skin = load_table(f"sinew/skins/{sinew.SKIN.default.value}.toml", sinew_pressure.parse_skin)
    return pressure_render.Texts(skin, table)


def _crisis_tamper() -> sinew_pressure.PressureTest:
    """A tamper at Pressure 4 that fails (seed 7): Pressure 5, a Crisis."""
    tested = sinew_pressure.tamper(new_rng(SEED), _sinew_sheet(), 4, sinew.Score.STR)
    assert tested.change is not None and tested.change.crisis is not None
    return tested


def _sinew_tamper_crisis() -> discord.Embed:
    """The tamper's own reply, with the campaign's texts for the step it reached."""
    tested, texts = _crisis_tamper(), _pressure_texts()
    embed = sinew_render.test_result(tested.result, "Alice", "STR test to tamper", "STR")
    change = tested.change
    step = None if change is None else texts.step(change.reached)
    sinew_render.add_pressure_result(embed, change, step, 4)
    return embed


def _sinew_crisis() -> discord.Embed:
    """The Crisis that tamper rolled, logged as a roll and announced (Alice's own track)."""
    change = _crisis_tamper().change
    assert change is not None and change.crisis is not None
    sheet = _sinew_sheet()
    struck = sinew_pressure.crisis_strikes(change.crisis, [sheet])
    stamina = [("Alice", sheet.current_stamina, hit.sheet.current_stamina) for hit in struck]
    return pressure_render.crisis_announcement(
        "Alice", change.crisis, change.after, _pressure_texts(), stamina
    )


def _realms_reroll() -> discord.Embed:
    """`/realms reroll position:1` of a d20 check vs 12, shown over its old embed."""
    rng = new_rng(SEED)
    die, kind = realms.SingleDie.D20, realms.CheckKind.CHECK
    before = realms.check(rng, die, kind, realms.decide(0, 0), 12)
    rerolled = realms.reroll_logged(rng, before, {}, 1)
    old = realms_render.check(before, "Alice")
    assert isinstance(rerolled.after, realms.CheckResult)
    new = realms_render.check(rerolled.after, "Alice")
    return realms_render.rerolled(old, new, 1, rerolled.old_face, rerolled.new_face)


def _sixpool_sheet() -> sixpool.Sheet:
    sheet = sixpool.new_sheet(1, sixpool.Pool.DEX, dict.fromkeys(sixpool.Pool, 8))
    return replace(sheet, skills={"stealth": sixpool.Training.TRAINED})


def _asker() -> Asker:
    return Asker(
        guild_id=1, channel_id=1, user_id=1, campaign=None, is_gm=False, manages_server=False
    )


def _sixpool_step(asked: sixpool.RollAsked) -> RollStep:
    return RollStep(
        new_rng(SEED), asked, sixpool.EdgeOption.B, _asker(), Visibility.PUBLIC, "Alice", None
    )


ATTACK = sixpool.RollAsked(
    kind=sixpool.RollKind.ATTACK, pool=sixpool.Pool.DEX, dc=14, spend=1, damage="1d8+2"
)


def _sixpool_attack_damage() -> discord.Embed:
    """`/sixpool attack pool:DEX ac:14 spend:1 damage:1d8+2`, as the roll step logs it."""
    step = _sixpool_step(ATTACK)
    after = step.spend_and_roll(_sixpool_sheet())
    entry = step.log(_sixpool_character(after))
    return discord.Embed.from_dict(entry.payload["embed"])


def _sixpool_character(sheet: sixpool.Sheet) -> Character[sixpool.Sheet]:
    return Character(id=1, campaign_id=1, user_id=1, name="Alice", sheet=sheet)


def _sixpool_inspiration() -> discord.Embed:
    """Inspiration spent on that attack's die: rerolled, its damage rolled again on a hit."""
    rng = new_rng(SEED)
    prepared = sixpool.prepare_roll(_sixpool_sheet(), ATTACK, sixpool.EdgeOption.B)
    before = sixpool.roll(rng, prepared.parts, ATTACK.dc)
    after = sixpool.reroll_die(rng, before, 0)
    note = f"Inspiration spent: die 1 rerolled, {before.dice[0]} → {after.dice[0]}."
    what = sixpool_render.roll_label(ATTACK)
    embed = sixpool_render.roll_result(after, "Alice", what, (note,), kind=ATTACK.kind)
    sixpool_render.add_damage(embed, hit_damage(rng, after, ATTACK.damage), ATTACK.damage)
    return embed


STEALTH = sixpool.RollAsked(
    kind=sixpool.RollKind.CHECK, pool=sixpool.Pool.DEX, dc=15, skill="stealth"
)


def _sixpool_take() -> discord.Embed:
    """`/sixpool take pool:DEX dc:15 value:20 skill:stealth`: nothing rolled or spent."""
    parts = sixpool.roll_modifiers(_sixpool_sheet(), STEALTH, sixpool.EdgeOption.B, ())
    result = sixpool.take(parts, STEALTH.dc, 20)
    return sixpool_render.roll_result(result, "Alice", sixpool_render.roll_label(STEALTH))


def _sixpool_passive() -> discord.Embed:
    """`/sixpool passive pool:DEX skill:stealth`: 10 + modifiers, no roll."""
    asked = replace(STEALTH, dc=0)
    parts = sixpool.roll_modifiers(_sixpool_sheet(), asked, sixpool.EdgeOption.B, ())
    what = sixpool.skill_name("stealth")
    return sixpool_render.passive("Alice", what, parts, sixpool.passive(parts))


def _sixpool_group_roll() -> discord.Embed:
    """A participant's roll in a group check (spend 1), as ``groups`` renders it."""
    asked = replace(STEALTH, spend=1)
    prepared = sixpool.prepare_roll(_sixpool_sheet(), asked, sixpool.EdgeOption.B)
    result = sixpool.roll(new_rng(SEED), prepared.parts, asked.dc, advantage=prepared.advantage)
    what = f"group {sixpool_render.roll_label(asked)}"
    notes = sixpool_render.roll_notes(prepared, False)
    embed = sixpool_render.roll_result(result, "Alice", what, notes)
    sixpool_render.add_pool_left(embed, prepared.after, asked.pool, asked.spend)
    return embed


def _sixpool_group_closed() -> discord.Embed:
    """A group check closed by the GM after three rolls (two of three succeeded)."""
    rolls = (
        GroupRoll(1, "Alice", 41, 23, True),
        GroupRoll(2, "Bob", 42, 9, False),
        GroupRoll(3, "Cara", 43, 17, True),
    )
    group = GroupCheck(
        id=1, campaign_id=1, channel_id=1, dc=15, pool="DEX", skill="stealth", status="closed",
        expires_at=0.0, message_id=None, leader_id=None, boosted_id=None, boost=0, rolls=rolls,
    )  # fmt: skip
    return sixpool_render.group_check(group)


def _cosmos_rolled() -> cosmos.CheckResult:
    return cosmos.roll(new_rng(SEED), attribute=3, skill=2, tn=15, advantage=1)


def _cosmos_challenge_roll() -> discord.Embed:
    """`/cosmos roll … tn:15 challenge:The Vault`: the challenge's progress under the roll."""
    result = _cosmos_rolled()
    challenge = cosmos.start_challenge("The Vault", 15, 3, 5)
    embed = cosmos_render.roll_result(result, "Alice")
    cosmos_render.add_challenge_progress(embed, cosmos.advance_challenge(challenge, result))
    return embed


def _cosmos_challenge_won() -> discord.Embed:
    """The channel's announcement of a challenge that roll won (one success needed)."""
    challenge = cosmos.start_challenge("The Bridge", 15, 1, 2)
    won = cosmos.advance_challenge(challenge, _cosmos_rolled())
    ended = cosmos_render.challenge_announcement(won)
    assert ended is not None
    return ended


def _aethelgard_check() -> discord.Embed:
    """`/aethelgard check attribute:WITS skill:System Bypass penalty:1` with Psychic Stress 25
    and Runic Blight Corruption 40 on the track."""
    sheet = aethelgard.Sheet(
        {**dict.fromkeys(aethelgard.Attribute, 3), "WITS": 8}, {"System Bypass": 3}
    )
    pool = aethelgard.check_pool(
        sheet, aethelgard.Attribute.WITS, "System Bypass", penalty=1, stress=25, corruption=40
    )
    result = aethelgard.roll_pool(new_rng(SEED), pool, 2)
    label = f"WITS + {pool.parts[1].label.removesuffix(' (rank)')}"
    return aethelgard_render.roll_result(result, pool, label, "Alice")


def _aethelgard_attack_block() -> discord.Embed:
    """`/aethelgard attack accuracy:6 defense:1 damage:10 soak:1 block:3` (seed 39: a hit,
    1 blocked)."""
    result = aethelgard.attack(
        new_rng(39), bare_pool(6), 1, bare_pool(10), soak=1, block=bare_pool(3)
    )
    return aethelgard_render.attack(result, "Alice")


ROLLS: dict[str, Render] = {
    "realms reroll": _realms_reroll,
    "sinew luck test": _sinew_luck_test,
    "sinew luck spent": _sinew_luck_spent,
    "sinew attack hit": _sinew_attack_hit,
    "sinew tamper crisis": _sinew_tamper_crisis,
    "sinew crisis": _sinew_crisis,
    "sixpool take": _sixpool_take,
    "sixpool attack damage": _sixpool_attack_damage,
    "sixpool inspiration": _sixpool_inspiration,
    "sixpool group roll": _sixpool_group_roll,
    "cosmos challenge roll": _cosmos_challenge_roll,
    "aethelgard check": _aethelgard_check,
    "aethelgard attack block": _aethelgard_attack_block,
}

UNLOGGED: dict[str, Render] = {
    # /realms spell kind:incantation cost:2 advantage:1
    "realms spell": lambda: realms_render.spell(
        realms.spell(realms.SpellKind.INCANTATION, realms.decide(1, 0), 2), "Alice"
    ),
    "sixpool passive": _sixpool_passive,
    "sixpool group closed": _sixpool_group_closed,
    "cosmos challenge won": _cosmos_challenge_won,
}
