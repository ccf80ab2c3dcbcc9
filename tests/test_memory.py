"""bot.memory: full collections only when no interaction waits, and long pauses logged."""

from __future__ import annotations

import gc
import logging
from collections.abc import Iterator

import pytest

from bot import memory


@pytest.fixture
def collector() -> Iterator[None]:
    """Give each test the collector's settings back, whatever it changed (tests/conftest.py
    freezes the collected heap: frozen again afterwards).

    What the worker holds now is frozen first, so the tests' full collections walk only what
    they make (~0.5 s each over a worker's heap late in a run, for nothing they assert)."""
    thresholds = gc.get_threshold()
    callbacks = list(gc.callbacks)
    frozen = gc.get_freeze_count() > 0
    gc.freeze()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    gc.callbacks[:] = callbacks
    if frozen:
        gc.freeze()


def young_collections(count: int) -> None:
    for _ in range(count):
        gc.collect(1)  # counts one towards the next full collection, as CPython's own do


def test_after_start_full_collections_no_longer_start_by_themselves(collector: None) -> None:
    memory.freeze_after_start()
    assert gc.get_threshold() == (*memory.YOUNG_THRESHOLDS, memory.NEVER)
    assert gc.get_freeze_count() > 0
    young_collections(memory.OVERDUE + 5)
    assert gc.get_count()[2] == memory.OVERDUE + 5  # no full collection reset the count


def test_collect_if_due_runs_the_full_collection_cpython_would_have_run(collector: None) -> None:
    gc.set_threshold(700, 10, memory.NEVER)
    gc.collect()
    young_collections(memory.DUE - 1)
    memory.collect_if_due()
    assert gc.get_count()[2] == memory.DUE - 1  # not due yet: nothing ran
    young_collections(1)
    memory.collect_if_due()
    assert gc.get_count()[2] == 0  # a full collection ran


async def test_a_long_collection_is_logged_unless_no_one_waited_for_it(
    collector: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory, "LONG_PAUSE_MS", 0.0)  # every collection counts as long
    memory.log_long_collections()
    memory.log_long_collections()  # idempotent: one line per collection, not two
    gc.set_threshold(700, 10, memory.NEVER)
    with caplog.at_level(logging.INFO, logger="bot.memory"):
        gc.collect()
        young_collections(memory.DUE)
        caplog.clear()
        memory.collect_if_due()  # while no interaction is in flight: not logged
        assert caplog.messages == []
        gc.collect(2)
    assert len(caplog.messages) == 1
    assert caplog.messages[0].startswith("Garbage collection of generation 2 took ")


def test_a_collection_with_no_event_loop_running_is_not_logged(
    collector: None, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At start and at exit nothing waits for a collection: no log line (the one-line errors of
    a failed start stay one line)."""
    monkeypatch.setattr(memory, "LONG_PAUSE_MS", 0.0)
    memory.log_long_collections()
    with caplog.at_level(logging.INFO, logger="bot.memory"):
        gc.collect()
    assert caplog.messages == []
