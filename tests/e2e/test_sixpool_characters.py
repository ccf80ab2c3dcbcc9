"""Six-pool d20 characters that forgive mistakes, end to end (docs/players/sixpool.md,
"Characters forgive mistakes"): `/sixpool character set|rename|delete|give`, the rolled flag
its rolls set; and two refusals shared with the other systems: the character limit's next
steps, and a Sinew Luck spend on a roll made before its character was renamed."""

from __future__ import annotations

import asyncio

import pytest

from bot.client import DiceBot
from bot.storage import CharacterStore
from cogs.sixpool import SHEET_CODEC
from rules.randomness import new_rng
from tests.e2e import test_aethelgard, test_sinew
from tests.e2e.test_sixpool import character, create, start
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

REFUSED = "❌ "
N = 40  # concurrent commands


def mention(fake: FakeDiscord, user: str) -> str:
    return f"<@{fake.users[user].id}>"


async def names(fake: FakeDiscord, bot: DiceBot) -> list[str]:
    campaign = await bot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    return [c.name for c in await CharacterStore(bot.storage.database, SHEET_CODEC).all(campaign)]


async def set_sheet(fake: FakeDiscord, options: dict[str, object], user: str = "player") -> Reply:
    return await fake.invoke("sixpool character set", options, user=user)


# --- set: the owner's until the first roll, then a GM's, announced


@pytest.mark.parametrize(
    ("command", "options"),
    [
        ("sixpool check", {"pool": "DEX", "dc": 10}),
        ("sixpool attack", {"pool": "STR", "ac": 10}),
        ("sixpool save", {"pool": "CON", "dc": 10}),
        ("sixpool take", {"pool": "DEX", "dc": 10, "value": 10}),
        ("sixpool contest", {"pool": "DEX", "vs_modifier": 2}),
    ],
)
async def test_a_sixpool_roll_marks_the_character_rolled(
    fake_discord: FakeDiscord, dicebot: DiceBot, command: str, options: dict[str, object]
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    assert not (await character(fake_discord, dicebot)).rolled
    passive = await fake_discord.invoke("sixpool passive", {"pool": "DEX"}, user="player")
    assert not passive.ephemeral and not (await character(fake_discord, dicebot)).rolled
    rolled = await fake_discord.invoke(command, options, user="player")
    assert not rolled.ephemeral, rolled.content
    assert (await character(fake_discord, dicebot)).rolled


async def test_owner_sets_before_the_first_roll_and_a_gm_after_it_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    own = await set_sheet(fake_discord, {"level": 3, "pool": "DEX", "edge": 1})
    assert not own.ephemeral and own.content == "✏️ **Rin**: level 1 → 3, DEX Edge 0 → 1."
    same = await set_sheet(fake_discord, {"level": 3})
    assert same.ephemeral and "nothing to change" in same.content
    checked = await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 10}, user="player")
    assert not checked.ephemeral, checked.content
    late = await set_sheet(fake_discord, {"skill": "Stealth", "training": "expert"})
    assert late.ephemeral and late.content == (
        f"{REFUSED}**Rin** has rolled, so its sheet is a GM's to change now (within the rails), "
        f"and the table hears each change. GMs are {mention(fake_discord, 'gm')} (founder) and "
        "members with Manage Server: ask one of them."
    )
    assert (await character(fake_discord, dicebot)).sheet.skills == {}
    by_gm = await set_sheet(
        fake_discord, {"skill": "Stealth", "training": "expert", "character": "rin"}, "gm"
    )
    assert not by_gm.ephemeral
    assert by_gm.content == "✏️ GM changed **Rin**: stealth untrained → expert."
    shrunk = await set_sheet(fake_discord, {"pool": "DEX", "maximum": 5, "character": "Rin"}, "gm")
    assert shrunk.content == "✏️ GM changed **Rin**: DEX maximum 8 → 5, DEX points 8 → 5."
    await create(fake_discord, "Ysolde", user="admin")
    other = await set_sheet(fake_discord, {"level": 2, "character": "Ysolde"})
    assert other.ephemeral
    assert other.content.startswith(f"{REFUSED}Only a GM can edit another player's character.")


# --- rename, delete, give


async def test_sixpool_rename_by_the_owner_or_a_gm_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await create(fake_discord, "Ysolde", user="admin")
    renamed = await fake_discord.invoke(
        "sixpool character rename", {"new_name": "Rin the Quiet"}, user="player"
    )
    assert not renamed.ephemeral and renamed.content == (
        f"✏️ **Rin** is now called **Rin the Quiet** (renamed by {mention(fake_discord, 'player')})."
    )
    taken = await fake_discord.invoke(
        "sixpool character rename", {"new_name": "ysolde"}, user="player"
    )
    assert taken.ephemeral and "already a character called **ysolde**" in taken.content
    not_theirs = await fake_discord.invoke(
        "sixpool character rename", {"new_name": "Yso", "character": "Ysolde"}, user="player"
    )
    assert not_theirs.ephemeral and "Only a GM can rename another player's" in not_theirs.content
    by_gm = await fake_discord.invoke(
        "sixpool character rename", {"new_name": "Yso", "character": "Ysolde"}, user="gm"
    )
    assert "**Ysolde** is now called **Yso**" in by_gm.content
    assert await names(fake_discord, dicebot) == ["Rin the Quiet", "Yso"]


async def test_sixpool_delete_asks_and_deletes_once_confirmed(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    await fake_discord.invoke("sixpool check", {"pool": "DEX", "dc": 10}, user="player")
    prompt = await fake_discord.invoke("sixpool character delete", {}, user="player")
    assert prompt.ephemeral and "Delete **Rin**?" in prompt.content
    delete_button, keep_button = prompt.original.custom_ids()
    kept = await fake_discord.click(prompt, keep_button, user="player")
    assert kept.content == "Kept: nothing was deleted."
    assert await names(fake_discord, dicebot) == ["Rin"]
    again = await fake_discord.invoke("sixpool character delete", {}, user="player")
    delete_button, _ = again.original.custom_ids()
    deleted = await fake_discord.click(again, delete_button, user="player")
    assert deleted.content == "Deleted." and deleted.components == []
    [announced] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announced["content"] == (
        f"🗑️ **Rin** was deleted by {mention(fake_discord, 'player')}. Its rolls stay in "
        "`/campaign log` under its name."
    )
    assert await names(fake_discord, dicebot) == []
    log = await fake_discord.invoke("campaign log", {}, user="player")
    assert log.embeds[0]["description"].startswith("`#1` · ")


async def test_sixpool_give_is_a_gms_and_refused_at_the_limit(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    give = {"character": "Rin", "user": fake_discord.users["admin"]}
    by_player = await fake_discord.invoke("sixpool character give", give, user="player")
    assert by_player.ephemeral
    assert by_player.content.startswith(
        f"{REFUSED}Only a GM can give a character to another player."
    )
    given = await fake_discord.invoke("sixpool character give", give, user="gm")
    assert not given.ephemeral and given.content == (
        f"🤝 {mention(fake_discord, 'gm')} gave **Rin** from {mention(fake_discord, 'player')} "
        f"to {mention(fake_discord, 'admin')}."
    )
    assert (await character(fake_discord, dicebot)).user_id == fake_discord.users["admin"].id
    await create(fake_discord, "Ysolde")
    full = await fake_discord.invoke(
        "sixpool character give",
        {"character": "Ysolde", "user": fake_discord.users["admin"]},
        user="gm",
    )
    assert full.ephemeral and full.content == (
        f"{REFUSED}{mention(fake_discord, 'admin')} already has 1 character in this campaign, "
        "the most this system allows: `/sixpool character set` fixes a sheet, "
        "`/sixpool character delete` frees the place."
    )
    ysolde = await character(fake_discord, dicebot, "Ysolde")
    assert ysolde.user_id == fake_discord.users["player"].id


# --- concurrency: N at once end as one at a time


async def test_concurrent_sixpool_renames_and_gives_end_as_one_at_a_time(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    await create(fake_discord)
    renames = await asyncio.gather(
        *(
            fake_discord.send("sixpool character rename", {"new_name": "Grimm"}, user="player")
            for _ in range(N)
        )
    )
    await fake_discord.wait_answered(renames)
    landed = [reply for reply in renames if not reply.content.startswith(REFUSED)]
    assert len(landed) == 1 and "**Rin** is now called **Grimm**" in landed[0].content
    assert await names(fake_discord, dicebot) == ["Grimm"]
    give = {"character": "Grimm", "user": fake_discord.users["admin"]}
    gives = await asyncio.gather(
        *(fake_discord.send("sixpool character give", give, user="gm") for _ in range(N))
    )
    await fake_discord.wait_answered(gives)
    given = [reply for reply in gives if not reply.content.startswith(REFUSED)]
    assert len(given) == 1
    refused = [reply for reply in gives if reply.content.startswith(REFUSED)]
    assert all("is <@" in reply.content and "already" in reply.content for reply in refused)
    grimm = await character(fake_discord, dicebot, "Grimm")
    assert grimm.user_id == fake_discord.users["admin"].id


# --- the character limit names the next steps, per system


@pytest.mark.parametrize(
    ("system", "edit"), [("sinew", "character edit"), ("aethelgard", "character edit")]
)
async def test_too_many_characters_names_the_edit_and_delete_commands(
    fake_discord: FakeDiscord, dicebot: DiceBot, system: str, edit: str
) -> None:
    if system == "sinew":
        await test_sinew.start_sinew(fake_discord)
        await test_sinew.create(fake_discord, "Brakka")
        twice = await test_sinew.create(fake_discord, "Other")
    else:
        await test_aethelgard.start_campaign(fake_discord)
        await test_aethelgard.create(fake_discord)
        options = {"name": "Other", "might": 4, "finesse": 6, "wits": 8, "will": 5,
                   "sturdiness": 3}  # fmt: skip
        twice = await fake_discord.invoke("aethelgard character create", options, user="player")
    assert twice.ephemeral and twice.content == (
        f"{REFUSED}{mention(fake_discord, 'player')} already has 1 character in this campaign, "
        f"the most this system allows: `/{system} {edit}` fixes a sheet, "
        f"`/{system} character delete` frees the place."
    )


# --- a Sinew Luck spend on a roll made before its character was renamed


async def test_gm_luck_spend_after_a_rename_finds_the_renamed_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await test_sinew.start_sinew(fake_discord)
    await test_sinew.create(fake_discord, "Brakka")  # STR 12, 10 tokens
    seed = test_sinew.seed_where(lambda r: not r.success and not r.natural_twenty, 12)
    dicebot.rng = new_rng(seed)
    tested = await fake_discord.invoke(
        "sinew test", {"attribute": "str", "character": "Brakka"}, user="gm"
    )
    assert not tested.ephemeral, tested.content
    renamed = await fake_discord.invoke(
        "sinew character rename", {"new_name": "Grimm", "character": "Brakka"}, user="gm"
    )
    assert not renamed.ephemeral, renamed.content
    spent = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="gm")
    assert not spent.content.startswith(REFUSED), spent.content
    grimm = await test_sinew.character(fake_discord, dicebot, "Grimm")
    assert grimm.sheet.luck_tokens == 9  # 10 tokens, 1 spent
