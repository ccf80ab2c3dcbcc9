"""Cosmos Engine: rulings, seeded rolls, exact odds against brute force, challenges, conversion."""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, cosmos, new_rng
from rules.cosmos import (
    ADVANTAGE_CAP,
    ATTRIBUTE_MAX,
    SKILL_MAX,
    TN_MAX,
    TN_MIN,
    Action,
    Challenge,
    ChallengeStatus,
    CheckResult,
    ConversionTables,
    CriticalEffects,
    Difficulty,
    Era,
    Pool,
    PoolMode,
    PoolRoll,
    Scale,
    Side,
    advance_challenge,
    challenge_points,
    convert,
    difficulty,
    odds,
    opposed,
    parse_action,
    parse_conversion,
    parse_critical_effects,
    parse_scale,
    roll,
    start_challenge,
)
from rules.odds import Keep, Outcome
from tests.rules.brute_force import kept_counts

DATA = Path(__file__).resolve().parents[2] / "data" / "cosmos"


@pytest.fixture(scope="module")
def effects() -> CriticalEffects:
    with (DATA / "critical_effects.toml").open("rb") as file:
        return parse_critical_effects(tomllib.load(file))


@pytest.fixture(scope="module")
def conversion() -> ConversionTables:
    with (DATA / "conversion.toml").open("rb") as file:
        return parse_conversion(tomllib.load(file))


def _brute_success(count: int, which: Keep, modifier: int, tn: int) -> Fraction:
    """Count every ordered roll that succeeds, deciding criticals from the kept faces."""
    wins = 0
    for (low, high), ways in kept_counts(count, 10, 2, which).items():
        if (low, high) == (10, 10) or ((low, high) != (1, 1) and low + high + modifier >= tn):
            wins += ways
    return Fraction(wins, 10**count)


# --- Rulings


def test_ruling_cosmos_total_is_two_kept_dice_plus_attribute_plus_skill() -> None:
    result = roll(new_rng(1), attribute=3, skill=2, tn=15, advantage=3)
    assert result.roll.dice == (5, 6, 8, 10, 1)
    assert result.roll.kept_indices == (2, 3)
    assert result.roll.kept == (8, 10)
    assert result.roll.modifier == 5
    assert result.roll.total == 8 + 10 + 3 + 2
    assert result.success


def test_ruling_cosmos_success_when_total_at_least_tn() -> None:
    # Seed 0 rolls 9 and 7: total 16 + modifier.
    assert roll(new_rng(0), attribute=0, skill=0, tn=16).success
    assert not roll(new_rng(0), attribute=0, skill=0, tn=17).success
    assert roll(new_rng(0), attribute=1, skill=0, tn=17).success


def test_ruling_cosmos_keep_two_highest_with_advantage() -> None:
    result = roll(new_rng(4), attribute=0, skill=0, tn=10, advantage=5)
    assert result.roll.dice == (8, 10, 9, 6, 10, 10, 10)
    # Equal faces: the earlier dice are kept.
    assert result.roll.kept_indices == (1, 4)
    assert result.roll.kept == (10, 10)


def test_ruling_cosmos_keep_two_lowest_with_disadvantage() -> None:
    result = roll(new_rng(3), attribute=1, skill=1, tn=8, advantage=1, disadvantage=6)
    assert result.roll.pool.dice == 7
    assert result.roll.dice == (9, 1, 2, 3, 2, 9, 9)
    assert result.roll.kept_indices == (1, 2)
    assert result.roll.kept == (1, 2)
    assert result.roll.total == 5
    assert not result.success


def test_ruling_cosmos_cancellation_then_cap_at_five() -> None:
    # 8 advantage - 2 disadvantage = 6, capped to 5: not capped first (5 - 2 = 3).
    pool = Pool(advantage=8, disadvantage=2)
    assert (pool.uncapped_net, pool.net, pool.dice, pool.capped) == (6, 5, 7, True)
    assert pool.mode is PoolMode.ADVANTAGE
    assert Pool(advantage=3, disadvantage=3).dice == 2
    assert Pool(advantage=3, disadvantage=3).mode is PoolMode.NORMAL
    disadvantaged = Pool(advantage=1, disadvantage=9)
    assert (disadvantaged.net, disadvantaged.dice, disadvantaged.keep) == (-5, 7, Keep.LOWEST)
    assert Pool(advantage=20).dice == 2 + ADVANTAGE_CAP


def test_ruling_cosmos_tn_range_and_labels() -> None:
    assert difficulty(TN_MIN) is Difficulty.EASY
    assert difficulty(10) is Difficulty.EASY
    assert difficulty(11) is Difficulty.MODERATE
    assert difficulty(14) is Difficulty.MODERATE
    assert difficulty(15) is Difficulty.HARD
    assert difficulty(18) is Difficulty.HARD
    assert difficulty(19) is Difficulty.EXTREME
    assert difficulty(TN_MAX) is Difficulty.EXTREME
    for tn in (TN_MIN - 1, TN_MAX + 1):
        with pytest.raises(RulesError, match=f"TN must be between 2 and 40 \\(got {tn}\\)"):
            difficulty(tn)


def test_ruling_cosmos_critical_failure_at_any_pool() -> None:
    base = roll(new_rng(34), attribute=0, skill=0, tn=10)
    assert base.roll.dice == (1, 1)
    assert base.roll.critical_failure
    # With advantage the two highest can still both be 1 (every die 1).
    advantaged = roll(new_rng(233), attribute=0, skill=0, tn=10, advantage=1)
    assert advantaged.roll.dice == (1, 1, 1)
    assert advantaged.roll.critical_failure
    assert odds(0, 0, 10).critical_failure == Fraction(1, 100)
    assert odds(0, 0, 10, advantage=1).critical_failure == Fraction(1, 1000)


def test_ruling_cosmos_critical_failure_always_fails() -> None:
    result = roll(new_rng(34), attribute=5, skill=5, tn=2)
    assert result.roll.total == 12
    assert not result.success
    assert odds(5, 5, 2).success == Fraction(99, 100)


def test_ruling_cosmos_critical_success_always_succeeds() -> None:
    result = roll(new_rng(66), attribute=0, skill=0, tn=40)
    assert result.roll.dice == (10, 10)
    assert result.roll.critical_success
    assert result.success
    assert odds(0, 0, 40).success == Fraction(1, 100)
    assert odds(5, 5, 31, advantage=1).success == Fraction(28, 1000)


def test_ruling_cosmos_one_critical_effect_per_roll(effects: CriticalEffects) -> None:
    # Four 10s rolled, still one effect.
    result = roll(
        new_rng(4),
        attribute=2,
        skill=2,
        tn=18,
        advantage=5,
        scale=Scale.STARSHIP,
        action=Action.FLEET,
        effects=effects,
    )
    assert result.roll.dice.count(10) == 4
    assert result.critical_effect == "Coordinated strike + morale bonus"


def test_ruling_cosmos_no_effect_without_critical(effects: CriticalEffects) -> None:
    result = roll(
        new_rng(1),
        attribute=0,
        skill=0,
        tn=10,
        scale=Scale.PERSONAL,
        action=Action.SKILL,
        effects=effects,
    )
    assert not result.roll.critical_success
    assert result.critical_effect is None
    assert (result.scale, result.action) == (Scale.PERSONAL, Action.SKILL)


def test_ruling_cosmos_critical_effects_by_scale_and_action(effects: CriticalEffects) -> None:
    assert effects.effect(Scale.PERSONAL, Action.COMBAT).startswith("Double damage")
    assert effects.effect(Scale.VEHICLE, Action.PILOTING) == "Perfect maneuver + positioning bonus"
    assert effects.effect(Scale.CAPITAL, Action.ECONOMICS) == (
        "Market transformation + lasting prosperity"
    )
    with pytest.raises(RulesError, match="choose one of: fleet, navigation, diplomacy"):
        effects.effect(Scale.STARSHIP, Action.COMBAT)


def test_ruling_cosmos_tie_goes_to_defender() -> None:
    result = opposed(new_rng(13), attribute=2, skill=1, vs_attribute=1, vs_skill=2)
    assert result.attacker.total == result.defender.total == 21
    assert result.margin == 0
    assert result.winner is Side.DEFENDER


def test_ruling_cosmos_opposed_each_side_uses_its_own_pool() -> None:
    result = opposed(
        new_rng(0),
        attribute=2,
        skill=1,
        vs_attribute=1,
        vs_skill=2,
        advantage=2,
        vs_disadvantage=1,
    )
    assert (result.attacker.dice, result.attacker.kept, result.attacker.total) == (
        (9, 7, 6, 3),
        (9, 7),
        19,
    )
    assert (result.defender.dice, result.defender.kept, result.defender.total) == (
        (4, 1, 1),
        (1, 1),
        5,
    )
    assert result.defender.critical_failure
    assert result.winner is Side.ATTACKER
    assert result.margin == 14


def test_ruling_cosmos_document_formula_is_wrong() -> None:
    for count in range(2, 8):
        document = 1 - 0.99**count - count * 0.01 * 0.99 ** (count - 1)
        correct = 1 - 0.9**count - count * 0.1 * 0.9 ** (count - 1)
        exact = odds(0, 0, 20, advantage=count - 2).critical_success
        assert np.isclose(float(exact), correct, rtol=0, atol=1e-12)
        assert not np.isclose(document, correct, rtol=0.5)
    # The document's own formula gives 0.01% for 2d10, its table 1.0%: the table is right.
    assert round(1 - 0.99**2 - 2 * 0.01 * 0.99, 6) == 0.0001


def test_ruling_cosmos_our_numbers_stand_against_the_document_table() -> None:
    exact = {
        2: (Fraction(11), Fraction(1, 100), Fraction(1, 100)),
        3: (Fraction(539, 40), Fraction(28, 1000), Fraction(1, 1000)),
        4: (Fraction(74833, 5000), Fraction(523, 10000), Fraction(1, 10**4)),
        5: (Fraction(63833, 4000), Fraction(4073, 50000), Fraction(1, 10**5)),
        6: (Fraction(416603, 25000), Fraction(22853, 200000), Fraction(1, 10**6)),
        7: (Fraction(6876551, 400000), Fraction(93559, 625000), Fraction(1, 10**7)),
    }
    for count, (mean, critical_success, critical_failure) in exact.items():
        result = odds(0, 0, 20, advantage=count - 2)
        assert (result.mean_total, result.critical_success, result.critical_failure) == (
            mean,
            critical_success,
            critical_failure,
        )
    # "TN 20 keeps 18% failure at max advantage" holds for no modifier: 20.8% at +4, 12.9% at +5.
    assert odds(4, 0, 20, advantage=5).failure == Fraction(2083053, 10**7)
    assert odds(5, 0, 20, advantage=5).failure == Fraction(644091, 5 * 10**6)


def test_ruling_cosmos_conversion_era(conversion: ConversionTables) -> None:
    expected = {
        Era.PRIMITIVE: 1,
        Era.MODERN: 1,
        Era.ADVANCED: 2,
        Era.FUTURISTIC: 2,
        Era.COSMIC: 3,
    }
    for era, dice in expected.items():
        result = convert(conversion, era=era)
        assert (result.era_dice, result.pool.advantage, result.pool.disadvantage) == (dice, dice, 0)
    assert convert(conversion).pool == Pool(0, 0)


@pytest.mark.parametrize(
    ("situational", "dice"),
    [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (20, 3),
     (-1, -1), (-2, -1), (-3, -2), (-4, -2), (-5, -3), (-20, -3)],
)  # fmt: skip
def test_ruling_cosmos_conversion_situational_bands(
    conversion: ConversionTables, situational: int, dice: int
) -> None:
    result = convert(conversion, situational=situational)
    assert result.situational_dice == dice
    assert result.pool.net == dice


@pytest.mark.parametrize(
    ("rating", "dice"),
    [(0, 0), (1, 1), (3, 1), (4, 2), (6, 2), (7, 3), (9, 3), (10, 4), (50, 4)],
)
def test_ruling_cosmos_conversion_rating_bands(
    conversion: ConversionTables, rating: int, dice: int
) -> None:
    assert convert(conversion, rating=rating).rating_dice == dice


def test_ruling_cosmos_conversion_nets_after_cancellation_and_cap(
    conversion: ConversionTables,
) -> None:
    result = convert(conversion, era=Era.COSMIC, situational=-3, rating=10)
    assert (result.pool.advantage, result.pool.disadvantage) == (7, 2)
    assert (result.pool.net, result.pool.dice, result.pool.capped) == (5, 7, False)
    capped = convert(conversion, era=Era.COSMIC, situational=5, rating=10)
    assert (capped.pool.uncapped_net, capped.pool.net) == (10, 5)
    assert convert(conversion, era=Era.PRIMITIVE, situational=-9).pool.net == -2


def test_conversion_refuses_out_of_range_input(conversion: ConversionTables) -> None:
    with pytest.raises(RulesError, match="Rating must be between 0 and 50 \\(got -1\\)"):
        convert(conversion, rating=-1)
    with pytest.raises(RulesError, match="Situational modifier must be between -20 and 20"):
        convert(conversion, situational=21)


# --- Seeded rolls respect the rules


@pytest.mark.parametrize("seed", range(40))
def test_seeded_rolls_respect_the_rules(seed: int) -> None:
    rng = new_rng(seed)
    advantage, disadvantage = seed % 9, (seed * 7) % 8
    attribute, skill, tn = seed % 6, (seed // 6) % 6, 2 + seed % 39
    result = roll(
        rng,
        attribute=attribute,
        skill=skill,
        tn=tn,
        advantage=advantage,
        disadvantage=disadvantage,
    )
    dice = result.roll
    assert len(dice.dice) == 2 + min(abs(advantage - disadvantage), 5)
    assert all(1 <= face <= 10 for face in dice.dice)
    assert dice.kept == tuple(dice.dice[index] for index in dice.kept_indices)
    others = [face for index, face in enumerate(dice.dice) if index not in dice.kept_indices]
    if advantage > disadvantage:
        assert all(face <= min(dice.kept) for face in others)
    elif disadvantage > advantage:
        assert all(face >= max(dice.kept) for face in others)
    assert dice.total == sum(dice.kept) + dice.modifier
    assert dice.critical_success == (dice.kept == (10, 10))
    assert dice.critical_failure == (dice.kept == (1, 1))
    assert result.success == (
        dice.critical_success or (not dice.critical_failure and dice.total >= result.tn)
    )


def test_same_seed_gives_the_same_roll() -> None:
    first = roll(new_rng(99), attribute=2, skill=3, tn=14, advantage=2)
    second = roll(new_rng(99), attribute=2, skill=3, tn=14, advantage=2)
    assert first == second
    assert isinstance(first, CheckResult)
    assert isinstance(first.roll, PoolRoll)


# --- Exact odds against brute force


@pytest.mark.parametrize("extra", range(0, 6))
@pytest.mark.parametrize("which", list(Keep))
def test_odds_equal_brute_force_for_every_pool(extra: int, which: Keep) -> None:
    advantage, disadvantage = (extra, 0) if which is Keep.HIGHEST else (0, extra)
    count = 2 + extra
    counts = kept_counts(count, 10, 2, which)
    for modifier, attribute, skill in ((0, 0, 0), (4, 3, 1), (10, 5, 5)):
        result = odds(attribute, skill, 15, advantage, disadvantage)
        totals: dict[int, int] = {}
        for (low, high), ways in counts.items():
            totals[low + high + modifier] = totals.get(low + high + modifier, 0) + ways
        assert result.totals.as_fractions() == {
            total: Fraction(ways, 10**count) for total, ways in totals.items()
        }
        assert result.mean_total == Fraction(
            sum(total * ways for total, ways in totals.items()), 10**count
        )
        assert result.critical_success == Fraction(counts[(10, 10)], 10**count)
        assert result.critical_failure == Fraction(counts[(1, 1)], 10**count)
        for tn in range(TN_MIN, TN_MAX + 1):
            expected = _brute_success(count, which, modifier, tn)
            assert odds(attribute, skill, tn, advantage, disadvantage).success == expected


def _brute_outcomes(count: int, which: Keep, modifier: int, tn: int) -> dict[int, set[Outcome]]:
    """Return, for each total, how the rolls with that total count (criticals from kept faces)."""
    outcomes: dict[int, set[Outcome]] = {}
    for (low, high), _ in kept_counts(count, 10, 2, which).items():
        if (low, high) == (10, 10):
            outcome = Outcome.CRITICAL_SUCCESS
        elif (low, high) == (1, 1):
            outcome = Outcome.CRITICAL_FAILURE
        else:
            outcome = Outcome.SUCCESS if low + high + modifier >= tn else Outcome.FAILURE
        outcomes.setdefault(low + high + modifier, set()).add(outcome)
    return outcomes


@pytest.mark.parametrize("extra", range(0, 6))
@pytest.mark.parametrize("which", list(Keep))
def test_odds_outcome_of_each_total_equals_brute_force(extra: int, which: Keep) -> None:
    advantage, disadvantage = (extra, 0) if which is Keep.HIGHEST else (0, extra)
    count = 2 + extra
    for attribute, skill in ((0, 0), (3, 1), (5, 5)):
        for tn in range(TN_MIN, TN_MAX + 1):
            result = odds(attribute, skill, tn, advantage, disadvantage)
            brute = _brute_outcomes(count, which, attribute + skill, tn)
            # Every roll with the same total counts the same way: one outcome per chart bar.
            assert all(len(outcomes) == 1 for outcomes in brute.values())
            totals = result.totals.outcomes().tolist()
            assert totals == sorted(brute)
            assert list(result.outcomes) == [brute[total].pop() for total in totals]
            succeeding = np.array([outcome.succeeds for outcome in result.outcomes])
            assert result.totals.probability_where(succeeding) == result.success


def test_ruling_cosmos_odds_outcomes_follow_criticals_whatever_the_tn() -> None:
    hopeless = odds(5, 5, 40)
    assert hopeless.success == Fraction(1, 100)
    assert dict(zip(hopeless.totals.outcomes().tolist(), hopeless.outcomes, strict=True)) == {
        12: Outcome.CRITICAL_FAILURE,
        **{total: Outcome.FAILURE for total in range(13, 30)},
        30: Outcome.CRITICAL_SUCCESS,
    }
    certain = odds(5, 5, 8, disadvantage=5)
    assert certain.success == 1 - certain.critical_failure
    assert certain.success == 1 - Fraction(10**7 - 9**7 - 7 * 9**6, 10**7)
    assert dict(zip(certain.totals.outcomes().tolist(), certain.outcomes, strict=True)) == {
        12: Outcome.CRITICAL_FAILURE,
        **{total: Outcome.SUCCESS for total in range(13, 30)},
        30: Outcome.CRITICAL_SUCCESS,
    }


def test_odds_chart_distribution_is_float_and_sums_to_one() -> None:
    result = odds(3, 2, 15, advantage=2)
    probabilities = result.totals.probabilities()
    assert probabilities.dtype == np.float64
    assert np.isclose(probabilities.sum(), 1.0, rtol=0, atol=1e-12)
    assert result.totals.min_value == 2 + 5
    assert result.totals.max_value == 20 + 5


@given(
    attribute=st.integers(0, ATTRIBUTE_MAX),
    skill=st.integers(0, SKILL_MAX),
    advantage=st.integers(0, 20),
    disadvantage=st.integers(0, 20),
)
def test_odds_are_consistent_over_legal_inputs(
    attribute: int, skill: int, advantage: int, disadvantage: int
) -> None:
    previous = Fraction(1)
    for tn in range(TN_MIN, TN_MAX + 1):
        result = odds(attribute, skill, tn, advantage, disadvantage)
        assert sum(result.totals.as_fractions().values()) == 1
        assert 0 < result.success < 1
        assert result.success + result.failure == 1
        # Harder never helps; criticals bound success from both sides whatever the TN.
        assert result.success <= previous
        assert result.critical_success <= result.success <= 1 - result.critical_failure
        previous = result.success


@given(
    attribute=st.integers(0, ATTRIBUTE_MAX),
    skill=st.integers(0, SKILL_MAX),
    tn=st.integers(TN_MIN, TN_MAX),
    advantage=st.integers(0, 20),
    disadvantage=st.integers(0, 20),
    seed=st.integers(0, 2**32 - 1),
)
def test_rolls_stay_inside_the_odds_support(
    attribute: int, skill: int, tn: int, advantage: int, disadvantage: int, seed: int
) -> None:
    result = roll(
        new_rng(seed),
        attribute=attribute,
        skill=skill,
        tn=tn,
        advantage=advantage,
        disadvantage=disadvantage,
    )
    chances = odds(attribute, skill, tn, advantage, disadvantage)
    assert chances.totals.probability(result.roll.total) > 0


# --- Extended challenges


def _check(seed: int, tn: int, **kwargs: Any) -> CheckResult:
    return roll(new_rng(seed), attribute=kwargs.pop("attribute", 0), skill=0, tn=tn, **kwargs)


def test_ruling_cosmos_challenge_points() -> None:
    assert challenge_points(_check(66, 15)) == 2  # (10, 10)
    assert challenge_points(_check(0, 15)) == 1  # 9 + 7 = 16
    assert challenge_points(_check(0, 17)) == 0
    assert challenge_points(_check(34, 15)) == -1  # (1, 1), house


def test_ruling_cosmos_challenge_won_when_successes_reached() -> None:
    challenge = start_challenge("  Hack the mainframe ", tn=15, successes_needed=3, max_rolls=3)
    assert challenge == Challenge("Hack the mainframe", 15, 3, 3)
    challenge = advance_challenge(challenge, _check(0, 15))
    assert (challenge.successes, challenge.rolls_used) == (1, 1)
    assert challenge.status is ChallengeStatus.OPEN
    challenge = advance_challenge(challenge, _check(66, 15))
    assert (challenge.successes, challenge.rolls_left) == (3, 1)
    assert challenge.status is ChallengeStatus.WON


def test_ruling_cosmos_challenge_won_on_the_last_roll_beats_lost() -> None:
    challenge = start_challenge("Escape", tn=15, successes_needed=1, max_rolls=1)
    assert advance_challenge(challenge, _check(0, 15)).status is ChallengeStatus.WON


def test_ruling_cosmos_challenge_lost_when_rolls_used() -> None:
    challenge = start_challenge("Escape", tn=17, successes_needed=2, max_rolls=2)
    challenge = advance_challenge(challenge, _check(0, 17))
    challenge = advance_challenge(challenge, _check(0, 17))
    assert (challenge.successes, challenge.rolls_used) == (0, 2)
    assert challenge.status is ChallengeStatus.LOST


def test_ruling_cosmos_challenge_critical_failure_costs_one_never_below_zero() -> None:
    challenge = start_challenge("Negotiate", tn=15, successes_needed=5, max_rolls=10)
    challenge = advance_challenge(challenge, _check(34, 15))
    assert challenge.successes == 0
    challenge = advance_challenge(challenge, _check(66, 15))
    challenge = advance_challenge(challenge, _check(34, 15))
    assert (challenge.successes, challenge.rolls_used) == (1, 3)


def test_challenge_refuses_rolls_after_it_ended() -> None:
    challenge = advance_challenge(start_challenge("Escape", 15, 1, 1), _check(0, 15))
    with pytest.raises(RulesError, match="has ended \\(won\\)"):
        advance_challenge(challenge, _check(0, 15))


def test_challenge_refuses_a_roll_at_another_tn() -> None:
    challenge = start_challenge("Escape", 15, 2, 3)
    with pytest.raises(RulesError, match="is at TN 15; roll against TN 15 \\(got 12\\)"):
        advance_challenge(challenge, _check(0, 12))


@pytest.mark.parametrize(
    ("name", "tn", "successes", "max_rolls", "message"),
    [
        ("  ", 15, 2, 3, "Challenge name must be 1 to 100 characters"),
        ("x" * 101, 15, 2, 3, "Challenge name must be 1 to 100 characters"),
        ("Run", 1, 2, 3, "TN must be between 2 and 40"),
        ("Run", 15, 0, 3, "Successes needed must be between 1 and 20"),
        ("Run", 15, 2, 0, "Max rolls must be between 1 and 50"),
        ("Run", 15, 7, 3, "7 successes can't be reached in 3 rolls"),
    ],
)
def test_challenge_start_refuses_bad_input(
    name: str, tn: int, successes: int, max_rolls: int, message: str
) -> None:
    with pytest.raises(RulesError, match=message):
        start_challenge(name, tn, successes, max_rolls)


# --- Bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attribute": 7}, "Attribute must be between 0 and 5 \\(got 7\\)."),
        ({"attribute": -1}, "Attribute must be between 0 and 5 \\(got -1\\)."),
        ({"skill": 6}, "Skill must be between 0 and 5 \\(got 6\\)."),
        ({"tn": 41}, "TN must be between 2 and 40 \\(got 41\\)."),
        ({"tn": 1}, "TN must be between 2 and 40 \\(got 1\\)."),
        ({"advantage": -1}, "Advantage can't be negative \\(got -1\\).*use disadvantage instead"),
        ({"disadvantage": -2}, "Disadvantage can't be negative \\(got -2\\).*use advantage"),
        ({"advantage": 21}, "Advantage must be between 0 and 20 \\(got 21\\)."),
        ({"attribute": 2.5}, "Attribute must be a whole number between 0 and 5 \\(got 2.5\\)."),
        ({"skill": True}, "Skill must be a whole number"),
    ],
)
def test_bad_input_is_refused_with_what_is_allowed(kwargs: dict[str, object], message: str) -> None:
    arguments: dict[str, Any] = {"attribute": 2, "skill": 2, "tn": 12} | kwargs  # bad on purpose
    with pytest.raises(RulesError, match=message):
        roll(new_rng(0), **arguments)
    with pytest.raises(RulesError, match=message):
        odds(**arguments)


def test_bad_input_rolls_nothing() -> None:
    rng = new_rng(5)
    with pytest.raises(RulesError):
        roll(rng, attribute=9, skill=0, tn=10)
    assert rng.integers(1, 11) == new_rng(5).integers(1, 11)


def test_opposed_refuses_bad_defender() -> None:
    with pytest.raises(RulesError, match="Defender skill must be between 0 and 5 \\(got 8\\)"):
        opposed(new_rng(0), attribute=1, skill=1, vs_attribute=1, vs_skill=8)
    with pytest.raises(RulesError, match="Defender: Disadvantage can't be negative \\(got -1\\)"):
        opposed(new_rng(0), attribute=1, skill=1, vs_attribute=1, vs_skill=1, vs_disadvantage=-1)


def test_scale_and_action_go_together(effects: CriticalEffects) -> None:
    with pytest.raises(RulesError, match="both a scale and an action"):
        roll(new_rng(0), attribute=1, skill=1, tn=10, scale=Scale.PERSONAL, effects=effects)
    wrong_scale = "'piloting' is not a personal action; choose one of: combat, skill, social"
    with pytest.raises(RulesError, match=wrong_scale):
        roll(
            new_rng(0),
            attribute=1,
            skill=1,
            tn=10,
            scale=Scale.PERSONAL,
            action=Action.PILOTING,
            effects=effects,
        )
    with pytest.raises(ValueError, match="critical effects table"):
        roll(new_rng(0), attribute=1, skill=1, tn=10, scale=Scale.PERSONAL, action=Action.SKILL)


def test_scale_and_action_names_parse_with_helpful_errors() -> None:
    assert parse_scale(" Vehicle ") is Scale.VEHICLE
    assert parse_action(Scale.STARSHIP, "Diplomacy") is Action.DIPLOMACY
    with pytest.raises(RulesError, match="choose one of: personal, vehicle, starship, capital"):
        parse_scale("galactic")
    with pytest.raises(RulesError, match="choose one of: strategy, politics, economics"):
        parse_action(Scale.CAPITAL, "combat")
    with pytest.raises(RulesError, match="choose one of: combat, piloting, operations"):
        parse_action(Scale.VEHICLE, "dogfight")
    assert Action.FLEET.display_name == "Fleet Command"
    assert Scale.CAPITAL.display_name == "Capital"


def test_gm_abandons_an_open_challenge_only_once() -> None:
    challenge = cosmos.start_challenge("Escape", 12, 2, 3)
    ended = cosmos.abandon_challenge(challenge)
    assert ended.status is cosmos.ChallengeStatus.ABANDONED
    assert (ended.successes, ended.rolls_used) == (0, 0)
    with pytest.raises(RulesError, match="has ended"):
        cosmos.abandon_challenge(ended)
