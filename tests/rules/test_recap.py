"""The session recap's rules: each roll's luck (mid-rank percentile) and the tallies.

Expected values are enumerated here over every ordered roll of the dice (itertools.product), or
worked out by hand from the docs/gms.md, "Campaign recap", never by calling the function
under test.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

import pytest

from rules import recap_placement as placement
from rules.errors import RulesError
from rules.recap import EndedChallenge, RecapRoll, Since, challenges_since, parse_since, recap
from rules.recap_reading import LoggedRow, read_roll, read_rolls, recap_logged, trimmed
from rules.sixpool.rolls import Mode as SixpoolMode
from rules.sixpool.rolls import Modifier
from rules.sixpool.rolls import RollResult as SixpoolRoll


def mid_rank(outcomes: Iterable[int], value: int, *, higher: bool = True) -> Fraction:
    """P(worse) + P(equal) / 2 over equally likely ``outcomes``, counted one by one."""
    every = list(outcomes)
    worse = sum(1 for outcome in every if (outcome < value if higher else outcome > value))
    same = sum(1 for outcome in every if outcome == value)
    return Fraction(2 * worse + same, 2 * len(every))


def smaller_tail(outcomes: Iterable[int], value: int) -> Fraction:
    every = list(outcomes)
    low = sum(1 for outcome in every if outcome <= value)
    high = sum(1 for outcome in every if outcome >= value)
    return Fraction(min(low, high), len(every))


def rolls_of(count: int, sides: int, score: Callable[[tuple[int, ...]], int]) -> list[int]:
    return [score(faces) for faces in itertools.product(range(1, sides + 1), repeat=count)]


def read(kind: str, result: dict[str, Any], **extra: Any) -> RecapRoll:
    return read_roll(7, 100, kind, {"result": result, "embed": {}, "options": {}, **extra})


def expression(text: str, total: int, natural: str = "none") -> dict[str, Any]:
    return {"expression": text, "total": total, "breakdown": "", "natural": natural}


def test_rule_recap_luck_is_the_mid_rank_of_a_2d6_total() -> None:
    sums = rolls_of(2, 6, sum)
    roll = read("dice", expression("2d6", 9))
    # By hand: 26 of 36 rolls are below 9, 4 are 9: (26 + 4/2) / 36 = 7/9.
    assert roll.luck == Fraction(7, 9) == mid_rank(sums, 9)
    assert roll.chance == Fraction(10, 36) == smaller_tail(sums, 9)
    assert roll.total == 9 and not roll.critical and not roll.fumble


def test_rule_recap_an_average_roll_scores_exactly_one_half() -> None:
    assert read("dice", expression("2d6+1", 8)).luck == Fraction(1, 2)


def test_rule_recap_keep_and_drop_and_subtraction_are_placed_exactly() -> None:
    kept = rolls_of(4, 6, lambda faces: sum(sorted(faces)[1:]))
    assert read("dice", expression("4d6kh3", 14)).luck == mid_rank(kept, 14)
    assert read("dice", expression("4d6dl1", 14)).luck == mid_rank(kept, 14)
    lowest = rolls_of(2, 20, min)
    assert read("dice", expression("2d20kl1", 5)).luck == mid_rank(lowest, 5)
    difference = rolls_of(2, 4, lambda faces: faces[0] - faces[1] + 2)
    assert read("dice", expression("1d4-1d4+2", 1)).luck == mid_rank(difference, 1)
    fudge = [sum(faces) for faces in itertools.product((-1, 0, 1), repeat=4)]
    assert read("dice", expression("4dF", 2)).luck == mid_rank(fudge, 2)


def test_rule_recap_a_natural_20_and_1_on_a_kept_d20_are_critical_and_fumble() -> None:
    assert read("dice", expression("1d20+3", 23, "natural 20")).critical
    assert read("dice", expression("1d20+3", 4, "natural 1")).fumble


def test_rule_recap_exploding_dice_count_and_show_but_are_not_scored_and_counts_are() -> None:
    for text in ("8d6 e6", "6d10 t7 kh2", "2d6*2"):
        roll = read("dice", expression(text, 20))
        assert roll.luck is None and roll.chance is None and not roll.luck_spend
        assert roll.total == 20  # still a candidate for the biggest roll
    # A plain success count is placed exactly (rules/count_odds.py; tests/rules/test_count_odds).
    successes = rolls_of(3, 10, lambda faces: sum(face >= 7 for face in faces))
    assert read("dice", expression("3d10 t7", 2)).luck == mid_rank(successes, 2)
    assert read("sixpool.check", {"anything": 1}).luck is None  # an unreadable payload


def test_rule_recap_sinew_roll_under_a_lower_die_is_luckier_with_advantage() -> None:
    kept = rolls_of(2, 20, min)  # advantage keeps the lower d20
    roll = read("sinew.test", {"score": 12, "mode": "advantage", "dice": [15, 3], "shift": 0})
    assert roll.luck == mid_rank(kept, 3, higher=False)
    assert roll.luck > Fraction(1, 2) and roll.total is None  # no "biggest" for roll-under
    # By hand, straight: a 19 beats only the 20 and ties itself: (1 + 1/2) / 20.
    straight = read("sinew.test", {"score": 12, "mode": "straight", "dice": [19], "shift": 0})
    assert straight.luck == Fraction(3, 40)
    natural = read("sinew.luck_test", {"score": 9, "mode": "disadvantage", "dice": [20, 4]})
    assert natural.fumble and natural.luck == mid_rank(rolls_of(2, 20, max), 20, higher=False)


def test_rule_recap_cosmos_keeps_the_two_highest_of_the_pool_plus_the_modifier() -> None:
    kept = rolls_of(3, 10, lambda faces: sum(sorted(faces)[1:]) + 5)
    result: dict[str, Any] = {
        "roll": {"pool": {"advantage": 1, "disadvantage": 0}, "dice": [9, 2, 8],
                 "kept_indices": [0, 2], "kept": [9, 8], "modifier": 5, "total": 22,
                 "attribute": 3, "skill": 2, "critical_success": False,
                 "critical_failure": False},
        "tn": 15, "success": True,
    }  # fmt: skip
    roll = read("cosmos.roll", result)
    assert roll.luck == mid_rank(kept, 22) and roll.chance == smaller_tail(kept, 22)
    lower = rolls_of(3, 10, lambda faces: sum(sorted(faces)[:2]) + 5)
    result["roll"]["pool"] = {"advantage": 0, "disadvantage": 1}
    assert read("cosmos.roll", result).luck == mid_rank(lower, 22)


def test_rule_recap_aethelgard_luck_is_the_raw_net_of_successes_and_botches() -> None:
    def raw_net(faces: tuple[int, ...]) -> int:
        return sum(face >= 8 for face in faces) - sum(face == 1 for face in faces)

    nets = rolls_of(3, 10, raw_net)
    roll = read("aethelgard.roll", {"dice": [1, 3, 5], "dc": 1})
    assert roll.luck == mid_rank(nets, -1) and roll.fumble and not roll.critical


def test_rule_recap_realms_disadvantage_keeps_the_lower_die() -> None:
    lower = rolls_of(2, 20, min)
    result = {"die": "d20", "kind": "check", "dice": [20, 20], "target": 12,
              "decision": {"state": "disadvantage", "reason": "x", "forced": False}}  # fmt: skip
    roll = read("realms.check", result)
    assert roll.luck == mid_rank(lower, 20) and roll.critical


def test_rule_recap_a_luck_spend_is_not_a_new_roll() -> None:
    spend = read("sinew.test", {"score": 12, "mode": "straight", "dice": [13], "shift": 1},
                 luck_of=3)  # fmt: skip
    assert spend.luck_spend and spend.luck is None


def roll(roll_id: int, user: int, **fields: Any) -> RecapRoll:
    return RecapRoll(roll_id, user, "dice", **fields)


def test_rule_recap_tallies_each_player_and_the_table_by_hand() -> None:
    half, quarter, tenth = Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)
    rolls = [
        roll(1, 10, total=12, luck=Fraction(9, 10), chance=tenth, critical=True),
        roll(2, 20, total=3, luck=quarter, chance=quarter, fumble=True),
        roll(3, 10, total=12, luck=half, chance=half),  # ties roll 1: the earlier is biggest
        roll(4, 10, luck_spend=True),
        roll(5, 20),  # counted, unscored
        roll(6, 30, total=2, luck=Fraction(1, 20), chance=Fraction(1, 20)),
    ]
    made = recap(rolls)
    assert (made.first_id, made.last_id) == (1, 6)
    assert [tally.user_id for tally in made.players] == [10, 20, 30]  # most rolls first
    wren, bo, cy = made.players
    assert (wren.rolls, wren.criticals, wren.fumbles, wren.luck_spends) == (2, 1, 0, 1)
    assert wren.luck == Fraction(7, 10) and wren.top_share == Fraction(3, 10)
    assert wren.biggest == rolls[0] and wren.unlikeliest == rolls[0]
    assert (bo.rolls, bo.scored, bo.fumbles, bo.luck) == (2, 1, 1, quarter)
    assert cy.unlikeliest == rolls[5]
    table = made.table
    assert (table.rolls, table.scored, table.criticals, table.fumbles) == (5, 4, 1, 1)
    assert table.luck == (Fraction(9, 10) + quarter + half + Fraction(1, 20)) / 4
    assert table.biggest == rolls[0] and table.unlikeliest == rolls[5]


def test_rule_recap_of_no_rolls_is_empty() -> None:
    empty = recap([])
    assert empty.players == () and empty.table.rolls == 0 and empty.table.luck is None


def test_rule_recap_since_reads_a_roll_number_or_a_utc_date() -> None:
    assert parse_since(None) == Since() == parse_since("  ")
    assert parse_since("#123") == Since(roll_id=123) == parse_since("123")
    assert parse_since("2026-11-20") == Since(at=datetime(2026, 11, 20, tzinfo=UTC))
    assert parse_since("2026-11-20  19:30") == Since(at=datetime(2026, 11, 20, 19, 30, tzinfo=UTC))
    for bad in ("yesterday", "#0", "2026-13-01", "20/11/2026", "#12a", "-4"):
        with pytest.raises(RulesError, match=r"Since must be|There is no roll"):
            parse_since(bad)


def test_rule_recap_a_failed_tamper_adds_one_pressure_and_a_crisis_is_no_new_roll() -> None:
    failed = read("sinew.tamper", {"score": 7, "mode": "straight", "dice": [15], "shift": 0})
    passed = read("sinew.tamper", {"score": 7, "mode": "straight", "dice": [1], "shift": 0})
    # By hand: 15 beats 5 faces (16-20 are worse) and ties itself: (5 + 1/2) / 20.
    assert failed.pressure == 1 and failed.luck == Fraction(11, 40)
    assert passed.pressure == 0 and passed.critical
    rite = read("sinew.rite", {"score": 7, "mode": "straight", "dice": [18], "shift": 0})
    assert rite.pressure == 0 and rite.luck == Fraction(5, 40)  # (2 + 1/2) / 20
    crisis = read("sinew.crisis", {"faces": [2], "events": [2]})
    assert crisis.crisis and not crisis.made and crisis.luck is None
    tally = recap([failed, crisis, passed]).table
    assert (tally.rolls, tally.pressure, tally.crises) == (2, 1, 1)


def sinew_side(score: int, face: int, shift: int = 0) -> dict[str, Any]:
    return {"score": score, "mode": "straight", "dice": [face], "shift": shift, "reasons": []}


def test_rule_recap_contests_count_for_the_roller_won_or_lost_by_each_systems_rule() -> None:
    # Sinew & Steel: the attacker wins only by succeeding with the larger margin (12-5 > 10-8).
    won = read("sinew.opposed", {"attacker": sinew_side(12, 5), "defender": sinew_side(10, 8)})
    tied = read("sinew.opposed", {"attacker": sinew_side(12, 9), "defender": sinew_side(10, 7)})
    assert (won.won, tied.won) == (True, False) and won.made
    # Cosmos Engine: as rolled; six-pool: a tie goes to the defender; Aethelgard: the higher net.
    cosmos = {"attacker": cosmos_pool([9, 2], 5), "defender": cosmos_pool([3, 3], 4),
              "winner": "attacker"}  # fmt: skip
    assert read("cosmos.opposed", cosmos).won is True
    tie = {"attacker": sixpool_roll([11], 3), "defender": sixpool_roll([12], 2)}  # 14 and 14
    assert read("sixpool.contest", tie).won is False
    nets = {"attacker": {"dice": [8, 9, 1], "dc": 0}, "defender": {"dice": [10, 2], "dc": 0}}
    assert read("aethelgard.opposed", nets).won is False  # 2 - 1 = 1 against 1: a tie


def test_rule_recap_a_luck_spend_decides_the_contest_it_was_spent_on() -> None:
    lost = RecapRoll(1, 10, "sinew.opposed", won=False)
    spend = RecapRoll(2, 20, "sinew.opposed", luck_spend=True, won=True, root=1)
    other = RecapRoll(3, 10, "cosmos.opposed", won=False)
    made = recap([lost, spend, other])
    roller, defender = made.players
    assert (roller.contests_won, roller.contests_lost, roller.luck_spends) == (1, 1, 0)
    assert (defender.rolls, defender.luck_spends, defender.contests_won) == (0, 1, 0)
    assert (made.table.contests_won, made.table.contests_lost) == (1, 1)
    assert made.user_ids == {10, 20}  # the defender who spent is named too


def test_rule_recap_a_defenders_luck_spend_counts_for_the_defender() -> None:
    payload = {"attacker": sinew_side(12, 5), "defender": sinew_side(10, 8, shift=4)}
    spend = read("sinew.opposed", payload, luck_of=3, luck_by=55)
    # The defender lowered 8 to 4: margin 6 against the attacker's 7, the attacker still wins.
    assert spend.luck_spend and spend.user_id == 55 and spend.root == 3 and spend.won is True


def test_rule_recap_a_challenge_counts_for_the_roll_logged_with_its_end() -> None:
    def towards(roll_id: int, user: int, at: str) -> RecapRoll:
        return RecapRoll(roll_id, user, "cosmos.roll", challenge="vault",
                         made_at=f"2026-11-20T20:{at}Z")  # fmt: skip

    rolls = [towards(1, 10, "00:00.000"), towards(2, 20, "05:00.000"), towards(3, 10, "09:00.000")]
    ended = [
        EndedChallenge("Vault", True, "2026-11-20T20:04:59.998Z"),  # logged with roll 2
        EndedChallenge("Bridge", False, "2026-11-20T20:06:00.000Z"),  # no roll here: the table's
    ]
    made = recap(rolls, ended)
    first, second = made.players
    assert (first.user_id, first.challenges_won, first.challenges_lost) == (10, 0, 0)
    assert (second.user_id, second.challenges_won, second.challenges_lost) == (20, 1, 0)
    assert (made.table.challenges_won, made.table.challenges_lost) == (1, 1)
    # One that ended before the session's first roll (found by the minute of slack): not counted.
    early = EndedChallenge("Gate", True, "2026-11-20T19:59:30.000Z")
    assert recap(rolls, [early]).table.challenges_won == 0
    assert challenges_since("2026-11-20T20:00:00.250Z") == "2026-11-20T19:59:00.250Z"


def test_rule_recap_reads_the_challenge_a_cosmos_roll_counted_towards() -> None:
    result = {
        "roll": {"pool": {"advantage": 0, "disadvantage": 0}, "dice": [9, 2],
                 "kept_indices": [0, 1], "kept": [9, 2], "modifier": 5, "total": 16,
                 "attribute": 3, "skill": 2, "critical_success": False,
                 "critical_failure": False},
        "tn": 15, "success": True,
    }  # fmt: skip
    roll = read_roll(4, 1, "cosmos.roll", {"result": result, "options": {"challenge": " Vault "}},
                     "2026-11-20T20:00:00.000Z")  # fmt: skip
    assert roll.challenge == "vault" and roll.made_at == "2026-11-20T20:00:00.000Z"


def sixpool_roll(dice: list[int], bonus: int, mode: str = "straight") -> dict[str, Any]:
    """A six-pool roll as the log keeps it: ``dataclasses.asdict`` of its RollResult."""
    parts = (Modifier("proficiency (trained)", bonus),) if bonus else ()
    return dataclasses.asdict(SixpoolRoll(SixpoolMode(mode), tuple(dice), parts, 15, 15))


def cosmos_pool(kept: list[int], modifier: int, advantage: int = 0) -> dict[str, Any]:
    dice = [*kept, *([1] * advantage)]
    return {"attribute": 3, "skill": modifier - 3, "pool": {"advantage": advantage,
            "disadvantage": 0}, "dice": dice, "kept_indices": [0, 1], "kept": kept,
            "modifier": modifier, "total": sum(kept) + modifier, "critical_success": False,
            "critical_failure": False}  # fmt: skip


def test_rule_recap_sixpool_places_the_kept_d20_best_or_worst_of_two_plus_the_modifiers() -> None:
    straight = rolls_of(1, 20, lambda faces: faces[0] + 4)
    check = read("sixpool.check", sixpool_roll([15], 4))
    assert check.luck == mid_rank(straight, 19) and check.chance == smaller_tail(straight, 19)
    assert check.total == 19  # the shown total, a candidate for the biggest roll
    # By hand: a kept 15 straight beats 14 faces and ties itself: (14 + 1/2) / 20.
    assert check.luck == Fraction(29, 40)
    best = rolls_of(2, 20, max)  # advantage keeps the higher d20
    attack = read("sixpool.attack", sixpool_roll([4, 17], 0, "advantage"))
    assert attack.luck == mid_rank(best, 17) and attack.total == 17
    worst = rolls_of(2, 20, lambda faces: min(faces) + 2)  # disadvantage keeps the lower
    save = read("sixpool.save", sixpool_roll([4, 17], 2, "disadvantage"))
    assert save.luck == mid_rank(worst, 6)
    group = read("sixpool.group", sixpool_roll([10], 1))
    assert group.luck == mid_rank(rolls_of(1, 20, lambda faces: faces[0] + 1), 11)


def test_rule_recap_a_sixpool_natural_20_is_a_crit_and_a_natural_1_a_fumble() -> None:
    # The kept die decides: advantage keeping a 20, disadvantage keeping a 1.
    crit = read("sixpool.attack", sixpool_roll([3, 20], 2, "advantage"))
    assert crit.critical and not crit.fumble
    fumble = read("sixpool.save", sixpool_roll([1, 20], 9, "disadvantage"))
    assert fumble.fumble and not fumble.critical
    plain = read("sixpool.check", sixpool_roll([19], 1))  # a total of 20 is no natural 20
    assert not plain.critical and not plain.fumble
    # The roller's side of a contest: its crit is the roller's, as the same roll alone.
    contest = {"attacker": sixpool_roll([20], 0), "defender": sixpool_roll([5], 3)}
    assert read("sixpool.contest", contest).critical


def test_rule_recap_a_sixpool_take_10_rolled_nothing_and_counts_unscored() -> None:
    taken = dataclasses.asdict(SixpoolRoll(SixpoolMode.STRAIGHT, (), (), 15, 15, take=10))
    roll = read("sixpool.take", taken)
    assert roll.made and roll.luck is None and roll.chance is None


def test_rule_recap_a_contest_scores_the_rollers_own_side_on_its_own_distribution() -> None:
    # Sinew & Steel opposed: the attacker's kept d20, roll-under (5 of 20: 15 worse faces).
    sinew_won = read(
        "sinew.opposed", {"attacker": sinew_side(12, 5), "defender": sinew_side(10, 8)}
    )
    assert sinew_won.luck == mid_rank(rolls_of(1, 20, lambda f: f[0]), 5, higher=False)
    assert sinew_won.luck == Fraction(31, 40) and sinew_won.total is None and sinew_won.won
    # A Sinew & Steel attack: the attacker's side of its contest.
    attack = {"contest": {"attacker": sinew_side(12, 14), "defender": sinew_side(10, 8)},
              "edge": "standard", "armour": 0, "explosive": False}  # fmt: skip
    hit = read("sinew.attack", attack)
    assert hit.luck == mid_rank(rolls_of(1, 20, lambda f: f[0]), 14, higher=False)
    assert hit.won is False
    # Cosmos Engine: the attacker's two kept d10 of three (one advantage) plus the modifier.
    cosmos = {"attacker": cosmos_pool([9, 2], 5, advantage=1),
              "defender": cosmos_pool([3, 3], 4), "winner": "attacker"}  # fmt: skip
    kept = rolls_of(3, 10, lambda faces: sum(sorted(faces)[1:]) + 5)
    assert read("cosmos.opposed", cosmos).luck == mid_rank(kept, 16)
    # Aethelgard: the attacker's raw net (successes at 8+, minus botches on a 1).
    nets = {"attacker": {"dice": [8, 9, 1], "dc": 0}, "defender": {"dice": [10, 2], "dc": 0}}

    def raw_net(faces: tuple[int, ...]) -> int:
        return sum(face >= 8 for face in faces) - sum(face == 1 for face in faces)

    assert read("aethelgard.opposed", nets).luck == mid_rank(rolls_of(3, 10, raw_net), 1)
    # Six-pool: the attacker's kept d20 (advantage: the higher) plus its modifiers.
    contest = {"attacker": sixpool_roll([3, 18], 2, "advantage"), "defender": sixpool_roll([9], 1)}
    six = read("sixpool.contest", contest)
    assert six.luck == mid_rank(rolls_of(2, 20, lambda f: max(f) + 2), 20) and six.won is True


def test_rule_recap_a_luck_spend_on_a_contest_is_still_no_scored_roll() -> None:
    payload = {"attacker": sinew_side(12, 5, shift=2), "defender": sinew_side(10, 8)}
    spend = read("sinew.opposed", payload, luck_of=3)
    assert spend.luck_spend and spend.luck is None and spend.won is True


def realms_attack(dice: list[int], kept_lower: bool = False) -> dict[str, Any]:
    faces = [min(dice)] if kept_lower else dice
    strikes = [{"face": face, "hit": face >= 11, "damage": 0, "damage_dice": []} for face in faces]
    state = "disadvantage" if kept_lower else "normal"
    return {"decision": {"state": state, "reason": "x", "forced": False}, "to_hit": 11,
            "damage": "1d8", "dice": dice, "kept_lower": kept_lower,
            "targets": [{"strikes": strikes, "shift": 0}], "primary": True}  # fmt: skip


def test_rule_recap_realms_attack_places_the_sum_of_its_strikes_d20s() -> None:
    sums = rolls_of(3, 20, sum)
    attack = read("realms.attack", realms_attack([18, 4, 11]))
    assert attack.luck == mid_rank(sums, 33) and attack.chance == smaller_tail(sums, 33)
    assert attack.total is None  # a sum of strikes is no result of its own: not the biggest
    # No die left: two d20 rolled, the lower is the one strike.
    lower = read("realms.attack", realms_attack([18, 4], kept_lower=True))
    assert lower.luck == mid_rank(rolls_of(2, 20, min), 4)


def test_rule_recap_realms_stealth_places_the_d6_pool_total() -> None:
    decision = {"state": "normal", "reason": "x", "forced": False}
    pool = read("realms.stealth", {"decision": decision, "dice": [6, 2, 5], "kept_lower": False})
    assert pool.luck == mid_rank(rolls_of(3, 6, sum), 13) and pool.total == 13
    low = read("realms.stealth", {"decision": decision, "dice": [6, 2], "kept_lower": True})
    assert low.luck == mid_rank(rolls_of(2, 6, min), 2) and low.total == 2


def test_rule_recap_aethelgard_craft_and_an_attacks_accuracy_are_placed_by_raw_net() -> None:
    def raw_net(faces: tuple[int, ...]) -> int:
        return sum(face >= 8 for face in faces) - sum(face == 1 for face in faces)

    nets = rolls_of(3, 10, raw_net)
    craft = read("aethelgard.craft", {"dice": [9, 10, 4], "dc": 1})
    assert craft.luck == mid_rank(nets, 2)
    attack = {"accuracy": {"dice": [8, 1, 1], "dc": 2}, "damage": None, "soak": 0,
              "block": None}  # fmt: skip
    assert read("aethelgard.attack", attack).luck == mid_rank(nets, -1)


def request(*parts: list[tuple[str, int]]) -> dict[str, Any]:
    """A /roll of several parts as the log keeps it: each part's rolls (sets) in order."""
    rolls = [[expression(text, total, "none") for text, total in part] for part in parts]
    asked = [{"expression": part[0][0], "sets": len(part), "label": None, "comparison": None,
              "sort": False} for part in parts]  # fmt: skip
    return {"request": {"parts": asked, "plain": False}, "rolls": rolls}


def test_rule_recap_a_roll_of_several_parts_averages_each_rolls_luck() -> None:
    d20, sums = rolls_of(1, 20, lambda faces: faces[0] + 5), rolls_of(2, 6, sum)
    several = read("dice", request([("1d20+5", 22)], [("2d6", 3), ("2d6", 4)], [("8d6 e6", 29)]))
    # The exploding part counts but is not placed: the mean of the three placed rolls.
    lucks = [mid_rank(d20, 22), mid_rank(sums, 3), mid_rank(sums, 4)]
    assert several.luck == sum(lucks, Fraction(0)) / 3
    assert several.chance == min(smaller_tail(d20, 22), smaller_tail(sums, 3))  # 2d6 of 3: 3/36
    assert several.total is None and several.made  # no one result: never the biggest
    # By hand: 17 + 5 beats 16 faces, 3 on 2d6 beats 1 of 36 and ties 2, 4 beats 3 and ties 3.
    assert lucks == [Fraction(33, 40), Fraction(2, 36), Fraction(9, 72)]
    one = read("dice", request([("1d20+5", 22)]))  # one roll with a comparison
    assert one.luck == mid_rank(d20, 22) and one.total == 22
    unplaced = read("dice", request([("8d6 e6", 29)], [("2d6*2", 8)]))
    assert unplaced.luck is None and unplaced.chance is None and unplaced.made


# --- Heavy rolls: exact, or counted as too large to score (docs/gms.md, "Campaign recap").

TOO_LARGE = "100d1000kh50"  # a legal /roll whose keep counting is far past the recap's bound


def rows_of(*rolls: tuple[str, int]) -> list[LoggedRow]:
    """Logged /roll rows of (expression, total), by one player, ids 1, 2, ..."""
    return [(number, 100, "dice", {"result": expression(text, total), "options": {}}, "")
            for number, (text, total) in enumerate(rolls, start=1)]  # fmt: skip


def sums_at_most(dice: int, faces: int, value: int) -> int:
    """Ordered rolls of ``dice`` dice of faces 1..faces summing to at most ``value``, by
    inclusion and exclusion (k dice forced past their faces), independently of rules.odds."""
    return sum(
        (-1) ** k * math.comb(dice, k) * math.comb(value - k * faces, dice)
        for k in range(dice + 1)
        if value - k * faces >= dice
    )


def test_rule_recap_a_roll_too_large_to_score_counts_unscored_and_leaves_the_others_exact() -> None:
    sums, kept = rolls_of(2, 6, sum), rolls_of(4, 6, lambda faces: sum(sorted(faces)[1:]))
    read_back = read_rolls(rows_of(("2d6", 9), (TOO_LARGE, 40_000), ("4d6kh3", 14)))
    heavy = read_back[1]
    assert heavy.too_large and heavy.luck is None and heavy.chance is None and heavy.made
    assert heavy.total == 40_000  # still shown, and a candidate for the biggest roll
    made = recap(read_back)
    (player,) = made.players
    assert (player.rolls, player.scored, player.too_large) == (3, 2, 1)
    assert player.luck == (mid_rank(sums, 9) + mid_rank(kept, 14)) / 2  # the two others, exact
    assert made.table.too_large == 1
    # A roll of several parts with one too large is too large as a whole: no partial luck.
    several = read("dice", request([("2d6", 9)], [(TOO_LARGE, 40_000)]))
    assert several.too_large and several.luck is None
    # Not too large, not placed: an explosion is unscored as before, and not "too large".
    exploding = read("dice", expression("8d6 e6", 20))
    assert exploding.luck is None and not exploding.too_large


def test_rule_recap_places_each_dice_shape_once_whatever_its_result() -> None:
    placement.clear_cache()
    totals = (6_000, 7_123, 4_321)
    rows = rows_of(("12d1000", totals[0]), ("12d1000", totals[1]), ("12d1000+5", totals[2] + 5),
                   ("1d1000+11d1000", totals[0]))  # fmt: skip
    read_back = read_rolls(rows)
    assert placement.cache_builds() == 1  # four rolls, three spellings, one distribution
    every = 1000**12
    for roll, total in zip(read_back, (*totals, totals[0]), strict=True):
        below, upto = sums_at_most(12, 1000, total - 1), sums_at_most(12, 1000, total)
        assert roll.luck == Fraction(below + upto, 2 * every)
        assert roll.chance == Fraction(min(upto, every - below), every)
    read_rolls(rows_of(("12d1000", 11_000)))  # a later recap: the cache's, computed before
    assert placement.cache_builds() == 1


def test_rule_recap_computes_new_shapes_cheapest_first_within_its_budget() -> None:
    placement.clear_cache()
    rows = rows_of(("3d6", 10), ("20d1000", 10_000))
    cheap, heavy = (placement.shape_of(text) for text in ("3d6", "20d1000"))
    assert cheap is not None and heavy is not None
    budget = cheap.shape.seconds  # room for the cheap shape alone
    first = read_rolls(rows, budget)
    assert first[0].luck == mid_rank(rolls_of(3, 6, sum), 10) and not first[0].too_large
    assert first[1].too_large and first[1].luck is None
    again = read_rolls(rows, 0.0)  # no room for new work: computed shapes are still placed
    assert again[0].luck == first[0].luck and again[1].too_large


def random_expression(rng: random.Random, depth: int = 0) -> str:
    """A /roll expression (most of them valid), spaced and cased at random."""
    space = lambda: rng.choice(["", "", " ", "  "])  # noqa: E731
    pick = rng.random()
    if depth < 3 and pick < 0.15:
        return f"({space()}{random_expression(rng, depth + 1)}{space()})"
    if depth < 3 and pick < 0.45:
        operator = rng.choice(["+", "+", "-", "-", "*", "/", "//", "%"])
        left, right = random_expression(rng, depth + 1), random_expression(rng, depth + 1)
        return f"{left}{space()}{operator}{space()}{right}"
    if depth < 3 and pick < 0.52:
        return f"{rng.choice('+-')}{space()}{random_expression(rng, depth + 1)}"
    if pick < 0.65:
        return str(rng.choice([0, 1, 3, 12, 40, 10**12]))
    count = rng.choice(["", "0", "1", "2", "4", "04", "10", "1001"])
    sides = rng.choice(["6", "20", "06", "%", "F", "f", "0", "10001", "1"])
    die = rng.choice("dD")
    modifiers = ""
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        spelled = rng.choice(["k", "kh", "KL", "d", "dl", "dh", "p", "pl", "ph", "e", "ie", "!",
                              "r", "ro", "ir", "t", "f", "b", "mi", "ma", "x"])  # fmt: skip
        number = rng.choice(["", "1", "2", "3", ">=3", "=1"])
        modifiers += f"{space()}{spelled}{space()}{number}"
    return f"{count}{space()}{die}{space()}{sides}{modifiers}"


def test_rule_recap_reads_an_expressions_shape_quickly_as_the_notations_parser_does() -> None:
    rng = random.Random(2026)
    tricky = ["4d6d1", "4d6 d 1", "2d6+d1", "d%", "4dF+2", "4dff1", "10-(4d6kh3)", "-(1d6)",
              "+2d6", "--3", "4d6k3d1", "4d6e6k3", "2d6 kh", "3d6*2", "13 % 2", "4d%k2",
              "1000d6+1d6", "d10001", "(2d6", "2d6)", "2(3)", "", " ", "1" * 201, "4D6KH3",
              "06d06", "0d6+3", "4d6k0", "2d20kh1-1d20kl1"]  # fmt: skip
    for text in tricky + [random_expression(rng) for _ in range(3000)]:
        assert placement.shape_of(text) == placement.shape_by_grammar(text), text


def test_rule_recap_reads_a_trimmed_payload_as_the_whole_one() -> None:
    # The bot's first pass cuts each payload to what the recap reads, in its worker.
    breakdown = "4d6 (" + ", ".join(["6"] * 4) + ")"
    embed = {"title": "x" * 200, "description": breakdown * 50}
    whole: list[LoggedRow] = [
        (1, 7, "dice", {"result": {**expression("4d6kh3", 14), "breakdown": breakdown},
                        "embed": embed, "options": {}}, "2026-11-20T20:00:00.000Z"),
        (2, 7, "dice", {"result": request([("2d6", 9)], [("1d20", 20), ("1d20", 1)]),
                        "embed": embed}, "2026-11-20T20:01:00.000Z"),
        (3, 8, "sinew.opposed", {"result": {"attacker": sinew_side(12, 5),
                                            "defender": sinew_side(10, 8, shift=4)},
                                 "luck_of": 2, "luck_by": 55, "embed": embed}, ""),
        (4, 8, "sinew.test", {"result": {"score": 12, "mode": "straight", "dice": [19],
                                         "shift": 0}, "options": {"challenge": " Vault "}}, ""),
        (5, 9, "dice", "not JSON", ""),
    ]  # fmt: skip
    as_text = [(*row[:3], json.dumps(row[3]), row[4]) if row[0] != 5 else row for row in whole]
    cut = trimmed(as_text)
    assert all("embed" not in str(payload) and "breakdown" not in str(payload)
               for _, _, _, payload, _ in cut)  # fmt: skip
    assert read_rolls(cut) == read_rolls(whole) == read_rolls(as_text)
    assert recap_logged(cut) == recap_logged(whole)
    assert sum(len(str(payload)) for *_, payload, _ in cut) < 1_000


def test_rule_recap_each_side_of_a_sixpool_contest_counts_for_its_own_roller() -> None:
    """Rin (user 10) challenges Vex (user 20), 9 against 12: logged once under each, each
    read as its roller's side (its own d20's luck, won or lost), counted once per side."""
    result = {"attacker": sixpool_roll([9], 0), "defender": sixpool_roll([12], 0)}
    rin = read_roll(1, 10, "sixpool.contest", {"result": {**result, "roller": "attacker"},
                                                "options": {}})  # fmt: skip
    vex = read_roll(2, 20, "sixpool.contest", {"result": {**result, "roller": "defender"},
                                                "options": {"contest_of": 1}})  # fmt: skip
    straight = rolls_of(1, 20, lambda faces: faces[0])
    assert (rin.won, rin.defending, rin.luck) == (False, False, mid_rank(straight, 9))
    assert (vex.won, vex.defending, vex.luck) == (True, True, mid_rank(straight, 12))
    assert vex.contest == 1 and rin.contest is None
    made = recap([rin, vex])
    by_user = {tally.user_id: tally for tally in made.players}
    assert (by_user[10].contests_won, by_user[10].contests_lost) == (0, 1)
    assert (by_user[20].contests_won, by_user[20].contests_lost) == (1, 0)
    assert (made.table.contests_won, made.table.contests_lost) == (1, 1)  # one side each


def test_rule_recap_a_rerolled_contest_side_counts_once_as_the_contest_ended() -> None:
    """Vex's inspiration reroll (roll 3) turns Rin's win into a loss: Vex made two rolls and
    one side, won; Rin one side, lost. A reroll against an NPC likewise counts once."""
    rin = RecapRoll(1, 10, "sixpool.contest", won=True)
    vex = RecapRoll(2, 20, "sixpool.contest", won=False, contest=1, defending=True)
    rerolled = RecapRoll(3, 20, "sixpool.contest", won=True, contest=1, defending=True)
    made = recap([rin, vex, rerolled])
    by_user = {tally.user_id: tally for tally in made.players}
    assert (by_user[10].rolls, by_user[10].contests_won, by_user[10].contests_lost) == (1, 0, 1)
    assert (by_user[20].rolls, by_user[20].contests_won, by_user[20].contests_lost) == (2, 1, 0)
    alone = [RecapRoll(4, 10, "sixpool.contest", won=False),
             RecapRoll(5, 10, "sixpool.contest", won=True, contest=4)]  # fmt: skip
    [player] = recap(alone).players
    assert (player.rolls, player.contests_won, player.contests_lost) == (2, 1, 0)
