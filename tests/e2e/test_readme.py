"""The README's "The first minutes at the table" is what a new table types first: each of its
commands, typed as written, is answered publicly and not refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.client import DiceBot
from tests.e2e import test_sinew, test_sixpool
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## The first minutes at the table"
OPTION = re.compile(r"(\w+):(.*?)(?= \w+:|$)")


def first_minutes() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + len(SECTION))]


def typed_commands(section: str) -> list[str]:
    """Every complete slash command in the section (not those ending in "…")."""
    return [c for c in re.findall(r"`(/[^`]+)`", section) if "…" not in c and ":" in c]


def parsed(typed: str) -> tuple[str, dict[str, Any]]:
    """`/cosmos roll attribute:3 tn:15` → ("cosmos roll", {"attribute": 3, "tn": 15})."""
    words, _, rest = typed.removeprefix("/").partition(":")
    *path, first_option = words.split()
    options: dict[str, Any] = {}
    for name, value in OPTION.findall(f"{first_option}:{rest}"):
        options[name] = int(value) if value.lstrip("-").isdigit() else value
    return " ".join(path), options


def test_the_first_minutes_give_one_roll_per_system_and_a_campaign_start() -> None:
    commands = [parsed(typed)[0] for typed in typed_commands(first_minutes())]
    assert "roll" in commands and "campaign start" in commands
    assert {c.split()[0] for c in commands} >= {
        "cosmos",
        "realms",
        "sinew",
        "aethelgard",
        "sixpool",
    }


SYSTEMS = {"cosmos", "realms", "sinew", "aethelgard", "sixpool"}


@pytest.mark.parametrize("typed", typed_commands(first_minutes()))
async def test_each_first_minutes_command_works_as_typed(
    fake_discord: FakeDiscord, dicebot: DiceBot, typed: str
) -> None:
    command, options = parsed(typed)
    system = command.split()[0]
    if system in SYSTEMS:
        started = await fake_discord.invoke(
            "campaign start", {"system": system, "name": "First night"}, user="gm"
        )
        assert not started.ephemeral, started.content
    if system == "sinew":
        assert not (await test_sinew.create(fake_discord, "Wren")).ephemeral
    if system == "sixpool":
        assert not (await test_sixpool.create(fake_discord)).ephemeral
    who = "gm" if command == "campaign start" else "player"
    reply = await fake_discord.invoke(command, options, user=who)
    assert not reply.ephemeral, reply.content
    assert reply.embeds and reply.embeds[0]["title"], reply.raw
