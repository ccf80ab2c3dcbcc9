"""The rules audit's Sinew & Steel findings (README, Rules notes: Sinew & Steel).

Every expected value is worked out by hand in the comment beside it, never by calling the
function under test.
"""

from __future__ import annotations

from rules import sinew
from rules.sinew import LuckChoice, Mode, TestResult


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
