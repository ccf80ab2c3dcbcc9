"""The words for what storage refused: one function, extended by each system's renderer."""

from __future__ import annotations

from functools import singledispatch

from bot.render.campaign import END_ANSWERS
from bot.render.grammar import plural
from bot.storage.errors import (
    AlreadyGM,
    CampaignAlreadyRunning,
    CampaignEnded,
    CannotSave,
    CharacterAlreadyTheirs,
    CharacterGone,
    CharacterNameTaken,
    CharacterNotFound,
    EndPromptAnswered,
    FounderStaysGM,
    NotCoGM,
    RevealNotAllowed,
    RollAlreadyRevealed,
    RollInAnotherServer,
    RollNotFound,
    RollNotHidden,
    StorageError,
    TooManyCharacters,
    TrackOutOfRange,
    UnknownTrack,
    WhichCharacter,
    WriteFault,
)
from rules.systems import System

__all__ = ["create_command", "describe"]


@singledispatch
def describe(error: StorageError) -> str:
    """Return what a user reads when storage refused: what was wrong and what is allowed.

    A system registers words for its own errors with ``@describe.register`` in its render
    module.
    """
    return "That can't be done right now; nothing was changed."


_WHY_NOT_SAVED = {
    WriteFault.FULL: "its disk is full",
    WriteFault.READ_ONLY: "its database has become read-only",
    WriteFault.IO: "its disk reports errors",
    WriteFault.BUSY: "its database is locked by another program",
}


@describe.register
def _(error: CannotSave) -> str:
    return (
        f"The bot can't save anything right now ({_WHY_NOT_SAVED[error.fault]}), so nothing "
        "was changed. Try again in a while; `/roll`, odds and sheets still work."
    )


@describe.register
def _(error: CampaignAlreadyRunning) -> str:
    return (
        f"This channel already runs the {error.system_name} campaign "
        f"**{error.campaign_name}**. A GM can end it with `/campaign end` first."
    )


@describe.register
def _(error: CampaignEnded) -> str:
    if error.campaign_name is None:
        return "That campaign has already ended."
    return f"The campaign **{error.campaign_name}** has already ended."


@describe.register
def _(error: EndPromptAnswered) -> str:
    return f"This was already answered: {END_ANSWERS[error.answer]}"


@describe.register
def _(error: AlreadyGM) -> str:
    return f"<@{error.user_id}> is already a GM of this campaign."


@describe.register
def _(error: FounderStaysGM) -> str:
    return f"<@{error.user_id}> started this campaign and always stays its GM."


@describe.register
def _(error: NotCoGM) -> str:
    return f"<@{error.user_id}> is not a co-GM of this campaign."


@describe.register
def _(error: RollNotFound) -> str:
    return f"There is no roll #{error.roll_id}."


@describe.register
def _(error: RollInAnotherServer) -> str:
    return f"There is no roll #{error.roll_id} in this server."


@describe.register
def _(error: RevealNotAllowed) -> str:
    who = (
        " (it was made outside any campaign: a member with Manage Server)."
        if error.outside_campaigns
        else "."
    )
    return f"Only a GM of the campaign roll #{error.roll_id} was made in can reveal it{who}"


@describe.register
def _(error: RollNotHidden) -> str:
    return f"Roll #{error.roll_id} was not hidden: everyone saw it already."


@describe.register
def _(error: RollAlreadyRevealed) -> str:
    return f"Roll #{error.roll_id} was already revealed."


@describe.register
def _(error: UnknownTrack) -> str:
    known = ", ".join(error.known) or "none"
    return f"{error.system_name} has no track called `{error.name}` (it has: {known})."


@describe.register
def _(error: TrackOutOfRange) -> str:
    return (
        f"{error.name} is {error.before}; changing it by {error.delta:+d} would leave "
        f"{error.minimum}–{error.maximum}."
    )


def create_command(system: System) -> str:
    """The command that creates a character of ``system``: each system's commands are the
    group named by its key (`/sinew`, `/aethelgard`, `/sixpool`), and its characters are
    created with `character create` there."""
    return f"`/{system.value} character create`"


# The command that fixes a sheet, where a system names it other than `character edit`.
_EDIT_COMMANDS = {"sixpool": "character set"}


def edit_command(system: System) -> str:
    """The command that fixes a character's sheet in ``system`` (docs/players/sinew.md,
    "Characters forgive mistakes"): `character edit`, six-pool d20's `character set`."""
    return f"`/{system.value} {_EDIT_COMMANDS.get(system.value, 'character edit')}`"


@describe.register
def _(error: CharacterNotFound) -> str:
    who = "There is" if error.user_id is None else f"<@{error.user_id}> has"
    if error.name is not None:  # the next step: see who is there
        return (
            f"{who} no character called **{error.name}** in this campaign; "
            "`/campaign info` lists its characters."
        )
    if error.system is None or not error.system.installed:
        return f"{who} no character in this campaign yet."
    return f"{who} no character in this campaign yet: {create_command(error.system)}."


@describe.register
def _(error: WhichCharacter) -> str:
    names = ", ".join(f"**{name}**" for name in error.names)
    who = "This player has" if error.user_id is None else f"<@{error.user_id}> has"
    return f"{who} several characters ({names}): say which one with `character:`."


@describe.register
def _(error: CharacterNameTaken) -> str:
    return (
        f"There is already a character called **{error.name}** in this campaign; "
        "choose another name."
    )


@describe.register
def _(error: TooManyCharacters) -> str:
    held = (
        f"<@{error.user_id}> already has {plural(error.limit, 'character')} "
        "in this campaign, the most this system allows"
    )
    if error.system is None or not error.system.installed:
        return f"{held}."
    group = error.system.value
    return (
        f"{held}: {edit_command(error.system)} fixes a sheet, "
        f"`/{group} character delete` frees the place."
    )


@describe.register
def _(error: CharacterGone) -> str:
    return "That character was deleted already; nothing was changed."


@describe.register
def _(error: CharacterAlreadyTheirs) -> str:
    return f"**{error.name}** is <@{error.user_id}>'s already; give it to another player."
