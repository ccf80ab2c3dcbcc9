"""The host's commands: `python -m bot setup`, `check` and `migrate` (docs/hosting.md, "Set up").

``setup`` takes the bot token (``--token``, ``DISCORD_TOKEN``, or a prompt), checks its form,
derives the application's id from it, writes it into ``.env`` (every other line kept, mode
0600), prints the invite links and offers a systemd unit. ``check`` says, a line each, whether
the bot could start here: the token's form, the other settings, the database (reachable and
migrated; PostgreSQL's server reachable) and the metrics port. ``migrate`` creates or upgrades
the database as a start would, without the token. None of them contacts Discord.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import socket
import sqlite3
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from bot.config import (
    MALFORMED_TOKEN,
    PROJECT_ROOT,
    Backend,
    ConfigError,
    DatabaseLocation,
    Settings,
    application_id_of,
    database_location_of,
    environment_values,
    metrics_address_of,
)

__all__ = [
    "ENV_FILE",
    "Finding",
    "check",
    "env_with_token",
    "findings",
    "migrate",
    "setup",
    "systemd_unit",
    "write_env",
]

EXIT_CONFIGURATION = 2
ENV_FILE = Path(".env")  # in the working folder, where `python -m bot` reads it
ENV_EXAMPLE = PROJECT_ROOT / ".env.example"  # a new .env starts as this, every variable named
ENV_MODE = 0o600  # the token is a password: the owner alone reads and writes the file
UNIT_EXAMPLE = "/etc/systemd/system/dicebot.service"
OK, FAILED = "✓", "✗"
# A line that sets DISCORD_TOKEN (python-dotenv's syntax: an optional `export`, spaces around =).
_TOKEN_LINE = re.compile(
    r"^(?P<name>[ \t]*(?:export[ \t]+)?DISCORD_TOKEN[ \t]*=[ \t]*).*$", re.MULTILINE
)


# --- setup


def env_with_token(text: str | None, token: str) -> str:
    """``.env``'s text with DISCORD_TOKEN set to ``token``: every line that sets it rewritten,
    every other line kept as it is; appended when no line sets it. ``text`` None: no .env yet,
    so it starts as .env.example (each variable documented, only the token filled in)."""
    if text is None:
        text = ENV_EXAMPLE.read_text(encoding="utf-8") if ENV_EXAMPLE.is_file() else ""
    replaced, count = _TOKEN_LINE.subn(lambda found: f"{found['name']}{token}", text)
    if count:
        return replaced
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}DISCORD_TOKEN={token}\n"


def write_env(path: Path, token: str) -> bool:
    """Set DISCORD_TOKEN in the .env file at ``path``, readable by its owner only (0600);
    return whether the file was there before. Written beside it and renamed into place, so a
    reader sees the old file or the new one, never half of one."""
    existed = path.is_file()
    text = env_with_token(path.read_text(encoding="utf-8") if existed else None, token)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, ENV_MODE)
    try:
        os.fchmod(descriptor, ENV_MODE)  # whatever the umask, and a leftover file's mode
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return existed


def systemd_unit(working_folder: Path, python: str, user: str) -> str:
    """A systemd unit that runs the bot from ``working_folder`` (its .env) as ``user``."""
    return f"""\
# {UNIT_EXAMPLE}: then systemctl daemon-reload && systemctl enable --now dicebot
[Unit]
Description=Tabletop dice bot
After=network-online.target
Wants=network-online.target

[Service]
User={user}
WorkingDirectory={working_folder}
# .env in the working folder holds the token; the environment wins over it.
ExecStart={python} -m bot
Restart=always
RestartSec=5
# SIGTERM: the bot answers what is in flight (at most 5 s), then exits 0.
TimeoutStopSec=15

[Install]
WantedBy=multi-user.target
"""


@dataclass(frozen=True, slots=True)
class Console:
    """Where setup reads its answers and writes what it says (the tests give their own)."""

    input: TextIO
    output: TextIO
    errors: TextIO

    @property
    def interactive(self) -> bool:
        """Whether a person is at the keyboard: setup asks its optional questions only then."""
        return self.input.isatty()

    def ask(self, question: str, *, secret: bool = False) -> str | None:
        """Ask ``question``; the answer stripped, or None at the end of the input."""
        if secret and self.interactive:
            try:
                return getpass.getpass(question, stream=self.errors).strip()
            except EOFError:
                return None
        self.errors.write(question)
        self.errors.flush()
        line = self.input.readline()
        if not self.interactive:
            self.errors.write("\n")  # the answer wasn't echoed: what follows starts a line
        return line.strip() if line else None


def _permission_names() -> str:
    from bot.anywhere import INVITE_PERMISSION_FLAGS

    return ", ".join(flag.replace("_", " ") for flag in INVITE_PERMISSION_FLAGS)


def setup(
    token: str | None,
    *,
    no_input: bool,
    systemd: Path | None,
    console: Console | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """`python -m bot setup`: the token into .env, the invite links, a systemd unit."""
    console = console or Console(sys.stdin, sys.stdout, sys.stderr)
    environ = os.environ if environ is None else environ
    env_file = Path.cwd() / ENV_FILE
    known = environment_values(environ, env_file).get("DISCORD_TOKEN", "").strip()
    if token is None and environ.get("DISCORD_TOKEN", "").strip():
        token = environ["DISCORD_TOKEN"].strip()
    if token is None and no_input:
        if not known:
            print(
                "error: DISCORD_TOKEN is not set: give --token or set DISCORD_TOKEN "
                "(--no-input never asks).",
                file=console.errors,
            )
            return EXIT_CONFIGURATION
        token = known  # .env's own: setup again prints the links and rewrites nothing else
    if token is None:
        console.errors.write(
            "The bot token: https://discord.com/developers/applications → your application "
            "→ Bot → Reset Token.\n"
        )
        keep = " (Enter keeps the one in .env)" if known else ""
        answer = console.ask(f"Bot token{keep}: ", secret=True)
        token = answer or known
        if not token:
            print("error: DISCORD_TOKEN is not set: no token was given.", file=console.errors)
            return EXIT_CONFIGURATION
    token = token.strip()
    application_id = application_id_of(token)
    if application_id is None:
        print(f"error: {MALFORMED_TOKEN}", file=console.errors)
        return EXIT_CONFIGURATION
    try:
        existed = write_env(env_file, token)
    except OSError as error:
        print(f"error: can't write {env_file} ({error.strerror or error}).", file=console.errors)
        return 1
    guild_set = bool(environment_values(environ, env_file).get("GUILD_ID", "").strip())
    _say_invites(console.output, env_file, existed, application_id, guild_set=guild_set)
    return _offer_unit(console, no_input, systemd)


def _say_invites(
    out: TextIO, env_file: Path, existed: bool, application_id: int, *, guild_set: bool
) -> None:
    from bot.anywhere import INVITE_PERMISSIONS, INVITE_SCOPES, invite_url, user_install_url

    kept = "DISCORD_TOKEN set, every other line kept" if existed else "from .env.example"
    print(f"Wrote {env_file} ({kept}; mode 0600: only you can read it).", file=out)
    print(f"Application id {application_id} (the token's first part).", file=out)
    print(
        f"\nInvite the bot to a server (scopes {' '.join(INVITE_SCOPES)}; permissions "
        f"{INVITE_PERMISSIONS.value}: {_permission_names()}):\n  {invite_url(application_id)}",
        file=out,
    )
    print(
        "Each player may also add it to their own account, to roll in DMs and in servers "
        f"without the bot:\n  {user_install_url(application_id)}",
        file=out,
    )
    guild = (
        "GUILD_ID is set: commands show in that server at once (unset it for DMs and user "
        "installs, which see global commands only)"
        if guild_set
        else "set GUILD_ID in .env to your server's id while trying it out (commands show "
        "there at once; globally they take up to an hour)"
    )
    print(
        f"\nNext: {guild}; run `python -m bot check`, then start it with `python -m bot`.",
        file=out,
    )


def _offer_unit(console: Console, no_input: bool, systemd: Path | None) -> int:
    """Write the systemd unit to ``systemd``; else ask where (a person at the keyboard) or
    print it."""
    unit = systemd_unit(Path.cwd(), sys.executable, getpass.getuser())
    if systemd is None and console.interactive and not no_input:
        answer = console.ask(
            f"\nRun it as a systemd service? A path to write the unit to (e.g. {UNIT_EXAMPLE}), "
            "or Enter to print it here: "
        )
        systemd = Path(answer) if answer else None
    if systemd is None:
        print(
            f"\nA systemd unit to run it as a service (write it with --systemd {UNIT_EXAMPLE}):",
            file=console.output,
        )
        print(unit, end="", file=console.output)
        return 0
    try:
        systemd.write_text(unit, encoding="utf-8")
    except OSError as error:
        print(
            f"error: can't write the unit to {systemd} ({error.strerror or error}): run "
            f"`python -m bot setup --no-input --systemd {systemd}` as a user who may.",
            file=console.errors,
        )
        return 1
    print(
        f"\nWrote the systemd unit {systemd}: systemctl daemon-reload && "
        f"systemctl enable --now {systemd.stem}",
        file=console.output,
    )
    return 0


# --- check


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of `python -m bot check`: whether it holds, and what it found or what to do."""

    ok: bool
    text: str

    def __str__(self) -> str:
        return f"{OK if self.ok else FAILED} {self.text}"


def findings(values: Mapping[str, str]) -> list[Finding]:
    """What `python -m bot check` reports for these variables (.env and the environment)."""
    found = [_token_finding(values.get("DISCORD_TOKEN", "").strip())]
    try:
        Settings.from_mapping(values, need_token=False)
    except ConfigError as error:
        found.append(Finding(False, str(error)))
    else:
        found.append(
            Finding(True, "settings: every other variable of .env and the environment reads")
        )
    try:
        location = database_location_of(values)
    except ConfigError:
        found.append(Finding(False, "database: fix DATABASE_URL first (above)"))
    else:
        found.extend(_database_findings(location))
    if values.get("METRICS_PORT", "").strip():
        found.append(_metrics_finding(values))
    return found


def check(environ: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    """`python -m bot check`: a line each; 0 when every one holds, else 1."""
    out = out or sys.stdout
    lines = findings(environment_values(environ))
    for line in lines:
        print(line, file=out)
    return 0 if all(line.ok for line in lines) else 1


def _token_finding(token: str) -> Finding:
    if not token:
        return Finding(False, "DISCORD_TOKEN is not set: run `python -m bot setup`")
    application_id = application_id_of(token)
    if application_id is None:
        return Finding(False, f"{MALFORMED_TOKEN} Run `python -m bot setup` to set it.")
    return Finding(
        True,
        f"DISCORD_TOKEN is well formed (application {application_id}; Discord itself judges "
        "it at start)",
    )


def _wanted_migrations(kind: Backend) -> set[str]:
    from bot.storage.database import MIGRATIONS_DIRECTORY
    from bot.storage.migrate import POSTGRES_MIGRATIONS_DIRECTORY

    folder = MIGRATIONS_DIRECTORY if kind is Backend.SQLITE else POSTGRES_MIGRATIONS_DIRECTORY
    return {migration.stem for migration in folder.glob("*.sql")}


def _migrated(where: str, applied: set[str], wanted: set[str]) -> Finding:
    missing = wanted - applied
    if missing:
        done = len(wanted) - len(missing)
        return Finding(
            False,
            f"database {where}: not migrated ({done} of {len(wanted)} migrations applied): "
            "run `python -m bot migrate` (starting the bot migrates it too)",
        )
    return Finding(True, f"database {where}: migrated ({len(wanted)} migrations applied)")


def _database_findings(location: DatabaseLocation) -> list[Finding]:
    if location.kind is Backend.POSTGRESQL:
        assert location.url is not None
        return _postgresql_findings(location.url, str(location))
    assert location.path is not None
    return [_sqlite_finding(location.path)]


def _sqlite_finding(path: Path) -> Finding:
    """The SQLite file, read only: there, an SQLite database, writable, migrated."""
    from bot.storage.database.migrations import NOT_A_DATABASE, SQLITE_HEADER

    where = f"{path} (SQLite, DATABASE_PATH)"
    if not path.exists():
        return Finding(
            False,
            f"database {where}: doesn't exist yet: run `python -m bot migrate` to create and "
            "migrate it (starting the bot does too)",
        )
    if not path.is_file():
        return Finding(False, f"database {where}: not a file: give DATABASE_PATH a file's path")
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as error:
        return Finding(False, f"database {where}: can't be read ({error.strerror or error})")
    if header and header != SQLITE_HEADER:
        return Finding(False, f"database {where}: {NOT_A_DATABASE}")
    folder = path.resolve().parent
    if not os.access(path, os.W_OK) or not os.access(folder, os.W_OK | os.X_OK):
        return Finding(
            False,
            f"database {where}: not writable by {getpass.getuser()} (the file and its folder, "
            "for SQLite's journal): run the bot as their owner, or change them",
        )
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        ) as connection:
            rows = connection.execute("SELECT migration_id FROM _yoyo_migration").fetchall()
    except sqlite3.Error:  # never migrated: no migration table
        rows = []
    return _migrated(where, {row[0] for row in rows}, _wanted_migrations(Backend.SQLITE))


def _postgresql_findings(url: str, redacted: str) -> list[Finding]:
    """The PostgreSQL server reachable with DATABASE_URL, and the database migrated."""
    where = f"{redacted} (PostgreSQL, DATABASE_URL)"
    try:
        import psycopg
    except ImportError:
        return [
            Finding(
                False,
                f"database {where}: the PostgreSQL driver is missing: "
                'pip install -e ".[postgresql]"',
            )
        ]
    password = urlsplit(url).password
    try:
        connection = psycopg.connect(url, connect_timeout=5)
    except psycopg.Error as error:
        reason = " ".join(str(error).split())
        if password:
            reason = reason.replace(password, "***")
        return [
            Finding(
                False,
                f"PostgreSQL {where}: can't be reached ({reason[:200]}): check the server, "
                "and the URL's host, port, user, password and database",
            )
        ]
    with contextlib.closing(connection):
        version = connection.info.server_version
        reached = Finding(
            True, f"PostgreSQL {where}: reachable (server {version // 10000}.{version % 10000})"
        )
        try:
            rows = connection.execute("SELECT migration_id FROM _yoyo_migration").fetchall()
        except psycopg.Error:  # never migrated: no migration table
            rows = []
    return [
        reached,
        _migrated(where, {row[0] for row in rows}, _wanted_migrations(Backend.POSTGRESQL)),
    ]


def _metrics_finding(values: Mapping[str, str]) -> Finding:
    """Whether the metrics' address can be served, bound as prometheus_client binds it."""
    try:
        address = metrics_address_of(values)
    except ConfigError:
        return Finding(False, "metrics: fix METRICS_PORT or METRICS_HOST first (above)")
    assert address is not None
    try:
        family, kind, _, _, sockaddr = socket.getaddrinfo(
            address.host, address.port, type=socket.SOCK_STREAM
        )[0]
        with socket.socket(family, kind) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
            probe.bind(sockaddr)
    except OSError as error:
        return Finding(
            False,
            f"metrics: {address.host}:{address.port} can't be served "
            f"({error.strerror or error}): another process holds the port (the bot itself, "
            "if it runs?): stop it, or set another METRICS_PORT",
        )
    return Finding(True, f"metrics: port {address.port} on {address.host} is free")


# --- migrate


def migrate(environ: Mapping[str, str] | None = None, out: TextIO | None = None) -> int:
    """`python -m bot migrate`: create or upgrade the database as a start would (no token)."""
    out = out or sys.stdout
    try:
        location = database_location_of(environment_values(environ))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    apply: Callable[[], list[str]]
    if location.kind is Backend.POSTGRESQL:
        assert location.url is not None
        url = location.url

        def apply() -> list[str]:
            from bot.storage.migrate import apply_postgres_migrations

            return apply_postgres_migrations(url)
    else:
        assert location.path is not None
        path = location.path

        def apply() -> list[str]:
            from bot.storage.database import apply_migrations

            return apply_migrations(path)

    from bot.storage.database import DatabaseUnusable

    try:
        applied = apply()
    except ImportError:
        print(
            'error: PostgreSQL needs its driver: pip install -e ".[postgresql]".', file=sys.stderr
        )
        return 1
    except DatabaseUnusable as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    except Exception as error:  # the server refused, or can't be reached: one line, redacted
        reason = " ".join(f"{type(error).__name__}: {error}".split())
        password = urlsplit(location.url or "").password
        if password:
            reason = reason.replace(password, "***")
        print(f"error: can't migrate {location} ({reason[:200]}).", file=sys.stderr)
        return 1
    if applied:
        print(f"Migrated {location}: applied {len(applied)} ({', '.join(applied)}).", file=out)
    else:
        print(f"{location} is up to date: nothing to apply.", file=out)
    return 0
