"""The decisions `/sinew` commands ask the rules for: Luck spends, contests, Pressure moves.

docs/players/sinew.md, "Rules notes". Every expected value is worked out by hand in the comment
beside it (a die, its shift, the margin and what it buys), never by calling the function under
test. Dice are scripted, so each test names every face it rolls.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

from rules import RulesError, sinew
from rules.randomness import Rng
from rules.sinew import (
    AttackResult,
    Edge,
    LuckChoice,
    LuckOffer,
    Mode,
    OpposedResult,
    Score,
    Sheet,
    Side,
    StaminaChange,
    TestResult,
)
from rules.sinew_pressure import (
    CrisisRoll,
    PressureChange,
    cleansing_rite,
    crisis_strikes,
    purge_by_quest,
    purge_by_sacrifice,
    tamper,
)
from tests.expect import as_rng

CARRY_REASON = "Carrying 7 substantial items (more than 6): disadvantage on REF tests."


class ScriptedDice:
    """A stand-in generator that rolls the faces it is given, in order."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        count = 1 if size is None else size
        taken, self.faces = self.faces[:count], self.faces[count:]
        assert len(taken) == count, "the test scripted too few faces"
        assert all(low <= face < high for face in taken)
        return np.array(taken)


def dice(*faces: int) -> Rng:
    return as_rng(ScriptedDice(faces))


def even_sheet(**changes: Any) -> Sheet:
    """Every attribute 10, STA 5, full Luck (10 tokens) and Stamina, then ``changes``."""
    sheet = sinew.create_sheet(strength=10, reflex=10, intellect=10, empathy=10, luck=10, stamina=5)
    return dataclasses.replace(sheet, **changes)


def straight(score: int, die: int, shift: int = 0) -> TestResult:
    return TestResult(score=score, mode=Mode.STRAIGHT, dice=(die,), shift=shift)


def attack_12_rolling_4_vs_10_rolling_15(shift: int = 0) -> AttackResult:
    """A hit: margin 12 - 4 = 8 against a failed defence; standard edge, armour 3."""
    contest = OpposedResult(attacker=straight(12, 4, shift), defender=straight(10, 15))
    return AttackResult(contest, edge=Edge.STANDARD, armour=3, explosive=False)


# --- Luck: whose die moves and how far


def test_lower_roller_die_moves_the_test_die() -> None:
    # 14 under 10 fails by 4; 4 tokens lower it to 10: a success with margin 0.
    moved = sinew.lower_roller_die(straight(10, 14), 4)
    assert moved == straight(10, 14, shift=4)
    assert isinstance(moved, TestResult) and moved.success and moved.margin == 0


def test_lower_roller_die_moves_the_attackers_die_only() -> None:
    contest = OpposedResult(attacker=straight(12, 15), defender=straight(10, 8))
    moved = sinew.lower_roller_die(contest, 3)
    # The attacker's 15 becomes 12; the defender's 8 stays.
    assert moved == OpposedResult(attacker=straight(12, 15, shift=3), defender=straight(10, 8))


def test_roller_tokens_needed_for_tests_and_contests() -> None:
    assert sinew.roller_tokens_needed(straight(10, 14)) == 4  # 14 → 10
    assert sinew.roller_tokens_needed(straight(10, 7)) == 0  # already a success
    assert sinew.roller_tokens_needed(straight(10, 20)) is None  # a natural 20 can't move
    assert sinew.roller_tokens_needed(straight(0, 5)) is None  # would need 5, room is 4
    # Attacker 12 rolls 15 (fails); defender 10 rolls 8 (margin 2). The attacker wins only
    # succeeding with a margin over 2: a roll of 9, so 15 → 9 is 6 tokens.
    contest = OpposedResult(attacker=straight(12, 15), defender=straight(10, 8))
    assert sinew.roller_tokens_needed(contest) == 6


def test_tokens_that_help_turns_a_failure_or_refuses() -> None:
    assert sinew.tokens_that_help(straight(10, 14)) == 4
    with pytest.raises(RulesError, match="already succeeds"):
        sinew.tokens_that_help(straight(10, 7))
    with pytest.raises(RulesError, match="can't turn this roll"):
        sinew.tokens_that_help(straight(10, 20))


# --- Luck: what a spend costs and does


def test_apply_luck_prices_the_spend_and_pays_from_the_sheet() -> None:
    spent = sinew.apply_luck(straight(10, 14), even_sheet(), None, pressure=0, roller="Wren")
    # None: the 4 tokens that turn 14 under 10; 4 tokens at Pressure 0; 10 - 4 = 6 left.
    assert (spent.shift, spent.cost, spent.sheet.luck_tokens) == (4, 4, 6)
    assert spent.after == straight(10, 14, shift=4)
    assert spent.before == straight(10, 14)
    assert spent.extra_damage == 0


def test_apply_luck_adds_the_pressure_surcharge_once_per_spend() -> None:
    spent = sinew.apply_luck(straight(10, 14), even_sheet(), 2, pressure=4, roller="Wren")
    # Shift 2 costs 2 + 1 (Pressure 4): 10 - 3 = 7 left; 14 → 12 still fails.
    assert (spent.shift, spent.cost, spent.sheet.luck_tokens) == (2, 3, 7)


def test_apply_luck_refuses_a_spend_the_roller_cannot_pay() -> None:
    with pytest.raises(RulesError) as refused:
        sinew.apply_luck(straight(10, 14), even_sheet(luck_tokens=3), 4, pressure=0, roller="Wren")
    assert str(refused.value) == "Lowering the die by 4 costs 4 Luck tokens; Wren has 3."
    with pytest.raises(RulesError) as singular:
        sinew.apply_luck(straight(10, 14), even_sheet(luck_tokens=0), 1, pressure=0, roller="Wren")
    assert str(singular.value) == "Lowering the die by 1 costs 1 Luck token; Wren has 0."


def test_apply_luck_refuses_a_natural_before_pricing_it() -> None:
    with pytest.raises(RulesError, match="natural 20"):
        sinew.apply_luck(straight(10, 20), even_sheet(luck_tokens=0), 1, pressure=0, roller="W")


def test_apply_luck_on_an_attack_gives_the_defenders_extra_damage() -> None:
    before = attack_12_rolling_4_vs_10_rolling_15()
    # Before: damage 1 + 1 = 2; soak 3 - 8 // 4 = 1; taken 1.
    # 3 tokens: 4 → 1 (shifted, not natural), margin 11 > 10: damage 3; soak 3 - 11 // 4 = 1;
    # taken 2: one more than before.
    spent = sinew.apply_luck(before, even_sheet(), 3, pressure=0, roller="Wren")
    assert spent.after == attack_12_rolling_4_vs_10_rolling_15(shift=3)
    assert (spent.cost, spent.sheet.luck_tokens, spent.extra_damage) == (3, 7, 1)


# --- Luck: the buttons worth showing


def test_luck_choices_under_a_failed_test() -> None:
    # Fails by 4: Spend 1 (doesn't turn it yet), and Spend 4 (what turns it, as "n").
    assert sinew.luck_choices(straight(10, 14), held=10, pressure=0) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=False),
        LuckChoice(tokens=None, shift=4, cost=4, turns=True),
    )
    # At Pressure 4 each costs one more.
    assert sinew.luck_choices(straight(10, 14), held=10, pressure=4) == (
        LuckChoice(tokens=1, shift=1, cost=2, turns=False),
        LuckChoice(tokens=None, shift=4, cost=5, turns=True),
    )


def test_luck_choices_one_button_when_one_token_turns_it() -> None:
    assert sinew.luck_choices(straight(10, 11), held=1, pressure=0) == (
        LuckChoice(tokens=1, shift=1, cost=1, turns=True),
    )


def test_luck_choices_none_under_a_success_or_a_natural_twenty() -> None:
    assert sinew.luck_choices(straight(10, 7), held=10, pressure=0) == ()
    assert sinew.luck_choices(straight(10, 20), held=10, pressure=0) == ()


def test_luck_choices_under_an_attack_offer_only_better_results_the_tokens_pay_for() -> None:
    # 1 token: margin 9, soak 3 - 2 = 1, taken 1 (no better). 2: margin 10 (not over 10),
    # taken 1. 3: the die reaches 1, margin 11: damage 3, soak 1, taken 2. The die can't go
    # lower, so one offer.
    after = attack_12_rolling_4_vs_10_rolling_15(shift=3)
    before = attack_12_rolling_4_vs_10_rolling_15()
    assert sinew.luck_choices(before, held=10, pressure=0) == (
        LuckChoice(tokens=3, shift=3, cost=3, offer=LuckOffer(3, after)),
    )
    # Holding 3 at Pressure 4: 3 - 1 surcharge = 2 tokens to move with, too few.
    assert sinew.luck_choices(before, held=3, pressure=4) == ()


# --- Tests and contests


def test_parse_attribute_refuses_stamina_and_unknown_names() -> None:
    assert sinew.parse_attribute("Reflex") is Score.REF
    assert sinew.parse_attribute("lck") is Score.LCK
    with pytest.raises(RulesError) as refused:
        sinew.parse_attribute("sta")
    assert str(refused.value) == "STA is not tested; choose one of: STR, REF, INT, EMP, LCK."
    with pytest.raises(RulesError, match="Unknown score"):
        sinew.parse_attribute("grit")


def test_tested_score_is_the_tokens_left_for_luck() -> None:
    sheet = even_sheet(reflex=13, intellect=7, luck_tokens=4)
    assert sinew.tested_score(sheet, Score.LCK) == 4
    assert sinew.tested_score(sheet, Score.REF) == 13


def test_contender_carries_the_carry_limit_reason() -> None:
    loaded = sinew.contender("Wren", 12, Score.REF, items_carried=7)
    assert (loaded.name, loaded.score, loaded.decision.mode) == ("Wren", 12, Mode.DISADVANTAGE)
    assert loaded.decision.reasons == (CARRY_REASON,)
    both = sinew.contender("Wren", 12, Score.REF, advantage=True, items_carried=7)
    assert both.decision.mode is Mode.STRAIGHT
    assert both.decision.reasons == (
        CARRY_REASON,
        "Advantage and disadvantage cancel: a straight roll.",
    )
    bare = sinew.contender("Defender", 9)
    assert (bare.decision.mode, bare.decision.reasons) == (Mode.STRAIGHT, ())


def test_roll_opposed_rolls_the_attacker_first_keeping_each_sides_reasons() -> None:
    attacker = sinew.contender("Wren", 12, Score.REF, items_carried=7)
    defender = sinew.contender("Defender", 9)
    result = sinew.roll_opposed(dice(3, 17, 9), attacker, defender)
    # Disadvantage keeps the higher of 3 and 17: 17 > 12 fails; the defender's 9 under 9 holds.
    assert result.attacker == TestResult(
        score=12, mode=Mode.DISADVANTAGE, dice=(3, 17), reasons=(CARRY_REASON,)
    )
    assert result.defender == straight(9, 9)
    assert result.winner is Side.DEFENDER


def test_roll_attack_works_out_damage_and_checks_armour_before_rolling() -> None:
    attacker, defender = sinew.contender("Wren", 12), sinew.contender("Defender", 10)
    result = sinew.roll_attack(
        dice(4, 15), attacker, defender, edge=Edge.BRUTAL, armour=2, explosive=True
    )
    # Hit with margin 8; damage 1 + 2 = 3; soak 2 - 1 (explosive) - 8 // 4 = -1 → 0; taken 3.
    assert (result.hit, result.damage, result.soak, result.damage_taken) == (True, 3, 0, 3)
    with pytest.raises(RulesError, match="Armour"):
        sinew.roll_attack(dice(), attacker, defender, armour=4)


def test_attack_armour_is_as_asked_else_the_defenders_else_none() -> None:
    wearing_three = even_sheet(armour=3)
    assert sinew.attack_armour(1, wearing_three) == 1  # asked wins, even below the sheet's
    assert sinew.attack_armour(0, wearing_three) == 0  # 0 asked is still asked
    assert sinew.attack_armour(None, wearing_three) == 3
    assert sinew.attack_armour(None, None) == 0  # a defender given only by a score


# --- Pressure moves


def test_tamper_adds_one_pressure_only_on_a_failure() -> None:
    # REF 10: a 15 fails and adds 1 (2 → 3); an 8 succeeds and rolls nothing more.
    failed = tamper(dice(15), even_sheet(), 2, Score.REF)
    assert failed.result == straight(10, 15)
    assert failed.change == PressureChange(2, 3, 3)
    passed = tamper(dice(8), even_sheet(), 2, Score.REF)
    assert (passed.change, passed.sheet) == (None, None)


def test_tamper_at_four_fires_the_crisis_with_lingering_taint() -> None:
    # 4 + 1 reaches 5: the Crisis die shows 3; lingering taint leaves the track at 1.
    change = tamper(dice(15, 3), even_sheet(), 4, Score.REF, lingering_taint=True).change
    assert change == PressureChange(4, 5, 1, CrisisRoll((3,), (3,)))


def test_cleansing_rite_uses_the_rite_and_removes_one_on_a_success() -> None:
    done = cleansing_rite(dice(5), even_sheet(), 2, Score.EMP)
    assert done.result == straight(10, 5)
    assert done.change == PressureChange(2, 1, 1)
    assert done.sheet == even_sheet(rite_used=True)
    failed = cleansing_rite(dice(18), even_sheet(), 2, Score.EMP)
    assert (failed.change, failed.sheet) == (None, even_sheet(rite_used=True))


def test_cleansing_rite_refusals_roll_nothing() -> None:
    with pytest.raises(RulesError, match="nothing to purge"):
        cleansing_rite(dice(), even_sheet(), 0, Score.EMP)
    with pytest.raises(RulesError, match="already tried"):
        cleansing_rite(dice(), even_sheet(rite_used=True), 2, Score.EMP)


def test_purge_by_sacrifice_lowers_the_score_and_the_track() -> None:
    sheet, change = purge_by_sacrifice(even_sheet(), 3, Score.STR)
    assert (sheet.strength, change) == (9, PressureChange(3, 2, 2))
    with pytest.raises(RulesError, match="nothing to purge"):
        purge_by_sacrifice(even_sheet(), 0, Score.STR)
    with pytest.raises(RulesError, match="below 6"):
        purge_by_sacrifice(even_sheet(strength=6), 3, Score.STR)


def test_purge_by_quest_clears_the_track() -> None:
    assert purge_by_quest(4) == PressureChange(4, 0, 0)
    with pytest.raises(RulesError, match="nothing to purge"):
        purge_by_quest(0)


def test_crisis_strikes_takes_stamina_per_withering_event() -> None:
    sheets = (even_sheet(), even_sheet(current_stamina=1))
    # One Withering (2): 1 each; 5 → 4, and 1 → 0 (a collapse).
    struck = crisis_strikes(CrisisRoll((2,), (2,)), sheets)
    assert struck == (
        StaminaChange(even_sheet(current_stamina=4), 5, 4),
        StaminaChange(even_sheet(current_stamina=0), 1, 0),
    )
    assert [change.newly_collapsed for change in struck] == [False, True]
    # A 6, then two Witherings: 2 each.
    twice = crisis_strikes(CrisisRoll((6, 2, 2), (2, 2)), sheets[:1])
    assert twice == (StaminaChange(even_sheet(current_stamina=3), 5, 3),)
    # Any other event takes no Stamina: nobody is struck.
    assert crisis_strikes(CrisisRoll((3,), (3,)), sheets) == ()
