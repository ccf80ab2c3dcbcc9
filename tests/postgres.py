"""A throwaway PostgreSQL server for the tests (a pytest plugin, loaded by tests/conftest.py).

``postgres_server`` (session scope) runs ``initdb`` and ``pg_ctl start`` into a temporary
folder, listening on a free port of 127.0.0.1 only (its unix socket in that folder too), and
stops it and removes the folder at the end. ``postgres_url`` (function scope) creates a fresh,
empty database for one test and drops it afterwards; it yields
``postgresql://postgres@127.0.0.1:PORT/NAME``. ``migrated_postgres_url`` is the same with every
PostgreSQL migration applied (copied from a template database migrated once per session).

Without PostgreSQL installed the tests that need it are skipped, saying how to install it;
with the ``CI`` environment variable set they fail instead: CI must never skip them
(.ci/run installs PostgreSQL when it is missing).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

# The superuser of the test cluster (initdb --username): the same name whoever runs the tests.
SUPERUSER = "postgres"
# Debian/Ubuntu keep the server binaries off PATH, one folder per major version.
LIBRARY_GLOB = "/usr/lib/postgresql/*/bin"
INSTALL_HINT = (
    "PostgreSQL is not installed (no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin): "
    "install it with `apt-get install postgresql` (Debian/Ubuntu) or "
    "`brew install postgresql` (macOS) to run these tests"
)
START_ATTEMPTS = 3  # a free port can be taken by someone else between our check and the start


@dataclass(frozen=True)
class PostgresBinaries:
    initdb: Path
    pg_ctl: Path


@dataclass(frozen=True)
class PostgresServer:
    """A running test cluster: where it listens and how to reach it as the superuser."""

    host: str
    port: int
    socket_dir: Path
    user: str = SUPERUSER

    def url(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"


def _version_key(folder: str) -> tuple[int, ...]:
    version = Path(folder).parent.name  # /usr/lib/postgresql/15/bin → "15"
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def find_binaries(
    search_path: str | None = None, library_glob: str = LIBRARY_GLOB
) -> PostgresBinaries | None:
    """initdb and pg_ctl from PATH, else from the newest /usr/lib/postgresql/*/bin; None if absent.

    Symlinks are resolved so that pg_ctl finds the ``postgres`` binary next to itself.
    """
    initdb = shutil.which("initdb", path=search_path)
    pg_ctl = shutil.which("pg_ctl", path=search_path)
    if initdb and pg_ctl:
        return PostgresBinaries(Path(initdb).resolve(), Path(pg_ctl).resolve())
    for folder in sorted(glob.glob(library_glob), key=_version_key, reverse=True):
        initdb_file, pg_ctl_file = Path(folder, "initdb"), Path(folder, "pg_ctl")
        if initdb_file.is_file() and pg_ctl_file.is_file():
            return PostgresBinaries(initdb_file, pg_ctl_file)
    return None


def require_binaries(
    search_path: str | None = None, library_glob: str = LIBRARY_GLOB
) -> PostgresBinaries:
    """The binaries, or skip the test (locally) / fail it (when ``CI`` is set) saying why."""
    binaries = find_binaries(search_path, library_glob)
    if binaries is not None:
        return binaries
    if os.environ.get("CI"):
        pytest.fail(f"{INSTALL_HINT} (CI is set: these tests must run, not skip)", pytrace=False)
    pytest.skip(INSTALL_HINT)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_owner(command: Sequence[str | Path]) -> list[str]:
    """The command, run as the ``postgres`` system user when we are root.

    initdb and the server refuse to run as root; the Debian package creates that user.
    """
    arguments = [str(part) for part in command]
    if os.geteuid() != 0:
        return arguments
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        pytest.fail(
            "the tests run as root but there is no `postgres` system user to run initdb as "
            "(the distribution's postgresql package creates it)",
            pytrace=False,
        )
    return ["runuser", "-u", "postgres", "--", *arguments]


def _run(command: Sequence[str | Path]) -> None:
    result = subprocess.run(_as_owner(command), capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{result.stdout}{result.stderr}")


def start_server(binaries: PostgresBinaries, folder: Path) -> PostgresServer:
    """initdb a cluster into ``folder`` and start it on a free port of 127.0.0.1."""
    if os.geteuid() == 0:
        shutil.chown(folder, user="postgres")
    data, sockets = folder / "data", folder / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(sockets, user="postgres")
    # Trust: the server listens on 127.0.0.1 and a socket in our private folder only, so the
    # tests connect without a password. C locale: byte order, as SQLite sorts; UTF-8 text.
    # --no-sync: the cluster is thrown away, nothing needs to reach the disk.
    _run(
        [
            binaries.initdb,
            f"--pgdata={data}",
            f"--username={SUPERUSER}",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        ]
    )
    last_error: RuntimeError | None = None
    for _ in range(START_ATTEMPTS):
        port = _free_port()
        # Durability off (fsync, synchronous_commit, full_page_writes): a test cluster that
        # dies loses nothing anyone needs, and it makes CREATE DATABASE and commits fast.
        # wal_level=minimal (no replicas here): copying the migrated template is 0.10 s, not 0.17.
        options = (
            f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c wal_level=minimal -c max_wal_senders=0"
        )
        try:
            _run(
                [
                    binaries.pg_ctl,
                    "start",
                    f"--pgdata={data}",
                    f"--log={folder / 'server.log'}",
                    "--wait",
                    "--timeout=60",
                    "--options",
                    options,
                ]
            )
        except RuntimeError as error:  # most likely the port was taken meanwhile
            last_error = error
            continue
        return PostgresServer(host="127.0.0.1", port=port, socket_dir=sockets)
    log = folder / "server.log"
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    raise RuntimeError(f"the test PostgreSQL server did not start: {last_error}\n{tail}")


def stop_server(binaries: PostgresBinaries, folder: Path) -> None:
    # Immediate: nothing in a test cluster is worth a clean shutdown's checkpoint.
    _run([binaries.pg_ctl, "stop", f"--pgdata={folder / 'data'}", "--mode=immediate", "--wait"])


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    binaries = require_binaries()
    folder = Path(tempfile.mkdtemp(prefix="dicebot-pg-"))
    try:
        started = time.perf_counter()
        server = start_server(binaries, folder)
        # Shown with -s / in the report's captured output: the cost every PG test session pays.
        print(f"test PostgreSQL started in {time.perf_counter() - started:.2f} s on {server.port}")
        try:
            yield server
        finally:
            stop_server(binaries, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _admin(server: PostgresServer):  # -> psycopg.Connection (imported lazily: an extra)
    import psycopg

    return psycopg.connect(server.url("postgres"), autocommit=True)


@contextmanager
def fresh_database(server: PostgresServer, template: str | None = None) -> Iterator[str]:
    """A new database (a copy of ``template`` if given), its URL, dropped afterwards."""
    import psycopg.sql

    name = f"test_{uuid.uuid4().hex}"
    create = psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name))
    if template is not None:
        # FILE_COPY: for a small template, copying its files beats logging every page to WAL.
        create += psycopg.sql.SQL(" TEMPLATE {} STRATEGY FILE_COPY").format(
            psycopg.sql.Identifier(template)
        )
    with _admin(server) as admin:
        admin.execute(create)
    try:
        yield server.url(name)
    finally:
        with _admin(server) as admin:
            # FORCE: a connection the test left open must not keep the database alive.
            admin.execute(
                psycopg.sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    psycopg.sql.Identifier(name)
                )
            )


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A URL of a fresh, empty database of its own for this test; dropped after it."""
    with fresh_database(postgres_server) as url:
        yield url


@pytest.fixture(scope="session")
def postgres_migrated_template(postgres_server: PostgresServer) -> str:
    """A database migrated once per session (data/migrations/postgresql), to copy from."""
    from bot.storage.migrate import apply_postgres_migrations

    name = "template_migrated"
    with _admin(postgres_server) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    apply_postgres_migrations(postgres_server.url(name))
    with _admin(postgres_server) as admin:
        # CREATE DATABASE … TEMPLATE fails while anyone is connected to the template: no one may.
        admin.execute(f"ALTER DATABASE {name} WITH ALLOW_CONNECTIONS false")
    return name


@pytest.fixture
def migrated_postgres_url(
    postgres_server: PostgresServer, postgres_migrated_template: str
) -> Iterator[str]:
    """A fresh database of its own with every migration applied, dropped after the test.

    A copy of the session's migrated template: about 0.10 s, where creating and migrating
    a database is about 0.25 s (measured on the 2-core CI machine).
    """
    with fresh_database(postgres_server, template=postgres_migrated_template) as url:
        yield url
