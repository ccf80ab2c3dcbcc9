"""The bot on PostgreSQL (DATABASE_URL=postgresql://…): every system's state-changing commands
through the fake Discord, answered as on SQLite, with the state where the next command finds it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.client import DiceBot, create_bot
from bot.config import DatabaseLocation, Settings
from bot.storage import CharacterStore
from cogs.aethelgard import SHEET_CODEC as AETHELGARD_SHEET
from cogs.sixpool import SHEET_CODEC as SIXPOOL_SHEET
from rules import aethelgard, sinew, sixpool
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED
from tests.expect import active_campaign
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

SINEW = {"name": "Brakka", "str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
SIXPOOL = {"name": "Rin", "level": 1, "primary": "DEX",
           "str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}  # fmt: skip
AETHELGARD = {"name": "Ysolde", "might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3}


@pytest.fixture
async def pgbot(
    fake_discord: FakeDiscord, tmp_path: Path, migrated_postgres_url: str
) -> AsyncIterator[DiceBot]:
    settings = Settings(
        token=fake_discord.token,
        database_path=tmp_path / "unused.db",
        database=DatabaseLocation.postgresql(migrated_postgres_url),
        guild_id=fake_discord.guild_id,
        api_base=fake_discord.api_base,
        gateway_url=fake_discord.gateway_url,
    )
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    async with run_bot(fake_discord, bot):
        yield bot
        await fake_discord.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
    assert not (tmp_path / "unused.db").exists()  # nothing went to an SQLite file


async def start(fake: FakeDiscord, system: str, channel: int) -> None:
    reply = await fake.invoke("campaign start", {"system": system, "name": system}, channel=channel)
    assert not reply.ephemeral, reply.content


async def test_every_systems_state_changes_land_in_postgresql(
    fake_discord: FakeDiscord, pgbot: DiceBot
) -> None:
    fake = fake_discord
    table, lobby = fake.channel_id, fake.other_channel_id
    roll = await fake.invoke("roll", {"expression": "2d6", "hidden": True}, channel=lobby,
                             user="admin")  # fmt: skip
    assert roll.ephemeral and "Hidden roll #1" in roll.embeds[0]["footer"]["text"]
    revealed = await fake.invoke("campaign reveal", {"roll_id": "1"}, channel=lobby, user="admin")
    assert not revealed.ephemeral

    # Sinew & Steel: a character, a Luck test, Pressure with its announcement.
    await start(fake, "sinew", table)
    assert not (await fake.invoke("sinew character create", SINEW, user="player")).ephemeral
    added = await fake.invoke("sinew pressure add", {"amount": 2}, user="gm")
    assert added.ephemeral and added.content == "✅ Pressure 0 → 2. Announced in the channel."
    [announced] = await fake.wait_channel_messages(table)
    assert announced["embeds"][0]["title"].startswith("🌡️ Pressure rises")
    campaign = await pgbot.storage.campaigns.active(table)
    assert campaign is not None
    assert await pgbot.storage.tracks.value(campaign, "pressure") == 2
    added = await fake.invoke("campaign gm add", {"user": fake.users["player"]}, user="gm")
    assert not added.ephemeral
    assert (await active_campaign(pgbot.storage, table)).gm_ids == {
        fake.users["gm"].id,
        fake.users["player"].id,
    }
    await fake.invoke("campaign gm remove", {"user": fake.users["player"]}, user="gm")
    brakka = await CharacterStore(pgbot.storage.database, sinew.SHEET_CODEC).find(
        campaign,
        name="brakka",  # names are case-insensitive on PostgreSQL too
    )
    assert brakka.sheet.luck_tokens == 10
    ended = await fake.invoke("campaign end", {}, user="gm")
    await fake.click(ended, ended.original.custom_ids()[0], user="gm")  # confirm
    assert await pgbot.storage.campaigns.active(table) is None

    # Six-pool: a pool spend, refused past empty.
    await start(fake, "sixpool", table)
    await fake.invoke("sixpool character create", SIXPOOL, user="player")
    for _ in range(8):
        spent = await fake.invoke("sixpool check", {"pool": "DEX", "dc": 10, "spend": 1},
                                  user="player")  # fmt: skip
        assert not spent.ephemeral
    empty = await fake.invoke("sixpool check", {"pool": "DEX", "dc": 10, "spend": 1},
                              user="player")  # fmt: skip
    assert empty.ephemeral and "0 points" in empty.content
    campaign = await active_campaign(pgbot.storage, table)
    rin = await CharacterStore(pgbot.storage.database, SIXPOOL_SHEET).find(
        campaign, user_id=fake.users["player"].id
    )
    assert rin.sheet.points(sixpool.Pool.DEX) == 0
    ended = await fake.invoke("campaign end", {}, user="gm")
    await fake.click(ended, ended.original.custom_ids()[0], user="gm")

    # Aethelgard: Stress on a character; Cosmos: a challenge; Realms: a reroll; a macro.
    await start(fake, "aethelgard", table)
    await fake.invoke("aethelgard character create", AETHELGARD, user="player")
    await fake.invoke("aethelgard stress add", {"character": "Ysolde", "amount": 3}, user="gm")
    campaign = await active_campaign(pgbot.storage, table)
    ysolde = await CharacterStore(pgbot.storage.database, AETHELGARD_SHEET).find(
        campaign, name="Ysolde"
    )
    assert (
        await pgbot.storage.tracks.value(campaign, aethelgard.STRESS.name, character_id=ysolde.id)
        == 3
    )
    saved = await fake.invoke("macro save", {"name": "Pool", "expression": "6d10"},
                              user="player")  # fmt: skip
    assert saved.ephemeral and "Pool" in saved.content
    rolled = await fake.invoke("macro roll", {"name": "pool"}, user="player")
    assert not rolled.ephemeral
    listed = await fake.invoke("campaign log", {}, user="gm")
    # This campaign's log: the macro's roll, numbered after the 1 hidden and 8 six-pool rolls.
    assert listed.embeds[0]["description"].startswith("`#10` ")
    macro_roll = await pgbot.storage.rolls.get(10)
    assert macro_roll is not None
    total = macro_roll.payload["result"]["total"]
    # The log line takes what was rolled from the reply's title ("🎲 player: 6d10 · total 31").
    assert listed.embeds[0]["description"].endswith(f"> · 6d10 → **{total}**")
