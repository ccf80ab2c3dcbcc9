"""What a logged roll is, and how one is read and written inside a caller's transaction
(the roll log's records, SQL and JSON encoding).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Generic, TypeVar

import orjson

from bot.storage.database import Row, Session
from rules.recap import SESSION_PAUSE
from rules.roll_kinds import EMBED, OPTIONS, RESULT, kind_named

__all__ = [
    "ROLLER_CHARACTER",
    "Change",
    "LoggedRoll",
    "Recorded",
    "Revealer",
    "RollEntry",
    "SessionStart",
    "Visibility",
    "insert_roll",
    "latest_roll",
    "mark_rolled",
    "roll_in",
    "session_rows_sql",
    "session_walk_sql",
]

# In a roll's payload: the id of the character who rolled it, when one did (its name may change:
# the id finds it still, docs/players/sinew.md, "Characters forgive mistakes").
ROLLER_CHARACTER = "character_id"


class Visibility(Enum):
    """Who sees a roll until it is revealed: one value, stored with the roll and inherited by
    everything derived from it (a reroll, a Luck spend, Roll again)."""

    PUBLIC = "public"  # everyone sees it now
    HIDDEN = "hidden"  # a GM's own secret: the GM sees it; the table when revealed
    BLIND = "blind"  # a player's secret: the GMs see it; the roller too only when revealed

    @property
    def secret(self) -> bool:
        """Whether the table doesn't see it (until a GM reveals it)."""
        return self is not Visibility.PUBLIC


@dataclass(frozen=True, slots=True)
class Revealer:
    """Who asks to reveal a roll, and where: reveal is decided in the roll's own server."""

    guild_id: int | None
    user_id: int
    manages_server: bool  # Manage Server in ``guild_id``


@dataclass(frozen=True, slots=True)
class LoggedRoll:
    """One logged roll; ``payload`` holds the result and its rendering as JSON-ready data."""

    id: int
    campaign_id: int | None
    channel_id: int
    user_id: int
    kind: str
    visibility: Visibility
    payload: dict[str, Any]
    created_at: str
    revealed_at: str | None
    guild_id: int | None = None
    message_id: int | None = None  # the public message showing it (``RollLog.set_message``)

    @property
    def unrevealed(self) -> bool:
        """Whether the table doesn't see it yet: a secret roll not revealed."""
        return self.visibility.secret and self.revealed_at is None

    @property
    def result(self) -> object:
        """The rules result it logged, as stored (``dataclasses.asdict`` of it)."""
        return self.payload.get(RESULT)

    @property
    def options(self) -> dict[str, Any]:
        """The options it was rolled with: what Roll again repeats."""
        options = self.payload.get(OPTIONS)
        return options if isinstance(options, dict) else {}

    @property
    def embed_data(self) -> dict[str, Any]:
        """Its reply as posted (``discord.Embed.to_dict``): shown again by a reveal, a Luck
        spend or a reroll."""
        embed = self.payload.get(EMBED)
        return embed if isinstance(embed, dict) else {}

    def decoded(self) -> Any:
        """Its rules result, rebuilt by its kind as its system declares it (``rules.roll_kinds``):
        what a Luck spend, a reroll or Roll again builds on.

        Raises:
            LookupError: No installed system declares its kind, or its result can't be read.
        """
        kind = kind_named(self.kind)
        result = None if kind is None else kind.result_of(self.result)
        if result is None:
            raise LookupError(f"roll #{self.id} ({self.kind}) can't be read")
        return result


_COLUMNS = (
    "id, campaign_id, guild_id, channel_id, user_id, kind, visibility, payload, created_at,"
    " revealed_at, message_id"
)


def _from_row(row: Row) -> LoggedRoll:
    return LoggedRoll(
        id=row["id"],
        campaign_id=row["campaign_id"],
        channel_id=row["channel_id"],
        user_id=row["user_id"],
        kind=row["kind"],
        visibility=Visibility(row["visibility"]),
        payload=json.loads(row["payload"]),
        created_at=row["created_at"],
        revealed_at=row["revealed_at"],
        guild_id=row["guild_id"],
        message_id=row["message_id"],
    )


S = TypeVar("S")

# Both read one campaign's range of the (campaign_id, id) index (0016_log37_roll_log_index).
_SEEN_BY_TABLE = " AND (visibility = 'public' OR revealed_at IS NOT NULL)"


def session_walk_sql(*, include_secret: bool) -> str:
    """A page of the walk back to a session's start: ids and times, newest first."""
    secret = "" if include_secret else _SEEN_BY_TABLE
    return (
        f"SELECT id, created_at FROM rolls WHERE campaign_id = ? AND id < ?{secret}"
        " ORDER BY id DESC LIMIT ?"
    )


def session_rows_sql(*, by_time: bool, include_secret: bool) -> str:
    """The latest rows of a session (newest first, at most a limit), from an id or a time."""
    start = "created_at >= ?" if by_time else "id >= ?"
    secret = "" if include_secret else _SEEN_BY_TABLE
    return (
        f"SELECT {_COLUMNS} FROM rolls WHERE campaign_id = ? AND {start}{secret}"
        " ORDER BY id DESC LIMIT ?"
    )


@dataclass(frozen=True, slots=True)
class SessionStart:
    """Where a session starts: at a roll id, at a time (UTC, as stored), or (neither) after
    the last pause of at least ``pause`` between two rolls of the campaign."""

    roll_id: int | None = None
    at: datetime | None = None  # aware, UTC
    pause: timedelta = SESSION_PAUSE


def _stored_time(text: str) -> datetime:
    return datetime.fromisoformat(text)


@dataclass(frozen=True, slots=True)
class Change(Generic[S]):
    """A state before and after one operation, and the roll logged with it (if any)."""

    before: S
    after: S
    roll_id: int | None = None


@dataclass(frozen=True, slots=True)
class RollEntry:
    """A roll about to be logged."""

    campaign_id: int | None
    guild_id: int | None
    channel_id: int
    user_id: int
    kind: str
    visibility: Visibility
    payload: dict[str, Any]
    first_rolls: tuple[int, ...] = ()  # characters it is the first roll of: see ``mark_rolled``


_INSERT_ROLL = (
    "INSERT INTO rolls (campaign_id, guild_id, channel_id, user_id, kind, visibility, payload)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)


# The kind of the roller's roll before the new one in its channel, when that one is public (a
# subquery of the INSERT's RETURNING, on the rolls_latest_by_user index: no read after it).
_PREVIOUS_PUBLIC_KIND = (
    "(SELECT CASE WHEN p.visibility = 'public' THEN p.kind END FROM rolls AS p"
    " WHERE p.channel_id = rolls.channel_id AND p.user_id = rolls.user_id AND p.id < rolls.id"
    " ORDER BY p.id DESC LIMIT 1) AS previous_kind"
)


@dataclass(frozen=True, slots=True)
class Recorded:
    """A roll just logged: its id, and the kind of its roller's roll before it in the same
    channel when that one is public (None: there is none, or it is secret)."""

    id: int
    previous_kind: str | None


def _roll_values(entry: RollEntry) -> tuple[object, ...]:
    return (
        entry.campaign_id,
        entry.guild_id,
        entry.channel_id,
        entry.user_id,
        entry.kind,
        entry.visibility.value,
        _payload_json(entry.payload),
    )


def _payload_json(payload: dict[str, Any]) -> str:
    """A roll's payload as the JSON text the log stores.

    orjson (~6x json's speed on a roll's payload): the same JSON values as json.dumps, non-ASCII
    written as UTF-8 rather than \\u escapes; int keys as strings, as json does. A total past 64
    bits (`/roll 10000000000*10000000000`: docs/players/dice.md, "Limits"), which orjson refuses, is
    written by json as the same values, the number with all its digits: JSON numbers have no size
    limit, and ``json.loads`` reads it back as the same int.
    """
    try:
        return orjson.dumps(
            payload,
            default=_json_default,
            option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS,
        ).decode()
    except orjson.JSONEncodeError as error:
        if "64-bit" not in str(error):
            raise
    return json.dumps(_plain(payload), ensure_ascii=False, separators=(",", ":"))


def _plain(value: object) -> object:
    """``value`` as the JSON-ready data orjson writes of it (``_payload_json``'s options): for
    json, which neither takes an enum key nor writes a float that isn't finite as null."""
    if isinstance(value, dict):
        return {
            (key.value if isinstance(key, Enum) else key): _plain(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Enum):
        return _plain(value.value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float):
        return value
    return _plain(_json_default(value))


async def latest_roll(connection: Session, channel_id: int, user_id: int) -> LoggedRoll | None:
    """Return a user's latest roll in a channel, inside the caller's transaction."""
    row = await connection.fetch_one(
        f"SELECT {_COLUMNS} FROM rolls WHERE channel_id = ? AND user_id = ?"
        " ORDER BY id DESC LIMIT 1",
        (channel_id, user_id),
    )
    return None if row is None else _from_row(row)


async def roll_in(connection: Session, roll_id: int) -> LoggedRoll | None:
    """Return a logged roll by id, inside the caller's transaction."""
    row = await connection.fetch_one(f"SELECT {_COLUMNS} FROM rolls WHERE id = ?", (roll_id,))
    return None if row is None else _from_row(row)


async def insert_roll(connection: Session, entry: RollEntry) -> int:
    """Log a roll inside the caller's transaction, so a state change and its roll land together
    (and ``first_rolls`` are marked rolled with it)."""
    row = await connection.fetch_one(f"{_INSERT_ROLL} RETURNING id", _roll_values(entry))
    assert row is not None
    await mark_rolled(connection, entry.first_rolls)
    return int(row["id"])


async def mark_rolled(connection: Session, character_ids: tuple[int, ...]) -> None:
    """Mark characters rolled in the transaction logging the roll: from then on a GM edits their
    sheets (docs/players/sinew.md, "Characters forgive mistakes"). One deleted is not there."""
    for character_id in sorted(set(character_ids)):
        await connection.execute("UPDATE characters SET rolled = 1 WHERE id = ?", (character_id,))


def _json_default(value: object) -> object:
    # Rules results are dataclasses of plain values and enums; store an enum as its value (orjson
    # does so itself) and a named tuple as a list (as json.dumps did; orjson leaves it to us).
    # A dataclass (a payload may hold a rules result as it is) becomes the dict of its fields,
    # as ``dataclasses.asdict`` gives it (orjson's own would skip fields named with a `_`).
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {name: getattr(value, name) for name in _field_names(type(value))}
    raise TypeError(f"{type(value).__name__} can't be stored in the roll log")


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(each.name for each in fields(kind))


async def _is_gm_of(connection: Session, campaign_id: int | None, user_id: int) -> bool:
    if campaign_id is None:
        return False
    row = await connection.fetch_one(
        "SELECT 1 FROM campaign_gms WHERE campaign_id = ? AND user_id = ?",
        (campaign_id, user_id),
    )
    return row is not None
