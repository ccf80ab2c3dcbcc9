"""Logging for `python -m bot`: discord.py's handler, with interaction tokens redacted.

An interaction token lets whoever holds it answer, edit and follow up as the bot for 15
minutes. discord.py's DEBUG lines carry them (every REST URL under /interactions and /webhooks,
every gateway event), so a shared debug log would hand them out: every handler gets a filter
that blanks them before a line is written.
"""

from __future__ import annotations

import logging
import re

import discord

__all__ = ["REDACTED", "TokenRedactor", "redact", "setup_logging"]

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
    """Rewrite each record's message with interaction tokens redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def setup_logging(level: int) -> None:
    """Log to stderr as discord.py does, through a handler that redacts tokens."""
    discord.utils.setup_logging(level=level)
    for handler in logging.getLogger().handlers:
        handler.addFilter(TokenRedactor())
