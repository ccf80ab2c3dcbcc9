"""Aethelgard dice pools (docs/players/aethelgard.md, "Rules notes"): counting, display, pools,
exact odds."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb

import numpy as np
import pytest

from rules import RulesError
from rules.aethelgard import (
    CraftTier,
    Degree,
    Pool,
    PoolPart,
    PoolRoll,
    attack,
    build_pool,
    craft_tier,
    display_lines,
    odds,
    opposed,
    parse_attribute,
    parse_skills,
    roll_pool,
)
from tests.expect import as_rng


def test_ruling_aethelgard_display_success_to_the_letter() -> None:
    assert display_lines(PoolRoll((9, 8, 5, 2, 1))) == [
        "Roll: [9, 8, 5, 2, 1]",
        "→ 2 Successes, 1 Botch",
        "Result: 1 Net Success",
    ]


def test_ruling_aethelgard_display_failure_plural_zeroes() -> None:
    assert display_lines(PoolRoll((7, 5, 3, 2))) == [
        "Roll: [7, 5, 3, 2]",
        "→ 0 Successes, 0 Botches",
        "Result: 0 Net Successes",
    ]


def test_ruling_aethelgard_display_critical_to_the_letter() -> None:
    result = PoolRoll((10, 10, 9, 9, 8, 8, 7, 6, 4, 3, 2, 1))
    assert display_lines(result) == [
        "Roll: [10, 10, 9, 9, 8, 8, 7, 6, 4, 3, 2, 1]",
        "→ 6 Successes, 1 Botch",
        "Result: 5 Net Successes",
        "",
        "*** CRITICAL SUCCESS! ***",
    ]
    assert result.degree is Degree.CRITICAL


def test_ruling_aethelgard_display_fumble_to_the_letter() -> None:
    result = PoolRoll((1, 1, 4))
    assert display_lines(result) == [
        "Roll: [1, 1, 4]",
        "→ 0 Successes, 2 Botches",
        "Result: FUMBLE",
        "",
        "[!] COGNITIVE GLITCH [!]",
    ]
    assert result.degree is Degree.FUMBLE and result.net == 0


def test_ruling_aethelgard_singular_success_and_botch() -> None:
    assert display_lines(PoolRoll((8, 1)))[1:] == [
        "→ 1 Success, 1 Botch",
        "Result: 0 Net Successes",
    ]


def test_ruling_aethelgard_negative_net_shown_as_zero_not_fumble() -> None:
    result = PoolRoll((9, 1, 1, 5))  # 1 success, 2 botches: net -1, not a fumble
    assert (result.raw_net, result.net, result.fumble) == (-1, 0, False)
    assert display_lines(result)[-1] == "Result: 0 Net Successes"
    assert result.degree is Degree.FAILURE


def test_ruling_aethelgard_degree_against_the_dc() -> None:
    assert PoolRoll((9, 8, 2), dc=2).degree is Degree.SUCCESS
    assert PoolRoll((9, 8, 2), dc=3).degree is Degree.FAILURE
    assert PoolRoll((9, 8, 8, 9, 10), dc=6).degree is Degree.FAILURE  # net 5 short of DC 6
    assert PoolRoll((2, 3), dc=0).degree is Degree.SUCCESS
    assert PoolRoll((1, 3), dc=0).degree is Degree.FUMBLE  # a fumble never succeeds


def test_ruling_aethelgard_critical_needs_the_dc_met() -> None:
    dice = (10, 10, 9, 9, 8, 2)  # five successes (8+), no botch: net 5
    missed = PoolRoll(dice, dc=6)
    assert (missed.net, missed.critical, missed.degree) == (5, False, Degree.FAILURE)
    assert display_lines(missed) == [
        "Roll: [10, 10, 9, 9, 8, 2]",
        "→ 5 Successes, 0 Botches",
        "Result: 5 Net Successes",
    ]  # one verdict: no CRITICAL SUCCESS line under a failure
    met = PoolRoll(dice, dc=5)
    assert (met.critical, met.degree) == (True, Degree.CRITICAL)
    assert display_lines(met)[-2:] == ["", "*** CRITICAL SUCCESS! ***"]


def test_ruling_aethelgard_pool_parts_bonus_penalty_trauma_and_minimum() -> None:
    base = (PoolPart("WITS", 8), PoolPart("System Bypass", 3))
    assert build_pool(base, bonus=2).size == 13
    worn = build_pool(base, penalty=1, stress=45, corruption=20)
    assert [(p.label, p.dice) for p in worn.parts] == [
        ("WITS", 8), ("System Bypass", 3), ("penalty dice", -1),
        ("Psychic Stress 45", -2), ("Runic Blight Corruption 20", -1),
    ]  # fmt: skip
    assert worn.size == 7
    floored = build_pool((PoolPart("FINESSE", 4),), penalty=5)
    assert (floored.size, floored.floored) == (1, True)
    assert build_pool((PoolPart("MIGHT", 9),), stress=19).size == 9  # 19 is not a full 20


def test_pool_limits_are_refused() -> None:
    with pytest.raises(RulesError, match="at most 100 dice"):
        build_pool((PoolPart("pool", 100),), bonus=1)
    with pytest.raises(RulesError, match="DC must be between 0 and 100"):
        roll_pool(np.random.default_rng(1), build_pool((PoolPart("pool", 3),)), -1)
    with pytest.raises(RulesError, match="Unknown attribute"):
        parse_attribute("charm")
    assert parse_attribute("wits").value == "WITS"


def test_ruling_aethelgard_crafting_tiers() -> None:
    assert craft_tier(PoolRoll((9, 2))) is CraftTier.STANDARD
    assert craft_tier(PoolRoll((9, 9, 2))) is CraftTier.MASTERWORK
    assert craft_tier(PoolRoll((9, 9, 9, 9, 8))) is CraftTier.LEGENDARY
    assert craft_tier(PoolRoll((1, 2))) is CraftTier.DESTROYED


def _brute_force(dice: int, dc: int) -> tuple[Fraction, Fraction, Fraction]:
    success = critical = fumble = 0
    for faces in product(range(1, 11), repeat=dice):
        result = PoolRoll(faces, dc)
        success += result.success
        critical += result.success and result.critical
        fumble += result.fumble
    total = 10**dice
    return Fraction(success, total), Fraction(critical, total), Fraction(fumble, total)


@pytest.mark.parametrize(("dice", "dc"), [(1, 1), (2, 0), (3, 1), (3, 2), (4, 1), (4, 3)])
def test_odds_equal_brute_force_for_small_pools(dice: int, dc: int) -> None:
    result = odds(dice, dc)
    assert (result.success, result.critical, result.fumble) == _brute_force(dice, dc)


def _multinomial(dice: int, dc: int) -> tuple[Fraction, Fraction]:
    """P(net >= dc) and P(net >= 5) by summing over (successes, botches): 3^s 1^b 6^rest."""
    at_least_dc = critical = 0
    for s in range(dice + 1):
        for b in range(dice - s + 1):
            ways = comb(dice, s) * comb(dice - s, b) * 3**s * 6 ** (dice - s - b)
            net = s - b
            if net >= dc:
                at_least_dc += ways
            if net >= max(5, dc):
                critical += ways
    return Fraction(at_least_dc, 10**dice), Fraction(critical, 10**dice)


@pytest.mark.parametrize(("dice", "dc"), [(10, 1), (30, 6), (100, 20), (100, 1)])
def test_odds_equal_the_multinomial_closed_form_for_large_pools(dice: int, dc: int) -> None:
    result = odds(dice, dc)
    assert (result.success, result.critical) == _multinomial(dice, dc)
    assert result.fumble == Fraction(7**dice - 6**dice, 10**dice)
    assert sum(result.shown.values()) == 1


def test_ruling_aethelgard_document_probability_table() -> None:
    """The document's table (section V): the expected net is right, most chances are not."""
    for dice in (1, 3, 5, 7, 10, 15, 20):
        assert odds(dice).raw_mean == Fraction(2 * dice, 10)  # 0.2 a die: right
    # Critical chance (net >= 5) and fumble chance, exact, rounded to 0.1 %:
    exact = {n: (round(float(odds(n).critical) * 100, 1), round(float(odds(n).fumble) * 100, 1))
             for n in (1, 3, 5, 7, 10, 15, 20)}  # fmt: skip
    assert exact == {
        1: (0.0, 10.0),  # document: 0 %, 10 %: right
        3: (0.0, 12.7),  # document: <1 %, ~7 %: the fumble is wrong
        5: (0.2, 9.0),  # document: ~2 %, ~5 %: both wrong
        7: (2.2, 5.4),  # document: ~8 %, ~3 %: both wrong
        10: (9.1, 2.2),  # document: ~20 %, ~1 %: both wrong
        15: (25.9, 0.4),  # document: ~50 %, <1 %: the critical is wrong
        20: (42.7, 0.1),  # document: ~75 %, <0.1 %: the critical is wrong (fumble 0.076 %)
    }


class ScriptedDice:
    """Rolls the faces it is given, in order."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        count = 1 if size is None else size
        taken, self.faces = self.faces[:count], self.faces[count:]
        assert len(taken) == count, "too few faces scripted"
        return np.array(taken)


def _pool(dice: int) -> Pool:
    return build_pool((PoolPart("pool", dice),))


def test_ruling_aethelgard_opposed_tie_goes_to_the_defender() -> None:
    rng = ScriptedDice(9, 2, 8, 3)  # 1 net each
    result = opposed(as_rng(rng), _pool(2), _pool(2))
    assert (result.attacker.net, result.defender.net, result.attacker_wins) == (1, 1, False)
    assert opposed(as_rng(ScriptedDice(9, 9, 8, 3)), _pool(2), _pool(2)).attacker_wins


def test_ruling_aethelgard_attack_accuracy_vs_defense_soak_and_block() -> None:
    # Accuracy 3 dice [9, 8, 2] = net 2 vs Defense 2: hit. Damage 4 dice [10, 9, 8, 5] = 3,
    # soak 1, block 2 dice [8, 2] = 1: 3 - 1 - 1 = 1.
    rng = ScriptedDice(9, 8, 2, 10, 9, 8, 5, 8, 2)
    result = attack(as_rng(rng), _pool(3), 2, _pool(4), soak=1, block=_pool(2))
    assert (result.hit, result.damage_doubled, result.blocked, result.damage_dealt) == (
        True, False, 1, 1,
    )  # fmt: skip
    miss = attack(as_rng(ScriptedDice(9, 2, 2)), _pool(3), 2, _pool(4))
    assert (miss.hit, miss.damage, miss.damage_dealt) == (False, None, 0)


def test_ruling_aethelgard_critical_accuracy_doubles_the_damage_pool() -> None:
    accuracy = (9, 9, 9, 9, 9)  # net 5: a critical
    rng = ScriptedDice(*accuracy, *([2] * 5), 8, 8, 8)  # damage 4 dice doubled to 8
    result = attack(as_rng(rng), _pool(5), 3, _pool(4))
    assert result.damage is not None
    assert result.damage_doubled and len(result.damage.dice) == 8
    assert result.damage_dealt == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # isdigit() but not int(): no rank, so refused as unreadable, with an example.
        ("Stealth ²", "Write skills as names with ranks 0–5, e.g. `Athletics 2; Melee 3`"),
        ("Lore ٣", "Lore's rank '٣' is not a number from 0 to 5"),
        ("Stealth 1" + "0" * 5_000, "Stealth rank must be between 0 and 5"),  # past int()'s limit
        ("Stealth 0006", "Stealth rank must be between 0 and 5"),
    ],
)
def test_skill_ranks_other_than_ascii_0_to_5_are_refused_with_a_message(
    text: str, message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        parse_skills(text)
