"""The throwaway PostgreSQL of the tests (tests/postgres.py): a fresh database per test, dropped
after it; missing PostgreSQL skips locally and fails under CI."""

from __future__ import annotations

import stat
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.postgres import PostgresServer, find_binaries, require_binaries


def _connect(url: str):
    import psycopg

    return psycopg.connect(url, autocommit=True)


def test_each_test_gets_its_own_empty_database_on_127_0_0_1(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    parts = urlsplit(postgres_url)
    assert (parts.scheme, parts.hostname, parts.port) == (
        "postgresql",
        "127.0.0.1",
        postgres_server.port,
    )
    with _connect(postgres_url) as connection:
        database, address, port = connection.execute(
            "SELECT current_database(), host(inet_server_addr()), inet_server_port()"
        ).fetchone()
        assert (database, address, port) == (parts.path[1:], "127.0.0.1", postgres_server.port)
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        assert tables == (0,)
        # Left behind on purpose: the next test must not see it (its database is another).
        connection.execute("CREATE TABLE left_behind (id integer)")


def test_only_the_running_tests_database_exists(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    """Every other test's database was dropped when it ended (the tests run one at a time)."""
    with _connect(postgres_url) as connection:
        names = [
            row[0]
            for row in connection.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%' ORDER BY datname"
            )
        ]
        assert names == [urlsplit(postgres_url).path[1:]]
        assert connection.execute("SELECT to_regclass('left_behind')").fetchone() == (None,)


def test_the_cluster_runs_without_durability_and_listens_on_loopback_only(
    postgres_url: str,
) -> None:
    with _connect(postgres_url) as connection:
        settings = {
            name: connection.execute(f"SHOW {name}").fetchone()[0]
            for name in ("fsync", "synchronous_commit", "full_page_writes", "listen_addresses")
        }
    assert settings == {
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
        "listen_addresses": "127.0.0.1",
    }


def test_missing_postgresql_skips_locally_saying_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"apt-get install postgresql.*brew install"):
        require_binaries(search_path=str(tmp_path), library_glob=str(tmp_path / "none/*/bin"))


def test_missing_postgresql_fails_under_ci(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="CI is set"):
        require_binaries(search_path=str(tmp_path), library_glob=str(tmp_path / "none/*/bin"))


def _fake_binaries(folder: Path) -> None:
    folder.mkdir(parents=True)
    for name in ("initdb", "pg_ctl"):
        path = folder / name
        path.write_text("#!/bin/sh\n")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_binaries_off_path_come_from_the_newest_debian_version_folder(tmp_path: Path) -> None:
    for version in ("9.6", "15", "13"):
        _fake_binaries(tmp_path / "lib" / version / "bin")
    (tmp_path / "empty").mkdir()
    found = find_binaries(search_path=str(tmp_path / "empty"), library_glob=f"{tmp_path}/lib/*/bin")
    assert found is not None
    assert found.initdb == tmp_path / "lib" / "15" / "bin" / "initdb"
    assert found.pg_ctl == tmp_path / "lib" / "15" / "bin" / "pg_ctl"


def test_binaries_on_path_win_over_the_version_folders(tmp_path: Path) -> None:
    _fake_binaries(tmp_path / "lib" / "15" / "bin")
    _fake_binaries(tmp_path / "path")
    found = find_binaries(search_path=str(tmp_path / "path"), library_glob=f"{tmp_path}/lib/*/bin")
    assert found is not None
    assert found.pg_ctl == tmp_path / "path" / "pg_ctl"


def _tables(url: str) -> list[str]:
    with _connect(url) as connection:
        return [
            row[0]
            for row in connection.execute(
                "SELECT table_name FROM information_schema.tables"
                " WHERE table_schema = 'public' ORDER BY table_name"
            )
        ]


def test_a_migrated_database_has_every_migration_and_needs_none(migrated_postgres_url: str) -> None:
    from bot.storage.migrate import apply_postgres_migrations

    assert "campaigns" in _tables(migrated_postgres_url)
    assert "macros" in _tables(migrated_postgres_url)
    assert apply_postgres_migrations(migrated_postgres_url) == []
    with _connect(migrated_postgres_url) as connection:
        connection.execute(
            "INSERT INTO campaigns (channel_id, system, name, created_by)"
            " VALUES (1, 'cosmos', 'left behind', 2)"
        )


def test_migrated_databases_are_copies_not_one_shared_database(
    migrated_postgres_url: str,
) -> None:
    with _connect(migrated_postgres_url) as connection:
        assert connection.execute("SELECT count(*) FROM campaigns").fetchone() == (0,)
