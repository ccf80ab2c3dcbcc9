"""Six-pool d20 state beyond characters: contests waiting for the defender's declaration, group
checks, inspiration's rerolls, and the campaign's trained-only skills."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from bot.storage.campaigns import Campaign
from bot.storage.characters import Character, UsesCharacters
from bot.storage.database import Database, Row, Session
from bot.storage.errors import StorageError
from bot.storage.rolls import LoggedRoll, RollEntry, insert_roll, latest_roll, roll_in

S = TypeVar("S")  # the system's sheet

__all__ = [
    "CONTEST_ID_OPTION",
    "AlreadyRolled",
    "BoostTooLate",
    "Contest",
    "ContestClosed",
    "ContestNotFound",
    "ContestOutcome",
    "ContestStore",
    "ContestTerms",
    "GroupCheck",
    "GroupClosed",
    "GroupNotFound",
    "GroupRoll",
    "GroupRollOutcome",
    "GroupStore",
    "NotLatestRoll",
    "RerollOutcome",
    "RerollStore",
    "Rerolled",
    "TrainedOnlyStore",
]


@dataclass(frozen=True, slots=True)
class Contest:
    """A contest against another player's character, as stored: a character's challenge, or
    a GM's as an NPC (``challenger_id`` and ``pool`` None, ``npc_modifier`` its total)."""

    id: int
    campaign_id: int
    channel_id: int
    challenger_id: int | None
    defender_id: int
    pool: str | None
    defender_pool: str
    spend: int
    advantage: bool
    disadvantage: bool
    status: str  # pending, resolved, expired
    expires_at: float
    message_id: int | None
    skill: str | None = None  # the skill each side names (its training counts), if any
    defender_skill: str | None = None
    npc_modifier: int | None = None
    inspiration: bool = False  # the challenger spends inspiration for advantage
    roll_id: int | None = None  # once rolled: the roll holding its result now


@dataclass(eq=False)
class ContestNotFound(StorageError):
    contest_id: int


@dataclass(eq=False)
class ContestClosed(StorageError):
    """The contest was resolved or expired already (``status`` says which)."""

    contest_id: int
    status: str


_COLUMNS = (
    "id, campaign_id, channel_id, challenger_id, defender_id, pool, defender_pool, spend,"
    " advantage, disadvantage, status, expires_at, message_id, skill, defender_skill,"
    " npc_modifier, inspiration, roll_id"
)


def _contest(row: Row) -> Contest:
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (a Row iterates values)
    values.update(advantage=bool(row["advantage"]), disadvantage=bool(row["disadvantage"]),
                  inspiration=bool(row["inspiration"]))  # fmt: skip
    return Contest(**values)


@dataclass(frozen=True, slots=True)
class ContestOutcome(Generic[S]):
    """What resolving a contest writes: both sheets after their spends (an NPC's: None), and
    its rolls, one per player's side: ``first`` (the challenger's, or the defender's alone
    against an NPC), then ``linked``, the defender's, given the first one's id to name it."""

    challenger_sheet: S | None
    defender_sheet: S
    first: RollEntry
    linked: Callable[[int], RollEntry] | None = None


@dataclass(frozen=True, slots=True)
class ContestTerms:
    """What a challenge stores until the defender declares (docs/players/sixpool.md, "Rules
    notes")."""

    pool: str | None
    defender_pool: str
    spend: int = 0
    advantage: bool = False
    disadvantage: bool = False
    skill: str | None = None
    defender_skill: str | None = None
    npc_modifier: int | None = None
    inspiration: bool = False


class ContestStore(UsesCharacters[S]):
    """Open contests, and resolve each one exactly once in one transaction."""

    async def open(
        self,
        campaign: Campaign,
        channel_id: int,
        challenger: Character[S] | None,
        defender: Character[S],
        asked: ContestTerms,
        expires_at: float,
    ) -> Contest:
        """Store a challenge (``challenger`` None: a GM's as an NPC) until the defender
        declares."""
        async with self._database.transaction() as connection:
            created = await connection.fetch_one(
                "INSERT INTO sixpool_contests (campaign_id, channel_id, challenger_id,"
                " defender_id, pool, defender_pool, spend, advantage, disadvantage, expires_at,"
                " skill, defender_skill, npc_modifier, inspiration)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    campaign.id,
                    channel_id,
                    None if challenger is None else challenger.id,
                    defender.id,
                    asked.pool,
                    asked.defender_pool,
                    asked.spend,
                    int(asked.advantage),
                    int(asked.disadvantage),
                    expires_at,
                    asked.skill,
                    asked.defender_skill,
                    asked.npc_modifier,
                    int(asked.inspiration),
                ),
            )
            assert created is not None
            return await self._get(connection, created["id"])

    async def _get(self, connection: Session, contest_id: int) -> Contest:
        row = await connection.fetch_one(
            f"SELECT {_COLUMNS} FROM sixpool_contests WHERE id = ?", (contest_id,)
        )
        if row is None:
            raise ContestNotFound(contest_id)
        return _contest(row)

    async def get(self, contest_id: int) -> Contest:
        return await self._get(self._database.reader, contest_id)

    async def set_message(self, contest_id: int, message_id: int) -> None:
        async with self._database.transaction() as connection:
            await connection.execute(
                "UPDATE sixpool_contests SET message_id = ? WHERE id = ?", (message_id, contest_id)
            )

    async def expire(self, contest_id: int, now: float) -> bool:
        """Mark a pending contest past its time as expired; return whether this call did."""
        async with self._database.transaction() as connection:
            expired = await connection.execute(
                "UPDATE sixpool_contests SET status = 'expired'"
                " WHERE id = ? AND status = 'pending' AND expires_at <= ?",
                (contest_id, now),
            )
            return expired == 1

    async def resolve(
        self,
        contest_id: int,
        now: float,
        decide: Callable[[Contest, Character[S] | None, Character[S]], ContestOutcome[S]],
    ) -> tuple[Contest, tuple[int, ...]]:
        """Resolve a pending contest: ``decide`` spends and rolls; all is written at once, and
        the ids of its rolls (one per player's side) are returned.

        Raises ContestClosed when it was resolved or expired already (a second press, a race,
        or too late: then it is marked expired and nothing is spent).
        """
        async with self._database.transaction() as connection:
            contest = await self._get(connection, contest_id)
            if contest.status == "pending" and contest.expires_at <= now:
                await connection.execute(
                    "UPDATE sixpool_contests SET status = 'expired' WHERE id = ?", (contest_id,)
                )
                contest = replace(contest, status="expired")
            if contest.status != "pending":
                raise ContestClosed(contest_id, contest.status)
            challenger = None
            if contest.challenger_id is not None:
                challenger = await self._characters.by_id_in(connection, contest.challenger_id)
            defender = await self._characters.by_id_in(connection, contest.defender_id)
            outcome = decide(contest, challenger, defender)
            if challenger is not None and outcome.challenger_sheet is not None:
                challenged = replace(challenger, sheet=outcome.challenger_sheet)
                await self._characters.save_in(connection, challenged)
            await self._characters.save_in(
                connection, replace(defender, sheet=outcome.defender_sheet)
            )
            roll_ids = [await insert_roll(connection, outcome.first)]
            if outcome.linked is not None:
                roll_ids.append(await insert_roll(connection, outcome.linked(roll_ids[0])))
            await connection.execute(
                "UPDATE sixpool_contests SET status = 'resolved', roll_id = ? WHERE id = ?",
                (roll_ids[0], contest_id),
            )
        return replace(contest, status="resolved", roll_id=roll_ids[0]), tuple(roll_ids)


@dataclass(frozen=True, slots=True)
class GroupRoll:
    """One participant's roll in a group check."""

    character_id: int
    name: str
    roll_id: int
    total: int
    success: bool


@dataclass(frozen=True, slots=True)
class GroupCheck:
    """A group check as stored, with the rolls made so far (in the order made)."""

    id: int
    campaign_id: int
    channel_id: int
    dc: int
    pool: str
    skill: str | None
    status: str  # open, closed
    expires_at: float
    message_id: int | None
    leader_id: int | None
    boosted_id: int | None
    boost: int
    rolls: tuple[GroupRoll, ...] = ()


@dataclass(eq=False)
class GroupNotFound(StorageError):
    """No group check with this id (or none open in the channel)."""

    group_id: int | None


@dataclass(eq=False)
class GroupClosed(StorageError):
    group_id: int


@dataclass(eq=False)
class AlreadyRolled(StorageError):
    """This character has rolled in this group check already."""

    name: str


@dataclass(eq=False)
class BoostTooLate(StorageError):
    """A leader's boost comes before any die is rolled, and only once."""

    group_id: int
    rolled: bool  # False: a leader boosted already


_GROUP_COLUMNS = (
    "id, campaign_id, channel_id, dc, pool, skill, status, expires_at, message_id, leader_id,"
    " boosted_id, boost"
)


@dataclass(frozen=True, slots=True)
class GroupRollOutcome(Generic[S]):
    """What a participant's roll writes: their sheet after spending, the roll, its result."""

    sheet: S
    entry: RollEntry
    total: int
    success: bool


def _group_roll(row: Row) -> GroupRoll:
    return GroupRoll(
        row["character_id"], row["name"], row["roll_id"], row["total"], bool(row["success"])
    )


async def _group_in(connection: Session, group_id: int) -> GroupCheck:
    """A group check with its rolls, on the caller's connection."""
    row = await connection.fetch_one(
        f"SELECT {_GROUP_COLUMNS} FROM sixpool_groups WHERE id = ?", (group_id,)
    )
    if row is None:
        raise GroupNotFound(group_id)
    rolls = await connection.fetch_all(
        "SELECT character_id, name, roll_id, total, success FROM sixpool_group_rolls"
        " WHERE group_id = ? ORDER BY roll_id",
        (group_id,),
    )
    values = {key: row[key] for key in row.keys()}  # noqa: SIM118 (a Row iterates values)
    return GroupCheck(**values, rolls=tuple(_group_roll(r) for r in rolls))


class GroupStore(UsesCharacters[S]):
    """Group checks: open one, boost once before any roll, each character rolls once, close."""

    async def open(
        self,
        campaign: Campaign,
        channel_id: int,
        *,
        dc: int,
        pool: str,
        skill: str | None,
        expires_at: float,
    ) -> GroupCheck:
        async with self._database.transaction() as connection:
            created = await connection.fetch_one(
                "INSERT INTO sixpool_groups (campaign_id, channel_id, dc, pool, skill, expires_at)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (campaign.id, channel_id, dc, pool, skill, expires_at),
            )
            assert created is not None
            return await self._get(connection, created["id"])

    async def _get(self, connection: Session, group_id: int) -> GroupCheck:
        return await _group_in(connection, group_id)

    async def get(self, group_id: int) -> GroupCheck:
        return await self._get(self._database.reader, group_id)

    async def open_in(self, campaign: Campaign, channel_id: int) -> GroupCheck:
        """Return the newest open group check of the channel, or GroupNotFound."""
        row = await self._database.reader.fetch_one(
            "SELECT id FROM sixpool_groups WHERE campaign_id = ? AND channel_id = ?"
            " AND status = 'open' ORDER BY id DESC LIMIT 1",
            (campaign.id, channel_id),
        )
        if row is None:
            raise GroupNotFound(None)
        return await self.get(row["id"])

    async def set_message(self, group_id: int, message_id: int) -> None:
        async with self._database.transaction() as connection:
            await connection.execute(
                "UPDATE sixpool_groups SET message_id = ? WHERE id = ?", (message_id, group_id)
            )

    async def _open_for_change(self, connection: Session, group_id: int, now: float) -> GroupCheck:
        group = await self._get(connection, group_id)
        if group.status != "open" or group.expires_at <= now:
            raise GroupClosed(group_id)
        return group

    async def boost(
        self,
        group_id: int,
        now: float,
        leader: Character[S],
        ally: Character[S],
        points: int,
        pay: Callable[[S], S],
    ) -> GroupCheck:
        """Record the leader's boost and take its points (``pay``), before any roll, once."""
        async with self._database.transaction() as connection:
            group = await self._open_for_change(connection, group_id, now)
            if group.rolls or group.leader_id is not None:
                raise BoostTooLate(group_id, rolled=bool(group.rolls))
            current = await self._characters.by_id_in(connection, leader.id)
            await self._characters.save_in(connection, replace(current, sheet=pay(current.sheet)))
            await connection.execute(
                "UPDATE sixpool_groups SET leader_id = ?, boosted_id = ?, boost = ? WHERE id = ?",
                (leader.id, ally.id, points, group_id),
            )
            return await self._get(connection, group_id)

    async def roll(
        self,
        group_id: int,
        now: float,
        character: Character[S],
        decide: Callable[[GroupCheck, Character[S]], GroupRollOutcome[S]],
    ) -> tuple[GroupCheck, int]:
        """One participant's roll: spend, roll and count it once, in one transaction."""
        async with self._database.transaction() as connection:
            group = await self._open_for_change(connection, group_id, now)
            if any(roll.character_id == character.id for roll in group.rolls):
                raise AlreadyRolled(character.name)
            current = await self._characters.by_id_in(connection, character.id)
            outcome = decide(group, current)
            await self._characters.save_in(connection, replace(current, sheet=outcome.sheet))
            roll_id = await insert_roll(connection, outcome.entry)
            await connection.execute(
                "INSERT INTO sixpool_group_rolls (group_id, character_id, name, roll_id, total,"
                " success) VALUES (?, ?, ?, ?, ?, ?)",
                (group_id, current.id, current.name, roll_id, outcome.total, int(outcome.success)),
            )
            return await self._get(connection, group_id), roll_id

    async def close(self, group_id: int) -> tuple[GroupCheck, bool]:
        """Close a group check; return it and whether this call closed it (not a second)."""
        async with self._database.transaction() as connection:
            closed = await connection.execute(
                "UPDATE sixpool_groups SET status = 'closed' WHERE id = ? AND status = 'open'",
                (group_id,),
            )
            return await self._get(connection, group_id), closed == 1


@dataclass(eq=False)
class NotLatestRoll(StorageError):
    """Inspiration rerolls a die of the roller's latest roll here; this one is not (or is not
    theirs)."""

    roll_id: int
    owner_id: int | None  # who made it (None: no such roll)


@dataclass(frozen=True, slots=True)
class Rerolled(Generic[S]):
    """What an inspiration reroll writes: the sheet after it, the new roll, and the new roll's
    total and success (a group check counting the roll counts them instead)."""

    sheet: S
    entry: RollEntry
    total: int
    success: bool


@dataclass(frozen=True, slots=True)
class RerollOutcome:
    """An inspiration reroll logged: the new roll's id, and the group check counting it (its
    count updated), if any."""

    roll_id: int
    group: GroupCheck | None = None


# In a contest roll's options: the stored contest it settled (against a player, or a GM's NPC).
CONTEST_ID_OPTION = "contest_id"


class RerollStore(UsesCharacters[S]):
    """Spend inspiration to reroll one die of the roller's latest roll, in one transaction."""

    async def reroll(
        self,
        campaign: Campaign,
        channel_id: int,
        user_id: int,
        roll_id: int,
        now: float,
        apply: Callable[[LoggedRoll, LoggedRoll, Character[S]], Rerolled[S]],
    ) -> RerollOutcome:
        """``apply(roll, current, character)`` → what the reroll writes; return its outcome.

        The roll must be the user's latest in the channel (a reroll replaces it, so a second
        press finds a newer roll); the character is the one it named, else the user's own.
        ``current`` holds the roll's result now: the roll itself, or for a stored contest the
        roll its last reroll logged (either side's), which the new roll then replaces. A roll
        a group check counts is counted anew, while the check is open (else GroupClosed).
        """
        async with self._database.transaction() as connection:
            latest = await latest_roll(connection, channel_id, user_id)
            if latest is None or latest.id != roll_id or latest.campaign_id != campaign.id:
                row = await connection.fetch_one(
                    "SELECT user_id FROM rolls WHERE id = ?", (roll_id,)
                )
                raise NotLatestRoll(roll_id, None if row is None else row["user_id"])
            options = latest.options
            contest_id = options.get(CONTEST_ID_OPTION)
            contest_id = contest_id if isinstance(contest_id, int) else None
            current = await _contest_now(connection, contest_id) or latest
            counted = await _counting_group(connection, latest.id, now)
            before = await self._characters.roller_in(connection, campaign, user_id, latest.payload)
            rerolled = apply(latest, current, before)
            await self._characters.save_in(connection, replace(before, sheet=rerolled.sheet))
            new_id = await insert_roll(connection, rerolled.entry)
            return await _replaced(connection, (latest.id, new_id), contest_id, counted, rerolled)


async def _replaced(
    connection: Session,
    rolls: tuple[int, int],
    contest_id: int | None,
    counted: int | None,
    rerolled: Rerolled[S],
) -> RerollOutcome:
    """The new roll ``rolls[1]`` replaces ``rolls[0]``: as the stored contest's result now, and
    in the group check's count."""
    old_id, new_id = rolls
    if contest_id is not None:
        await connection.execute(
            "UPDATE sixpool_contests SET roll_id = ? WHERE id = ?", (new_id, contest_id)
        )
    if counted is None:
        return RerollOutcome(new_id)
    await connection.execute(
        "UPDATE sixpool_group_rolls SET roll_id = ?, total = ?, success = ? WHERE roll_id = ?",
        (new_id, rerolled.total, int(rerolled.success), old_id),
    )
    return RerollOutcome(new_id, await _group_in(connection, counted))


async def _contest_now(connection: Session, contest_id: int | None) -> LoggedRoll | None:
    """The roll holding a stored contest's result now (None: no such contest, or an older one
    that never kept it)."""
    if contest_id is None:
        return None
    row = await connection.fetch_one(
        "SELECT roll_id FROM sixpool_contests WHERE id = ?", (contest_id,)
    )
    if row is None or row["roll_id"] is None:
        return None
    return await roll_in(connection, row["roll_id"])


async def _counting_group(connection: Session, roll_id: int, now: float) -> int | None:
    """The group check counting roll ``roll_id``, if any; refuse if it is closed (its result
    is final)."""
    row = await connection.fetch_one(
        "SELECT g.id, g.status, g.expires_at FROM sixpool_group_rolls AS r"
        " JOIN sixpool_groups AS g ON g.id = r.group_id WHERE r.roll_id = ?",
        (roll_id,),
    )
    if row is None:
        return None
    if row["status"] != "open" or row["expires_at"] <= now:
        raise GroupClosed(row["id"])
    return int(row["id"])


class TrainedOnlyStore:
    """The skills a campaign's GM lists as trained-only (none by default), by normalised name."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def skills(self, campaign: Campaign) -> frozenset[str]:
        """Return the campaign's trained-only skills."""
        return await self._skills(self._database.reader, campaign)

    @staticmethod
    async def _skills(connection: Session, campaign: Campaign) -> frozenset[str]:
        rows = await connection.fetch_all(
            "SELECT skill FROM sixpool_trained_only WHERE campaign_id = ?", (campaign.id,)
        )
        return frozenset(row["skill"] for row in rows)

    async def set(self, campaign: Campaign, skill: str, trained_only: bool) -> frozenset[str]:
        """List ``skill`` as trained-only (or take it off the list); return the list after."""
        async with self._database.transaction() as connection:
            if trained_only:
                await connection.execute(
                    "INSERT INTO sixpool_trained_only (campaign_id, skill) VALUES (?, ?)"
                    " ON CONFLICT DO NOTHING",
                    (campaign.id, skill),
                )
            else:
                await connection.execute(
                    "DELETE FROM sixpool_trained_only WHERE campaign_id = ? AND skill = ?",
                    (campaign.id, skill),
                )
            return await self._skills(connection, campaign)
