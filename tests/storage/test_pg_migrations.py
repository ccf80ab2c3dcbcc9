"""The PostgreSQL migrations (data/migrations/postgresql, bot.storage.migrate): applied once,
idempotent, in step with the SQLite set, and what they do to existing rows is what SQLite's do."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from yoyo import get_backend, read_migrations

from bot.storage.database import MIGRATIONS_DIRECTORY
from bot.storage.migrate import POSTGRES_MIGRATIONS_DIRECTORY, apply_postgres_migrations, yoyo_url

ALL_IDS = sorted(path.stem for path in MIGRATIONS_DIRECTORY.glob("*.sql"))


def _connect(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def test_every_sqlite_migration_has_a_postgresql_twin_of_the_same_id() -> None:
    assert len(ALL_IDS) == 20  # a glob that finds nothing must not pass
    assert sorted(path.stem for path in POSTGRES_MIGRATIONS_DIRECTORY.glob("*.sql")) == ALL_IDS


def test_a_fresh_database_gets_every_migration_and_a_second_run_applies_nothing(
    postgres_url: str,
) -> None:
    assert apply_postgres_migrations(postgres_url) == ALL_IDS
    assert apply_postgres_migrations(postgres_url) == []
    with _connect(postgres_url) as connection:
        applied = [row[0] for row in connection.execute("SELECT migration_id FROM _yoyo_migration")]
    assert sorted(applied) == ALL_IDS


def test_a_database_with_every_migration_is_answered_without_yoyo_and_a_new_one_still_applies(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every start but an upgrade's: one read, no lock taken, no migration file parsed."""
    assert apply_postgres_migrations(postgres_url) == ALL_IDS
    with monkeypatch.context() as patched:
        patched.setattr("bot.storage.migrate.get_backend", _no_yoyo)
        assert apply_postgres_migrations(postgres_url) == []
    upgrade = tmp_path / "migrations"
    upgrade.mkdir()
    for path in POSTGRES_MIGRATIONS_DIRECTORY.glob("*.sql"):
        (upgrade / path.name).write_text(path.read_text())
    (upgrade / "0999_upgrade.sql").write_text("CREATE TABLE upgraded (id INTEGER);\n")
    assert apply_postgres_migrations(postgres_url, upgrade) == ["0999_upgrade"]


def _no_yoyo(url: str) -> None:
    raise AssertionError("yoyo was asked, with every migration applied")


def test_the_postgres_scheme_is_accepted_too(postgres_url: str) -> None:
    url = postgres_url.replace("postgresql://", "postgres://", 1)
    assert apply_postgres_migrations(url) == ALL_IDS


def test_yoyo_gets_its_psycopg3_scheme_and_everything_else_of_the_url() -> None:
    assert yoyo_url("postgres://u:p%40ss@db.example:5433/bot?sslmode=require") == (
        "postgresql+psycopg://u:p%40ss@db.example:5433/bot?sslmode=require"
    )
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        yoyo_url("sqlite:///data/bot.db")


def test_a_malformed_url_is_refused_without_repeating_its_password() -> None:
    with pytest.raises(ValueError) as caught:
        apply_postgres_migrations("postgresql://bot:hunter2@db.example:notaport/bot")
    assert "hunter2" not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


# Rows written before 0003 moved each system's setting into the JSON `settings` column (and
# 0014 a Sinew campaign's skin).
_BEFORE_0003 = [
    # (system, skin, edge_option, lingering_taint) → the settings 0003 and 0014 make of them
    ("sixpool", "fantasy", "pool", 0, {"edge_option": "pool"}),
    ("sixpool", "scifi", None, 0, {"edge_option": None}),
    ("sinew", "scifi", None, 1, {"lingering_taint": True, "skin": "scifi"}),
    ("sinew", "fantasy", None, 0, {"lingering_taint": False, "skin": "fantasy"}),
    ("cosmos", "scifi", None, 0, {}),
]


def _migrate_through_0002_then_the_rest(backend_url: str, directory: Path, execute) -> None:
    backend = get_backend(backend_url)
    try:
        migrations = read_migrations(str(directory))
        with backend.lock():
            backend.apply_migrations(backend.to_apply(migrations.filter(lambda m: m.id < "0003")))
        for number, (system, skin, edge, taint, _) in enumerate(_BEFORE_0003, start=1):
            execute(
                "INSERT INTO campaigns (channel_id, system, name, skin, edge_option,"
                " lingering_taint, created_by) VALUES (%s, %s, 'c', %s, %s, %s, 1)",
                (number, system, skin, edge, taint),
            )
        with backend.lock():
            backend.apply_migrations(backend.to_apply(migrations))
    finally:
        backend.connection.close()


def test_0003_and_0014_turn_old_columns_into_the_same_settings_json_on_both_backends(
    postgres_url: str, tmp_path: Path
) -> None:
    expected = [settings for *_, settings in _BEFORE_0003]

    sqlite_path = tmp_path / "bot.db"

    def sqlite_execute(sql: str, parameters: tuple) -> None:
        with sqlite3.connect(sqlite_path) as connection:
            connection.execute(sql.replace("%s", "?"), parameters)

    _migrate_through_0002_then_the_rest(
        f"sqlite:///{sqlite_path}", MIGRATIONS_DIRECTORY, sqlite_execute
    )
    with sqlite3.connect(sqlite_path) as connection:
        sqlite_settings = [
            json.loads(row[0])
            for row in connection.execute("SELECT settings FROM campaigns ORDER BY id")
        ]

    def pg_execute(sql: str, parameters: tuple) -> None:
        with _connect(postgres_url) as connection:
            connection.execute(sql, parameters)

    _migrate_through_0002_then_the_rest(
        yoyo_url(postgres_url), POSTGRES_MIGRATIONS_DIRECTORY, pg_execute
    )
    with _connect(postgres_url) as connection:
        pg_settings = [
            json.loads(row[0])
            for row in connection.execute("SELECT settings FROM campaigns ORDER BY id")
        ]
    assert sqlite_settings == expected
    assert pg_settings == expected


def test_processes_starting_together_apply_each_migration_exactly_once(postgres_url: str) -> None:
    """Shards start at once: yoyo's lock lets one migrate while the others wait, then find
    nothing to do (each worker has its own connection, as each process would)."""
    import threading

    # yoyo's own tables first: creating them takes yoyo's lock anyway, which would serialize
    # the workers whether or not apply_postgres_migrations locks.
    backend = get_backend(yoyo_url(postgres_url))
    backend.ensure_internal_schema_updated()
    backend.connection.close()
    workers = 4
    start = threading.Barrier(workers)
    applied: list[list[str]] = []
    failures: list[BaseException] = []

    def migrate() -> None:
        start.wait()
        try:
            applied.append(apply_postgres_migrations(postgres_url))
        except BaseException as error:  # reported below, with the others' results
            failures.append(error)

    threads = [threading.Thread(target=migrate) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(applied) == [[], [], [], ALL_IDS]
