"""Characters: one shared model for every system, each carrying its system's sheet.

A character belongs to a player in a campaign and has a name unique in that campaign. How many
a player may have comes from the system's declaration (one unless it says otherwise); when a
player has several, commands name the one they mean. The sheet is the system's own frozen
dataclass, stored as JSON and checked by its codec on every read and write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from bot.storage.campaigns import Campaign, answer_prompt_in
from bot.storage.database import ConstraintViolated, Database, Row, Session
from bot.storage.errors import (
    CharacterAlreadyTheirs,
    CharacterGone,
    CharacterNameTaken,
    CharacterNotFound,
    EndAnswer,
    TooManyCharacters,
    WhichCharacter,
)
from bot.storage.rolls import ROLLER_CHARACTER, Change, RollEntry, insert_roll
from rules.declarations import declaration
from rules.inputs import name_key
from rules.roll_kinds import OPTIONS
from rules.sheets import SheetCodec

__all__ = ["Character", "CharacterStore", "RosterEntry", "UsesCharacters", "roster"]

S = TypeVar("S")

_COLUMNS = "id, campaign_id, user_id, name, sheet, rolled"


@dataclass(frozen=True, slots=True)
class Character(Generic[S]):
    """A player's character in a campaign, with its system's sheet."""

    id: int
    campaign_id: int
    user_id: int
    name: str
    sheet: S
    # A roll was logged for it (docs/players/sinew.md, "Characters forgive mistakes"): its owner's
    # edits are over, a GM's go on.
    rolled: bool = False

    @property
    def first_rolls(self) -> tuple[int, ...]:
        """The character's id if a roll for it would be its first (``RollEntry.first_rolls``)."""
        return () if self.rolled else (self.id,)


@dataclass(frozen=True, slots=True)
class RosterEntry:
    """A character's name and player, without its sheet (what suggestions need)."""

    name: str
    user_id: int


async def roster(database: Database, campaign: Campaign) -> list[RosterEntry]:
    """List a campaign's characters by name, whatever its system (no sheet is read)."""
    rows = await database.reader.fetch_all(
        "SELECT name, user_id FROM characters WHERE campaign_id = ? ORDER BY lower(name)",
        (campaign.id,),
    )
    return [RosterEntry(name=row["name"], user_id=row["user_id"]) for row in rows]


class CharacterStore(Generic[S]):
    """Named operations on one system's characters; each is one transaction."""

    def __init__(self, database: Database, codec: SheetCodec[S]) -> None:
        self._database = database
        self._codec = codec

    def _character(self, row: Row) -> Character[S]:
        return Character(
            id=row["id"],
            campaign_id=row["campaign_id"],
            user_id=row["user_id"],
            name=row["name"],
            sheet=self._codec.load(json.loads(row["sheet"])),
            rolled=bool(row["rolled"]),
        )

    def _dump(self, sheet: S) -> str:
        return json.dumps(self._codec.dump(sheet), separators=(",", ":"))

    async def create(self, campaign: Campaign, user_id: int, name: str, sheet: S) -> Character[S]:
        """Create a character; refuse a taken name or more than the system allows a player."""
        limit = declaration(campaign.system).characters_per_player
        async with self._database.transaction() as connection:
            rows = await connection.fetch_all(
                "SELECT user_id, name FROM characters WHERE campaign_id = ?", (campaign.id,)
            )
            if sum(row["user_id"] == user_id for row in rows) >= limit:
                raise TooManyCharacters(user_id, limit, campaign.system)
            # Names compare NFKC and case folded in the campaign (docs/players/index.md, "Names"),
            # which its unique index (ASCII case only, in SQLite) doesn't: compared here.
            wanted = name_key(name)
            if any(name_key(row["name"]) == wanted for row in rows):
                raise CharacterNameTaken(name)
            try:
                row = await connection.fetch_one(
                    "INSERT INTO characters (campaign_id, user_id, name, sheet)"
                    f" VALUES (?, ?, ?, ?) RETURNING {_COLUMNS}",
                    (campaign.id, user_id, name, self._dump(sheet)),
                )
            except ConstraintViolated:
                raise CharacterNameTaken(name) from None
        assert row is not None
        return self._character(row)

    async def find(
        self, campaign: Campaign, *, user_id: int | None = None, name: str | None = None
    ) -> Character[S]:
        """Return a character by name (any player's, or ``user_id``'s), or a player's only one.

        Raises CharacterNotFound, or WhichCharacter when the player has several and gave no name.
        """
        return await self.find_in(self._database.reader, campaign, user_id=user_id, name=name)

    async def find_in(
        self,
        connection: Session,
        campaign: Campaign,
        *,
        user_id: int | None = None,
        name: str | None = None,
    ) -> Character[S]:
        """``find`` on a given connection: inside a transaction, the state as stored now."""
        conditions = ["campaign_id = ?"]
        parameters: list[object] = [campaign.id]
        if user_id is not None:
            conditions.append("user_id = ?")
            parameters.append(user_id)
        where = " AND ".join(conditions)
        rows = await connection.fetch_all(
            f"SELECT {_COLUMNS} FROM characters WHERE {where} ORDER BY lower(name)", parameters
        )
        if name is not None:  # as names are compared (docs/players/index.md, "Names")
            wanted = name_key(name)
            rows = [row for row in rows if name_key(row["name"]) == wanted]
        if not rows:
            raise CharacterNotFound(user_id, name.strip() if name else None, campaign.system)
        if len(rows) > 1:
            raise WhichCharacter(user_id, tuple(row["name"] for row in rows))
        return self._character(rows[0])

    async def by_id(self, character_id: int) -> Character[S]:
        """Return the character with this id."""
        return await self.by_id_in(self._database.reader, character_id)

    async def by_id_in(self, connection: Session, character_id: int) -> Character[S]:
        """Return the character with this id, on the caller's connection (transaction)."""
        row = await connection.fetch_one(
            f"SELECT {_COLUMNS} FROM characters WHERE id = ?", (character_id,)
        )
        if row is None:
            raise CharacterNotFound(None, None)
        return self._character(row)

    async def roller(
        self, campaign: Campaign, user_id: int, payload: dict[str, Any]
    ) -> Character[S] | None:
        """Return the character who rolled a roll (``payload``: the logged roll's), as it is
        stored now, or None when it is gone."""
        try:
            return await self.roller_in(self._database.reader, campaign, user_id, payload)
        except (CharacterNotFound, WhichCharacter):
            return None

    async def roller_in(
        self, connection: Session, campaign: Campaign, user_id: int, payload: dict[str, Any]
    ) -> Character[S]:
        """Return the character who rolled a roll: by its id where the roll log has it (renamed
        or given away since, it is still the one who rolled), else by the name the roll's
        options give (a GM's roll for it) or as ``user_id``'s own (rolls logged before the id)."""
        name = payload.get(OPTIONS, {}).get("character")
        character_id = payload.get(ROLLER_CHARACTER)
        if isinstance(character_id, int):
            try:
                found = await self.by_id_in(connection, character_id)
            except CharacterNotFound:
                found = None
            if found is None or found.campaign_id != campaign.id:
                shown = name if isinstance(name, str) else None
                raise CharacterNotFound(None if shown else user_id, shown, campaign.system)
            return found
        return await self.find_in(
            connection,
            campaign,
            user_id=None if name else user_id,
            name=name if isinstance(name, str) else None,
        )

    async def all(self, campaign: Campaign) -> list[Character[S]]:
        """List the campaign's characters by name."""
        return await self.all_in(self._database.reader, campaign)

    async def all_in(self, connection: Session, campaign: Campaign) -> list[Character[S]]:
        """List the campaign's characters by name, on the caller's connection (transaction)."""
        rows = await connection.fetch_all(
            f"SELECT {_COLUMNS} FROM characters WHERE campaign_id = ? ORDER BY lower(name)",
            (campaign.id,),
        )
        return [self._character(row) for row in rows]

    async def update(
        self,
        character: Character[S],
        change: Callable[[S], S],
        log: Callable[[Character[S]], RollEntry] | None = None,
    ) -> Change[Character[S]]:
        """Apply a pure rule to the sheet as stored now, save it, and log the roll if any.

        ``change`` may raise RulesError: then nothing is written. ``log`` builds the roll-log
        entry from the character after the change, so the logged embed shows the new state.
        """
        async with self._database.transaction() as connection:
            before = await self._still_there(connection, character)
            after = replace(before, sheet=change(before.sheet))
            await self.save_in(connection, after)
            roll_id = None if log is None else await insert_roll(connection, log(after))
        return Change(before=before, after=after, roll_id=roll_id)

    # --- Characters that forgive mistakes (docs/players/sinew.md and docs/players/aethelgard.md,
    # "Characters forgive mistakes"): each one transaction; ``check`` refuses (raising) what the
    # asker may not do to the character as stored now (given away meanwhile…).

    async def edit_character(
        self, character: Character[S], edit: Callable[[Character[S]], S]
    ) -> Change[Character[S]]:
        """Edit the sheet as stored now: ``edit`` decides from the whole character (its owner,
        whether it has rolled) and returns the new sheet, or refuses and nothing is written."""
        async with self._database.transaction() as connection:
            before = await self._still_there(connection, character)
            after = replace(before, sheet=edit(before))
            await self.save_in(connection, after)
        return Change(before=before, after=after)

    async def rename_character(
        self, character: Character[S], new_name: str, check: Callable[[Character[S]], object]
    ) -> Change[Character[S]]:
        """Rename a character; refuse a name another character of the campaign has (names compare as
        docs/players/index.md, "Names" says) or the one it has already."""
        async with self._database.transaction() as connection:
            before = await self._still_there(connection, character)
            check(before)
            rows = await connection.fetch_all(
                "SELECT id, name FROM characters WHERE campaign_id = ?", (before.campaign_id,)
            )
            wanted = name_key(new_name)
            if new_name == before.name or any(
                name_key(row["name"]) == wanted and row["id"] != before.id for row in rows
            ):
                raise CharacterNameTaken(new_name)
            try:
                await connection.execute(
                    "UPDATE characters SET name = ? WHERE id = ?", (new_name, before.id)
                )
            except ConstraintViolated:
                raise CharacterNameTaken(new_name) from None
        return Change(before=before, after=replace(before, name=new_name))

    async def give_character(
        self, campaign: Campaign, character: Character[S], user_id: int
    ) -> Change[Character[S]]:
        """Give a character to another player; refuse one who has as many characters as the
        system allows a player already (the limit: ``create``), or who has it already."""
        limit = declaration(campaign.system).characters_per_player
        async with self._database.transaction() as connection:
            before = await self._still_there(connection, character)
            if before.user_id == user_id:
                raise CharacterAlreadyTheirs(before.name, user_id)
            row = await connection.fetch_one(
                "SELECT count(*) AS held FROM characters WHERE campaign_id = ? AND user_id = ?",
                (before.campaign_id, user_id),
            )
            if row is not None and row["held"] >= limit:
                raise TooManyCharacters(user_id, limit, campaign.system)
            await connection.execute(
                "UPDATE characters SET user_id = ? WHERE id = ?", (user_id, before.id)
            )
        return Change(before=before, after=replace(before, user_id=user_id))

    async def delete_character(
        self,
        campaign: Campaign,
        character_id: int,
        check: Callable[[Character[S]], object],
        prompt_id: int,
    ) -> Character[S]:
        """Delete a character of the campaign (its tracks go with it; its rolls stay in the log
        under its name) as the confirmation ``prompt_id`` answered, recording the answer:
        refused (EndPromptAnswered) if the prompt was answered before, CharacterGone if the
        character was deleted already. Return it as it was."""
        async with self._database.transaction() as connection:
            await answer_prompt_in(connection, prompt_id, EndAnswer.ENDED)
            try:
                before = await self.by_id_in(connection, character_id)
            except CharacterNotFound:
                raise CharacterGone(character_id) from None
            if before.campaign_id != campaign.id:
                raise CharacterGone(character_id)
            check(before)
            await connection.execute("DELETE FROM characters WHERE id = ?", (character_id,))
        return before

    async def _still_there(self, connection: Session, character: Character[S]) -> Character[S]:
        """The character as stored now; refused as the caller named it if deleted meanwhile."""
        try:
            return await self.by_id_in(connection, character.id)
        except CharacterNotFound:
            raise CharacterNotFound(character.user_id, character.name) from None

    async def save_in(self, connection: Session, character: Character[S]) -> None:
        """Write a character's sheet inside the caller's transaction."""
        await connection.execute(
            "UPDATE characters SET sheet = ? WHERE id = ?",
            (self._dump(character.sheet), character.id),
        )


class UsesCharacters(Generic[S]):
    """Base of a system's stores whose transactions read and write its characters' sheets
    (contests, group checks, Luck, Pressure…): the database and a CharacterStore on it."""

    def __init__(self, database: Database, codec: SheetCodec[S]) -> None:
        self._database = database
        self._characters: CharacterStore[S] = CharacterStore(database, codec)
