"""Small English for replies: "a" or "an", a counted noun, a possessive.

Every reply that puts a word after a number, an article before a name it doesn't know in advance
or a name before "'s" goes through here, so "1 successes", "A Enchanted Realms" and "Jess'"
can't come back one renderer at a time.

- ``article`` goes by sound, not spelling: "an Aethelgard", "a Cosmos Engine", "a unicorn",
  "an hour", "an NPC" (an initialism is read letter by letter: "en-pee-see"), "a GM", "a d20",
  "an 8", "an 18".
- ``plural`` counts a noun: "1 success", "2 successes", "0 botches", "1 die" (with its
  irregular plural given: ``plural(n, "die", "dice")``). Only exactly 1 (or −1) is singular.
- ``possessive`` follows modern style (Chicago, AP for names): "'s" after every name, an "s" at
  its end included ("Wren's", "Jess's"); a name already ending in an apostrophe is left as it
  is.
"""

from __future__ import annotations

import re

__all__ = ["article", "plural", "possessive", "with_article"]

# Letters whose spoken name starts with a vowel sound: "an F", "an M", "an S", "an X".
_VOWEL_LETTERS = frozenset("AEFHILMNORSX")
# Words spelled with a vowel but said with a consonant ("a unicorn", "a one-shot", "a user").
_CONSONANT_SOUNDS = ("uni", "use", "usu", "uti", "eu", "ewe", "one", "once", "ubi", "ura", "uro")
# Words spelled with a consonant but said with a vowel ("an hour", "an honest").
_VOWEL_SOUNDS = ("hour", "honest", "honor", "honour", "heir")
_FIRST_WORD = re.compile(r"[\W_]*([\w']*)")


def _vowel_number(digits: str) -> bool:
    """Whether a number is said starting with a vowel: 8, 80, 800…, 11 and 18 (and 11,000…)."""
    if digits.startswith("8"):
        return True
    return digits[:2] in ("11", "18") and len(digits) % 3 == 2


def _initialism(word: str) -> bool:
    """Read letter by letter: all capitals ("NPC", "GM", "HP"), one capital ("F"), or one letter
    then digits ("d20", "D6")."""
    letters = word.rstrip("0123456789")
    if len(letters) == 1 and (len(word) > 1 or word.isupper()):
        return True
    return len(word) > 1 and word.isupper() and word.isalpha()


def article(word: str) -> str:
    """Return "a" or "an" for what ``word`` (a word or a phrase) is said starting with."""
    first = _FIRST_WORD.match(word)
    head = first[1] if first else ""
    if not head:
        return "a"
    if head[0].isdigit():
        digits = re.match(r"\d+", head.replace(",", ""))
        return "an" if digits and _vowel_number(digits[0]) else "a"
    if _initialism(head):
        return "an" if head[0].upper() in _VOWEL_LETTERS else "a"
    lower = head.casefold()
    if lower.startswith(_VOWEL_SOUNDS):
        return "an"
    if lower.startswith(_CONSONANT_SOUNDS):
        return "a"
    return "an" if lower[0] in "aeiou" else "a"


def with_article(word: str) -> str:
    """``word`` after its article: "an Enchanted Realms", "a Sinew & Steel"."""
    return f"{article(word)} {word}"


def _plural_of(singular: str) -> str:
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    if len(singular) > 1 and singular.endswith("y") and singular[-2] not in "aeiou":
        return singular[:-1] + "ies"
    return singular + "s"


def plural(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and its noun: "1 success", "2 successes", "0 botches", "3 dice" (``plural``
    when it isn't the singular with "s", "es" or "ies")."""
    word = singular if abs(count) == 1 else (plural or _plural_of(singular))
    return f"{count} {word}"


def possessive(name: str) -> str:
    """``name`` owning something: "Wren's", "Jess's" (modern style: "'s" after an "s" too)."""
    if name.endswith(("'", "’")):
        return name
    return f"{name}'s"
