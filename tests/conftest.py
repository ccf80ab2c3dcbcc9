"""Shared pytest configuration: loads the fake Discord fixtures (fake_discord, run_bot) and the
throwaway PostgreSQL server (postgres_server, postgres_url), and marks each system's tests.

The markers (docs/development.md, "Tests": `pytest -m sinew` runs one system's tests alone) come
from the file name (tests/e2e/test_sinew_pressure.py is sinew's) and, for the tests that run every
system's commands in turn (tests/e2e/test_properties.py), from the system a test runs at.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

pytest_plugins = ["tests.fakediscord.fixtures", "tests.postgres"]

SYSTEMS = ("cosmos", "realms", "sinew", "aethelgard", "sixpool")

# Room the suite's temporary files need in memory: a few hundred MB at most (SQLite files, the
# PostgreSQL cluster, the bots' logs, compiled bytecode), with a wide margin.
_MEMORY_TEMP_NEEDS = 2 * 1024**3


def _keep_temporary_files_in_memory() -> None:
    """Put every temporary file of the run (``tmp_path``, the PostgreSQL cluster, what a bot
    process under test writes) in /dev/shm when it is there, writable and roomy.

    The tests commit to SQLite and PostgreSQL thousands of times; on a disk each commit waits
    for its fsync (30–40 ms on this project's CI disk against under 1 ms in memory), and pytest
    deletes old runs' files one by one. The bot's durability is tested by what survives a
    SIGKILL (tests/e2e/test_crash.py), which memory-backed files still show: the kernel keeps
    them. A TMPDIR set by whoever runs the tests wins.
    """
    memory = Path("/dev/shm")
    if "TMPDIR" in os.environ or not memory.is_dir() or not os.access(memory, os.W_OK):
        return
    if shutil.disk_usage(memory).free < _MEMORY_TEMP_NEEDS:
        return
    os.environ["TMPDIR"] = str(memory)  # inherited by the processes the tests start
    tempfile.tempdir = None  # tempfile reads TMPDIR again on its next call


def _cache_bytecode_outside_the_tree() -> None:
    """With PYTHONDONTWRITEBYTECODE set, every process the suite starts (each xdist worker and
    some forty `python -m bot`) would compile the project and rewrite the test modules' asserts
    from source again: about 1 s of CPU per process. Keep the bytecode under the temporary
    folder instead (PYTHONPYCACHEPREFIX), so the working tree still gets no __pycache__."""
    if not sys.dont_write_bytecode or sys.pycache_prefix is not None:
        return
    prefix = str(Path(tempfile.gettempdir()) / "dicebot-tests-pycache")
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _skip_the_system_certificates() -> None:
    """Every connection the suite makes is plain TCP on loopback (the fake Discord, the test
    PostgreSQL), but aiohttp loads the system's certificate bundle into two TLS contexts when
    imported, in every process: point OpenSSL at an empty bundle instead (~0.15 s of CPU a
    process), even where the environment names a bundle, as CI images often do."""
    os.environ["SSL_CERT_FILE"] = os.devnull
    os.environ["SSL_CERT_DIR"] = os.devnull


def _one_blas_thread() -> None:
    """As `python -m bot` does (bot/__main__.py), for the workers and the processes they
    start: importing numpy with OpenBLAS's thread per core costs ~0.15 s of CPU a process."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


_keep_temporary_files_in_memory()
_cache_bytecode_outside_the_tree()
_skip_the_system_certificates()
_one_blas_thread()


# Each test builds and drops a bot, a fake Discord and their connections: millions of short-lived
# objects, many in reference cycles. With CPython's default thresholds (700, 10, 10) a worker
# spent 15-25% of its CPU in the garbage collector; collecting young objects less often, and
# the whole heap far less often, keeps memory bounded all the same.
TEST_GC_THRESHOLDS = (20_000, 20, 100)


def pytest_collection_finish(session: pytest.Session) -> None:
    """In each worker, once the tests are collected: freeze what collection built (every test
    module, discord.py, numpy, Hypothesis) out of the collector's sight, as the bot does after
    its start, and collect less often (``TEST_GC_THRESHOLDS``)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*TEST_GC_THRESHOLDS)


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
    # Imported here, not at the top: the settings above must come before any project import.
    from bot.storage import apply_migrations

    path = tmp_path_factory.mktemp("template") / "migrated.db"
    apply_migrations(path)
    return path


@pytest.fixture
def migrated_sqlite(migrated_sqlite_template: Path, tmp_path: Path) -> Path:
    """This test's own copy of the migrated database: ``tmp_path / "bot.db"``."""
    path = tmp_path / "bot.db"
    shutil.copyfile(migrated_sqlite_template, path)
    return path
