"""Issue 38: Prometheus metrics with METRICS_PORT (docs/hosting.md, "Metrics"), and none without
it."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import threading
from dataclasses import replace
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from bot.client import DiceBot, create_bot
from bot.config import MetricsAddress
from bot.metrics import METRIC_NAMES
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings
from tests.e2e.test_startup import STARTUP_TIMEOUT_SECONDS, start_bot_process, wait_until_ready
from tests.fakediscord.fixtures import run_bot, settled
from tests.fakediscord.server import FakeDiscord

ROLLS_AT_ONCE = 40

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def scrape(address: MetricsAddress) -> tuple[Samples, set[str]]:
    """GET the endpoint: every sample by (name, labels), and the names of the families."""
    async with aiohttp.ClientSession() as session, session.get(str(address)) as response:
        assert response.status == 200
        assert response.content_type == "text/plain"
        text = await response.text()
    samples: Samples = {}
    names: set[str] = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, names


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(value for (got, have), value in samples.items() if got == name and wanted <= have)


async def test_metrics_count_commands_by_outcome_with_latency_database_gc_and_shards(
    fake_discord: FakeDiscord, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = MetricsAddress("127.0.0.1", free_port())
    settings = replace(bot_settings(fake_discord, migrated_sqlite), metrics=address)
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, bot):
        rolled = await fake_discord.invoke("roll", {"expression": "2d6"})
        assert not rolled.ephemeral and "2d6" in rolled.embeds[0]["title"]
        refused = await fake_discord.invoke("roll", {"expression": "2d"})
        assert refused.ephemeral and refused.content.startswith("❌")
        saved = await fake_discord.invoke("macro save", {"name": "Hit", "expression": "1d20+5"})
        assert saved.ephemeral and "Hit" in saved.content  # a transaction in the database
        errors = fake_discord.expect_errors()

        async def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(bot.storage.campaigns, "start", broken)
        failed = await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "V"})
        assert "error id" in failed.content and len(errors) == 1
        assert bot.metrics is not None
        counted = bot.metrics.registry

        def all_finished() -> bool:  # each command's end is counted just after its answer
            return (
                sum(
                    counted.get_sample_value(
                        "dicebot_interactions_total", {"command": command, "outcome": outcome}
                    )
                    or 0
                    for command, outcome in (
                        ("roll", "ok"),
                        ("roll", "refused"),
                        ("macro save", "ok"),
                        ("campaign start", "error"),
                    )
                )
                == 4
            )

        await fake_discord.wait_until(all_finished, "the four commands to be counted")
        gc.collect()  # a full collection: at least one generation-2 pause to show
        samples, names = await scrape(address)

    assert total(samples, "dicebot_interactions_total", command="roll", outcome="ok") == 1
    assert total(samples, "dicebot_interactions_total", command="roll", outcome="refused") == 1
    assert total(samples, "dicebot_interactions_total", command="macro save", outcome="ok") == 1
    assert total(samples, "dicebot_interactions_total", command="campaign start") == 1
    assert total(samples, "dicebot_interactions_total", outcome="error") == 1
    assert total(samples, "dicebot_interactions_total") == 4
    # One latency per command run, as many as were counted.
    assert total(samples, "dicebot_interaction_seconds_count", command="roll") == 2
    assert total(samples, "dicebot_interaction_seconds_count", command="macro save") == 1
    assert total(samples, "dicebot_interaction_seconds_count", command="campaign start") == 1
    assert total(samples, "dicebot_interaction_seconds_count") == 4
    assert total(samples, "dicebot_interaction_seconds_bucket", command="roll", le="+Inf") == 2
    # The macro's save is a write transaction; the roll's log row a statement of its own.
    assert total(samples, "dicebot_database_seconds_count", operation="transaction") >= 1
    assert total(samples, "dicebot_database_seconds_count", operation="statement") >= 1
    assert total(samples, "dicebot_database_seconds_sum") > 0
    assert total(samples, "dicebot_gc_pause_seconds_count", generation="2") >= 1
    assert ("dicebot_shard_latency_seconds", frozenset({("shard", "0")})) in samples
    assert "dicebot_interactions_in_flight" in names
    # Every metric docs/hosting.md lists, and only those (a counter's family drops its _total;
    # prometheus_client adds a _created timestamp beside each counter and histogram).
    shown = {name for name in names if not name.endswith("_created")}
    assert shown == {name.removesuffix("_total") for name in METRIC_NAMES}
    # Closed with the bot: nothing listens any more, and collections are no longer timed.
    assert bot.metrics._time_collection not in gc.callbacks
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", address.port)) != 0


async def test_two_bots_in_one_process_keep_their_own_counts(
    fake_discord: FakeDiscord, migrated_sqlite: Path, tmp_path: Path
) -> None:
    """Each bot has its own registry: prometheus_client's default one is process-wide."""
    first = MetricsAddress("127.0.0.1", free_port())
    bot = create_bot(replace(bot_settings(fake_discord, migrated_sqlite), metrics=first))
    async with run_bot(fake_discord, bot):
        await fake_discord.invoke("roll", {"expression": "1d6"})
        await fake_discord.wait_until(lambda: _rolls_counted(bot) == 1, "the roll to be counted")
    second = MetricsAddress("127.0.0.1", free_port())
    other = create_bot(replace(bot_settings(fake_discord, migrated_sqlite), metrics=second))
    async with run_bot(fake_discord, other):
        samples, _ = await scrape(second)
    assert total(samples, "dicebot_interactions_total") == 0


async def test_closing_the_bot_stops_its_metrics_server_and_frees_its_port(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    def serving() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.endswith("(serve_forever)")]

    address = MetricsAddress("127.0.0.1", free_port())
    bot = create_bot(replace(bot_settings(fake_discord, migrated_sqlite), metrics=address))
    async with run_bot(fake_discord, bot):
        threads = serving()
        assert threads
        await scrape(address)
    assert not any(thread.is_alive() for thread in threads)
    with socket.socket() as again:  # no one listens there any more: a new server may
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind((address.host, address.port))
        again.listen()
    with pytest.raises(aiohttp.ClientConnectionError):
        await scrape(address)


async def test_concurrent_commands_are_each_counted_once(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    address = MetricsAddress("127.0.0.1", free_port())
    bot = create_bot(replace(bot_settings(fake_discord, migrated_sqlite), metrics=address))
    async with run_bot(fake_discord, bot):
        replies = await asyncio.gather(
            *(fake_discord.invoke("roll", {"expression": "1d6"}) for _ in range(ROLLS_AT_ONCE))
        )
        assert not any(reply.ephemeral for reply in replies)
        await fake_discord.wait_until(
            lambda: _rolls_counted(bot) == ROLLS_AT_ONCE, "every roll to be counted"
        )
        samples, _ = await scrape(address)
    assert total(samples, "dicebot_interactions_total") == ROLLS_AT_ONCE
    assert total(samples, "dicebot_interaction_seconds_count") == ROLLS_AT_ONCE
    # Each roll's log row is one statement, timed per roll (SQLite commits them in groups).
    assert total(samples, "dicebot_database_seconds_count", operation="statement") >= ROLLS_AT_ONCE


def _rolls_counted(bot: DiceBot) -> float:
    assert bot.metrics is not None
    value = bot.metrics.registry.get_sample_value(
        "dicebot_interactions_total", {"command": "roll", "outcome": "ok"}
    )
    return value or 0


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (its sockets in /proc/net/tcp*)."""
    sockets = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            sockets.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:  # closed meanwhile
            continue
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "0A" and f"socket:[{inode}]" in sockets:  # 0A: LISTEN
                    ports.add(int(local.rsplit(":", 1)[1], 16))
    return ports


# `python -m bot`, telling at exit whether prometheus_client was ever imported.
_RUN_BOT_REPORTING_IMPORTS = (
    "import atexit, runpy, sys\n"
    "atexit.register(lambda: print('prometheus_client' in sys.modules, flush=True))\n"
    "runpy.run_module('bot', run_name='__main__', alter_sys=True)\n"
)


async def _bot_process_listening(
    fake: FakeDiscord, tmp_path: Path, metrics_port: str
) -> tuple[set[int], str]:
    """Run `python -m bot` with METRICS_PORT, roll once: the ports it listens on, and whether
    it had imported prometheus_client when it exited ("True"/"False")."""
    process = await start_bot_process(
        fake,
        tmp_path,
        fake.token,
        arguments=("-c", _RUN_BOT_REPORTING_IMPORTS),
        METRICS_PORT=metrics_port,
    )
    try:
        await wait_until_ready(fake)
        reply = await fake.invoke("roll", {"expression": "2d6"}, user="player")
        assert "2d6" in reply.embeds[0]["title"]
        ports = listening_ports(process.pid)
    finally:
        process.terminate()
        stdout, _ = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    assert process.returncode == 0
    return ports, stdout.decode().strip().splitlines()[-1]


async def test_without_metrics_port_nothing_listens_and_prometheus_is_never_imported(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    ports, imported = await _bot_process_listening(fake_discord, tmp_path, "")
    assert ports == set()
    assert imported == "False"


async def test_with_metrics_port_the_bot_process_listens_there(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    port = free_port()
    ports, imported = await _bot_process_listening(fake_discord, tmp_path, str(port))
    assert ports == {port}
    assert imported == "True"


async def test_a_metrics_port_in_use_stops_the_bot_with_one_line_naming_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = await start_bot_process(
            fake_discord, tmp_path, fake_discord.token, METRICS_PORT=str(port)
        )
        _, stderr = await asyncio.wait_for(process.communicate(), STARTUP_TIMEOUT_SECONDS)
    assert process.returncode == 2
    lines = stderr.decode().strip().splitlines()
    assert lines[-1].startswith(f"error: METRICS_PORT: can't serve metrics on 127.0.0.1:{port} (")
    assert "Traceback" not in stderr.decode()


async def test_a_command_refused_outside_a_server_is_counted_as_refused(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    address = MetricsAddress("127.0.0.1", free_port())
    settings = bot_settings(fake_discord, migrated_sqlite, guild_sync=False)  # what DMs see
    bot = create_bot(replace(settings, metrics=address))
    async with run_bot(fake_discord, bot):
        dm = fake_discord.open_dm("player")
        rolled = await fake_discord.invoke("roll", {"expression": "1d6"}, user="player", channel=dm)
        assert "1d6" in rolled.embeds[0]["title"]
        refused = await fake_discord.invoke(
            "sinew pressure show", {}, user="player", channel=dm, stale_client=True
        )
        assert refused.ephemeral and refused.content.startswith("❌ `/sinew pressure show` works")
        assert bot.metrics is not None
        registry = bot.metrics.registry
        await fake_discord.wait_until(
            lambda: (
                registry.get_sample_value(
                    "dicebot_interactions_total",
                    {"command": "sinew pressure show", "outcome": "refused"},
                )
                == 1
            ),
            "the refusal to be counted",
        )
        await settled(fake_discord, bot)  # the roll's work after its reply is counted at its end
        samples, _ = await scrape(address)
    assert total(samples, "dicebot_interactions_total", command="roll", outcome="ok") == 1
    assert total(samples, "dicebot_interactions_total") == 2
    assert total(samples, "dicebot_interaction_seconds_count") == 2


def test_the_hosting_page_lists_every_metric() -> None:
    hosting = (Path(__file__).resolve().parents[2] / "docs" / "hosting.md").read_text()
    section = hosting.split("## Metrics\n", 1)[1].split("\n## ", 1)[0]
    listed = {line.split("`")[1] for line in section.splitlines() if line.startswith("| `")}
    assert listed == set(METRIC_NAMES)
    assert "METRICS_PORT" in section and "scrape_configs:" in section
