"""Notation parity with the bots players come from (docs/players/dice.md, "From other bots").

Each case is a form from a peer's public documentation or tests (avrae/d20's README and
tests/test_dice.py; Dice Maiden's README), with what the *peer* reads it as: an exact total for
fixed expressions, the set of totals its dice can make (worked out by enumeration) for dice, or a
refusal. Each case is marked

- ``PEER``: `/roll` reads it as the peer does (the peer's expectation is checked);
- ``PURPOSE``: read differently on purpose, with the reason and what we read instead (checked);
- ``UNREAD``: not read (refused, or read as something else), with why.

``tally`` counts them per peer; ``python -m tests.rules.test_notation_parity`` prints the counts,
and evaluates each case's peer expectation against whatever `rules` is importable (so the same
corpus measures an older tree).
"""

from __future__ import annotations

import itertools
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from rules.errors import RulesError
from rules.expressions import parse_expression, parse_request, roll_request
from rules.randomness import new_rng

SEEDS = range(200)
PEER, PURPOSE, UNREAD = "read as the peer reads it", "read differently on purpose", "not read"
D20, MAIDEN = "avrae/d20", "Dice Maiden"


@dataclass(frozen=True)
class Reading:
    """What a form is read as: ``check`` says whether `/roll` reads it so."""

    shown: str
    check: Callable[[str], bool]


def _totals(typed: str, seeds: range = SEEDS) -> set[int] | None:
    """Every total the request rolls over ``seeds`` (first roll of each), or None if refused."""
    try:
        return {roll_request(typed, new_rng(seed)).rolls[0][0].total for seed in seeds}
    except RulesError:
        return None


def total(value: int) -> Reading:
    return Reading(f"= {value}", lambda typed: _totals(typed, range(5)) == {value})


def support(values: set[int]) -> Reading:
    """Every total is one of ``values``, and they vary as much (half of a few values seen)."""

    def check(typed: str) -> bool:
        seen = _totals(typed)
        if seen is None or not seen <= values:
            return False
        return len(seen) >= min(len(values) // 2, 6)

    return Reading(f"in {min(values)}..{max(values)}", check)


def holds(truth: bool) -> Reading:
    """d20's `1 == 1` is 1, `1 == 2` is 0: our comparison's ✅ / ❌ says the same."""

    def check(typed: str) -> bool:
        try:
            rolled = roll_request(typed, new_rng(0))
        except RulesError:
            return False
        comparison = rolled.request.parts[0].comparison
        return comparison is not None and comparison.holds(rolled.rolls[0][0].total) == truth

    return Reading(f"= {int(truth)} (✅/❌)", check)


def refused(words: str = "") -> Reading:
    def check(typed: str) -> bool:
        try:
            roll_request(typed, new_rng(0))
        except RulesError as error:
            return words in str(error)
        return False

    return Reading(f"refused {words!r}".strip(), check)


def same_as(*equivalent: str, sets: int = 1) -> Reading:
    """Read as the peer's own spelling of it (Dice Maiden's alias table): the same terms."""

    def check(typed: str) -> bool:
        try:
            parts = roll_request(typed, new_rng(0)).request.parts
        except RulesError:
            return False
        return len(parts) == len(equivalent) and all(
            part.sets == sets
            and parse_expression(part.expression).spelled() == parse_expression(each).spelled()
            for part, each in zip(parts, equivalent, strict=True)
        )

    return Reading(f"as `{'; '.join(equivalent)}`", check)


def labelled(label: str, value: Reading) -> Reading:
    def check(typed: str) -> bool:
        try:
            part = roll_request(typed, new_rng(0)).request.parts[0]
        except RulesError:
            return False
        return part.label == label and value.check(typed)

    return Reading(f"{value.shown}, labelled {label!r}", check)


def _dice(count: int, sides: int) -> list[tuple[int, ...]]:
    return list(itertools.product(range(1, sides + 1), repeat=count))


@dataclass(frozen=True)
class Case:
    peer: str
    typed: str
    peers: Reading  # what the peer reads
    status: str = PEER
    ours: Reading | None = None  # what we read, when it differs
    why: str = ""
    mode: bool = False  # a game mode (Dice Maiden's aliases), not generic notation
    # PURPOSE: the form the reply's or refusal's "did you mean" names, giving the peer's reading
    # (``whole``: the whole form so read, when the hint names one term of it).
    meant: str = ""
    whole: str = ""


def _d20(typed: str, peers: Reading, *rest: object, **kw: object) -> Case:
    return Case(D20, typed, peers, *rest, **kw)  # type: ignore[arg-type]


def _dm(typed: str, peers: Reading, *rest: object, **kw: object) -> Case:
    return Case(MAIDEN, typed, peers, *rest, **kw)  # type: ignore[arg-type]


_ONE_TO_FIVE = "(1, 2, 3, 4, 5)"
_LITERAL = (
    "d20's bare selector number is the literal face (`k3` keeps the 3s); ours is the count "
    "(`k3` keeps the highest 3, Dice Maiden's reading)"
)
_ONCE = "`e` explodes once (Dice Maiden's reading); d20's explodes again and again: ours is `ie`"
_PERCENT = "`d%` is a d100 (Dice Maiden's reading); d20's is a tens die, 0 to 90"


def _purpose(peer: str, typed: str, peers: Reading, ours: Reading, why: str, meant: str) -> Case:
    return Case(peer, typed, peers, PURPOSE, ours, why, meant=meant)


D20_CASES: list[Case] = [
    # tests/test_dice.py: STANDARD_EXPRESSIONS
    _d20("1d20", support(set(range(1, 21)))),
    _d20(
        "1d%",
        support(set(range(0, 91, 10))),
        PURPOSE,
        support(set(range(1, 101))),
        _PERCENT,
        meant="((1d10-1)*10)",
    ),
    _d20("1+1", total(2)),
    _d20("4d6kh3", support({sum(sorted(d)[1:]) for d in _dice(4, 6)})),
    _d20("(1)", total(1)),
    _d20("(1,)", total(1)),
    _d20("((1d6))", support(set(range(1, 7)))),
    _d20(
        "4*(3d8kh2+9[fire]+(9d2e2+3[cold])/2)",
        support(set(range(4 * (2 + 9 + 6), 1000))),
        PURPOSE,
        refused("Labels in brackets go at the end"),
        "annotations inside the dice: one label to a roll, at the end (`! fire, cold`)",
        meant="4*(3d8kh2+9+(9d2e2+3)/2) ! fire, cold",
    ),
    _d20("(1d4, 2+2, 3d6kl1)kh1", support({max(a, 4, b) for a in range(1, 5) for b in range(7)})),
    _d20("((10d6kh5)kl2)kh1", support(set(range(1, 7)))),
    # test_pemdas
    _d20("1 + 3 * 6", total(19)),
    _d20("1 + (3 * 6)", total(19)),
    _d20("(1 + 3) * 6", total(24)),
    _d20("1 + 2 + 3", total(6)),
    _d20("(1 + 2) + 3", total(6)),
    _d20("1 + (2 + 3)", total(6)),
    _d20("1 + 2 == 2", holds(False)),
    _d20("1 + (2 == 2)", total(2)),  # in parentheses, 1 or 0; after the dice, ✅ / ❌
    _d20("(1d20 >= 1) * 3", total(3)),
    # test_literal
    _d20("1", total(1)),
    _d20("10000", total(10000)),
    _d20("1.5", total(1)),
    _d20("0.5", total(0)),
    _d20(".5", total(0)),
    # test_dice
    _d20("0d6", total(0)),
    _d20("d6", support(set(range(1, 7)))),
    _d20("1d6", support(set(range(1, 7)))),
    _d20("2d6", support(set(range(2, 13)))),
    _d20("0d%", total(0)),
    _purpose(
        D20,
        "d%",
        support(set(range(0, 91, 10))),
        support(set(range(1, 101))),
        _PERCENT,
        "((1d10-1)*10)",
    ),
    _purpose(
        D20,
        "2d%",
        support(set(range(0, 181, 10))),
        support(set(range(2, 201))),
        _PERCENT,
        "((2d10-2)*10)",
    ),
    # test_set
    _d20("(1, 1)", total(2)),
    # test_unop
    _d20("+1", total(1)),
    _d20("-1", total(-1)),
    _d20("--1", total(1)),
    _d20("-+-++---+1", total(-1)),
    # test_binop
    _d20("2 + 2", total(4)),
    _d20("2 - 2", total(0)),
    _d20("2 * 5", total(10)),
    _d20("15 / 2", total(7)),
    _d20("15 // 2", total(7)),
    _d20("13 % 2", total(1)),
    # test_binop_dice
    _d20("2 + 1d6", support(set(range(3, 9)))),
    _d20("2 * 1d6", support({2 * d for d in range(1, 7)})),
    _d20("60 / 1d6", support({60 // d for d in range(1, 7)})),
    _d20("60 // 1d6", support({60 // d for d in range(1, 7)})),
    _d20("1d100 % 10", support(set(range(10)))),
    _purpose(
        D20, "1d% % 10", support({0}), support(set(range(10))), _PERCENT, "((1d10-1)*10) % 10"
    ),
    # test_div_zero, test_invalid_rolls
    _d20("10 / 0", refused("divide by zero")),
    _d20("10 // 0", refused("divide by zero")),
    _d20("10 % 0", refused("divide by zero")),
    _d20("1001d6", refused("1000 dice")),
    _d20("6d0", refused("at least 1 side")),
    _d20("10d6mil1", refused()),
    # test_comparison: d20's 1 / 0, our ✅ / ❌
    _d20("1 == 1", holds(True)),
    _d20("1 == 2", holds(False)),
    _d20("1 > 1", holds(False)),
    _d20("2 > 1", holds(True)),
    _d20("1 < 1", holds(False)),
    _d20("1 < 2", holds(True)),
    _d20("1 >= 1", holds(True)),
    _d20("1 >= 2", holds(False)),
    _d20("1 <= 1", holds(True)),
    _d20("2 <= 1", holds(False)),
    _d20("1 != 1", holds(False)),
    _d20("1 != 2", holds(True)),
    # test_selectors, test_k_op, test_p_op, test_chaining_operators
    _purpose(D20, f"{_ONE_TO_FIVE}k3", total(3), total(12), _LITERAL, f"{_ONE_TO_FIVE}k=3"),
    _d20(f"{_ONE_TO_FIVE}k<3", total(3)),
    _d20(f"{_ONE_TO_FIVE}k>3", total(9)),
    _d20(f"{_ONE_TO_FIVE}kl2", total(3)),
    _d20(f"{_ONE_TO_FIVE}kh2", total(9)),
    _d20("(1)k1", total(1)),
    _purpose(D20, "(1)k2", total(0), total(1), _LITERAL, "(1)k=2"),
    _purpose(D20, f"{_ONE_TO_FIVE}k1k2", total(3), total(9), _LITERAL, f"{_ONE_TO_FIVE}k=1k=2"),
    _d20(f"{_ONE_TO_FIVE}kh1kl1", total(6)),
    _purpose(D20, f"{_ONE_TO_FIVE}p3", total(12), total(9), _LITERAL, f"{_ONE_TO_FIVE}p=3"),
    _d20(f"{_ONE_TO_FIVE}p1p2", total(12)),  # the 1 and the 2 either way
    _d20(f"{_ONE_TO_FIVE}ph1pl1", total(9)),
    _d20(
        "10d6k1k2k3",
        support(set(range(31))),
        PURPOSE,
        support({sum(sorted(d)[-3:]) for d in itertools.product(range(1, 7), repeat=3)}),
        _LITERAL,
        meant="10d6k=1k=2k=3",
    ),
    _purpose(D20, "10d6k1ph1", support(set(range(10))), total(0), _LITERAL, "10d6k=1ph1"),
    _purpose(D20, "(1, 2, 3)k1k2", total(3), total(5), _LITERAL, "(1, 2, 3)k=1k=2"),
    # test_rr_op, test_ro_op, test_ra_op
    _d20("1d20rr<20", total(20)),
    _d20("1d20rr>1", total(1)),
    _d20("1d20rr<21", refused("forever")),
    _d20("1d1rr1", refused("forever")),
    _d20("1d1ro1", total(1)),
    _d20("1d6rol1", support(set(range(1, 7)))),
    _d20("1d1ra1", total(2)),
    _d20("1d6ral1", support(set(range(2, 13)))),
    # test_e_op
    _d20(
        "1d2e2",
        support(set(range(1, 202, 2))),  # d20 explodes until a 1 shows: always odd
        PURPOSE,
        support({1, 3, 4}),
        _ONCE,
        meant="1d2ie2",
    ),
    _purpose(D20, "1d20e<21", refused(), support(set(range(2, 41))), _ONCE, "1d20ie<21"),
    _purpose(D20, "1d1e1", refused(), total(2), _ONCE, "1d1ie1"),
    # test_mi_op, test_ma_op
    _d20("10d6mi6", total(60)),
    _d20("10d6mi10", total(100)),
    _d20("10d6mi2", support(set(range(20, 61)))),
    _d20("10d6ma1", total(10)),
    _d20("10d6ma0", total(0)),
    _d20("10d6ma5", support(set(range(10, 51)))),
    # README examples
    _d20("2d6ro<3", support(set(range(2, 13)))),
    _d20("8d6mi2", support(set(range(16, 49)))),
    _d20("(1d4 + 1, 3, 2d6kl1)kh1", support({3, 4, 5, 6})),
    _d20(
        "-1d8 + 4 - (3, 1d4)kh1",
        support(set(range(-8, 1))),
        PURPOSE,
        refused("A minus in front of dice"),
        "a minus in front of dice is refused, naming `0-1d8` (d20's reading) and `10-1d4`",
        meant="0-1d8",
        whole="0-1d8 + 4 - (3, 1d4)kh1",
    ),
]

_SUCCESSES = "success count"
MAIDEN_CASES: list[Case] = [
    # Basic usage
    _dm("2d6", support(set(range(2, 13)))),
    _dm("1d20+5", support(set(range(6, 26)))),
    _dm("3d6 + 5", support(set(range(8, 24)))),
    _dm("1d20 - 2", support(set(range(-1, 19)))),
    _dm("2d4 * 3", support({3 * s for s in range(2, 9)})),
    _dm("4d6 / 2", support({s // 2 for s in range(4, 25)})),
    _dm("6 4d6", same_as("4d6", sets=6)),
    _dm(
        "4d100 ; 10d6 e6 k8 +4; 3d10 k2; ul 3d100",
        same_as("4d100", "10d6 e6 k8 +4", "3d10 k2", "3d100"),
    ),
    _dm(
        "4d6 s",
        same_as("4d6"),
        PURPOSE,
        same_as("4d6"),
        "`s` shows the dice sorted (our breakdown is unsorted otherwise); Dice Maiden's `s` is a "
        "simplified output and it sorts by default",
    ),
    _dm(
        "s 4d6",
        same_as("4d6"),
        PURPOSE,
        refused("Did you mean `4d6 s`?"),
        "words like `s` go after the dice",
    ),
    _dm(
        "4d6 nr",
        same_as("4d6"),
        PURPOSE,
        same_as("4d6"),
        "Dice Maiden's `nr` hides the total; ours always shows it (the reply says so)",
    ),
    _dm(
        "4d6 p",
        refused(),
        PURPOSE,
        refused("hidden:true"),
        "a private roll is an option, `hidden:true` / `blind:true`",
        meant="/roll expression:4d6 hidden:true",
    ),
    _dm("4d6 ! Damage roll", labelled("Damage roll", support(set(range(4, 25))))),
    _dm("ul 3d100", same_as("3d100")),
    # Advanced rolling options
    _dm("3d6 e6", same_as("3d6e6")),
    _dm("3d6 e", support(set(range(3, 37)))),  # each die at most 6 + 6: once
    _dm("3d6 ie6", same_as("3d6ie6")),
    _dm("3d6 ie", same_as("3d6ie6")),
    _dm("4d6 k3", support({sum(sorted(d)[1:]) for d in _dice(4, 6)})),
    _dm("4d6 kl3", support({sum(sorted(d)[:3]) for d in _dice(4, 6)})),
    _dm("4d6 d1", support({sum(sorted(d)[1:]) for d in _dice(4, 6)})),
    _dm("4d6 r2", support(set(range(4, 25)))),
    _dm("4d6 ir2", support(set(range(12, 25)))),
    _dm("6d10 t7", support(set(range(7)))),
    _dm("5d10 t8 f1", support(set(range(-5, 6)))),
    _dm("4d6 b1", support(set(range(4, 25)))),
    _dm("10d6 e6 k8 +4", same_as("10d6e6kh8+4")),
    _dm("2d%", support(set(range(2, 201)))),
    _dm("+d20", same_as("2d20kh1")),
    _dm("-d20", same_as("2d20kl1")),
    _dm("dndstats", same_as("4d6kh3", sets=6)),
    _dm("attack +5", same_as("1d20+5")),
    _dm("skill -2", same_as("1d20-2")),
    _dm("save +3", same_as("1d20+3")),
    # Game systems with their own output
    # Its test total: an icon for each 4 or 5, two for each 6 (the wrath die one of the pool).
    _dm("wng 4d6", same_as("4d6 t4t6"), mode=True),
    _dm("dh 4d10", same_as("4d10"), mode=True),  # its Righteous Fury: a 10 among the dice
    _dm(
        "gb 1d12+4",
        same_as("1d12+4"),
        UNREAD,
        refused(),
        "Godbound's damage chart maps a total to 0, 1, 2 or 4 damage: a table, not dice",
        mode=True,
    ),
    _dm(
        "2hsn",
        same_as("2d6"),
        PURPOSE,
        same_as("2d6"),
        "the STUN total; Dice Maiden also counts BODY (a 1: 0, 2 to 5: 1, a 6: 2) of the same dice",
        mode=True,
    ),
    _dm("ex5", same_as("5d10 t7t10"), mode=True),  # Dice Maiden's `5d10 t7 t10`: 10s count twice
    _dm("ex5t8", same_as("5d10 t8t10"), mode=True),
    _dm("ed4e5", same_as("1d8ie"), mode=True),
    # Aliases (game modes): each read as Dice Maiden's own spelling of it
    _dm("4cod", same_as("4d10 t8 ie10"), mode=True),
    _dm("4cod8", same_as("4d10 t8 ie8"), mode=True),
    _dm("4cod9", same_as("4d10 t8 ie9"), mode=True),
    _dm("4codr", same_as("4d10 r7 t8"), mode=True),
    _dm("4wod8", same_as("4d10 f1 t8"), mode=True),  # Dice Maiden leaves its explosion off
    _dm("3df", support(set(range(-3, 4))), mode=True),  # its 3d3 t3 f1, our Fudge dice
    _dm("3wh4+", same_as("3d6 t4"), mode=True),
    _dm("age", same_as("2d6 + 1d6"), mode=True),
    _dm("sr6", same_as("6d6 t5"), mode=True),
    _dm("+d%", same_as("((2d10kl1-1)*10)+1d10"), mode=True),
    _dm("-d%", same_as("((2d10k1-1)*10)+1d10"), mode=True),
    _dm("dd34", same_as("(1d3*10)+1d4"), mode=True),
    _dm("snm5", same_as("5d6 ie6 t4"), mode=True),
    _dm("d6s4", same_as("4d6 + 1d6 ie"), mode=True),
    _dm("sp4", same_as("4d10 ie10 t8"), mode=True),
    _dm("6yz", same_as("6d6 t6"), mode=True),
    _dm("ed1", same_as("1d4ie-2"), mode=True),
    _dm("ed10", same_as("2d8ie"), mode=True),
    _dm("ed50", same_as("2d20ie+3d10ie+2d8ie"), mode=True),
    _dm("2 4cod", same_as("4d10 t8 ie10", sets=2), mode=True),
]
CASES = D20_CASES + MAIDEN_CASES


HINTED = "read differently on purpose, with a did-you-mean"


def tally(evaluate: bool = False) -> dict[tuple[str, bool], Counter[str]]:
    """Counts per (peer, game mode): by each case's status (an on-purpose difference whose
    "did you mean" gives the peer's reading counted apart), or (``evaluate``) by checking each
    case's peer expectation against the `rules` imported (read as the peer, or not)."""
    counts: dict[tuple[str, bool], Counter[str]] = {}
    for case in CASES:
        if evaluate:
            status = PEER if case.peers.check(case.typed) else "not as the peer"
        else:
            status = HINTED if case.status == PURPOSE and case.meant else case.status
        counts.setdefault((case.peer, case.mode), Counter())[status] += 1
    return counts


def _said(typed: str) -> str:
    """What `/roll` says beside the roll (its hint), or its refusal."""
    try:
        return " ".join(part.hint or "" for part in parse_request(typed).parts)
    except RulesError as error:
        return str(error)


@pytest.mark.parametrize("case", CASES, ids=[f"{case.peer}: {case.typed}" for case in CASES])
def test_each_peer_form_is_read_as_marked(case: Case) -> None:
    if case.status == PEER:
        assert case.peers.check(case.typed), f"{case.typed} should read {case.peers.shown}"
    else:
        assert case.why and case.ours is not None
        assert case.ours.check(case.typed), f"{case.typed} should read {case.ours.shown}"


HINTED_CASES = [case for case in CASES if case.meant]


@pytest.mark.parametrize("case", HINTED_CASES, ids=[case.typed for case in HINTED_CASES])
def test_each_on_purpose_difference_says_did_you_mean_with_the_peers_reading(case: Case) -> None:
    said = _said(case.typed)
    assert f"did you mean `{case.meant}`" in said.lower(), said
    if not case.meant.startswith("/roll"):  # an option, not notation
        form = case.whole or case.meant
        assert case.peers.check(form), f"{form} should read {case.peers.shown} (the peer's)"


def test_our_own_spelling_has_no_hint() -> None:
    for typed in ("4d6kh3", "1d6ie", "1d100", "10d6kl1", "4cod", "dndstats", "+d%", "1d20+5 adv"):
        assert _said(typed).strip() == "", typed


def test_at_least_nine_in_ten_of_each_peers_generic_forms_are_read_as_the_peer_reads_them() -> None:
    for peer in (D20, MAIDEN):
        counts = tally()[(peer, False)]
        print(peer, dict(counts))
        # The on-purpose differences count against the target unless they say "did you mean"
        # with the peer's reading (issue 57).
        against = counts[UNREAD] + counts[PURPOSE]
        assert counts[PEER] + counts[HINTED] >= 0.9 * (sum(counts.values())), (peer, counts)
        assert counts[PEER] >= 0.9 * (counts[PEER] + against), (peer, counts)


def report() -> list[str]:
    """Each peer's counts, and the two target figures of issue 57."""
    lines = []
    for (peer, mode), counts in sorted(tally().items()):
        kind = "game modes" if mode else "generic"
        read, hinted = counts[PEER], counts[HINTED]
        lines.append(
            f"{peer} ({kind}): {read}/{sum(counts.values())} read as the peer reads them, "
            f"{read + hinted}/{sum(counts.values())} counting on-purpose differences with a "
            f"did-you-mean; {dict(counts)}"
        )
    return lines


if __name__ == "__main__":
    if "--evaluate" in sys.argv:
        for (peer, mode), counts in sorted(tally(True).items()):
            kind = "game modes" if mode else "generic"
            print(f"{peer} ({kind}): {sum(counts.values())} forms, {dict(counts)}")
    else:
        print("\n".join(report()))
