"""Sinew & Steel storage beyond the shared stores: Luck spent on the roller's latest roll."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.storage.campaigns import Campaign
from bot.storage.characters import Character, CharacterStore
from bot.storage.database import Database
from bot.storage.errors import StorageError
from bot.storage.rolls import LoggedRoll, RollEntry, insert_roll, latest_roll
from bot.storage.tracks import read_track, track_spec
from rules.sheets import SheetCodec
from rules.sinew import PRESSURE

__all__ = ["LuckSpend", "LuckStore", "NoRollToSpendOn", "RollSuperseded", "luck_root"]

# In the payload of a roll logged by a Luck spend: the id of the roll first spent on, so every
# step of one roll's spends names the same roll (its buttons keep working step after step).
LUCK_ROOT = "luck_of"


def luck_root(roll: LoggedRoll) -> int:
    """Return the id of the roll that ``roll`` spends Luck on (its own id if it is not a spend)."""
    root = roll.payload.get(LUCK_ROOT)
    return root if isinstance(root, int) else roll.id


@dataclass(eq=False)
class NoRollToSpendOn(StorageError):
    """The user's latest roll in the channel is not a test of this campaign."""


@dataclass(eq=False)
class RollSuperseded(StorageError):
    """The roll named is no longer the user's latest in the channel: a newer roll replaced it."""

    roll_id: int


@dataclass(frozen=True, slots=True)
class LuckSpend:
    """A spend as stored: the character after paying, the new roll's id, the roll spent on."""

    character: Character[object]
    roll_id: int
    root_id: int


class LuckStore:
    """Spend Luck on a roller's latest roll in a channel, in one transaction."""

    def __init__(self, database: Database, codec: SheetCodec[object]) -> None:
        self._database = database
        self._characters: CharacterStore[object] = CharacterStore(database, codec)

    async def spend(
        self,
        campaign: Campaign,
        channel_id: int,
        user_id: int,
        kinds: tuple[str, ...],
        apply: Callable[[LoggedRoll, Character[object], int], tuple[object, RollEntry]],
        *,
        roll_id: int | None = None,
    ) -> LuckSpend:
        """Apply ``apply(latest roll, character, pressure)`` → (new sheet, new roll entry).

        The latest roll must be the user's latest in the channel and of one of ``kinds``; the
        character is the one the roll named in its options, else the user's own. ``apply``
        may raise RulesError: then nothing is written. With ``roll_id`` (a button under a roll),
        the latest roll must still be that roll or a Luck spend on it, else RollSuperseded.
        """
        async with self._database.transaction() as connection:
            latest = await latest_roll(connection, channel_id, user_id)
            if latest is None or latest.kind not in kinds or latest.campaign_id != campaign.id:
                if roll_id is not None:
                    raise RollSuperseded(roll_id)
                raise NoRollToSpendOn()
            root = luck_root(latest)
            if roll_id is not None and root != roll_id:
                raise RollSuperseded(roll_id)
            name = latest.payload.get("options", {}).get("character")
            before = await self._characters.find_in(
                connection, campaign, user_id=None if name else user_id, name=name
            )
            spec = track_spec(campaign, PRESSURE.name, on_character=True)
            pressure = await read_track(connection, campaign.id, spec, before.id)
            sheet, entry = apply(latest, before, pressure)
            after = replace(before, sheet=sheet)
            await self._characters.save_in(connection, after)
            entry = replace(entry, payload={**entry.payload, LUCK_ROOT: root})
            new_id = await insert_roll(connection, entry)
        return LuckSpend(after, new_id, root)
