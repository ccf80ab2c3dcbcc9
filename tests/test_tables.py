"""Data tables load once and a bad one names its file and line."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.data_tables import TableError, load_table


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
