"""The one exception type the rules raise for illegal input or illegal moves."""

from __future__ import annotations

__all__ = ["RulesError"]


class RulesError(Exception):
    """A mistake the user can fix; the message is safe to show them as it is.

    The message should say what was wrong and what is allowed, e.g.
    "TN must be between 2 and 40 (got 41)."
    """
