"""The notation players bring from other bots, as one corpus (docs/players/dice.md, "Dice
notation").

Each accepted input is rolled with ``new_rng(1)`` and checked line by line: what is rolled (the
breakdown spells it), its label, its total and a comparison's outcome. numpy's default_rng(1)
draws 10 then 11 for d20s (a batch of two: 10, 11), and 3, 4, 5, 6, 1, 1, 5, 6, then 2, 2 for a
batch of eight d6 and the two it explodes into: checked by hand in the first test. Each refusal
is checked by its whole text, which names the form we read.
"""

from __future__ import annotations

import numpy as np
import pytest

from rules.errors import RulesError
from rules.expressions import RequestRoll, roll_request
from rules.randomness import new_rng


def test_the_seed_draws_the_faces_the_corpus_expects() -> None:
    one = np.random.default_rng(1)
    assert (1 + one.integers(0, 20, size=1)).tolist() == [10]
    assert (1 + one.integers(0, 6, size=2)).tolist() == [4, 5]  # the d6 after one d20
    assert (1 + np.random.default_rng(1).integers(0, 20, size=2)).tolist() == [10, 11]
    six = np.random.default_rng(1)
    assert (1 + six.integers(0, 6, size=8)).tolist() == [3, 4, 5, 6, 1, 1, 5, 6]
    assert (1 + six.integers(0, 6, size=2)).tolist() == [2, 2]


def _shown(rolled: RequestRoll) -> list[str]:
    """Each roll as a line: its label, breakdown, total and a comparison's outcome."""
    lines = []
    for part, rolls in zip(rolled.request.parts, rolled.rolls, strict=True):
        for roll in rolls:
            line = f"{roll.breakdown} = {roll.total}"
            if part.comparison is not None:
                holds = part.comparison.holds(roll.total)
                line += f" {part.comparison.spelled()}: {'success' if holds else 'failure'}"
            if part.sort:
                line += " (sorted)"
            lines.append(f"{part.label}: {line}" if part.label else line)
    return lines


_STATS = [
    "4d6kh3 (~~3~~, **4**, **5**, **6**) = 15",
    "4d6kh3 (**1**, ~~1~~, **5**, **6**) = 12",
    "4d6kh3 (**2**, ~~2~~, **6**, **3**) = 11",
    "4d6kh3 (**2**, **5**, ~~2~~, **3**) = 10",
    "4d6kh3 (**4**, **4**, **1**, ~~1~~) = 9",
    "4d6kh3 (**6**, **5**, **6**, ~~4~~) = 17",
]
_ADVANTAGE = "~~10~~, **11**"  # two d20: 10 and 11, the higher kept
_DISADVANTAGE = "**10**, ~~11~~"

REFUSED = "refused"
# input → every line shown, or (REFUSED, the exact refusal)
CORPUS: list[tuple[str, list[str] | tuple[str, str]]] = [
    # labels: Avrae's trailing words, Sidekick's `#`, Dice Maiden's ` ! `, d20's `[…]`
    ("1d20+5 attack", ["attack: 1d20 (10) + 5 = 15"]),
    ("1d20+5 # attack", ["attack: 1d20 (10) + 5 = 15"]),
    ("1d20+5 ! attack", ["attack: 1d20 (10) + 5 = 15"]),
    ("2d6+3 fire", ["fire: 2d6 (3, 4) + 3 = 10"]),
    ("2d6+3 [fire]", ["fire: 2d6 (3, 4) + 3 = 10"]),
    ("1d20+5 dex save", ["dex save: 1d20 (10) + 5 = 15"]),
    ("8d6 e6 fire", ["fire: 8d6e6 (3, 4, 5, 6!, 1, 1, 5, 6!, 2, 2) = 35"]),
    # `;` separates rolls, each with its own label
    (
        "1d20+5 ! Attack; 2d6+3 ! Damage",
        ["Attack: 1d20 (10) + 5 = 15", "Damage: 2d6 (4, 5) + 3 = 12"],
    ),
    (
        "1d20+7 ! Greataxe; 1d12+4 ! slashing",
        ["Greataxe: 1d20 (10) + 7 = 17", "slashing: 1d12 (7) + 4 = 11"],
    ),
    # roll sets, and Dice Maiden's `dndstats` (six sets of 4d6, the highest three kept)
    ("6 4d6k3", _STATS),
    ("dndstats", _STATS),
    # advantage: the word after the dice, or Dice Maiden's leading `+d20` / `-d20`
    ("1d20 adv", [f"2d20kh1 ({_ADVANTAGE}) = 11"]),
    ("1d20+5 adv", [f"2d20kh1 ({_ADVANTAGE}) + 5 = 16"]),
    ("d20+5 dis", [f"2d20kl1 ({_DISADVANTAGE}) + 5 = 15"]),
    ("+d20+5", [f"2d20kh1 ({_ADVANTAGE}) + 5 = 16"]),
    ("-d20+5", [f"2d20kl1 ({_DISADVANTAGE}) + 5 = 15"]),
    ("1d20+5 adv # sneak attack", [f"sneak attack: 2d20kh1 ({_ADVANTAGE}) + 5 = 16"]),
    # comparisons: success or not
    ("1d20>=15", ["1d20 (10) = 10 >=15: failure"]),
    ("1d20+5>=15 Stealth", ["Stealth: 1d20 (10) + 5 = 15 >=15: success"]),
    ("1d20+5 >= 15", ["1d20 (10) + 5 = 15 >=15: success"]),
    ("(2d6e)>4", ["(2d6e6 (3, 4)) = 7 >4: success"]),
    ("2d6e>4", ["2d6e5 (3, 4) = 7"]),  # after a modifier letter: the modifier's (explode 5+)
    # `s` sorts each term's dice, lowest first
    ("8d6 s", ["8d6 (1, 1, 3, 4, 5, 5, 6, 6) = 31 (sorted)"]),
    # refusals: each names the form we read
    (
        "p 1d20",
        (
            REFUSED,
            "A private roll is an option here: did you mean `/roll expression:1d20 hidden:true`? "
            "(GMs; a player's secret roll is `blind:true`, seen by the GMs)",
        ),
    ),
    (
        "adv",
        (
            REFUSED,
            "`adv` needs dice: advantage is `2d20kh1+5` or `1d20+5 adv` "
            "(disadvantage: `2d20kl1+5`, `1d20+5 dis`).",
        ),
    ),
    (
        "4d6 adv",
        (
            REFUSED,
            "`adv` rolls a roll's first d20 twice, and `4d6` doesn't start with one: advantage "
            "is `2d20kh1+5` or `1d20+5 adv` (disadvantage: `2d20kl1+5`, `1d20+5 dis`).",
        ),
    ),
    ("adv 1d20+5", (REFUSED, "Did you mean `1d20+5 adv`? Words like `adv` go after the dice.")),
    ("s 4d6", (REFUSED, "Did you mean `4d6 s`? Words like `s` go after the dice.")),
    (
        "1d20+5 attack adv",
        (
            REFUSED,
            "Did you mean `1d20+5 adv attack`? `adv` goes right after the dice "
            "(or put the label after `#`: `1d20+5 # attack adv`).",
        ),
    ),
    (
        "1d20 adv+5",
        (
            REFUSED,
            "Did you mean `1d20+5 adv`? `adv` goes right after the dice "
            "(or put the label after `#`: `1d20 # adv+5`).",
        ),
    ),
    (
        "1d6[fire]+1d6[cold]",
        (
            REFUSED,
            "Labels in brackets go at the end, one to a roll: did you mean `1d6+1d6 ! fire, cold`?",
        ),
    ),
    (
        "+d20 adv",
        (
            REFUSED,
            "One advantage or disadvantage to a roll: advantage is `2d20kh1+5` or `1d20+5 adv` "
            "(disadvantage: `2d20kl1+5`, `1d20+5 dis`).",
        ),
    ),
    (
        "1d20+5 ! attack # sneak",
        (REFUSED, "One label to a roll, after `#` or ` ! `: did you mean `1d20+5 # attack sneak`?"),
    ),
    (
        "2 +d20+5",
        (REFUSED, "Did you mean `2 2d20kh1+5` (2 rolls of `+d20+5`) or `2+d20+5` (one sum)?"),
    ),
    ("2 + d20", ["2 + 1d20 (10) = 12"]),  # spaced on both sides: arithmetic, as `2 + 3`
    (
        "4d6 !",
        (
            REFUSED,
            "Did you mean `4d6!` (explode again and again) or `4d6 ! label`? A ` ! ` starts a "
            "label.",
        ),
    ),
    (
        "1d20+5 ! Attack; then run",
        (
            REFUSED,
            "`;` starts another roll, and `then run` isn't dice: did you mean "
            "`1d20+5 ! Attack, then run` (one label)?",
        ),
    ),
    (
        "1d20 attack # note",
        (
            REFUSED,
            "Couldn't read `attack`: one label to a roll. Did you mean `1d20 ! attack note`?",
        ),
    ),
]


@pytest.mark.parametrize(("typed", "expected"), CORPUS, ids=[typed for typed, _ in CORPUS])
def test_rule_players_notation_corpus_is_read_or_refused_naming_our_form(
    typed: str, expected: list[str] | tuple[str, str]
) -> None:
    if isinstance(expected, tuple):
        with pytest.raises(RulesError) as refused:
            roll_request(typed, new_rng(1))
        assert str(refused.value) == expected[1]
    else:
        assert _shown(roll_request(typed, new_rng(1))) == expected
