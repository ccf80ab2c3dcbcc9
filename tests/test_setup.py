"""`python -m bot setup`, `check` and `migrate` as a new host runs them (docs/hosting.md, "Set
up"): the token into .env (mode 0600, the other lines kept), the invite link from the token, a
systemd unit; then a line per thing the start needs, and exit 0 only when all hold."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import discord
import pytest

from bot.anywhere import INVITE_PERMISSION_FLAGS, INVITE_PERMISSIONS, INVITE_SCOPES, invite_url
from bot.config import PROJECT_ROOT, Settings, application_id_of
from bot.host import env_with_token
from tests.fakediscord.payloads import bot_token

APPLICATION_ID = 1187654321098765432
TOKEN = bot_token(APPLICATION_ID)
OTHER_LINES = "# my notes\nGUILD_ID=42\nDATABASE_PATH=state/bot.db\nLOG_LEVEL=DEBUG\n"


def run(
    folder: Path, *arguments: str, stdin: str = "", **variables: str
) -> subprocess.CompletedProcess[str]:
    """`python -m bot ARGUMENTS` in ``folder``, with none of the bot's variables inherited."""
    inherited = ("DISCORD_", "GUILD_ID", "DATABASE_", "METRICS_", "SHARD_", "ROLL_RATE")
    environment = {k: v for k, v in os.environ.items() if not k.startswith(inherited)}
    environment["PYTHONPATH"] = str(PROJECT_ROOT)
    environment.update(variables)
    return subprocess.run(
        [sys.executable, "-m", "bot", *arguments],
        cwd=folder,
        env=environment,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def invite_of(output: str) -> dict[str, list[str]]:
    """The query of the server invite setup printed (the link with permissions)."""
    [link] = [word for word in output.split() if "permissions=" in word]
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "discord.com", "/oauth2/authorize")
    return parse_qs(parts.query)


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- the invite's permissions: one list of named flags


def test_the_invite_permissions_integer_is_the_sum_of_its_named_flags() -> None:
    # Discord's bit of each, from its documentation's permission table, added by hand.
    view_channel, send_messages, embed_links, attach_files = 1 << 10, 1 << 11, 1 << 14, 1 << 15
    send_messages_in_threads = 1 << 38
    by_hand = view_channel + send_messages + embed_links + attach_files + send_messages_in_threads
    assert by_hand == 274877959168
    assert INVITE_PERMISSIONS.value == by_hand
    assert sorted(INVITE_PERMISSION_FLAGS) == sorted(
        ["view_channel", "send_messages", "send_messages_in_threads", "embed_links", "attach_files"]
    )
    for flag in INVITE_PERMISSION_FLAGS:  # each a discord.py flag, each set
        assert getattr(INVITE_PERMISSIONS, flag) is True
    assert discord.Permissions(by_hand) == INVITE_PERMISSIONS
    query = parse_qs(urlsplit(invite_url(APPLICATION_ID)).query)
    assert query == {
        "client_id": [str(APPLICATION_ID)],
        "scope": ["bot applications.commands"],
        "permissions": [str(by_hand)],
    }
    assert INVITE_SCOPES == ("bot", "applications.commands")


# --- the token's form


def test_a_tokens_first_part_is_its_application_id() -> None:
    assert application_id_of(TOKEN) == APPLICATION_ID
    assert application_id_of(bot_token(175928847299117063)) == 175928847299117063
    secret = "a" * 32  # a client secret: one part
    access = "dGhpcyBpcyBub3QgYW4gaWQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"  # not digits
    for bad in (secret, access, TOKEN.replace(".", ":"), TOKEN + " x", "", TOKEN[:-25]):
        assert application_id_of(bad) is None, bad


def test_the_bot_refuses_at_start_what_setup_refuses() -> None:
    access = "dGhpcyBpcyBub3QgYW4gaWQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"
    with pytest.raises(Exception, match="DISCORD_TOKEN is malformed"):
        Settings.from_mapping({"DISCORD_TOKEN": access})
    assert Settings.from_mapping({"DISCORD_TOKEN": TOKEN}).token == TOKEN


# --- setup


def test_setup_without_input_writes_env_0600_keeping_its_other_lines(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text(OTHER_LINES + "DISCORD_TOKEN=an-old-one\nROLL_RATE_LIMIT=5/60\n")
    env.chmod(0o644)
    result = run(tmp_path, "setup", "--no-input", DISCORD_TOKEN=TOKEN)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert env.read_text() == OTHER_LINES + f"DISCORD_TOKEN={TOKEN}\nROLL_RATE_LIMIT=5/60\n"
    assert mode_of(env) == 0o600
    assert env.stat().st_uid == os.getuid()
    assert invite_of(result.stdout) == {
        "client_id": [str(APPLICATION_ID)],
        "scope": ["bot applications.commands"],
        "permissions": ["274877959168"],
    }
    assert "integration_type=1" in result.stdout  # the user install's link too
    assert "GUILD_ID" in result.stdout  # instant commands while trying it out
    assert "[Service]" in result.stdout and f"WorkingDirectory={tmp_path}" in result.stdout
    assert [p.name for p in tmp_path.iterdir()] == [".env"]  # no temporary file left


def test_setup_in_a_new_folder_starts_env_from_the_example(tmp_path: Path) -> None:
    result = run(tmp_path, "setup", "--no-input", "--token", TOKEN)
    assert result.returncode == 0, result.stderr
    env = tmp_path / ".env"
    assert mode_of(env) == 0o600
    example = (PROJECT_ROOT / ".env.example").read_text()
    assert env.read_text() == example.replace("DISCORD_TOKEN=\n", f"DISCORD_TOKEN={TOKEN}\n")
    assert Settings.from_environment({}, env_file=env).token == TOKEN  # the bot reads it


def test_setup_again_without_input_keeps_the_token_of_env(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"GUILD_ID=42\nDISCORD_TOKEN={TOKEN}\n")
    result = run(tmp_path, "setup", "--no-input")
    assert result.returncode == 0, result.stderr
    assert invite_of(result.stdout)["client_id"] == [str(APPLICATION_ID)]
    assert (tmp_path / ".env").read_text() == f"GUILD_ID=42\nDISCORD_TOKEN={TOKEN}\n"


@pytest.mark.parametrize(
    "token",
    ["my-client-secret", "dGhpcyBpcyBub3QgYW4gaWQ.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB"],
    ids=["client secret", "first part not an id"],
)
def test_setup_refuses_a_bad_token_form_in_one_line_with_exit_2(tmp_path: Path, token: str) -> None:
    (tmp_path / ".env").write_text(OTHER_LINES)
    result = run(tmp_path, "setup", "--no-input", DISCORD_TOKEN=token)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: DISCORD_TOKEN is malformed") and token not in line
    assert result.stdout == ""
    assert (tmp_path / ".env").read_text() == OTHER_LINES  # nothing written


def test_setup_without_input_or_a_token_exits_2_in_one_line(tmp_path: Path) -> None:
    result = run(tmp_path, "setup", "--no-input", stdin=TOKEN + "\n")  # stdin is never read
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert "DISCORD_TOKEN is not set" in line
    assert not (tmp_path / ".env").exists()


def test_setup_asks_for_the_token_when_none_is_given(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(OTHER_LINES)
    result = run(tmp_path, "setup", stdin=f"  {TOKEN}  \n")
    assert result.returncode == 0, result.stderr
    assert "Bot token: " in result.stderr  # the prompt, on stderr: stdout stays the report
    assert TOKEN not in result.stdout + result.stderr  # never echoed
    assert (tmp_path / ".env").read_text() == OTHER_LINES + f"DISCORD_TOKEN={TOKEN}\n"
    assert invite_of(result.stdout)["client_id"] == [str(APPLICATION_ID)]
    # stdin isn't a terminal: no question about systemd, the unit is printed.
    assert "[Install]" in result.stdout


def test_setup_refuses_a_bad_token_typed_at_the_prompt(tmp_path: Path) -> None:
    result = run(tmp_path, "setup", stdin="my-client-secret\n")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].startswith("error: DISCORD_TOKEN is malformed")
    assert not (tmp_path / ".env").exists()


def test_setup_with_an_empty_answer_and_no_token_exits_2(tmp_path: Path) -> None:
    result = run(tmp_path, "setup", stdin="\n")
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr.splitlines()[-1]


def test_setup_writes_the_systemd_unit_where_asked(tmp_path: Path) -> None:
    unit = tmp_path / "dicebot.service"
    result = run(tmp_path, "setup", "--no-input", "--systemd", str(unit), DISCORD_TOKEN=TOKEN)
    assert result.returncode == 0, result.stderr
    text = unit.read_text()
    assert f"WorkingDirectory={tmp_path}\n" in text
    assert f"ExecStart={sys.executable} -m bot\n" in text
    assert "[Unit]" in text and "WantedBy=multi-user.target" in text
    assert "[Service]" not in result.stdout  # written, not printed
    assert str(unit) in result.stdout


def test_env_with_token_rewrites_only_the_lines_that_set_it() -> None:
    text = "# DISCORD_TOKEN= is the bot's token\nexport DISCORD_TOKEN = old\nA=1\nDISCORD_TOKEN=x"
    assert env_with_token(text, "new") == (
        "# DISCORD_TOKEN= is the bot's token\nexport DISCORD_TOKEN = new\nA=1\nDISCORD_TOKEN=new"
    )
    assert env_with_token("A=1", "new") == "A=1\nDISCORD_TOKEN=new\n"
    assert env_with_token("", "new") == "DISCORD_TOKEN=new\n"


# --- check and migrate


def lines_of(result: subprocess.CompletedProcess[str]) -> list[str]:
    lines = result.stdout.splitlines()
    assert all(line[:2] in ("✓ ", "✗ ") for line in lines), result.stdout
    assert "Traceback" not in result.stderr
    return lines


def test_check_on_a_fresh_folder_says_to_migrate_then_passes(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={TOKEN}\nDATABASE_PATH=state/bot.db\n")
    fresh = run(tmp_path, "check")
    assert fresh.returncode == 1
    token, settings, database = lines_of(fresh)
    assert token.startswith("✓ DISCORD_TOKEN is well formed") and str(APPLICATION_ID) in token
    assert settings.startswith("✓ settings")
    assert database.startswith("✗ database state/bot.db") and "python -m bot migrate" in database
    assert not (tmp_path / "state").exists()  # check only looks

    migrated = run(tmp_path, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    assert "Migrated state/bot.db" in migrated.stdout
    again = run(tmp_path, "migrate")
    assert again.returncode == 0 and "up to date" in again.stdout

    ready = run(tmp_path, "check")
    assert ready.returncode == 0, ready.stdout
    assert [line[0] for line in lines_of(ready)] == ["✓", "✓", "✓"]
    assert "migrated" in lines_of(ready)[2]


def test_check_after_a_start_migrated_the_database_passes(tmp_path: Path) -> None:
    from bot.storage.database import apply_migrations

    apply_migrations(tmp_path / "bot.db")  # what a start does first (Storage.open)
    result = run(tmp_path, "check", DISCORD_TOKEN=TOKEN, DATABASE_PATH="bot.db")
    assert result.returncode == 0, result.stdout


def test_check_says_what_to_do_about_a_token_and_a_bad_setting(tmp_path: Path) -> None:
    (tmp_path / "bot.db").write_text("not a database")
    result = run(tmp_path, "check", DATABASE_PATH="bot.db", GUILD_ID="forty-two")
    assert result.returncode == 1
    token, settings, database = lines_of(result)
    assert token == "✗ DISCORD_TOKEN is not set: run `python -m bot setup`"
    assert settings.startswith("✗ GUILD_ID must be")
    assert database.startswith("✗ database bot.db") and "not an SQLite database" in database
    malformed = run(tmp_path, "check", DISCORD_TOKEN="my-client-secret")
    assert lines_of(malformed)[0].startswith("✗ DISCORD_TOKEN is malformed")


def test_check_finds_the_metrics_port_busy(tmp_path: Path) -> None:
    from bot.storage.database import apply_migrations

    apply_migrations(tmp_path / "bot.db")
    variables = {"DISCORD_TOKEN": TOKEN, "DATABASE_PATH": "bot.db", "METRICS_HOST": "127.0.0.1"}
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        busy = run(tmp_path, "check", METRICS_PORT=str(port), **variables)
    assert busy.returncode == 1
    *others, metrics = lines_of(busy)
    assert all(line.startswith("✓") for line in others)
    assert metrics.startswith(f"✗ metrics: 127.0.0.1:{port} can't be served")
    assert "METRICS_PORT" in metrics
    free = run(tmp_path, "check", METRICS_PORT=str(port), **variables)  # released now
    assert free.returncode == 0, free.stdout
    assert lines_of(free)[-1] == f"✓ metrics: port {port} on 127.0.0.1 is free"


def test_check_says_an_unreachable_postgresql_server_without_its_password(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    url = f"postgresql://dicebot:s3cret-pw@127.0.0.1:{port}/dicebot"
    result = run(tmp_path, "check", DISCORD_TOKEN=TOKEN, DATABASE_URL=url)
    assert result.returncode == 1
    *_, database = lines_of(result)
    assert database.startswith("✗ PostgreSQL postgresql://dicebot:***@127.0.0.1")
    assert "can't be reached" in database
    assert "s3cret-pw" not in result.stdout + result.stderr
