"""Checks of what a user typed, shared by every system: the refusal says what is allowed."""

from __future__ import annotations

import unicodedata

import numpy as np

from rules.errors import RulesError

__all__ = ["checked_name", "require_whole"]

# Unicode categories a name may not hold: controls (Cc) and format characters (Cf). Among the
# latter are the zero-width ones (U+200B-U+200D, U+2060, U+FEFF), which let "fi\u200bre" pass
# for "fire" beside it, and the bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C),
# which reorder the text shown after them.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf"})


def checked_name(text: str, what: str) -> str:
    """Return a name as it is stored and compared: NFKC-normalised, its ends trimmed.

    NFKC makes look-alike spellings one ("ﬁre" with the fi ligature is "fire"). A name that
    is only spaces, or holds a control, zero-width or bidi control character, is refused.
    ``what`` names the thing in the refusal: "the macro", "your character".
    """
    name = unicodedata.normalize("NFKC", text).strip()
    if not name:
        raise RulesError(f"Give {what} a name that isn't only spaces.")
    for position, character in enumerate(name, start=1):
        if unicodedata.category(character) in INVISIBLE_CATEGORIES:
            raise RulesError(
                f"{what[0].upper()}{what[1:]}'s name can't hold invisible or control characters "
                f"(U+{ord(character):04X} is character {position}): type it again without it."
            )
    return name


def require_whole(label: str, value: object, low: int, high: int) -> int:
    """Return ``value`` as an int, or raise RulesError saying the allowed range."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise RulesError(
            f"{label} must be a whole number between {low} and {high} (got {value!r})."
        )
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high} (got {value}).")
    return int(value)
