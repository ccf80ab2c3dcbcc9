"""Checks of what a user typed, shared by every system: the refusal says what is allowed."""

from __future__ import annotations

import unicodedata

import numpy as np

from rules.errors import RulesError

__all__ = ["checked_name", "name_key", "refused_character", "require_whole"]

# Characters a name may not hold, after NFKC (docs/players/index.md, "Names"). Each would let a
# name pass for another, or change how the text around it is shown: "Hei\u200bst" beside
# "Heist", or U+202E turning the rest of a line round.
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff")
BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
)
SOFT_HYPHEN = "\u00ad"
# Blank letters (the Hangul fillers: U+3164 and U+FFA0 are U+1160 after NFKC) and the combining
# grapheme joiner: shown as nothing, yet not format characters.
BLANK_LETTERS = frozenset("\u115f\u1160\u034f")


def refused_character(character: str) -> str | None:
    """What kind of character a name may not hold ``character`` is, or None if it may.

    Controls (Unicode category Cc), zero-width characters, bidi controls, the soft hyphen,
    every other format character (Cf), unpaired surrogates (Cs: no database can store one) and
    blank letters.
    """
    if character in ZERO_WIDTH:
        return "a zero-width character"
    if character in BIDI_CONTROLS:
        return "a direction-changing (bidi) character"
    if character == SOFT_HYPHEN:
        return "a soft hyphen, invisible unless a line breaks at it"
    if character in BLANK_LETTERS:
        return "a blank, invisible character"
    category = unicodedata.category(character)
    if category == "Cc":
        return "a control character"
    if category == "Cf":
        return "an invisible formatting character"
    if category == "Cs":
        return "half of a character (an unpaired surrogate)"
    return None


def checked_name(text: str, label: str, maximum: int) -> str:
    """Return a name users give as it is stored: NFKC-normalised, each run of spaces one space,
    its ends trimmed; or refuse it (RulesError), saying why.

    The one check of every name users give (docs/players/index.md, "Names"): characters',
    macros', campaigns', challenges', items', skills' and a boon's text. NFKC makes
    look-alike spellings one ("\ufb01re" with the fi ligature is "fire", fullwidth
    "\uff28\uff25\uff29\uff33\uff34" is "HEIST"), and the length is counted after it: one
    character can become many (U+FDFA is 18). A name that is only spaces, longer than
    ``maximum`` once normalised, or holding a character ``refused_character`` names, is
    refused. ``label`` names it in the refusal: "Macro name", "Boon".
    """
    normalised = unicodedata.normalize("NFKC", text).strip()
    for position, character in enumerate(normalised, start=1):
        kind = refused_character(character)
        if kind is not None:
            raise RulesError(
                f"{label} can't hold invisible, control or direction-changing characters: "
                f"character {position} is U+{ord(character):04X}, {kind}. "
                "Type it again without it."
            )
    name = " ".join(normalised.split())
    if not name:
        raise RulesError(f"{label} must be 1 to {maximum} characters (got only spaces).")
    if len(name) > maximum:
        grown = len(name) > len(" ".join(text.split()))
        why = " once normalised: Unicode NFKC writes some characters as several, \u338f as kg"
        raise RulesError(
            f"{label} must be 1 to {maximum} characters (got {len(name):,}{why if grown else ''})."
        )
    return name


def name_key(name: str) -> str:
    """How two names compare: NFKC, then case folded (and NFKC again, as folding may undo
    it), each run of spaces one space. "\uff28\uff25\uff29\uff33\uff34", "heist" and
    "HEIST" are one name; so are "Stra\u00dfe" and "STRASSE"."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def require_whole(label: str, value: object, low: int, high: int) -> int:
    """Return ``value`` as an int, or raise RulesError saying the allowed range."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise RulesError(
            f"{label} must be a whole number between {low} and {high} (got {value!r})."
        )
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high} (got {value}).")
    return int(value)
