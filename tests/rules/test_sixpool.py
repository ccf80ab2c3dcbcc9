"""Six-pool d20 rules (docs/players/sixpool.md, "Rules notes"): each test names the ruling it
pins."""

from __future__ import annotations

from dataclasses import asdict, replace
from fractions import Fraction
from itertools import product
from typing import Any

import numpy as np
import pytest

from rules import RulesError
from rules.randomness import Rng
from rules.sheets import DataclassSheet
from rules.sixpool import (
    DC_LABELS,
    Contestant,
    ContestResult,
    Degree,
    EdgeOption,
    Mode,
    Modifier,
    Pool,
    RollAsked,
    RollKind,
    Sheet,
    Situation,
    Training,
    award_inspiration,
    contest,
    contest_side,
    contest_winner,
    critical_damage,
    dc_label,
    degree,
    effort,
    group_succeeds,
    has_advantage,
    mode_of,
    modifiers,
    most_spendable,
    new_sheet,
    odds,
    opponent_modifier,
    parse_damage,
    passive,
    prepare_roll,
    proficiency,
    receive_help,
    require_help_training,
    reroll_die,
    rest,
    roll,
    roll_damage,
    roll_modifiers,
    set_edge,
    set_save,
    set_skill,
    spend,
    spend_bonus,
    take,
    training_for,
    use_inspiration,
)
from tests.expect import as_rng


class ScriptedDice:
    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        count = 1 if size is None else size
        taken, self.faces = self.faces[:count], self.faces[count:]
        assert len(taken) == count
        return np.array(taken)


def dice(*faces: int) -> Rng:
    return as_rng(ScriptedDice(*faces))


def rogue(level: int = 1) -> Sheet:
    return new_sheet(level, Pool.DEX, dict.fromkeys(Pool, 8))


def test_ruling_sixpool_effort_by_level_and_primary() -> None:
    bands = {1: 3, 4: 3, 5: 4, 8: 4, 9: 5, 12: 5, 13: 6, 16: 6, 17: 7, 20: 7}
    for level, expected in bands.items():
        assert effort(level, primary=False) == expected
        assert effort(level, primary=True) == expected + 2
    sheet = rogue(5)
    assert (sheet.effort(Pool.DEX), sheet.effort(Pool.STR)) == (6, 4)
    with pytest.raises(RulesError, match=r"Level must be between 1 and 20 \(got 21\)"):
        effort(21, primary=False)


def test_ruling_sixpool_proficiency_bands() -> None:
    assert [proficiency(level) for level in (1, 4, 5, 8, 9, 12, 13, 16, 17, 20)] == [
        2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
    ]  # fmt: skip


def test_ruling_sixpool_training() -> None:
    sheet = rogue(5)  # proficiency +3
    expected = {
        Training.UNTRAINED: [],
        Training.TRAINED: [3],
        Training.EXPERT: [3, 2],
        Training.MASTER: [3, 4],
    }
    for training, values in expected.items():
        parts = modifiers(sheet, Pool.DEX, training, 0, EdgeOption.A, training_label="x")
        assert [part.value for part in parts] == values


def test_ruling_sixpool_edge_a_is_free_on_every_roll() -> None:
    sheet = set_edge(rogue(5), Pool.DEX, 2)
    parts = modifiers(sheet, Pool.DEX, Training.UNTRAINED, 3, EdgeOption.A, training_label="x")
    assert [(p.label, p.value) for p in parts] == [
        ("DEX Edge 2 (option A)", 2),
        ("3 DEX points spent", 3),
    ]


def test_ruling_sixpool_edge_b_makes_the_first_edge_plus_one_points_worth_two() -> None:
    # Edge 1: first 2 points +2; Edge 2: first 3; Edge 3: first 4 (the document's table).
    assert [spend_bonus(points, 1, EdgeOption.B) for points in range(5)] == [0, 2, 4, 5, 6]
    assert [spend_bonus(points, 2, EdgeOption.B) for points in range(5)] == [0, 2, 4, 6, 7]
    assert [spend_bonus(points, 3, EdgeOption.B) for points in range(6)] == [0, 2, 4, 6, 8, 9]
    assert [spend_bonus(points, 0, EdgeOption.B) for points in range(3)] == [0, 1, 2]  # no Edge
    assert spend_bonus(3, 3, EdgeOption.A) == 3
    sheet = set_edge(rogue(), Pool.DEX, 1)
    parts = modifiers(sheet, Pool.DEX, Training.UNTRAINED, 3, EdgeOption.B, training_label="x")
    assert [(p.label, p.value) for p in parts] == [("3 DEX points spent (Edge 1, option B)", 5)]


def test_ruling_sixpool_spend_limits_effort_and_pool() -> None:
    sheet = rogue()  # Effort 3, DEX (primary) 5, pools of 8
    assert spend(sheet, Pool.DEX, 5).points(Pool.DEX) == 3
    with pytest.raises(RulesError, match="at most 3 points per roll from STR"):
        spend(sheet, Pool.STR, 4)
    with pytest.raises(RulesError, match="at most 5 points per roll from DEX \\(with the primary"):
        spend(sheet, Pool.DEX, 6)
    drained = spend(spend(sheet, Pool.STR, 3), Pool.STR, 3)
    with pytest.raises(RulesError, match="STR has 2 points left; you asked for 3"):
        spend(drained, Pool.STR, 3)


def test_ruling_sixpool_degrees_by_margin() -> None:
    expected = {
        15: Degree.CRITICAL_SUCCESS, 10: Degree.CRITICAL_SUCCESS, 9: Degree.STRONG_SUCCESS,
        5: Degree.STRONG_SUCCESS, 4: Degree.SUCCESS, 0: Degree.SUCCESS, -1: Degree.FAILURE,
        -4: Degree.FAILURE, -5: Degree.BAD_FAILURE, -9: Degree.BAD_FAILURE,
        -10: Degree.CRITICAL_FAILURE, -20: Degree.CRITICAL_FAILURE,
    }  # fmt: skip
    assert {margin: degree(margin, 10) for margin in expected} == expected


def test_ruling_sixpool_naturals_override_success_not_degree() -> None:
    assert degree(-12, 20) is Degree.SUCCESS  # a natural 20 always succeeds
    assert degree(12, 20) is Degree.CRITICAL_SUCCESS  # the total still sets the degree
    assert degree(7, 1) is Degree.FAILURE  # a natural 1 always fails
    assert degree(-7, 1) is Degree.BAD_FAILURE


def test_ruling_sixpool_advantage_and_disadvantage_never_stack() -> None:
    assert mode_of(True, False) is Mode.ADVANTAGE and mode_of(False, True) is Mode.DISADVANTAGE
    assert mode_of(True, True) is Mode.STRAIGHT and mode_of(False, False) is Mode.STRAIGHT


def test_ruling_sixpool_spend_goes_on_the_kept_die() -> None:
    parts = (Modifier("3 DEX points spent", 3),)
    high = roll(dice(7, 15), parts, 18, advantage=True)
    assert (high.kept, high.total, high.success) == (15, 18, True)
    low = roll(dice(7, 15), parts, 18, disadvantage=True)
    assert (low.kept, low.total, low.degree) == (7, 10, Degree.BAD_FAILURE)


def test_ruling_sixpool_situation_moves_the_dc() -> None:
    expected = {
        Situation.FAVORABLE: 13, Situation.UNFAVORABLE: 17, Situation.EXTREME: 20,
        Situation.PERFECT: 10, Situation.NORMAL: 15,
    }  # fmt: skip
    for situation, dc in expected.items():
        assert roll(dice(10), (), 15, situation=situation).dc == dc


def test_document_example_lock_picking() -> None:
    # DC 18, +3 proficiency, Edge 2 (+2 free), 3 DEX points: 1d20+8, needs 10 or higher.
    sheet = set_skill(set_edge(rogue(5), Pool.DEX, 2), "lock picking", Training.TRAINED)
    parts = modifiers(
        sheet, Pool.DEX, sheet.skill_training("Lock Picking"), 3, EdgeOption.A,
        training_label="lock picking",
    )  # fmt: skip
    assert sum(part.value for part in parts) == 8
    assert roll(dice(10), parts, 18).success and not roll(dice(9), parts, 18).success


def test_ruling_sixpool_take_and_passive_spend_nothing() -> None:
    parts = (Modifier("proficiency", 2),)
    took = take(parts, 22, 20)
    assert (took.total, took.natural, took.degree) == (22, None, Degree.SUCCESS)
    with pytest.raises(RulesError, match="spends no pool points"):
        take((Modifier("1 DEX point spent", 1),), 10, 20)
    with pytest.raises(RulesError, match="take 10 or take 20"):
        take(parts, 10, 15)
    assert passive(parts) == 12


def test_ruling_sixpool_contest_tie_goes_to_the_defender() -> None:
    assert contest_winner(15, 14) and not contest_winner(14, 14) and not contest_winner(3, 9)


def test_ruling_sixpool_group_half_rule() -> None:
    assert [group_succeeds(s, 4) for s in range(5)] == [False, False, True, True, True]
    assert [group_succeeds(s, 3) for s in range(4)] == [False, False, True, True]
    with pytest.raises(RulesError):
        group_succeeds(0, 0)


def test_inspiration_rerolls_one_die() -> None:
    first = roll(dice(3, 12), (), 10, disadvantage=True)
    again = reroll_die(dice(19), first, 0)
    assert again.dice == (19, 12) and again.kept == 12


def test_rest_refills_pools_and_sheets_round_trip() -> None:
    sheet = set_save(spend(rogue(), Pool.DEX, 4), Pool.CON, Training.TRAINED)
    assert rest(sheet).points(Pool.DEX) == 8
    codec = DataclassSheet(Sheet)
    assert codec.load(codec.dump(sheet)) == sheet
    with pytest.raises(RulesError, match="Edge must be between 0 and 3"):
        set_edge(sheet, Pool.STR, 4)


def test_odds_are_exact_against_enumeration() -> None:
    for modifier, dc, adv, dis in product((0, 5, 12), (5, 15, 25), (False, True), (False, True)):
        result = odds(modifier, dc, advantage=adv, disadvantage=dis)
        mode = mode_of(adv, dis)
        pairs = (
            [(a,) for a in range(1, 21)]
            if mode is Mode.STRAIGHT
            else list(product(range(1, 21), repeat=2))
        )
        wins, nat20 = 0, 0
        for pair in pairs:
            kept = (
                pair[0]
                if mode is Mode.STRAIGHT
                else (max(pair) if mode is Mode.ADVANTAGE else min(pair))
            )
            total = kept + modifier
            wins += (total >= dc or kept == 20) and kept != 1
            nat20 += kept == 20
        assert result.success == Fraction(wins, len(pairs))
        assert result.natural_twenty == Fraction(nat20, len(pairs))
        assert sum(result.degrees.values()) == 1


def test_odds_per_point_adds_five_percent_until_the_naturals() -> None:
    result = odds(0, 15)  # needs 15+: 30 %; each point +5 % until only the natural 1 fails
    assert result.per_point[:4] == (
        Fraction(6, 20),
        Fraction(7, 20),
        Fraction(8, 20),
        Fraction(9, 20),
    )
    assert odds(0, 2).per_point[:3] == (Fraction(19, 20),) * 3


# --- Decisions around one roll (moved out of the cog, issue 34)


def asked(kind: RollKind, pool: Pool = Pool.DEX, **options: Any) -> RollAsked:
    return RollAsked(kind=kind, pool=pool, dc=15, **options)


def test_ruling_sixpool_attacks_always_add_proficiency_checks_by_skill_saves_by_save() -> None:
    sheet = set_save(set_skill(rogue(5), "  Stealth ", Training.EXPERT), Pool.DEX, Training.MASTER)
    assert training_for(sheet, asked(RollKind.ATTACK)) == (Training.TRAINED, "attack")
    assert training_for(sheet, asked(RollKind.SAVE)) == (Training.MASTER, "DEX save")
    assert training_for(sheet, asked(RollKind.SAVE, Pool.STR)) == (Training.UNTRAINED, "STR save")
    stealth = asked(RollKind.CHECK, skill=" STEALTH")
    assert training_for(sheet, stealth) == (Training.EXPERT, "stealth")
    assert training_for(sheet, asked(RollKind.CHECK, skill="climb")) == (
        Training.UNTRAINED,
        "climb",
    )
    assert training_for(sheet, asked(RollKind.CHECK)) == (Training.UNTRAINED, "no skill")
    # Level 5: proficiency +3; expert +2 more; an untrained attack still adds +3.
    assert [part.value for part in roll_modifiers(sheet, stealth, EdgeOption.A)] == [3, 2]
    assert roll_modifiers(rogue(5), asked(RollKind.ATTACK), EdgeOption.A) == (
        Modifier("proficiency (attack)", 3),
    )


def test_ruling_sixpool_help_and_inspiration_give_advantage_and_are_used_up() -> None:
    helped = replace(receive_help(rogue(5)), inspired=True)
    assert helped.helped and not rogue(5).helped
    assert has_advantage(helped, asked(RollKind.CHECK))
    assert has_advantage(rogue(5), asked(RollKind.CHECK, inspiration=True))
    assert not has_advantage(rogue(5), asked(RollKind.CHECK, disadvantage=True))
    prepared = prepare_roll(helped, asked(RollKind.CHECK, spend=2), EdgeOption.A)
    assert (prepared.advantage, prepared.helped, prepared.inspired) == (True, True, False)
    # Help is used up by the roll; inspiration is kept when not spent; 8 - 2 DEX points left.
    assert (prepared.after.helped, prepared.after.inspired) == (False, True)
    assert prepared.after.points(Pool.DEX) == 6
    assert prepared.parts == (Modifier("2 DEX points spent", 2),)
    spent = prepare_roll(helped, asked(RollKind.CHECK, inspiration=True), EdgeOption.A)
    assert (spent.inspired, spent.after.inspired) == (True, False)


def test_inspiration_must_be_held_to_spend_and_is_awarded_one_at_a_time() -> None:
    with pytest.raises(RulesError, match=r"You hold no inspiration to spend; a GM awards it\."):
        prepare_roll(rogue(), asked(RollKind.CHECK, inspiration=True), EdgeOption.A)
    inspired = award_inspiration(rogue(), "Rin")
    assert inspired.inspired
    with pytest.raises(RulesError, match=r"Rin already holds inspiration: one at a time\."):
        award_inspiration(inspired, "Rin")
    assert not use_inspiration(inspired, "Rin").inspired
    with pytest.raises(RulesError, match="Rin holds no inspiration to spend"):
        use_inspiration(rogue(), "Rin")


def test_prepared_spend_is_refused_past_effort_before_anything_changes() -> None:
    # Level 1 rogue: Effort 3 on STR (5 on DEX, the primary pool).
    with pytest.raises(RulesError, match="at most 3 points per roll from STR"):
        prepare_roll(rogue(), asked(RollKind.CHECK, Pool.STR, spend=4), EdgeOption.A)
    assert most_spendable(rogue(), Pool.DEX) == 5
    assert most_spendable(spend(rogue(), Pool.DEX, 5), Pool.DEX) == 3  # 8 - 5 left


def test_ruling_sixpool_group_boost_adds_its_points_plain() -> None:
    sheet = set_edge(rogue(), Pool.DEX, 2)
    prepared = prepare_roll(sheet, asked(RollKind.CHECK, spend=1), EdgeOption.B, boost=3)
    # Option B: the first Edge+1 = 3 points are worth +2 each; the boost stays +1 a point.
    assert prepared.parts == (
        Modifier("1 DEX point spent (Edge 2, option B)", 2),
        Modifier("the leader's boost", 3),
    )


def test_ruling_sixpool_contest_side_without_a_skill_uses_edge_and_spend_only() -> None:
    sheet = set_edge(set_skill(rogue(5), "athletics", Training.MASTER), Pool.STR, 1)
    side = contest_side(sheet, Pool.STR, 2, EdgeOption.A)
    assert side.parts == (
        Modifier("STR Edge 1 (option A)", 1),
        Modifier("2 STR points spent", 2),
    )
    assert side.after.points(Pool.STR) == 6
    three_left = spend(spend(rogue(5), Pool.STR, 4), Pool.STR, 1)  # 8 - 4 - 1
    with pytest.raises(RulesError, match="STR has 3 points left; you asked for 4"):
        contest_side(three_left, Pool.STR, 4, EdgeOption.A)
    assert opponent_modifier(-3) == (Modifier("opponent's modifier", -3),)


# --- After the rules audit (docs/players/sixpool.md, "Rules notes")


def test_rule_contest_adds_proficiency_example_4() -> None:
    # The document's Example 4: the Bard (+3 proficiency: level 5, trained) spends 2 CHA =
    # 1d20+5; the Noble (+2: level 1, trained) spends 1 CHA = 1d20+3.
    bard = set_skill(rogue(5), "Persuasion", Training.TRAINED)
    noble = set_skill(rogue(1), "persuasion", Training.TRAINED)
    attack = contest_side(bard, Pool.CHA, 2, EdgeOption.A, skill="persuasion")
    defence = contest_side(noble, Pool.CHA, 1, EdgeOption.A, skill="Persuasion")
    assert attack.parts == (
        Modifier("proficiency (persuasion)", 3),
        Modifier("2 CHA points spent", 2),
    )
    assert defence.parts == (
        Modifier("proficiency (persuasion)", 2),
        Modifier("1 CHA point spent", 1),
    )
    result = contest(dice(12, 13), attack.parts, defence.parts)
    assert (result.attacker.total, result.defender.total) == (12 + 5, 13 + 3)
    assert result.attacker_wins
    # Carol: master in persuasion at level 9 (+4 proficiency, +4 master), Edge 1 (option A).
    carol = set_edge(set_skill(rogue(9), "persuasion", Training.MASTER), Pool.CHA, 1)
    side = contest_side(carol, Pool.CHA, 2, EdgeOption.A, skill="persuasion")
    assert [part.value for part in side.parts] == [4, 4, 1, 2]
    assert side.after.points(Pool.CHA) == 6


def test_rule_contest_uses_up_help_for_advantage_on_either_side() -> None:
    helped = receive_help(rogue())
    side = contest_side(helped, Pool.STR, 0, EdgeOption.A)
    assert side.helped and not side.after.helped
    assert not contest_side(rogue(), Pool.STR, 0, EdgeOption.A).helped
    # The attacker straight (3), the helped defender keeps the higher of 2d20 (4, 17).
    result = contest(dice(3, 4, 17), (), (), defender_advantage=True)
    assert result.attacker.dice == (3,) and result.defender.kept == 17
    assert result.defender.mode is Mode.ADVANTAGE


def test_rule_help_is_used_up_by_any_d20_roll() -> None:
    for kind in (RollKind.CHECK, RollKind.ATTACK, RollKind.SAVE, RollKind.CONTEST):
        prepared = prepare_roll(receive_help(rogue()), asked(kind), EdgeOption.A)
        assert prepared.advantage and prepared.helped and not prepared.after.helped, kind


def test_rule_natural_20_attack_doubles_damage_dice() -> None:
    # `1d8+3` on a natural 20 is `2d8+3`: two d8 (scripted 0-based: faces 5 and 8), +3 once.
    doubled = roll_damage(dice(4, 7), "1d8+3", critical=True)
    assert (doubled.expression, doubled.total, doubled.critical) == ("2d8+3", 5 + 8 + 3, True)
    plain = roll_damage(dice(4), "1d8+3", critical=False)
    assert (plain.expression, plain.total) == ("1d8+3", 5 + 3)
    assert critical_damage(parse_damage("2d6 + 1d4 - 1")).spelled() == "4d6+2d4-1"
    # A term that keeps some of its dice is rolled twice over, so doubling keeps as many.
    assert critical_damage(parse_damage("4d6kh3+2")).spelled() == "(4d6kh3+4d6kh3)+2"


def test_rule_bad_damage_expressions_are_refused_before_anything_is_rolled() -> None:
    for text, message in (
        ("1d8+", "ends too soon"),
        ("3", "has no dice"),
        ("600d6", "on a natural 20"),  # 1,200 dice when doubled: over the 1,000 limit
        ("1d8 pizza", "Couldn't read"),
    ):
        with pytest.raises(RulesError, match=message):
            RollAsked(kind=RollKind.ATTACK, pool=Pool.STR, dc=15, damage=text)
    with pytest.raises(RulesError, match="`damage` goes with an attack"):
        RollAsked(kind=RollKind.CHECK, pool=Pool.STR, dc=15, damage="1d8")


def test_rule_trained_only_skills_refuse_an_untrained_check() -> None:
    listed = frozenset({"arcana"})
    arcana = asked(RollKind.CHECK, Pool.INT, skill=" Arcana ")
    assert roll_modifiers(rogue(), arcana, EdgeOption.A) == ()  # none listed by default
    with pytest.raises(RulesError, match="Trained-only skill: arcana can't be attempted untrained"):
        roll_modifiers(rogue(), arcana, EdgeOption.A, listed)
    with pytest.raises(RulesError, match="Trained-only skill"):
        prepare_roll(rogue(), arcana, EdgeOption.A, trained_only=listed)
    with pytest.raises(RulesError, match=r"Trained-only skill: arcana .* Rin is untrained"):
        contest_side(rogue(), Pool.INT, 0, EdgeOption.A, skill="arcana", name="Rin",
                     trained_only=listed)  # fmt: skip
    trained = set_skill(rogue(), "arcana", Training.TRAINED)
    assert roll_modifiers(trained, arcana, EdgeOption.A, listed) == (
        Modifier("proficiency (arcana)", 2),
    )
    stealth = asked(RollKind.CHECK, skill="stealth")
    assert roll_modifiers(rogue(), stealth, EdgeOption.A, listed) == ()  # only listed ones


def test_rule_helping_with_a_skill_needs_training_a_gm_may_always_help() -> None:
    trained = set_skill(rogue(), "medicine", Training.TRAINED)
    require_help_training(trained, "Medicine", gm=False)
    require_help_training(rogue(), None, gm=False)  # help with an attack or a save: no skill
    require_help_training(None, "medicine", gm=True)  # a GM, even without a character
    require_help_training(rogue(), "medicine", gm=True)
    with pytest.raises(RulesError, match="Helping with medicine needs training in it"):
        require_help_training(rogue(), "medicine", gm=False)


def test_rule_dc_scale_labels_shown_with_every_dc() -> None:
    assert DC_LABELS == (
        (5, "Trivial"),
        (10, "Easy"),
        (15, "Medium"),
        (20, "Hard"),
        (25, "Very Hard"),
        (30, "Nearly Impossible"),
    )
    expected = {
        0: "Trivial", 4: "Trivial", 5: "Trivial", 6: "Trivial–Easy", 10: "Easy",
        14: "Easy–Medium", 15: "Medium", 17: "Medium–Hard", 20: "Hard", 22: "Hard–Very Hard",
        25: "Very Hard", 29: "Very Hard–Nearly Impossible", 30: "Nearly Impossible",
        31: "Nearly Impossible", 60: "Nearly Impossible",
    }  # fmt: skip
    assert {dc: dc_label(dc) for dc in expected} == expected


def test_rule_inspiration_and_pool_points_on_one_roll() -> None:
    inspired = award_inspiration(rogue(), "Rin")
    prepared = prepare_roll(inspired, asked(RollKind.SAVE, spend=3, inspiration=True), EdgeOption.A)
    assert prepared.advantage and prepared.inspired
    assert prepared.parts == (Modifier("3 DEX points spent", 3),)
    assert not prepared.after.inspired and prepared.after.points(Pool.DEX) == 5


# --- After the second rules audit (Six-pool d20: contests, inspiration)


def test_rule_inspiration_may_be_spent_on_either_side_of_a_contest() -> None:
    inspired = award_inspiration(rogue(), "Vex")
    side = contest_side(inspired, Pool.WIS, 1, EdgeOption.A, name="Vex", inspiration=True)
    assert side.inspired and side.advantage and not side.helped
    assert not side.after.inspired and side.after.points(Pool.WIS) == 7
    kept = contest_side(inspired, Pool.WIS, 0, EdgeOption.A)  # held, not spent
    assert kept.after.inspired and not kept.advantage
    with pytest.raises(RulesError, match="Vex holds no inspiration to spend"):
        contest_side(rogue(), Pool.WIS, 0, EdgeOption.A, name="Vex", inspiration=True)
    # The defender's advantage: the higher of their two d20s (5, 17) against the attacker's 12.
    result = contest(dice(12, 5, 17), (), side.parts, defender_advantage=side.advantage)
    assert result.defender.kept == 17 and not result.attacker_wins


def test_rule_each_side_of_a_contest_is_its_own_rollers_roll() -> None:
    result = contest(dice(9, 12), (Modifier("a", 0),), (Modifier("d", 0),))
    assert result.roller is Contestant.ATTACKER and not result.roller_wins
    defenders = result.rolled_by(Contestant.DEFENDER)
    assert defenders.roller_wins and (defenders.own.total, defenders.other.total) == (12, 9)
    # A tie goes to the defender, whoever's roll it is read as.
    tied = contest(dice(10, 10), (), ())
    assert not tied.roller_wins and tied.rolled_by(Contestant.DEFENDER).roller_wins
    # A contest logged before each side was its own roller names none: the attacker's.
    logged = asdict(result)
    del logged["roller"]
    assert ContestResult.from_dict(logged) == result
    assert ContestResult.from_dict(asdict(defenders)) == defenders
    # A side's inspiration reroll replaces its own die only.
    rerolled = defenders.with_own(reroll_die(dice(3), defenders.own, 0))
    assert rerolled.attacker == result.attacker and rerolled.defender.dice == (3,)
    assert not rerolled.roller_wins
    assert opponent_modifier(4, "NPC's modifier") == (Modifier("NPC's modifier", 4),)
