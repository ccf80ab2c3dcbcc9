"""Enchanted Realms rules (docs/players/realms.md, "Rules notes"): each test names its ruling."""

from __future__ import annotations

import json
from dataclasses import asdict
from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from rules import RulesError, modular, realms
from rules.randomness import Rng
from rules.realms import (
    AttackResult,
    CheckKind,
    CheckResult,
    Force,
    SingleDie,
    SpellKind,
    State,
    StealthResult,
    attack,
    attack_odds,
    check,
    check_odds,
    decide,
    parse_damage,
    parse_split,
    reroll,
    reroll_logged,
    single_die,
    spell,
    stealth,
)
from rules.roll_kinds import kind_named
from tests.expect import as_rng

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


class ScriptedDice:
    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        count = 1 if size is None else size
        taken, self.faces = self.faces[:count], self.faces[count:]
        assert len(taken) == count, "too few faces scripted"
        return np.array(taken)


def dice(*faces: int) -> Rng:
    return as_rng(ScriptedDice(*faces))


def test_ruling_realms_advantage_never_stacks_and_any_mix_cancels() -> None:
    assert decide(3, 0).state is State.ADVANTAGE
    assert decide(0, 2).state is State.DISADVANTAGE
    mixed = decide(2, 1)
    assert mixed.state is State.NORMAL
    assert mixed.reason == "2 advantages + 1 disadvantage → straight roll (any mix cancels)"
    assert decide(1, 3).state is State.NORMAL


def test_ruling_realms_disadvantage_means_half_movement() -> None:
    assert "half movement this round" in decide(0, 1).reason


def test_ruling_realms_extra_die_at_advantage_and_per_target_bonus() -> None:
    # 2d20 + 1 extra at advantage, to hit 11: faces 15, 4, 20; damage 1d8: 5 and 3.
    result = attack(dice(15, 4, 20, 5, 3), 2, 11, parse_damage("1d8"), decide(1, 0), "2,1")
    first, second = result.targets
    assert [s.hit for s in first.strikes] == [True, False] and first.damage == 5 + 2
    assert second.strikes[0].natural_20 and second.damage == 3 + 2  # +2 on each target, once


def test_ruling_realms_bonus_once_per_target_not_per_strike() -> None:
    # 2d20 + 1 at advantage: 15 and 16 hit (1d4: 2 and 2), 2 misses; +2 once: 6, not 8.
    result = attack(dice(15, 16, 2, 2, 2), 2, 11, parse_damage("1d4"), decide(1, 0))
    [target] = result.targets
    assert target.hits == 2 and target.damage == 2 + 2 + 2


def test_ruling_realms_zero_dice_rolls_two_and_keeps_the_lower() -> None:
    result = attack(dice(18, 9, 4), 1, 10, parse_damage("1d6"), decide(0, 1))
    assert result.kept_lower and result.dice == (18, 9)
    [target] = result.targets
    assert [s.face for s in target.strikes] == [9] and target.hits == 0


def test_ruling_realms_zero_damage_is_a_miss_without_riders() -> None:
    result = attack(dice(12, 14, 1), 1, 10, parse_damage("1d4"), decide(0, 1), None)
    # 1d20 at disadvantage → 0 dice → two rolled (12, 14), the lower 12 hits; 1d4 = 1, -2 → -1.
    [target] = result.targets
    assert target.hits == 1 and target.raw == -1
    assert (target.damage, target.zero_damage_miss, target.riders) == (0, True, False)


def test_ruling_realms_natural_20_takes_one_damage_and_riders_apply() -> None:
    result = attack(dice(20, 20, 1), 1, 10, parse_damage("1d4"), decide(0, 1))
    [target] = result.targets  # both d20 are 20: the lower is 20, a natural 20; 1 - 2 = -1
    assert (target.damage, target.zero_damage_miss, target.riders) == (1, False, True)


def test_split_of_the_base_dice_meets_the_extra_or_lost_die() -> None:
    assert parse_split("2,1", 4, 3) == (3, 1)  # advantage: the extra die to the first target
    assert parse_split("2,1", 2, 3) == (2,)  # disadvantage: the last target loses its die
    assert parse_split(None, 3, 2) == (3,)
    with pytest.raises(RulesError, match="assigns 5 strikes; this attack has 3"):
        parse_split("3,2", 3, 3)


def test_damage_notation_is_small_and_safe() -> None:
    expression = parse_damage("2d6 + 1d4 - 1")
    assert (expression.dice, expression.modifier) == (((2, 6, 1), (1, 4, 1)), -1)
    for bad in ("1000d1000", "1d7", "d", "2d6*2", "5d6", "1d8+999", ""):
        with pytest.raises(RulesError, match="dice like 1d8\\+1"):
            parse_damage(bad)


def test_ruling_realms_single_die_two_dice_keep_better_or_worse() -> None:
    better = check(dice(3, 17), SingleDie.D20, CheckKind.SAVE, decide(1, 0), target=15)
    assert (better.result, better.success) == (17, True)
    worse = check(dice(3, 17), SingleDie.D12, CheckKind.COMPETITION, decide(0, 1), target=5)
    assert (worse.result, worse.success) == (3, False)
    with pytest.raises(RulesError, match="A competition uses a d12"):
        check(dice(1), SingleDie.D20, CheckKind.COMPETITION, decide(0, 0))
    reaction = check(dice(4), SingleDie.D6, CheckKind.REACTION, decide(0, 0))
    assert reaction.result == 4 and reaction.success is None


def test_ruling_realms_stealth_pool_extra_or_lost_d6() -> None:
    assert stealth(dice(3, 4, 5), 2, decide(1, 0)).total == 12
    zero = stealth(dice(6, 2), 1, decide(0, 1))
    assert zero.kept_lower and zero.total == 2


def test_ruling_realms_spells() -> None:
    assert spell(SpellKind.INCANTATION, decide(1, 0), 0).cost == 0  # never below 0
    assert spell(SpellKind.INCANTATION, decide(1, 0), 3).cost == 2
    assert spell(SpellKind.INCANTATION, decide(0, 1), 3).cost == 4
    assert spell(SpellKind.AXIOM, decide(1, 0)).effect == "lowest oversiphoning at normal cost"
    assert spell(SpellKind.AXIOM, decide(0, 1)).effect == "casting time doubled"


def test_ruling_realms_reroll_exactly_one_die() -> None:
    assert reroll(dice(17), (1, 1), 2, 20) == (1, 17)  # both natural 1s: only one rerolled
    with pytest.raises(RulesError, match="Position must be between 1 and 2"):
        reroll(dice(5), (1, 1), 3, 20)


def _logged(result: DataclassInstance) -> dict[str, object]:
    """Return a result as the roll log keeps it (``asdict``, through JSON)."""
    logged: dict[str, object] = json.loads(json.dumps(asdict(result)))
    return logged


def _read(kind: str, result: DataclassInstance) -> Any:
    """A result logged under ``kind``, rebuilt as every reader of the log rebuilds it."""
    declared = kind_named(kind)
    assert declared is not None
    return declared.decode(_logged(result))


def test_reroll_logged_attack_rolls_damage_for_a_strike_that_now_hits() -> None:
    # 2d20 to hit 11: 15 hits (1d8: 5), 4 misses. Rerolling die 2 gives 12: it hits (1d8: 7).
    before = attack(dice(15, 4, 5), 2, 11, parse_damage("1d8"), decide(0, 0))
    rerolled = reroll_logged(dice(12, 7), _read("realms.attack", before), {"damage": "1d8"}, 2)
    assert rerolled.before == before
    assert (rerolled.old_face, rerolled.new_face) == (4, 12)
    assert rerolled.after.dice == (15, 12)
    assert isinstance(rerolled.after, realms.AttackResult)
    [target] = rerolled.after.targets
    assert [strike.damage for strike in target.strikes] == [5, 7] and target.damage == 12


def test_reroll_logged_check_keeps_die_kind_and_target() -> None:
    # A save at advantage against 15: 3 and 18 keep 18 (success); die 2 rerolled to 9 keeps 9.
    before = check(dice(3, 18), SingleDie.D20, CheckKind.SAVE, decide(1, 0), 15)
    rerolled = reroll_logged(dice(9), _read("realms.check", before), {}, 2)
    after = rerolled.after
    assert isinstance(after, CheckResult)
    assert (after.die, after.kind, after.target, after.dice) == (
        SingleDie.D20,
        CheckKind.SAVE,
        15,
        (3, 9),
    )
    assert after.result == 9 and after.success is False
    assert (rerolled.old_face, rerolled.new_face) == (18, 9)


def test_reroll_logged_stealth_keeps_the_lower_die() -> None:
    # 1d6 at disadvantage is two d6 keeping the lower: 2 and 5 → 2; die 1 rerolled to 6 → 5.
    before = stealth(dice(2, 5), 1, decide(0, 1))
    rerolled = reroll_logged(dice(6), _read("realms.stealth", before), {}, 1)
    after = rerolled.after
    assert isinstance(after, StealthResult)
    assert after.dice == (6, 5) and after.kept_lower and after.total == 5
    assert (rerolled.old_face, rerolled.new_face) == (2, 6)


def test_reroll_logged_refuses_a_position_past_the_dice() -> None:
    before = stealth(dice(2, 5), 2, decide(0, 0))
    with pytest.raises(RulesError, match="Position must be between 1 and 2"):
        reroll_logged(dice(6), _read("realms.stealth", before), {}, 3)


def test_check_odds_against_enumeration() -> None:
    odds = check_odds(SingleDie.D20, 15)
    assert odds.normal == Fraction(6, 20)
    assert odds.advantage == Fraction(
        sum(max(a, b) >= 15 for a, b in product(range(1, 21), repeat=2)), 400
    )
    assert odds.disadvantage == Fraction(
        sum(min(a, b) >= 15 for a, b in product(range(1, 21), repeat=2)), 400
    )


def _brute_attack(
    faces_list: list[tuple[int, ...]], to_hit: int, sides: int, shift: int
) -> dict[int, Fraction]:
    """Enumerate every strike face and every damage die: one target, 1d<sides> a hit."""
    taken: dict[int, int] = {}
    total = 0
    for faces in faces_list:
        hitting = [f for f in faces if f == 20 or f >= to_hit]
        for damages in product(range(1, sides + 1), repeat=len(hitting)):
            weight = sides ** (len(faces) - len(hitting))  # unrolled damage dice, for equal weights
            total += weight
            if not hitting:
                value = 0
            else:
                raw = sum(damages) + shift
                value = raw if raw > 0 else (1 if 20 in hitting else 0)
            taken[value] = taken.get(value, 0) + weight
    return {v: Fraction(w, total) for v, w in sorted(taken.items())}


@pytest.mark.parametrize(
    ("base", "advantages", "disadvantages"), [(1, 0, 0), (2, 1, 0), (2, 0, 1), (1, 0, 1)]
)
def test_attack_odds_equal_brute_force(base: int, advantages: int, disadvantages: int) -> None:
    decision = decide(advantages, disadvantages)
    result = attack_odds(base, 12, parse_damage("1d4"), decision)
    strikes = base + advantages - disadvantages
    shift = 2 if advantages else -2 if disadvantages else 0
    if strikes == 0:
        faces_list: list[tuple[int, ...]] = [
            (min(a, b),) for a, b in product(range(1, 21), repeat=2)
        ]
    else:
        faces_list = list(product(range(1, 21), repeat=strikes))
    [target] = result.targets
    assert target.damage == _brute_attack(faces_list, 12, 4, shift)
    assert target.missed == target.damage[0]


def _enumerate_target(
    strikes: int,
    faces: list[int],
    to_hit: int,
    dice: list[tuple[int, int]],
    modifier: int,
    shift: int,
) -> dict[int, Fraction]:
    """One target's damage by hand: every d20 face of every strike (``faces``: one entry per
    equally likely face, e.g. the lower of each pair of d20s), every face of every damage die
    (``dice``: (sides, sign) per die) of the strikes that hit, the ±2 once and the zero-damage
    rule. Misses roll no damage: each weighs as many damage outcomes as a hit, so every path
    has equal weight."""
    damage_totals: dict[int, int] = {}
    for rolled in product(*(range(1, sides + 1) for sides, _ in dice)):
        total = modifier + sum(sign * face for face, (_, sign) in zip(rolled, dice, strict=True))
        damage_totals[total] = damage_totals.get(total, 0) + 1
    outcomes = sum(damage_totals.values())
    taken: dict[int, int] = {}
    for strike_faces in product(faces, repeat=strikes):
        hitting = [face for face in strike_faces if face == 20 or face >= to_hit]
        unrolled = outcomes ** (strikes - len(hitting))
        for sums in product(damage_totals.items(), repeat=len(hitting)):
            weight = unrolled
            for _, ways in sums:
                weight *= ways
            raw = sum(total for total, _ in sums) + shift
            if not hitting:
                value = 0
            elif raw > 0:
                value = raw
            else:
                value = 1 if 20 in hitting else 0
            taken[value] = taken.get(value, 0) + weight
    whole = sum(taken.values())
    return {value: Fraction(weight, whole) for value, weight in sorted(taken.items()) if weight}


D20_FACES = list(range(1, 21))
LOWER_OF_TWO = [min(a, b) for a, b in product(D20_FACES, repeat=2)]


@pytest.mark.parametrize(
    ("query", "strikes", "faces", "to_hit", "dice", "modifier", "shift"),
    [
        # Two strikes, 1d4-3: most hits come to nothing; a natural 20 among them deals 1.
        ((2, 15, "1d4-3", 0, 0, None), (2,), D20_FACES, 15, [(4, 1)], -3, 0),
        # Advantage: three strikes, +2; to hit 21, only a natural 20 hits (no plain hit).
        ((2, 21, "1d6", 1, 0, None), (3,), D20_FACES, 21, [(6, 1)], 0, 2),
        # Disadvantage with a split: two targets of one strike each, −2 on each.
        ((3, 11, "1d3+1", 0, 1, "1,1"), (1, 1), D20_FACES, 11, [(3, 1)], 1, -2),
        # One die at disadvantage: the lower of two d20s, one strike, −2; two dice of damage.
        ((1, 11, "2d2-1", 0, 1, None), (1,), LOWER_OF_TWO, 11, [(2, 1), (2, 1)], -1, -2),
        # A subtracted die and three targets of different strikes.
        ((4, 8, "5-1d4", 0, 0, "2,1,1"), (2, 1, 1), D20_FACES, 8, [(4, -1)], 5, 0),
    ],
)
@pytest.mark.parametrize("small_power_bits", [0, 10**9])  # numpy's transforms; big integers
def test_rule_realms_attack_odds_fast_path_equals_hand_enumeration(
    query: tuple[int, int, str, int, int, str | None],
    strikes: tuple[int, ...],
    faces: list[int],
    to_hit: int,
    dice: list[tuple[int, int]],
    modifier: int,
    shift: int,
    small_power_bits: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(modular, "SMALL_POWER_BITS", small_power_bits)
    base, to_hit_asked, damage, advantages, disadvantages, split = query
    result = attack_odds(
        base, to_hit_asked, parse_damage(damage), decide(advantages, disadvantages), split
    )
    assert tuple(target.strikes for target in result.targets) == strikes
    for target in result.targets:
        expected = _enumerate_target(target.strikes, faces, to_hit, dice, modifier, shift)
        assert dict(target.damage.items()) == expected
        assert list(target.damage) == list(expected)  # every possible value, in order
        assert target.missed == expected.get(0, Fraction(0))
        assert sum(target.damage.values()) == 1


# --- After the rules audit: the primary attack's ±2, the GM's forced state, concentration


def test_rule_realms_bonus_damage_applies_to_the_primary_attack_only() -> None:
    # 1d20 at advantage → 2d20, to hit 11: 15 and 16 hit, 1d4 rolls 2 and 3.
    primary = attack(dice(15, 16, 2, 3), 1, 11, parse_damage("1d4"), decide(1, 0))
    assert primary.primary and primary.targets[0].damage == 2 + 3 + 2
    off_hand = attack(dice(15, 16, 2, 3), 1, 11, parse_damage("1d4"), decide(1, 0), primary=False)
    [target] = off_hand.targets
    assert not off_hand.primary and off_hand.dice == (15, 16)  # the extra die still comes
    assert (target.shift, target.damage) == (0, 2 + 3)


def test_rule_realms_secondary_attack_at_disadvantage_loses_no_damage() -> None:
    # 2d20 at disadvantage → 1d20: 12 hits, 1d4 rolls 1. Primary: 1 - 2 ≤ 0, a miss; secondary: 1.
    primary = attack(dice(12, 1), 2, 10, parse_damage("1d4"), decide(0, 1))
    assert primary.targets[0].zero_damage_miss and primary.half_movement
    secondary = attack(dice(12, 1), 2, 10, parse_damage("1d4"), decide(0, 1), primary=False)
    [target] = secondary.targets
    assert (target.damage, target.zero_damage_miss, target.riders) == (1, False, True)
    assert secondary.half_movement  # the state is still disadvantage


@pytest.mark.parametrize(("advantages", "disadvantages"), [(1, 0), (0, 1), (0, 0)])
def test_rule_realms_secondary_attack_odds_equal_brute_force(
    advantages: int, disadvantages: int
) -> None:
    decision = decide(advantages, disadvantages)
    result = attack_odds(2, 12, parse_damage("1d4"), decision, primary=False)
    strikes = 2 + advantages - disadvantages
    faces_list = list(product(range(1, 21), repeat=strikes))
    [target] = result.targets
    assert not result.primary
    assert target.damage == _brute_attack(faces_list, 12, 4, 0)  # no ±2, whatever the state


def test_rule_realms_gm_force_overrides_the_cancel_rule() -> None:
    forced = decide(1, 2, Force.ADVANTAGE)
    assert (forced.state, forced.forced) == (State.ADVANTAGE, True)
    assert forced.reason == (
        "forced by the GM, overriding 1 advantage + 2 disadvantages "
        "(a specific effect beats the cancel rule)"
    )
    down = decide(3, 0, Force.DISADVANTAGE)
    assert (down.state, down.forced) == (State.DISADVANTAGE, True)
    assert down.reason.endswith("; half movement this round")
    assert decide(0, 0, Force.ADVANTAGE).reason == (
        "forced by the GM (a specific effect beats the cancel rule)"
    )
    assert not decide(1, 1).forced and decide(1, 1).state is State.NORMAL
    with pytest.raises(RulesError, match="Advantages must be between 0 and 10"):
        decide(11, 0, Force.ADVANTAGE)  # the counts are still checked


def test_rule_realms_forced_state_rolls_as_that_state() -> None:
    # A mix that would cancel, forced to advantage: the extra d20 and +2; two dice kept higher.
    hit = attack(dice(15, 16, 2, 3), 1, 11, parse_damage("1d4"), decide(1, 1, Force.ADVANTAGE))
    assert hit.dice == (15, 16) and hit.targets[0].damage == 2 + 3 + 2
    save = check(dice(4, 17), SingleDie.D20, CheckKind.SAVE, decide(2, 1, Force.DISADVANTAGE), 10)
    assert (save.dice, save.result, save.success) == ((4, 17), 4, False)
    pool = stealth(dice(3, 5), 3, decide(0, 1, Force.DISADVANTAGE))
    assert pool.dice == (3, 5) and pool.total == 8
    assert spell(SpellKind.INCANTATION, decide(1, 1, Force.ADVANTAGE), 3).cost == 2


def test_rule_realms_reroll_keeps_a_forced_state_and_a_secondary_attack() -> None:
    decision = decide(1, 1, Force.ADVANTAGE)
    before = attack(dice(15, 4, 2), 1, 11, parse_damage("1d4"), decision, primary=False)
    rerolled = reroll_logged(dice(18, 3), _read("realms.attack", before), {"damage": "1d4"}, 2)
    after = rerolled.after
    assert isinstance(after, AttackResult)
    assert after.decision == decision and not after.primary
    assert after.targets[0].damage == 2 + 3  # the new hit rolls 3; still no +2
    logged = _logged(before)
    del logged["primary"]  # a roll logged before secondary attacks existed is a primary one
    decision_logged = logged["decision"]
    assert isinstance(decision_logged, dict)
    del decision_logged["forced"]
    kind = kind_named("realms.attack")
    assert kind is not None
    old = reroll_logged(dice(18, 3), kind.decode(logged), {"damage": "1d4"}, 2).after
    assert isinstance(old, AttackResult) and old.primary and not old.decision.forced


def test_rule_realms_concentration_is_a_save() -> None:
    for decision, kept in ((decide(1, 0), 17), (decide(0, 1), 3), (decide(0, 0), 3)):
        concentration = check(dice(3, 17), SingleDie.D20, CheckKind.CONCENTRATION, decision, 12)
        save = check(dice(3, 17), SingleDie.D20, CheckKind.SAVE, decision, 12)
        assert concentration.result == save.result == kept
        assert concentration.success is save.success is (kept >= 12)
        assert concentration.dice == save.dice
    with pytest.raises(RulesError, match="A concentration uses a d20"):
        check(dice(1), SingleDie.D12, CheckKind.CONCENTRATION, decide(0, 0))
    assert "half movement" in decide(0, 1).reason  # as a save: disadvantage halves movement


def test_single_die_distributions_against_enumeration() -> None:
    pairs = list(product(range(1, 13), repeat=2))
    for state, pick in ((State.ADVANTAGE, max), (State.DISADVANTAGE, min)):
        distribution = single_die(SingleDie.D12, state)
        for value, weight in zip(
            distribution.outcomes().tolist(), distribution.weights.tolist(), strict=True
        ):
            expected = sum(pick(a, b) == value for a, b in pairs)
            assert Fraction(weight, distribution.total_weight) == Fraction(expected, 144)
    straight = single_die(SingleDie.D12, State.NORMAL)
    assert straight.outcomes().tolist() == list(range(1, 13))


# --- The reroll is a trait (RULINGS, Enchanted Realms: the document's "chance trait")

# Every combination, worked out by hand from the ruling: only a roll's roller rerolls it;
# outside a campaign anyone may; in a campaign a GM (their own rolls) or a holder of the trait.
# (in_campaign, is_gm, holds_trait, is_own_roll): allowed
MAY_REROLL_BY_HAND = {
    (False, False, False, False): False,  # someone else's roll
    (False, False, False, True): True,  # outside a campaign: anyone, their own roll
    (False, False, True, False): False,
    (False, False, True, True): True,
    (False, True, False, False): False,
    (False, True, False, True): True,
    (False, True, True, False): False,
    (False, True, True, True): True,
    (True, False, False, False): False,
    (True, False, False, True): False,  # a player without the trait
    (True, False, True, False): False,  # the trait rerolls one's own rolls only
    (True, False, True, True): True,  # a player with the trait
    (True, True, False, False): False,  # a GM: their own rolls only
    (True, True, False, True): True,  # a GM's own roll, trait or not
    (True, True, True, False): False,
    (True, True, True, True): True,
}


def test_rule_realms_reroll_is_a_trait_in_a_campaign_over_every_combination() -> None:
    assert len(MAY_REROLL_BY_HAND) == 2**4
    for (in_campaign, is_gm, holds, own), allowed in MAY_REROLL_BY_HAND.items():
        permission = realms.may_reroll(
            in_campaign=in_campaign, is_gm=is_gm, holds_trait=holds, is_own_roll=own
        )
        assert permission.allowed is allowed, (in_campaign, is_gm, holds, own)
        assert permission.reason
    refused = realms.may_reroll(in_campaign=True, is_gm=False, holds_trait=False, is_own_roll=True)
    assert "a GM gives it with `/realms trait add`" in refused.reason
    assert [trait.value for trait in realms.Trait] == ["reroll"]
