"""Typed helpers for what a test expects or hands over on purpose.

``RollLog.get`` and ``CampaignStore.active`` answer None for a missing row; a test that expects
the row reads it through ``logged_roll`` / ``active_campaign``, so a missing one fails the test
where it is read. ``unchecked`` marks a value of the wrong type given on purpose (to test the
code's own checks); ``as_rng`` hands a scripted stand-in to rules that take numpy's Generator;
``revealed_line`` reads a revealed roll's reveal line, which the test expects.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.render.campaign import REVEALED
from bot.render.reply import Verdict
from bot.storage import Campaign, LoggedRoll, Storage
from rules.randomness import Rng


async def logged_roll(storage: Storage, roll_id: int) -> LoggedRoll:
    """Return the logged roll ``roll_id``, which the test expects to exist."""
    roll = await storage.rolls.get(roll_id)
    assert roll is not None, f"roll #{roll_id} is not logged"
    return roll


async def active_campaign(storage: Storage, channel_id: int) -> Campaign:
    """Return the channel's running campaign, which the test expects to exist."""
    campaign = await storage.campaigns.active(channel_id)
    assert campaign is not None, f"no campaign runs in channel {channel_id}"
    return campaign


def revealed_line(embed: Mapping[str, Any]) -> str:
    """Return a revealed roll's reveal line, which the test expects: the reply's layout kept
    (docs/players/index.md, "Reading a reply": the title starts with the verdict), then its last
    field says a GM revealed it ("Rolled in secret …")."""
    assert embed["title"].startswith(tuple(verdict.value for verdict in Verdict)), embed["title"]
    last = embed["fields"][-1]
    assert last["name"] == REVEALED, embed["fields"]
    return str(last["value"])


def unchecked(value: object) -> Any:
    """A value of the wrong type, given on purpose: the test checks the code refuses it."""
    return value


def as_rng(scripted: object) -> Rng:
    """A scripted stand-in for the random source: the rules call only its ``integers``."""
    return scripted  # type: ignore[return-value]  # numpy: Generator is a class, not a protocol a fake can meet


def sign(number: int) -> str:
    """A number as a reply shows a margin or modifier: +2, 0, −1 (a true minus)."""
    if number == 0:
        return "0"
    return f"+{number}" if number > 0 else f"−{-number}"
