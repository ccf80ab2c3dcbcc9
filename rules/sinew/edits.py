"""Editing a Sinew & Steel sheet after creation: its six scores and armour.

docs/players/sinew.md, "Characters forgive mistakes". Before the character's first
roll its owner edits within the creation rules (the rails and the ledger, as at creation);
a GM edits at any time within the rails alone (scores are off the ledger once build points
are spent, and the GM corrects what play got wrong). Who is editing, and whether the
character has rolled, is the caller's to decide: here ``creation`` says which rules hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.sheets import FieldChange, SheetEdit
from rules.sinew.constants import ARMOUR_MAX, ARMOUR_MIN
from rules.sinew.sheet import Score, Sheet, check_creation

__all__ = ["edit_sheet"]


def _refilled(now: int, old_cap: int, new_cap: int) -> int:
    """Tokens or Stamina after their cap moves: moved by as much, within 0 and the new cap
    (raising LCK or STA fills the new room, as a milestone's raise does)."""
    return min(max(now + new_cap - old_cap, 0), new_cap)


def edit_sheet(
    sheet: Sheet,
    scores: Mapping[Score, int],
    armour: int | None = None,
    *,
    creation: bool,
) -> SheetEdit[Sheet]:
    """Return the sheet with the scores given (and armour) changed, and what changed.

    ``creation``: the owner's edit before the first roll, checked as a new sheet is (rails
    and ledger, naming what balances it); else within the rails alone. Luck tokens and
    current Stamina move with their caps (never below 0).

    Raises:
        CreationError: ``creation`` and the new scores are off the rails or unbalanced.
        RulesError: a score off its rails, armour outside 0-3, or nothing that changes.
    """
    values = {**sheet.scores(), **scores}
    if creation:
        check_creation(values)
    new_armour = sheet.armour if armour is None else armour
    require_whole("Armour", new_armour, ARMOUR_MIN, ARMOUR_MAX)
    changes = tuple(
        FieldChange(score.value, str(sheet.score(score)), str(values[score]))
        for score in Score
        if values[score] != sheet.score(score)
    )
    if new_armour != sheet.armour:
        changes += (FieldChange("armour", str(sheet.armour), str(new_armour)),)
    if not changes:
        raise RulesError("Those are the sheet's values already: nothing to change.")
    # The sheet checks the rails itself. Any: each score goes to its own int field (mypy
    # checks a ** dict against every field).
    fields: dict[str, Any] = {score.field: values[score] for score in Score}
    edited = replace(
        sheet,
        **fields,
        luck_tokens=_refilled(sheet.luck_tokens, sheet.luck, values[Score.LCK]),
        current_stamina=_refilled(sheet.current_stamina, sheet.stamina, values[Score.STA]),
        armour=new_armour,
    )
    return SheetEdit(edited, changes)
