"""`python -m bot copy-db`: move an SQLite database into PostgreSQL, every row, ids kept.

The source is read through one read transaction of a read-only connection (one snapshot, even if
a bot still writes to it). The target is migrated first, then filled in ONE PostgreSQL
transaction: all of it lands, or nothing does. The tables come from the SQLite schema in
foreign-key order; a table or column present in one schema and not in the other stops the copy
before anything is written (a source from another version of the bot, say).

A target holding any row is refused, unless it holds exactly the source's rows: then the copy
was already done (run twice, it changes nothing). After the copy each identity sequence is set
to its table's largest id, so the bot's next insert does not collide with a copied row, and the
row counts of both sides are compared before the commit.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from bot.config import redact_url
from bot.storage.errors import StorageError
from bot.storage.migrate import apply_postgres_migrations

if TYPE_CHECKING:
    import psycopg

    # The target's connection as psycopg.connect opens it (rows as tuples).
    PostgresConnection = psycopg.Connection[tuple[Any, ...]]

__all__ = ["CopyFailed", "CopyReport", "TableCount", "copy_database", "data_table_names"]

# yoyo's bookkeeping and SQLite's own tables are not the bot's data.
_NOT_OURS = re.compile(r"^(_yoyo_|yoyo_|sqlite_)")
# Rows read from SQLite and written to PostgreSQL at a time: bounded memory for a long roll log.
BATCH_ROWS = 2_000


@dataclass(frozen=True, slots=True)
class TableCount:
    """One table's rows on both sides after the copy (equal, or the copy was rolled back)."""

    table: str
    sqlite_rows: int
    postgresql_rows: int


@dataclass(frozen=True, slots=True)
class CopyReport:
    tables: tuple[TableCount, ...]
    already_copied: bool  # the target already held exactly these rows: nothing was written

    @property
    def rows(self) -> int:
        return sum(count.sqlite_rows for count in self.tables)


@dataclass(eq=False)
class CopyFailed(StorageError):
    """The copy did not happen (nothing was written to the target); ``reason`` says why."""

    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True, slots=True)
class _Table:
    name: str
    columns: tuple[str, ...]
    primary_key: tuple[str, ...]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _column_list(columns: Sequence[str]) -> str:
    return ", ".join(_quote(column) for column in columns)


# --- SQLite -------------------------------------------------------------------------------------


def _open_source(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise CopyFailed(f"There is no SQLite database at {path} to copy from.")
    try:
        # mode=ro: the copy never writes to the source, whatever happens.
        connection = sqlite3.connect(
            f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, isolation_level=None
        )
        connection.execute("BEGIN")  # one read transaction: every table from one snapshot
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()  # take it now
    except sqlite3.Error as error:
        raise CopyFailed(f"SQLite cannot read {path}: {error}") from error
    return connection


def data_table_names(connection: sqlite3.Connection) -> list[str]:
    """The names of the bot's own tables in an SQLite database (not yoyo's nor SQLite's), sorted."""
    return sorted(
        name
        for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if not _NOT_OURS.match(name)
    )


def _sqlite_tables(connection: sqlite3.Connection) -> list[_Table]:
    """The bot's tables, each after every table its foreign keys name (ties by name)."""
    names = data_table_names(connection)
    tables: dict[str, _Table] = {}
    parents: dict[str, set[str]] = {}
    for name in names:
        info = connection.execute(f"PRAGMA table_info({_quote(name)})").fetchall()
        # table_info rows: cid, name, type, notnull, default, pk (1-based position in the key).
        key = tuple(row[1] for row in sorted((row for row in info if row[5]), key=lambda r: r[5]))
        tables[name] = _Table(name, tuple(row[1] for row in info), key)
        references = connection.execute(f"PRAGMA foreign_key_list({_quote(name)})").fetchall()
        parents[name] = {row[2] for row in references} - {name}
    ordered: list[_Table] = []
    placed: set[str] = set()
    while len(ordered) < len(tables):
        ready = [n for n in names if n not in placed and parents[n] <= placed]
        if not ready:  # a cycle, or a reference to a table that is not there
            left = sorted(set(names) - placed)
            raise CopyFailed(f"The SQLite tables' foreign keys cannot be ordered: {left}.")
        for name in ready:
            ordered.append(tables[name])
            placed.add(name)
    return ordered


# --- PostgreSQL ---------------------------------------------------------------------------------


def _postgres_columns(connection: PostgresConnection) -> dict[str, tuple[str, ...]]:
    rows = connection.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    ).fetchall()
    columns: dict[str, list[str]] = {}
    for table, column in rows:
        if not _NOT_OURS.match(table):
            columns.setdefault(table, []).append(column)
    return {table: tuple(names) for table, names in columns.items()}


def _check_same_schema(tables: list[_Table], postgres: dict[str, tuple[str, ...]]) -> None:
    """Stop before writing if the two schemas do not hold the same tables and columns."""
    sqlite_names = {table.name for table in tables}
    problems = []
    if only := sorted(sqlite_names - postgres.keys()):
        problems.append(f"tables only in SQLite: {', '.join(only)}")
    if only := sorted(postgres.keys() - sqlite_names):
        problems.append(f"tables only in PostgreSQL: {', '.join(only)}")
    for table in tables:
        if table.name not in postgres:
            continue
        if only := sorted(set(table.columns) - set(postgres[table.name])):
            problems.append(f"{table.name} columns only in SQLite: {', '.join(only)}")
        if only := sorted(set(postgres[table.name]) - set(table.columns)):
            problems.append(f"{table.name} columns only in PostgreSQL: {', '.join(only)}")
    if problems:
        raise CopyFailed(
            "The SQLite and PostgreSQL schemas differ ("
            + "; ".join(problems)
            + "): start this version of the bot once on the SQLite file to migrate it, then copy."
        )


def _check_no_foreign_tables(url: str, tables: list[_Table]) -> None:
    """Refuse, before migrating, a target whose tables are not the bot's (another app's)."""
    import psycopg

    with psycopg.connect(url) as connection:
        present = set(_postgres_columns(connection))
    if foreign := sorted(present - {table.name for table in tables}):
        raise CopyFailed(
            f"The target database holds tables that are not the bot's ({', '.join(foreign)}): "
            "nothing was copied. Copy into a new, empty database."
        )


def _count(connection: sqlite3.Connection | PostgresConnection, table: str) -> int:
    row = connection.execute(f"SELECT count(*) FROM {_quote(table)}").fetchone()
    assert row is not None  # count(*) always answers one row
    return int(row[0])


def _rows(
    cursor: sqlite3.Cursor | psycopg.ServerCursor[tuple[Any, ...]], table: _Table
) -> Iterator[tuple[object, ...]]:
    """Every row of ``table``, its columns in ``table.columns`` order, by primary key."""
    order = _column_list(table.primary_key or table.columns)
    columns = _column_list(table.columns)
    cursor.execute(f"SELECT {columns} FROM {_quote(table.name)} ORDER BY {order}")
    while batch := cursor.fetchmany(BATCH_ROWS):
        yield from (tuple(row) for row in batch)


def _same_rows(source: sqlite3.Connection, target: PostgresConnection, table: _Table) -> bool:
    """Whether both sides hold exactly the same rows of ``table`` (every column compared)."""
    # A server-side cursor: PostgreSQL sends the rows a batch at a time, not a long roll log
    # at once.
    with target.cursor(name=f"compare_{table.name}") as remote:
        remote.itersize = BATCH_ROWS
        if table.primary_key:
            pairs = zip_longest(_rows(source.cursor(), table), _rows(remote, table))
            return all(left == right for left, right in pairs)
        # No key to order both sides the same way (text sorts differently): compare as sets.
        return sorted(map(repr, _rows(source.cursor(), table))) == sorted(
            map(repr, _rows(remote, table))
        )


def _copy_rows(source: sqlite3.Connection, target: PostgresConnection, table: _Table) -> None:
    statement = f"COPY {_quote(table.name)} ({_column_list(table.columns)}) FROM STDIN"
    with target.cursor().copy(statement) as copy:
        for row in _rows(source.cursor(), table):
            copy.write_row(row)


def _set_sequences(target: PostgresConnection, table: _Table) -> None:
    """Point each identity sequence of ``table`` past its largest id: new rows get fresh ids."""
    identities = target.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
        " AND table_name = %s AND is_identity = 'YES'",
        (table.name,),
    ).fetchall()
    for (column,) in identities:
        target.execute(
            f"SELECT setval(pg_get_serial_sequence(%s, %s), max({_quote(column)}))"
            f" FROM {_quote(table.name)} HAVING max({_quote(column)}) IS NOT NULL",
            (_quote(table.name), column),
        )


def copy_database(source_path: Path, target_url: str) -> CopyReport:
    """Copy every row of the SQLite database at ``source_path`` into PostgreSQL at ``target_url``.

    Raises CopyFailed (nothing written) when the target holds other rows, the schemas differ,
    or either database cannot be read; messages never show the URL's password.
    """
    import psycopg  # the postgresql extra: only this command and the PostgreSQL backend need it

    source = _open_source(source_path)
    try:
        tables = _sqlite_tables(source)
        try:
            _check_no_foreign_tables(target_url, tables)
            apply_postgres_migrations(target_url)
            with psycopg.connect(target_url) as target:  # one transaction, committed on exit
                _check_same_schema(tables, _postgres_columns(target))
                # No one else writes to these tables until the commit (a bot already started
                # on the target, another copy-db): the emptiness check holds for the copy.
                names = ", ".join(_quote(table.name) for table in tables)
                target.execute(f"LOCK TABLE {names} IN SHARE ROW EXCLUSIVE MODE")
                source_counts = {table.name: _count(source, table.name) for table in tables}
                target_counts = {table.name: _count(target, table.name) for table in tables}
                already = any(target_counts.values())
                if already:
                    if source_counts != target_counts or not all(
                        _same_rows(source, target, table) for table in tables
                    ):
                        held = sum(target_counts.values())
                        raise CopyFailed(
                            f"The target database is not empty ({held} rows in the bot's "
                            "tables, not the ones of this SQLite file): nothing was copied. "
                            "Copy into a new, empty database."
                        )
                else:
                    for table in tables:
                        _copy_rows(source, target, table)
                        _set_sequences(target, table)
                    target_counts = {table.name: _count(target, table.name) for table in tables}
                    if target_counts != source_counts:
                        raise CopyFailed(
                            f"Row counts differ after the copy (SQLite {source_counts}, "
                            f"PostgreSQL {target_counts}): rolled back, nothing was copied."
                        )
        except psycopg.Error as error:
            # psycopg's messages name the host and user, not the password; make sure of it.
            text = str(error).strip()
            password = urlsplit(target_url).password
            if password:
                text = text.replace(password, "***")
            message = text.splitlines()[0] if text else type(error).__name__
            diagnostic = getattr(error, "diag", None)
            where = diagnostic.context if diagnostic is not None else None
            if where:  # e.g. COPY rolls, line 15, column hidden: "yes": the row to fix
                message += f" ({where.strip().splitlines()[0]})"
            raise CopyFailed(
                f"PostgreSQL at {redact_url(target_url)} failed: {message}; nothing was copied."
            ) from None
        except ValueError as error:  # apply_postgres_migrations: a malformed URL
            raise CopyFailed(f"{error}; nothing was copied.") from None
    finally:
        source.close()
    counts = tuple(
        TableCount(table.name, source_counts[table.name], target_counts[table.name])
        for table in tables
    )
    return CopyReport(counts, already_copied=already)
