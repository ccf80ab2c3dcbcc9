"""How six-pool d20's storage refusals read to the user (``bot.render.errors.describe``)."""

from __future__ import annotations

from bot.render.errors import describe
from bot.storage.sixpool import (
    AlreadyRolled,
    BoostTooLate,
    ContestClosed,
    GroupClosed,
    GroupNotFound,
    NotLatestRoll,
)

__all__: list[str] = []


@describe.register
def _(error: NotLatestRoll) -> str:
    return (
        f"Roll #{error.roll_id} is no longer your latest roll here: inspiration rerolls a die of "
        "your latest roll, once."
    )


@describe.register
def _(error: GroupClosed) -> str:
    return f"Group check #{error.group_id} is closed: its result is in the channel."


@describe.register
def _(error: GroupNotFound) -> str:
    return "There is no open group check here; start one with `/sixpool group`."


@describe.register
def _(error: AlreadyRolled) -> str:
    return f"{error.name} has rolled in this group check already: once each."


@describe.register
def _(error: BoostTooLate) -> str:
    if error.rolled:
        return "Too late to boost: a leader boosts before any die of the group check is rolled."
    return "This group check has its leader's boost already: one leader, one boost."


@describe.register
def _(error: ContestClosed) -> str:
    if error.status == "expired":
        return f"Contest #{error.contest_id} expired: nothing was spent. Start a new one."
    return f"Contest #{error.contest_id} is settled already: its dice were rolled."
