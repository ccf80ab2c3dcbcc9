"""Characters that forgive mistakes, in the rules (docs/players/sinew.md and
docs/players/aethelgard.md, "Characters forgive mistakes"): what balances a Sinew & Steel ledger,
skills read as players type them, and sheets edited after creation.

Every expected value is worked out by hand in the comment beside it, never by calling the
function under test.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import RulesError, sinew
from rules.aethelgard import Attribute, Sheet, edit_sheet, parse_skills
from rules.sheets import FieldChange
from rules.sinew import CreationError, Score

STR, REF, INT, EMP, LCK, STA = Score


def scores(strength: int, reflex: int, intellect: int, empathy: int, luck: int, stamina: int):
    return dict(zip(Score, (strength, reflex, intellect, empathy, luck, stamina), strict=True))


# --- Sinew & Steel: what balances the ledger


def test_balance_fix_for_a_ledger_two_short_lowers_one_score_least_first() -> None:
    # STR 13 is +3 (owes 6); LCK 6 pays 4: 2 short. STR 13 → 12 owes 2 less (moves 1 point);
    # REF, INT or EMP 10 → 8 pay 2 (move 2 each; STA 5 → 3 too, listed after them).
    short = scores(13, 10, 10, 10, 6, 5)
    fixes = sinew.balance_fixes(short)
    assert [fix.changes for fix in fixes] == [((STR, 12),), ((REF, 8),), ((INT, 8),)]
    assert sinew.balance_hint(short) == "To balance it: lower STR to 12, or REF to 8, or INT to 8."


def test_balance_fix_for_a_ledger_paying_too_many_raises_a_score() -> None:
    # INT 8 and EMP 8 pay 4, nothing is above: 4 too many. STR, REF or LCK 10 → 12 owe 4 (move
    # 2); INT 8 → 11 would move 3.
    over = scores(10, 10, 8, 8, 10, 5)
    assert sinew.balance_hint(over) == "To balance it: raise STR to 12, or REF to 12, or LCK to 12."


def test_balance_fix_names_the_one_score_that_balances_the_documents_brute() -> None:
    # STR 16 (+6), REF 13 (+3): +9 owes 18; INT, EMP, LCK 7 pay 9: 9 short. REF 13 → 7 gains
    # 6 (owes 6 less) and pays 3 = 9; STR can only move in steps of 2 above baseline (to 12:
    # 8, to 11: 10) or 13 from 9, never 9.
    brute = scores(16, 13, 7, 7, 7, 5)
    assert sinew.balance_hint(brute) == "To balance it: lower REF to 7."


def test_balance_fix_needs_two_scores_when_no_one_score_balances() -> None:
    # STR 16, STA 8 (+9, owes 18); REF 7, INT 6, LCK 8 pay 9. STR → 12 gains 8 and one more
    # point paid by REF 6, EMP 9 or LCK 7 makes 9 (each moves 5 points in all).
    brute = scores(16, 7, 6, 10, 8, 8)
    assert sinew.balance_hint(brute) == (
        "To balance it: lower STR to 12 and REF to 6, or STR to 12 and EMP to 9, "
        "or STR to 12 and LCK to 7."
    )


def test_balance_hint_counts_the_points_when_no_three_scores_balance() -> None:
    # Everything at the top: +34 owes 68, nothing paid; three scores moved 16 → 6 gain 48.
    top = scores(16, 16, 16, 16, 16, 9)
    assert sinew.balance_fixes(top) == ()
    assert sinew.balance_hint(top) == (
        "To balance it, lower scores: 68 more points are owed (each point below baseline pays "
        "1; each point off a score above it owes 2 less)."
    )


def test_balance_hint_is_none_when_balanced_or_off_the_rails() -> None:
    assert sinew.balance_hint(scores(12, 11, 7, 7, 10, 5)) is None  # +3 owes 6, paid 6
    assert sinew.balance_fixes(scores(17, 10, 10, 10, 10, 5)) == ()  # the rails are said first


def test_creation_refusal_says_what_balances_the_ledger() -> None:
    with pytest.raises(CreationError) as refused:
        sinew.create_sheet(strength=13, reflex=10, intellect=10, empathy=10, luck=6, stamina=5)
    assert "To balance it: lower STR to 12, or REF to 8, or INT to 8." in str(refused.value)


def test_every_suggested_fix_balances_the_ledger() -> None:
    for values in (
        scores(13, 10, 10, 10, 6, 5),
        scores(16, 7, 6, 10, 8, 8),
        scores(6, 6, 6, 6, 6, 3),
    ):
        for fix in sinew.balance_fixes(values):
            fixed = {**values, **dict(fix.changes)}
            assert sinew.ledger(fixed).balanced, fix


# --- Sinew & Steel: a sheet edited after creation

BALANCED = sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)


def test_sinew_edit_before_the_first_roll_keeps_the_ledger() -> None:
    # STR 12 → 13 and EMP 7 → 5 would leave the rails; EMP 7 → 6 and INT 7 → 6 pay 2 more.
    edited = sinew.edit_sheet(BALANCED, {STR: 13, INT: 6, EMP: 6}, creation=True)
    assert edited.changes == (
        FieldChange("STR", "12", "13"),
        FieldChange("INT", "7", "6"),
        FieldChange("EMP", "7", "6"),
    )
    assert edited.text == "STR 12 → 13, INT 7 → 6, EMP 7 → 6"
    assert (edited.sheet.strength, edited.sheet.intellect, edited.sheet.empathy) == (13, 6, 6)
    with pytest.raises(CreationError, match="To balance it: lower STR to 12"):
        sinew.edit_sheet(BALANCED, {STR: 13}, creation=True)  # +4 owes 8, paid 6


def test_sinew_gm_edit_keeps_the_rails_not_the_ledger() -> None:
    edited = sinew.edit_sheet(BALANCED, {STR: 13, REF: 12}, creation=False)
    assert edited.text == "STR 12 → 13, REF 11 → 12"
    with pytest.raises(RulesError, match=r"STR \(Strength\) must be between 6 and 16"):
        sinew.edit_sheet(BALANCED, {STR: 17}, creation=False)


def test_sinew_edit_moves_tokens_and_stamina_with_their_caps() -> None:
    # Tokens 4 of 10 and Stamina 2 of 5: LCK 10 → 12 gives 2 more tokens, STA 5 → 4 one less.
    used = replace(BALANCED, luck_tokens=4, current_stamina=2)
    edited = sinew.edit_sheet(used, {LCK: 12, STA: 4}, creation=False).sheet
    assert (edited.luck_tokens, edited.current_stamina) == (6, 1)
    emptied = sinew.edit_sheet(used, {LCK: 6}, creation=False).sheet  # 4 − 4 = 0, not below
    assert emptied.luck_tokens == 0


def test_sinew_edit_of_armour_and_an_edit_that_changes_nothing() -> None:
    assert sinew.edit_sheet(BALANCED, {}, 2, creation=False).text == "armour 0 → 2"
    with pytest.raises(RulesError, match="nothing to change"):
        sinew.edit_sheet(BALANCED, {STR: 12}, 0, creation=True)


# --- Aethelgard: skills read as players type them


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("Athletics 2; Melee 3", {"Athletics": 2, "Melee": 3}),
        ("Athletics:2, Melee:3", {"Athletics": 2, "Melee": 3}),
        ("athletics 2 melee 3", {"Athletics": 2, "Melee": 3}),
        ("athletics = 2;melee=3", {"Athletics": 2, "Melee": 3}),
        ("System Bypass 3, Stealth 2", {"System Bypass": 3, "Stealth": 2}),
        ("system bypass 3 wasteland survival 1", {"System Bypass": 3, "Wasteland Survival": 1}),
        ("RHETORIC +4", {"Rhetoric": 4}),  # the document's spelling
        ("Sleight of hand 1\nLore 0", {"Sleight of hand": 1, "Lore": 0}),
        ("", {}),
        (" ; , ", {}),
    ],
)
def test_skills_read_as_players_type_them(typed: str, expected: dict[str, int]) -> None:
    assert parse_skills(typed) == expected


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        ("Athletics 2; Melee 3; Stealth", "'Stealth' has no rank."),
        ("Athletics; Melee 3", "'Athletics' has no rank."),
        ("2 Athletics", "a rank comes after its skill's name (got '2 Athletics')."),
        ("Melee: sharp 3", "`:` goes between a skill and its rank (in 'Melee: sharp 3')."),
        ("Acrobatic 2", "'Acrobatic' is not a skill here: did you mean Acrobatics?"),
        ("Rethoric 1", "'Rethoric' is not a skill here: did you mean Rhetoric?"),
        ("Melee 6", "Melee rank must be between 0 and 5 (got 6)."),
        ("Melee -1", "Melee rank must be between 0 and 5 (got -1)."),
        ("Melee 2, MELEE 3", "MELEE is listed twice; give each skill once, with its rank."),
    ],
)
def test_unreadable_skills_are_refused_with_an_example_never_stored_whole(
    typed: str, refusal: str
) -> None:
    with pytest.raises(RulesError) as refused:
        parse_skills(typed)
    assert refusal in str(refused.value)
    if "rank" in refusal and "between" not in refusal and "twice" not in refusal:
        assert str(refused.value).startswith(
            "Write skills as names with ranks 0–5, e.g. `Athletics 2; Melee 3`"
        )


def test_skills_read_against_the_sheets_own_names() -> None:
    sheet = Sheet(dict.fromkeys(Attribute, 3), {"Stealth": 2})
    assert parse_skills("stealth 4", sheet) == {"Stealth": 4}
    with pytest.raises(RulesError, match="did you mean Stealth"):
        parse_skills("Stelth 4", sheet)


# --- Aethelgard: a sheet edited after creation


def test_aethelgard_edit_changes_attributes_and_only_the_skills_named() -> None:
    sheet = Sheet({**dict.fromkeys(Attribute, 3), "WITS": 8}, {"Stealth": 2, "Melee": 1})
    # WITS 8 → 9; Melee 1 → 3; Stealth 0 takes it off; Athletics is new; nothing else moves.
    edited = edit_sheet(sheet, {Attribute.WITS: 9}, "melee 3; stealth 0; athletics 2")
    assert edited.sheet.skills == {"Athletics": 2, "Melee": 3}
    assert edited.text == "WITS 8 → 9, Athletics — → 2, Melee 1 → 3, Stealth 2 → —"
    with pytest.raises(RulesError, match="WITS must be between 1 and 20"):
        edit_sheet(sheet, {Attribute.WITS: 21})
    with pytest.raises(RulesError, match="nothing to change"):
        edit_sheet(sheet, {Attribute.WITS: 8}, "Stealth 2")
