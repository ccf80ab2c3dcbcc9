"""Sinew & Steel storage beyond the shared stores: Luck spent on the roller's latest roll.

A Luck spend's payload names the roll first spent on (``LUCK_ROOT``: every step of one roll's
spends names the same roll) and, for a defender's spend, who spent (``LUCK_BY``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from bot.storage.campaigns import Campaign
from bot.storage.characters import Character, UsesCharacters
from bot.storage.database import Session
from bot.storage.errors import StorageError
from bot.storage.rolls import (
    ROLLER_CHARACTER,
    LoggedRoll,
    RollEntry,
    insert_roll,
    latest_roll,
    roll_in,
)
from bot.storage.tracks import change_track, read_track, track_spec
from rules.roll_kinds import OPTIONS
from rules.sinew import PRESSURE
from rules.sinew.kinds import LUCK_BY, LUCK_ROOT

S = TypeVar("S")  # the system's sheet

__all__ = [
    "DEFENDER_OPTION",
    "NPC_SCORE_OPTION",
    "DefenderMovedOn",
    "LuckApplied",
    "LuckContext",
    "LuckSpend",
    "LuckStore",
    "NoRollToSpendOn",
    "NotTheDefender",
    "NpcHasNoLuck",
    "PressureRead",
    "PressureStore",
    "PressureWrite",
    "PressureWritten",
    "RollSuperseded",
    "luck_root",
]


def luck_root(roll: LoggedRoll) -> int:
    """Return the id of the roll that ``roll`` spends Luck on (its own id if it is not a spend)."""
    root = roll.payload.get(LUCK_ROOT)
    return root if isinstance(root, int) else roll.id


@dataclass(eq=False)
class NoRollToSpendOn(StorageError):
    """The user's latest roll in the channel is not a test of this campaign (``kind``: the
    latest roll's kind, when there is one in this campaign)."""

    kind: str | None = None


@dataclass(eq=False)
class RollSuperseded(StorageError):
    """The roll named is no longer the user's latest in the channel: a newer roll replaced it."""

    roll_id: int


@dataclass(eq=False)
class NotTheDefender(StorageError):
    """A defender's Luck button pressed by someone else (``defender_id``: who defends)."""

    roll_id: int
    defender_id: int | None


@dataclass(eq=False)
class DefenderMovedOn(StorageError):
    """The defender rolled again in the channel: their Luck on the roll has ended."""

    roll_id: int


@dataclass(frozen=True, slots=True)
class LuckContext(Generic[S]):
    """What a spend reads in its transaction: the roll, whose Luck pays, and the defender.

    For a defender's spend, ``roller`` is the defender (who pays) and ``attacker`` the
    attacking character (None: an NPC's bare score)."""

    roll: LoggedRoll
    roller: Character[S]
    pressure: int  # the paying character's Pressure step (a surcharge at 4+)
    defender: Character[S] | None  # a player's character defending a contest, if any
    attacker: Character[S] | None = None
    by_defender: bool = False


@dataclass(frozen=True, slots=True)
class LuckApplied(Generic[S]):
    """What a spend writes: the payer's sheet, the new roll, and a changed defender's sheet."""

    sheet: S
    entry: RollEntry
    defender_sheet: S | None = None


@dataclass(frozen=True, slots=True)
class LuckSpend(Generic[S]):
    """A spend as stored: the character after paying, the new roll's id, the roll spent on,
    the defender before and after when the spend changed it (more damage taken), and the
    other side's character as it stands (the defender, or for a defender's spend the
    attacker; None: none or an NPC)."""

    character: Character[S]
    roll_id: int
    root_id: int
    defender: tuple[Character[S], Character[S]] | None = None
    other: Character[S] | None = None
    by_defender: bool = False


# The option under which a contest logs its defending player (see `/sinew opposed`).
DEFENDER_OPTION = "vs_user"
# The option under which a test or contest logs an NPC roller's bare score: no Luck to spend.
NPC_SCORE_OPTION = "score"


@dataclass(eq=False)
class NpcHasNoLuck(StorageError):
    """The roll to spend on is an NPC's (a bare score): nobody's Luck pays for its die."""

    roll_id: int


async def _luck_pressure(connection: Session, campaign: Campaign, character_id: int) -> int:
    """Return the Pressure that prices a character's Luck: its own or the party's, the higher
    (house: the party's track weighs on every member)."""
    mine = track_spec(campaign, PRESSURE.name, on_character=True)
    party = track_spec(campaign, PRESSURE.name, on_character=False)
    return max(
        await read_track(connection, campaign.id, mine, character_id),
        await read_track(connection, campaign.id, party),
    )


class LuckStore(UsesCharacters[S]):
    """Spend Luck on a roller's latest roll in a channel, in one transaction."""

    async def pressure(self, campaign: Campaign, character_id: int) -> int:
        """Return the Pressure step that prices this character's Luck spends now."""
        return await _luck_pressure(self._database.reader, campaign, character_id)

    async def spend(
        self,
        campaign: Campaign,
        channel_id: int,
        user_id: int,
        kinds: tuple[str, ...],
        apply: Callable[[LuckContext[S]], LuckApplied[S]],
        *,
        roll_id: int | None = None,
    ) -> LuckSpend[S]:
        """Apply ``apply(context)`` to the user's latest roll and write what it returns.

        The latest roll must be the user's latest in the channel and of one of ``kinds``; the
        paying character is the one the roll named in its options, else the user's own; the
        defender is the character of the player the roll's options name as ``vs_user``.
        ``apply`` may raise RulesError: then nothing is written. With ``roll_id`` (a button
        under a roll), the latest roll must still be that roll or a Luck spend on it, else
        RollSuperseded.
        """
        async with self._database.transaction() as connection:
            latest = await latest_roll(connection, channel_id, user_id)
            if latest is None or latest.kind not in kinds or latest.campaign_id != campaign.id:
                if roll_id is not None:
                    raise RollSuperseded(roll_id)
                ours = latest if latest is not None and latest.campaign_id == campaign.id else None
                raise NoRollToSpendOn(ours.kind if ours is not None else None)
            root = luck_root(latest)
            if roll_id is not None and root != roll_id:
                raise RollSuperseded(roll_id)
            options = latest.options
            if options.get(NPC_SCORE_OPTION) is not None:
                raise NpcHasNoLuck(root)
            before = await self._characters.roller_in(connection, campaign, user_id, latest.payload)
            defending = options.get(DEFENDER_OPTION)
            defender = None
            if isinstance(defending, int):
                defender = await self._characters.find_in(connection, campaign, user_id=defending)
            pressure = await _luck_pressure(connection, campaign, before.id)
            applied = apply(LuckContext(latest, before, pressure, defender))
            after = replace(before, sheet=applied.sheet)
            await self._characters.save_in(connection, after)
            changed = None
            if defender is not None and applied.defender_sheet is not None:
                changed = (defender, replace(defender, sheet=applied.defender_sheet))
                await self._characters.save_in(connection, changed[1])
            payload = {**applied.entry.payload, LUCK_ROOT: root, ROLLER_CHARACTER: before.id}
            entry = replace(applied.entry, payload=payload)
            new_id = await insert_roll(connection, entry)
        other = changed[1] if changed is not None else defender
        return LuckSpend(after, new_id, root, changed, other)

    async def spend_as_defender(
        self,
        campaign: Campaign,
        channel_id: int,
        user_id: int,
        kinds: tuple[str, ...],
        apply: Callable[[LuckContext[S]], LuckApplied[S]],
        *,
        roll_id: int,
    ) -> LuckSpend[S]:
        """Apply a defender's spend on roll ``roll_id`` (a contest they defend) and write it.

        The roll stays its roller's: the new entry is logged under the roller's id, so the
        chain of spends stays the roller's latest roll and both sides spend on one result.
        Valid until either side rolls again in the channel: the roller's latest roll must
        still be this roll or a spend on it (else RollSuperseded), and the defender must have
        rolled nothing here since (else DefenderMovedOn). The defender's sheet (tokens paid,
        Stamina given back) is ``applied.sheet``.
        """
        async with self._database.transaction() as connection:
            root = await roll_in(connection, roll_id)
            if root is None or root.channel_id != channel_id or root.campaign_id != campaign.id:
                raise RollSuperseded(roll_id)
            latest = await latest_roll(connection, channel_id, root.user_id)
            if latest is None or latest.kind not in kinds or luck_root(latest) != roll_id:
                raise RollSuperseded(roll_id)
            options = latest.options
            if options.get(DEFENDER_OPTION) != user_id:
                raise NotTheDefender(roll_id, options.get(DEFENDER_OPTION))
            mine = await latest_roll(connection, channel_id, user_id)
            if mine is not None and mine.id > roll_id and luck_root(mine) != roll_id:
                raise DefenderMovedOn(roll_id)  # (a spend on this roll is no new roll)
            defender = await self._characters.find_in(connection, campaign, user_id=user_id)
            attacker = await self._attacker_in(connection, campaign, root.user_id, latest.payload)
            pressure = await _luck_pressure(connection, campaign, defender.id)
            context = LuckContext(latest, defender, pressure, defender, attacker, by_defender=True)
            applied = apply(context)
            after = replace(defender, sheet=applied.sheet)
            await self._characters.save_in(connection, after)
            entry = replace(
                applied.entry,
                user_id=root.user_id,
                payload={**applied.entry.payload, LUCK_ROOT: roll_id, LUCK_BY: user_id,
                         **({} if attacker is None else {ROLLER_CHARACTER: attacker.id})},
            )  # fmt: skip
            new_id = await insert_roll(connection, entry)
        return LuckSpend(after, new_id, roll_id, (defender, after), attacker, by_defender=True)

    async def _attacker_in(
        self, connection: Session, campaign: Campaign, user_id: int, payload: dict[str, Any]
    ) -> Character[S] | None:
        """Return a contest's attacking character (None: an NPC's bare score)."""
        if payload.get(OPTIONS, {}).get(NPC_SCORE_OPTION) is not None:
            return None
        return await self._characters.roller_in(connection, campaign, user_id, payload)


@dataclass(frozen=True, slots=True)
class PressureRead(Generic[S]):
    """What a Pressure change reads in its transaction.

    ``value`` is the track's step now; ``owner`` its character (None: the party's track);
    ``characters`` those a Crisis can strike: the owner, or every character of the campaign.
    """

    value: int
    owner: Character[S] | None
    characters: tuple[Character[S], ...]


@dataclass(frozen=True, slots=True)
class PressureWrite(Generic[S]):
    """What a Pressure change writes: the track's new step, changed characters, roll entries."""

    after: int
    characters: tuple[Character[S], ...] = ()
    entries: tuple[RollEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class PressureWritten(Generic[S]):
    """A stored Pressure change: what was read, what was written, and the new rolls' ids."""

    read: PressureRead[S]
    write: PressureWrite[S]
    roll_ids: tuple[int, ...]


class PressureStore(UsesCharacters[S]):
    """Change a Pressure track (and what its Crisis does) in one transaction."""

    async def change(
        self,
        campaign: Campaign,
        decide: Callable[[PressureRead[S]], PressureWrite[S]],
        *,
        character_id: int | None = None,
    ) -> PressureWritten[S]:
        """Read the track (the party's, or ``character_id``'s), ``decide``, write it all.

        ``decide`` applies the pure rules (it may roll a test or the Crisis die, and may raise
        RulesError: then nothing is written). Concurrent changes of one track run one after
        another, so none is lost and each crossing of 5 fires one Crisis.
        """
        spec = track_spec(campaign, PRESSURE.name, on_character=character_id is not None)
        async with self._database.transaction() as connection:
            value = await read_track(connection, campaign.id, spec, character_id)
            owner = None
            if character_id is not None:  # a character's Crisis strikes that character alone
                owner = await self._characters.by_id_in(connection, character_id)
                characters: tuple[Character[S], ...] = (owner,)
            else:  # a party Crisis may strike every character
                characters = tuple(await self._characters.all_in(connection, campaign))
            read = PressureRead(value, owner, characters)
            write = decide(read)
            if write.after != value:
                await change_track(connection, campaign.id, spec, write.after - value, character_id)
            for character in write.characters:
                await self._characters.save_in(connection, character)
            roll_ids = tuple([await insert_roll(connection, entry) for entry in write.entries])
        return PressureWritten(read, write, roll_ids)

    async def values(self, campaign: Campaign) -> tuple[int, dict[int, int]]:
        """Return the party's Pressure and each character's (by id; absent: never changed, 0)."""
        rows = await self._database.fetch_all(
            "SELECT character_id, value FROM tracks WHERE campaign_id = ? AND name = ?",
            (campaign.id, PRESSURE.name),
        )
        party = next((row["value"] for row in rows if row["character_id"] is None), PRESSURE.start)
        return party, {
            row["character_id"]: row["value"] for row in rows if row["character_id"] is not None
        }
