"""The roll log's store: logging, paging, revealing and reading back a campaign's rolls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.storage.database import Database, Row, Session, utc_now
from bot.storage.errors import (
    RevealNotAllowed,
    RollAlreadyRevealed,
    RollInAnotherServer,
    RollNotFound,
    RollNotHidden,
)
from bot.storage.rolls.entries import (
    _COLUMNS,
    _INSERT_ROLL,
    _PREVIOUS_PUBLIC_KIND,
    LoggedRoll,
    Recorded,
    Revealer,
    RollEntry,
    SessionStart,
    _from_row,
    _is_gm_of,
    _roll_values,
    _stored_time,
    latest_roll,
    mark_rolled,
    session_rows_sql,
    session_walk_sql,
)
from rules.recap import MAX_RECAP_ROLLS

__all__ = ["RollLog", "RollPage"]

_SESSION_PAGE = 500  # rows per step of the backwards walk to a session's start
_NEWEST = 2**63 - 1  # above every id: where the backwards walk begins


@dataclass(frozen=True, slots=True)
class RollPage:
    """A page of a campaign's roll log, newest first, and whether rolls lie beyond each end."""

    rolls: tuple[LoggedRoll, ...]
    older: bool
    newer: bool


@dataclass(frozen=True, slots=True)
class _HistoryQuery:
    """Which of a campaign's rolls an asker's log shows (``RollLog.history``)."""

    where: str
    parameters: tuple[int, ...]

    @classmethod
    def of(cls, campaign_id: int, *, user_id: int | None, include_secret: bool) -> _HistoryQuery:
        conditions, parameters = ["campaign_id = ?"], [campaign_id]
        if user_id is not None:
            conditions.append("user_id = ?")
            parameters.append(user_id)
        if not include_secret:
            conditions.append("(visibility = 'public' OR revealed_at IS NOT NULL)")
        return cls(" AND ".join(conditions), tuple(parameters))

    async def rolls(
        self,
        connection: Session,
        *,
        before: int | None = None,
        after: int | None = None,
        limit: int,
    ) -> list[LoggedRoll]:
        """Newest first: the ``limit`` newest before ``before``, or the oldest after ``after``."""
        conditions, parameters = [self.where], [*self.parameters]
        if before is not None:
            conditions.append("id < ?")
            parameters.append(before)
        if after is not None:
            conditions.append("id > ?")
            parameters.append(after)
        order = "DESC" if after is None else "ASC"
        rows = await connection.fetch_all(
            f"SELECT {_COLUMNS} FROM rolls WHERE {' AND '.join(conditions)}"
            f" ORDER BY id {order} LIMIT ?",
            (*parameters, limit),
        )
        rolls = [_from_row(row) for row in rows]
        return rolls if after is None else rolls[::-1]


class RollLog:
    """Named operations on the roll log."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def record(self, entry: RollEntry) -> int:
        """Log a roll (one INSERT, its own transaction) and return its id."""
        if entry.first_rolls:
            return (await self.record_noting_previous(entry)).id
        return await self._database.insert(_INSERT_ROLL, _roll_values(entry))

    async def record_noting_previous(self, entry: RollEntry) -> Recorded:
        """``record``, also saying what the roller's roll before it here was (in the same
        statement: a roll whose buttons act on the latest roll is retired only when needed).
        A character's first roll marks it rolled in the same transaction (``first_rolls``)."""
        if not entry.first_rolls:  # the usual case: in the group commit
            row = await self._database.insert_returning(
                _INSERT_ROLL, _roll_values(entry), _PREVIOUS_PUBLIC_KIND
            )
            return Recorded(int(row["id"]), row["previous_kind"])
        async with self._database.transaction() as connection:
            first = await connection.fetch_one(
                f"{_INSERT_ROLL} RETURNING id, {_PREVIOUS_PUBLIC_KIND}", _roll_values(entry)
            )
            assert first is not None
            await mark_rolled(connection, entry.first_rolls)
        return Recorded(int(first["id"]), first["previous_kind"])

    async def get(self, roll_id: int) -> LoggedRoll | None:
        """Return a logged roll by id."""
        row = await self._database.fetch_one(
            f"SELECT {_COLUMNS} FROM rolls WHERE id = ?", (roll_id,)
        )
        return None if row is None else _from_row(row)

    async def latest(
        self, channel_id: int, user_id: int, *, before: int | None = None
    ) -> LoggedRoll | None:
        """Return a user's latest roll in a channel (``before``: the latest before that roll)."""
        if before is None:
            return await latest_roll(self._database.reader, channel_id, user_id)
        row = await self._database.fetch_one(
            f"SELECT {_COLUMNS} FROM rolls WHERE channel_id = ? AND user_id = ? AND id < ?"
            " ORDER BY id DESC LIMIT 1",
            (channel_id, user_id, before),
        )
        return None if row is None else _from_row(row)

    async def set_message(self, roll_id: int, message_id: int) -> None:
        """Remember the public message that shows a roll, for what later edits it in place."""
        await self._database.set_by_id("rolls", "message_id", roll_id, message_id)

    async def history(
        self,
        campaign_id: int,
        *,
        before: int | None = None,
        after: int | None = None,
        user_id: int | None = None,
        include_secret: bool = False,
        limit: int = 10,
    ) -> list[LoggedRoll]:
        """Return a campaign's rolls, newest first: the newest older than ``before`` (an id),
        or with ``after`` the oldest newer than it (a page turned back towards the newest).

        Secret rolls not yet revealed only with ``include_secret`` (a GM's view).
        """
        query = _HistoryQuery.of(campaign_id, user_id=user_id, include_secret=include_secret)
        return await query.rolls(self._database.reader, before=before, after=after, limit=limit)

    async def page(
        self,
        campaign_id: int,
        *,
        before: int | None = None,
        after: int | None = None,
        user_id: int | None = None,
        include_secret: bool = False,
        limit: int = 10,
    ) -> RollPage:
        """Return a page of ``history`` and whether older and newer rolls lie beyond it (for
        the same asker: the same filters). A page is fixed by its boundary id, so rolls
        logged meanwhile don't shift it."""
        query = _HistoryQuery.of(campaign_id, user_id=user_id, include_secret=include_secret)
        reader = self._database.reader
        rolls = await query.rolls(reader, before=before, after=after, limit=limit + 1)
        beyond = len(rolls) > limit
        rolls = rolls[:limit] if after is None else rolls[-limit:]  # the ones next to the boundary
        if not rolls:
            return RollPage((), older=False, newer=False)
        if after is None:
            older, newer = beyond, bool(await query.rolls(reader, after=rolls[0].id, limit=1))
        else:
            older, newer = bool(await query.rolls(reader, before=rolls[-1].id, limit=1)), beyond
        return RollPage(tuple(rolls), older=older, newer=newer)

    async def session_rolls(
        self,
        campaign_id: int,
        start: SessionStart,
        *,
        include_secret: bool = False,
        limit: int = MAX_RECAP_ROLLS,
    ) -> list[LoggedRoll]:
        """Return a campaign's rolls of one session, oldest first: its latest ``limit`` rolls when
        it has more (docs/gms.md, "Campaign recap").

        Every read is a range of the (campaign_id, id) index, newest first, that stops after
        ``limit`` rows: the session's start after a pause is found by walking the campaign's
        ids backwards a page at a time, never the whole log. Secret rolls not yet revealed only
        with ``include_secret`` (a GM's view).
        """
        rows = await self._session_rows(campaign_id, start, include_secret, limit)
        return [_from_row(row) for row in reversed(rows)]

    async def session_texts(
        self,
        campaign_id: int,
        start: SessionStart,
        *,
        include_secret: bool = False,
        limit: int = MAX_RECAP_ROLLS,
    ) -> list[tuple[int, int, str, str, str]]:
        """``session_rolls``' rolls as (id, user id, kind, payload, created_at), the payload the
        log's JSON text: the recap decodes 2,000 of them (tens of milliseconds of JSON) in its
        worker process, off the event loop (docs/gms.md, "Campaign recap")."""
        rows = await self._session_rows(campaign_id, start, include_secret, limit)
        return [
            (int(row["id"]), int(row["user_id"]), str(row["kind"]), str(row["payload"]),
             str(row["created_at"]))
            for row in reversed(rows)
        ]  # fmt: skip

    async def _session_rows(
        self, campaign_id: int, start: SessionStart, include_secret: bool, limit: int
    ) -> list[Row]:
        """The session's rows, newest first (``session_rolls``)."""
        key: object = start.roll_id
        if start.at is not None:
            key = f"{start.at:%Y-%m-%dT%H:%M:%S}.{start.at.microsecond // 1000:03d}Z"
        elif key is None:
            key = await self._session_start(campaign_id, start.pause, limit, include_secret)
            if key is None:
                return []
        sql = session_rows_sql(by_time=start.at is not None, include_secret=include_secret)
        return await self._database.fetch_all(sql, (campaign_id, key, limit))

    async def _session_start(
        self, campaign_id: int, pause: timedelta, limit: int, include_secret: bool
    ) -> int | None:
        """Return the id of the session's first roll, or of the ``limit``-th newest (None: the
        campaign has no roll). Only the rolls the recap counts make or break a pause, so a
        player's recap says nothing of when secret rolls were made."""
        walk = session_walk_sql(include_secret=include_secret)
        first: int | None = None
        newer: datetime | None = None
        before, seen = _NEWEST, 0
        while seen < limit:
            rows = await self._database.fetch_all(
                walk, (campaign_id, before, min(_SESSION_PAGE, limit - seen))
            )
            for row in rows:
                made = _stored_time(row["created_at"])
                if newer is not None and newer - made >= pause:
                    return first
                first, newer = int(row["id"]), made
            if not rows:
                break
            seen += len(rows)
            before = int(rows[-1]["id"])
        return first

    async def unrevealed(
        self, *, campaign_id: int | None, channel_id: int, limit: int = 25
    ) -> list[LoggedRoll]:
        """Return the secret rolls not yet revealed, newest first: a campaign's, or (no
        campaign) those made outside any campaign in a channel."""
        if campaign_id is not None:
            where, key = "campaign_id = ?", campaign_id
        else:
            where, key = "campaign_id IS NULL AND channel_id = ?", channel_id
        rows = await self._database.fetch_all(
            f"SELECT {_COLUMNS} FROM rolls WHERE {where} AND visibility <> 'public'"
            " AND revealed_at IS NULL ORDER BY id DESC LIMIT ?",
            (key, limit),
        )
        return [_from_row(row) for row in rows]

    async def reveal(
        self,
        roll_id: int,
        by: Revealer,
        *,
        before: Callable[[LoggedRoll], None] = lambda roll: None,
    ) -> LoggedRoll:
        """Mark a secret roll revealed and return it; refuse anything else.

        Decided in the roll's own server and campaign: a GM of the campaign the roll was made
        in (a later campaign in the same channel has other GMs), or a member with Manage Server
        in the roll's server; a roll made outside any campaign, only the latter. Asked from
        another server, the roll is as good as absent (RollInAnotherServer). ``before`` runs
        once the asker may reveal it and before it is marked: raising there refuses it too.
        """
        async with self._database.transaction() as connection:
            row = await connection.fetch_one(
                f"SELECT {_COLUMNS} FROM rolls WHERE id = ?", (roll_id,)
            )
            if row is None:
                raise RollNotFound(roll_id)
            roll = _from_row(row)
            if roll.guild_id is None or roll.guild_id != by.guild_id:
                raise RollInAnotherServer(roll_id)
            if not by.manages_server and not await _is_gm_of(
                connection, roll.campaign_id, by.user_id
            ):
                raise RevealNotAllowed(roll_id, outside_campaigns=roll.campaign_id is None)
            if not roll.visibility.secret:
                raise RollNotHidden(roll_id)
            if roll.revealed_at is not None:
                raise RollAlreadyRevealed(roll_id)
            before(roll)
            revealed = await connection.fetch_one(
                "UPDATE rolls SET revealed_at = ? WHERE id = ? RETURNING revealed_at",
                (utc_now(), roll_id),
            )
        assert revealed is not None
        return replace(roll, revealed_at=revealed["revealed_at"])
