"""The shared wording helpers: a list or a text that grows with use never passes a limit."""

from __future__ import annotations

import pytest

from bot.render.style import listed, truncate


def test_listed_keeps_every_line_when_they_fit() -> None:
    assert listed(["ab", "cd"], limit=5) == "ab\ncd"  # 5 characters: exactly the limit


def test_listed_counts_the_lines_left_out_and_stays_within_the_limit() -> None:
    lines = [f"line {n}" for n in range(10)]  # 6 characters each
    text = listed(lines, limit=30, more="more lines")
    # "line 0\nline 1\n…and 8 more lines" is 31: one line fewer fits with the count after it.
    assert text == "line 0\n…and 9 more lines"
    assert len(text) <= 30


@pytest.mark.parametrize("limit", range(1, 60))
def test_listed_is_never_longer_than_its_limit(limit: int) -> None:
    assert len(listed(["x" * 7] * 12, limit=limit)) <= limit


def test_listed_of_one_line_too_long_cuts_it_visibly() -> None:
    assert listed(["y" * 50], limit=20) == "…and 1 more"


def test_truncate_marks_the_cut_and_keeps_the_limit() -> None:
    text = truncate("z" * 100, 40)
    assert len(text) == 40 and text.endswith(" … (cut to fit Discord)")
    assert truncate("short", 40) == "short"
