"""`python -m bot` as a user starts it: configuration mistakes give one clear line and exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import (
    DEFAULT_DATABASE_PATH,
    PROJECT_ROOT,
    Backend,
    ConfigError,
    DatabaseLocation,
    Settings,
)
from bot.ratelimit import DEFAULT_ROLL_LIMIT, RollLimit

VALID_LOOKING_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"


def run_bot(tmp_path: Path, *arguments: str, **variables: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DISCORD_", "GUILD_ID", "DATABASE_PATH", "DATABASE_URL"))
    }
    environment.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "bot", *arguments],
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


def test_system_packages_are_read_as_package_names() -> None:
    settings = Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN})
    assert settings.system_packages == ()
    variables = {"DISCORD_TOKEN": VALID_LOOKING_TOKEN, "SYSTEM_PACKAGES": " games, our.games ,"}
    settings = Settings.from_mapping(variables)
    assert settings.system_packages == ("games", "our.games")
    assert "our.games" in repr(settings)


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"GUILD_ID": "my server"}, "GUILD_ID must be"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be"),
        ({"ROLL_RATE_LIMIT": "fast"}, "ROLL_RATE_LIMIT: give rolls/seconds like 20/10, or off"),
        ({"ROLL_RATE_LIMIT": "0/10"}, "ROLL_RATE_LIMIT: give rolls/seconds"),
        ({"SYSTEM_PACKAGES": "games, my-games"}, "SYSTEM_PACKAGES must be importable"),
    ],
)
def test_bad_optional_variables_are_named(variables: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN, **variables})


# --- DATABASE_URL -----------------------------------------------------------------------------

SECRET = "s3cr%40t-pw"  # percent-encoded "@" inside: a password is any text


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, DatabaseLocation.sqlite(DEFAULT_DATABASE_PATH)),
        ({"DATABASE_PATH": "x.db"}, DatabaseLocation.sqlite(Path("x.db"))),
        ({"DATABASE_URL": "  "}, DatabaseLocation.sqlite(DEFAULT_DATABASE_PATH)),
        (
            {"DATABASE_URL": "sqlite:///data/other.db"},
            DatabaseLocation.sqlite(Path("data/other.db")),
        ),
        (
            {"DATABASE_URL": "sqlite:////srv/bot/bot.db"},
            DatabaseLocation.sqlite(Path("/srv/bot/bot.db")),
        ),
        ({"DATABASE_URL": "SQLite:///my%20bot.db"}, DatabaseLocation.sqlite(Path("my bot.db"))),
        # DATABASE_URL wins over a DATABASE_PATH left in .env (as .env.example has one).
        (
            {"DATABASE_URL": "sqlite:///a.db", "DATABASE_PATH": "b.db"},
            DatabaseLocation.sqlite(Path("a.db")),
        ),
        (
            {"DATABASE_URL": f"postgresql://bot:{SECRET}@db.example:5433/dice"},
            DatabaseLocation.postgresql(f"postgresql://bot:{SECRET}@db.example:5433/dice"),
        ),
        (
            {"DATABASE_URL": "postgres://bot@db.example/dice"},
            DatabaseLocation.postgresql("postgres://bot@db.example/dice"),
        ),
        (
            {"DATABASE_URL": "postgresql:///dice?host=/var/run/postgresql"},
            DatabaseLocation.postgresql("postgresql:///dice?host=/var/run/postgresql"),
        ),
    ],
)
def test_database_url_picks_the_backend_and_where_its_data_lives(
    variables: dict[str, str], expected: DatabaseLocation
) -> None:
    settings = Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN, **variables})
    assert settings.database == expected
    if expected.kind is Backend.SQLITE:  # the file every SQLite call site opens
        assert settings.database_path == expected.path


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("data/bot.db", "DATABASE_URL must be a URL like sqlite:///"),
        ("://nothing", "DATABASE_URL must be a URL"),
        ("mysql://bot:hunter2@db/dice", "DATABASE_URL has an unknown scheme 'mysql'"),
        ("postgresql+asyncpg://bot@db/dice", "DATABASE_URL has an unknown scheme"),
        ("sqlite://", "DATABASE_URL is malformed: an SQLite URL is sqlite:///"),
        ("sqlite:///", "DATABASE_URL is malformed"),
        ("sqlite://host/bot.db", "DATABASE_URL is malformed"),
        ("sqlite:///bot.db?mode=ro", "DATABASE_URL is malformed"),
        ("postgresql://bot:hunter2@db:port/dice", "DATABASE_URL is malformed: a PostgreSQL URL"),
        ("postgresql://bot:hunter2@db:99999/dice", "DATABASE_URL is malformed"),
    ],
)
def test_a_malformed_or_unknown_database_url_is_named_without_its_password(
    url: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        Settings.from_mapping({"DISCORD_TOKEN": VALID_LOOKING_TOKEN, "DATABASE_URL": url})
    assert "hunter2" not in str(caught.value)
    assert caught.value.__cause__ is None  # no chained exception repeats the URL either


def test_the_database_password_never_reaches_repr_or_str() -> None:
    settings = Settings.from_mapping(
        {
            "DISCORD_TOKEN": VALID_LOOKING_TOKEN,
            "DATABASE_URL": f"postgresql://bot:{SECRET}@db.example:5433/dice?password=other-pw",
        }
    )
    shown = [repr(settings), repr(settings.database), str(settings.database)]
    for text in shown:
        assert SECRET not in text and "s3cr" not in text and "other-pw" not in text
        assert VALID_LOOKING_TOKEN not in text
    assert str(settings.database) == ("postgresql://bot:***@db.example:5433/dice?password=***")
    assert settings.database is not None
    assert settings.database.url == (  # the real URL is still there for the driver
        f"postgresql://bot:{SECRET}@db.example:5433/dice?password=other-pw"
    )


def test_settings_built_in_code_default_to_their_sqlite_file_and_refuse_a_contradiction() -> None:
    settings = Settings(token=VALID_LOOKING_TOKEN, database_path=Path("x.db"))
    assert settings.database == DatabaseLocation.sqlite(Path("x.db"))
    with pytest.raises(ValueError, match="different SQLite files"):
        Settings(
            token=VALID_LOOKING_TOKEN,
            database_path=Path("x.db"),
            database=DatabaseLocation.sqlite(Path("y.db")),
        )


def test_an_unreachable_postgresql_server_is_one_line_naming_database_url_and_exit_2(
    tmp_path: Path,
) -> None:
    result = run_bot(
        tmp_path,
        DISCORD_TOKEN=VALID_LOOKING_TOKEN,
        DATABASE_URL=f"postgresql://bot:{SECRET}@127.0.0.1:1/dice",  # nothing listens on port 1
    )
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("error: DATABASE_URL can't be used: OperationalError: ")
    assert "Traceback" not in result.stderr
    assert "s3cr" not in result.stderr + result.stdout
    assert not (tmp_path / "data").exists()  # no SQLite file was made instead


def test_a_bad_database_url_at_start_is_one_line_naming_it(tmp_path: Path) -> None:
    result = run_bot(
        tmp_path, DISCORD_TOKEN=VALID_LOOKING_TOKEN, DATABASE_URL="mysql://bot:hunter2@db/x"
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "DATABASE_URL has an unknown scheme" in lines[0], result.stderr
    assert "hunter2" not in result.stderr


def test_backup_with_a_postgresql_url_says_to_use_pg_dump(tmp_path: Path) -> None:
    result = run_bot(
        tmp_path, "backup", "copy.db", DATABASE_URL=f"postgres://bot:{SECRET}@db.example/dice"
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pg_dump" in lines[0], result.stderr
    assert "s3cr" not in result.stderr + result.stdout
    assert not (tmp_path / "copy.db").exists()


def test_backup_copies_the_sqlite_file_a_database_url_names(tmp_path: Path) -> None:
    import sqlite3

    from bot.storage import apply_migrations

    (tmp_path / "state").mkdir()
    apply_migrations(tmp_path / "state" / "live.db")
    with sqlite3.connect(tmp_path / "state" / "live.db") as connection:
        connection.execute(
            "INSERT INTO campaigns (channel_id, system, name, created_by)"
            " VALUES (7, 'cosmos', 'Backed up', 1)"
        )
    result = run_bot(
        tmp_path, "backup", "copy.db", DATABASE_URL="sqlite:///state/live.db", DATABASE_PATH="x"
    )
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(tmp_path / "copy.db") as connection:
        names = connection.execute("SELECT name FROM campaigns").fetchall()
    assert names == [("Backed up",)]


def test_env_example_documents_every_variable_the_configuration_reads() -> None:
    # Every variable bot/config.py reads appears in .env.example (and nothing it doesn't read).
    source = (PROJECT_ROOT / "bot" / "config.py").read_text(encoding="utf-8")
    read = set(re.findall(r"values(?:\.get\(|\[)\"([A-Z_]+)\"", source))
    example = (PROJECT_ROOT / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^([A-Z_]+)=", example, flags=re.MULTILINE))
    assert "SYSTEM_PACKAGES" in read and "DISCORD_TOKEN" in read  # the pattern finds them
    assert documented == read


@pytest.mark.parametrize(("given", "used"), [(None, "1"), ("3", "3")])
def test_python_m_bot_loads_numpy_with_one_blas_thread_unless_the_environment_says(
    given: str | None, used: str
) -> None:
    # The setting must be in place before numpy is first imported (OpenBLAS reads it then).
    check = (
        "import os, sys; import bot.__main__; "
        "assert 'numpy' not in sys.modules; print(os.environ['OPENBLAS_NUM_THREADS'])"
    )
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        environment["OPENBLAS_NUM_THREADS"] = given
    result = subprocess.run(
        [sys.executable, "-c", check], env=environment, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == used
