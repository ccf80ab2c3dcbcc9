"""Lists that grow with use, filled to their rules' limits with the longest names allowed: every
reply stays within Discord's limits (the fake refuses it otherwise) and ends with "…and N more"
when not everything fits, never cut mid-line.

The lists are filled through the bot's storage in one go (hundreds of commands would be slow);
each reply is asked for with its command, as a player would.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import discord
import pytest

from bot.client import DiceBot, create_bot
from bot.options import CHARACTER_NAME_MAX
from bot.render.sinew import MORE_BOONS, MORE_ITEMS
from bot.storage import Campaign, CharacterStore
from bot.storage.macros import MACROS_PER_OWNER, MacroStore
from bot.storage.sixpool import TrainedOnlyStore
from cogs.aethelgard import SHEET_CODEC as AETHELGARD_CODEC
from cogs.macros import MACRO_NAME_MAX, MORE_MACROS
from cogs.sixpool import SHEET_CODEC as SIXPOOL_CODEC
from rules import aethelgard, sinew, sixpool
from rules.expressions import MAX_EXPRESSION_LENGTH, MAX_SETS
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings, sync_as_the_first_start_did
from tests.e2e.test_sinew import BALANCED, BALANCED_SHEET
from tests.e2e.test_sinew_pressure import d6_seed
from tests.fakediscord import payloads
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

DESCRIPTION_MAX, FIELD_MAX, CONTENT_MAX = 4_096, 1_024, 2_000
ROLE_NAME_MAX = 100  # Discord's
MORE = re.compile(r"…and (\d+) (.+)")
FIRST_USER_ID = 10**18  # ids as long as Discord's: their mentions take room too


def counted(text: str, more: str, *, sep: str = "\n") -> tuple[list[str], int]:
    """Split a list that ends with "…and N <more>" into what it shows and N (the list must
    end so: everything fitting would be a test of nothing)."""
    *shown, last = text.split(sep)
    found = MORE.fullmatch(last)
    assert found is not None and found[2] == more, last
    return shown, int(found[1])


def long_name(number: int, length: int, fill: str = "x") -> str:
    """A distinct name of exactly ``length`` characters, numbered so its order is known."""
    return f"{number:02d} " + fill * (length - 3)


async def start(fake: FakeDiscord, bot: DiceBot, system: str) -> Campaign:
    reply = await fake.invoke("campaign start", {"system": system, "name": "Sprawl"}, user="gm")
    assert not reply.ephemeral, reply.content
    campaign = await bot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    return campaign


async def test_macro_list_shows_what_fits_of_a_hundred_macros_then_counts_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "cosmos")
    macros = MacroStore(dicebot.storage.database)
    roll = "+".join(["1d6"] * ((MAX_EXPRESSION_LENGTH + 1) // 4))  # 199 characters
    player = fake_discord.users["player"].id
    for number in range(MACROS_PER_OWNER):  # the most a player and a campaign may each have
        name = long_name(number, MACRO_NAME_MAX)
        await macros.save(name, roll, user_id=player, campaign_id=None)
        await macros.save(name + "!", roll, user_id=None, campaign_id=campaign.id)
    reply = await fake_discord.invoke("macro list", {}, user="player")
    assert reply.ephemeral
    description = reply.embeds[0]["description"]
    assert len(description) <= DESCRIPTION_MAX
    shown, more = counted(description, MORE_MACROS)
    assert len(shown) + more == 2 * MACROS_PER_OWNER and len(shown) >= 10
    assert all(line.endswith(f"`{roll}`") for line in shown)  # each line whole


async def test_campaign_info_counts_the_gms_characters_and_tracks_past_a_field(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "sinew")
    gm = fake_discord.users["gm"].id
    co_gms = 60
    for number in range(co_gms):
        campaign = await dicebot.storage.campaigns.add_gm(campaign, FIRST_USER_ID + number, gm)
    store = CharacterStore(dicebot.storage.database, sinew.SHEET_CODEC)
    characters = 40  # one a player: as many as the channel has players
    for number in range(characters):
        name = long_name(number, CHARACTER_NAME_MAX)
        created = await store.create(campaign, FIRST_USER_ID + number, name, BALANCED_SHEET)
        await dicebot.storage.tracks.change(campaign, "pressure", 1, character_id=created.id)
    tracks = len(await dicebot.storage.campaigns.tracks(campaign))
    reply = await fake_discord.invoke("campaign info", {}, user="player")
    fields = {field["name"]: field["value"] for field in reply.embeds[0]["fields"]}
    assert all(len(value) <= FIELD_MAX for value in fields.values())
    gms, more_gms = counted(fields["GMs"], "more co-GMs", sep=", ")
    assert gms[0] == f"<@{gm}> (founder)" and len(gms) - 1 + more_gms == co_gms
    assert all(re.fullmatch(r"<@\d+>", mention) for mention in gms[1:])  # no mention cut
    listed, more_characters = counted(fields["Characters"], "more characters")
    assert len(listed) + more_characters == characters
    assert listed[0] == f"{long_name(0, CHARACTER_NAME_MAX)} (<@{FIRST_USER_ID}>)"
    track_lines, more_tracks = counted(fields["Tracks"], "more tracks")
    assert len(track_lines) + more_tracks == tracks >= characters


async def test_sinew_items_and_boons_at_their_caps_count_what_a_reply_leaves_out(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "sinew")
    name = long_name(0, CHARACTER_NAME_MAX)
    created = await fake_discord.invoke(
        "sinew character create", {"name": name, **BALANCED}, user="player"
    )
    assert not created.ephemeral, created.content
    store = CharacterStore(dicebot.storage.database, sinew.SHEET_CODEC)
    character = await store.find(campaign, name=name)
    # Markup characters show escaped: each name takes twice its length in the reply.
    items = tuple(long_name(n, sinew.ITEM_NAME_MAX, "_") for n in range(sinew.ITEMS_MAX))
    boons = tuple(long_name(n, sinew.BOON_TEXT_MAX, "*") for n in range(sinew.BOONS_MAX - 1))
    await store.update(character, lambda sheet: replace(sheet, items=items, boons=boons))

    sheet = await fake_discord.invoke("sinew character sheet", {}, user="player")
    fields = {field["name"].split(" ")[0]: field["value"] for field in sheet.embeds[0]["fields"]}
    shown_items, more_items = counted(fields["Items"], MORE_ITEMS, sep=", ")
    assert len(shown_items) + more_items == sinew.ITEMS_MAX
    assert shown_items[0] == "00 " + "\\_" * (sinew.ITEM_NAME_MAX - 3)
    shown_boons, more_boons = counted(fields["Boons"], MORE_BOONS)
    assert len(shown_boons) + more_boons == sinew.BOONS_MAX - 1 and shown_boons[0].startswith("1. ")

    listed = await fake_discord.invoke("sinew item list", {}, user="player")
    description = listed.embeds[0]["description"]
    assert description.startswith(f"Carrying {sinew.ITEMS_MAX}: ")
    carried, more = counted(description.split(": ", 1)[1], "more items", sep=", ")
    assert len(carried) + more == sinew.ITEMS_MAX and more < more_items

    gained = await fake_discord.invoke(
        "sinew boon add", {"text": "*" * sinew.BOON_TEXT_MAX}, user="player"
    )
    assert not gained.ephemeral, gained.content
    head, *lines = gained.embeds[0]["description"].split("\n")
    assert head == "Boons:"
    shown, more = counted("\n".join(lines), "more boons")
    assert len(shown) + more == sinew.BOONS_MAX
    assert [line.split(".")[0] for line in shown] == [str(n) for n in range(1, len(shown) + 1)]


async def test_aethelgard_sheet_counts_the_skills_past_its_field(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "aethelgard")
    attributes = {"might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3}
    created = await fake_discord.invoke(
        "aethelgard character create", {"name": "Ysolde", **attributes}, user="player"
    )
    assert not created.ephemeral, created.content
    store = CharacterStore(dicebot.storage.database, AETHELGARD_CODEC)
    character = await store.find(campaign, name="Ysolde")
    skills = {
        long_name(n, aethelgard.SKILL_NAME_MAX): aethelgard.RANK_MAX
        for n in range(aethelgard.SKILLS_MAX)
    }
    await store.update(character, lambda sheet: replace(sheet, skills=skills))
    sheet = await fake_discord.invoke("aethelgard character sheet", {}, user="player")
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    shown, more = counted(fields["Skills"], "more skills")
    assert len(shown) + more == aethelgard.SKILLS_MAX
    assert shown == [f"{name} {aethelgard.RANK_MAX}" for name in list(skills)[: len(shown)]]


async def test_sixpool_sheet_skills_trained_only_list_and_rest_count_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "sixpool")
    pools = {"str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}
    options = {"name": "Rin", "level": 1, "primary": "DEX", **pools}
    created = await fake_discord.invoke("sixpool character create", options, user="player")
    assert not created.ephemeral, created.content
    store = CharacterStore(dicebot.storage.database, SIXPOOL_CODEC)
    rin = await store.find(campaign, name="Rin")
    names = [long_name(n, sixpool.SKILL_NAME_MAX) for n in range(sixpool.SKILLS_MAX)]
    skills = dict.fromkeys(names, sixpool.Training.MASTER)
    await store.update(rin, lambda sheet: replace(sheet, skills=skills))

    sheet = await fake_discord.invoke("sixpool character sheet", {}, user="player")
    fields = {field["name"]: field["value"] for field in sheet.embeds[0]["fields"]}
    shown, more = counted(fields["Skills"], "more skills", sep=", ")
    assert len(shown) + more == sixpool.SKILLS_MAX
    assert shown == [f"{name} (master)" for name in names[: len(shown)]]

    trained_only = TrainedOnlyStore(dicebot.storage.database)
    listed_count = 120  # a GM may list as many as they like
    for number in range(listed_count):
        await trained_only.set(campaign, long_name(number, sixpool.SKILL_NAME_MAX), True)
    reply = await fake_discord.invoke("sixpool trained_only", {}, user="player")
    description = reply.embeds[0]["description"]
    assert len(description) <= DESCRIPTION_MAX
    names_text, rule = description.split("\n\n")
    assert rule.startswith("An untrained check in one of these is refused")
    shown, more = counted(names_text, "more trained-only skills", sep=", ")
    assert len(shown) + more == listed_count

    sheet_of_rin = rin.sheet
    characters = 80  # one a player
    for number in range(1, characters):
        name = long_name(number, CHARACTER_NAME_MAX)
        await store.create(campaign, FIRST_USER_ID + number, name, sheet_of_rin)
    rested = await fake_discord.invoke("sixpool rest", {}, user="gm")
    assert not rested.ephemeral, rested.content
    shown, more = counted(rested.embeds[0]["description"], "more characters", sep=", ")
    assert len(shown) + more == characters


async def test_sinew_pressure_board_and_a_party_crisis_count_every_character(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await start(fake_discord, dicebot, "sinew")
    store = CharacterStore(dicebot.storage.database, sinew.SHEET_CODEC)
    characters = 40
    for number in range(characters):  # STA 5: a Crisis's 1 Stamina collapses nobody
        name = long_name(number, CHARACTER_NAME_MAX)
        await store.create(campaign, FIRST_USER_ID + number, name, BALANCED_SHEET)
    board = await fake_discord.invoke("sinew pressure show", {}, user="player")
    fields = {field["name"]: field["value"] for field in board.embeds[0]["fields"]}
    shown, more = counted(fields["Characters"], "more characters")
    assert len(shown) + more == characters

    await fake_discord.invoke("sinew pressure add", {"amount": 4}, user="gm")
    dicebot.rng = new_rng(d6_seed(2))  # event 2: every character loses 1 Stamina
    await fake_discord.invoke("sinew pressure add", {"amount": 1}, user="gm")
    posted = await fake_discord.wait_channel_messages(fake_discord.channel_id, 3)
    [crisis] = [
        embed
        for message in posted
        for embed in message.get("embeds", [])
        if embed.get("title", "").startswith("💥 CRISIS")
    ]
    fields = {field["name"]: field["value"] for field in crisis["fields"]}
    struck = fields["Struck"].removeprefix("Every character: ")
    names, more = counted(struck, "more", sep=", ")
    assert len(names) + more == characters
    lost, more = counted(fields["Stamina lost"], "more characters")
    assert len(lost) + more == characters
    assert lost[0] == f"{long_name(0, CHARACTER_NAME_MAX)}: Stamina 5 → **4**"


# Four rolls of twenty labelled sets, as long as `/roll` takes: 80 lines and 80 totals.
MANY_SETS = "; ".join(f"{MAX_SETS} 12d10 ! {letter * 34}" for letter in "abcd")


async def test_roll_of_eighty_labelled_sets_lists_what_fits_then_counts_the_rest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    assert len(MANY_SETS) <= MAX_EXPRESSION_LENGTH
    reply = await fake_discord.invoke("roll", {"expression": MANY_SETS}, user="player")
    assert not reply.ephemeral, reply.content
    embed = reply.embeds[0]
    lines, more = counted(embed["description"].removeprefix("🎲 "), "more rolls")
    assert len(lines) + more == 4 * MAX_SETS
    assert all(re.search(r" = \*\*\d+\*\*", line) for line in lines)  # each line whole
    # Each line shown ends with its own total: no field restates them (issue 53).
    assert "fields" not in embed and embed["title"].endswith(f" · {4 * MAX_SETS} rolls")
    logged = await dicebot.storage.rolls.get(int(embed["footer"]["text"].removeprefix("Roll #")))
    assert logged is not None
    totals = [roll["total"] for part in logged.payload["result"]["rolls"] for roll in part]
    shown = [int(re.findall(r" = \*\*(\d+)\*\*", line)[-1]) for line in lines]
    assert shown == totals[: len(lines)]


async def test_campaign_log_page_of_25_long_rolls_keeps_every_line_whole(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, dicebot, "cosmos")
    page = 25
    for _ in range(page):
        rolled = await fake_discord.invoke("roll", {"expression": MANY_SETS}, user="player")
        assert not rolled.ephemeral, rolled.content
    reply = await fake_discord.invoke("campaign log", {"limit": page}, user="player")
    description = reply.embeds[0]["description"]
    assert len(description) <= DESCRIPTION_MAX
    lines = description.split("\n")
    assert len(lines) == page
    player = fake_discord.users["player"].id
    for line in lines:  # its id, roller and what was rolled (cut), then four totals and a count
        assert re.fullmatch(rf"`#\d+` · <@{player}> · .+ → (\*\*\d+\*\*, ){{4}}…and 76 more", line)


async def test_gm_log_channel_many_roles_can_read_is_refused_or_left_within_a_message(
    fake_discord: FakeDiscord, migrated_sqlite: Path
) -> None:
    fake = fake_discord
    count = 30  # roles (up to 100 characters each) a server lets read a channel
    names = [long_name(n, ROLE_NAME_MAX, "r") for n in range(count)]
    roles = [fake.add_role(name, payloads.EVERYONE_PERMISSIONS) for name in names]
    overwrites = [
        payloads.overwrite(fake.guild_id, deny=payloads.VIEW_CHANNEL),
        *(payloads.overwrite(role, allow=payloads.VIEW_CHANNEL) for role in roles),
    ]
    open_to_roles = fake.add_text_channel("roles", overwrites)
    bot = create_bot(bot_settings(fake, migrated_sqlite), rng=new_rng(DICE_SEED))
    sync_as_the_first_start_did(bot, fake)

    def readers(message: str, before: str) -> list[str]:
        assert len(message) <= CONTENT_MAX
        listed = message.split(before, 1)[1].split(", who aren't GMs", 1)[0]
        shown, more = counted(listed, "more roles and members", sep=", ")
        assert len(shown) + more == count
        assert shown == [f"the role {name}" for name in names[: len(shown)]]
        return shown

    async with run_bot(fake, bot):
        await fake.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"})
        refused = await fake.invoke("campaign settings", {"gm_channel": open_to_roles})
        assert refused.ephemeral and refused.content.endswith("or make them GMs.")  # not cut
        readers(refused.content, " can be read by ")
        # A channel only GMs read, opened to the roles later: a secret roll tells the GM.
        gm_log = fake.gm_log_channel_id
        await fake.invoke("campaign settings", {"gm_channel": gm_log})
        await fake.set_overwrites(gm_log, overwrites)
        channel = bot.get_channel(gm_log)
        assert isinstance(channel, discord.TextChannel)
        await fake.wait_until(
            lambda: len(channel.overwrites) == len(overwrites), "the bot to see the overwrites"
        )
        rolled = await fake.invoke("roll", {"expression": "1d20", "hidden": True})
        await fake.wait_until(lambda: not bot.in_flight, "the bot to settle")
        [notice] = [message.content for message in rolled.followups]
        readers(notice, " can now be read by ")
        assert fake.channel_messages(gm_log) == []
