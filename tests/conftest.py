"""Shared pytest configuration: loads the fake Discord fixtures (fake_discord, run_bot) and the
throwaway PostgreSQL server (postgres_server, postgres_url), and marks each system's tests.

The markers (README "Set up": `pytest -m sinew` runs one system's tests alone) come from the
file name (tests/e2e/test_sinew_pressure.py is sinew's) and, for the tests that run every
system's commands in turn (tests/e2e/test_properties.py), from the system a test runs at.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bot.storage import apply_migrations

pytest_plugins = ["tests.fakediscord.fixtures", "tests.postgres"]

SYSTEMS = ("cosmos", "realms", "sinew", "aethelgard", "sixpool")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        systems = {system for system in SYSTEMS if item.path.stem.startswith(f"test_{system}")}
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("table") in SYSTEMS:
            systems.add(callspec.params["table"])
        for system in sorted(systems):
            item.add_marker(getattr(pytest.mark, system))


@pytest.fixture(scope="session")
def migrated_sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file with every migration applied, once per session (per xdist worker).

    Migrating a fresh file costs ~0.17 s of CPU, opening a migrated one ~0.02 s: the tests that
    only need a working database start from a copy (``migrated_sqlite``); the tests of the
    migrations themselves start from nothing, as before.
    """
    path = tmp_path_factory.mktemp("template") / "migrated.db"
    apply_migrations(path)
    return path


@pytest.fixture
def migrated_sqlite(migrated_sqlite_template: Path, tmp_path: Path) -> Path:
    """This test's own copy of the migrated database: ``tmp_path / "bot.db"``."""
    path = tmp_path / "bot.db"
    shutil.copyfile(migrated_sqlite_template, path)
    return path
