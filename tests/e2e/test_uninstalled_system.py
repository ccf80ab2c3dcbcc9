"""A campaign of a system no installed package declares (docs/development.md, "Adding a system").

A deployment that drops a package from SYSTEM_PACKAGES keeps its campaigns in the database. The
bot reads such a campaign as of a "system not installed": `/campaign info` says so and how to
fix it, `/campaign end` frees the channel, the log and the recap show its rolls (without a
system's summary), `/roll` works there as in any campaign, and what needs another system's
campaign, or a new campaign, is refused in one line. Nothing logs an ERROR.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.client import DiceBot, create_bot
from bot.storage import RollEntry, Visibility
from rules.declarations import declaration
from rules.randomness import new_rng
from rules.systems import System, system_named, use_packages
from tests.e2e.conftest import DICE_SEED, bot_settings
from tests.expect import active_campaign
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

PACKAGE = "ocarina_quest_package"
KEY = "ocarina"
NOT_INSTALLED = f"system not installed (`{KEY}`)"
REFUSED_HERE = f"This channel's campaign is of a system not installed here (`{KEY}`)"

TOY_RULES = '''
"""Ocarina Quest: a toy system with one setting and one track."""

from __future__ import annotations

from enum import StrEnum

from rules.declarations import Setting, SystemDeclaration, TrackSpec
from rules.systems import System


class Pitch(StrEnum):
    LOW = "low"
    HIGH = "high"


PITCH: Setting[Pitch] = Setting(
    name="pitch", label="Pitch", help="Ocarina Quest only: low or high", kind=Pitch,
    default=Pitch.LOW, changeable=True,
)
NOTES = TrackSpec(name="notes", minimum=0, maximum=9)
SYSTEM = System("ocarina", "Ocarina Quest")
DECLARATION = SystemDeclaration(system=SYSTEM, settings=(PITCH,), tracks=(NOTES,))
'''


@pytest.fixture
def toy_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The toy system's package (rules only, no cog), importable while the test runs."""
    root = tmp_path / "plugins" / PACKAGE
    for folder in (root, root / "rules", root / "cogs"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
    (root / "rules" / f"{KEY}.py").write_text(textwrap.dedent(TOY_RULES))
    monkeypatch.syspath_prepend(str(root.parent))
    yield PACKAGE
    use_packages(())
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]


@dataclasses.dataclass(frozen=True)
class Orphaned:
    """The bot without the package, and the rolls logged while the package was installed."""

    bot: DiceBot
    dice_roll_id: int
    toy_roll_id: int


@pytest.fixture
async def orphaned(
    fake_discord: FakeDiscord, migrated_sqlite: Path, toy_package: str
) -> AsyncIterator[Orphaned]:
    """A campaign of the toy system started (with a roll of each kind logged) by a bot with the
    package; then a new bot on the same database without it."""
    settings = bot_settings(fake_discord, migrated_sqlite)
    with_toy = create_bot(
        dataclasses.replace(settings, system_packages=(toy_package,)), rng=new_rng(DICE_SEED)
    )
    async with run_bot(fake_discord, with_toy):
        started = await fake_discord.invoke(
            "campaign start", {"system": KEY, "name": "Wind Band", "pitch": "high"}
        )
        assert not started.ephemeral and "Ocarina Quest" in started.embeds[0]["description"]
        rolled = await fake_discord.invoke("roll", {"expression": "1d20+2"}, user="player")
        assert not rolled.ephemeral
        campaign = await active_campaign(with_toy.storage, fake_discord.channel_id)
        await with_toy.storage.tracks.change(campaign, "notes", 4)
        player = fake_discord.users["player"].id
        dice_roll = await with_toy.storage.rolls.latest(fake_discord.channel_id, player)
        assert dice_roll is not None and dice_roll.campaign_id == campaign.id
        toy_roll = await with_toy.storage.rolls.record(
            RollEntry(
                campaign_id=campaign.id,
                guild_id=fake_discord.guild_id,
                channel_id=fake_discord.channel_id,
                user_id=player,
                kind=f"{KEY}.toot",
                visibility=Visibility.PUBLIC,
                payload={"embed": {"title": "🎵 A high toot"}, "result": {"notes": 4}},
            )
        )
        await with_toy.shutdown()
    without = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, without):
        yield Orphaned(without, dice_roll.id, toy_roll)
        await fake_discord.wait_until(lambda: not without.in_flight, "the bot to finish its work")


def test_a_stored_key_no_package_declares_reads_as_a_system_not_installed() -> None:
    system = system_named(KEY)
    assert not system.installed and system.value == KEY
    assert system.display_name == NOT_INSTALLED
    assert system.with_article == f"a system not installed here (`{KEY}`)"
    assert system != System(KEY, NOT_INSTALLED)  # never taken for an installed one
    assert system_named("cosmos").installed
    assert declaration(system).settings == () and declaration(system).tracks == ()
    odd = system_named("Not A Key`" + "x" * 60)  # whatever the row holds: still a value
    assert not odd.installed and odd.display_name.count("`") == 2 and "…" in odd.display_name


async def test_campaign_info_says_the_system_is_not_installed_and_how_to_free_the_channel(
    fake_discord: FakeDiscord, orphaned: Orphaned
) -> None:
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert info.ephemeral and info.embeds[0]["title"] == "📖 Wind Band"
    description = info.embeds[0]["description"]
    assert description.startswith(f"System: **{NOT_INSTALLED}**")
    assert "SYSTEM_PACKAGES" in description and "`/campaign end`" in description
    fields = {field["name"]: field["value"] for field in info.embeds[0]["fields"]}
    assert "pitch: high" in fields["Settings"]  # as stored, for when it is installed again
    assert fields["Tracks"] == "Kept, shown again once its system is installed"


async def test_campaign_end_frees_the_channel_of_a_system_not_installed(
    fake_discord: FakeDiscord, orphaned: Orphaned
) -> None:
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    assert prompt.ephemeral
    assert prompt.content.startswith(
        f"End the campaign **Wind Band**, of a system not installed here (`{KEY}`)? "
    )
    end_button, _ = prompt.original.custom_ids()
    ended = await fake_discord.click(prompt, end_button, user="gm")
    assert ended.content == "Campaign ended."
    assert await orphaned.bot.storage.campaigns.active(fake_discord.channel_id) is None
    started = await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Next"})
    assert not started.ephemeral and "Cosmos Engine" in started.embeds[0]["description"]


async def test_the_log_and_the_recap_show_the_rolls_of_a_system_not_installed(
    fake_discord: FakeDiscord, orphaned: Orphaned
) -> None:
    page = await fake_discord.invoke("campaign log", {}, user="player")
    assert page.ephemeral
    lines = page.embeds[0]["description"].splitlines()
    toy = next(line for line in lines if f"`#{orphaned.toy_roll_id}`" in line)
    assert toy.endswith("A high toot")  # what was rolled, without a system's summary
    dice = next(line for line in lines if f"`#{orphaned.dice_roll_id}`" in line)
    assert "1d20+2 →" in dice
    recap = await fake_discord.invoke("campaign recap", {}, user="player")
    assert not recap.ephemeral and recap.embeds, recap.content
    assert "2 rolls" in str(recap.embeds[0]), recap.embeds[0]


async def test_roll_works_in_the_campaign_of_a_system_not_installed(
    fake_discord: FakeDiscord, orphaned: Orphaned
) -> None:
    campaign = await active_campaign(orphaned.bot.storage, fake_discord.channel_id)
    rolls: list[tuple[str, dict[str, object]]] = [
        ("roll", {"expression": "2d6+1"}),
        ("cosmos roll", {"attribute": 3, "skill": 2, "tn": 12}),  # works anywhere
    ]
    for command, options in rolls:
        rolled = await fake_discord.invoke(command, options, user="player")
        assert not rolled.ephemeral and rolled.embeds, (command, rolled.content)
        latest = await orphaned.bot.storage.rolls.latest(
            fake_discord.channel_id, fake_discord.users["player"].id
        )
        assert latest is not None and latest.campaign_id == campaign.id  # as in any campaign
    hidden = await fake_discord.invoke("roll", {"expression": "1d20", "hidden": True}, user="gm")
    assert hidden.ephemeral and hidden.embeds  # its GMs are still its GMs


@pytest.mark.parametrize(
    ("command", "options", "needs"),
    [
        ("cosmos challenge status", {}, "a Cosmos Engine campaign"),
        ("cosmos roll", {"attribute": 3, "skill": 2, "tn": 12, "challenge": "Heist"}, "Cosmos"),
        ("sinew pressure show", {}, "Sinew"),
        ("sixpool character sheet", {}, "six-pool"),
        ("aethelgard character sheet", {}, "Aethelgard"),
        ("campaign start", {"system": "cosmos", "name": "Far Stars"}, "once it has ended"),
    ],
)
async def test_what_needs_another_campaign_is_refused_in_one_line(
    fake_discord: FakeDiscord, orphaned: Orphaned, command: str, options: dict, needs: str
) -> None:
    before = await orphaned.bot.storage.database.fetch_all("SELECT id FROM rolls")
    refused = await fake_discord.invoke(command, options, user="gm")
    assert refused.ephemeral and not refused.embeds
    assert refused.content.startswith(f"❌ {REFUSED_HERE}; "), refused.content
    assert needs in refused.content and "\n" not in refused.content
    assert await orphaned.bot.storage.database.fetch_all("SELECT id FROM rolls") == before
    campaign = await active_campaign(orphaned.bot.storage, fake_discord.channel_id)
    assert campaign.settings.name == "Wind Band"


async def test_the_table_switches_change_and_the_systems_own_settings_are_kept(
    fake_discord: FakeDiscord, orphaned: Orphaned
) -> None:
    changed = await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"}, user="gm")
    assert changed.ephemeral and "GM rolls: hidden" in changed.content, changed.content
    row = await orphaned.bot.storage.database.fetch_one(
        "SELECT settings FROM campaigns WHERE system = ?", (KEY,)
    )
    assert row is not None and json.loads(row["settings"]) == {"pitch": "high"}
    added = await fake_discord.invoke(
        "campaign gm add", {"user": fake_discord.users["player"]}, user="gm"
    )
    assert not added.ephemeral and "is now a GM of **Wind Band**" in added.content
