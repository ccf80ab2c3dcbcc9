"""Characters that forgive mistakes, end to end (docs/players/sinew.md and
docs/players/aethelgard.md, "Characters forgive mistakes"): `/sinew` and `/aethelgard`
`character edit|rename|delete|give`, and refusals that name the next step."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

import pytest
from discord import app_commands

from bot import character_admin
from bot.character_admin import CONFIRM_TIMEOUT_SECONDS
from bot.client import DiceBot
from bot.storage import CharacterStore
from cogs.aethelgard import SHEET_CODEC as AETHELGARD_CODEC
from cogs.sinew import SinewCog
from tests.e2e.test_aethelgard import start_campaign as start_aethelgard
from tests.e2e.test_sinew import campaign_of, character, create, start_sinew, store
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

REFUSED = "❌ "
N = 40  # concurrent presses or commands


def mention(fake: FakeDiscord, user: str) -> str:
    return f"<@{fake.users[user].id}>"


async def edit(fake: FakeDiscord, options: dict[str, Any], user: str = "player") -> Reply:
    return await fake.invoke("sinew character edit", options, user=user)


async def rolled_once(fake: FakeDiscord, user: str = "player") -> None:
    tested = await fake.invoke("sinew test", {"attribute": "str"}, user=user)
    assert not tested.ephemeral, tested.content


# --- edit


async def test_owner_edits_a_sheet_within_the_ledger_before_the_first_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")  # STR 12, REF 11, INT 7, EMP 7, LCK 10, STA 5
    # STR 13 owes 2 more; INT 6 and EMP 6 pay them.
    edited = await edit(fake_discord, {"str": 13, "int": 6, "emp": 6})
    assert not edited.ephemeral
    assert edited.content == "✏️ **Brakka**: STR 12 → 13, INT 7 → 6, EMP 7 → 6."
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert (sheet.strength, sheet.intellect, sheet.empathy) == (13, 6, 6)
    # REF 12 alone: +5 owes 10, paid 8. REF back to 11 or STR to 12 (1 point each) balance it,
    # or LCK 10 → 8 (2 points).
    refused = await edit(fake_discord, {"ref": 12})
    assert refused.ephemeral
    assert "To balance it: lower STR to 12, or REF to 11, or LCK to 8." in refused.content
    assert "Total: +5 gained owes 10; paid 8 (2 short)." in refused.content.splitlines()
    assert (await character(fake_discord, dicebot, "Brakka")).sheet == sheet


async def test_owner_edit_is_refused_after_the_first_roll_naming_the_gms(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    before = await character(fake_discord, dicebot, "Brakka")
    assert not before.rolled
    await rolled_once(fake_discord)
    assert (await character(fake_discord, dicebot, "Brakka")).rolled
    refused = await edit(fake_discord, {"str": 13, "int": 6, "emp": 6})
    assert refused.ephemeral and refused.content == (
        f"{REFUSED}**Brakka** has rolled, so its sheet is a GM's to change now (within the "
        f"rails), and the table hears each change. GMs are {mention(fake_discord, 'gm')} "
        "(founder) and members with Manage Server: ask one of them."
    )
    assert (await character(fake_discord, dicebot, "Brakka")).sheet == before.sheet


async def test_gm_edit_after_the_first_roll_keeps_the_rails_and_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await rolled_once(fake_discord)
    # Off the ledger (+5 owes 10, paid 6): a GM's edit keeps the rails only.
    changed = await edit(fake_discord, {"str": 13, "ref": 12, "character": "brakka"}, "gm")
    assert not changed.ephemeral
    assert changed.content == "✏️ GM changed **Brakka**: STR 12 → 13, REF 11 → 12."
    sheet = (await character(fake_discord, dicebot, "Brakka")).sheet
    assert (sheet.strength, sheet.reflex) == (13, 12)
    # The same edit again changes nothing, and says so.
    again = await edit(fake_discord, {"str": 13, "character": "Brakka"}, "gm")
    assert again.ephemeral and "nothing to change" in again.content
    # A player can't edit another's character, and is told whom to ask.
    await create(fake_discord, "Ysolde", user="admin")
    other = await edit(fake_discord, {"str": 11, "character": "Ysolde"}, "player")
    assert other.ephemeral and other.content.startswith(
        f"{REFUSED}Only a GM can edit another player's character. GMs are "
        f"{mention(fake_discord, 'gm')} (founder)"
    )


async def test_aethelgard_edit_reads_skills_as_typed_and_locks_at_the_first_check(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_aethelgard(fake_discord)
    options = {
        "name": "Ysolde", "might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3,
        "skills": "athletics 2 melee 3",
    }  # fmt: skip
    created = await fake_discord.invoke("aethelgard character create", options, user="player")
    assert not created.ephemeral, created.content
    aethelgard = CharacterStore(dicebot.storage.database, AETHELGARD_CODEC)
    campaign = await campaign_of(fake_discord, dicebot)
    ysolde = await aethelgard.find(campaign, name="Ysolde")
    assert ysolde.sheet.skills == {"Athletics": 2, "Melee": 3}
    edited = await fake_discord.invoke(
        "aethelgard character edit", {"wits": 9, "skills": "Melee:4; acrobatic 1"}, user="player"
    )
    assert edited.ephemeral and "did you mean Acrobatics?" in edited.content
    edited = await fake_discord.invoke(
        "aethelgard character edit", {"wits": 9, "skills": "Melee:4, athletics 0"}, user="player"
    )
    assert edited.content == "✏️ **Ysolde**: WITS 8 → 9, Athletics 2 → —, Melee 3 → 4."
    checked = await fake_discord.invoke("aethelgard check", {"attribute": "WITS"}, user="player")
    assert not checked.ephemeral, checked.content
    late = await fake_discord.invoke("aethelgard character edit", {"wits": 10}, user="player")
    assert late.ephemeral and "**Ysolde** has rolled" in late.content
    by_gm = await fake_discord.invoke(
        "aethelgard character edit", {"wits": 10, "character": "Ysolde"}, user="gm"
    )
    assert by_gm.content == "✏️ GM changed **Ysolde**: WITS 9 → 10."
    assert (await aethelgard.find(campaign, name="Ysolde")).sheet.attributes["WITS"] == 10


async def test_concurrent_owner_edits_land_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Serially the first edit lands and every later one changes nothing (refused).
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    options = {"str": 13, "int": 6, "emp": 6}
    replies = await asyncio.gather(
        *(fake_discord.send("sinew character edit", options, user="player") for _ in range(N))
    )
    await fake_discord.wait_answered(replies)
    landed = [reply for reply in replies if not reply.content.startswith(REFUSED)]
    assert [reply.content for reply in landed] == [
        "✏️ **Brakka**: STR 12 → 13, INT 7 → 6, EMP 7 → 6."
    ]
    refused = [reply for reply in replies if reply.content.startswith(REFUSED)]
    assert len(refused) == N - 1 and all("nothing to change" in r.content for r in refused)


# --- rename


async def test_rename_by_the_owner_or_a_gm_keeps_names_unique_and_is_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await create(fake_discord, "Ysolde", user="admin")
    renamed = await fake_discord.invoke(
        "sinew character rename", {"new_name": "Brakka the Bold"}, user="player"
    )
    assert not renamed.ephemeral and renamed.content == (
        "✏️ **Brakka** is now called **Brakka the Bold** "
        f"(renamed by {mention(fake_discord, 'player')})."
    )
    taken = await fake_discord.invoke(
        "sinew character rename", {"new_name": "YSOLDE"}, user="player"
    )
    assert taken.ephemeral and taken.content == (
        f"{REFUSED}There is already a character called **YSOLDE** in this campaign; "
        "choose another name."
    )
    not_theirs = await fake_discord.invoke(
        "sinew character rename", {"new_name": "Yso", "character": "Ysolde"}, user="player"
    )
    assert not_theirs.ephemeral and "Only a GM can rename another player's" in not_theirs.content
    by_gm = await fake_discord.invoke(
        "sinew character rename", {"new_name": "Yso", "character": "ysolde"}, user="gm"
    )
    assert not by_gm.ephemeral and "**Ysolde** is now called **Yso**" in by_gm.content
    names = [c.name for c in await store(dicebot).all(await campaign_of(fake_discord, dicebot))]
    assert names == ["Brakka the Bold", "Yso"]


async def test_concurrent_renames_to_one_name_rename_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    options = {"new_name": "Grimm"}
    replies = await asyncio.gather(
        *(fake_discord.send("sinew character rename", options, user="player") for _ in range(N))
    )
    await fake_discord.wait_answered(replies)
    landed = [reply for reply in replies if not reply.content.startswith(REFUSED)]
    assert len(landed) == 1 and "**Brakka** is now called **Grimm**" in landed[0].content
    assert (await character(fake_discord, dicebot, "Grimm")).name == "Grimm"


# --- delete


async def ask_to_delete(fake: FakeDiscord, user: str = "player", **options: str) -> Reply:
    prompt = await fake.invoke("sinew character delete", options, user=user)
    assert prompt.ephemeral and "Delete **Brakka**?" in prompt.content, prompt.content
    return prompt


async def test_delete_after_confirming_keeps_the_rolls_in_the_log_under_the_old_name(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    await rolled_once(fake_discord)
    prompt = await ask_to_delete(fake_discord)
    delete_button, keep_button = prompt.original.custom_ids()
    other = await fake_discord.click(prompt, delete_button, user="gm")  # not who asked
    assert other.ephemeral and other.content == f"{REFUSED}Only who asked can confirm this."
    assert await store(dicebot).all(await campaign_of(fake_discord, dicebot)) != []
    deleted = await fake_discord.click(prompt, delete_button, user="player")
    assert deleted.content == "Deleted." and deleted.components == []
    [announced] = await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    assert announced["content"] == (
        f"🗑️ **Brakka** was deleted by {mention(fake_discord, 'player')}. Its rolls stay in "
        "`/campaign log` under its name."
    )
    assert await store(dicebot).all(await campaign_of(fake_discord, dicebot)) == []
    log = await fake_discord.invoke("campaign log", {}, user="player")
    assert log.embeds[0]["description"].startswith("`#1` · ")  # the roll stays
    exported = await fake_discord.invoke("campaign log", {"export": "json"}, user="gm")
    _, data = exported.attachments[0]
    assert "Brakka" in data.decode()  # under its name (its reply's title)
    # Its buttons went with the answer: a click from a client still showing them changes nothing.
    again = await fake_discord.click(prompt, keep_button, user="player", stale_client=True)
    assert again.content == f"{REFUSED}This button is no longer active."
    gone = await fake_discord.invoke("sinew character sheet", {}, user="player")
    assert gone.content == (
        f"{REFUSED}{mention(fake_discord, 'player')} has no character in this campaign yet: "
        "`/sinew character create`."
    )


async def test_keep_deletes_nothing_and_a_gm_may_delete_anyones(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    prompt = await ask_to_delete(fake_discord)
    _, keep_button = prompt.original.custom_ids()
    kept = await fake_discord.click(prompt, keep_button, user="player")
    assert kept.content == "Kept: nothing was deleted." and kept.components == []
    assert len(await store(dicebot).all(await campaign_of(fake_discord, dicebot))) == 1
    refused = await fake_discord.invoke(
        "sinew character delete", {"character": "Brakka"}, user="admin"
    )  # admin manages the server: a GM
    assert refused.ephemeral and "Delete **Brakka**?" in refused.content
    by_gm = await ask_to_delete(fake_discord, "gm", character="Brakka")
    delete_button, _ = by_gm.original.custom_ids()
    await fake_discord.click(by_gm, delete_button, user="gm")
    assert await store(dicebot).all(await campaign_of(fake_discord, dicebot)) == []


async def test_a_delete_prompt_expires_and_a_late_click_deletes_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    # A click past the deadline (its expiry lost with a restart, say) deletes nothing.
    prompt = await ask_to_delete(fake_discord)
    delete_button, _ = prompt.original.custom_ids()
    deadline = int(delete_button.rsplit(":", 1)[1])
    assert 0 < deadline - time.time() <= CONFIRM_TIMEOUT_SECONDS + 1
    cog = dicebot.get_cog("SinewCog")
    assert isinstance(cog, SinewCog)
    await fake_discord.wait_until(lambda: not dicebot.in_flight, "the prompt's expiry to start")
    cog.admin.close()  # as a restart loses the expiry; the deadline in the buttons holds
    monkeypatch.setattr(character_admin, "time", SimpleNamespace(time=lambda: deadline + 1.0))
    late = await fake_discord.click(prompt, delete_button, user="player")
    assert late.content == "No answer in time: nothing was deleted. Ask again to delete it."
    assert late.components == []
    monkeypatch.undo()
    # Unanswered until its deadline, the prompt loses its buttons by itself.
    monkeypatch.setattr(character_admin, "CONFIRM_TIMEOUT_SECONDS", 0)
    unanswered = await ask_to_delete(fake_discord)
    await fake_discord.wait_until(lambda: unanswered.components == [], "the prompt to expire")
    assert unanswered.content == "No answer in time: nothing was deleted. Ask again to delete it."
    assert len(await store(dicebot).all(await campaign_of(fake_discord, dicebot))) == 1


async def test_many_clicks_on_one_delete_prompt_delete_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    prompt = await ask_to_delete(fake_discord)
    delete_button, keep_button = prompt.original.custom_ids()
    buttons = [delete_button, keep_button]
    replies = await asyncio.gather(
        *(fake_discord.click(prompt, buttons[n % 2], user="player") for n in range(10))
    )
    told = [reply.content for reply in replies if reply.content.startswith(REFUSED)]
    assert len(told) == 9  # one answer; the others are told what it was
    left = await store(dicebot).all(await campaign_of(fake_discord, dicebot))
    answer = "deleted" if not left else "kept"
    assert told == [f"{REFUSED}This was already answered: the character was {answer}."] * 9


# --- give


async def test_give_is_a_gms_refused_for_a_player_and_for_a_player_at_the_maximum(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    by_player = await fake_discord.invoke(
        "sinew character give",
        {"character": "Brakka", "user": fake_discord.users["admin"]},
        user="player",
    )
    assert by_player.ephemeral and by_player.content == (
        f"{REFUSED}Only a GM can give a character to another player. GMs are "
        f"{mention(fake_discord, 'gm')} (founder) and members with Manage Server: ask one of "
        "them."
    )
    given = await fake_discord.invoke(
        "sinew character give", {"character": "brakka", "user": fake_discord.users["gm"]}, user="gm"
    )
    assert not given.ephemeral and given.content == (
        f"🤝 {mention(fake_discord, 'gm')} gave **Brakka** from "
        f"{mention(fake_discord, 'player')} to {mention(fake_discord, 'gm')}."
    )
    assert (await character(fake_discord, dicebot, "Brakka")).user_id == fake_discord.users["gm"].id
    await create(fake_discord, "Ysolde", user="player")
    full = await fake_discord.invoke(
        "sinew character give", {"character": "Ysolde", "user": fake_discord.users["gm"]}, user="gm"
    )
    assert full.ephemeral and full.content == (
        f"{REFUSED}{mention(fake_discord, 'gm')} already has 1 character in this campaign, the "
        "most this system allows: `/sinew character edit` fixes a sheet, `/sinew character "
        "delete` frees the place."
    )
    assert (await character(fake_discord, dicebot, "Ysolde")).user_id == fake_discord.users[
        "player"
    ].id


async def test_concurrent_gives_leave_one_owner(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    await create(fake_discord, "Brakka")
    options = {"character": "Brakka", "user": fake_discord.users["admin"]}
    replies = await asyncio.gather(
        *(fake_discord.send("sinew character give", options, user="gm") for _ in range(N))
    )
    await fake_discord.wait_answered(replies)
    landed = [reply for reply in replies if not reply.content.startswith(REFUSED)]
    assert len(landed) == 1
    assert (await character(fake_discord, dicebot, "Brakka")).user_id == fake_discord.users[
        "admin"
    ].id


# --- refusals name the next step


async def test_refusals_name_the_next_step(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    nowhere = await fake_discord.invoke("sinew character sheet", {}, user="player")
    assert nowhere.content == (
        f"{REFUSED}This channel has no running campaign; this needs a Sinew & Steel campaign. "
        "Start one with `/campaign start`."
    )
    await start_aethelgard(fake_discord)
    elsewhere = await fake_discord.invoke("sinew character sheet", {}, user="player")
    assert elsewhere.content.endswith(
        "this needs Sinew & Steel: use a channel running one, or start one with "
        "`/campaign start system:sinew` in a channel that has none."
    )
    none_yet = await fake_discord.invoke("aethelgard character sheet", {}, user="player")
    assert none_yet.content == (
        f"{REFUSED}{mention(fake_discord, 'player')} has no character in this campaign yet: "
        "`/aethelgard character create`."
    )
    no_one = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Nobody", "amount": 5}, user="gm"
    )
    assert no_one.content == (
        f"{REFUSED}There is no character called **Nobody** in this campaign; `/campaign info` "
        "lists its characters."
    )
    await fake_discord.invoke("campaign gm add", {"user": fake_discord.users["admin"]}, user="gm")
    not_gm = await fake_discord.invoke(
        "aethelgard stress add", {"character": "Nobody", "amount": 5}, user="player"
    )
    assert not_gm.content == (
        f"{REFUSED}Only a GM can change Psychic Stress. GMs are {mention(fake_discord, 'gm')} "
        f"(founder), {mention(fake_discord, 'admin')} and members with Manage Server: ask one "
        "of them."
    )


def test_sinew_create_options_state_the_ledgers_cost(dicebot: DiceBot) -> None:
    [create_command] = [
        command
        for command in dicebot.tree.walk_commands()
        if command.qualified_name == "sinew character create"
        and isinstance(command, app_commands.Command)
    ]
    described = {p.display_name: p.description for p in create_command.parameters}
    assert described["str"] == "Strength 6–16 (base 10); +1 above costs 2 below"
    assert described["lck"] == "Luck 6–16 (base 10, your token cap); +1 above costs 2 below"
    assert described["sta"] == "Stamina 3–9 (base 5); +1 above costs 2 below"
