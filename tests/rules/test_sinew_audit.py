"""The rules audit's Sinew & Steel findings (docs/players/sinew.md, "Rules notes").

Every expected value is worked out by hand in the comment beside it, never by calling the
function under test.
"""

from __future__ import annotations

import dataclasses

import pytest

from rules import RulesError, sinew
from rules.sinew import (
    AttackResult,
    Edge,
    LuckChoice,
    Mode,
    OpposedResult,
    Sheet,
    Side,
    TestResult,
)


def straight(score: int, die: int, shift: int = 0) -> TestResult:
    return TestResult(score=score, mode=Mode.STRAIGHT, dice=(die,), shift=shift)


# --- Luck buttons offer only what the roller can pay


def test_rule_luck_buttons_offer_only_what_the_roller_can_pay() -> None:
    # 18 under 6 fails by 12: Spend 1 costs 1, Spend 12 (turns it) costs 12.
    # Holding 2: only Spend 1 is paid for.
    assert sinew.luck_choices(straight(6, 18), held=2, pressure=0) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=False),
    )
    # Holding 0: nothing.
    assert sinew.luck_choices(straight(6, 18), held=0, pressure=0) == ()
    # 11 under 10 fails by 1: the one button costs 1; at Pressure 4 it costs 2, so holding 1
    # pays for it only without the surcharge.
    assert sinew.luck_choices(straight(10, 11), held=1, pressure=0) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=True),
    )
    assert sinew.luck_choices(straight(10, 11), held=1, pressure=4) == ()
    # Holding exactly 12: both buttons.
    assert len(sinew.luck_choices(straight(6, 18), held=12, pressure=0)) == 2


# --- The defender's Luck


def even_sheet(**changes: object) -> Sheet:
    sheet = sinew.create_sheet(strength=10, reflex=10, intellect=10, empathy=10, luck=10, stamina=5)
    return dataclasses.replace(sheet, **changes)  # type: ignore[arg-type]


def test_rule_defender_spends_luck_on_their_own_die_for_a_better_margin() -> None:
    # Attacker 12 rolls 4 (margin 8); defender 10 rolls 5 (margin 5): the attacker wins.
    # The defender wins a tie, so margin 8 is enough: 5 → 2 is 3 tokens.
    contest = OpposedResult(attacker=straight(12, 4), defender=straight(10, 5))
    assert sinew.luck_choices(contest, held=10, pressure=0, side=Side.DEFENDER) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=False),
        LuckChoice(tokens=None, shift=3, cost=3, turns=True),
    )
    # Holding 2, only Spend 1 is paid for.
    assert sinew.luck_choices(contest, held=2, pressure=0, side=Side.DEFENDER) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=False),
    )
    spent = sinew.apply_luck(
        contest, even_sheet(), None, pressure=0, roller="Vex", side=Side.DEFENDER
    )
    assert spent.after == OpposedResult(attacker=straight(12, 4), defender=straight(10, 5, 3))
    assert (spent.shift, spent.cost, spent.sheet.luck_tokens) == (3, 3, 7)
    assert isinstance(spent.after, OpposedResult) and spent.after.winner is Side.DEFENDER
    # One token only raises the margin to 6: the attacker still wins.
    one = sinew.apply_luck(contest, even_sheet(), 1, pressure=0, roller="Vex", side=Side.DEFENDER)
    assert isinstance(one.after, OpposedResult) and one.after.winner is Side.ATTACKER
    # Nothing to offer once the defender wins.
    assert sinew.luck_choices(spent.after, held=7, pressure=0, side=Side.DEFENDER) == ()


def test_rule_defender_turning_a_hit_into_a_miss_gives_back_the_stamina() -> None:
    # Attacker 12 rolls 10 (margin 2), defender 10 rolls 11 (fails): a hit, standard edge,
    # no armour: damage 1 + 1 = 2 taken. The defender needs margin 2 (a tie holds): 11 → 8,
    # 3 tokens: a miss, and the 2 Stamina come back.
    contest = OpposedResult(attacker=straight(12, 10), defender=straight(10, 11))
    hit = AttackResult(contest, edge=Edge.STANDARD, armour=0, explosive=False)
    assert hit.damage_taken == 2
    spent = sinew.apply_luck(hit, even_sheet(), None, pressure=0, roller="Vex", side=Side.DEFENDER)
    assert isinstance(spent.after, AttackResult) and not spent.after.hit
    assert (spent.shift, spent.stamina_given_back, spent.extra_damage) == (3, 2, 0)
    # The attacker's spends never give anything back.
    assert sinew.apply_luck(hit, even_sheet(), 1, pressure=0, roller="B").stamina_given_back == 0


# --- GM windfall


def test_rule_gm_windfall_gives_tokens_up_to_the_cap() -> None:
    spent = even_sheet(luck_tokens=6)  # cap 10
    three = sinew.grant_luck(spent, 3, "  a four-leaf clover ")
    assert (three.sheet.luck_tokens, three.before, three.granted) == (9, 6, 3)
    assert three.reason == "a four-leaf clover"
    # 6 + 9 would be 15: the cap stops it at 10, 4 given.
    capped = sinew.grant_luck(spent, 9, "a blessing")
    assert (capped.sheet.luck_tokens, capped.granted) == (10, 4)
    # At the cap it gives nothing and is not an error.
    full = sinew.grant_luck(even_sheet(), 2, "a blessing")
    assert (full.sheet.luck_tokens, full.granted) == (10, 0)
    with pytest.raises(RulesError, match="Say why"):
        sinew.grant_luck(spent, 1, "   ")
    with pytest.raises(RulesError):
        sinew.grant_luck(spent, 0, "nothing")
