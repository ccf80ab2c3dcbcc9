"""Saved rolls ("macros"): a player's own, or a campaign's saved by its GM."""

from __future__ import annotations

from dataclasses import dataclass

from bot.storage.database import ConstraintViolated, Database
from bot.storage.errors import StorageError
from rules.inputs import name_key

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


def _owner(user_id: int | None, campaign_id: int | None) -> tuple[str, list[object]]:
    """A condition matching the macros of exactly this owner (a user's, or a campaign's)."""
    conditions: list[str] = []
    parameters: list[object] = []
    for column, value in (("user_id", user_id), ("campaign_id", campaign_id)):
        if value is None:
            conditions.append(f"{column} IS NULL")
        else:
            conditions.append(f"{column} = ?")
            parameters.append(value)
    return " AND ".join(conditions), parameters


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
            owner, parameters = _owner(user_id, campaign_id)
            # Names compare NFKC and case folded (docs/players/index.md, "Names"), which the
            # unique index (ASCII case only, in SQLite) doesn't: compared here, as the writer.
            rows = await connection.fetch_all(f"SELECT name FROM macros WHERE {owner}", parameters)
            if len(rows) >= MACROS_PER_OWNER:
                raise TooManyMacros(MACROS_PER_OWNER)
            wanted = name_key(name)
            if any(name_key(row["name"]) == wanted for row in rows):
                raise MacroNameTaken(name)
            try:
                created = await connection.fetch_one(
                    "INSERT INTO macros (user_id, campaign_id, name, expression, command)"
                    " VALUES (?, ?, ?, ?, ?) RETURNING id",
                    (user_id, campaign_id, name, expression, command),
                )
            except ConstraintViolated:
                raise MacroNameTaken(name) from None
            assert created is not None
            return Macro(created["id"], name, expression, user_id, campaign_id, command)

    async def visible(self, user_id: int, campaign_id: int | None) -> list[Macro]:
        """Return the user's macros and the campaign's, by name (the user's first on a tie)."""
        rows = await self._database.reader.fetch_all(
            f"SELECT {_COLUMNS} FROM macros WHERE user_id = ? OR campaign_id = ?"
            " ORDER BY lower(name), campaign_id IS NOT NULL",
            (user_id, campaign_id if campaign_id is not None else -1),
        )
        return [
            Macro(r["id"], r["name"], r["expression"], r["user_id"], r["campaign_id"], r["command"])
            for r in rows
        ]

    async def find(self, name: str, user_id: int, campaign_id: int | None) -> Macro:
        wanted = name_key(name)  # as names are compared (docs/players/index.md, "Names")
        for macro in await self.visible(user_id, campaign_id):
            if name_key(macro.name) == wanted:
                return macro
        raise MacroNotFound(name.strip())

    async def delete(self, macro: Macro) -> None:
        """Delete the macro; raise MacroNotFound if it is gone already.

        Many deletes of one macro may have found it before any of them deleted it: the one
        statement that removed the row confirms the delete, and the others are told it's gone.
        """
        async with self._database.transaction() as connection:
            deleted = await connection.execute("DELETE FROM macros WHERE id = ?", (macro.id,))
        if deleted == 0:
            raise MacroNotFound(macro.name)
