"""What the real Discord accepts: the bot's commands and replies within Discord's documented
limits (docs/players/index.md, "What Discord accepts").

The fake Discord refuses what Discord refuses (tests/fakediscord/commands.py for a command sync,
tests/fakediscord/limits.py for messages), so every end-to-end test is also a conformance test.
These tests reach what no ordinary test does: a real sync in both modes, each command's size
against a margin, descriptions at their source (discord.py cuts a long one silently), and lists
that grow with use.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from discord import app_commands

from bot.client import DiceBot, create_bot
from bot.options import suggest
from rules import cosmos
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings
from tests.fakediscord.commands import command_size
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

# Discord allows 8,000 characters a command (names, descriptions, choices and values): the bot
# keeps a margin for the options still to come.
COMMAND_SIZE_MARGIN = 7_500
DESCRIPTION_MAX = 100  # a command's, group's or option's description (Discord's limit)
# discord.py's mark of a description it cut to 100 characters, and of an option with none.
CUT_OR_MISSING = "…"


async def sync_for_real(fake: FakeDiscord, database: Path, *, guild_sync: bool) -> list[JSON]:
    """Start a new bot that syncs through the strict fake (never the registered shortcut of
    the shared bots), and return what the fake registered."""
    bot = create_bot(bot_settings(fake, database, guild_sync=guild_sync), rng=new_rng(DICE_SEED))
    async with run_bot(fake, bot):
        pass
    return fake.synced_commands(guild=guild_sync)


@pytest.mark.parametrize("guild_sync", [True, False], ids=["GUILD_ID", "global"])
async def test_both_sync_modes_pass_every_check_discord_makes(
    fake_discord: FakeDiscord, migrated_sqlite: Path, guild_sync: bool
) -> None:
    synced = await sync_for_real(fake_discord, migrated_sqlite, guild_sync=guild_sync)
    assert fake_discord.refused_requests == []
    names = {command["name"] for command in synced}
    assert {"roll", "campaign", "cosmos", "realms", "sinew", "aethelgard", "sixpool"} <= names
    for command in synced:
        if guild_sync:  # "only for globally-scoped commands"
            assert command.get("contexts") is None, command["name"]
            assert command.get("integration_types") is None, command["name"]
        else:  # every global command says where it is offered
            assert command["contexts"] and command["integration_types"], command["name"]


async def test_every_command_stays_within_the_size_margin(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    synced = await sync_for_real(fake_discord, migrated_sqlite, guild_sync=False)
    sizes = sorted(((command_size(c), c["name"]) for c in synced), reverse=True)
    print("\n".join(f"/{name}: {size:,} characters" for size, name in sizes))
    too_large = [(name, size) for size, name in sizes if size > COMMAND_SIZE_MARGIN]
    assert too_large == [], f"over {COMMAND_SIZE_MARGIN:,} characters (Discord: 8,000)"


def test_every_description_is_within_100_characters_at_its_source(dicebot: DiceBot) -> None:
    problems = []
    for command in dicebot.tree.walk_commands():
        name = command.qualified_name
        if len(command.description) > DESCRIPTION_MAX or command.description.endswith(
            CUT_OR_MISSING
        ):
            problems.append(f"/{name}: {command.description!r}")
        if not isinstance(command, app_commands.Command):
            continue
        # What @app_commands.describe was given, before discord.py cut it.
        given = getattr(command.callback, "__discord_app_commands_param_description__", {})
        for option, text in given.items():
            if len(str(text)) > DESCRIPTION_MAX:
                problems.append(f"/{name} {option}: {len(str(text))} characters: {text!r}")
        for parameter in command.parameters:
            if parameter.description.endswith(CUT_OR_MISSING):
                problems.append(f"/{name} {parameter.name}: cut or missing")
    assert problems == []


async def test_challenge_status_lists_what_fits_and_counts_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"}, user="gm")
    count = 27
    for number in range(count):
        name = f"{number:02d} " + "x" * (cosmos.CHALLENGE_NAME_MAX - 3)
        options = {"name": name, "tn": 15, "successes": 3, "max_rolls": 5}
        await fake_discord.invoke("cosmos challenge start", options, user="gm")
    reply = await fake_discord.invoke("cosmos challenge status", {}, user="player")
    description = reply.embeds[0]["description"]
    assert len(description) <= 4_096
    lines = description.split("\n")
    listed, last = lines[:-1], lines[-1]
    assert last == f"…and {count - len(listed)} more open challenges: pick one with `name:`"
    assert [line[2:4] for line in listed] == [f"{n:02d}" for n in range(len(listed))]
    assert 20 <= len(listed) < count


async def test_autocomplete_answers_fit_discord_whatever_was_stored() -> None:
    long_name = "n" * 150  # a suggestion's name past 100: cut, with the cut shown
    grown_value = "v" * 101  # a value past 100 (a stored name that grew): left out

    @suggest
    async def complete() -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=long_name, value="short"),
            app_commands.Choice(name="grown", value=grown_value),
            *(app_commands.Choice(name=f"n{n}", value=f"v{n}") for n in range(30)),
        ]

    choices = await complete()
    assert choices[0].name == "n" * 99 + "…" and choices[0].value == "short"
    assert [choice.name for choice in choices[1:]] == [f"n{n}" for n in range(24)]
