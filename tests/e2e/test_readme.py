"""What the README and the documentation show is what the bot does.

README's "The first minutes at the table" is what a new table types first: each of its commands,
typed as written, is answered publicly and not refused. Each picture of a reply in the
documentation (docs/render_reply.py's examples) is what the bot answers to its command with the
same dice, and the command reference (docs/commands.md) is what the bot syncs to Discord."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bot.anywhere import is_anywhere
from bot.client import DiceBot, create_bot
from rules.randomness import new_rng
from tests.docs import DOCS, docs_script
from tests.e2e import test_sinew, test_sixpool
from tests.e2e.conftest import bot_settings, sync_as_the_first_start_did
from tests.fakediscord.fixtures import run_bot
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
        if value in ("true", "false"):
            options[name] = value == "true"
        else:
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


# --- the documentation's pictures of replies: what the bot answers


async def _set_the_table(fake: FakeDiscord, system: str) -> None:
    """What a system's example needs before its roll: none, or its campaign and character."""
    if system == "sinew":  # Wren, STR 12 and 10 Luck tokens
        await fake.invoke("campaign start", {"system": "sinew", "name": "Iron Coast"}, user="gm")
        scores = docs_script("render_reply").SINEW_SCORES
        assert not (await test_sinew.create(fake, "Wren", scores)).ephemeral
    if system == "sixpool":  # Rin: DEX primary, every pool 8, Edge 1 in DEX, stealth, inspired
        started = {"system": "sixpool", "name": "Six", "edge_option": "B"}
        await fake.invoke("campaign start", started, user="gm")
        pools = dict.fromkeys(("str", "dex", "con", "int", "wis", "cha"), 8)
        created = {"name": "Rin", "level": 1, "primary": "DEX", **pools}
        assert not (await fake.invoke("sixpool character create", created, user="player")).ephemeral
        for changed in ({"pool": "DEX", "edge": 1}, {"skill": "stealth", "training": "trained"}):
            await fake.invoke("sixpool character set", changed, user="player")
        await fake.invoke("sixpool inspire", {"user": fake.users["player"]}, user="gm")


@pytest.mark.parametrize("system", ["cosmos", "sinew", "realms", "aethelgard", "sixpool"])
async def test_each_pictured_reply_is_what_the_bot_answers_with_the_same_dice(
    fake_discord: FakeDiscord, migrated_sqlite: Path, system: str
) -> None:
    shown = docs_script("render_reply").EXAMPLES[system]
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite), rng=new_rng(shown.seed))
    sync_as_the_first_start_did(bot, fake_discord)
    async with run_bot(fake_discord, bot):
        await _set_the_table(fake_discord, system)
        command, options = parsed(shown.typed)
        reply = await fake_discord.invoke(command, options, user="player")
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
    assert not reply.ephemeral, reply.content
    [sent] = reply.embeds
    roll_id = int(sent["footer"]["text"].removeprefix("Roll #"))
    # The reply names the player (the fake's "player"), or their character.
    roller = {"sinew": "Wren", "sixpool": "Rin"}.get(system, "player")
    embed, components = shown.build(roller, roll_id)
    assert sent == embed.to_dict()
    assert reply.components == components


async def test_the_command_reference_is_what_the_bot_syncs(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    gen_commands = docs_script("gen_commands")
    bot = create_bot(bot_settings(fake_discord, migrated_sqlite, guild_sync=False))
    async with run_bot(fake_discord, bot):  # syncs for real: not the registered shortcut
        tree = bot.tree.walk_commands()
        anywhere = frozenset(command.qualified_name for command in tree if is_anywhere(command))
    synced = fake_discord.synced_commands()
    assert gen_commands.reference(synced, anywhere) == (DOCS / "commands.md").read_text(
        encoding="utf-8"
    ), "docs/commands.md differs from what the bot syncs: run python docs/gen_commands.py"
