"""A sixth system touches no file outside its own (docs/development.md, "Adding a system").

The test writes a toy system, Kazoo Quest, into a package of its own in a temporary directory:
a rules module whose DECLARATION names the system, one setting and one track, and a cog with one
slash command. The bot, told of the package (SYSTEM_PACKAGES), offers the system at
`/campaign start` with its setting, keeps its track and runs its command; no file of the bot
names it.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import json
import os
import signal
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from bot.client import DiceBot, create_bot
from bot.config import PROJECT_ROOT
from cogs.campaign import CampaignCog, settings_command, start_command
from rules.randomness import new_rng
from rules.systems import SystemRegistry, use_packages
from tests.e2e.conftest import DICE_SEED, bot_settings
from tests.e2e.test_startup import start_bot_process, wait_until_ready
from tests.expect import active_campaign, logged_roll
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

PACKAGE = "kazoo_quest_package"
KEY = "kazoo"

TOY_RULES = '''
"""Kazoo Quest: a toy system. Each toot adds sparks to the party (1, or 2 when loud); a blare
rolls a d6 (4 or more succeeds, a 6 is a critical, a 1 a fumble) and is logged."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.declarations import Setting, SystemDeclaration, TrackSpec
from rules.odds import die
from rules.roll_kinds import Placement, Reading, RollKind, Total
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

HORN = 6


@dataclass(frozen=True)
class Blare:
    face: int


def _read(blare: Blare) -> Reading:
    face = blare.face
    return Reading((Total(face),), face >= 4, critical=face == HORN, fumble=face == 1,
                   placement=Placement(face, die, (HORN,)))


BLARE = RollKind("kazoo.blare", lambda stored: Blare(int(stored["face"])), _read)

SYSTEM = System("kazoo", "Kazoo Quest", sentence_name="kazoo")
DECLARATION = SystemDeclaration(
    system=SYSTEM, settings=(VOLUME,), tracks=(SPARKS,), roll_kinds=(BLARE,)
)
'''

TOY_COG = f'''
"""`/kazoo toot`: add sparks to the party's track."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.asker import Asker
from bot.client import DiceBot
from bot.publish import Roll, publish_roll
from bot.storage import Visibility
from rules.randomness import roll_dice
from {PACKAGE}.rules import kazoo


class KazooCog(commands.GroupCog, group_name="kazoo", group_description="Kazoo Quest"):
    def __init__(self, bot: DiceBot) -> None:
        self.bot, self.storage = bot, bot.storage

    @app_commands.command(name="toot", description="Toot: the party gains sparks")
    async def toot(self, interaction: discord.Interaction) -> None:
        campaign = (await Asker.of(interaction, self.storage)).require_campaign(kazoo.SYSTEM)
        volume = campaign.settings.get(kazoo.VOLUME)
        sparks = kazoo.SPARKS_PER_TOOT[volume]
        changed = await self.storage.tracks.change(campaign, kazoo.SPARKS.name, sparks)
        await interaction.response.send_message(
            f"🎺 Sparks {{changed.before}} → {{changed.after}} ({{volume}})"
        )

    @app_commands.command(name="blare", description="Blare: roll a d6, 4 or more succeeds")
    async def blare(self, interaction: discord.Interaction) -> None:
        asker = await Asker.for_roll(interaction, self.storage, Visibility.PUBLIC)
        asker.require_campaign(kazoo.SYSTEM)
        blare = kazoo.Blare(roll_dice(self.bot.rng, 1, kazoo.HORN)[0])
        embed = discord.Embed(title=f"🎺 {{interaction.user.display_name}}: a blare")
        roll = Roll(kazoo.BLARE.name, blare, embed)
        await publish_roll(interaction, self.storage, asker, roll, Visibility.PUBLIC)


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
    use_packages(())  # the registry every other test's bot installs (rules.systems.install)
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
    assert type(toy_bot.get_cog(CampaignCog.__cog_name__)) is CampaignCog  # not executed again
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
    with_toy = SystemRegistry.scan([f"{toy_package}.rules"])
    assert KEY in {system.value for system in with_toy.systems}
    assert with_toy.settings()["volume"][0].display_name == "Kazoo Quest"
    without = SystemRegistry.scan()
    assert KEY not in {system.value for system in without.systems}
    assert "volume" not in without.settings()


async def test_each_bot_builds_the_commands_listing_systems_from_its_own_registry(
    toy_package: str,
) -> None:
    # Built when the cog is set up, from the registry handed to it: bots with and without the
    # package, one after the other in this process, each offer their own systems and settings.
    async def answer(interaction: object, **options: object) -> None: ...

    for registry, systems in ((SystemRegistry.scan([f"{toy_package}.rules"]), 6),
                              (SystemRegistry.scan(), 5)):  # fmt: skip
        for command in (start_command(registry, answer), settings_command(registry, answer)):
            names = [parameter.name for parameter in command.parameters]
            assert ("volume" in names) == (systems == 6 and command.name == "start")
        start = start_command(registry, answer).get_parameter("system")
        assert start is not None and len(start.choices) == systems


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


async def test_a_sixth_systems_rolls_read_in_the_log_its_exports_and_the_recap_by_declaring(
    fake_discord: FakeDiscord, toy_bot: DiceBot
) -> None:
    # The toy declares one roll kind (its reading: total, verdict, crit, fumble, placement) and no
    # file of the bot names it: the log, the exports and the recap read its rolls through it.
    await fake_discord.invoke("campaign start", {"system": KEY, "name": "Brass Band"})
    faces = []
    for _ in range(12):
        reply = await fake_discord.invoke("kazoo blare", {}, user="player")
        assert not reply.ephemeral
        roll_id = int(reply.embeds[0]["footer"]["text"].removeprefix("Roll #").split()[0])
        logged = await logged_roll(toy_bot.storage, roll_id)
        faces.append(logged.payload["result"]["face"])
    assert {1, 6} <= set(faces)  # the seed rolls a fumble and a critical
    verdicts = {6: "✨", 1: "💀"}
    page = await fake_discord.invoke("campaign log", {"limit": 12}, user="player")
    lines = page.embeds[0]["description"].splitlines()
    for line, face in zip(lines, reversed(faces), strict=True):  # newest first
        verdict = verdicts.get(face) or ("✅" if face >= 4 else "❌")
        assert line.endswith(f" → **{face}** {verdict}"), line
    exported = await fake_discord.invoke("campaign log", {"export": "csv"}, user="gm")
    rows = list(csv.DictReader(io.StringIO(exported.attachments[0][1].decode())))
    assert [row["total"] for row in rows] == [str(face) for face in faces]
    as_json = await fake_discord.invoke("campaign log", {"export": "json"}, user="gm")
    assert [record["total"] for record in json.loads(as_json.attachments[0][1])] == [
        str(face) for face in faces
    ]
    recap = (await fake_discord.invoke("campaign recap", {}, user="player")).embeds[0]
    text = json.dumps(recap, ensure_ascii=False)
    # Every blare is scored on a d6 (mid-rank: (face - 1 + 1/2) / 6, averaged), by hand.
    luck = sum(Fraction(2 * face - 1, 12) for face in faces) / len(faces)
    assert f"({len(faces)} scored rolls)" in text
    assert f"{round(luck * 100)}%" in text or f"{round((1 - luck) * 100)}%" in text
    crits, fumbles = faces.count(6), faces.count(1)
    assert f"✨ {crits} crit" in text and f"💥 {fumbles} fumble" in text
