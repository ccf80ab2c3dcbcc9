"""PostgreSQL refusing writes (read-only, or the connections dropped by a restart or fail-over):
each write is refused as CannotSave with nothing changed, reads go on, and the bot recovers by
itself once the server takes writes again."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import psycopg
import pytest

from bot.config import DatabaseLocation
from bot.storage import Storage
from bot.storage.errors import CannotSave, WriteFault
from rules.campaigns import CampaignSettings
from rules.systems import System
from tests.expect import active_campaign

CHANNEL, GM, PLAYER = 4242, 1, 2


@pytest.fixture
async def pg_storage(migrated_postgres_url: str) -> AsyncIterator[Storage]:
    opened = await Storage.open(DatabaseLocation.postgresql(migrated_postgres_url))
    yield opened
    await opened.close()


def admin(url: str, *statements: str) -> None:
    """Run statements from another connection, as an operator would (autocommit)."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("SET default_transaction_read_only = off")  # the operator can
        for statement in statements:
            connection.execute(statement)


def drop_connections(url: str) -> str:
    name = urlsplit(url).path.lstrip("/")
    return (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        f" WHERE datname = '{name}' AND pid <> pg_backend_pid()"
    )


async def test_a_read_only_postgresql_refuses_writes_and_the_bot_recovers_by_itself(
    pg_storage: Storage, migrated_postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    url = migrated_postgres_url
    name = urlsplit(url).path.lstrip("/")
    campaign = await pg_storage.campaigns.start(
        guild_id=1, channel_id=CHANNEL, user_id=GM,
        settings=CampaignSettings.create(System.COSMOS, "Far Stars"),
    )  # fmt: skip
    # The operator makes the database read-only and drops the bot's connections (a fail-over).
    admin(url, f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    admin(url, drop_connections(url))
    refusals = []
    with caplog.at_level(logging.INFO, logger="bot.storage.postgres"):
        for _ in range(3):  # the dropped connection first, then the read-only fresh one
            with pytest.raises(CannotSave) as refused:
                await pg_storage.campaigns.add_gm(campaign, PLAYER, GM)
            refusals.append(refused.value.fault)
        assert refusals[-1] is WriteFault.READ_ONLY
        assert set(refusals) <= {WriteFault.IO, WriteFault.READ_ONLY}
        # Reads go on, and nothing was half-changed.
        assert (await active_campaign(pg_storage, CHANNEL)).gm_ids == {GM}
        # Writable again: the next write works, without reopening anything.
        admin(url, f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        admin(url, drop_connections(url))
        for _ in range(2):  # at most once more on a connection the server dropped
            try:
                updated = await pg_storage.campaigns.add_gm(campaign, PLAYER, GM)
                break
            except CannotSave as error:
                assert error.fault is WriteFault.IO
        assert updated.gm_ids == {GM, PLAYER}
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert 1 <= len(warnings) <= 2  # once per kind of outage, not once per command
    assert caplog.records[-1].getMessage().startswith("The database can be written again")
    assert "Traceback" not in caplog.text
