"""Both schemas match: data/migrations (SQLite) and data/migrations/postgresql, each applied to
a fresh database, give the same tables with the same columns in the same order, compatible
types, NOT NULLs, defaults, primary keys, indexes (unique, partial, on expressions), CHECK
counts and foreign keys. SQLite is read through its PRAGMAs and sqlite_master, PostgreSQL
through pg_catalog; both are reduced to the same plain description and compared."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.storage import apply_migrations
from bot.storage.migrate import apply_postgres_migrations

# yoyo's bookkeeping and SQLite's own tables are not the bot's schema.
_NOT_OURS = re.compile(r"^(_yoyo_|yoyo_|sqlite_)")

# Declared type → what a value of it is; sqlite INTEGER holds 64 bits, so bigint or integer.
_SQLITE_TYPES = {"INTEGER": "integer", "TEXT": "text", "REAL": "real"}
_PG_TYPES = {
    "bigint": "integer",
    "integer": "integer",
    "text": "text",
    "citext": "text",
    "double precision": "real",
}
_ON_DELETE = {
    "a": "NO ACTION",
    "r": "RESTRICT",
    "c": "CASCADE",
    "n": "SET NULL",
    "d": "SET DEFAULT",
}
_TIMESTAMP_DEFAULT = "<utc now, iso text>"


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # "integer", "text" or "real"
    nocase: bool  # compared, sorted and unique without regard to case
    not_null: bool
    default: str | None  # normalized: casts and spacing removed, the timestamp default named
    generated: bool  # a row id the database assigns (INTEGER PRIMARY KEY / identity)


@dataclass(frozen=True)
class Index:
    keys: tuple[str, ...]  # a column, nocase(column) or a normalized expression
    unique: bool
    predicate: str | None


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    table: str
    references: tuple[str, ...]
    on_delete: str


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    indexes: frozenset[Index]
    foreign_keys: frozenset[ForeignKey]
    checks: int


def _expression(text: str) -> str:
    """An SQL expression without case, casts or spacing: comparable across both backends."""
    text = text.lower().strip()
    text = re.sub(r"::[a-z_]+( [a-z_]+)*", "", text)  # PostgreSQL's 'open'::text, 0::bigint
    text = text.replace("ifnull(", "coalesce(")
    # Folding case: SQLite's `name COLLATE NOCASE`, PostgreSQL's lower(name).
    text = re.sub(r"lower\(\(?([a-z_]+)\)?\)", r"nocase(\1)", text)
    text = re.sub(r"^([a-z_]+) collate nocase$", r"nocase(\1)", text)
    text = re.sub(r"\s", "", text)
    if text.startswith("(") and text.endswith(")") and _parenthesized(text) == text[1:-1]:
        text = text[1:-1]  # PostgreSQL may wrap a whole predicate in parentheses
    return text


def _default(text: str | None) -> str | None:
    if text is None:
        return None
    if "strftime(" in text or "to_char(" in text:
        return _TIMESTAMP_DEFAULT
    return _expression(text)


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in text:
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def _parenthesized(text: str) -> str:
    """The text inside the first top-level parentheses of ``text``."""
    start = text.index("(")
    depth = 0
    for position in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth == 0:
            return text[start + 1 : position]
    raise ValueError(text)


# --- SQLite -----------------------------------------------------------------------------------


def sqlite_schema(path: Path) -> dict[str, Table]:
    connection = sqlite3.connect(path)
    try:
        tables = {}
        for name, sql in connection.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ):
            if not _NOT_OURS.match(name):
                tables[name] = _sqlite_table(connection, name, sql)
        return tables
    finally:
        connection.close()


def _sqlite_table(connection: sqlite3.Connection, table: str, sql: str) -> Table:
    definitions = _split_top_level(_parenthesized(sql))
    nocase = {
        part.split()[0]
        for part in definitions
        if re.search(r"\bCOLLATE\s+NOCASE\b", part, re.IGNORECASE)
    }
    info = connection.execute(f"PRAGMA table_info({table})").fetchall()
    primary_key = tuple(
        row[1] for row in sorted((row for row in info if row[5]), key=lambda r: r[5])
    )
    columns = tuple(
        Column(
            name=name,
            type=_SQLITE_TYPES[declared.upper()],
            nocase=name in nocase,
            not_null=bool(not_null) or primary_key == (name,),
            default=_default(default),
            # INTEGER PRIMARY KEY alone: the column is the rowid, assigned when not given
            # (not in a WITHOUT ROWID table, whose key is only a key).
            generated=primary_key == (name,)
            and declared.upper() == "INTEGER"
            and not re.search(r"\bWITHOUT\s+ROWID\s*$", sql, re.IGNORECASE),
        )
        for _, name, declared, not_null, default, _ in info
    )
    indexes = set()
    for _, index, unique, origin, partial in connection.execute(f"PRAGMA index_list({table})"):
        if origin == "pk":
            continue
        index_sql = connection.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", (index,)
        ).fetchone()[0]
        # The key list of CREATE INDEX … ON table (keys) [WHERE …]; origin "u" (a table's
        # UNIQUE) has no statement of its own, and no expressions either.
        expressions = (
            _split_top_level(_parenthesized(index_sql.split(" ON ", 1)[1])) if index_sql else []
        )
        keys = []
        for position, column_id, column, _, collation, is_key in connection.execute(
            f"PRAGMA index_xinfo({index})"
        ):
            if not is_key:
                continue
            if column_id >= 0:
                keys.append(f"nocase({column})" if collation == "NOCASE" else column)
            else:  # an expression: its text is only in the CREATE INDEX statement
                keys.append(_expression(expressions[position]))
        predicate = (
            _expression(re.split(r"\bWHERE\b", index_sql, flags=re.IGNORECASE)[1])
            if partial
            else None
        )
        indexes.add(Index(tuple(keys), bool(unique), predicate))
    foreign_keys: dict[int, list[tuple]] = {}
    for key_id, seq, target, source, referenced, _, on_delete, _ in connection.execute(
        f"PRAGMA foreign_key_list({table})"
    ):
        foreign_keys.setdefault(key_id, []).append((seq, target, source, referenced, on_delete))
    return Table(
        columns=columns,
        primary_key=primary_key,
        indexes=frozenset(indexes),
        foreign_keys=frozenset(
            ForeignKey(
                columns=tuple(row[2] for row in sorted(rows)),
                table=rows[0][1],
                references=tuple(row[3] for row in sorted(rows)),
                on_delete=rows[0][4],
            )
            for rows in foreign_keys.values()
        ),
        checks=len(re.findall(r"\bCHECK\s*\(", sql, re.IGNORECASE)),
    )


# --- PostgreSQL -------------------------------------------------------------------------------


def pg_schema(url: str) -> dict[str, Table]:
    import psycopg

    with psycopg.connect(url) as connection:
        names = [
            row[0]
            for row in connection.execute(
                "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = current_schema() AND c.relkind = 'r' ORDER BY c.relname"
            )
        ]
        return {name: _pg_table(connection, name) for name in names if not _NOT_OURS.match(name)}


def _pg_table(connection, table: str) -> Table:
    attributes = connection.execute(
        "SELECT a.attname, format_type(a.atttypid, NULL), a.attnotnull,"
        " pg_get_expr(d.adbin, d.adrelid), a.attidentity <> ''"
        " FROM pg_attribute a LEFT JOIN pg_attrdef d"
        "   ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
        " WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped"
        " ORDER BY a.attnum",
        (table,),
    ).fetchall()
    citext = {name for name, type_, *_ in attributes if type_ == "citext"}
    columns = tuple(
        Column(
            name=name,
            type=_PG_TYPES[type_],
            nocase=type_ == "citext",
            not_null=not_null,
            default=_default(default),
            generated=identity,
        )
        for name, type_, not_null, default, identity in attributes
    )
    primary_key: tuple[str, ...] = ()
    indexes = set()
    for index_oid, unique, primary, key_count, predicate in connection.execute(
        "SELECT indexrelid, indisunique, indisprimary, indnkeyatts,"
        " pg_get_expr(indpred, indrelid, true)"
        " FROM pg_index WHERE indrelid = %s::regclass",
        (table,),
    ).fetchall():
        keys = tuple(
            connection.execute("SELECT pg_get_indexdef(%s, %s, true)", (index_oid, k)).fetchone()[0]
            for k in range(1, key_count + 1)
        )
        if primary:
            primary_key = keys
            continue
        keys = tuple(f"nocase({key})" if key in citext else _expression(key) for key in keys)
        indexes.add(Index(keys, unique, None if predicate is None else _expression(predicate)))
    foreign_keys = frozenset(
        ForeignKey(tuple(columns), target, tuple(referenced), _ON_DELETE[action])
        for columns, target, referenced, action in connection.execute(
            "SELECT"
            " array(SELECT attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)"
            "   JOIN pg_attribute ON attrelid = c.conrelid AND attnum = k.n ORDER BY k.i),"
            " c.confrelid::regclass::text,"
            " array(SELECT attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)"
            "   JOIN pg_attribute ON attrelid = c.confrelid AND attnum = k.n ORDER BY k.i),"
            " c.confdeltype"
            " FROM pg_constraint c WHERE c.conrelid = %s::regclass AND c.contype = 'f'",
            (table,),
        )
    )
    (checks,) = connection.execute(
        "SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'c'",
        (table,),
    ).fetchone()
    return Table(columns, primary_key, frozenset(indexes), foreign_keys, checks)


# --- the tests --------------------------------------------------------------------------------


@pytest.fixture
def both(postgres_url: str, tmp_path: Path) -> tuple[dict[str, Table], dict[str, Table]]:
    """The schema of a fresh SQLite file and of a fresh PostgreSQL database, each migrated."""
    apply_migrations(tmp_path / "bot.db")
    apply_postgres_migrations(postgres_url)
    return sqlite_schema(tmp_path / "bot.db"), pg_schema(postgres_url)


def _differences(sqlite: dict[str, Table], pg: dict[str, Table]) -> dict[str, tuple]:
    return {
        name: (sqlite.get(name), pg.get(name))
        for name in sorted(sqlite.keys() | pg.keys())
        if sqlite.get(name) != pg.get(name)
    }


def test_both_backends_have_the_same_fifteen_tables(both) -> None:
    sqlite, pg = both
    expected = [
        "campaign_gms",
        "campaigns",
        "characters",
        "command_syncs",
        "cosmos_challenges",
        "end_prompts",
        "macros",
        "realms_traits",
        "roll_limits",
        "rolls",
        "sixpool_contests",
        "sixpool_group_rolls",
        "sixpool_groups",
        "sixpool_trained_only",
        "tracks",
    ]
    assert sorted(sqlite) == expected
    assert sorted(pg) == expected


def test_every_table_matches_column_for_column_index_for_index_key_for_key(both) -> None:
    sqlite, pg = both
    assert _differences(sqlite, pg) == {}


# Written by hand from data/migrations/0001_foundation.sql and 0008/0009_macros: what both
# introspections must find, so that the comparison above compares what we think it does.
_TRACKS = Table(
    columns=(
        Column("id", "integer", False, True, None, True),
        Column("campaign_id", "integer", False, True, None, False),
        Column("character_id", "integer", False, False, None, False),
        Column("name", "text", False, True, None, False),
        Column("value", "integer", False, True, None, False),
        Column("minimum", "integer", False, True, None, False),
        Column("maximum", "integer", False, True, None, False),
    ),
    primary_key=("id",),
    indexes=frozenset({Index(("campaign_id", "coalesce(character_id,0)", "name"), True, None)}),
    foreign_keys=frozenset(
        {
            ForeignKey(("campaign_id",), "campaigns", ("id",), "CASCADE"),
            ForeignKey(("character_id",), "characters", ("id",), "CASCADE"),
        }
    ),
    checks=1,
)
_MACROS_INDEXES = frozenset(
    {Index(("coalesce(user_id,0)", "coalesce(campaign_id,0)", "nocase(name)"), True, None)}
)
_CAMPAIGNS_INDEXES = frozenset({Index(("channel_id",), True, "ended_atisnull")})
_CHARACTERS_INDEXES = frozenset(
    {
        Index(("campaign_id", "user_id", "nocase(name)"), True, None),
        Index(("campaign_id", "nocase(name)"), True, None),
    }
)


@pytest.mark.parametrize("side", ["sqlite", "postgresql"])
def test_both_introspections_read_what_the_migrations_say(both, side: str) -> None:
    schema = both[0] if side == "sqlite" else both[1]
    assert schema["tracks"] == _TRACKS
    assert schema["macros"].indexes == _MACROS_INDEXES
    assert schema["campaigns"].indexes == _CAMPAIGNS_INDEXES
    assert schema["characters"].indexes == _CHARACTERS_INDEXES
    assert [column.name for column in schema["campaigns"].columns] == [
        "id", "guild_id", "channel_id", "system", "name", "created_by",
        "created_at", "ended_at", "ended_by", "settings", "switches",
    ]  # fmt: skip
    assert schema["campaign_gms"].primary_key == ("campaign_id", "user_id")
    assert schema["rolls"].foreign_keys == {
        ForeignKey(("campaign_id",), "campaigns", ("id",), "SET NULL")
    }
    contests = schema["sixpool_contests"].columns
    assert contests[-7] == Column("expires_at", "real", False, True, None, False)
    assert contests[-4] == Column(
        "defender_skill", "text", False, False, None, False
    )  # 0013_sixpool_skills adds skill and defender_skill last, 0019 three more after them
    assert [column.name for column in contests[-3:]] == ["npc_modifier", "inspiration", "roll_id"]
    # 0019: a GM's NPC challenge has no challenger character and no pool.
    assert [(column.name, column.not_null) for column in (contests[3], contests[5])] == [
        ("challenger_id", False),
        ("pool", False),
    ]
    assert schema["sixpool_trained_only"].primary_key == ("campaign_id", "skill")
    assert schema["realms_traits"].primary_key == ("campaign_id", "user_id", "trait")
    assert schema["cosmos_challenges"].columns[8].default == "'open'"


def test_the_comparison_notices_a_lost_predicate_a_changed_on_delete_and_a_dropped_default(
    postgres_url: str, tmp_path: Path
) -> None:
    """Proof that the comparison can fail: break three things in PostgreSQL, all three show."""
    import psycopg

    apply_migrations(tmp_path / "bot.db")
    apply_postgres_migrations(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("DROP INDEX campaigns_one_active_per_channel")
        connection.execute("CREATE UNIQUE INDEX one_per_channel ON campaigns (channel_id)")
        connection.execute("ALTER TABLE rolls DROP CONSTRAINT rolls_campaign_id_fkey")
        connection.execute(
            "ALTER TABLE rolls ADD FOREIGN KEY (campaign_id) REFERENCES campaigns (id)"
            " ON DELETE CASCADE"
        )
        connection.execute("ALTER TABLE macros ALTER COLUMN created_at DROP DEFAULT")
    differences = _differences(sqlite_schema(tmp_path / "bot.db"), pg_schema(postgres_url))
    assert sorted(differences) == ["campaigns", "macros", "rolls"]
    sqlite_campaigns, pg_campaigns = differences["campaigns"]
    assert pg_campaigns.indexes == {Index(("channel_id",), True, None)}
    assert sqlite_campaigns.indexes == _CAMPAIGNS_INDEXES


_ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_the_created_at_default_is_the_same_utc_iso_text_on_both(
    postgres_url: str, tmp_path: Path
) -> None:
    import psycopg

    insert = (
        "INSERT INTO campaigns (channel_id, system, name, created_by) VALUES (1, 'cosmos', 'c', 2)"
    )
    before = datetime.now(UTC)
    apply_migrations(tmp_path / "bot.db")
    with sqlite3.connect(tmp_path / "bot.db") as connection:
        connection.execute(insert)
        (sqlite_stamp,) = connection.execute("SELECT created_at FROM campaigns").fetchone()
    apply_postgres_migrations(postgres_url)
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(insert)
        [(pg_stamp,)] = connection.execute("SELECT created_at FROM campaigns").fetchall()
    after = datetime.now(UTC)
    for stamp in (sqlite_stamp, pg_stamp):
        assert _ISO_UTC.match(stamp), stamp
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        # Millisecond text: `before` rounded down to its millisecond is the earliest possible.
        assert before - timedelta(milliseconds=1) <= moment <= after


# Small numbers and 0/1 flags; every other whole-number column may hold a Discord snowflake or
# a row id (64 bits in SQLite) and must be BIGINT in PostgreSQL.
_SMALL_INTEGERS = {
    ("tracks", "value"),
    ("tracks", "minimum"),
    ("tracks", "maximum"),
    ("cosmos_challenges", "tn"),
    ("cosmos_challenges", "successes_needed"),
    ("cosmos_challenges", "max_rolls"),
    ("cosmos_challenges", "successes"),
    ("cosmos_challenges", "rolls_used"),
    ("sixpool_contests", "spend"),
    ("sixpool_contests", "advantage"),
    ("sixpool_contests", "disadvantage"),
    ("sixpool_contests", "npc_modifier"),
    ("sixpool_contests", "inspiration"),
    ("sixpool_groups", "dc"),
    ("sixpool_groups", "boost"),
    ("sixpool_group_rolls", "total"),
    ("sixpool_group_rolls", "success"),
    ("roll_limits", "rolls"),
    ("characters", "rolled"),  # 0 or 1
}
# Whole numbers too big for INTEGER that are neither ids nor snowflakes.
_BIG_NUMBERS = {("roll_limits", "window_start_ms")}


def test_ids_and_snowflakes_are_bigint_in_postgresql(postgres_url: str) -> None:
    import psycopg

    apply_postgres_migrations(postgres_url)
    with psycopg.connect(postgres_url) as connection:
        rows = connection.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND data_type IN ('integer', 'bigint')"
            " AND table_name NOT LIKE '%yoyo%'"
        ).fetchall()
    small = {(table, column) for table, column, type_ in rows if type_ == "integer"}
    big = {(table, column) for table, column, type_ in rows if type_ == "bigint"}
    assert small == _SMALL_INTEGERS
    assert ("campaigns", "channel_id") in big and ("rolls", "id") in big
    assert all(
        column == "id" or column.endswith(("_id", "_by")) for _, column in big - _BIG_NUMBERS
    )
    assert big >= _BIG_NUMBERS
