"""Logging for `python -m bot`: discord.py's format, with interaction tokens redacted.

An interaction token lets whoever holds it answer, edit and follow up as the bot for 15
minutes. discord.py's DEBUG lines carry them (every REST URL under /interactions and /webhooks,
every gateway event), so a shared debug log would hand them out: every handler gets a filter
that blanks them before a line is written.

The bot logs a line per command (its latency, ``bot.client``); written and flushed one by one
they cost a system call each (~5% of the bot's CPU per `/roll` under load). The lines logged in
one turn of the event loop are written together at its end (``LoopBatchedHandler``); a warning
or worse, and anything logged outside the loop, is written at once. Each line is discord.py's
format, its time, level and logger made once a second (``PrefixCachingFormatter``), and its
message formatted once (by the redactor).

discord.py's "Can't keep up, shard ID N websocket is 41.3s behind." is written at DEBUG, not
WARNING (``HeartbeatLagDemoter``): on a busy process it measures a race in discord.py, not lag
(docs/hosting.md, "Several processes (shards)").
"""

from __future__ import annotations

import asyncio
import logging
import re

import discord

__all__ = [
    "HEARTBEAT_BEHIND_MESSAGE",
    "REDACTED",
    "HeartbeatLagDemoter",
    "LoopBatchedHandler",
    "PrefixCachingFormatter",
    "TokenRedactor",
    "redact",
    "setup_logging",
]

REDACTED = "<redacted>"

_TOKEN_PATTERNS = (
    # REST URLs: /interactions/{id}/{token}/callback, /webhooks/{application}/{token}[/...]
    re.compile(r"(/(?:interactions|webhooks)/\d+/)[A-Za-z0-9_.\-]+"),
    # Gateway payloads as dict reprs or JSON: 'token': '...' and "token": "..."
    re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+"""),
)


# A line without these can hold no token: most lines skip the regular expressions.
_TOKEN_HINTS = ("/interactions/", "/webhooks/", "token")


def redact(text: str) -> str:
    """Return ``text`` with every interaction token replaced by a marker."""
    if not any(hint in text for hint in _TOKEN_HINTS):
        return text
    for pattern in _TOKEN_PATTERNS:
        text = pattern.sub(rf"\g<1>{REDACTED}", text)
    return text


class TokenRedactor(logging.Filter):
    """Rewrite each record's message with interaction tokens redacted.

    The record keeps the message as made here (its arguments put in once: the formatter then
    doesn't format it again)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.msg, record.args = record.getMessage(), None
        message = record.msg if type(record.msg) is str else str(record.msg)
        cleaned = redact(message)
        if cleaned != message:
            record.msg = cleaned
        return True


class PrefixCachingFormatter(logging.Formatter):
    """``formatter``'s lines (discord.py's: colour or plain, as its setup_logging chose), the
    part before the message made once per second for each logger and level.

    Both of discord.py's formats end with the message, after a prefix that depends only on the
    time (to the second), the level and the logger's name: a line is that prefix, made by
    ``formatter`` itself for the first line of a second and kept, and the message. A record
    with a traceback or a stack, or a formatter whose lines don't end with the message, is
    formatted by ``formatter`` as it is.
    """

    _PROBE = "\x00probe"

    def __init__(self, formatter: logging.Formatter) -> None:
        super().__init__()
        self._formatter = formatter
        probe = logging.makeLogRecord({"msg": self._PROBE, "levelno": logging.INFO})
        self._ends_with_message = formatter.format(probe).endswith(self._PROBE)
        self._prefixes: dict[tuple[int, str, int], str] = {}  # (level, logger, second) -> prefix

    def format(self, record: logging.LogRecord) -> str:
        if not self._ends_with_message or record.exc_info or record.exc_text or record.stack_info:
            return self._formatter.format(record)
        message = record.message = record.getMessage()
        key = (record.levelno, record.name, int(record.created))
        prefix = self._prefixes.get(key)
        if prefix is None:
            if len(self._prefixes) > 64:  # lines of earlier seconds: never asked for again
                self._prefixes.clear()
            probe = logging.makeLogRecord(record.__dict__)
            probe.msg, probe.args = self._PROBE, None
            prefix = self._formatter.format(probe).removesuffix(self._PROBE)
            self._prefixes[key] = prefix
        return prefix + message


class LoopBatchedHandler(logging.StreamHandler):
    """Log to stderr, writing the lines of one turn of the event loop together.

    A line below WARNING logged in the event loop's thread waits for the end of the loop's
    current turn (``call_soon``: after the callbacks ready now), then that turn's lines are
    written and flushed at once. A WARNING or worse, or a line from another thread or with no
    loop running, is written at once, after the lines waiting, so the order is kept.
    """

    def __init__(self) -> None:
        super().__init__()
        self._pending: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
        except Exception:
            self.handleError(record)
            return
        if record.levelno < logging.WARNING:
            try:  # only the loop's own thread finds it running
                loop = asyncio.get_running_loop()
            except RuntimeError:
                loop = None
            if loop is not None:
                self.acquire()
                try:
                    if not self._pending:
                        loop.call_soon(self._write_pending)
                    self._pending.append(line)
                finally:
                    self.release()
                return
        self._write(line)

    def _write_pending(self) -> None:
        self._write("")

    def _write(self, line: str) -> None:
        self.acquire()
        try:
            text = "".join(self._pending) + line
            self._pending.clear()
            if text:
                self.stream.write(text)
                self.flush()
        except Exception:
            self.handleError(logging.makeLogRecord({"msg": "could not write the log"}))
        finally:
            self.release()

    def close(self) -> None:
        self._write("")  # what is still waiting (the loop may be gone by now)
        super().close()


# discord.py's KeepAliveHandler.behind_msg (discord/gateway.py), logged by its ack().
HEARTBEAT_BEHIND_MESSAGE = "Can't keep up, shard ID %s websocket is %.1fs behind."


class HeartbeatLagDemoter(logging.Filter):
    """Demote discord.gateway's "Can't keep up … behind" warning to DEBUG; pass all else as is.

    discord.py's keep-alive thread stamps a heartbeat's send time only after the event loop has
    sent it and the thread has woken again; the loop stamps the ACK as it reads it. On a busy
    process the ACK (a local round trip is well under a millisecond) is often read before the
    thread runs again, and the "lag" is then measured from the previous heartbeat: the heartbeat
    interval (41.25 s), whatever the real delay. A loop that is truly stuck is still reported at
    WARNING, by discord.py's "heartbeat blocked for more than 10 seconds" (with the loop's stack)
    and "has stopped responding to the gateway".
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != HEARTBEAT_BEHIND_MESSAGE or record.levelno != logging.WARNING:
            return True
        record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
        # Made at WARNING, the record passed the logger's level: a DEBUG one would not have.
        return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


def setup_logging(level: int) -> None:
    """Log to stderr as discord.py does, through a handler that redacts tokens and writes each
    turn of the event loop's lines together."""
    batched = LoopBatchedHandler()
    discord.utils.setup_logging(level=level, handler=batched)
    # discord.py's choice of format, kept; made faster (a latency line costs ~1/4 less).
    assert batched.formatter is not None  # set by setup_logging
    batched.setFormatter(PrefixCachingFormatter(batched.formatter))
    # The format names no source line, thread or process: skip finding them for every record
    # (the logging HOWTO's "Optimization": a frame walk per line, ~15% of a latency line).
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    for handler in logging.getLogger().handlers:
        handler.addFilter(TokenRedactor())
    gateway = logging.getLogger("discord.gateway")
    if not any(isinstance(existing, HeartbeatLagDemoter) for existing in gateway.filters):
        gateway.addFilter(HeartbeatLagDemoter())
