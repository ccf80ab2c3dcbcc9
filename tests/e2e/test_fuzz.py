"""Thousands of seeded hostile invocations of every command against `python -m bot`.

Options are drawn from the commands as the bot synced them, mixing legal values with what a
hostile or broken client sends: values of the wrong JSON type, numbers at and past every limit,
6,000-character strings, markup and mentions, dice-notation bombs, unknown and missing
options, unresolved users, and clicks on buttons already used. Every invocation must be
answered, the bot must log no ERROR and stay alive with bounded memory, and the fake refuses
(and the fixture then fails) any message over Discord's limits. How fast they are answered
(within Discord's 3 s deadline, far within) is for bench/bench_latency.py, not a test.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.e2e.test_startup import STARTUP_TIMEOUT_SECONDS, start_bot_process, wait_until_ready
from tests.fakediscord.messages import Reply
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import ANSI_ESCAPE, FakeDiscord

FUZZ_SEED = 25
INVOCATIONS = 2_000
IN_FLIGHT = 8  # sent together, like a busy table
RSS_LIMIT_MB = 300

NOTATION_BOMBS = [
    "1d1e1",
    "1d2e<3",
    "1d1e>0",
    "1000d10000e>2",
    "1000d2e2",
    "1000d6rr<6",
    "1d20rr<20",
    "(" * 60 + "1d6" + ")" * 60,
    "1000d1000kh999+1000d1000kl999",
    "99999999999999999999d6",
    "1d99999999999999999999",
    "1d6*" * 40 + "1",
    "4d6kh3+",
    "d%",
    "1d0",
    "-1d6",
    "1d6/0",
]
HOSTILE_TEXT = [
    "",
    " ",
    "x" * 6_000,
    "🎲" * 1_500,
    "@everyone",
    "<@123456789012345678>",
    "**bold** `code` ~~strike~~ ||spoiler||",
    "\n" * 50,
    "Robert'); DROP TABLE rolls;--",
    "\u202eevil",
    "\x00\x01",
]
HUGE_NUMBERS = [2**53, -(2**53), 2**63 + 5, -(2**63) - 5, 10**30]


def _leaves(node: JSON, path: list[str]) -> Iterator[tuple[str, list[JSON]]]:
    children = node.get("options", [])
    subcommands = [child for child in children if child["type"] in (1, 2)]
    if not subcommands:
        yield " ".join(path), children
    for child in subcommands:
        yield from _leaves(child, [*path, child["name"]])


def every_command(fake: FakeDiscord) -> list[tuple[str, list[JSON]]]:
    """Return each runnable command path with its declared options."""
    return [
        leaf
        for command in fake.synced_commands(guild=True)
        for leaf in _leaves(command, [command["name"]])
    ]


class Fuzzer:
    """Draws hostile but seeded option values for the fake's users and channels."""

    def __init__(self, fake: FakeDiscord, seed: int) -> None:
        self.fake = fake
        self.random = random.Random(seed)

    def value(self, option: JSON) -> tuple[int, Any, JSON]:
        """Return (wire type, value, resolved data) for one option."""
        kind, pick = option["type"], self.random.random()
        if pick < 0.03:  # the wrong JSON type for the declared option
            return kind, self.random.choice([7, "7", True, None, 1.5, [], {}]), {}
        if kind == 3:
            return kind, self.text(option), {}
        if kind == 4:
            return kind, self.integer(option), {}
        if kind == 5:
            return kind, self.random.random() < 0.5, {}
        if kind == 10:
            return kind, self.random.choice([0.5, -1e300, 1e308, 3.0]), {}
        if kind == 6:
            if pick < 0.2:
                return kind, str(self.random.randrange(10**17, 10**18)), {}  # unresolved
            person = self.random.choice(list(self.fake.users.values()))
            resolved: JSON = {}
            value = self.fake._encode_value(6, person, resolved)
            return kind, value, resolved
        return kind, None, {}

    def text(self, option: JSON) -> str:
        choices = [choice["value"] for choice in option.get("choices") or []]
        pick = self.random.random()
        if choices and pick < 0.7:
            return self.random.choice(choices)
        if option["name"] == "expression" and pick < 0.6:
            return self.random.choice([*NOTATION_BOMBS, "4d6kh3+2", "2d20kl1", "1d20"])
        if pick < 0.8:
            return self.random.choice(HOSTILE_TEXT)
        return "".join(self.random.choice("abc xyz-'") for _ in range(self.random.randint(1, 30)))

    def integer(self, option: JSON) -> int:
        low, high = option.get("min_value"), option.get("max_value")
        pick = self.random.random()
        if pick < 0.05:
            return self.random.choice(HUGE_NUMBERS)
        if pick < 0.2:
            return self.random.choice([-1, 0, 1, 1000, -1000])
        if low is not None and high is not None:
            return self.random.randint(int(low) - 2, int(high) + 2)
        return self.random.randint(-5, 50)

    def options(self, declared: list[JSON]) -> tuple[list[JSON], JSON]:
        """Return the wire options and their resolved data for one invocation."""
        wire: list[JSON] = []
        resolved: JSON = {}
        for option in declared:
            if not option.get("required") and self.random.random() < 0.5:
                continue
            if option.get("required") and self.random.random() < 0.02:
                continue  # a missing required option: an outdated client
            kind, value, extra = self.value(option)
            for key, entries in extra.items():
                resolved.setdefault(key, {}).update(entries)
            wire.append({"name": option["name"], "type": kind, "value": value})
        if self.random.random() < 0.02:
            wire.append({"name": "surprise", "type": 3, "value": "?"})
        return wire, resolved


def _rss_megabytes(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def test_two_thousand_hostile_invocations_all_answered_without_errors(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    log_path = tmp_path / "bot.log"
    with log_path.open("wb") as log_file:
        process = await start_bot_process(
            fake_discord, tmp_path, fake_discord.token, stderr=log_file
        )
        try:
            await wait_until_ready(fake_discord)
            # Most commands need a campaign: start one, so more of them get past that check.
            await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Fuzz"})
            fuzzer = Fuzzer(fake_discord, FUZZ_SEED)
            commands = every_command(fake_discord)
            users = list(fake_discord.users)
            channels = [
                fake_discord.channel_id,
                fake_discord.other_channel_id,
                fake_discord.thread_id,
            ]
            answered: list[Reply] = []
            for start in range(0, INVOCATIONS, IN_FLIGHT):
                batch = []
                for _ in range(min(IN_FLIGHT, INVOCATIONS - start)):
                    batch.append(
                        await _invoke_one(fake_discord, fuzzer, commands, users, channels, answered)
                    )
                await fake_discord.wait_answered(batch, wait_deferred=False)
                answered += batch
            assert process.returncode is None, "the bot died"
            rss = _rss_megabytes(process.pid)
            assert rss < RSS_LIMIT_MB, f"RSS {rss:.0f} MB"
        finally:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), STARTUP_TIMEOUT_SECONDS)
    log = ANSI_ESCAPE.sub("", log_path.read_text())
    assert process.returncode == 0
    assert "Traceback" not in log
    assert not re.search(r"\b(ERROR|CRITICAL)\b", log), log
    assert len(answered) == INVOCATIONS


async def _invoke_one(
    fake: FakeDiscord,
    fuzzer: Fuzzer,
    commands: list[tuple[str, list[JSON]]],
    users: list[str],
    channels: list[int],
    answered: list[Reply],
) -> Reply:
    """Send one random invocation: a command, or now and then a click on an earlier reply."""
    chooser = fuzzer.random
    user = chooser.choice(users)
    clickable = [reply for reply in answered[-50:] if reply.message and reply.message.custom_ids()]
    if clickable and chooser.random() < 0.05:
        target = chooser.choice(clickable)
        custom_id = chooser.choice(target.original.custom_ids())
        return await fake.click(
            target, custom_id, user=user, wait_deferred=False, stale_client=True
        )
    path, declared = chooser.choice(commands)
    options, resolved = fuzzer.options(declared)
    return await fake.send_raw(
        path, options, resolved=resolved, user=user, channel=chooser.choice(channels)
    )
