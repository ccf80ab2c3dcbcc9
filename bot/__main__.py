"""`python -m bot`: read `.env`, start the bot, and say plainly what is wrong if it can't.

`python -m bot setup` puts the token in `.env` and prints the invite link, `python -m bot check`
says whether the bot could start here, and `python -m bot migrate` creates or upgrades the
database (see bot/host.py).
`python -m bot backup PATH` copies the live database to PATH (see bot/storage/backup.py).
`python -m bot copy-db --from sqlite:///… --to postgresql://…` moves an SQLite database into
PostgreSQL (see bot/storage/copy.py).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import pkgutil
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.config import (
    Backend,
    ConfigError,
    DatabaseLocation,
    Settings,
    database_location_of,
    environment_values,
)

if TYPE_CHECKING:
    from bot.client import DiceBot

# The bot itself (discord.py, aiohttp, the storage, the rules) is imported only once the
# configuration has been read: a missing token or a bad URL is reported at once, not after a
# second of imports.

EXIT_CONFIGURATION = 2
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)

# numpy's OpenBLAS starts a thread per core as numpy is imported, which costs this process
# ~0.15 s of CPU at start-up and buys nothing: the odds' matrix products are small, and the
# event loop and the odds worker want the cores. An environment that sets it keeps its own.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _on_stop_signal(bot: DiceBot, main_task: asyncio.Task[None]) -> None:
    """First SIGTERM or Ctrl-C: answer what is in flight, then close. A second: stop now."""
    if bot.draining or bot.shutdown_task is not None:  # the first may not have begun yet
        main_task.cancel()
        return
    logging.getLogger(__name__).info("Stopping: answering the interactions in flight first")
    bot.shutdown_task = asyncio.create_task(bot.shutdown(), name="bot-shutdown")


async def _run(settings: Settings) -> None:
    from bot.client import create_bot
    from bot.memory import log_long_collections

    main_task = asyncio.current_task()
    assert main_task is not None
    loop = asyncio.get_running_loop()
    log_long_collections()
    try:
        async with create_bot(settings, tune_memory=True) as bot:
            # A service manager stops the bot with SIGTERM: treat it as Ctrl-C, both gracefully.
            for stop_signal in STOP_SIGNALS:
                loop.add_signal_handler(stop_signal, _on_stop_signal, bot, main_task)
            await bot.start(settings.token)
            if bot.shutdown_task is not None:
                await bot.shutdown_task
    finally:
        # The bot is closed and the process only exits now: a stop signal from here on (the
        # second of two sent a moment apart) is ignored. Left to Python, which restores the
        # default handlers as the loop closes and again as the interpreter finalizes, it would
        # kill the process (exit -15) or raise KeyboardInterrupt in its last steps.
        for stop_signal in STOP_SIGNALS:
            loop.remove_signal_handler(stop_signal)
            signal.signal(stop_signal, signal.SIG_IGN)


def _backup(target: Path) -> int:
    from bot.storage.backup import BackupFailed, backup_database

    try:
        location = database_location_of(environment_values())
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    if location.kind is Backend.POSTGRESQL:
        print(
            "error: DATABASE_URL is a PostgreSQL database: back it up with pg_dump "
            "(e.g. pg_dump --format=custom --file=PATH DATABASE); "
            "`python -m bot backup` copies an SQLite file.",
            file=sys.stderr,
        )
        return EXIT_CONFIGURATION
    assert location.path is not None  # an SQLite location always has its file
    database = location.path
    try:
        report = backup_database(database, target)
    except BackupFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    rows = ", ".join(f"{count} {table}" for table, count in report.rows.items())
    print(f"Backed up {database} to {report.target} ({report.size:,} bytes: {rows}).")
    return 0


def _location(option: str, text: str, kind: Backend) -> DatabaseLocation:
    """The database an option names, which must be of ``kind``; ConfigError (no URL) if not."""
    example = "sqlite:///data/bot.db" if kind is Backend.SQLITE else "postgresql://user@host/db"
    try:
        location = database_location_of({"DATABASE_URL": text})
    except ConfigError:
        # Its message names DATABASE_URL; the user typed an option.
        raise ConfigError(f"{option} must be a URL like {example}.") from None
    if location.kind is not kind:
        raise ConfigError(f"{option} must be a {kind.value} URL like {example}.")
    return location


def _copy_db(source_text: str, target_text: str) -> int:
    from bot.storage.copy import CopyFailed, copy_database

    try:
        source = _location("--from", source_text, Backend.SQLITE)
        target = _location("--to", target_text, Backend.POSTGRESQL)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    assert source.path is not None and target.url is not None
    try:
        report = copy_database(source.path, target.url)
    except CopyFailed as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except ImportError:  # psycopg is in the postgresql extra, not a core dependency
        print(
            'error: copy-db needs the PostgreSQL driver: pip install ".[postgresql]".',
            file=sys.stderr,
        )
        return 1
    for count in report.tables:
        print(
            f"{count.table}: {count.sqlite_rows} rows in SQLite, "
            f"{count.postgresql_rows} in PostgreSQL"
        )
    if report.already_copied:
        print(f"Already copied: {target} holds exactly the rows of {source}; nothing changed.")
    else:
        tables = len(report.tables)
        print(f"Copied {report.rows} rows in {tables} tables from {source} to {target}.")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the bot until it is stopped (or run a maintenance command); return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m bot", description="Run the dice bot.")
    commands_parser = parser.add_subparsers(dest="command")
    setup = commands_parser.add_parser(
        "setup",
        help="put the bot token in .env (mode 0600), print the invite link and a systemd unit",
    )
    setup.add_argument(
        "--token",
        help="the bot token (else DISCORD_TOKEN, else asked; a command line is visible to "
        "other users of the machine)",
    )
    setup.add_argument(
        "--no-input",
        action="store_true",
        help="never ask: the token from --token or DISCORD_TOKEN (exit 2 without one)",
    )
    setup.add_argument(
        "--systemd", type=Path, metavar="PATH", help="write the systemd unit to PATH"
    )
    commands_parser.add_parser(
        "check",
        help="say whether the bot could start here: token, settings, database, metrics port",
    )
    commands_parser.add_parser(
        "migrate", help="create or upgrade the database (the bot also does at start)"
    )
    backup = commands_parser.add_parser(
        "backup", help="copy the live database to PATH consistently (safe while the bot runs)"
    )
    backup.add_argument("path", type=Path, help="where the copy goes (replaced if it exists)")
    copy_db = commands_parser.add_parser(
        "copy-db",
        help="copy every row of an SQLite database into an empty PostgreSQL database "
        "(stop the bot first)",
    )
    copy_db.add_argument(
        "--from", dest="source", required=True, metavar="URL", help="sqlite:///path/to/bot.db"
    )
    copy_db.add_argument(
        "--to",
        dest="target",
        required=True,
        metavar="URL",
        help="postgresql://user:password@host/database (migrated first; must hold no rows)",
    )
    arguments = parser.parse_args(argv)
    if arguments.command in ("setup", "check", "migrate"):
        from bot import host

        if arguments.command == "setup":
            return host.setup(
                arguments.token, no_input=arguments.no_input, systemd=arguments.systemd
            )
        return host.check() if arguments.command == "check" else host.migrate()
    if arguments.command == "backup":
        return _backup(arguments.path)
    if arguments.command == "copy-db":
        return _copy_db(arguments.source, arguments.target)
    try:
        settings = Settings.from_environment()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    return _start(settings)


def _one_line(error: BaseException) -> str:
    return " ".join(f"{type(error).__name__}: {error}".split())


def load_system_packages(packages: tuple[str, ...]) -> None:
    """Import each of SYSTEM_PACKAGES (its ``rules``, then its ``cogs`` and their modules) and
    find its systems, before Discord is contacted; raise ConfigError naming the setting if one
    can't be (docs/hosting.md, "Environment variables"). The bot's own start finds them imported."""
    from rules.systems import SystemRegistry

    def load(name: str) -> None:
        try:
            importlib.import_module(name)
        except Exception as error:  # a package's own code may raise anything as it is imported
            raise ConfigError(
                f"SYSTEM_PACKAGES: {name} can't be imported ({_one_line(error)})."
            ) from None

    for package in packages:
        load(f"{package}.rules")
    try:
        SystemRegistry.scan(f"{package}.rules" for package in packages)  # imports each module
    except Exception as error:
        raise ConfigError(
            f"SYSTEM_PACKAGES: their systems can't be read ({_one_line(error)})."
        ) from None
    for package in packages:
        load(f"{package}.cogs")
        cogs = importlib.import_module(f"{package}.cogs")
        path = getattr(cogs, "__path__", None)
        if path is None:
            raise ConfigError(f"SYSTEM_PACKAGES: {package}.cogs must be a package (a folder).")
        for module in pkgutil.iter_modules(path, prefix=f"{package}.cogs."):
            load(module.name)


def _start(settings: Settings) -> int:
    """Run the bot with ``settings`` until it is stopped; say plainly why it couldn't start."""
    import aiohttp
    import discord

    from bot.data_tables import TableError
    from bot.logs import setup_logging
    from bot.storage import DatabaseUnusable

    setup_logging(getattr(logging, settings.log_level))
    try:
        load_system_packages(settings.system_packages)
        asyncio.run(_run(settings))
    except discord.LoginFailure:
        print(
            "error: DISCORD_TOKEN was rejected by Discord: reset the token on the Developer "
            "Portal's Bot page and paste the new one into .env.",
            file=sys.stderr,
        )
        return EXIT_CONFIGURATION
    # ConfigError: METRICS_PORT can't be bound, or a package of SYSTEM_PACKAGES can't be imported
    except (DatabaseUnusable, ConfigError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    except TableError as error:  # a cog reads its data tables as the bot sets up
        print(f"error: bad game table: {error}", file=sys.stderr)
        return 1
    except (aiohttp.ClientConnectionError, OSError) as error:
        print(f"error: cannot reach Discord ({error}); check the network.", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
