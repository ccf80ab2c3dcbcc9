"""`python -m bot` as a process against the fake Discord: starts, syncs, refuses bad tokens."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO

import discord
import pytest
from discord import app_commands

from bot.client import (
    CONCURRENT_INTERACTIONS,
    DRAIN_TIMEOUT_SECONDS,
    HTTP_CONNECTIONS,
    DiceBot,
    create_bot,
)
from bot.config import Settings
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

STARTUP_TIMEOUT_SECONDS = 30


async def start_bot_process(
    fake: FakeDiscord,
    tmp_path: Path,
    token: str,
    database_path: Path | None = None,
    stderr: int | IO[bytes] = asyncio.subprocess.PIPE,
    arguments: Sequence[str] = ("-m", "bot"),
    **variables: str,
) -> asyncio.subprocess.Process:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("DISCORD_")
    }
    environment.update(
        DISCORD_TOKEN=token,
        DISCORD_API_BASE=fake.api_base,
        DISCORD_GATEWAY_URL=fake.gateway_url,
        DATABASE_PATH=str(database_path or tmp_path / "bot.db"),
        GUILD_ID=str(fake.guild_id),
        ROLL_RATE_LIMIT="off",  # these tests load one user far past any flood limit
    )
    environment.update(variables)  # a test may override the above (GUILD_ID="": global sync)
    return await asyncio.create_subprocess_exec(
        sys.executable,
        *arguments,
        cwd=tmp_path,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
    )


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
async def test_bot_process_starts_syncs_answers_and_stops_cleanly(
    fake_discord: FakeDiscord, tmp_path: Path, stop_signal: signal.Signals
) -> None:
    process = await start_bot_process(fake_discord, tmp_path, fake_discord.token)
    try:
        async with asyncio.timeout(STARTUP_TIMEOUT_SECONDS):
            await fake_discord.wait_until(
                lambda: (
                    bool(fake_discord.synced_commands(guild=True)) and fake_discord.bot_connected
                ),
                "command sync and gateway connection",
            )
        reply = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
        assert "2d6" in reply.embeds[0]["title"]
        assert (tmp_path / "bot.db").exists()
    finally:
        process.send_signal(stop_signal)
        _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    log = stderr.decode()
    assert "Synced" in log and "Traceback" not in log
    assert fake_discord.token not in log
    assert process.returncode == 0


async def wait_until_ready(fake: FakeDiscord) -> None:
    async with asyncio.timeout(STARTUP_TIMEOUT_SECONDS):
        await fake.wait_until(
            lambda: bool(fake.synced_commands(guild=True)) and fake.bot_connected,
            "command sync and gateway connection",
        )


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
async def test_stop_under_load_answers_every_interaction_received_then_exits_0(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_sqlite: Path, stop_signal: signal.Signals
) -> None:
    # On a migrated copy (tmp_path / "bot.db"): a first start's migrations are not the subject.
    process = await start_bot_process(fake_discord, tmp_path, fake_discord.token, migrated_sqlite)
    try:
        await wait_until_ready(fake_discord)
        await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Load"})
        cosmos_roll = {"attribute": 3, "skill": 2, "tn": 12}
        replies = [
            await fake_discord.send("cosmos roll", cosmos_roll, user="player")
            if number % 4 == 0
            else await fake_discord.send("roll", {"expression": "4d6kh3"}, user="player")
            for number in range(100)
        ]
    finally:
        process.send_signal(stop_signal)
    await fake_discord.wait_answered(replies)
    _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    log = stderr.decode()
    assert process.returncode == 0, log
    assert "Traceback" not in log and "Session is closed" not in log and "ERROR" not in log
    # Every roll that was logged (committed) was also shown to its roller.
    with sqlite3.connect(tmp_path / "bot.db") as connection:
        logged = {row[0] for row in connection.execute("SELECT id FROM rolls")}
    shown = {
        int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #"))
        for reply in replies
        if reply.embeds
    }
    assert logged == shown
    restarting = [reply for reply in replies if "restarting" in (reply.content or "")]
    assert len(shown) + len(restarting) == len(replies)


async def test_under_a_steady_stream_a_stop_exits_before_the_stream_ends(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_sqlite: Path
) -> None:
    # An interaction every 10 ms never leaves the bot a quiet moment: the drain ends when what
    # it admitted is answered, not when Discord falls silent (nor at DRAIN_TIMEOUT_SECONDS).
    process = await start_bot_process(fake_discord, tmp_path, fake_discord.token, migrated_sqlite)
    replies: list[Reply] = []
    delivered: list[bool] = []  # per reply: a connection of the bot's was there to send it to
    # The stream outlasts the signal by half the drain's limit: a drain that waited for its
    # limit (or for a quiet moment, which never comes) would exit after it.
    after_signal = int(DRAIN_TIMEOUT_SECONDS / 2 / 0.01)
    signalled = asyncio.Event()

    async def stream() -> None:
        remaining = after_signal
        while remaining > 0:
            try:
                replies.append(await fake_discord.send("roll", {"expression": "3d6"}))
                delivered.append(True)
            except RuntimeError:  # the bot has disconnected: Discord would have nobody to tell
                delivered.append(False)
            if signalled.is_set():
                remaining -= 1
            await asyncio.sleep(0.01)

    try:
        await wait_until_ready(fake_discord)
        streaming = asyncio.create_task(stream())
        await fake_discord.wait_until(
            lambda: sum(reply.raw is not None for reply in replies) >= 30, "30 rolls answered"
        )
    finally:
        process.send_signal(signal.SIGTERM)
        signalled.set()
    _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    exited_while_streaming = not streaming.done()
    await streaming
    log = stderr.decode()
    assert process.returncode == 0, log
    assert "Traceback" not in log and "ERROR" not in log and "unanswered" not in log
    assert exited_while_streaming
    assert False in delivered  # the stream went on after the bot had gone
    # Each interaction the bot read was answered: a roll until the signal, the restart notice
    # after it; those it never read (sent as it disconnected, or after) come last.
    kinds = [
        "unanswered"
        if reply.raw is None
        else "roll"
        if reply.embeds
        else "restarting"
        if "restarting" in (reply.content or "")
        else "other"
        for reply in replies
    ]
    # (The drain may be over before any interaction arrives during it: notices are optional.)
    rolls = kinds.count("roll")
    notices = kinds.count("restarting")
    assert kinds == ["roll"] * rolls + ["restarting"] * notices + ["unanswered"] * (
        len(kinds) - rolls - notices
    ), kinds
    assert rolls >= 30
    with sqlite3.connect(tmp_path / "bot.db") as connection:
        logged = connection.execute("SELECT count(*) FROM rolls").fetchone()[0]
    assert logged == rolls  # every roll logged was shown, and no more


async def test_a_second_signal_stops_at_once(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_sqlite: Path
) -> None:
    process = await start_bot_process(fake_discord, tmp_path, fake_discord.token, migrated_sqlite)
    try:
        await wait_until_ready(fake_discord)
        for _ in range(50):
            await fake_discord.send("roll", {"expression": "4d6kh3"}, user="player")
    finally:
        process.send_signal(signal.SIGTERM)
        process.send_signal(signal.SIGTERM)
    _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    assert process.returncode == 0, stderr.decode()
    assert "Traceback" not in stderr.decode()


async def test_closing_gives_up_the_answers_in_flight_before_the_connection_closes(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a second Ctrl-C (or the drain's time limit) leaves in flight is cancelled before
    # discord.py closes the HTTP session: left running, it would fail on the closed session
    # and log a traceback (the fake fails the test on any ERROR logged).
    waiting = asyncio.Event()

    async def never_logged(sql: str, parameters: object = (), returning: str = "") -> object:
        waiting.set()
        await asyncio.Event().wait()  # until cancelled
        raise AssertionError("a stuck roll log went on")

    monkeypatch.setattr(dicebot.storage.database, "insert_returning", never_logged)
    reply = await fake_discord.send("roll", {"expression": "1d6"}, user="player")
    await fake_discord.wait_until(waiting.is_set, "the roll to wait for its log entry")
    assert dicebot.in_flight == 1
    await dicebot.close()
    assert dicebot.in_flight == 0  # given up, not left to answer on a closed connection
    assert reply.raw is None


async def test_debug_log_carries_no_interaction_token(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_sqlite: Path
) -> None:
    process = await start_bot_process(
        fake_discord, tmp_path, fake_discord.token, migrated_sqlite, LOG_LEVEL="DEBUG"
    )
    try:
        await wait_until_ready(fake_discord)
        reply = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
        await fake_discord.invoke("roll", {"expression": "1d4", "hidden": True}, user="player")
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    log = stderr.decode()
    assert "/interactions/" in log and "<redacted>" in log  # DEBUG lines were written
    assert reply.interaction["token"] not in log
    assert fake_discord.token not in log


async def test_token_rejected_by_discord_exits_2_naming_the_variable(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    wrong = fake_discord.token[:-4] + "AAAA"
    process = await start_bot_process(fake_discord, tmp_path, wrong)
    _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    lines = [line for line in stderr.decode().splitlines() if line.startswith("error:")]
    assert process.returncode == 2
    assert "Traceback" not in stderr.decode()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0]


async def test_without_guild_id_commands_sync_globally(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    settings = Settings(
        token=fake_discord.token,
        database_path=tmp_path / "bot.db",
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    async with run_bot(fake_discord, create_bot(settings)):
        global_names = {command["name"] for command in fake_discord.synced_commands(guild=False)}
        assert {"campaign", "cosmos", "roll"} <= global_names
        assert fake_discord.synced_commands(guild=True) == []


async def test_second_start_applies_no_migration_and_keeps_state(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        token=fake_discord.token,
        database_path=tmp_path / "bot.db",
        guild_id=fake_discord.guild_id,
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    caplog.set_level(logging.INFO, logger="bot.storage.database")
    async with run_bot(fake_discord, create_bot(settings)):
        await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Kept"})
    assert "Applied migrations 0001_foundation" in caplog.text
    caplog.clear()
    async with run_bot(fake_discord, create_bot(settings)):
        reply = await fake_discord.invoke("campaign info", {}, user="player")
        assert reply.embeds[0]["title"] == "📖 Kept"
    assert "Applied migrations" not in caplog.text


async def test_a_start_with_the_commands_last_synced_skips_the_sync(
    fake_discord: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A sync overwrites every command (rate-limited by Discord): a restart of the same version
    # on the same database has nothing to send.
    settings = Settings(
        token=fake_discord.token,
        database_path=tmp_path / "bot.db",
        guild_id=fake_discord.guild_id,
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    caplog.set_level(logging.INFO, logger="bot.client")
    async with run_bot(fake_discord, create_bot(settings)):
        pass
    synced = fake_discord.sync_count
    assert synced == 1
    async with run_bot(fake_discord, create_bot(settings)) as again:
        assert again.commands_unchanged
        reply = await fake_discord.invoke("roll", {"expression": "2d6"}, user="player")
        assert "2d6" in reply.embeds[0]["title"]
    assert fake_discord.sync_count == synced
    assert "Commands unchanged since the last sync: not synced" in caplog.text
    # Another scope (here: globally instead of the guild) is another payload: synced.
    async with run_bot(fake_discord, create_bot(replace(settings, guild_id=None))) as other:
        assert not other.commands_unchanged
    assert fake_discord.sync_count == synced + 1
    assert {"roll", "campaign"} <= {c["name"] for c in fake_discord.synced_commands(guild=False)}


async def test_a_changed_command_tree_is_synced_again(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    settings = Settings(
        token=fake_discord.token,
        database_path=tmp_path / "bot.db",
        guild_id=fake_discord.guild_id,
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    async with run_bot(fake_discord, create_bot(settings)):
        pass
    synced = fake_discord.sync_count

    @app_commands.command(name="extra", description="A command the last sync didn't have.")
    async def extra(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("extra")

    bot = create_bot(settings)
    bot.tree.add_command(extra)
    async with run_bot(fake_discord, bot):
        assert not bot.commands_unchanged
    assert fake_discord.sync_count == synced + 1
    assert "extra" in {command["name"] for command in fake_discord.synced_commands(guild=True)}


def _corrupt_file(tmp_path: Path) -> Path:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"this is not an SQLite database, just some bytes" * 100)
    return path


def _directory(tmp_path: Path) -> Path:
    path = tmp_path / "folder.db"
    path.mkdir()
    return path


def _under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("a regular file")
    return tmp_path / "notes.txt" / "bot.db"


def _under_proc(tmp_path: Path) -> Path:
    return Path("/proc/dicebot/bot.db")


@pytest.mark.parametrize(
    ("make_path", "problem"),
    [
        (_corrupt_file, "not an SQLite database"),
        (_directory, "it is a folder"),
        (_under_a_file, "can't be created"),
        (_under_proc, "can't be created"),
    ],
)
async def test_unusable_database_path_exits_2_with_one_line_naming_it(
    fake_discord: FakeDiscord, tmp_path: Path, make_path, problem: str
) -> None:
    database_path = make_path(tmp_path)
    process = await start_bot_process(fake_discord, tmp_path, fake_discord.token, database_path)
    _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    log = stderr.decode()
    lines = [line for line in log.splitlines() if line.startswith("error:")]
    assert process.returncode == 2, log
    assert "Traceback" not in log and "check the network" not in log
    assert len(lines) == 1, log
    assert f"DATABASE_PATH={database_path}" in lines[0] and problem in lines[0]


async def test_connections_to_discords_rest_api_are_bounded(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """discord.py's own pool is unbounded: a burst opened a connection per interaction."""
    connector = dicebot.http.connector
    assert connector.limit == HTTP_CONNECTIONS == 100
    replies = [await fake_discord.send("roll", {"expression": "1d6"}) for _ in range(300)]
    await fake_discord.wait_answered(replies)
    assert all(not reply.ephemeral for reply in replies)
    idle = sum(len(kept) for kept in connector._conns.values())  # aiohttp's keep-alive pool
    assert 0 < idle <= HTTP_CONNECTIONS


async def test_a_burst_is_handled_at_most_concurrent_interactions_at_a_time(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """discord.py starts every interaction of a burst at once; the bot runs a bounded number
    and the rest wait their turn, so a burst's memory peak is bounded too."""
    running, most = 0, 0
    handle = app_commands.CommandTree._call

    async def counted(tree: app_commands.CommandTree, interaction: discord.Interaction) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        try:
            await asyncio.sleep(0.01)  # every interaction in flight at once, unless held back
            await handle(tree, interaction)
        finally:
            running -= 1

    monkeypatch.setattr(app_commands.CommandTree, "_call", counted)
    replies = [await fake_discord.send("roll", {"expression": "1d6"}) for _ in range(200)]
    await fake_discord.wait_answered(replies)
    assert all(not reply.ephemeral for reply in replies)
    assert most == CONCURRENT_INTERACTIONS == 64, most
