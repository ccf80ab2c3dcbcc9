"""Settings read once from `.env` and the environment into a frozen object."""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from dotenv import dotenv_values

from bot.ratelimit import DEFAULT_ROLL_LIMIT, RollLimit

__all__ = ["DEFAULT_DATABASE_PATH", "Backend", "ConfigError", "DatabaseLocation", "Settings"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_PATH = PROJECT_ROOT / "data" / "bot.db"

# A bot token is three base64url segments: the bot's id, a timestamp and an HMAC. Checking the
# shape catches a pasted client secret or a stray quote before Discord is ever asked.
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{17,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class ConfigError(Exception):
    """The configuration cannot start the bot; the message names the variable to fix."""


class Backend(enum.Enum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


_POSTGRES_SCHEMES = ("postgresql", "postgres")
_URL_EXAMPLES = "sqlite:///data/bot.db or postgresql://user:password@host/database"


@dataclass(frozen=True, slots=True)
class DatabaseLocation:
    """Where the bot keeps its state: an SQLite file (``path``) or a PostgreSQL URL (``url``).

    The URL may hold a password: repr and str show it redacted, so a location can be logged.
    """

    kind: Backend
    path: Path | None = None
    url: str | None = None

    @classmethod
    def sqlite(cls, path: Path) -> DatabaseLocation:
        return cls(Backend.SQLITE, path=path)

    @classmethod
    def postgresql(cls, url: str) -> DatabaseLocation:
        return cls(Backend.POSTGRESQL, url=url)

    @property
    def redacted(self) -> str:
        """The file's path, or the URL with its password (in the user part or the query) as ***."""
        if self.kind is Backend.SQLITE:
            return str(self.path)
        return redact_url(self.url or "")

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"DatabaseLocation({self.kind.value}, {self.redacted})"


def redact_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (user:***@host, ?password=***)."""
    parts = urlsplit(url)
    userinfo, at, hostinfo = parts.netloc.rpartition("@")
    netloc = parts.netloc
    if at and ":" in userinfo:
        netloc = f"{userinfo.split(':', 1)[0]}:***@{hostinfo}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode(
            [(key, "***" if key.lower() == "password" else value) for key, value in pairs],
            safe="*/",
        )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str
    # The SQLite file (for SQLite, the same as database.path: the many call sites that open
    # the file use this). With a PostgreSQL `database` it is unused.
    database_path: Path = DEFAULT_DATABASE_PATH
    guild_id: int | None = None
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: str = "INFO"
    # None: no limit. Settings built from the environment get DEFAULT_ROLL_LIMIT unless told off.
    roll_limit: RollLimit | None = None
    # Where the state lives; None: the SQLite file at database_path.
    database: DatabaseLocation | None = None

    def __post_init__(self) -> None:
        if self.database is None:
            object.__setattr__(self, "database", DatabaseLocation.sqlite(self.database_path))
        elif self.database.kind is Backend.SQLITE and self.database.path != self.database_path:
            raise ValueError("Settings: database_path and database name different SQLite files")

    def __repr__(self) -> str:  # never let the token (or the database password) reach a log line
        return (
            f"Settings(database={self.database!r}, guild_id={self.guild_id}, "
            f"api_base={self.api_base}, gateway_url={self.gateway_url}, "
            f"log_level={self.log_level}, roll_limit={self.roll_limit})"
        )

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = None
    ) -> Settings:
        """Build settings from a `.env` file overlaid by the process environment."""
        return cls.from_mapping(environment_values(environ, env_file))

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> Settings:
        """Validate raw variables; raise ConfigError naming the first bad one."""
        token = values.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "DISCORD_TOKEN is not set: put your bot token in .env (see .env.example)."
            )
        if not _TOKEN_SHAPE.match(token):
            raise ConfigError(
                "DISCORD_TOKEN is malformed: copy the bot token from the Developer Portal's "
                "Bot page (three dot-separated parts), not the client secret."
            )
        guild_text = values.get("GUILD_ID", "").strip()
        if guild_text and not guild_text.isdigit():
            raise ConfigError(f"GUILD_ID must be a server id made of digits (got {guild_text!r}).")
        log_level = values.get("LOG_LEVEL", "INFO").strip().upper() or "INFO"
        if log_level not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ConfigError("LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR.")
        limit_text = values.get("ROLL_RATE_LIMIT", "").strip()
        try:
            roll_limit = RollLimit.parse(limit_text) if limit_text else DEFAULT_ROLL_LIMIT
        except ValueError as error:
            raise ConfigError(f"ROLL_RATE_LIMIT: {error}.") from None
        database = database_location_of(values)
        return cls(
            token=token,
            database_path=database.path or database_path_of(values),
            database=database,
            roll_limit=roll_limit,
            guild_id=int(guild_text) if guild_text else None,
            api_base=values.get("DISCORD_API_BASE", "").strip() or None,
            gateway_url=values.get("DISCORD_GATEWAY_URL", "").strip() or None,
            log_level=log_level,
        )


def environment_values(
    environ: Mapping[str, str] | None = None, env_file: Path | None = None
) -> dict[str, str]:
    """The variables of a `.env` file (in the working directory) overlaid by the environment."""
    values: dict[str, str] = {}
    dotenv_path = env_file if env_file is not None else Path.cwd() / ".env"
    if dotenv_path.is_file():
        values.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
    values.update(os.environ if environ is None else environ)
    return values


def database_path_of(values: Mapping[str, str]) -> Path:
    """DATABASE_PATH, or the default: all `python -m bot backup` needs (no token)."""
    database_text = values.get("DATABASE_PATH", "").strip()
    return Path(database_text) if database_text else DEFAULT_DATABASE_PATH


def database_location_of(values: Mapping[str, str]) -> DatabaseLocation:
    """DATABASE_URL if set (it wins over DATABASE_PATH), else the SQLite file of DATABASE_PATH.

    ``sqlite:///relative/path`` and ``sqlite:////absolute/path`` name an SQLite file;
    ``postgresql://…`` (or ``postgres://…``) a PostgreSQL database. Anything else is a
    ConfigError naming DATABASE_URL, whose message never repeats the URL (it may hold a
    password).
    """
    url = values.get("DATABASE_URL", "").strip()
    if not url:
        return DatabaseLocation.sqlite(database_path_of(values))
    scheme, separator, rest = url.partition("://")
    if not separator or not re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", scheme):
        raise ConfigError(f"DATABASE_URL must be a URL like {_URL_EXAMPLES}.")
    scheme = scheme.lower()
    if scheme == "sqlite":
        # Three slashes then the path: sqlite:///data/bot.db is relative, sqlite:////srv/bot.db
        # absolute. Nothing may come between the second and third slash (no host).
        if not rest.startswith("/") or len(rest) == 1 or "?" in rest or "#" in rest:
            raise ConfigError(
                "DATABASE_URL is malformed: an SQLite URL is sqlite:///relative/path or "
                "sqlite:////absolute/path (three slashes, then the file's path)."
            )
        return DatabaseLocation.sqlite(Path(unquote(rest[1:])))
    if scheme in _POSTGRES_SCHEMES:
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 (urllib checks the port only when it is read)
        except ValueError:
            raise ConfigError(
                "DATABASE_URL is malformed: a PostgreSQL URL is "
                "postgresql://user:password@host:port/database (the port a number)."
            ) from None
        return DatabaseLocation.postgresql(url)
    raise ConfigError(f"DATABASE_URL has an unknown scheme {scheme!r}: use {_URL_EXAMPLES}.")
