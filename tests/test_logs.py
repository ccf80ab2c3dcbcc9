"""The bot's log handler: a turn of the event loop's lines written together, in order."""

from __future__ import annotations

import asyncio
import io
import logging

from bot.logs import LoopBatchedHandler


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
