"""Saved rolls ("macros"): a player's own, or a campaign's saved by its GM."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bot.storage.database import Database, fetch_all, fetch_one
from bot.storage.errors import StorageError

__all__ = ["Macro", "MacroNameTaken", "MacroNotFound", "MacroStore", "TooManyMacros"]

MACROS_PER_OWNER = 50


@dataclass(frozen=True, slots=True)
class Macro:
    """A saved roll: its name, what it rolls, and whose it is (a user's or a campaign's)."""

    id: int
    name: str
    expression: str
    user_id: int | None
    campaign_id: int | None
    command: str | None = None  # a saved roll command (bot.saved_commands), else None: dice

    @property
    def campaign_wide(self) -> bool:
        return self.campaign_id is not None


@dataclass(eq=False)
class MacroNotFound(StorageError):
    name: str


@dataclass(eq=False)
class MacroNameTaken(StorageError):
    name: str


@dataclass(eq=False)
class TooManyMacros(StorageError):
    most: int


_COLUMNS = "id, name, expression, user_id, campaign_id, command"


class MacroStore:
    """Save, find, list and delete macros; a user's own shadow the campaign's of the same name."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def save(
        self,
        name: str,
        expression: str,
        *,
        user_id: int | None,
        campaign_id: int | None,
        command: str | None = None,
    ) -> Macro:
        async with self._database.transaction() as connection:
            row = await fetch_one(
                connection,
                "SELECT count(*) AS n FROM macros WHERE ifnull(user_id, 0) = ifnull(?, 0)"
                " AND ifnull(campaign_id, 0) = ifnull(?, 0)",
                (user_id, campaign_id),
            )
            if row is not None and row["n"] >= MACROS_PER_OWNER:
                raise TooManyMacros(MACROS_PER_OWNER)
            try:
                cursor = await connection.execute(
                    "INSERT INTO macros (user_id, campaign_id, name, expression, command)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (user_id, campaign_id, name, expression, command),
                )
            except sqlite3.IntegrityError:
                raise MacroNameTaken(name) from None
            assert cursor.lastrowid is not None
            return Macro(cursor.lastrowid, name, expression, user_id, campaign_id, command)

    async def visible(self, user_id: int, campaign_id: int | None) -> list[Macro]:
        """Return the user's macros and the campaign's, by name (the user's first on a tie)."""
        rows = await fetch_all(
            self._database.reader,
            f"SELECT {_COLUMNS} FROM macros WHERE user_id = ? OR campaign_id = ?"
            " ORDER BY name COLLATE NOCASE, campaign_id IS NOT NULL",
            (user_id, campaign_id if campaign_id is not None else -1),
        )
        return [
            Macro(r["id"], r["name"], r["expression"], r["user_id"], r["campaign_id"], r["command"])
            for r in rows
        ]

    async def find(self, name: str, user_id: int, campaign_id: int | None) -> Macro:
        wanted = name.strip().casefold()
        for macro in await self.visible(user_id, campaign_id):
            if macro.name.casefold() == wanted:
                return macro
        raise MacroNotFound(name.strip())

    async def delete(self, macro: Macro) -> None:
        async with self._database.transaction() as connection:
            await connection.execute("DELETE FROM macros WHERE id = ?", (macro.id,))
