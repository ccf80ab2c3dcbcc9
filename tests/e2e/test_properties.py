"""Hypothesis drives every slash command through the real handlers (issue 23, item 3).

For each system a table is set up the way a group plays (a campaign in the channel, a player's
character, the GM's, an open challenge), then hypothesis draws invocations of that system's
commands (and of the commands every table shares) from the options as the bot synced them:
legal values from each option's type, range, choices and length, mixed with what no Discord
client sends (out of range, outside the choices, over-long, the wrong JSON type, unknown or
missing options, unresolved users), as a user among GM, player and admin, in the campaign's
channel, a channel without one, or a thread. Each invocation must

- be answered, with no ERROR logged and no "something went wrong" notice (an unhandled
  exception reaches the user as that notice and the log as an ERROR);
- if refused (a reply starting with ❌), be refused in an ephemeral message saying something,
  and change nothing: every row of every table, and the channel, as before.

How long a command holds the event loop (20 ms at most, docs/benchmarks.md) is measured by
``bench/bench_budgets.py`` on these same tables and commands, not asserted here: a test asserts
what happened, never how fast, so a busy machine can't fail it.

Why ``@given`` on an async test: pytest-asyncio (1.x here) recognises a coroutine wrapped by
hypothesis and runs each example to completion on the test's event loop. One fake Discord and
one bot serve the whole module (a module-scoped fixture on a module-scoped loop; discord.py's
API base is global, so it is one bot at a time anyway), and each system's table is set up in
turn as the parametrized tests reach it. Examples share that bot (hence the suppressed
``function_scoped_fixture`` health check): its state grows as accepted commands change it, as at
a real table, which is what the refusal check wants — a refusal must change nothing whatever
state it meets. The check is exact because invocations run one at a time and each waits for the
bot's handler task to finish before the snapshot. ``derandomize=True`` makes every CI run the
same; each command gets its own 25 examples, so all 72 are exercised (~1,800 invocations).
"""

from __future__ import annotations

import asyncio
import functools
import json
import sqlite3
from collections.abc import AsyncIterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from discord.gateway import DiscordWebSocket
from discord.http import Route
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.client import DiceBot, create_bot
from bot.config import Settings
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.e2e.test_fuzz import HOSTILE_TEXT, NOTATION_BOMBS, every_command
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.messages import FakeMessage, Reply
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

REFUSAL = "❌"
ERROR_NOTICE = "Something went wrong"
# The names the tables below create, so string options often name something real.
KNOWN_NAMES = ["Brann", "Vex", "Rin", "Ysolde", "Hold the line", "nobody"]


# --- the tables: one campaign per system, with characters, as the e2e tests of each set up


async def _ok(fake: FakeDiscord, command: str, options: dict[str, Any], user: str) -> None:
    reply = await fake.invoke(command, options, user=user)
    assert not reply.content.startswith(REFUSAL), (command, reply.content)


async def _cosmos(fake: FakeDiscord) -> None:
    await _ok(fake, "campaign start", {"system": "cosmos", "name": "Far Stars"}, "gm")
    challenge = {"name": "Hold the line", "tn": 10, "successes": 3, "max_rolls": 10}
    await _ok(fake, "cosmos challenge start", challenge, "gm")


async def _sinew(fake: FakeDiscord) -> None:
    start = {"system": "sinew", "name": "Iron Age", "lingering_taint": True}
    await _ok(fake, "campaign start", start, "gm")
    balanced = {"str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
    await _ok(fake, "sinew character create", {"name": "Brann", **balanced}, "player")
    tough = {"str": 6, "ref": 10, "int": 6, "emp": 10, "lck": 10, "sta": 9}
    await _ok(fake, "sinew character create", {"name": "Vex", **tough}, "gm")
    await _ok(fake, "sinew test", {"attribute": "str"}, "player")  # something to spend Luck on


async def _sixpool(fake: FakeDiscord) -> None:
    await _ok(
        fake, "campaign start", {"system": "sixpool", "name": "Six", "edge_option": "B"}, "gm"
    )
    pools = {"str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}
    await _ok(
        fake,
        "sixpool character create",
        {"name": "Rin", "level": 5, "primary": "DEX", **pools},
        "player",
    )


async def _aethelgard(fake: FakeDiscord) -> None:
    await _ok(fake, "campaign start", {"system": "aethelgard", "name": "Blight"}, "gm")
    sheet = {"might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3}
    skills = "System Bypass 3, Stealth 2"
    await _ok(
        fake, "aethelgard character create", {"name": "Ysolde", **sheet, "skills": skills}, "player"
    )


async def _realms(fake: FakeDiscord) -> None:
    await _ok(fake, "campaign start", {"system": "realms", "name": "Vale"}, "gm")
    await _ok(fake, "realms attack", {"dice": 2, "to_hit": 10, "damage": "1d8+1"}, "player")


SETUPS = {
    "cosmos": _cosmos,
    "sinew": _sinew,
    "sixpool": _sixpool,
    "aethelgard": _aethelgard,
    "realms": _realms,
}
# The commands every table shares run against a cosmos campaign (it has a challenge to name).
SHARED = "shared"


# --- database observation


def snapshot(database: Path | sqlite3.Connection) -> dict[str, list[tuple[Any, ...]]]:
    """Return every row of every table, in a stable order: the whole state of the bot (as a
    connection inside a read transaction sees it, when given one)."""
    if isinstance(database, Path):
        with closing(sqlite3.connect(database, isolation_level=None)) as connection:
            return snapshot(connection)
    connection = database
    tables = [
        name
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        )
    ]
    state = {}
    for table in tables:
        # Sorted by every column in SQLite's C, not in Python: the log grows to thousands
        # of rows over the module.
        columns = len(connection.execute(f'PRAGMA table_info("{table}")').fetchall())
        by_every_column = ", ".join(str(number) for number in range(1, columns + 1))
        query = f'SELECT * FROM "{table}" ORDER BY {by_every_column}'
        state[table] = connection.execute(query).fetchall()
    return state


class StateWatch:
    """Tells whether the bot's database changed across one invocation, exactly, without reading
    every row twice per invocation (that was a third of this module's CPU).

    ``begin`` notes SQLite's ``PRAGMA data_version`` (it changes whenever another connection
    commits to the file) and opens a read transaction, which in WAL mode (the bot's) keeps
    seeing the state of that moment while the bot commits beside it. ``unchanged`` then answers
    at once when nothing was committed since; when something was, it compares every row of
    the state seen at ``begin`` with every row now, so a commit that leaves every row as it
    was still counts as no change.
    """

    def __init__(self, database: Path) -> None:
        self._versions = sqlite3.connect(database, isolation_level=None)
        self._before = sqlite3.connect(database, isolation_level=None)
        self._version: int | None = None

    def _data_version(self) -> int:
        (version,) = self._versions.execute("PRAGMA data_version").fetchone()
        return int(version)

    def begin(self) -> None:
        self.end()
        self._version = self._data_version()
        self._before.execute("BEGIN")
        self._before.execute("SELECT count(*) FROM sqlite_master").fetchall()  # the read starts

    def unchanged(self) -> bool:
        """Whether every row of every table is as it was at ``begin``."""
        assert self._version is not None, "unchanged() before begin()"
        if self._data_version() == self._version:
            return True
        return snapshot(self._before) == snapshot(self._versions)

    def end(self) -> None:
        if self._before.in_transaction:
            self._before.execute("COMMIT")
        self._version = None

    def close(self) -> None:
        self.end()
        self._versions.close()
        self._before.close()


def _invoker_tasks() -> list[asyncio.Task[Any]]:
    return [
        task
        for task in asyncio.all_tasks()
        if task.get_name() == "CommandTree-invoker" and not task.done()
    ]


async def _invoker_finished(fake: FakeDiscord, what: str) -> None:
    """Wait until no command handler task of the bot's is running (woken as the last ends)."""
    while tasks := _invoker_tasks():
        _, pending = await asyncio.wait(tasks, timeout=fake.timeout)
        if pending:
            raise TimeoutError(f"timed out after {fake.timeout} s waiting for {what}")


# --- option values drawn from the synced schema


# Hypothesis spends more on building a strategy (and working out its properties) than on a
# draw from it: each option's strategies are built once per module run, not once per draw.
_ONE_IN_20 = st.integers(0, 19)
_ONE_IN_50 = st.integers(0, 49)
_COIN = st.booleans()
_WRONG_JSON_TYPE: st.SearchStrategy[Any] = st.sampled_from([7, "7", True, None, 1.5, [], {}])
_UNRESOLVED_USER = st.integers(10**17, 10**18)
_USER = st.sampled_from(["gm", "gm", "player", "player", "admin"])


def _key(option: JSON) -> str:
    """A hashable copy of an option's declaration, for the caches below."""
    return json.dumps(option, sort_keys=True)


@functools.lru_cache(maxsize=1024)
def _text_of(option: str, hostile: bool) -> st.SearchStrategy[Any]:
    return _text(json.loads(option), hostile)


@functools.lru_cache(maxsize=1024)
def _integer_of(option: str, hostile: bool) -> st.SearchStrategy[int]:
    return _integer(json.loads(option), hostile)


def _text(option: JSON, hostile: bool) -> st.SearchStrategy[Any]:
    choices = [choice["value"] for choice in option.get("choices") or []]
    longest = int(option.get("max_length") or 100)
    name = option["name"]
    if hostile:
        return st.sampled_from(
            [*HOSTILE_TEXT, *NOTATION_BOMBS, "x" * (longest + 1), "not-a-choice"]
        )
    if choices:
        return st.sampled_from(choices)
    # Values that mean something to the command come first: hypothesis favours the first
    # branch of a one_of, and free text alone rarely gets past "no character called ...".
    meaningful = {
        "expression": ["1d20+3", "4d6kh3", "2d20kl1", "d%", "3d6!", "1d2e1", "2d6 # sword"],
        "split": ["1", "2,1", "1,1,1", "0", "1,-1", "2,,1"],
        "skills": ["Stealth 2", "Lore ²", "System Bypass 3, Lore 5", "Lore 6", "Lore 1, Lore ٣"],
    }.get(name, KNOWN_NAMES if name in ("character", "name", "vs_name", "challenge") else [])
    legal: list[st.SearchStrategy[Any]] = []
    if meaningful:
        legal.append(st.sampled_from(meaningful))
    if name == "damage":
        legal.append(st.from_regex(r"\d?d(4|6|8|20)([+-]\d)?", fullmatch=True))
    legal.append(st.text(min_size=1, max_size=min(longest, 40)))
    return st.one_of(*legal)


def _integer(option: JSON, hostile: bool) -> st.SearchStrategy[int]:
    low, high = option.get("min_value"), option.get("max_value")
    if hostile:  # what only a stale or forged client sends: past the range, or huge
        past = [] if low is None or high is None else [int(low) - 1, int(high) + 1]
        return st.sampled_from([*past, 2**53 + 1, -(2**63), 10**30])
    if low is not None and high is not None:
        return st.integers(int(low), int(min(high, low + 200)))
    return st.integers(-5, 50)


@functools.lru_cache(maxsize=1024)  # cleared when the module's fake Discord stops
def _value_of(fake: FakeDiscord, option: str) -> st.SearchStrategy[tuple[Any, JSON]]:
    return _value(fake, json.loads(option), option)


@st.composite
def _value(draw: st.DrawFn, fake: FakeDiscord, option: JSON, key: str) -> tuple[Any, JSON]:
    """Draw one option's wire value and the resolved data it needs (``key``: ``_key(option)``).

    One value in 20 is hostile: what no Discord client sends for this option.
    """
    kind = option["type"]
    hostile = draw(_ONE_IN_20) == 0
    if hostile and draw(_COIN):  # the wrong JSON type for the declared option
        return draw(_WRONG_JSON_TYPE), {}
    if kind == 3:
        return draw(_text_of(key, hostile)), {}
    if kind == 4:
        return draw(_integer_of(key, hostile)), {}
    if kind == 5:
        return draw(_COIN), {}
    if kind == 6:
        if hostile:
            return str(draw(_UNRESOLVED_USER)), {}  # a user Discord didn't resolve
        person = draw(st.sampled_from(list(fake.users.values())))
        resolved: JSON = {}
        return fake._encode_value(6, person, resolved), resolved
    if kind == 7:
        channel = draw(st.sampled_from([fake.channel_id, fake.other_channel_id]))
        resolved = {}
        return fake._encode_value(7, channel, resolved), resolved
    raise AssertionError(f"option type {kind} of {option['name']!r} has no strategy here")


@dataclass(frozen=True)
class Invocation:
    command: str
    options: list[JSON]
    resolved: JSON
    user: str
    channel: int


@st.composite
def invocations(
    draw: st.DrawFn, fake: FakeDiscord, path: str, declared: list[tuple[JSON, str]]
) -> Invocation:
    """Draw one invocation of the command ``path`` whose synced options are ``declared`` (each
    with its ``_key``)."""
    wire: list[JSON] = []
    resolved: JSON = {}
    for option, option_key in declared:
        if not option.get("required") and draw(_COIN):
            continue
        if option.get("required") and draw(_ONE_IN_50) == 0:
            continue  # a missing required option: an outdated client
        value, extra = draw(_value_of(fake, option_key))
        for key, entries in extra.items():
            resolved.setdefault(key, {}).update(entries)
        wire.append({"name": option["name"], "type": option["type"], "value": value})
    if draw(_ONE_IN_50) == 0:
        wire.append({"name": "surprise", "type": 3, "value": "?"})  # an option since removed
    user = draw(_USER)
    channel = draw(st.sampled_from([fake.channel_id] * 8 + [fake.other_channel_id, fake.thread_id]))
    return Invocation(path, wire, resolved, user, channel)


def _messages(reply: Reply) -> list[FakeMessage]:
    return [m for m in (reply.message, *reply.followups) if m is not None]


def _commands_of(fake: FakeDiscord, group: str) -> list[tuple[str, list[JSON]]]:
    synced = dict(every_command(fake))
    return [(path, synced[path]) for path in COMMANDS[group]]


def _legal_default(option: JSON) -> Any:
    """A plausible value for one option, for the warm-up pass."""
    if option.get("choices"):
        return option["choices"][0]["value"]
    if option["type"] == 4:
        return max(int(option.get("min_value", 1)), min(3, int(option.get("max_value", 3))))
    if option["type"] == 5:
        return False
    if option["type"] == 3:
        return {"expression": "1d20", "damage": "1d8", "skills": "Stealth 2"}.get(
            option["name"], "Brann"
        )
    return None


# --- one fake Discord and one bot for the module; each system's table set up in turn


@dataclass
class Table:
    """The bot with one system's campaign running in the fake's table channel."""

    fake: FakeDiscord
    bot: DiceBot
    database: Path
    group: str = ""
    refusals: int = 0
    answers: int = 0
    watch: StateWatch = field(init=False)
    # Each synced command's declared options, each with its _key (a hashable copy, for the
    # strategy caches); the synced commands don't change in the module.
    declared: dict[str, list[tuple[JSON, str]]] = field(init=False)
    # Each command's invocation strategy, built on first use.
    strategies: dict[str, st.SearchStrategy[Invocation]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.watch = StateWatch(self.database)
        self.declared = {
            path: [(option, _key(option)) for option in options]
            for path, options in every_command(self.fake)
        }

    def invocations(self, command: str) -> st.SearchStrategy[Invocation]:
        if command not in self.strategies:
            self.strategies[command] = invocations(self.fake, command, self.declared[command])
        return self.strategies[command]


# One xdist worker runs the whole module: its tests share the module's bot (``arena``).
pytestmark = pytest.mark.xdist_group("properties")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Table]:
    """One fake Discord and one bot for every test here: starting them per test would cost
    ~1 s each, and discord.py's API base is global, so one bot at a time anyway."""
    original = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    fake = FakeDiscord()
    await fake.start()
    settings = Settings(
        token=fake.token,
        database_path=tmp_path_factory.mktemp("properties") / "bot.db",
        guild_id=fake.guild_id,
        api_base=fake.api_base,
        gateway_url=fake.gateway_url,
    )
    try:
        async with run_bot(fake, create_bot(settings, rng=new_rng(DICE_SEED))) as bot:
            table = Table(fake, bot, settings.database_path)
            yield table
            _report(table)
            table.watch.close()
    finally:
        _value_of.cache_clear()  # its strategies hold the fake
        await fake.stop()
        Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = original
    fake.check_clean()


@pytest_asyncio.fixture(loop_scope="module")
async def table(request: pytest.FixtureRequest, arena: Table) -> AsyncIterator[Table]:
    """The arena with the campaign of ``request.param``'s group in the table channel."""
    group: str = request.param
    if arena.group != group:
        await _switch(arena, group)
    yield arena


async def _switch(arena: Table, group: str) -> None:
    """End the campaign running in the table channel; set up the group's own; warm it up."""
    fake = arena.fake
    await _invoker_finished(fake, "the last command to finish")
    if arena.group:
        _report(arena)
        prompt = await fake.invoke("campaign end", {}, user="admin")
        ended = await fake.click(prompt, prompt.original.custom_ids()[0], user="admin")
        assert ended.content == "Campaign ended.", ended.content
    arena.group, arena.refusals, arena.answers = group, 0, 0
    await SETUPS.get(group, _cosmos)(fake)


def _report(table: Table) -> None:
    """Print what the group's run saw (shown with ``pytest -s``)."""
    print(f"\n{table.group}: {table.answers} invocations, {table.refusals} refused")


async def _send(table: Table, call: Invocation) -> Reply:
    """Send one invocation and wait until the bot's handler task has finished with it."""
    fake = table.fake
    reply = await fake.send_raw(
        call.command, call.options, resolved=call.resolved, user=call.user, channel=call.channel
    )
    await fake.wait_answered([reply])
    await _invoker_finished(fake, f"/{call.command} to finish")
    return reply


async def _check_one(table: Table, call: Invocation) -> None:
    fake = table.fake
    await _invoker_finished(fake, "the previous command to finish")
    table.watch.begin()
    try:
        posted_before = {c: fake.posted_count(c) for c in (fake.channel_id, call.channel)}
        reply = await _send(table, call)
        table.answers += 1
        assert not fake.error_logs, fake.error_logs
        messages = _messages(reply)
        assert not any(ERROR_NOTICE in m.content for m in messages), [m.content for m in messages]
        refusals = [m for m in messages if m.content.startswith(REFUSAL)]
        if refusals:
            table.refusals += 1
            for message in refusals:
                assert message.ephemeral, message.content
                assert len(message.content.removeprefix(REFUSAL).strip()) >= 10, message.content
            assert table.watch.unchanged(), f"/{call.command} refused yet changed state"
            posted_after = {c: fake.posted_count(c) for c in posted_before}
            assert posted_after == posted_before, "a refusal posted to the channel"
    finally:
        table.watch.end()


# Every command the bot syncs, by the table it runs at; a test below fails on one missing here.
COMMANDS: dict[str, list[str]] = {
    "cosmos": [
        "cosmos challenge start", "cosmos challenge status", "cosmos challenge end",
        "cosmos roll", "cosmos opposed", "cosmos convert", "cosmos odds",
    ],
    "sinew": [
        "sinew character create", "sinew character sheet", "sinew luck test",
        "sinew luck spend", "sinew item add", "sinew item remove", "sinew item list",
        "sinew pressure add", "sinew pressure remove", "sinew pressure show", "sinew test",
        "sinew odds", "sinew damage", "sinew heal", "sinew rest", "sinew milestone",
        "sinew advance", "sinew tamper", "sinew purge", "sinew opposed", "sinew attack",
        "sinew luck grant", "sinew boon add", "sinew boon remove", "sinew armour",
        "sinew character edit", "sinew character rename", "sinew character delete",
        "sinew character give",
    ],
    "sixpool": [
        "sixpool character create", "sixpool character sheet", "sixpool character set",
        "sixpool check", "sixpool attack", "sixpool save", "sixpool passive", "sixpool take",
        "sixpool contest", "sixpool group", "sixpool boost", "sixpool help", "sixpool inspire",
        "sixpool rest", "sixpool odds", "sixpool trained_only", "sixpool character rename",
        "sixpool character delete", "sixpool character give",
    ],
    "aethelgard": [
        "aethelgard character create", "aethelgard character sheet", "aethelgard stress add",
        "aethelgard corruption add", "aethelgard check", "aethelgard roll",
        "aethelgard opposed", "aethelgard attack", "aethelgard craft", "aethelgard odds",
        "aethelgard character edit", "aethelgard character rename",
        "aethelgard character delete", "aethelgard character give",
    ],
    "realms": [
        "realms attack", "realms check", "realms stealth", "realms spell", "realms reroll",
        "realms odds", "realms trait add", "realms trait remove",
    ],
    SHARED: [
        "roll", "help", "macro save", "macro roll", "macro list", "macro delete",
        "campaign gm add", "campaign gm remove", "campaign start", "campaign info",
        "campaign reveal", "campaign settings", "campaign log", "campaign recap",
        "campaign end",
    ],
}  # fmt: skip
GROUPS = list(COMMANDS)
CASES = [
    pytest.param(group, command, id=command) for group in GROUPS for command in COMMANDS[group]
]
EXAMPLES = 25  # per command: ~1,800 invocations in all


def test_the_state_watch_sees_every_change_another_connection_commits(tmp_path: Path) -> None:
    database = tmp_path / "watched.db"
    with closing(sqlite3.connect(database, isolation_level=None)) as bot:
        bot.execute("PRAGMA journal_mode = WAL")  # as the bot's own database
        bot.execute("CREATE TABLE rolls (id INTEGER PRIMARY KEY, total INTEGER)")
        bot.execute("INSERT INTO rolls (total) VALUES (7)")
        watch = StateWatch(database)
        try:
            watch.begin()
            assert watch.unchanged()  # nothing committed
            watch.begin()
            bot.execute("UPDATE rolls SET total = 7")  # committed, yet every row as it was
            assert watch.unchanged()
            watch.begin()
            bot.execute("INSERT INTO rolls (total) VALUES (9)")
            assert not watch.unchanged()
            watch.begin()
            bot.execute("UPDATE rolls SET total = 8 WHERE total = 9")
            assert not watch.unchanged()
            watch.begin()
            bot.execute("BEGIN")
            bot.execute("DELETE FROM rolls")
            bot.execute("INSERT INTO rolls (id, total) VALUES (1, 7), (2, 8)")  # the same rows
            bot.execute("COMMIT")
            assert watch.unchanged()
            bot.execute("CREATE TABLE macros (name TEXT)")
            assert not watch.unchanged()  # a new (empty) table is a change too
        finally:
            watch.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_the_fuzzed_commands_are_every_command_the_bot_syncs(arena: Table) -> None:
    synced = {path for path, _ in every_command(arena.fake)}
    assert synced == {command for commands in COMMANDS.values() for command in commands}


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize(("table", "command"), CASES, indirect=["table"])
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_any_options_are_answered_and_a_refusal_is_private_and_changes_nothing(
    table: Table, command: str, data: st.DataObject
) -> None:
    call = data.draw(table.invocations(command), label=command)
    await _check_one(table, call)


# The largest legal inputs of each system's heaviest commands: exact odds over the most dice,
# a fresh chart, the longest roll log page, the biggest notation a /roll allows.
HEAVIEST: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "cosmos": [
        ("cosmos odds", {"attribute": 5, "skill": 5, "tn": 40, "advantage": 20}),
        ("cosmos odds", {"attribute": 0, "skill": 0, "tn": 2, "disadvantage": 20}),
        ("cosmos opposed", {"attribute": 5, "skill": 5, "vs_attribute": 5, "vs_skill": 5}),
    ],
    "sinew": [
        ("sinew odds", {"score": 20, "vs_score": 20, "advantage": True}),
        ("sinew attack", {"attribute": "str", "edge": "brutal", "vs_score": 20}),
    ],
    "sixpool": [
        ("sixpool odds", {"modifier": 60, "dc": 0, "advantage": True}),
        ("sixpool odds", {"modifier": -30, "dc": 60, "disadvantage": True}),
        # 1,000 dice of damage if the d20 is a natural 20 (doubled), 500 otherwise.
        ("sixpool attack", {"pool": "DEX", "ac": 0, "damage": "500d1000kh499", "character": "Rin"}),
    ],
    "aethelgard": [
        ("aethelgard odds", {"pool": 100, "dc": 100}),
        ("aethelgard odds", {"pool": 99, "dc": 1}),
        ("aethelgard attack", {"accuracy": 100, "defense": 0, "damage": 100, "block": 100}),
    ],
    "realms": [
        ("realms odds", {"dice": 10, "to_hit": 1, "damage": "4d20+50", "advantage": 1}),
        ("realms odds", {"dice": 10, "to_hit": 1, "damage": "2d20+2d12", "split": "5,5"}),
        ("realms attack", {"dice": 10, "to_hit": 1, "damage": "4d20", "advantage": 1}),
    ],
    SHARED: [
        ("roll", {"expression": "500d1000kh499+500d1000kl499"}),
        ("roll", {"expression": "1000d20kh1"}),
        ("campaign log", {"limit": 25}),
        ("campaign recap", {"hidden": True}),
    ],
}


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("table", GROUPS, indirect=True)
async def test_the_heaviest_legal_commands_are_answered_and_not_refused(table: Table) -> None:
    # How long each holds the event loop is bench/bench_budgets.py's to measure.
    fake = table.fake
    for path, options in HEAVIEST[table.group]:
        reply = await fake.invoke(path, options, user="gm")
        await _invoker_finished(fake, f"/{path} to finish")
        messages = _messages(reply)
        assert messages, f"/{path} was not answered"
        assert not any(m.content.startswith(REFUSAL) for m in messages), reply.content
        assert not any(ERROR_NOTICE in m.content for m in messages), reply.content
        assert not fake.error_logs, fake.error_logs
