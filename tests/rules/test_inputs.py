"""The one check of every name users give (docs/players/index.md, "Names"): ``checked_name``
refuses each character class that would let a name pass for another or reorder the text around
it, counts the length after NFKC, and ``name_key`` is how names compare."""

from __future__ import annotations

import pytest

from rules.errors import RulesError
from rules.inputs import checked_name, name_key

ZERO_WIDTH = "a zero-width character"
BIDI = "a direction-changing (bidi) character"


@pytest.mark.parametrize(
    ("character", "kind"),
    [
        ("\x07", "a control character"),
        ("\x7f", "a control character"),
        ("\x85", "a control character"),
        ("\t", "a control character"),
        ("\u200b", ZERO_WIDTH),
        ("\u200c", ZERO_WIDTH),
        ("\u200d", ZERO_WIDTH),
        ("\u2060", ZERO_WIDTH),
        ("\ufeff", ZERO_WIDTH),
        *((chr(code), BIDI) for code in range(0x202A, 0x202F)),
        *((chr(code), BIDI) for code in range(0x2066, 0x206A)),
        ("\u200e", BIDI),
        ("\u200f", BIDI),
        ("\u061c", BIDI),
        ("\u00ad", "a soft hyphen"),
        ("\u180e", "an invisible formatting character"),
        ("\u3164", "a blank, invisible character"),  # U+1160 after NFKC
        ("\ud800", "an unpaired surrogate"),
    ],
    ids=lambda value: f"U+{ord(value):04X}" if len(value) == 1 else value.split()[-2],
)
def test_a_name_holding_an_invisible_control_or_direction_changing_character_is_refused(
    character: str, kind: str
) -> None:
    with pytest.raises(RulesError) as refused:
        checked_name(f"Hei{character}st", "Challenge name", 100)
    message = str(refused.value)
    assert message.startswith(
        "Challenge name can't hold invisible, control or direction-changing characters: "
        "character 4 is U+"
    )
    assert kind in message


def test_names_are_measured_after_nfkc() -> None:
    assert checked_name("\ufdfa" * 5, "Item name", 90) == "صلى الله عليه وسلم" * 5
    grown = r"^Character name must be 1 to 60 characters \(got 1,080 once normalised: Unicode"
    with pytest.raises(RulesError, match=grown):
        checked_name("\ufdfa" * 60, "Character name", 60)
    with pytest.raises(RulesError, match=r"^Macro name must be 1 to 40 characters \(got 80 once"):
        checked_name("\u338f" * 40, "Macro name", 40)
    with pytest.raises(RulesError, match=r"^Macro name must be 1 to 40 characters \(got 41\)\.$"):
        checked_name("x" * 41, "Macro name", 40)
    with pytest.raises(RulesError, match=r"\(got only spaces\)"):
        checked_name(" \u3000 ", "Macro name", 40)


def test_names_are_stored_in_nfkc_with_single_spaces() -> None:
    assert checked_name("  \ufb01re \u3000 bolt ", "Macro name", 40) == "fire bolt"
    assert checked_name("\uff28\uff25\uff29\uff33\uff34", "Challenge name", 100) == "HEIST"


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Heist", "\uff28\uff25\uff29\uff33\uff34"),  # fullwidth
        ("heist", "HEIST"),
        ("Straße", "STRASSE"),  # case folding, not lower()
        ("Éclair", "E\u0301CLAIR"),  # composed and decomposed
        ("fire  bolt", "\ufb01re bolt"),
    ],
)
def test_names_compare_nfkc_and_case_folded(one: str, other: str) -> None:
    assert name_key(one) == name_key(other)
    assert name_key(one) != name_key(one + "s")
