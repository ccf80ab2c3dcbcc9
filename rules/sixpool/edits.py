"""Six-pool d20 sheet edits (docs/players/sixpool.md, "Characters forgive mistakes"): what
`/sixpool character set` changed, value by value, for the table to hear.

Six-pool d20 has no creation ledger: the owner's edit before the first roll and a GM's after it
keep the same rails (level, maxima, Edge and training each within its range).
"""

from __future__ import annotations

from collections.abc import Callable

from rules.errors import RulesError
from rules.sheets import FieldChange, SheetEdit
from rules.sixpool.characters import Pool, Sheet, Training

__all__ = ["edit_sheet"]


def _training(trained: Training | None) -> str:
    return (trained or Training.UNTRAINED).value


def edit_sheet(sheet: Sheet, change: Callable[[Sheet], Sheet]) -> SheetEdit[Sheet]:
    """Apply ``change`` and say what it changed: "level 1 → 9, CON save untrained → trained".

    Raises:
        RulesError: the change breaks a rail, or changes nothing.
    """
    after = change(sheet)
    changes: list[FieldChange] = []
    if after.level != sheet.level:
        changes.append(FieldChange("level", str(sheet.level), str(after.level)))
    for pool in Pool:
        key = pool.field
        for label, before_map, after_map in (
            (f"{pool} maximum", sheet.maxima, after.maxima),
            (f"{pool} points", sheet.current, after.current),
            (f"{pool} Edge", sheet.edges, after.edges),
        ):
            if before_map[key] != after_map[key]:
                changes.append(FieldChange(label, str(before_map[key]), str(after_map[key])))
        was, now = _training(sheet.saves.get(key)), _training(after.saves.get(key))
        if was != now:
            changes.append(FieldChange(f"{pool} save", was, now))
    for skill in sorted({*sheet.skills, *after.skills}):
        was, now = _training(sheet.skills.get(skill)), _training(after.skills.get(skill))
        if was != now:
            changes.append(FieldChange(skill, was, now))
    if not changes:
        raise RulesError("Those are the sheet's values already: nothing to change.")
    return SheetEdit(after, tuple(changes))
