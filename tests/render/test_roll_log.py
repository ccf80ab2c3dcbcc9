"""The roll log's lines: one per roll kind of every system, total and verdict worked out here by
hand from seeded dice (docs/gms.md, "The roll log")."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from enum import Enum
from typing import Any

from bot.render.campaign import export_csv, history
from bot.render.roll_log import log_line, plain_text, what_was_rolled
from bot.storage import LoggedRoll, RollPage, Visibility
from cogs.cosmos import CHECK_KIND as COSMOS_CHECK
from cogs.cosmos import OPPOSED_KIND as COSMOS_OPPOSED
from cogs.dice import KIND as dice_kind
from cogs.sinew import common as sinew_kinds
from cogs.sinew.common import SPENDABLE_KINDS as SINEW_SPENDABLE
from cogs.sixpool.options import CONTEST_KIND, GROUP_KIND
from rules import aethelgard, cosmos, sinew, sixpool
from rules.expressions import roll_expression
from rules.expressions.request import roll_request
from rules.randomness import new_rng
from rules.realms import SingleDie
from rules.realms.attacks import attack as realms_attack
from rules.realms.checks import CheckKind, check, stealth
from rules.realms.damage import parse_damage
from rules.realms.rerolls import RollKind as RealmsRollKind
from rules.realms.states import decide
from rules.roll_kinds import roll_kinds

ROLLER = 42
TITLE = "Wren: the roll"
PREFIX = f"`#7` · <@{ROLLER}> · {TITLE} → "
SEEDS = range(200)
CRIT, WIN, LOSS, FUMBLE = "✨", "✅", "❌", "💀"


def _stored(value: object) -> object:
    if isinstance(value, Enum):
        return value.value
    raise TypeError(value)


def logged(
    kind: str,
    result: Any,
    *,
    title: str = TITLE,
    visibility: Visibility = Visibility.PUBLIC,
    revealed_at: str | None = None,
) -> LoggedRoll:
    """A roll as the roll log keeps it: the rules result as JSON, and its reply's embed."""
    stored = json.loads(json.dumps(asdict(result), default=_stored))
    payload = {"result": stored, "embed": {"title": title, "description": "**9**"}}
    when = "2026-11-25T19:00:00.123Z"
    return LoggedRoll(7, 1, 2, ROLLER, kind, visibility, payload, when, revealed_at)


def line(kind: str, result: Any) -> str:
    return log_line(logged(kind, result), gm_view=False)


# --- `/roll`


def test_rule_log_line_dice_shows_the_total_and_a_natural_20_or_1() -> None:
    seen = set()
    for seed in SEEDS:
        rolled = roll_expression("1d20+2", new_rng(seed))
        die = rolled.total - 2
        mark = {20: f" {CRIT}", 1: f" {FUMBLE}"}.get(die, "")
        seen.add(mark)
        assert line("dice", rolled) == f"{PREFIX}**{rolled.total}**{mark}"
    assert seen == {"", f" {CRIT}", f" {FUMBLE}"}


def _compared(total: int, bonus: int, target: int) -> str:
    # A natural 20 or 1 of a lone d20 is its crit or fumble, compared or not (docs/gms.md,
    # "The roll log"); otherwise the comparison decides.
    natural = {20: CRIT, 1: FUMBLE}.get(total - bonus)
    return natural or (WIN if total >= target else LOSS)


def test_rule_log_line_dice_comparison_gives_success_or_failure_per_roll() -> None:
    seen = set()
    for seed in SEEDS:
        rolled = roll_request("1d20+5>=15; 1d6", new_rng(seed))
        compared, plain = rolled.rolls[0][0].total, rolled.rolls[1][0].total
        verdict = _compared(compared, 5, 15)
        seen.add(verdict)
        assert line("dice", rolled) == f"{PREFIX}**{compared}** {verdict}, **{plain}**"
        single = roll_request("1d20+5>=15", new_rng(seed))
        total = single.rolls[0][0].total
        assert line("dice", single) == f"{PREFIX}**{total}** {_compared(total, 5, 15)}"
    assert seen == {CRIT, WIN, LOSS, FUMBLE}


# --- Sinew: roll under the score; a natural 1 is extraordinary, a natural 20 a catastrophe


def _sinew_verdict(face: int, score: int) -> str:
    if face == 1:
        return CRIT
    if face == 20:
        return FUMBLE
    return WIN if face <= score else LOSS


def test_rule_log_line_sinew_tests_show_the_die_and_roll_under_verdict() -> None:
    seen = set()
    for seed in SEEDS:
        result = sinew.test(new_rng(seed), 12)
        face = result.dice[0]
        verdict = _sinew_verdict(face, 12)
        seen.add(verdict)
        for kind in ("sinew.test", "sinew.luck_test", "sinew.tamper", "sinew.rite"):
            assert line(kind, result) == f"{PREFIX}**{face}** {verdict}"
    assert seen == {CRIT, WIN, LOSS, FUMBLE}


def _sinew_attacker_wins(mine: int, theirs: int, my_score: int, their_score: int) -> bool:
    def succeeds(face: int, score: int) -> bool:
        return face == 1 or (face != 20 and face <= score)

    if not succeeds(mine, my_score):
        return False
    return not succeeds(theirs, their_score) or my_score - mine > their_score - theirs


def test_rule_log_line_sinew_opposed_shows_both_dice_and_whether_the_roller_won() -> None:
    seen = set()
    for seed in SEEDS:
        result = sinew.opposed(new_rng(seed), 12, 10)
        mine, theirs = result.attacker.dice[0], result.defender.dice[0]
        # The roller's (the attacker's) natural 1 or 20 is the contest's crit or fumble, as it is a
        # lone test's: one definition (docs/players/sinew.md, "Rules notes").
        verdict = {1: CRIT, 20: FUMBLE}.get(mine)
        verdict = verdict or (WIN if _sinew_attacker_wins(mine, theirs, 12, 10) else LOSS)
        seen.add(verdict)
        assert line("sinew.opposed", result) == f"{PREFIX}**{mine}** vs **{theirs}** {verdict}"
    assert seen == {CRIT, WIN, LOSS, FUMBLE}


def test_rule_log_line_sinew_attack_shows_the_dice_damage_taken_and_hit() -> None:
    for seed in SEEDS:
        result = sinew.attack(new_rng(seed), 12, 10, armour=2)
        mine, theirs = result.contest.attacker.dice[0], result.contest.defender.dice[0]
        hit = _sinew_attacker_wins(mine, theirs, 12, 10)
        margin = 12 - mine
        # 1 + standard edge 1, +1 on a natural 1 or a margin over 10; soak: armour 2 less 1 per full
        # 4 of margin, none on a natural 1 (docs/players/sinew.md, "Rules notes").
        damage = 2 + (1 if mine == 1 or margin > 10 else 0)
        soak = 0 if mine == 1 else max(2 - margin // 4, 0)
        taken = max(damage - soak, 0) if hit else 0
        verdict = {1: CRIT, 20: FUMBLE}.get(mine) or (WIN if hit else LOSS)
        expected = f"{PREFIX}**{mine}** vs **{theirs}** ({taken} damage) {verdict}"
        assert line("sinew.attack", result) == expected


# --- Six-pool d20: d20 + modifiers against a DC, degrees by margin


def _sixpool_verdict(face: int | None, margin: int) -> str:
    # The rule document names both a critical success: a natural 20 (always a success) and beating
    # the DC by 10; a critical failure: a natural 1 (always a failure) and missing it by 10.
    if face == 20:
        return CRIT
    if face == 1:
        return FUMBLE
    if margin >= 10:
        return CRIT
    if margin <= -10:
        return FUMBLE
    return WIN if margin >= 0 else LOSS


def test_rule_log_line_sixpool_rolls_show_the_total_and_degree() -> None:
    seen = set()
    parts = (sixpool.Modifier("proficiency", 3),)
    for seed in SEEDS:
        for dc in (8, 22):
            result = sixpool.roll(new_rng(seed), parts, dc)
            face = result.dice[0]
            verdict = _sixpool_verdict(face, face + 3 - dc)
            seen.add(verdict)
            for kind in ("sixpool.check", "sixpool.attack", "sixpool.save", "sixpool.group"):
                assert line(kind, result) == f"{PREFIX}**{face + 3}** {verdict}"
    assert seen == {CRIT, WIN, LOSS, FUMBLE}
    taken = sixpool.take(parts, 22, 20)
    assert line("sixpool.take", taken) == f"{PREFIX}**23** {WIN}"


def test_rule_log_line_sixpool_contest_shows_both_totals_and_a_tie_to_the_defender() -> None:
    seen = set()
    mine, theirs = (sixpool.Modifier("a", 2),), (sixpool.Modifier("d", 4),)
    for seed in SEEDS:
        result = sixpool.contest(new_rng(seed), mine, theirs)
        attacker, defender = result.attacker.dice[0] + 2, result.defender.dice[0] + 4
        # A contest's totals compare (its sides are rolled at DC 0): only a natural is a crit.
        verdict = {20: CRIT, 1: FUMBLE}.get(result.attacker.dice[0])
        verdict = verdict or (WIN if attacker > defender else LOSS)
        seen.add(verdict)
        expected = f"{PREFIX}**{attacker}** vs **{defender}** {verdict}"
        assert line("sixpool.contest", result) == expected
    assert seen == {CRIT, WIN, LOSS, FUMBLE}


# --- Enchanted Realms


def test_rule_log_line_realms_check_shows_the_die_and_the_target() -> None:
    plain = decide(0, 0)
    for seed in SEEDS:
        result = check(new_rng(seed), SingleDie.D20, CheckKind.SAVE, plain, 11)
        face = result.dice[0]
        # A natural 20 on a d20 is the check's critical, with a target or without.
        verdict = CRIT if face == 20 else WIN if face >= 11 else LOSS
        assert line("realms.check", result) == f"{PREFIX}**{face}** {verdict}"
        untargeted = check(new_rng(seed), SingleDie.D20, CheckKind.SAVE, plain)
        mark = f" {CRIT}" if face == 20 else ""
        assert line("realms.check", untargeted) == f"{PREFIX}**{face}**{mark}"


def test_rule_log_line_realms_stealth_shows_the_awareness_target() -> None:
    for seed in SEEDS:
        result = stealth(new_rng(seed), 3, decide(0, 0))
        assert line("realms.stealth", result) == f"{PREFIX}**{sum(result.dice)}**"


def test_rule_log_line_realms_attack_shows_damage_and_hit_or_miss() -> None:
    seen = set()
    for seed in SEEDS:
        result = realms_attack(new_rng(seed), 2, 11, parse_damage("1d6+1"), decide(0, 0))
        (target,) = result.targets
        # No state, a primary attack: no ±2; each hit deals its 1d6+1 (at least 2).
        dealt = sum(strike.damage for strike in target.strikes if strike.hit)
        hits = any(strike.hit for strike in target.strikes)
        assert all(strike.hit == (strike.face >= 11) for strike in target.strikes)
        verdict = WIN if hits else LOSS
        seen.add(verdict)
        assert line("realms.attack", result) == f"{PREFIX}**{dealt}** (damage) {verdict}"
    assert seen == {WIN, LOSS}


# --- Aethelgard: d10 pools, 8+ a success, a 1 a botch


def _net(dice: tuple[int, ...]) -> tuple[int, bool]:
    """The net as shown, and whether the pool fumbled (no success, a botch)."""
    successes, botches = sum(face >= 8 for face in dice), dice.count(1)
    return max(successes - botches, 0), successes == 0 and botches > 0


def _pool(size: int) -> aethelgard.Pool:
    return aethelgard.Pool((aethelgard.PoolPart("WITS", size),))


def test_rule_log_line_aethelgard_pools_show_the_net_and_degree() -> None:
    seen = set()
    for seed in SEEDS:
        for size in (2, 9):
            result = aethelgard.roll_pool(new_rng(seed), _pool(size), 2)
            net, fumble = _net(result.dice)
            if fumble:
                verdict = FUMBLE
            elif net < 2:
                verdict = LOSS
            else:
                verdict = CRIT if net >= 5 else WIN
            seen.add(verdict)
            for kind in ("aethelgard.roll", "aethelgard.check", "aethelgard.craft"):
                assert line(kind, result) == f"{PREFIX}**{net}** {verdict}"
    assert seen == {CRIT, WIN, LOSS, FUMBLE}


def test_rule_log_line_aethelgard_opposed_shows_both_nets() -> None:
    for seed in SEEDS:
        result = aethelgard.opposed(new_rng(seed), _pool(4), _pool(4))
        (mine, fumble), theirs = _net(result.attacker.dice), _net(result.defender.dice)[0]
        # The attacker's pool decides its crit (net 5, DC 0) and fumble, as a lone pool's would.
        verdict = FUMBLE if fumble else CRIT if mine >= 5 else WIN if mine > theirs else LOSS
        expected = f"{PREFIX}**{mine}** vs **{theirs}** {verdict}"
        assert line("aethelgard.opposed", result) == expected


def test_rule_log_line_aethelgard_attack_shows_accuracy_and_damage_dealt() -> None:
    for seed in SEEDS:
        result = aethelgard.attack(new_rng(seed), _pool(6), 2, _pool(4), soak=1)
        net, fumble = _net(result.accuracy.dice)
        hit = not fumble and net >= 2
        dealt = 0
        if hit:
            assert result.damage is not None
            dealt = max(_net(result.damage.dice)[0] - 1, 0)
        verdict = FUMBLE if fumble else (CRIT if hit and net >= 5 else (WIN if hit else LOSS))
        expected = f"{PREFIX}**{net}** ({dealt} damage) {verdict}"
        assert line("aethelgard.attack", result) == expected


# --- Cosmos: 2d10 + Attribute + Skill against a TN; two 10s or two 1s decide alone


def test_rule_log_line_cosmos_roll_shows_the_total_and_criticals() -> None:
    seen = set()
    for seed in SEEDS:
        result = cosmos.roll(new_rng(seed), attribute=3, skill=2, tn=15)
        first, second = result.roll.dice
        total = first + second + 5
        if (first, second) == (10, 10):
            verdict = CRIT
        elif (first, second) == (1, 1):
            verdict = FUMBLE
        else:
            verdict = WIN if total >= 15 else LOSS
        seen.add(verdict)
        assert line("cosmos.roll", result) == f"{PREFIX}**{total}** {verdict}"
    assert {WIN, LOSS, CRIT} <= seen


def test_rule_log_line_cosmos_opposed_gives_a_tie_to_the_defender() -> None:
    seen = set()
    for seed in SEEDS:
        result = cosmos.opposed(new_rng(seed), attribute=2, skill=1, vs_attribute=1, vs_skill=2)
        mine, theirs = sum(result.attacker.dice) + 3, sum(result.defender.dice) + 3
        # The attacker's two 10s or two 1s are the contest's crit or fumble, as a lone roll's.
        first, second = result.attacker.dice
        naturals = {(10, 10): CRIT, (1, 1): FUMBLE}.get((first, second))
        verdict = naturals or (WIN if mine > theirs else LOSS)
        seen.add((verdict, mine == theirs))
        expected = f"{PREFIX}**{mine}** vs **{theirs}** {verdict}"
        assert line("cosmos.opposed", result) == expected
    assert (LOSS, True) in seen  # a tie was rolled, and went to the defender


# --- What every line shares


def test_a_kind_without_a_summary_or_an_unreadable_payload_shows_what_was_rolled() -> None:
    crisis = logged("sinew.crisis", sinew.test(new_rng(1), 12), title="💥 CRISIS · Wren")
    assert log_line(crisis, gm_view=True) == f"`#7` · <@{ROLLER}> · 💥 CRISIS · Wren"
    broken = logged("sinew.test", sixpool.take((), 10, 10))  # not a Sinew result
    assert log_line(broken, gm_view=False) == f"`#7` · <@{ROLLER}> · {TITLE}"
    out_of_range = logged("sinew.test", sinew.test(new_rng(1), 12))
    out_of_range.payload["result"]["score"] = 99  # no score the rules allow
    assert log_line(out_of_range, gm_view=False) == f"`#7` · <@{ROLLER}> · {TITLE}"


def test_secret_rolls_are_marked_and_a_gm_is_told_hidden_or_blind() -> None:
    result = sinew.test(new_rng(3), 12)
    face = result.dice[0]
    shown = f"{PREFIX}**{face}** {_sinew_verdict(face, 12)}"
    hidden = logged("sinew.test", result, visibility=Visibility.HIDDEN)
    blind = logged("sinew.test", result, visibility=Visibility.BLIND)
    assert log_line(hidden, gm_view=True) == f"{shown} 🔒 hidden"
    assert log_line(blind, gm_view=True) == f"{shown} 🔒 blind"
    revealed = logged("sinew.test", result, visibility=Visibility.BLIND, revealed_at="x")
    assert log_line(revealed, gm_view=False) == shown


def test_a_verdict_headline_leaves_the_title_for_the_verdict_after_the_total() -> None:
    result = sinew.test(new_rng(1), 12)
    for title, what in (
        ("✅ Success · Brakka: EMP cleansing rite", "Brakka: EMP cleansing rite"),
        ("✨ NATURAL 1: EXTRAORDINARY SUCCESS! · Brakka: STR test", "Brakka: STR test"),
        ("🌟 NATURAL 20 · Success · Rin: STR attack vs AC 40", "Rin: STR attack vs AC 40"),
        ("❌ Critical failure · Rin: DEX check", "Rin: DEX check"),
        ("💀 NATURAL 1! 🎲 pip rolls 1d20", "🎲 pip rolls 1d20"),
        ("⚔️ Opposed roll · Brakka vs Defender", "⚔️ Opposed roll · Brakka vs Defender"),
    ):
        assert what_was_rolled(logged("sinew.test", result, title=title)) == what


def test_a_title_in_the_one_layout_gives_only_what_was_rolled() -> None:
    # docs/players/index.md, "Reading a reply": verdict and word · who: what · total. The log names
    # the roller and shows the total after its arrow, so neither is repeated from the title.
    result = sinew.test(new_rng(1), 12)
    for title, what in (
        ("🎲 player: 1d6 · total 6", "1d6"),
        ("✅ Success · Rin: DEX check (stealth) · total 19", "DEX check (stealth)"),
        (
            "💀 NATURAL 20: CATASTROPHE! · gm: roll vs TN 15 (Hard) · total 3",
            "roll vs TN 15 (Hard)",
        ),
        ("❌ Miss · Vex: 2 strikes · to hit 12 · 0 damage", "2 strikes · to hit 12"),
        ("🎲 pip: 1d20 ! Attack · 2d6 ! Damage · 2 rolls", "1d20 ! Attack · 2d6 ! Damage"),
    ):
        assert what_was_rolled(logged("sinew.test", result, title=title)) == what


def test_plain_text_drops_markdown_and_emoji_and_names_mentions() -> None:
    text = "**Total: 9** ✅ `2d6` <@42> <@!7> \\*as typed\\* :smile: <:owl:123> ⚔️ hit"
    assert plain_text(text, {42: "Pip"}) == "Total: 9 2d6 Pip 7 *as typed* hit"
    assert plain_text("<t:0:f>", {}) == "1970-01-01T00:00:00+00:00"


def test_export_csv_names_rollers_and_falls_back_to_the_id() -> None:
    result = sinew.test(new_rng(3), 12)
    face = result.dice[0]
    rolls = [
        logged("sinew.test", result, title="✅ Success · Brakka: STR test"),
        logged("sinew.crisis", result, title="💥 CRISIS · Brakka"),
    ]
    rows = list(csv.DictReader(io.StringIO(export_csv(rolls, {}).decode())))
    verdict = {
        CRIT: "critical success",
        WIN: "success",
        LOSS: "failure",
        FUMBLE: "fumble",
    }
    assert rows[0] == {
        "id": "7",
        "created_at": "2026-11-25T19:00:00.123+00:00",
        "user": str(ROLLER),  # not named: the id
        "user_id": str(ROLLER),
        "kind": "sinew.test",
        "visibility": "public",
        "revealed_at": "",
        "title": "Success · Brakka: STR test",
        "total": str(face),
        "verdict": verdict[_sinew_verdict(face, 12)],
        "text": "9",
    }
    assert (rows[1]["total"], rows[1]["verdict"], rows[1]["title"]) == ("", "", "CRISIS · Brakka")
    named = list(csv.DictReader(io.StringIO(export_csv(rolls, {ROLLER: "Wren"}).decode())))
    assert named[0]["user"] == "Wren"


def test_a_long_title_is_cut_before_the_total_and_a_full_page_fits_one_embed() -> None:
    result = sinew.test(new_rng(3), 12)
    face = result.dice[0]
    long = logged("sinew.test", result, title="Wren: " + "very " * 60 + "long test")
    cut = log_line(long, gm_view=True)
    assert cut.endswith(f"… → **{face}** {_sinew_verdict(face, 12)}")
    page = history(RollPage((long,) * 25, older=True, newer=False), gm_view=True)
    assert page.description is not None and len(page.description.splitlines()) == 25
    assert "cut to fit" not in page.description


def test_every_kind_the_systems_log_is_declared_once_with_its_reading() -> None:
    logged_kinds = {
        dice_kind,
        *SINEW_SPENDABLE,
        sinew_kinds.TAMPER_KIND,
        sinew_kinds.RITE_KIND,
        *(f"sixpool.{kind.value}" for kind in sixpool.RollKind),
        "sixpool.take",
        GROUP_KIND,
        *(kind.value for kind in RealmsRollKind),
        *("aethelgard.roll", "aethelgard.check", "aethelgard.craft"),
        *("aethelgard.opposed", "aethelgard.attack"),
        COSMOS_CHECK,
        COSMOS_OPPOSED,
    }
    assert CONTEST_KIND in logged_kinds
    assert logged_kinds == set(roll_kinds())  # a Crisis alone has no total


def test_export_total_lists_each_roll_of_a_request_with_its_verdict_in_words() -> None:
    rolled = roll_request("1d20+5>=15; 1d6", new_rng(1))
    compared, plain = rolled.rolls[0][0].total, rolled.rolls[1][0].total
    contest = sixpool.contest(new_rng(1), (sixpool.Modifier("a", 2),), (sixpool.Modifier("d", 4),))
    mine, theirs = contest.attacker.dice[0] + 2, contest.defender.dice[0] + 4
    rows = list(
        csv.DictReader(
            io.StringIO(
                export_csv(
                    [logged("dice", rolled), logged("sixpool.contest", contest)], {}
                ).decode()
            )
        )
    )
    word = "success" if compared >= 15 else "failure"
    assert (rows[0]["total"], rows[0]["verdict"]) == (f"{compared} ({word}), {plain}", "")
    won = "success" if mine > theirs else "failure"
    assert (rows[1]["total"], rows[1]["verdict"]) == (f"{mine} vs {theirs}", won)
