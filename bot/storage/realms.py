"""Enchanted Realms state: the traits a GM gives (the reroll), and rerolling one die of the
roller's latest roll, once (docs/players/realms.md, "Rules notes")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.campaigns import Campaign
from bot.storage.database import Database, Session
from bot.storage.errors import CampaignEnded, StorageError
from bot.storage.rolls import LoggedRoll, RollEntry, insert_roll, latest_roll
from rules.realms import Trait

__all__ = [
    "AlreadyRerolled",
    "NoRollToReroll",
    "NotLatestRoll",
    "RerollLog",
    "RerollPermit",
    "TraitAlreadyHeld",
    "TraitNotHeld",
    "TraitStore",
]

# In the payload of a reroll: the id of the roll it replaced (a reroll can't be rerolled).
REROLLED_FROM = "rerolled_from"


@dataclass(eq=False)
class NoRollToReroll(StorageError):
    """The user's latest roll in the channel is not an Enchanted Realms roll."""


@dataclass(eq=False)
class AlreadyRerolled(StorageError):
    """The latest roll is a reroll already: once per roll."""

    roll_id: int


@dataclass(eq=False)
class NotLatestRoll(StorageError):
    """A die button under a roll that is no longer the presser's latest here (or not theirs)."""

    roll_id: int
    owner_id: int | None  # who made it (None: no such roll)


@dataclass(eq=False)
class TraitAlreadyHeld(StorageError):
    """`/realms trait add` of a trait the user holds already: nothing changed."""

    user_id: int
    trait: Trait


@dataclass(eq=False)
class TraitNotHeld(StorageError):
    """`/realms trait remove` of a trait the user doesn't hold: nothing changed."""

    user_id: int
    trait: Trait


async def _holds(connection: Session, campaign_id: int, user_id: int, trait: Trait) -> bool:
    row = await connection.fetch_one(
        "SELECT 1 FROM realms_traits WHERE campaign_id = ? AND user_id = ? AND trait = ?",
        (campaign_id, user_id, trait.value),
    )
    return row is not None


async def _require_running(connection: Session, campaign: Campaign) -> None:
    row = await connection.fetch_one(
        "SELECT 1 FROM campaigns WHERE id = ? AND ended_at IS NULL", (campaign.id,)
    )
    if row is None:
        raise CampaignEnded(campaign.settings.name)


class TraitStore:
    """The traits a campaign's GMs have given its players, by (campaign, user, trait); each
    operation one transaction."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def grant_trait(
        self, campaign: Campaign, user_id: int, trait: Trait, granted_by: int
    ) -> None:
        """Give ``user_id`` the trait in the running ``campaign``; refuse it if they hold it."""
        async with self._database.transaction() as connection:
            await _require_running(connection, campaign)
            added = await connection.execute(
                "INSERT INTO realms_traits (campaign_id, user_id, trait, granted_by)"
                " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (campaign.id, user_id, trait.value, granted_by),
            )
            if added == 0:
                raise TraitAlreadyHeld(user_id, trait)

    async def revoke_trait(self, campaign: Campaign, user_id: int, trait: Trait) -> None:
        """Take the trait from ``user_id`` in the running ``campaign``; refuse it if they don't
        hold it."""
        async with self._database.transaction() as connection:
            await _require_running(connection, campaign)
            removed = await connection.execute(
                "DELETE FROM realms_traits WHERE campaign_id = ? AND user_id = ? AND trait = ?",
                (campaign.id, user_id, trait.value),
            )
            if removed == 0:
                raise TraitNotHeld(user_id, trait)

    async def holders(self, campaign: Campaign, trait: Trait) -> list[int]:
        """Return the users who hold the trait in ``campaign``, by id."""
        rows = await self._database.fetch_all(
            "SELECT user_id FROM realms_traits WHERE campaign_id = ? AND trait = ?"
            " ORDER BY user_id",
            (campaign.id, trait.value),
        )
        return [int(row["user_id"]) for row in rows]

    async def has_trait(self, campaign: Campaign, user_id: int, trait: Trait) -> bool:
        """Whether ``user_id`` holds the trait in ``campaign``."""
        return await _holds(self._database.reader, campaign.id, user_id, trait)


# Called inside a reroll's transaction, before anything is written, with the roller of the roll
# to be rerolled (None: no such roll) and whether the asker holds the reroll trait in the
# campaign: it raises to refuse the reroll (the decision is ``rules.realms.may_reroll``).
RerollPermit = Callable[[int | None, bool], None]


class RerollLog:
    """Reroll one die of a user's latest roll in a channel: read and write in one transaction,
    so the latest roll is the stored one (it survives a restart) and only one reroll lands."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def reroll(
        self,
        channel_id: int,
        user_id: int,
        kinds: tuple[str, ...],
        apply: Callable[[LoggedRoll], RollEntry],
        roll_id: int | None = None,
        *,
        campaign_id: int | None = None,
        permit: RerollPermit | None = None,
    ) -> tuple[LoggedRoll, int]:
        """Return the roll rerolled and the new roll's id.

        ``roll_id``: a die button under that roll was pressed; it must still be the user's
        latest roll here (a button under a roll already rerolled says so). ``permit`` decides
        first, in the same transaction, whether the user may reroll it at all: given the roll's
        roller and whether the user holds the reroll trait in ``campaign_id`` (None: outside
        a campaign, no traits), it raises to refuse.
        """
        async with self._database.transaction() as connection:
            if permit is not None:
                roller: int | None = user_id  # typed: the user's own latest roll
                if roll_id is not None:
                    row = await connection.fetch_one(
                        "SELECT user_id FROM rolls WHERE id = ?", (roll_id,)
                    )
                    roller = None if row is None else int(row["user_id"])
                holds = campaign_id is not None and await _holds(
                    connection, campaign_id, user_id, Trait.REROLL
                )
                permit(roller, holds)
            latest = await latest_roll(connection, channel_id, user_id)
            if roll_id is not None and (latest is None or latest.id != roll_id):
                if latest is not None and latest.payload.get(REROLLED_FROM) == roll_id:
                    raise AlreadyRerolled(roll_id)
                row = await connection.fetch_one(
                    "SELECT user_id FROM rolls WHERE id = ?", (roll_id,)
                )
                raise NotLatestRoll(roll_id, None if row is None else int(row["user_id"]))
            if latest is None or latest.kind not in kinds:
                raise NoRollToReroll()
            if REROLLED_FROM in latest.payload:
                raise AlreadyRerolled(int(latest.payload[REROLLED_FROM]))
            entry = apply(latest)
            entry = replace(entry, payload={**entry.payload, REROLLED_FROM: latest.id})
            return latest, await insert_roll(connection, entry)
