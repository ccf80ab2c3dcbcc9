"""Cosmos Engine state: extended challenges, and rolls that count towards them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.storage.campaigns import Campaign
from bot.storage.database import ConstraintViolated, Database, Row, Session, utc_now
from bot.storage.errors import StorageError
from bot.storage.rolls import Change, RollEntry, insert_roll
from rules.cosmos import Challenge, ChallengeStatus
from rules.inputs import name_key
from rules.recap import EndedChallenge

__all__ = ["ChallengeNameTaken", "ChallengeNotFound", "ChallengeStore"]

_COLUMNS = "id, name, tn, successes_needed, max_rolls, successes, rolls_used, status"


def _challenge(row: Row) -> Challenge:
    return Challenge(
        name=row["name"],
        tn=row["tn"],
        successes_needed=row["successes_needed"],
        max_rolls=row["max_rolls"],
        successes=row["successes"],
        rolls_used=row["rolls_used"],
        status=ChallengeStatus(row["status"]),
    )


# A campaign's open challenges. Names compare NFKC and case folded (docs/players/index.md, "Names"),
# which SQL's lower() and NOCASE don't (ASCII only, in SQLite): in Python, here.
_OPEN_CHALLENGES = (
    f"SELECT {_COLUMNS} FROM cosmos_challenges WHERE campaign_id = ? AND status = 'open'"
    " ORDER BY id"
)


def _named(rows: list[Row], name: str) -> Row | None:
    """The first row whose challenge is called ``name``, as names are compared."""
    wanted = name_key(name)
    return next((row for row in rows if name_key(row["name"]) == wanted), None)


@dataclass(eq=False)
class ChallengeNotFound(StorageError):
    """No open challenge of the campaign has this name (``ended``: how the latest one of that
    name ended, when there was one)."""

    name: str
    ended: ChallengeStatus | None = None


@dataclass(eq=False)
class ChallengeNameTaken(StorageError):
    """A challenge of this name is open already."""

    name: str


_ENDED = (
    "SELECT name, status FROM cosmos_challenges WHERE campaign_id = ? AND status <> 'open'"
    " ORDER BY id DESC"
)


async def _found(connection: Session | Database, row: Row | None, campaign: Campaign,
                 name: str) -> Row:  # fmt: skip
    """The open challenge's row, or why there is none: never opened, or already over."""
    if row is None:
        ended = _named(await connection.fetch_all(_ENDED, (campaign.id,)), name)
        status = ChallengeStatus(ended["status"]) if ended is not None else None
        raise ChallengeNotFound(name.strip(), status)
    return row


async def _open_row(connection: Session, campaign: Campaign, name: str) -> Row:
    row = _named(await connection.fetch_all(_OPEN_CHALLENGES, (campaign.id,)), name)
    return await _found(connection, row, campaign, name)


async def _save(connection: Session, challenge_id: int, challenge: Challenge) -> None:
    await connection.execute(
        "UPDATE cosmos_challenges SET successes = ?, rolls_used = ?, status = ?, ended_at = ?"
        " WHERE id = ?",
        (
            challenge.successes,
            challenge.rolls_used,
            challenge.status.value,
            None if challenge.status is ChallengeStatus.OPEN else utc_now(),
            challenge_id,
        ),
    )


class ChallengeStore:
    """Named operations on a campaign's extended challenges; each is one transaction."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def open(self, campaign: Campaign, challenge: Challenge, opened_by: int) -> Challenge:
        """Open a new challenge; refuse a name already open in this campaign."""
        async with self._database.transaction() as connection:
            if _named(await connection.fetch_all(_OPEN_CHALLENGES, (campaign.id,)), challenge.name):
                raise ChallengeNameTaken(challenge.name)
            try:
                await connection.execute(
                    "INSERT INTO cosmos_challenges (campaign_id, name, tn, successes_needed,"
                    " max_rolls, opened_by) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        campaign.id,
                        challenge.name,
                        challenge.tn,
                        challenge.successes_needed,
                        challenge.max_rolls,
                        opened_by,
                    ),
                )
            except ConstraintViolated:
                raise ChallengeNameTaken(challenge.name) from None
        return challenge

    async def get_open(self, campaign: Campaign, name: str) -> Challenge:
        """Return the open challenge called ``name`` or explain that there is none."""
        row = _named(await self._database.fetch_all(_OPEN_CHALLENGES, (campaign.id,)), name)
        return _challenge(await _found(self._database, row, campaign, name))

    async def open_challenges(self, campaign: Campaign) -> list[Challenge]:
        """List the campaign's open challenges, oldest first."""
        rows = await self._database.fetch_all(_OPEN_CHALLENGES, (campaign.id,))
        return [_challenge(row) for row in rows]

    async def ended_since(self, campaign_id: int, since: str) -> list[EndedChallenge]:
        """The campaign's challenges won or lost at ``since`` (a stored time) or later."""
        rows = await self._database.fetch_all(
            "SELECT name, status, ended_at FROM cosmos_challenges WHERE campaign_id = ?"
            " AND status IN ('won', 'lost') AND ended_at >= ? ORDER BY id",
            (campaign_id, since),
        )
        return [
            EndedChallenge(row["name"], row["status"] == ChallengeStatus.WON.value, row["ended_at"])
            for row in rows
        ]

    async def count_roll(
        self,
        campaign: Campaign,
        name: str,
        advance: Callable[[Challenge], Challenge],
        log: Callable[[Challenge], RollEntry],
    ) -> Change[Challenge]:
        """Apply a roll to a challenge and log it, together or not at all.

        ``advance`` is the pure rule applied to the challenge as stored at this moment, so two
        rolls landing at once are both counted, one after the other; ``log`` builds the roll's
        log entry from the challenge after it.
        """
        async with self._database.transaction() as connection:
            row = await _open_row(connection, campaign, name)
            before = _challenge(row)
            after = advance(before)
            await _save(connection, row["id"], after)
            roll_id = await insert_roll(connection, log(after))
        return Change(before=before, after=after, roll_id=roll_id)

    async def change(
        self, campaign: Campaign, name: str, change: Callable[[Challenge], Challenge]
    ) -> Challenge:
        """Apply a rule (such as ending it early) to an open challenge and save it."""
        async with self._database.transaction() as connection:
            row = await _open_row(connection, campaign, name)
            after = change(_challenge(row))
            await _save(connection, row["id"], after)
        return after
