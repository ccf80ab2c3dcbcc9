"""`python -m bot backup PATH`: a consistent copy of the live database, while the bot writes."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from bot.storage import Storage, Visibility
from bot.storage.backup import BackupFailed, backup_database
from bot.storage.rolls import RollEntry


def _entry(number: int) -> RollEntry:
    return RollEntry(None, 1, 1001, 22, "dice.roll", Visibility.PUBLIC, {"n": number})


def _roll_ids(path: Path) -> list[int]:
    with sqlite3.connect(path) as connection:
        return [row[0] for row in connection.execute("SELECT id FROM rolls ORDER BY id")]


async def test_backups_taken_while_rolls_are_written_are_whole_snapshots(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "bot.db")
    for number in range(50):
        await storage.rolls.record(_entry(number))
    writing = True

    async def write() -> int:
        written = 50
        while writing:
            await storage.rolls.record(_entry(written))
            written += 1
        return written

    writer = asyncio.create_task(write())
    copies = []
    for index in range(5):
        target = tmp_path / "backups" / f"copy{index}.db"
        report = await asyncio.to_thread(backup_database, tmp_path / "bot.db", target)
        copies.append((target, report))
        await asyncio.sleep(0.01)
    writing = False
    written = await writer
    await storage.close()
    counts = []
    for target, report in copies:
        ids = _roll_ids(target)
        # A snapshot: every roll up to some point, none missing, none half-written.
        assert ids == list(range(1, len(ids) + 1))
        assert report.rows["rolls"] == len(ids) >= 50
        counts.append(len(ids))
    assert counts == sorted(counts) and counts[-1] <= written
    assert not list((tmp_path / "backups").glob("*.partial"))


def test_backup_refuses_a_missing_database_and_its_own_file(tmp_path: Path) -> None:
    try:
        backup_database(tmp_path / "none.db", tmp_path / "copy.db")
    except BackupFailed as error:
        assert "There is no database at" in str(error)
    else:
        raise AssertionError("a missing database was backed up")
    (tmp_path / "bot.db").write_bytes(b"")
    try:
        backup_database(tmp_path / "bot.db", tmp_path / "bot.db")
    except BackupFailed as error:
        assert "another file" in str(error)
    else:
        raise AssertionError("the database was backed up onto itself")


def _run_backup(
    cwd: Path, environment: dict[str, str], target: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot", "backup", str(target)],
        cwd=cwd, env=environment, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


async def test_python_m_bot_backup_needs_no_token_and_says_what_it_copied(tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "bot.db")
    await storage.rolls.record(_entry(1))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    environment["DATABASE_PATH"] = str(tmp_path / "bot.db")
    done = await asyncio.to_thread(_run_backup, tmp_path, environment, tmp_path / "out" / "copy.db")
    await storage.close()  # the copy was taken with the database open, as under a running bot
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Backed up {tmp_path / 'bot.db'} to {tmp_path / 'out/copy.db'}")
    assert "1 rolls" in done.stdout
    assert _roll_ids(tmp_path / "out" / "copy.db") == [1]
    environment["DATABASE_PATH"] = str(tmp_path / "missing.db")
    failed = await asyncio.to_thread(_run_backup, tmp_path, environment, tmp_path / "x.db")
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert failed.stderr.startswith("error: There is no database at")
