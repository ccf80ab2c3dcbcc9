"""One reply layout for every system (docs/players/index.md, "Reading a reply"; issue 37 must 1).

One roll of each kind of each system is rendered from seeded dice, and its parts are checked
where the layout puts them: the title (verdict emoji, roller, action, total), the dice line,
fields only for the state the roll changed (nothing restating the total; issue 53), and the
footer with the roll id.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import discord
import pytest

from bot.publish import set_roll_footer
from bot.render import aethelgard as aethelgard_render
from bot.render import cosmos as cosmos_render
from bot.render import dice as dice_render
from bot.render import realms as realms_render
from bot.render import sinew as sinew_render
from bot.render import sixpool as sixpool_render
from bot.render.campaign import revealed_roll
from bot.render.reply import Part, RollReply, Verdict
from bot.render.style import shown as shown_text
from bot.storage import LoggedRoll, Visibility
from rules import aethelgard, cosmos, realms, sinew, sinew_pressure, sixpool
from rules.expressions import roll_expression
from rules.expressions.request import roll_request
from rules.randomness import Rng, new_rng
from rules.realms.damage import parse_damage

VERDICTS = tuple(verdict.value for verdict in Verdict)
SEED = 7


@dataclass(frozen=True)
class Case:
    """A roll to render: its embed, who rolled, what the title says they did."""

    embed: Callable[[], discord.Embed]
    roller: str
    action: str


def _aethelgard_pool() -> aethelgard.Pool:
    base = (aethelgard.PoolPart("WITS", 8), aethelgard.PoolPart("System Bypass (rank)", 3))
    return aethelgard.build_pool(base, bonus=1, stress=25)


def _sixpool_parts() -> tuple[sixpool.Modifier, ...]:
    return (
        sixpool.Modifier("proficiency (stealth)", 2),
        sixpool.Modifier("2 DEX points spent (Edge 1, option B)", 4),
    )


def _rng() -> Rng:
    return new_rng(SEED)


CASES = {
    "roll expression": Case(
        lambda: dice_render.expression_roll(roll_expression("4d6kh3+2", _rng()), "Alice"),
        "Alice",
        "4d6kh3+2",
    ),
    "roll request": Case(
        lambda: dice_render.request_roll(
            roll_request("1d20+5>=15 Stealth", _rng()), "Alice", "1d20+5>=15 Stealth"
        ),
        "Alice",
        "1d20+5>=15 Stealth",
    ),
    "cosmos roll": Case(
        lambda: cosmos_render.roll_result(
            cosmos.roll(_rng(), attribute=3, skill=2, tn=15, advantage=1), "Alice"
        ),
        "Alice",
        "roll vs TN 15",
    ),
    "cosmos opposed": Case(
        lambda: cosmos_render.opposed(
            cosmos.opposed(_rng(), attribute=3, skill=2, vs_attribute=2, vs_skill=2),
            "Alice",
            "Bob",
        ),
        "Alice",
        "opposed roll vs Bob",
    ),
    "realms attack": Case(
        lambda: realms_render.attack(
            realms.attack(_rng(), 2, 11, parse_damage("1d6+1"), realms.decide(1, 0)), "Alice"
        ),
        "Alice",
        "attack (to hit 11, 1d6+1)",
    ),
    "realms check": Case(
        lambda: realms_render.check(
            realms.check(
                _rng(), realms.SingleDie.D20, realms.CheckKind.SAVE, realms.decide(0, 1), 12
            ),
            "Alice",
        ),
        "Alice",
        "save (d20) vs 12",
    ),
    "realms stealth": Case(
        lambda: realms_render.stealth(realms.stealth(_rng(), 2, realms.decide(0, 0)), "Alice"),
        "Alice",
        "stealth",
    ),
    "sinew test": Case(
        lambda: sinew_render.test_result(sinew.test(_rng(), 12), "Alice", "STR test", "STR"),
        "Alice",
        "STR test",
    ),
    "sinew opposed": Case(
        lambda: sinew_render.opposed(
            sinew.opposed(_rng(), 12, 11), "Alice", "Bob", labels=("STR", "REF")
        ),
        "Alice",
        "opposed roll vs Bob",
    ),
    "sinew attack": Case(
        lambda: sinew_render.attack(
            sinew.attack(_rng(), 12, 10, armour=1), "Alice", "Bob", labels=("STR", "REF")
        ),
        "Alice",
        "attack vs Bob",
    ),
    "sinew tamper": Case(lambda: _pressure_test(rite=False), "Alice", "STR test to tamper"),
    "sinew rite": Case(lambda: _pressure_test(rite=True), "Alice", "STR cleansing rite"),
    "aethelgard pool": Case(
        lambda: aethelgard_render.roll_result(
            aethelgard.roll_pool(_rng(), _aethelgard_pool(), 2),
            _aethelgard_pool(),
            "Hack",
            "Alice",
        ),
        "Alice",
        "Hack vs DC 2",
    ),
    "aethelgard opposed": Case(
        lambda: aethelgard_render.opposed(
            aethelgard.opposed(_rng(), _aethelgard_pool(), _aethelgard_pool()), "Alice"
        ),
        "Alice",
        "opposed roll vs the defender",
    ),
    "aethelgard attack": Case(
        lambda: aethelgard_render.attack(
            aethelgard.attack(_rng(), _aethelgard_pool(), 1, _aethelgard_pool(), soak=1), "Alice"
        ),
        "Alice",
        "attack vs Defense 1",
    ),
    "aethelgard craft": Case(
        lambda: _craft(),
        "Alice",
        "crafting",
    ),
    "sixpool check": Case(
        lambda: sixpool_render.roll_result(
            sixpool.roll(_rng(), _sixpool_parts(), 15), "Alice", "DEX check (stealth)"
        ),
        "Alice",
        "DEX check (stealth)",
    ),
    "sixpool attack": Case(
        lambda: sixpool_render.roll_result(
            sixpool.roll(_rng(), _sixpool_parts(), 14),
            "Alice",
            "DEX attack vs AC 14",
            kind=sixpool.RollKind.ATTACK,
        ),
        "Alice",
        "DEX attack vs AC 14",
    ),
    "sixpool save": Case(
        lambda: sixpool_render.roll_result(
            sixpool.roll(_rng(), _sixpool_parts(), 12),
            "Alice",
            "CON save",
            kind=sixpool.RollKind.SAVE,
        ),
        "Alice",
        "CON save",
    ),
    "sixpool contest": Case(
        lambda: sixpool_render.contest(
            sixpool.contest(
                _rng(), _sixpool_parts(), (sixpool.Modifier("opponent's modifier", 3),)
            ),
            "Alice",
            "Bob",
            "STR contest",
        ),
        "Alice",
        "contest vs Bob: STR contest",
    ),
}


def _pressure_test(*, rite: bool) -> discord.Embed:
    """A tamper (seed 7: failed, Pressure 3 → 4) or a cleansing rite (failed: Pressure stays at
    3, and the reply still names the number), rendered as the Sinew & Steel cog renders them."""
    sheet = sinew.create_sheet(strength=10, reflex=10, intellect=10, empathy=10, luck=10, stamina=5)
    test = sinew_pressure.cleansing_rite if rite else sinew_pressure.tamper
    tested = test(_rng(), sheet, 3, sinew.Score.STR)
    what = "STR cleansing rite" if rite else "STR test to tamper"
    embed = sinew_render.test_result(tested.result, "Alice", what, "STR")
    step = None if tested.change is None else "**Eldritch tremor**"
    sinew_render.add_pressure_result(embed, tested.change, step, 3)
    return embed


def _craft() -> discord.Embed:
    rolled = aethelgard.roll_pool(_rng(), _aethelgard_pool(), 0)
    tier = aethelgard.craft_tier(rolled)
    return aethelgard_render.craft(rolled, tier, _aethelgard_pool(), "Alice")


@pytest.mark.parametrize("kind", list(CASES))
def test_rule_every_roll_reply_has_title_dice_changed_state_and_footer(kind: str) -> None:
    case = CASES[kind]
    embed = case.embed()
    set_roll_footer(embed, 42, Visibility.PUBLIC)  # as publish_roll does, once it is logged
    shown = embed.to_dict()
    title = shown["title"]
    # The title: the verdict first, then who and what, then the total (a number, named).
    assert title.startswith(VERDICTS), title
    assert f"{case.roller}: {shown_text(case.action)}" in title, title
    total = title.rsplit(" · ", 1)[1]
    assert re.search(r"\d", total) and re.search(r"[a-z]", total), title
    # The dice: the description's first line.
    assert shown["description"].startswith("🎲 "), shown["description"]
    assert re.search(r"\d", shown["description"].split("\n")[0])
    # Nothing restates the title's total: no "= **total**", no Total or Net field.
    number = re.search(r"\d+", total)
    assert number is not None
    assert f"= **{number[0]}**" not in shown["description"], shown["description"]
    # The fields: only the state the roll changed (here a sinew test's Pressure), each named
    # with its number.
    fields = shown.get("fields", [])
    changed = ["Pressure"] if kind in {"sinew tamper", "sinew rite"} else []
    assert [field["name"] for field in fields] == changed, fields
    for field in fields:
        assert re.search(r"\d", field["value"]), field
    # The footer: the roll id.
    assert shown["footer"]["text"] == "Roll #42"


def test_rule_sinew_pressure_left_unchanged_is_named_with_its_number() -> None:
    tamper, rite = (
        {field.name: field.value for field in _pressure_test(rite=rite).fields}
        for rite in (False, True)
    )
    assert tamper["Pressure"] == "3 → 4: **Eldritch tremor**"  # seed 7: the STR 10 test fails
    assert rite["Pressure"] == "3 (unchanged)"


def test_rule_revealed_roll_keeps_the_layout_with_a_reveal_line_last() -> None:
    embed = CASES["sixpool check"].embed()
    set_roll_footer(embed, 42, Visibility.HIDDEN)  # as the GM saw it
    logged = LoggedRoll(
        id=42,
        campaign_id=1,
        channel_id=1,
        user_id=1,
        kind="sixpool.check",
        visibility=Visibility.BLIND,
        payload={"embed": embed.to_dict()},
        created_at="2026-11-20T19:30:00",
        revealed_at=None,
    )
    revealed = revealed_roll(logged).to_dict()
    shown = embed.to_dict()
    assert revealed["title"] == shown["title"]  # the verdict first, as rolled
    assert revealed["description"] == shown["description"]
    assert revealed["fields"][:-1] == shown.get("fields", [])
    epoch = 1_795_203_000  # 2026-11-20 19:30 UTC
    assert revealed["fields"][-1] == {
        "name": "🔓 Revealed by the GM",
        "value": f"Rolled in secret <t:{epoch}:f> (<t:{epoch}:R>): a blind roll, seen by the "
        "GMs only",
        "inline": False,
    }
    assert revealed["footer"]["text"] == "Roll #42"


def test_rule_reply_title_puts_verdict_who_what_and_total_in_that_order() -> None:
    reply = RollReply(
        who="Alice",
        what="Athletics vs TN 14",
        verdict=Verdict.SUCCESS,
        total="total 17",
        dice="2d10: **9**, **5**",
        breakdown=[Part("Attribute + Skill", "2 + 1")],
    )
    embed = reply.embed()
    assert embed.title == "✅ Success · Alice: Athletics vs TN 14 · total 17"
    assert embed.description == "🎲 2d10: **9**, **5**"
    assert [(field.name, field.value) for field in embed.fields] == [("Attribute + Skill", "2 + 1")]
    plain = RollReply(who="Bob", what="stealth", verdict=Verdict.NONE, total="total 8", dice="6")
    assert plain.title == "🎲 Bob: stealth · total 8"  # no verdict word when there is no target


def test_rule_reply_shows_a_roller_name_as_plain_text() -> None:
    reply = RollReply(
        who="*Vex*", what="stealth", verdict=Verdict.FUMBLE, total="total 1", dice="1"
    )
    assert reply.title == "💀 Fumble · \\*Vex\\*: stealth · total 1"


def test_rule_several_rolls_mark_naturals_on_their_lines_not_in_the_title() -> None:
    """`/roll 20 1d20` with a 1 and a 20 among them (issue 53, item 3): one set's natural is no
    verdict of the whole roll; each roll's line keeps its ✨ or 💀. A single roll's natural is
    still its title's verdict."""
    result = roll_request("20 1d20", new_rng(1))
    totals = [roll.total for roll in result.rolls[0]]
    assert 1 in totals and 20 in totals  # new_rng(1): 10, 11, 16, 20, 1, …
    embed = dice_render.request_roll(result, "Alice", "20 1d20")
    assert embed.title == "🎲 Alice: 20 1d20 · 20 rolls"
    assert embed.colour == Verdict.NONE.colour
    lines = (embed.description or "").removeprefix("🎲 ").splitlines()
    assert len(lines) == 20
    for number, (line, total) in enumerate(zip(lines, totals, strict=True), start=1):
        mark = {20: " ✨", 1: " 💀"}.get(total, "")
        assert line == f"{number}. 1d20 ({total}) = **{total}**{mark}"
    # new_rng(1)'s fifth d20 is a 1: the fifth draw alone, "1d20>=5", is a natural 1 fumble.
    rng = new_rng(1)
    for _ in range(4):
        roll_request("1d20", rng)
    single = dice_render.request_roll(roll_request("1d20>=5", rng), "Alice", "1d20>=5")
    assert single.title == "💀 NATURAL 1! · Alice: 1d20\\>=5 · total 1"


def test_twenty_sets_of_fifty_dice_show_every_sets_total_with_a_few_dice_each() -> None:
    # The dice shown are shared by the lines: 40 / 20 sets is under 5, so each line shows 5 dice
    # and counts the other 45; every one of the 20 totals is in the reply, none cut away.
    rolled = roll_request("20 50d6kh3", new_rng(1))
    embed = dice_render.request_roll(rolled, "Wren", "20 50d6kh3")
    lines = (embed.description or "").removeprefix("🎲 ").split("\n")
    totals = [roll.total for roll in rolled.rolls[0]]
    assert len(lines) == 20 and "more rolls" not in (embed.description or "")
    for number, (line, total) in enumerate(zip(lines, totals, strict=True), start=1):
        assert line.startswith(f"{number}. 50d6kh3 (")
        assert line.endswith(f"… and 45 more) = **{total}**")
        shown_dice = line.count("~~") // 2 + line.count("**") // 2 - 1  # the total is bold too
        assert shown_dice == 5, line
