"""Aethelgard characters (docs/players/aethelgard.md, "Rules notes"): attributes, skill ranks, the
sheet, and skills read as players type them.

A sheet has five attributes (1-20) and skill ranks (0-5): the document's five skills and any of
the sheet's own. Its limits are the creation limits too, so an edit is checked as a new sheet
is. Pure: ``rules.aethelgard`` builds pools from it and re-exports every name here.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from rules.errors import RulesError
from rules.inputs import checked_name, name_key, require_whole
from rules.sheets import FieldChange, SheetEdit

__all__ = [
    "ATTRIBUTE_MAX",
    "ATTRIBUTE_MIN",
    "NEAREST_MAX",
    "RANK_MAX",
    "RANK_MIN",
    "SKILLS",
    "SKILLS_MAX",
    "SKILL_NAME_MAX",
    "Attribute",
    "Sheet",
    "checked_skill",
    "edit_sheet",
    "edit_skills",
    "known_skills",
    "parse_skills",
]

ATTRIBUTE_MIN, ATTRIBUTE_MAX = 1, 20  # (house) sheet limits
RANK_MIN, RANK_MAX = 0, 5


class Attribute(StrEnum):
    """The five attributes of an Aethelgard character."""

    MIGHT = "MIGHT"
    FINESSE = "FINESSE"
    WITS = "WITS"
    WILL = "WILL"
    STURDINESS = "STURDINESS"


SKILL_NAME_MAX = 40
SKILLS_MAX = 30
# The skills the document names (its Skill Check and Crafting applications); a sheet may list others
# of its own. docs/players/aethelgard.md, "Skills".
SKILLS = ("Acrobatics", "Crafting", "Rhetoric", "System Bypass", "Wasteland Survival")
NEAREST_MAX = 3  # how many near names a refused skill suggests


def _skill_key(name: str) -> str:
    """A skill's name as a stored sheet holds it, spaces collapsed (a new one is checked by
    ``parse_skills``)."""
    cleaned = " ".join(str(name).split())
    if not cleaned or len(cleaned) > SKILL_NAME_MAX:
        raise RulesError(f"A skill name is 1–{SKILL_NAME_MAX} characters (got {name[:50]!r}).")
    return cleaned


@dataclass(frozen=True, slots=True)
class Sheet:
    """An Aethelgard character: five attributes and skill ranks 0-5 (Stress and Corruption are
    tracks, see ``STRESS`` and ``CORRUPTION``)."""

    attributes: Mapping[str, int]
    skills: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if set(self.attributes) != {attribute.value for attribute in Attribute}:
            raise ValueError(f"a sheet has the five attributes (got {sorted(self.attributes)})")
        attributes = {
            attribute.value: require_whole(
                attribute.value, self.attributes[attribute.value], ATTRIBUTE_MIN, ATTRIBUTE_MAX
            )
            for attribute in Attribute
        }
        if len(self.skills) > SKILLS_MAX:
            raise RulesError(f"A sheet lists at most {SKILLS_MAX} skills.")
        skills = {
            _skill_key(name): require_whole(f"{name} rank", rank, RANK_MIN, RANK_MAX)
            for name, rank in self.skills.items()
        }
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "skills", dict(sorted(skills.items())))

    def attribute(self, which: Attribute) -> int:
        return self.attributes[which.value]

    def skill(self, name: str) -> tuple[str, int]:
        """Return the skill's name as on the sheet and its rank (0 if not listed); names compare
        NFKC, any case (docs/players/index.md, "Names")."""
        wanted = name_key(_skill_key(name))
        for listed, rank in self.skills.items():
            if name_key(listed) == wanted:
                return listed, rank
        return _skill_key(name), 0


SKILLS_EXAMPLE = "`Athletics 2; Melee 3`"  # how a refusal shows skills are written
NEAR_CUTOFF = 0.8  # how alike a typed skill and a known one are to be read as a typo of it
RANK_TEXT = re.compile(r"[+-]?\d+")  # a word read as a rank (checked as ASCII 0-5 after)
ITEM_SEPARATORS = re.compile(r"[,;\n]")


def _unreadable(what: str) -> RulesError:
    return RulesError(
        f"Write skills as names with ranks 0–{RANK_MAX}, e.g. {SKILLS_EXAMPLE} (also "
        f"`Athletics:2, Melee:3` or `athletics 2 melee 3`); {what}"
    )


def _skill_pairs(text: str) -> list[tuple[str, str]]:
    """Split skills as players type them into (name, rank) texts: items apart by `;`, `,` or
    a new line, and in each a name's words, then its rank (after a space, `:` or `=`); a
    rank also ends a skill, so "athletics 2 melee 3" is two."""
    pairs: list[tuple[str, str]] = []
    for item in ITEM_SEPARATORS.split(text):
        words = re.sub(r"\s*[:=]\s*", " : ", item).split()
        name: list[str] = []
        for position, word in enumerate(words):
            if word == ":":
                following = words[position + 1] if position + 1 < len(words) else ""
                if not name or not RANK_TEXT.fullmatch(following):
                    raise _unreadable(f"`:` goes between a skill and its rank (in {item[:50]!r}).")
            elif RANK_TEXT.fullmatch(word):
                if not name:
                    raise _unreadable(f"a rank comes after its skill's name (got {item[:50]!r}).")
                pairs.append((" ".join(name), word))
                name = []
            else:
                name.append(word)
        if name:
            shown = " ".join(name)[:50]
            raise _unreadable(f"{shown!r} has no rank.")
    return pairs


def _rank(name: str, text: str) -> int:
    """A rank as typed: ASCII digits 0-5 (``str.isdigit`` also passes '²' and '٣')."""
    digits = text.lstrip("+-")
    if not (digits.isascii() and digits.isdigit()):
        raise _unreadable(f"{name}'s rank {text[:10]!r} is not a number from 0 to {RANK_MAX}.")
    if len(digits) > 3 or text.startswith("-"):  # also keeps int() under its digit limit
        raise RulesError(
            f"{name[:40]} rank must be between {RANK_MIN} and {RANK_MAX} (got {text[:10]}"
            f"{'…' if len(text) > 10 else ''})."
        )
    return require_whole(f"{name} rank", int(digits), RANK_MIN, RANK_MAX)


def _skill_name(typed: str, known: list[str]) -> str:
    """A typed skill's name as the sheet keeps it: a known skill's own spelling (the sheet's,
    the document's); a near miss of one refused with it ("Did you mean Acrobatics?"); any
    other name, a skill of the sheet's own, with a capital first letter ("melee": "Melee")."""
    name = checked_name(typed, "Skill name", SKILL_NAME_MAX)
    by_key = {name_key(skill): skill for skill in known}
    if name_key(name) in by_key:
        return by_key[name_key(name)]
    near = difflib.get_close_matches(
        name_key(name), list(by_key), n=NEAREST_MAX, cutoff=NEAR_CUTOFF
    )
    if near:
        guesses = " or ".join(by_key[key] for key in near)
        raise RulesError(
            f"{name!r} is not a skill here: did you mean {guesses}? (A skill of the sheet's own "
            "needs a name unlike the known ones.)"
        )
    first = name[0].upper()  # one character, unless upper case spells it as two ("ß")
    return first + name[1:] if len(first) == 1 else name


def parse_skills(text: str, sheet: Sheet | None = None) -> dict[str, int]:
    """Read skills as players type them: "Athletics 2; Melee 3", "Athletics:2, Melee:3" and
    "athletics 2 melee 3" are each {"Athletics": 2, "Melee": 3}.

    Each name passes the check every name users give and is read against the known skills
    (``sheet``'s own, and the document's five): a known one takes its spelling, a near miss is
    refused with the names it is near, any other is the sheet's own. A sheet lists a skill once
    (docs/players/index.md, "Names"): "Stealth 2, STEALTH 3" is refused; and anything unreadable is
    refused with an example, never kept as a skill's name.
    """
    known = known_skills(sheet)
    skills: dict[str, int] = {}
    for typed, rank_text in _skill_pairs(text):
        name = _skill_name(typed, known)
        if any(name_key(listed) == name_key(name) for listed in skills):
            raise RulesError(f"{name} is listed twice; give each skill once, with its rank.")
        skills[name] = _rank(name, rank_text)
    return skills


def edit_skills(sheet: Sheet, text: str) -> dict[str, int]:
    """The sheet's skills after an edit's ``text`` (read as ``parse_skills`` reads it): the
    skills it names take their new ranks, rank 0 takes one off the sheet, the rest stay."""
    skills = dict(sheet.skills)
    for name, rank in parse_skills(text, sheet).items():
        if rank == RANK_MIN:
            skills.pop(name, None)
        else:
            skills[name] = rank
    return skills


def edit_sheet(
    sheet: Sheet, attributes: Mapping[Attribute, int], skills: str | None = None
) -> SheetEdit[Sheet]:
    """Return the sheet with the attributes given and the skills ``skills`` names changed
    (``edit_skills``), and what changed; within the sheet's limits, which are also the creation
    limits (attributes 1-20, ranks 0-5, 30 skills). docs/players/aethelgard.md, "Rules notes",
    "Characters forgive mistakes".

    Raises:
        RulesError: a value past its limits, unreadable skills, or nothing that changes.
    """
    new_attributes = {**sheet.attributes, **{a.value: value for a, value in attributes.items()}}
    new_skills = sheet.skills if skills is None else edit_skills(sheet, skills)
    edited = Sheet(new_attributes, new_skills)
    changes = [
        FieldChange(a.value, str(sheet.attribute(a)), str(edited.attribute(a)))
        for a in Attribute
        if sheet.attribute(a) != edited.attribute(a)
    ]
    for name in sorted({*sheet.skills, *edited.skills}, key=name_key):
        before, after = sheet.skills.get(name), edited.skills.get(name)
        if before != after:
            shown = [str(rank) if rank is not None else "—" for rank in (before, after)]
            changes.append(FieldChange(name, *shown))
    if not changes:
        raise RulesError("Those are the sheet's values already: nothing to change.")
    return SheetEdit(edited, tuple(changes))


def known_skills(sheet: Sheet | None) -> list[str]:
    """The skills a check may name: the sheet's own, then the document's the sheet lacks."""
    own = list(sheet.skills) if sheet is not None else []
    taken = {name_key(name) for name in own}
    return own + [name for name in SKILLS if name_key(name) not in taken]


def checked_skill(sheet: Sheet, name: str) -> tuple[str, int]:
    """Return a skill's name and rank: the sheet's, or 0 for one of the document's skills the
    sheet lacks. Any other name is refused with the nearest known names (never ranked 0)."""
    listed, rank = sheet.skill(name)
    known = known_skills(sheet)
    by_key = {name_key(skill): skill for skill in known}
    if name_key(listed) in by_key:
        return by_key[name_key(listed)], rank
    nearest = difflib.get_close_matches(name_key(listed), list(by_key), n=NEAREST_MAX)
    hint = (
        "Did you mean " + " or ".join(by_key[key] for key in nearest) + "?"
        if nearest
        else "Known skills: " + ", ".join(known) + "."
    )
    raise RulesError(
        f"There is no skill {listed[:SKILL_NAME_MAX]!r} on the sheet or in Aethelgard's "
        f"list. {hint}"
    )
