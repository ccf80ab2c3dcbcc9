"""Prometheus metrics of a running bot (docs/hosting.md, "Metrics"), served at
METRICS_HOST:METRICS_PORT.

Imported only when METRICS_PORT is set (bot.client imports it then, and only then): without it
no prometheus_client is loaded and the hot path pays one ``is None`` check per interaction.

Each bot has its own registry (tests run many bots in one process; prometheus_client's default
registry is process-wide). The HTTP server is prometheus_client's own, in a thread.
"""

from __future__ import annotations

import contextlib
import gc
import socket
import threading
import time
from collections.abc import Iterable
from typing import Any, Protocol
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.config import ConfigError, MetricsAddress
from bot.errors import Outcome
from bot.storage.timed import DatabaseOperation

__all__ = ["METRIC_NAMES", "Metrics"]

# Interaction received → reply sent; Discord's deadline for the first answer is 3 s.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
DATABASE_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.5, 1.0)
GC_BUCKETS = (0.0001, 0.0005, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0)
GC_GENERATIONS = (0, 1, 2)
STOP_TIMEOUT_SECONDS = 2.0
# How often a stop wakes the server's thread (below) until it has stopped.
WAKE_SECONDS = 0.01

# The names a scrape shows (Counter adds _total, a histogram _bucket/_sum/_count).
METRIC_NAMES = (
    "dicebot_interactions_total",
    "dicebot_interaction_seconds",
    "dicebot_database_seconds",
    "dicebot_gc_pause_seconds",
    "dicebot_shard_latency_seconds",
    "dicebot_interactions_in_flight",
)


class Observed(Protocol):
    """What the scrape reads from the bot itself (discord.py's shard latencies, in flight)."""

    @property
    def latencies(self) -> list[tuple[int, float]]: ...

    @property
    def in_flight(self) -> int: ...


class _BotCollector(Collector):
    """Read at scrape time: each shard's heartbeat latency and the interactions in flight."""

    def __init__(self, bot: Observed) -> None:
        self._bot = bot

    def collect(self) -> Iterable[Metric]:
        shards = GaugeMetricFamily(
            "dicebot_shard_latency_seconds",
            "Each shard's gateway heartbeat latency (+Inf before its first heartbeat).",
            labels=["shard"],
        )
        try:
            latencies = list(self._bot.latencies)
        except (RuntimeError, AttributeError):  # read mid-(re)connect, from this thread
            latencies = []  # the next scrape has them
        for shard_id, latency in latencies:
            shards.add_metric([str(shard_id)], latency)
        yield shards
        yield GaugeMetricFamily(
            "dicebot_interactions_in_flight",
            "Interactions started and not yet answered.",
            value=self._bot.in_flight,
        )


class Metrics:
    """One bot's metrics and the HTTP server that shows them."""

    def __init__(self, bot: Observed) -> None:
        self.registry = CollectorRegistry()
        self._interactions = Counter(
            "dicebot_interactions",
            "Slash commands handled, by command and outcome (ok, refused, error).",
            ["command", "outcome"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "dicebot_interaction_seconds",
            "Slash command latency, interaction received to answer sent, by command.",
            ["command"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        database = Histogram(
            "dicebot_database_seconds",
            "Time in the database: write transactions (the write lock's wait included), "
            "single write statements, reads.",
            ["operation"],
            buckets=DATABASE_BUCKETS,
            registry=self.registry,
        )
        self._database = {
            operation: database.labels(operation.value) for operation in DatabaseOperation
        }
        pauses = Histogram(
            "dicebot_gc_pause_seconds",
            "Garbage collections (the whole process stops for them), by generation.",
            ["generation"],
            buckets=GC_BUCKETS,
            registry=self.registry,
        )
        # Made now: the collector's callback must not create a child (under a lock that the
        # collection may have interrupted); observing a child takes only a value's lock, inside
        # which nothing is allocated that a collection could start from.
        self._pauses = [pauses.labels(str(generation)) for generation in GC_GENERATIONS]
        self.registry.register(_BotCollector(bot))
        self._collection_started: float | None = None
        self._server: tuple[WSGIServer, threading.Thread] | None = None

    def interaction_finished(self, command: str, outcome: Outcome, seconds: float | None) -> None:
        self._interactions.labels(command, outcome.value).inc()
        if seconds is not None:
            self._latency.labels(command).observe(seconds)

    def time_database(self, operation: DatabaseOperation, seconds: float) -> None:
        self._database[operation].observe(seconds)

    def _time_collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._collection_started = time.perf_counter()
        elif self._collection_started is not None:
            generation = info["generation"]
            self._pauses[generation].observe(time.perf_counter() - self._collection_started)
            self._collection_started = None

    def start(self, address: MetricsAddress) -> None:
        """Serve the metrics at ``address``; raise ConfigError if it can't be bound."""
        try:
            self._server = start_http_server(address.port, address.host, registry=self.registry)
        except OSError as error:
            raise ConfigError(
                f"METRICS_PORT: can't serve metrics on {address.host}:{address.port} ({error}); "
                "check METRICS_HOST and METRICS_PORT."
            ) from None
        gc.callbacks.append(self._time_collection)

    def stop(self) -> None:
        """Stop serving and timing collections (idempotent)."""
        if self._time_collection in gc.callbacks:
            gc.callbacks.remove(self._time_collection)
        if self._server is not None:
            server, thread = self._server
            self._server = None
            _shut_down(server)
            thread.join(STOP_TIMEOUT_SECONDS)


def _shut_down(server: WSGIServer) -> None:
    """Stop ``server`` in milliseconds. Its thread (socketserver's ``serve_forever``) looks
    for a stop request only between polls of its socket, every 0.5 s: ``shutdown`` alone held
    the bot's close, and its event loop, for up to that long. So ask in a thread of its own,
    and wake the poll with connections until the server has stopped."""
    asking = threading.Thread(target=server.shutdown, name="metrics-stop")
    asking.start()
    address = server.socket.getsockname()[:2]  # (host, port), of IPv4 or IPv6
    deadline = time.monotonic() + STOP_TIMEOUT_SECONDS
    while asking.is_alive() and time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(address, WAKE_SECONDS):
            pass
        asking.join(WAKE_SECONDS)
    server.server_close()
