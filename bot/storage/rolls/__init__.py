"""The roll log: every roll with its result and visibility, backing reveals and the audit trail.

``entries``: what a logged roll is, and how one is read and written inside a caller's
transaction; ``log``: the store (logging, paging, revealing, a session's rolls).
"""

from bot.storage.rolls.entries import (
    ROLLER_CHARACTER,
    Change,
    LoggedRoll,
    Recorded,
    Revealer,
    RollEntry,
    SessionStart,
    Visibility,
    insert_roll,
    latest_roll,
    mark_rolled,
    roll_in,
    session_rows_sql,
    session_walk_sql,
)
from bot.storage.rolls.log import RollLog, RollPage

__all__ = [
    "ROLLER_CHARACTER",
    "Change",
    "LoggedRoll",
    "Recorded",
    "Revealer",
    "RollEntry",
    "RollLog",
    "RollPage",
    "SessionStart",
    "Visibility",
    "insert_roll",
    "latest_roll",
    "mark_rolled",
    "roll_in",
    "session_rows_sql",
    "session_walk_sql",
]
