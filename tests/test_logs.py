"""The bot's log handler: a turn of the event loop's lines written together, in order, in
discord.py's format, with interaction tokens redacted."""

from __future__ import annotations

import asyncio
import io
import logging
import sys

import discord
import pytest

from bot.logs import LoopBatchedHandler, PrefixCachingFormatter, TokenRedactor


class Recorded(io.StringIO):
    """A stream that remembers each write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


def handler_on(stream: Recorded) -> tuple[LoopBatchedHandler, logging.Logger]:
    handler = LoopBatchedHandler()
    handler.setStream(stream)
    handler.setFormatter(logging.Formatter("{levelname} {message}", style="{"))
    logger = logging.getLogger(f"test-logs-{id(stream)}")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    return handler, logger


async def test_lines_of_one_loop_turn_are_written_together_at_its_end() -> None:
    stream = Recorded()
    _, logger = handler_on(stream)
    logger.info("one")
    logger.info("two")
    assert stream.writes == []  # not yet: the turn isn't over
    await asyncio.sleep(0)
    assert stream.writes == ["INFO one\nINFO two\n"]
    logger.info("three")
    await asyncio.sleep(0)
    assert stream.writes == ["INFO one\nINFO two\n", "INFO three\n"]


async def test_a_warning_is_written_at_once_after_the_lines_waiting() -> None:
    stream = Recorded()
    _, logger = handler_on(stream)
    logger.info("before")
    logger.warning("trouble")
    assert stream.getvalue() == "INFO before\nWARNING trouble\n"
    await asyncio.sleep(0)
    assert stream.getvalue() == "INFO before\nWARNING trouble\n"  # nothing written twice


def test_a_line_logged_outside_the_loop_is_written_at_once() -> None:
    stream = Recorded()
    _, logger = handler_on(stream)
    logger.info("no loop here")
    assert stream.getvalue() == "INFO no loop here\n"


async def test_lines_still_waiting_are_written_on_close() -> None:
    stream = Recorded()
    handler, logger = handler_on(stream)
    logger.info("last words")
    handler.close()
    assert stream.getvalue() == "INFO last words\n"


def _discord_formatters() -> dict[str, logging.Formatter]:
    """discord.py's two formats, as its setup_logging picks one (colour where it can)."""
    plain = logging.Formatter(
        "[{asctime}] [{levelname:<8}] {name}: {message}", "%Y-%m-%d %H:%M:%S", style="{"
    )
    return {"plain": plain, "colour": discord.utils._ColourFormatter()}


def _record(name: str, level: int, created: float, msg: object, *args: object) -> logging.LogRecord:
    record = logging.LogRecord(name, level, __file__, 1, msg, args or None, None)
    record.created = created
    return record


@pytest.mark.parametrize("style", ["plain", "colour"])
def test_the_line_formatter_writes_exactly_discord_pys_lines(style: str) -> None:
    original = _discord_formatters()[style]
    fast = PrefixCachingFormatter(_discord_formatters()[style])
    start = 1_795_000_000.25
    # (logger, level, when, message, its arguments)
    records: list[tuple[str, int, float, object, tuple[object, ...]]] = [
        # The per-command line, many in one second, then the next second, other loggers/levels.
        *(
            (
                "bot.client",
                logging.INFO,
                start + step / 10,
                "/%s by %s in %.1f ms",
                ("roll", 7, 1.25),
            )
            for step in range(25)
        ),
        ("bot.memory", logging.INFO, start + 0.5, "Garbage collection took %.1f ms", (12.0,)),
        ("bot.publish", logging.WARNING, start + 0.6, "Could not remember roll #%d", (3,)),
        ("discord.http", logging.DEBUG, start + 0.7, "plain %% text", ()),
        ("bot.client", logging.ERROR, start + 3, {"not": "a string"}, ()),
        ("bot.client", logging.INFO, start + 86_400, "a day later", ()),
        ("custom", 25, start, "a level of its own", ()),
    ]
    for name, level, created, msg, args in records:
        assert fast.format(_record(name, level, created, msg, *args)) == original.format(
            _record(name, level, created, msg, *args)
        )


@pytest.mark.parametrize("style", ["plain", "colour"])
def test_the_line_formatter_writes_tracebacks_as_discord_py_does(style: str) -> None:
    fast = PrefixCachingFormatter(_discord_formatters()[style])
    try:
        raise ValueError("boom")
    except ValueError:
        info = sys.exc_info()
    made = [
        formatter.format(
            logging.LogRecord("bot", logging.ERROR, __file__, 1, "failed %d", (1,), info)
        )
        for formatter in (fast, _discord_formatters()[style])
    ]
    assert made[0] == made[1] and "ValueError: boom" in made[0]


def test_the_line_formatter_defers_to_a_format_not_ending_with_the_message() -> None:
    fast = PrefixCachingFormatter(logging.Formatter("%(message)s <- %(name)s"))
    assert fast.format(_record("bot", logging.INFO, 0.0, "hi %s", "there")) == "hi there <- bot"


def test_token_redactor_blanks_tokens_and_puts_the_arguments_in_once() -> None:
    record = _record("discord.webhook", logging.DEBUG, 0.0, "POST %s", "/interactions/1/abc.def/x")
    assert TokenRedactor().filter(record)
    assert record.getMessage() == "POST /interactions/1/<redacted>/x"
    plain = _record("bot", logging.INFO, 0.0, "/%s in %.1f ms", "roll", 2.5)
    assert TokenRedactor().filter(plain)
    assert (plain.msg, plain.args, plain.getMessage()) == (
        "/roll in 2.5 ms",
        None,
        "/roll in 2.5 ms",
    )
    unchanged = _record("bot", logging.INFO, 0.0, ValueError("no arguments"))
    assert TokenRedactor().filter(unchanged) and unchanged.getMessage() == "no arguments"
