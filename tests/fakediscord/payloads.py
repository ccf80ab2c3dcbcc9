"""Build the JSON objects Discord sends: users, members, roles, channels, the guild, the app.

Only keys discord.py 2.7 requires, or reads without a sensible default, are filled in; ids are
strings and timestamps ISO 8601, as on the wire.
"""

from __future__ import annotations

import base64
import itertools
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000
EPHEMERAL = 1 << 6  # message flag
LOADING = 1 << 7  # message flag: a deferred ("is thinking…") response

MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
VIEW_CHANNEL = 1 << 10
EVERYONE_PERMISSIONS = (
    (1 << 10)  # view channel
    | (1 << 11)  # send messages
    | (1 << 14)  # embed links
    | (1 << 15)  # attach files
    | (1 << 16)  # read message history
    | (1 << 31)  # use application commands
    | (1 << 38)  # send messages in threads
)

_counter = itertools.count()


def snowflake() -> int:
    """Return a new, increasing snowflake stamped with the current time."""
    milliseconds = int(time.time() * 1000) - DISCORD_EPOCH_MS
    return (milliseconds << 22) | (next(_counter) % (1 << 22))


def now() -> str:
    """Return the current time as Discord writes it."""
    return datetime.now(UTC).isoformat()


def bot_token(bot_id: int) -> str:
    """Return a token shaped like a real one: base64url(id).base64url(time).hmac."""

    def encode(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    timestamp = int(time.time()).to_bytes(4, "big")
    return f"{encode(str(bot_id).encode())}.{encode(timestamp)}.{secrets.token_urlsafe(20)}"


@dataclass(frozen=True, slots=True)
class FakeUser:
    """A member of the fake guild."""

    id: int
    name: str
    role_ids: tuple[int, ...] = ()
    permissions: int = EVERYONE_PERMISSIONS
    bot: bool = False


def user(person: FakeUser) -> JSON:
    return {
        "id": str(person.id),
        "username": person.name,
        "global_name": person.name,
        "discriminator": "0",
        "avatar": None,
        "bot": person.bot,
    }


def member(person: FakeUser, *, with_user: bool = True, with_permissions: bool = False) -> JSON:
    payload: JSON = {
        "roles": [str(role_id) for role_id in person.role_ids],
        "joined_at": now(),
        "flags": 0,
    }
    if with_user:
        payload["user"] = user(person)
    if with_permissions:
        payload["permissions"] = str(person.permissions)
    return payload


def role(
    role_id: int, name: str, permissions: int, position: int, *, bot_id: int | None = None
) -> JSON:
    """A role; with ``bot_id``, the role Discord manages for that bot (only the bot holds it)."""
    payload: JSON = {
        "id": str(role_id),
        "name": name,
        "permissions": str(permissions),
        "position": position,
    }
    if bot_id is not None:
        payload["managed"] = True
        payload["tags"] = {"bot_id": str(bot_id)}
    return payload


def text_channel(
    channel_id: int, guild_id: int, name: str, overwrites: list[JSON] | None = None
) -> JSON:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(guild_id),
        "name": name,
        "position": 0,
        "permission_overwrites": list(overwrites or []),
    }


def dm_channel(channel_id: int, person: FakeUser) -> JSON:
    """A user's DM channel with the bot (type 1): the other recipient is the user."""
    return {
        "id": str(channel_id),
        "type": 1,
        "recipients": [user(person)],
        "last_message_id": None,
    }


def group_dm(channel_id: int, people: list[FakeUser]) -> JSON:
    """A group DM (type 3) of ``people``, the first its owner; the bot is not a recipient."""
    return {
        "id": str(channel_id),
        "type": 3,
        "recipients": [user(person) for person in people],
        "owner_id": str(people[0].id),
        "name": None,
        "icon": None,
        "last_message_id": None,
    }


def overwrite(target_id: int, *, member: bool = False, allow: int = 0, deny: int = 0) -> JSON:
    """A channel's permission overwrite for a role (or, with ``member``, a member)."""
    return {
        "id": str(target_id),
        "type": 1 if member else 0,
        "allow": str(allow),
        "deny": str(deny),
    }


def thread(thread_id: int, guild_id: int, parent_id: int, owner_id: int, name: str) -> JSON:
    return {
        "id": str(thread_id),
        "type": 11,  # public thread
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id),
        "name": name,
        "message_count": 0,
        "member_count": 1,
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": now(),
            "locked": False,
        },
    }


def guild(
    guild_id: int,
    name: str,
    owner_id: int,
    roles: list[JSON],
    channels: list[JSON],
    threads: list[JSON],
    members: list[JSON],
) -> JSON:
    """Return a full GUILD_CREATE body; member_count matches so discord.py never chunks."""
    return {
        "id": str(guild_id),
        "name": name,
        "owner_id": str(owner_id),
        "unavailable": False,
        "large": False,
        "member_count": len(members),
        "preferred_locale": "en-US",
        "roles": roles,
        "channels": channels,
        "threads": threads,
        "members": members,
    }


def application(app_id: int, owner: FakeUser) -> JSON:
    """Return GET /oauth2/applications/@me."""
    return {
        "id": str(app_id),
        "name": "Fake Dice Bot",
        "description": "",
        "icon": None,
        "bot_public": True,
        "bot_require_code_grant": False,
        "owner": user(owner),
        "team": None,
        "verify_key": "0" * 64,
        "flags": 0,
        "interactions_endpoint_url": None,
    }
