"""The storage suite runs on both backends: ``storage`` is an SQLite file, then a PostgreSQL
database (a throwaway server, tests/postgres.py); ``sqlite_storage`` is for what only SQLite has
(its pragmas, its group commit, its migrations from old files, its fault injection)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.config import DatabaseLocation
from bot.storage import Storage


@pytest.fixture(params=["sqlite", "postgresql"])
async def storage(request: pytest.FixtureRequest) -> AsyncIterator[Storage]:
    # Both start from a copy of a database migrated once per session (tests/conftest.py).
    if request.param == "postgresql":
        url = request.getfixturevalue("migrated_postgres_url")
        opened = await Storage.open(DatabaseLocation.postgresql(url))
    else:
        opened = await Storage.open(request.getfixturevalue("migrated_sqlite"))
    yield opened
    await opened.close()


@pytest.fixture
async def sqlite_storage(migrated_sqlite: Path) -> AsyncIterator[Storage]:
    opened = await Storage.open(migrated_sqlite)
    yield opened
    await opened.close()
