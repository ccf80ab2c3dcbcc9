"""What the bot last synced of its commands to Discord, so a start with the same ones skips it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from bot.storage.database import Database

__all__ = ["CommandSyncStore", "payload_hash"]

_RECORD_SYNC = """
INSERT INTO command_syncs (application_id, scope, payload_sha256) VALUES (?, ?, ?)
ON CONFLICT (application_id, scope) DO UPDATE SET payload_sha256 = excluded.payload_sha256
"""


def payload_hash(payload: Sequence[object]) -> str:
    """The SHA-256 (hex) of a sync's JSON payload, serialised canonically (keys sorted, no
    spaces): the same commands hash the same in every process and Python version."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class CommandSyncStore:
    """The hash of the last payload synced per application id and scope ('global' or
    'guild <id>')."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def synced_hash(self, application_id: int, scope: str) -> str | None:
        """The hash recorded by the last sync to ``scope``, or None if there was none."""
        row = await self._database.fetch_one(
            "SELECT payload_sha256 FROM command_syncs WHERE application_id = ? AND scope = ?",
            (application_id, scope),
        )
        return None if row is None else str(row["payload_sha256"])

    async def record_sync(self, application_id: int, scope: str, digest: str) -> None:
        """Record that the payload hashing to ``digest`` was synced to ``scope``."""
        await self._database.write_alone(_RECORD_SYNC, (application_id, scope, digest))
