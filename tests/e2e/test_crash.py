"""Crash safety: `python -m bot` killed with SIGKILL under a mixed load of every system.

One campaign per system, each in its own channel, while rolls and state changes of every kind
are in flight: Sinew tests and Luck spends (Luck tokens), tampering (a Pressure track, with its
Crises taking Stamina), six-pool checks spending pool points, Cosmos rolls counting towards a
challenge, Aethelgard and Realms rolls, plain /roll and a /campaign change. The bot is killed at
a seeded random moment and restarted on the same database, three times. After each restart the
database (read with sqlite3) must hold:

* every roll the bot acknowledged (its "Roll #N" reached the fake), with the dice and the state
  it showed, and no roll id shown twice;
* every counter equal to its value at the round's start moved by exactly the changes its roll
  log rows record: each row states the counter after it (Luck "k/10 left", pool "k/8 left",
  challenge "r of 50 rolls used", Pressure "a → b", a Crisis "Stamina a → b"), so the rows must
  form one unbroken chain from the start to the stored value; a change without its row, or a
  row without its change (half applied), breaks the chain;
* acknowledged <= applied <= sent for every kind of change.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from tests.e2e.test_sinew import BALANCED
from tests.e2e.test_sixpool import POOLS
from tests.e2e.test_startup import start_bot_process
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

SEED = 20261123
ROUNDS = 3
IN_FLIGHT = 16  # commands outstanding at all times during a round's load
# The kill comes after a random number of answers in this range: a count, not a time, so a
# busy machine kills after as much work as an idle one.
ANSWERS_BEFORE_KILL = (40, 200)
READY_TIMEOUT_SECONDS = 30.0
CHALLENGE_ROLLS = 50


@dataclass(frozen=True, slots=True)
class Command:
    """One kind of command the load sends: what, with which options, by whom, where."""

    name: str
    options: dict[str, Any]
    user: str
    channel: str


@dataclass
class Sent:
    command: Command
    reply: Reply

    @property
    def roll_id(self) -> int | None:
        """The "Roll #N" the bot showed for it, if its answer reached Discord."""
        message = self.reply.message
        if self.reply.raw is None or message is None or message.ephemeral or not message.embeds:
            return None
        footer = str(message.embeds[0].get("footer", {}).get("text", ""))
        found = re.fullmatch(r"Roll #(\d+)", footer)
        return int(found[1]) if found else None


def _any_answered(waiting: list[Sent]) -> bool:
    return any(sent.reply.raw is not None for sent in waiting)


@dataclass
class Round:
    """What one round starts from: the last roll id and each counter's value."""

    first_id: int
    luck: int
    pool: int
    pressure: int
    stamina: int
    challenge: str
    sent: list[Sent] = field(default_factory=list)


def load_mix(challenge: str, gm_channel: str) -> list[tuple[Command, int]]:
    """The commands of a round's load with their weights."""
    return [
        (Command("sinew test", {"attribute": "str"}, "player", "sinew"), 3),
        (Command("sinew luck spend", {"tokens": 1}, "player", "sinew"), 1),
        (Command("sinew tamper", {"attribute": "int"}, "admin", "sinew"), 3),
        (Command("sixpool check", {"pool": "DEX", "dc": 10, "spend": 1}, "player", "sixpool"), 1),
        (
            Command(
                "cosmos roll",
                {"attribute": 2, "skill": 0, "tn": 14, "challenge": challenge},
                "player",
                "cosmos",
            ),
            3,
        ),
        (Command("aethelgard roll", {"pool": 3}, "player", "aethelgard"), 2),
        (Command("realms check", {"die": "d20", "target": 12}, "player", "realms"), 2),
        (Command("roll", {"expression": "4d6kh3+2"}, "player", "lobby"), 2),
        (Command("campaign gm add", {"user": "admin"}, "gm", gm_channel), 1),
    ]


class Table:
    """The fake Discord with a channel per system, and the bot process on one database."""

    def __init__(self, fake: FakeDiscord, tmp_path: Path) -> None:
        self.fake = fake
        self.tmp_path = tmp_path
        self.database = tmp_path / "bot.db"
        self.log_path = tmp_path / "bot.log"
        self.channels = {
            "sinew": fake.channel_id,
            "lobby": fake.other_channel_id,
            **{
                name: fake.add_text_channel(name)
                for name in ("sixpool", "cosmos", "aethelgard", "realms")
            },
        }
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start `python -m bot` and wait until it has identified anew (after its sync, which a
        restart with the same commands skips)."""
        identified = self.fake.identified_at
        with self.log_path.open("ab") as log:
            self.process = await start_bot_process(
                self.fake, self.tmp_path, self.fake.token, self.database, stderr=log
            )
        async with asyncio.timeout(READY_TIMEOUT_SECONDS):
            await self.fake.wait_until(
                lambda: self.fake.identified_at != identified and self.fake.bot_connected,
                "the bot process to connect",
            )

    async def kill(self) -> None:
        assert self.process is not None
        self.process.kill()  # SIGKILL: no drain, no close, nothing flushed
        await self.process.wait()

    async def stop(self) -> int | None:
        assert self.process is not None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(self.process.wait(), READY_TIMEOUT_SECONDS)
        return self.process.returncode

    async def send(self, command: Command) -> Reply:
        options = {
            key: self.fake.users[value] if key == "user" else value
            for key, value in command.options.items()
        }
        return await self.fake.send(
            command.name, options, user=command.user, channel=self.channels[command.channel]
        )

    async def invoke(
        self, name: str, options: dict[str, Any], channel: str, user: str = "gm"
    ) -> Reply:
        reply = await self.fake.invoke(name, options, user=user, channel=self.channels[channel])
        assert reply.raw is not None and not reply.ephemeral, (name, reply.content)
        return reply

    async def set_up(self) -> None:
        for system in ("sinew", "sixpool", "cosmos", "aethelgard", "realms"):
            await self.invoke("campaign start", {"system": system, "name": system}, system)
        await self.invoke(
            "sinew character create", {"name": "Brakka", **BALANCED}, "sinew", "player"
        )
        await self.invoke("sinew character create", {"name": "Vex", **BALANCED}, "sinew", "admin")
        await self.invoke(
            "sixpool character create",
            {"name": "Rin", "level": 1, "primary": "DEX", **POOLS},
            "sixpool",
            "player",
        )

    async def begin_round(self, number: int) -> Round:
        """Refill Luck and pool points, open a new challenge; read where every counter starts."""
        await self.invoke("sinew milestone", {"character": "Brakka"}, "sinew")
        await self.invoke("sixpool rest", {}, "sixpool")
        challenge = f"Escape {number}"
        await self.invoke(
            "cosmos challenge start",
            {"name": challenge, "tn": 14, "successes": 20, "max_rolls": CHALLENGE_ROLLS},
            "cosmos",
        )
        with self.read() as db:
            state = Stored(db, self.channels)
            return Round(
                first_id=state.last_roll_id(),
                luck=state.luck("Brakka"),
                pool=state.dex("Rin"),
                pressure=state.pressure("Vex"),
                stamina=state.stamina("Vex"),
                challenge=challenge,
            )

    async def load(self, mix: list[tuple[Command, int]], rng: random.Random) -> list[Sent]:
        """Keep IN_FLIGHT commands outstanding until a random number of them were answered,
        then SIGKILL the bot (with the rest in flight)."""
        commands = [command for command, _ in mix]
        weights = [weight for _, weight in mix]
        sent: list[Sent] = []
        pending: list[Sent] = []
        target = rng.randint(*ANSWERS_BEFORE_KILL)
        answered = 0
        while answered < target:
            while len(pending) < IN_FLIGHT:
                command = rng.choices(commands, weights)[0]
                one = Sent(command, await self.send(command))
                sent.append(one)
                pending.append(one)
            await self.fake.wait_until(
                partial(_any_answered, pending),
                "a command to be answered",
            )
            still = [one for one in pending if one.reply.raw is None]
            answered += len(pending) - len(still)
            pending = still
        await self.kill()
        return sent

    def read(self) -> contextlib.closing[sqlite3.Connection]:
        connection = sqlite3.connect(self.database)
        connection.row_factory = sqlite3.Row
        return contextlib.closing(connection)


class Stored:
    """The database as the restarted bot finds it."""

    def __init__(self, db: sqlite3.Connection, channels: dict[str, int]) -> None:
        self.db = db
        self.channels = channels

    def campaign(self, system: str) -> int:
        row = self.db.execute(
            "SELECT id FROM campaigns WHERE channel_id = ? AND ended_at IS NULL",
            (self.channels[system],),
        ).fetchone()
        return int(row["id"])

    def sheet(self, system: str, name: str) -> dict[str, Any]:
        row = self.db.execute(
            "SELECT sheet FROM characters WHERE campaign_id = ? AND name = ?",
            (self.campaign(system), name),
        ).fetchone()
        return json.loads(row["sheet"])

    def luck(self, name: str) -> int:
        return int(self.sheet("sinew", name)["luck_tokens"])

    def stamina(self, name: str) -> int:
        return int(self.sheet("sinew", name)["current_stamina"])

    def dex(self, name: str) -> int:
        return int(self.sheet("sixpool", name)["current"]["dex"])

    def pressure(self, name: str) -> int:
        row = self.db.execute(
            "SELECT t.value FROM tracks t JOIN characters c ON c.id = t.character_id"
            " WHERE t.campaign_id = ? AND c.name = ? AND t.name = 'pressure'",
            (self.campaign("sinew"), name),
        ).fetchone()
        return 0 if row is None else int(row["value"])  # a track never moved has no row

    def challenge(self, name: str) -> tuple[int, int]:
        row = self.db.execute(
            "SELECT successes, rolls_used FROM cosmos_challenges WHERE campaign_id = ?"
            " AND name = ?",
            (self.campaign("cosmos"), name),
        ).fetchone()
        return int(row["successes"]), int(row["rolls_used"])

    def last_roll_id(self) -> int:
        return int(self.db.execute("SELECT ifnull(max(id), 0) FROM rolls").fetchone()[0])

    def rolls(self) -> dict[int, sqlite3.Row]:
        return {row["id"]: row for row in self.db.execute("SELECT * FROM rolls ORDER BY id")}

    def gms(self, system: str) -> list[int]:
        rows = self.db.execute(
            "SELECT user_id FROM campaign_gms WHERE campaign_id = ?", (self.campaign(system),)
        )
        return [int(row["user_id"]) for row in rows]


def field_value(payload: dict[str, Any], name: str) -> str | None:
    for one in payload["embed"].get("fields", []):
        if one["name"] == name:
            return str(one["value"])
    return None


Step = Callable[[dict[str, Any], int], int | None]


@dataclass(frozen=True, slots=True)
class Chain:
    """A counter followed through its log rows: the rows that changed it, and where it ends."""

    changed: list[int]
    end: int


def chain(rows: list[tuple[int, dict[str, Any]]], start: int, step: Step) -> Chain:
    """Follow a counter through its log rows (in id order) from ``start``. ``step(payload,
    before)`` returns the value the row states after it (failing if the row does not continue
    from ``before``), or None if the row does not change the counter."""
    value, changed = start, []
    for roll_id, payload in rows:
        after = step(payload, value)
        if after is not None:
            changed.append(roll_id)
            value = after
    return Chain(changed, value)


def luck_step(payload: dict[str, Any], before: int) -> int | None:
    text = field_value(payload, "Luck spent")
    if "luck_of" not in payload or text is None:
        return None
    found = re.search(r"for (\d+) tokens?.*; (\d+)/\d+ left", text)
    assert found, text
    cost, left = int(found[1]), int(found[2])
    assert left == before - cost, f"Luck {before} − {cost} logged as {left} left"
    return left


def pool_step(payload: dict[str, Any], before: int) -> int | None:
    text = field_value(payload, "DEX pool")
    if text is None:
        return None
    found = re.fullmatch(r"(\d+) spent: (\d+)/\d+ left", text)
    assert found, text
    spent, left = int(found[1]), int(found[2])
    assert left == before - spent, f"pool {before} − {spent} logged as {left} left"
    return left


def pressure_step(payload: dict[str, Any], before: int) -> int | None:
    text = field_value(payload, "Pressure")
    if text is None:
        return None
    unchanged = re.fullmatch(r"(\d+) \(unchanged\)", text)
    if unchanged:
        assert int(unchanged[1]) == before, f"Pressure shown as {unchanged[1]}, but was {before}"
        return None
    found = re.match(r"(\d+) → (\d+):", text)
    assert found, text
    assert int(found[1]) == before, f"Pressure logged from {found[1]}, but it was {before}"
    reset = re.search(r"The track resets to (\d+)", text)
    return int(reset[1]) if reset else int(found[2])


def stamina_step(name: str) -> Step:
    """A Crisis row says how much Stamina it took from each character."""

    def step(payload: dict[str, Any], before: int) -> int | None:
        text = field_value(payload, "Stamina lost") or ""
        found = re.search(rf"^{name}: Stamina (\d+) → \*\*(\d+)\*\*", text, re.MULTILINE)
        if found is None:
            return None
        assert int(found[1]) == before, f"{name}'s Stamina logged from {found[1]}, was {before}"
        return int(found[2])

    return step


def challenge_step(name: str) -> Step:
    def step(payload: dict[str, Any], before: int) -> int | None:
        text = field_value(payload, "Challenge")
        if text is None or f"**{name}**" not in text:
            return None
        found = re.search(r"(\d+) success(?:es)? \(\d+ needed\), (\d+) of \d+ rolls used", text)
        assert found, text
        assert int(found[2]) == before + 1, f"challenge at {before} rolls logged {found[2]}"
        return int(found[2])

    return step


def check_round(table: Table, started: Round, shown: Counter[int]) -> dict[str, int]:
    """Check one round against the database; return how many changes of each kind applied."""
    sent = started.sent
    with table.read() as db:
        stored = Stored(db, table.channels)
        rolls = stored.rolls()

        # Every acknowledged roll is stored, with the dice it showed; no id shown twice.
        for one in sent:
            roll_id = one.roll_id
            if roll_id is None:
                continue
            shown[roll_id] += 1
            assert roll_id in rolls, f"acknowledged roll #{roll_id} ({one.command.name}) lost"
            logged = json.loads(rolls[roll_id]["payload"])["embed"]
            embed = one.reply.original.embeds[0]  # the dice, and the state after them
            assert [logged.get(key) for key in ("title", "description", "fields")] == [
                embed.get(key) for key in ("title", "description", "fields")
            ], f"roll #{roll_id} stored differs from what was shown"
        doubled = sorted(roll_id for roll_id, count in shown.items() if count > 1)
        assert not doubled, f"roll ids shown twice: {doubled}"

        def rows_in(system: str, kind: str | None = None) -> list[tuple[int, dict[str, Any]]]:
            return [
                (roll_id, json.loads(row["payload"]))
                for roll_id, row in rolls.items()
                if roll_id > started.first_id
                and row["channel_id"] == table.channels[system]
                and (kind is None or row["kind"] == kind)
            ]

        counters = {
            "sinew luck spend": (
                chain(rows_in("sinew"), started.luck, luck_step),
                stored.luck("Brakka"),
            ),
            "sinew tamper": (
                chain(rows_in("sinew", "sinew.tamper"), started.pressure, pressure_step),
                stored.pressure("Vex"),
            ),
            "sinew crisis": (
                chain(rows_in("sinew", "sinew.crisis"), started.stamina, stamina_step("Vex")),
                stored.stamina("Vex"),
            ),
            "sixpool check": (
                chain(rows_in("sixpool"), started.pool, pool_step),
                stored.dex("Rin"),
            ),
            "cosmos roll": (
                chain(rows_in("cosmos"), 0, challenge_step(started.challenge)),
                stored.challenge(started.challenge)[1],
            ),
        }
        applied: dict[str, int] = {}
        for command, (logged, value) in counters.items():
            # The chain of logged changes ends exactly at the stored value: none half-applied.
            changed = logged.changed
            assert logged.end == value, f"{command}: the log ends at {logged.end}, stored {value}"
            acknowledged = {
                one.roll_id for one in sent if one.command.name == command and one.roll_id
            }
            if command == "sinew tamper":  # a passed tamper is acknowledged but changes nothing
                acknowledged -= {
                    roll_id
                    for roll_id, payload in rows_in("sinew", "sinew.tamper")
                    if str(field_value(payload, "Pressure")).endswith("(unchanged)")
                }
            # A Crisis comes from a tamper: bound it by the tampers sent.
            number_sent = sum(
                one.command.name == ("sinew tamper" if command == "sinew crisis" else command)
                for one in sent
            )
            assert acknowledged <= set(changed), f"{command}: acknowledged changes not in the log"
            assert len(acknowledged) <= len(changed) <= number_sent, command
            applied[command] = len(changed)

        # A Crisis is logged with the tamper that fired it, in the same transaction.
        crises = sum(
            "Crisis!" in (field_value(payload, "Pressure") or "")
            for _, payload in rows_in("sinew", "sinew.tamper")
        )
        assert crises == len(rows_in("sinew", "sinew.crisis"))

        # The /campaign change: acknowledged means stored, once (one row per GM).
        gm_adds = [one for one in sent if one.command.name == "campaign gm add"]
        admin = table.fake.users["admin"].id
        for one in gm_adds:
            gms = stored.gms(one.command.channel)
            if one.reply.raw is not None and not one.reply.ephemeral:
                assert gms.count(admin) == 1, "an acknowledged GM add was lost"
            assert gms.count(admin) <= 1
    return applied


async def test_sigkill_under_a_mixed_load_of_every_system_loses_doubles_and_half_applies_nothing(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake_discord.timeout = READY_TIMEOUT_SECONDS
    rng = random.Random(SEED)
    table = Table(fake_discord, tmp_path)
    shown: Counter[int] = Counter()
    totals: Counter[str] = Counter()
    acknowledged = 0
    await table.start()
    try:
        await table.set_up()
        gm_channels = ["aethelgard", "realms", "cosmos"]
        for number in range(1, ROUNDS + 1):
            started = await table.begin_round(number)
            mix = load_mix(started.challenge, gm_channels[number - 1])
            started.sent = await table.load(mix, rng)
            await table.start()  # on the same database, as after a crash
            totals.update(check_round(table, started, shown))
            acknowledged += sum(one.roll_id is not None for one in started.sent)
            # The restarted bot answers, with a roll id never used before.
            after = await table.invoke("roll", {"expression": "1d6"}, "lobby", "player")
            roll_id = Sent(Command("roll", {}, "player", "lobby"), after).roll_id
            assert roll_id is not None and roll_id > max(shown, default=0)
            shown[roll_id] += 1
    finally:
        returncode = await table.stop()
    assert returncode == 0
    assert "Traceback" not in table.log_path.read_text()
    # The load did what it is for: each kind of change happened, and rolls were acknowledged.
    assert all(totals[kind] > 0 for kind in ("sinew luck spend", "sixpool check", "cosmos roll"))
    assert totals["sinew tamper"] > 0 and acknowledged > 20
