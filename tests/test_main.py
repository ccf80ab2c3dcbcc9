"""`python -m bot` as a user starts it: configuration mistakes give one clear line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import DEFAULT_DATABASE_PATH, ConfigError, Settings
from bot.ratelimit import DEFAULT_ROLL_LIMIT, RollLimit

VALID_LOOKING_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"


def run_bot(tmp_path: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DISCORD_", "GUILD_ID", "DATABASE_PATH"))
    }
    environment.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )


def assert_one_clear_line(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "DISCORD_TOKEN" in lines[0]


def test_missing_token_exits_2_naming_the_variable(tmp_path: Path) -> None:
    assert_one_clear_line(run_bot(tmp_path))


def test_malformed_token_exits_2_naming_the_variable(tmp_path: Path) -> None:
    assert_one_clear_line(run_bot(tmp_path, DISCORD_TOKEN="my-client-secret"))


def test_env_file_is_read_and_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(f"DISCORD_TOKEN={VALID_LOOKING_TOKEN}\nGUILD_ID=42\nDATABASE_PATH=x.db\n")
    settings = Settings.from_environment({"GUILD_ID": "7"}, env_file=env_file)
    assert (settings.token, settings.guild_id, settings.database_path) == (
        VALID_LOOKING_TOKEN,
        7,
        Path("x.db"),
    )


def test_defaults_and_the_token_never_in_repr() -> None:
    settings = Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN})
    assert settings.database_path == DEFAULT_DATABASE_PATH
    assert settings.guild_id is None and settings.api_base is None
    assert VALID_LOOKING_TOKEN not in repr(settings)
    assert settings.roll_limit == DEFAULT_ROLL_LIMIT == RollLimit(20, 10.0)


@pytest.mark.parametrize(
    ("text", "limit"),
    [("5/60", RollLimit(5, 60.0)), (" 30 / 7.5s ", RollLimit(30, 7.5)), ("off", None), ("0", None)],
)
def test_roll_rate_limit_is_read_from_the_environment(text: str, limit: RollLimit | None) -> None:
    settings = Settings.from_mapping(
        {"DISCORD_TOKEN": VALID_LOOKING_TOKEN, "ROLL_RATE_LIMIT": text}
    )
    assert settings.roll_limit == limit


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"GUILD_ID": "my server"}, "GUILD_ID must be"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be"),
        ({"ROLL_RATE_LIMIT": "fast"}, "ROLL_RATE_LIMIT: give rolls/seconds like 20/10, or off"),
        ({"ROLL_RATE_LIMIT": "0/10"}, "ROLL_RATE_LIMIT: give rolls/seconds"),
    ],
)
def test_bad_optional_variables_are_named(variables: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN, **variables})
