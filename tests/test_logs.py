"""The bot's log handler: a turn of the event loop's lines written together, in order, in
discord.py's format, with interaction tokens redacted."""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace

import discord
import pytest
from discord.gateway import KeepAliveHandler

from bot.logs import (
    HEARTBEAT_BEHIND_MESSAGE,
    HeartbeatLagDemoter,
    LoopBatchedHandler,
    PrefixCachingFormatter,
    TokenRedactor,
    setup_logging,
)


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


@pytest.fixture
def demoted_gateway() -> Iterator[logging.Logger]:
    """discord.gateway with the bot's HeartbeatLagDemoter, as setup_logging leaves it."""
    gateway = logging.getLogger("discord.gateway")
    demoter = HeartbeatLagDemoter()
    gateway.addFilter(demoter)
    try:
        yield gateway
    finally:
        gateway.removeFilter(demoter)


def _keep_alive() -> KeepAliveHandler:
    """discord.py's own keep-alive handler (never started: no thread, no socket)."""
    socket = SimpleNamespace(thread_id=threading.get_ident(), _max_heartbeat_timeout=60.0)
    return KeepAliveHandler(ws=socket, interval=41.25, shard_id=3)  # type: ignore[arg-type]


def test_the_demoted_message_is_discord_pys_behind_message() -> None:
    assert _keep_alive().behind_msg == HEARTBEAT_BEHIND_MESSAGE


def test_an_ack_read_before_the_send_was_stamped_is_demoted_to_debug(
    demoted_gateway: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    # The race: the loop reads the ACK before the keep-alive thread has stamped its heartbeat's
    # send, so the "lag" runs from the previous heartbeat (one interval ago).
    keep_alive = _keep_alive()
    keep_alive._last_send = time.perf_counter() - 41.25
    caplog.set_level(logging.INFO, logger="discord.gateway")
    keep_alive.ack()
    assert keep_alive.latency > 41
    assert caplog.records == []  # DEBUG, below the logger's level: not written
    caplog.set_level(logging.DEBUG, logger="discord.gateway")
    keep_alive.ack()
    [record] = caplog.records
    assert record.levelno == logging.DEBUG and record.levelname == "DEBUG"
    assert record.getMessage().startswith("Can't keep up, shard ID 3 websocket is 41.")


def test_every_other_record_passes_unchanged(
    demoted_gateway: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="discord.gateway")
    keep_alive = _keep_alive()
    demoted_gateway.warning(keep_alive.block_msg, 3, 10)
    demoted_gateway.warning(
        "Shard ID %s has stopped responding to the gateway. Closing and restarting.", 3
    )
    demoted_gateway.info("Shard ID %s has connected to Gateway (Session ID: %s).", 3, "abc")
    demoted_gateway.error(HEARTBEAT_BEHIND_MESSAGE, 3, 41.3)  # not at WARNING: not discord.py's
    logging.getLogger("discord.client").warning(HEARTBEAT_BEHIND_MESSAGE, 3, 41.3)  # no filter
    assert [record.levelname for record in caplog.records] == [
        "WARNING",
        "WARNING",
        "INFO",
        "ERROR",
        "WARNING",
    ]


def test_setup_logging_installs_the_demoter_once() -> None:
    gateway = logging.getLogger("discord.gateway")
    root = logging.getLogger()
    handlers, level, filters = list(root.handlers), root.level, list(gateway.filters)
    switches = {
        name: getattr(logging, name)
        for name in ("_srcfile", "logThreads", "logProcesses", "logMultiprocessing")
    }
    try:
        setup_logging(logging.INFO)
        setup_logging(logging.INFO)
        assert sum(isinstance(f, HeartbeatLagDemoter) for f in gateway.filters) == 1
    finally:
        for handler in root.handlers:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
        gateway.filters[:] = filters
        for name, value in switches.items():
            setattr(logging, name, value)
