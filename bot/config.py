"""Settings read once from `.env` and the environment into a frozen object."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dotenv import dotenv_values

from bot.ratelimit import DEFAULT_ROLL_LIMIT, RollLimit

__all__ = ["DEFAULT_DATABASE_PATH", "ConfigError", "Settings"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATABASE_PATH = PROJECT_ROOT / "data" / "bot.db"

# A bot token is three base64url segments: the bot's id, a timestamp and an HMAC. Checking the
# shape catches a pasted client secret or a stray quote before Discord is ever asked.
_TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{17,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")


class ConfigError(Exception):
    """The configuration cannot start the bot; the message names the variable to fix."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot needs from its environment."""

    token: str
    database_path: Path = DEFAULT_DATABASE_PATH
    guild_id: int | None = None
    api_base: str | None = None
    gateway_url: str | None = None
    log_level: str = "INFO"
    # None: no limit. Settings built from the environment get DEFAULT_ROLL_LIMIT unless told off.
    roll_limit: RollLimit | None = None

    def __repr__(self) -> str:  # never let the token reach a log line
        return (
            f"Settings(database_path={self.database_path!s}, guild_id={self.guild_id}, "
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
        return cls(
            token=token,
            database_path=database_path_of(values),
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
