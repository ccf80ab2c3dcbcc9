"""Data tables load once and a bad one names its file and line."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import cogs.cosmos
from bot.client import create_bot
from bot.data_tables import TableError, load_table
from tests.e2e.conftest import bot_settings
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord


def require_answer(raw: Mapping[str, Any]) -> int:
    if "answer" not in raw:
        raise ValueError("missing key 'answer'")
    return int(raw["answer"])


def test_valid_table_is_parsed(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("answer = 42\n")
    assert load_table("t.toml", require_answer, tmp_path) == 42


def test_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("answer = 42\nbroken = \n")
    with pytest.raises(TableError, match=r"t\.toml: .*line 2"):
        load_table("t.toml", require_answer, tmp_path)


def test_invalid_content_names_file_and_problem(tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text("question = 6\n")
    with pytest.raises(TableError, match=r"t\.toml: missing key 'answer'"):
        load_table("t.toml", require_answer, tmp_path)


def test_missing_table_is_named(tmp_path: Path) -> None:
    with pytest.raises(TableError, match=r"nothing\.toml: the table is missing"):
        load_table("nothing.toml", require_answer, tmp_path)


async def test_a_bad_table_stops_the_bot_with_the_error_python_m_bot_reports(
    fake_discord: FakeDiscord, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m bot` turns a TableError into "error: bad game table: …" (exit 1): the bot's
    # start must raise it as itself, not wrapped by discord.py's extension loading.
    def broken(name: str, *_: object) -> object:
        raise TableError(f"{name}: line 3: expected '=' after a key")

    monkeypatch.setattr(cogs.cosmos, "load_table", broken)
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite))
    with pytest.raises(TableError, match=r"critical_effects\.toml: line 3"):
        async with run_bot(fake_discord, bot):
            pass
