"""A sixth system touches no file outside its own (docs/development.md, "Adding a system").

The test writes a toy system, Kazoo Quest, into a package of its own in a temporary directory:
a rules module whose DECLARATION names the system, one setting and one track, and a cog with one
slash command. The bot, told of the package (SYSTEM_PACKAGES), offers the system at
`/campaign start` with its setting, keeps its track and runs its command; no file of the bot
names it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.client import DiceBot, create_bot
from bot.config import PROJECT_ROOT
from rules.campaigns import setting_owners
from rules.randomness import new_rng
from rules.systems import all_systems, use_packages
from tests.e2e.conftest import DICE_SEED, bot_settings
from tests.e2e.test_startup import start_bot_process, wait_until_ready
from tests.expect import active_campaign
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

PACKAGE = "kazoo_quest_package"
KEY = "kazoo"

TOY_RULES = '''
"""Kazoo Quest: a toy system. Each toot adds sparks to the party (1, or 2 when loud)."""

from __future__ import annotations

from enum import StrEnum

from rules.declarations import Setting, SystemDeclaration, TrackSpec
from rules.systems import System


class Volume(StrEnum):
    SOFT = "soft"
    LOUD = "loud"


VOLUME: Setting[Volume] = Setting(
    name="volume",
    label="Volume",
    help="Kazoo Quest only: how many sparks a toot gives, soft (1) or loud (2)",
    kind=Volume,
    default=Volume.SOFT,
)
SPARKS = TrackSpec(name="sparks", minimum=0, maximum=3)
SPARKS_PER_TOOT = {Volume.SOFT: 1, Volume.LOUD: 2}

SYSTEM = System("kazoo", "Kazoo Quest", sentence_name="kazoo")
DECLARATION = SystemDeclaration(system=SYSTEM, settings=(VOLUME,), tracks=(SPARKS,))
'''

TOY_COG = f'''
"""`/kazoo toot`: add sparks to the party's track."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.asker import Asker
from bot.client import DiceBot
from {PACKAGE}.rules import kazoo


class KazooCog(commands.GroupCog, group_name="kazoo", group_description="Kazoo Quest"):
    def __init__(self, bot: DiceBot) -> None:
        self.storage = bot.storage

    @app_commands.command(name="toot", description="Toot: the party gains sparks")
    async def toot(self, interaction: discord.Interaction) -> None:
        campaign = (await Asker.of(interaction, self.storage)).require_campaign(kazoo.SYSTEM)
        volume = campaign.settings.get(kazoo.VOLUME)
        sparks = kazoo.SPARKS_PER_TOOT[volume]
        changed = await self.storage.tracks.change(campaign, kazoo.SPARKS.name, sparks)
        await interaction.response.send_message(
            f"🎺 Sparks {{changed.before}} → {{changed.after}} ({{volume}})"
        )


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(KazooCog(bot))
'''


@pytest.fixture
def toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The toy system's package, importable from ``tmp_path``; forgotten afterwards."""
    root = tmp_path / "plugins" / PACKAGE
    for folder in (root, root / "rules", root / "cogs"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (root / "rules" / f"{KEY}.py").write_text(textwrap.dedent(TOY_RULES))
    (root / "cogs" / f"{KEY}.py").write_text(textwrap.dedent(TOY_COG))
    monkeypatch.syspath_prepend(str(root.parent))
    yield PACKAGE
    use_packages(())  # the registry as every other test's bot has it
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]


@pytest.fixture
async def toy_bot(
    fake_discord: FakeDiscord, migrated_sqlite: Path, toy_package: str
) -> AsyncIterator[DiceBot]:
    settings = dataclasses.replace(
        bot_settings(fake_discord, migrated_sqlite), system_packages=(toy_package,)
    )
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, bot):
        yield bot
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")


def _campaign_start(fake: FakeDiscord) -> dict:
    campaign = next(c for c in fake.synced_commands(guild=True) if c["name"] == "campaign")
    return next(option for option in campaign["options"] if option["name"] == "start")


async def test_a_sixth_system_from_its_own_package_is_offered_started_and_played(
    fake_discord: FakeDiscord, toy_bot: DiceBot
) -> None:
    start = _campaign_start(fake_discord)
    options = {option["name"]: option for option in start["options"]}
    # The contract of /campaign start stays; the toy adds its system and its one setting.
    assert list(options)[:2] == ["system", "name"]
    assert {"skin", "edge_option", "lingering_taint", "volume"} <= set(options)
    assert [c["value"] for c in options["skin"]["choices"]] == ["fantasy", "scifi"]
    assert [c["value"] for c in options["edge_option"]["choices"]] == ["A", "B"]
    assert {"name": "Kazoo Quest", "value": KEY} in options["system"]["choices"]
    assert len(options["system"]["choices"]) == 6
    assert [c["value"] for c in options["volume"]["choices"]] == ["soft", "loud"]

    reply = await fake_discord.invoke(
        "campaign start", {"system": KEY, "name": "Brass Band", "volume": "loud"}
    )
    assert not reply.ephemeral
    assert "Kazoo Quest" in reply.embeds[0]["description"]
    assert "Volume: loud" in str(reply.embeds[0])
    campaign = await active_campaign(toy_bot.storage, fake_discord.channel_id)
    assert campaign.system.value == KEY and campaign.settings.options == {"volume": "loud"}

    tooted = await fake_discord.invoke("kazoo toot", {}, user="player")
    assert not tooted.ephemeral and tooted.content == "🎺 Sparks 0 → 2 (loud)"
    assert await toy_bot.storage.tracks.value(campaign, "sparks") == 2
    # 2 + 2 is past the declared maximum of 3: refused, and nothing changes.
    refused = await fake_discord.invoke("kazoo toot", {}, user="player")
    assert refused.ephemeral
    assert await toy_bot.storage.tracks.value(campaign, "sparks") == 2
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert "Volume: loud" in str(info.embeds[0]) and "sparks" in str(info.embeds[0]).casefold()


async def test_a_sixth_systems_setting_is_refused_elsewhere_and_its_command_needs_it(
    fake_discord: FakeDiscord, toy_bot: DiceBot
) -> None:
    reply = await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars", "volume": "loud"}
    )
    assert reply.ephemeral and "`volume` is a kazoo setting" in reply.content
    assert await toy_bot.storage.campaigns.active(fake_discord.channel_id) is None
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"})
    tooted = await fake_discord.invoke("kazoo toot", {}, user="player")
    assert tooted.ephemeral and "this needs Kazoo Quest" in tooted.content


async def test_concurrent_toots_end_in_the_serial_result(
    fake_discord: FakeDiscord, toy_bot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": KEY, "name": "Quiet Band"})
    replies = await asyncio.gather(
        *(fake_discord.invoke("kazoo toot", {}, user="player") for _ in range(5))
    )
    # Soft: 1 spark a toot, at most 3: three toots land (0→1, 1→2, 2→3), two are refused.
    landed = sorted(reply.content for reply in replies if not reply.ephemeral)
    assert landed == [f"🎺 Sparks {n} → {n + 1} (soft)" for n in range(3)]
    assert sum(reply.ephemeral for reply in replies) == 2
    campaign = await active_campaign(toy_bot.storage, fake_discord.channel_id)
    assert await toy_bot.storage.tracks.value(campaign, "sparks") == 3


def test_no_file_of_the_bot_names_the_sixth_system(toy_package: str) -> None:
    # Everything the bot knows of it, it found in the toy's own package.
    for folder in ("bot", "cogs", "rules", "data"):
        for path in (PROJECT_ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in {".py", ".toml", ".sql", ".lark", ".json"}:
                assert KEY not in path.read_text(encoding="utf-8").casefold(), path
    use_packages([f"{toy_package}.rules"])
    assert KEY in {system.value for system in all_systems()}
    assert setting_owners()["volume"][0].display_name == "Kazoo Quest"
    use_packages(())
    assert KEY not in {system.value for system in all_systems()}
    assert "volume" not in setting_owners()


async def test_python_m_bot_with_the_package_loads_it_before_discord_and_plays_it(
    fake_discord: FakeDiscord, tmp_path: Path, toy_package: str
) -> None:
    # `python -m bot` imports SYSTEM_PACKAGES before it contacts Discord (one line, exit 2,
    # if it can't: tests/test_config_refusals.py); a package it can import starts as in-process.
    plugins = str(tmp_path / "plugins")
    python_path = os.pathsep.join(filter(None, [plugins, os.environ.get("PYTHONPATH")]))
    process = await start_bot_process(
        fake_discord,
        tmp_path,
        fake_discord.token,
        SYSTEM_PACKAGES=toy_package,
        PYTHONPATH=python_path,
    )
    try:
        await wait_until_ready(fake_discord)
        system_option = _campaign_start(fake_discord)["options"][0]
        assert {"name": "Kazoo Quest", "value": KEY} in system_option["choices"]
        await fake_discord.invoke("campaign start", {"system": KEY, "name": "Brass Band"})
        tooted = await fake_discord.invoke("kazoo toot", {}, user="player")
        assert tooted.content == "🎺 Sparks 0 → 1 (soft)"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0 and "Traceback" not in stderr.decode()
