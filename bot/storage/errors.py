"""What a storage operation refuses, as typed errors carrying the facts, never sentences.

Storage knows nothing of slash commands or wording: ``bot.render.errors.describe`` turns each
error into the words a user reads, and a system's render module registers words for its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.systems import System

__all__ = [
    "AlreadyGM",
    "CampaignAlreadyRunning",
    "CampaignEnded",
    "CannotSave",
    "CharacterAlreadyTheirs",
    "CharacterGone",
    "CharacterNameTaken",
    "CharacterNotFound",
    "EndAnswer",
    "EndPromptAnswered",
    "FounderStaysGM",
    "NotCoGM",
    "RevealNotAllowed",
    "RollAlreadyRevealed",
    "RollInAnotherServer",
    "RollNotFound",
    "RollNotHidden",
    "StorageError",
    "TooManyCharacters",
    "TrackOutOfRange",
    "UnknownTrack",
    "WhichCharacter",
    "WriteFault",
]


class StorageError(Exception):
    """An operation refused: nothing was changed. Subclasses carry what the words need."""


class WriteFault(Enum):
    """Why the database takes no writes right now (each lifts without a restart)."""

    FULL = "full"  # the disk (or SQLite's page limit) is full
    READ_ONLY = "read-only"  # the file or its file system became read-only
    IO = "I/O error"  # the disk failed a read or write
    BUSY = "busy"  # another process held the write lock past the busy timeout


@dataclass(eq=False)
class CannotSave(StorageError):
    """A write failed for a reason outside the bot (disk full, read-only, ...): rolled back,
    so nothing was changed; the next write tries again."""

    fault: WriteFault


@dataclass(eq=False)
class CampaignAlreadyRunning(StorageError):
    system_name: str
    campaign_name: str


@dataclass(eq=False)
class CampaignEnded(StorageError):
    campaign_name: str | None  # None: a campaign no longer known by its id


class EndAnswer(Enum):
    """How a `/campaign end` confirmation was answered (kept in ``end_prompts``)."""

    ENDED = "ended"
    KEPT = "kept"
    EXPIRED = "expired"  # no answer before its deadline


@dataclass(eq=False)
class EndPromptAnswered(StorageError):
    """A `/campaign end` prompt was answered before: the first answer stands."""

    answer: EndAnswer


@dataclass(eq=False)
class AlreadyGM(StorageError):
    user_id: int


@dataclass(eq=False)
class NotCoGM(StorageError):
    user_id: int


@dataclass(eq=False)
class FounderStaysGM(StorageError):
    user_id: int


@dataclass(eq=False)
class RollNotFound(StorageError):
    roll_id: int


@dataclass(eq=False)
class RollInAnotherServer(StorageError):
    """Asked from a server the roll wasn't made in: shown as no such roll there."""

    roll_id: int


@dataclass(eq=False)
class RevealNotAllowed(StorageError):
    roll_id: int
    outside_campaigns: bool  # the roll was made where no campaign ran


@dataclass(eq=False)
class RollNotHidden(StorageError):
    roll_id: int


@dataclass(eq=False)
class RollAlreadyRevealed(StorageError):
    roll_id: int


@dataclass(eq=False)
class UnknownTrack(StorageError):
    name: str
    system_name: str
    known: tuple[str, ...]


@dataclass(eq=False)
class TrackOutOfRange(StorageError):
    name: str
    before: int
    delta: int
    minimum: int
    maximum: int


@dataclass(eq=False)
class CharacterNotFound(StorageError):
    user_id: int | None  # None: looked up by name alone
    name: str | None  # None: the player has no character at all
    system: System | None = None  # the campaign's: its create command is the next step


@dataclass(eq=False)
class WhichCharacter(StorageError):
    user_id: int | None
    names: tuple[str, ...]  # the player has several: say which


@dataclass(eq=False)
class CharacterNameTaken(StorageError):
    name: str


@dataclass(eq=False)
class TooManyCharacters(StorageError):
    user_id: int
    limit: int
    system: System | None = None  # the campaign's: its edit and delete commands are next steps


@dataclass(eq=False)
class CharacterGone(StorageError):
    """The character a prompt or button acted on was deleted meanwhile."""

    character_id: int


@dataclass(eq=False)
class CharacterAlreadyTheirs(StorageError):
    """A character given to the player who already has it."""

    name: str
    user_id: int
