"""Settings read once from `.env` and the environment into a frozen object."""

from __future__ import annotations

import base64
import binascii
import enum
import ipaddress
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from dotenv import dotenv_values

__all__ = [
    "DEFAULT_DATABASE_PATH",
    "DEFAULT_ROLL_LIMIT",
    "MAX_SHARD_COUNT",
    "Backend",
    "ConfigError",
    "DatabaseLocation",
    "MetricsAddress",
    "RollLimit",
    "Settings",
    "Shards",
    "application_id_of",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_PATH = PROJECT_ROOT / "data" / "bot.db"

# A bot token is three base64url segments: the bot's id, a timestamp and an HMAC. Checking the
# shape catches a pasted client secret or a stray quote before Discord is ever asked.
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{17,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
# An importable package name: dotted Python identifiers.
_PACKAGE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
# A whole number of a setting: the ASCII digits only (docs/hosting.md, "Environment variables").
# str.isdigit() and int() also take "²" (which int() then refuses) and "٩٠٠٠" (Arabic-Indic digits,
# which int() reads as 9000); 20 digits hold every id and count the settings name.
_WHOLE = re.compile(r"[0-9]{1,20}")
# A Discord id (a snowflake), as the bot stores one: a positive signed 64-bit integer.
MAX_DISCORD_ID = 2**63 - 1
# A host name: dot-separated labels of ASCII letters, digits and inner hyphens.
_HOST_NAME = re.compile(
    r"(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?"
)
MALFORMED_TOKEN = (
    "DISCORD_TOKEN is malformed: copy the bot token from the Developer Portal's Bot page "
    "(three dot-separated parts, the first your application's id), not the client secret."
)
MISSING_TOKEN = "DISCORD_TOKEN is not set: put your bot token in .env (python -m bot setup)."
QUOTE_MAX = 40  # how much of a bad value a refusal repeats back
# Another Discord (tests only: the fake Discord in tests/), as docs/hosting.md's examples give it.
_API_EXAMPLE = "http://127.0.0.1:8080/api/v10"
_GATEWAY_EXAMPLE = "ws://127.0.0.1:8080/gateway"


def application_id_of(token: str) -> int | None:
    """The bot's user id a token's first part encodes (the application's id: Discord gives a
    bot the id of its application), or None when ``token`` is not shaped like a bot token.

    The first of its three base64url parts is the id in ASCII digits, e.g. ``MTIzNDU2`` for
    123456; a client secret, an OAuth2 access token or a stray quote is not.
    """
    if not _TOKEN_SHAPE.fullmatch(token):
        return None
    first = token.split(".", 1)[0]
    try:
        text = base64.urlsafe_b64decode(first + "=" * (-len(first) % 4)).decode("ascii")
    except (binascii.Error, ValueError):  # ValueError: UnicodeDecodeError, bad padding
        return None
    application_id = whole_number(text)
    if application_id is None or not 1 <= application_id <= MAX_DISCORD_ID:
        return None
    return application_id


def whole_number(text: str) -> int | None:
    """``text`` (stripped) as a whole number written in the ASCII digits 0-9, else None."""
    return int(text) if _WHOLE.fullmatch(text) else None


def quoted(text: str) -> str:
    """A bad value as a refusal repeats it: quoted, escaped (one line), cut to QUOTE_MAX."""
    return repr(text if len(text) <= QUOTE_MAX else text[:QUOTE_MAX] + "…")


def is_host(text: str) -> bool:
    """Whether ``text`` is an IP address (v4 or v6) or a host name, in ASCII."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return text.isascii() and _HOST_NAME.fullmatch(text) is not None
    return True


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


# Discord caps a shard at 2,500 servers: this many shards serve 25 million, more than any bot is
# in. Past it, SHARD_COUNT is a typo (a stray digit), not a plan.
MAX_SHARD_COUNT = 10_000


@dataclass(frozen=True, slots=True)
class Shards:
    """Which shards of the bot this process runs: ``ids`` (ascending) out of ``count``.

    Several processes with disjoint ``ids`` and the same ``count`` make one bot; Discord sends
    each server's events to shard ``(guild_id >> 22) % count``.
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARD_COUNT:
            raise ValueError(f"shard count {self.count} is not within 1..{MAX_SHARD_COUNT}")
        if not self.ids or list(self.ids) != sorted(set(self.ids)):
            raise ValueError(f"shard ids {self.ids} are not distinct and ascending")
        if self.ids[0] < 0 or self.ids[-1] >= self.count:
            raise ValueError(f"shard ids {self.ids} are not within 0..{self.count - 1}")

    @classmethod
    def all_of(cls, count: int) -> Shards:
        return cls(count, tuple(range(count)))

    def __str__(self) -> str:  # "0-3 of 8", "0,2 of 4": as a log line names them
        return f"{_id_ranges(self.ids)} of {self.count}"


def _id_ranges(ids: tuple[int, ...]) -> str:
    """0,1,2,3,5 → "0-3,5"."""
    runs: list[list[int]] = []
    for shard_id in ids:
        if runs and shard_id == runs[-1][1] + 1:
            runs[-1][1] = shard_id
        else:
            runs.append([shard_id, shard_id])
    return ",".join(str(low) if low == high else f"{low}-{high}" for low, high in runs)


# ASCII digits only (``\d`` would take any script's); at most these rolls in at most a day.
_ROLL_LIMIT_SHAPE = re.compile(r"\s*([0-9]{1,9})\s*/\s*([0-9]{1,9}(?:\.[0-9]{1,9})?)\s*s?\s*")
MAX_LIMIT_ROLLS = 10_000
MAX_LIMIT_SECONDS = 86_400.0


@dataclass(frozen=True, slots=True)
class RollLimit:
    """At most ``rolls`` roll commands per user in any ``seconds`` (ROLL_RATE_LIMIT)."""

    rolls: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> RollLimit | None:
        """`20/10` (20 rolls per 10 seconds), or `off`; raise ValueError saying the shape."""
        if text.strip().lower() in ("off", "0", "none"):
            return None
        found = _ROLL_LIMIT_SHAPE.fullmatch(text)
        if (
            found is None
            or not 1 <= int(found[1]) <= MAX_LIMIT_ROLLS
            or not 0 < float(found[2]) <= MAX_LIMIT_SECONDS
        ):
            raise ValueError(
                f"give rolls/seconds like 20/10, or off: 1 to {MAX_LIMIT_ROLLS} rolls in up to "
                f"{MAX_LIMIT_SECONDS:.0f} seconds, in the digits 0-9 (got {quoted(text)})"
            )
        return cls(int(found[1]), float(found[2]))

    def __str__(self) -> str:
        return f"{self.rolls} rolls per {self.seconds:g} seconds"


DEFAULT_ROLL_LIMIT = RollLimit(20, 10.0)

DEFAULT_METRICS_HOST = "127.0.0.1"  # the host only: exposing the metrics is the operator's call


@dataclass(frozen=True, slots=True)
class MetricsAddress:
    """Where the bot serves its Prometheus metrics (METRICS_HOST, METRICS_PORT)."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"http://{self.host}:{self.port}/metrics"


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
    # The shards this process runs; None: as many as Discord recommends, all in this process.
    shards: Shards | None = None
    # Packages of further systems, each with a `rules` and a `cogs` package like the bot's own
    # (docs/development.md, "Adding a system"); their systems and cogs come beside the bot's.
    system_packages: tuple[str, ...] = ()
    # Where to serve Prometheus metrics (docs/hosting.md, "Metrics"); None: none, and nothing
    # imported.
    metrics: MetricsAddress | None = None

    def __post_init__(self) -> None:
        if self.database is None:
            object.__setattr__(self, "database", DatabaseLocation.sqlite(self.database_path))
        elif self.database.kind is Backend.SQLITE and self.database.path != self.database_path:
            raise ValueError("Settings: database_path and database name different SQLite files")

    @property
    def may_share_state(self) -> bool:
        """Whether other processes may serve this bot beside this one: a PostgreSQL database
        (made to be shared), or only some of the shards run here. State that one process could
        keep in memory (the roll rate limit) then lives in the database."""
        assert self.database is not None
        return self.database.kind is Backend.POSTGRESQL or (
            self.shards is not None and len(self.shards.ids) < self.shards.count
        )

    def __repr__(self) -> str:  # never let the token (or the database password) reach a log line
        return (
            f"Settings(database={self.database!r}, guild_id={self.guild_id}, "
            f"api_base={self.api_base}, gateway_url={self.gateway_url}, "
            f"log_level={self.log_level}, roll_limit={self.roll_limit}, shards={self.shards}, "
            f"system_packages={self.system_packages}, metrics={self.metrics})"
        )

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, env_file: Path | None = None
    ) -> Settings:
        """Build settings from a `.env` file overlaid by the process environment."""
        return cls.from_mapping(environment_values(environ, env_file))

    @classmethod
    def from_mapping(cls, values: Mapping[str, str], *, need_token: bool = True) -> Settings:
        """Validate raw variables; raise ConfigError naming the first bad one.

        ``need_token`` False reads every other variable whatever the token is (`python -m bot
        check` reports the token on a line of its own); the token is then kept as given."""
        token = values.get("DISCORD_TOKEN", "").strip()
        if need_token and not token:
            raise ConfigError(MISSING_TOKEN)
        if need_token and application_id_of(token) is None:
            raise ConfigError(MALFORMED_TOKEN)
        guild_text = values.get("GUILD_ID", "").strip()
        guild_id = whole_number(guild_text)
        if guild_text and (guild_id is None or not 1 <= guild_id <= MAX_DISCORD_ID):
            raise ConfigError(
                "GUILD_ID must be a server id made of digits (0-9, up to "
                f"{MAX_DISCORD_ID}; got {quoted(guild_text)})."
            )
        level_text = values.get("LOG_LEVEL", "").strip()
        # ASCII first: "ınfo" (a dotless i) upper-cases to "INFO".
        log_level = level_text.upper() if level_text.isascii() else level_text
        if (log_level or "INFO") not in {"DEBUG", "INFO", "WARNING", "ERROR"}:
            raise ConfigError(
                f"LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR (got {quoted(level_text)})."
            )
        limit_text = values.get("ROLL_RATE_LIMIT", "").strip()
        try:
            roll_limit = RollLimit.parse(limit_text) if limit_text else DEFAULT_ROLL_LIMIT
        except ValueError as error:
            raise ConfigError(f"ROLL_RATE_LIMIT: {error}.") from None
        database = database_location_of(values)
        shards = shards_of(values)
        packages = system_packages_of(values)
        metrics = metrics_address_of(values)
        api_text, gateway_text = (
            values.get("DISCORD_API_BASE", ""),
            values.get("DISCORD_GATEWAY_URL", ""),
        )
        api_base = endpoint_of("DISCORD_API_BASE", api_text, ("http", "https"), _API_EXAMPLE)
        gateway = endpoint_of("DISCORD_GATEWAY_URL", gateway_text, ("ws", "wss"), _GATEWAY_EXAMPLE)
        return cls(
            token=token,
            database_path=database.path or database_path_of(values),
            database=database,
            roll_limit=roll_limit,
            guild_id=guild_id,
            api_base=api_base,
            gateway_url=gateway,
            log_level=log_level or "INFO",
            shards=shards,
            system_packages=packages,
            metrics=metrics,
        )


def metrics_address_of(values: Mapping[str, str]) -> MetricsAddress | None:
    """METRICS_PORT (1-65535) and METRICS_HOST (default 127.0.0.1); None when the port is unset."""
    port_text = values.get("METRICS_PORT", "").strip()
    host = values.get("METRICS_HOST", "").strip()
    if not port_text:
        if host:
            raise ConfigError(
                "METRICS_HOST needs METRICS_PORT: set the port to serve metrics on, or unset both."
            )
        return None
    port = whole_number(port_text)
    if port is None or not 1 <= port <= 65535:
        raise ConfigError(
            f"METRICS_PORT must be a port number from 1 to 65535, in the digits 0-9 "
            f"(got {quoted(port_text)})."
        )
    if host and not is_host(host):
        raise ConfigError(
            "METRICS_HOST must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0 "
            f"(got {quoted(host)})."
        )
    return MetricsAddress(host or DEFAULT_METRICS_HOST, port)


def endpoint_of(variable: str, text: str, schemes: tuple[str, ...], example: str) -> str | None:
    """DISCORD_API_BASE or DISCORD_GATEWAY_URL (tests only) given as ``text``: a URL of one of
    ``schemes`` with a host (and a port in the digits 0-9, if any); None when unset."""
    text = text.strip()
    if not text:
        return None
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (urllib checks the port only when it is read)
    except ValueError:
        parts = None
    if parts is None or parts.scheme.lower() not in schemes or not is_host(parts.hostname or ""):
        raise ConfigError(f"{variable} must be a URL like {example} (got {quoted(text)}).")
    return text


def system_packages_of(values: Mapping[str, str]) -> tuple[str, ...]:
    """SYSTEM_PACKAGES: importable package names, comma-separated (none: the bot's own only)."""
    text = values.get("SYSTEM_PACKAGES", "")
    packages = tuple(name.strip() for name in text.split(",") if name.strip())
    for package in packages:
        if not _PACKAGE_NAME.fullmatch(package):
            raise ConfigError(
                "SYSTEM_PACKAGES must be importable package names, comma-separated "
                f"(got {quoted(package)})."
            )
    return packages


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


def shards_of(values: Mapping[str, str]) -> Shards | None:
    """SHARD_COUNT and SHARD_IDS as Shards; None when neither is set (Discord's recommendation).

    SHARD_IDS is a list of ids and ranges (``0-3``, ``0,2``, ``5``, ``0-1,4``), each within
    0..SHARD_COUNT-1 and none twice; without it the process runs every shard of SHARD_COUNT.
    """
    count_text = values.get("SHARD_COUNT", "").strip()
    ids_text = values.get("SHARD_IDS", "").strip()
    if not count_text:
        if ids_text:
            raise ConfigError(
                "SHARD_IDS needs SHARD_COUNT: set SHARD_COUNT to the bot's total number of "
                "shards (the same in every process), or unset both for automatic sharding."
            )
        return None
    count = whole_number(count_text)
    if count is None or not 1 <= count <= MAX_SHARD_COUNT:
        raise ConfigError(
            f"SHARD_COUNT must be a whole number from 1 to {MAX_SHARD_COUNT}, in the digits 0-9 "
            f"(got {quoted(count_text)})."
        )
    if not ids_text:
        return Shards.all_of(count)
    ids: list[int] = []
    for item in ids_text.split(","):
        low_text, dash, high_text = (part.strip() for part in item.partition("-"))
        low = whole_number(low_text)
        high = whole_number(high_text) if dash else low
        if low is None or high is None:
            raise ConfigError(
                "SHARD_IDS must be shard ids and ranges like 0-3 or 0,2 or 5, in the digits 0-9 "
                f"(got {quoted(ids_text)})."
            )
        if low > high:
            raise ConfigError(f"SHARD_IDS: the range {item.strip()} runs backwards.")
        if high >= count:
            raise ConfigError(
                f"SHARD_IDS: shard {high} does not exist with SHARD_COUNT={count} "
                f"(shard ids run from 0 to {count - 1})."
            )
        ids.extend(range(low, high + 1))
    repeated = sorted(shard_id for shard_id, times in Counter(ids).items() if times > 1)
    if repeated:
        raise ConfigError(f"SHARD_IDS names shard(s) {_id_ranges(tuple(repeated))} twice.")
    return Shards(count, tuple(sorted(ids)))
