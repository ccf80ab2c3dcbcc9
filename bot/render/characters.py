"""The words of the character commands every system with characters shares: edit, rename, delete and
give (docs/players/sinew.md and docs/players/aethelgard.md, "Characters forgive mistakes")."""

from __future__ import annotations

from bot.render.style import shown
from bot.storage.errors import EndAnswer

__all__ = [
    "DELETE_ANSWERS",
    "character_deleted",
    "character_given",
    "character_renamed",
    "delete_answered_before",
    "delete_prompt",
    "edited_by_gm",
    "edited_by_owner",
    "owner_edits_over",
]

# A delete prompt's text once answered (its buttons gone), and what a later click is told.
DELETE_ANSWERS = {
    EndAnswer.ENDED: "Deleted.",
    EndAnswer.KEPT: "Kept: nothing was deleted.",
    EndAnswer.EXPIRED: "No answer in time: nothing was deleted. Ask again to delete it.",
}
_BEFORE = {
    EndAnswer.ENDED: "the character was deleted.",
    EndAnswer.KEPT: "the character was kept.",
    EndAnswer.EXPIRED: "no answer came in time, so nothing was deleted.",
}


def delete_answered_before(answer: EndAnswer) -> str:
    """What a click on a delete prompt answered before is told (the first answer stands)."""
    return f"This was already answered: {_BEFORE[answer]}"


def edited_by_owner(name: str, changes: str) -> str:
    """An owner's edit before the character's first roll (``changes``: ``SheetEdit.text``):
    "✏️ Ana: STR 12 → 13, INT 7 → 6."."""
    return f"✏️ **{shown(name)}**: {shown(changes)}."


def edited_by_gm(name: str, changes: str) -> str:
    """A GM's edit, as the table hears it: "GM changed Ana: STR 12 → 13, REF 9 → 10"."""
    return f"✏️ GM changed **{shown(name)}**: {shown(changes)}."


def owner_edits_over(name: str, gms: str) -> str:
    """The owner's refusal once the character has rolled, naming who to ask instead."""
    return (
        f"**{shown(name)}** has rolled, so its sheet is a GM's to change now (within the "
        f"rails), and the table hears each change. {gms}"
    )


def character_renamed(before: str, after: str, user_id: int) -> str:
    return f"✏️ **{shown(before)}** is now called **{shown(after)}** (renamed by <@{user_id}>)."


def delete_prompt(name: str) -> str:
    return (
        f"Delete **{shown(name)}**? Its sheet and tracks go; its rolls stay in `/campaign log` "
        "under its name. This can't be undone."
    )


def character_deleted(name: str, user_id: int) -> str:
    return (
        f"🗑️ **{shown(name)}** was deleted by <@{user_id}>. Its rolls stay in `/campaign log` "
        "under its name."
    )


def character_given(name: str, before: int, after: int, gm_id: int) -> str:
    return f"🤝 <@{gm_id}> gave **{shown(name)}** from <@{before}> to <@{after}>."
