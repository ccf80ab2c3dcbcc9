"""The skills the six-pool d20 document names, by the pool each uses (README, Six-pool d20:
"Skills"). A sheet may train others of its own; these are what a check suggests."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from rules.sixpool.characters import Pool, Sheet

__all__ = ["SKILLS", "SKILLS_BY_POOL", "known_skills"]

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
