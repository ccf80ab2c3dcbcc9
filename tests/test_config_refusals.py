"""Every variable of .env.example, given a bad value, stops the start with one line naming it and
exit code 2, never a traceback (docs/hosting.md, "Environment variables").

One table: at least one bad value for each variable of .env.example (a variable added there
without a row fails ``test_every_variable_of_env_example_has_a_bad_value``). Numbers are read
from the ASCII digits only: "²" passes ``str.isdigit()`` and "٩٠٠٠" (Arabic-Indic digits) is
9000 to ``int()``. Most rows run ``python -m bot``'s ``main`` in this process (reading the
settings and reporting a refusal as a real start does, stopped before the bot would start); the
rows marked ``real_start`` run ``python -m bot`` itself, for what only the start can find (a
folder as the database, a package not installed, an address that can't be bound) and to prove
the exit code and the one line of a process.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import bot.__main__ as bot_main
from bot.config import MAX_DISCORD_ID, PROJECT_ROOT, Settings

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
EXAMPLE = PROJECT_ROOT / ".env.example"
TOO_LONG = "9" * 5000  # past int()'s 4300 digits: it raises ValueError
CLOSED_API = "http://127.0.0.1:1/api/v10"  # nothing listens on port 1: a real start never leaves


def example_variables() -> set[str]:
    return set(re.findall(r"^([A-Z_]+)=", EXAMPLE.read_text(encoding="utf-8"), re.MULTILINE))


@dataclass(frozen=True)
class Bad:
    """A bad value of ``variable`` (``{tmp}``: the test's temporary folder), with the other
    variables it needs (``beside``); ``real_start``: tried by running `python -m bot`."""

    variable: str
    value: str
    beside: Mapping[str, str] = field(default_factory=dict)
    real_start: bool = False

    def __str__(self) -> str:
        shown = self.value if len(self.value) <= 20 else self.value[:20] + "…"
        return f"{self.variable}={shown!r}" + ("-start" if self.real_start else "")


PORT = {"METRICS_PORT": "9464"}
FOUR_SHARDS = {"SHARD_COUNT": "4"}

BAD_VALUES = [
    Bad("DISCORD_TOKEN", ""),
    Bad("DISCORD_TOKEN", "   "),
    Bad("DISCORD_TOKEN", "my-client-secret"),
    Bad("DISCORD_TOKEN", TOKEN.replace("G", "Ğ")),
    Bad("DISCORD_TOKEN", TOKEN[:30] + " " + TOKEN[30:]),
    Bad("DISCORD_TOKEN", "", real_start=True),
    Bad("DATABASE_PATH", "{tmp}", real_start=True),  # a folder
    Bad("DATABASE_URL", "data/bot.db"),
    Bad("DATABASE_URL", "mysql://bot@db/dice"),
    Bad("DATABASE_URL", "sqlite://"),
    Bad("DATABASE_URL", "sqlite:///bot.db?mode=ro"),
    Bad("DATABASE_URL", "postgresql://bot@db:²/dice"),
    Bad("DATABASE_URL", "postgresql://bot@db:٥٤٣٢/dice"),
    Bad("DATABASE_URL", "postgresql://bot@db:99999/dice"),
    Bad("GUILD_ID", "my server"),
    Bad("GUILD_ID", "²"),
    Bad("GUILD_ID", "٩٠٠٠"),
    Bad("GUILD_ID", "٩٠٠٠", real_start=True),
    Bad("GUILD_ID", "0"),
    Bad("GUILD_ID", "-5"),
    Bad("GUILD_ID", "12.5"),
    Bad("GUILD_ID", "1e18"),
    Bad("GUILD_ID", str(MAX_DISCORD_ID + 1)),
    Bad("GUILD_ID", TOO_LONG),
    Bad("LOG_LEVEL", "LOUD"),
    Bad("LOG_LEVEL", "ınfo"),  # a dotless i: "ınfo".upper() == "INFO"
    Bad("LOG_LEVEL", "10"),
    Bad("ROLL_RATE_LIMIT", "fast"),
    Bad("ROLL_RATE_LIMIT", "0/10"),
    Bad("ROLL_RATE_LIMIT", "20/0"),
    Bad("ROLL_RATE_LIMIT", "-1/10"),
    Bad("ROLL_RATE_LIMIT", "²/10"),
    Bad("ROLL_RATE_LIMIT", "٢٠/١٠"),
    Bad("ROLL_RATE_LIMIT", "20/1e3"),
    Bad("ROLL_RATE_LIMIT", "20/100000"),  # past a day
    Bad("ROLL_RATE_LIMIT", "100000/10"),
    Bad("ROLL_RATE_LIMIT", "20/" + "9" * 400),  # float() reads it as infinity
    Bad("SHARD_COUNT", "two"),
    Bad("SHARD_COUNT", "²"),
    Bad("SHARD_COUNT", "٤"),
    Bad("SHARD_COUNT", "0"),
    Bad("SHARD_COUNT", "10001"),
    Bad("SHARD_COUNT", "-1"),
    Bad("SHARD_COUNT", TOO_LONG),
    Bad("SHARD_IDS", "0"),  # without SHARD_COUNT
    Bad("SHARD_IDS", "²", FOUR_SHARDS),
    Bad("SHARD_IDS", "٠-٢", FOUR_SHARDS),
    Bad("SHARD_IDS", "0-4", FOUR_SHARDS),
    Bad("SHARD_IDS", "3-1", FOUR_SHARDS),
    Bad("SHARD_IDS", "0,0", FOUR_SHARDS),
    Bad("SHARD_IDS", "0-", FOUR_SHARDS),
    Bad("SHARD_IDS", TOO_LONG, FOUR_SHARDS),
    Bad("SYSTEM_PACKAGES", "games, my-games"),
    Bad("SYSTEM_PACKAGES", "jeux.é"),
    Bad("SYSTEM_PACKAGES", "no_such_dice_package", real_start=True),
    Bad("METRICS_PORT", "http"),
    Bad("METRICS_PORT", "0"),
    Bad("METRICS_PORT", "65536"),
    Bad("METRICS_PORT", "-1"),
    Bad("METRICS_PORT", "94 64"),
    Bad("METRICS_PORT", "²"),
    Bad("METRICS_PORT", "²", real_start=True),
    Bad("METRICS_PORT", "٩٠٠٠"),
    Bad("METRICS_PORT", TOO_LONG),
    Bad("METRICS_HOST", "0.0.0.0"),  # without METRICS_PORT
    Bad("METRICS_HOST", "not a host", PORT),
    Bad("METRICS_HOST", "١٢٧.0.0.1", PORT),
    Bad("METRICS_HOST", "-metrics", PORT),
    Bad("METRICS_HOST", "192.0.2.1", {"METRICS_PORT": "1"}, real_start=True),  # not this machine's
    Bad("DISCORD_API_BASE", "nonsense"),
    Bad("DISCORD_API_BASE", "ftp://127.0.0.1/api"),
    Bad("DISCORD_API_BASE", "http://"),
    Bad("DISCORD_API_BASE", "http://127.0.0.1:²/api"),
    Bad("DISCORD_API_BASE", "http://127.0.0.1:99999/api"),
    Bad("DISCORD_GATEWAY_URL", "nonsense"),
    Bad("DISCORD_GATEWAY_URL", "http://127.0.0.1/gateway"),
    Bad("DISCORD_GATEWAY_URL", "ws://127.0.0.1:٨٠/gateway"),
]


def test_every_variable_of_env_example_has_a_bad_value() -> None:
    assert "DISCORD_TOKEN" in example_variables()  # the pattern finds them
    assert example_variables() == {bad.variable for bad in BAD_VALUES}
    assert {bad.variable for bad in BAD_VALUES if bad.real_start} >= {"DATABASE_PATH"}


def variables_of(bad: Bad, tmp_path: Path) -> dict[str, str]:
    """The settings of the start: a good token and a database in ``tmp_path`` unless the row
    says otherwise, Discord's API out of reach, the row's other variables and its bad value."""
    variables = {
        "DISCORD_TOKEN": TOKEN,
        "DATABASE_PATH": str(tmp_path / "bot.db"),
        "DISCORD_API_BASE": CLOSED_API,
        **bad.beside,
    }
    variables[bad.variable] = bad.value.format(tmp=tmp_path)
    return variables


def start_in_a_process(variables: Mapping[str, str], tmp_path: Path) -> tuple[int, str]:
    environment = {
        key: value for key, value in os.environ.items() if key not in example_variables()
    }
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,  # no .env there
        env={**environment, **variables},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result.returncode, result.stderr


def start_here(
    variables: Mapping[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[int, str]:
    """`python -m bot`'s main in this process, stopped where the bot itself would start."""
    for name in example_variables():
        monkeypatch.delenv(name, raising=False)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)  # no .env there

    def started(settings: Settings) -> int:
        pytest.fail(f"the settings were accepted: {settings!r}")

    monkeypatch.setattr(bot_main, "_start", started)
    code = bot_main.main([])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("bad", BAD_VALUES, ids=str)
def test_a_bad_value_stops_the_start_with_one_line_naming_its_variable(
    bad: Bad, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    variables = variables_of(bad, tmp_path)
    if bad.real_start:
        code, stderr = start_in_a_process(variables, tmp_path)
    else:
        code, stderr = start_here(variables, tmp_path, monkeypatch, capsys)
    assert code == 2, stderr
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert bad.variable in errors[0], errors[0]
    # Only warnings may come before it (discord.py's, as the bot is built); nothing after it.
    assert stderr.rstrip().endswith(errors[0])
    assert len(errors[0]) < 300 and TOKEN not in stderr


@pytest.mark.parametrize(
    ("variables", "read"),
    [
        ({"GUILD_ID": str(MAX_DISCORD_ID)}, ("guild_id", MAX_DISCORD_ID)),
        ({"GUILD_ID": " 0042 "}, ("guild_id", 42)),
        ({"METRICS_PORT": "65535", "METRICS_HOST": "::1"}, ("metrics", "http://::1:65535/metrics")),
        ({"METRICS_PORT": "1", "METRICS_HOST": "metrics.example"}, ("metrics", None)),
        ({"LOG_LEVEL": " warning "}, ("log_level", "WARNING")),
        ({"LOG_LEVEL": ""}, ("log_level", "INFO")),
        ({"ROLL_RATE_LIMIT": "10000/86400"}, ("roll_limit", "10000 rolls per 86400 seconds")),
        ({"SHARD_COUNT": "10000", "SHARD_IDS": "9999"}, ("shards", "9999 of 10000")),
        ({"DISCORD_API_BASE": "https://discord.example/api/v10"}, ("api_base", None)),
        ({"DISCORD_GATEWAY_URL": "wss://[::1]:8080/gateway"}, ("gateway_url", None)),
    ],
)
def test_good_values_at_the_edges_are_still_accepted(
    variables: dict[str, str], read: tuple[str, object]
) -> None:
    settings = Settings.from_mapping({"DISCORD_TOKEN": TOKEN, **variables})
    name, expected = read
    value = getattr(settings, name)
    assert value is not None
    if expected is not None:
        assert value == expected or str(value) == expected


def test_env_example_as_written_is_accepted_with_a_token(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        EXAMPLE.read_text(encoding="utf-8").replace("DISCORD_TOKEN=\n", f"DISCORD_TOKEN={TOKEN}\n")
    )
    settings = Settings.from_environment({}, env_file=env_file)
    assert settings.token == TOKEN and settings.metrics is None and settings.shards is None
