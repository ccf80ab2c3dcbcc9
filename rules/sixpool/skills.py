"""The skills the six-pool d20 document names, by the pool each uses (docs/players/sixpool.md,
"Skills"). A sheet may train others of its own; these are what a check suggests."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from types import MappingProxyType

from rules.errors import RulesError
from rules.sixpool.characters import Pool, Sheet, skill_name

__all__ = ["NEAREST_MAX", "SKILLS", "SKILLS_BY_POOL", "known_skills", "require_known_skill"]

NEAREST_MAX = 3  # how many near names a refused skill suggests

# As the sheet stores a skill's name (``skill_name``: lower case).
SKILLS_BY_POOL: Mapping[Pool, tuple[str, ...]] = MappingProxyType(
    {
        Pool.STR: ("athletics",),
        Pool.DEX: ("acrobatics", "sleight of hand", "stealth", "lock picking"),
        Pool.CON: ("endurance",),
        Pool.INT: ("investigation", "history", "arcana", "nature", "religion"),
        Pool.WIS: ("perception", "insight", "survival", "animal handling", "medicine"),
        Pool.CHA: ("persuasion", "deception", "intimidation", "performance"),
    }
)
SKILLS: tuple[str, ...] = tuple(sorted(name for names in SKILLS_BY_POOL.values() for name in names))


def known_skills(sheet: Sheet | None) -> list[str]:
    """The sheet's trained skills first, then the document's it doesn't train, by name."""
    if sheet is None:
        return list(SKILLS)
    return [*sheet.skills, *(name for name in SKILLS if name not in sheet.skills)]


def require_known_skill(sheet: Sheet, skill: str, trained_only: Collection[str] = ()) -> None:
    """Refuse a skill that is on neither the sheet, the document's list nor the campaign's
    trained-only list, naming the nearest known ones: a typo is never rolled as untrained."""
    wanted = skill_name(skill)
    known = [*known_skills(sheet), *sorted(set(trained_only) - set(SKILLS) - set(sheet.skills))]
    if wanted in known:
        return
    nearest = difflib.get_close_matches(wanted, known, n=NEAREST_MAX)
    hint = (
        "Did you mean " + " or ".join(nearest) + "?"
        if nearest
        else "Pick one of the suggestions while typing."
    )
    raise RulesError(
        f"There is no skill {wanted!r} on the sheet or in the six-pool list. {hint} "
        "(A skill of your own: train it first with `/sixpool character set skill:`.)"
    )
