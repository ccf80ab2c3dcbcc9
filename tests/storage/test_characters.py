"""The shared character model: created, found and changed through named operations."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import pytest

from bot.storage import Storage, Visibility
from bot.storage.characters import CharacterStore
from bot.storage.errors import (
    CharacterAlreadyTheirs,
    CharacterGone,
    CharacterNameTaken,
    CharacterNotFound,
    EndAnswer,
    EndPromptAnswered,
    TooManyCharacters,
    WhichCharacter,
)
from bot.storage.rolls import RollEntry
from rules import aethelgard
from rules.campaigns import CampaignSettings
from rules.declarations import SystemDeclaration
from rules.errors import RulesError
from rules.sheets import DataclassSheet
from rules.systems import System
from tests.storage.concurrency import fire, succeeded

CHANNEL = 5001
GM, ALICE, BOB = 1, 2, 3


@dataclass(frozen=True, slots=True)
class TokenSheet:
    """A sheet as a system would declare one: checked on every load and change."""

    tokens: int
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0 <= self.tokens <= 10:
            raise RulesError(f"Tokens must be between 0 and 10 (got {self.tokens}).")


def spend(amount: int):
    return lambda sheet: replace(sheet, tokens=sheet.tokens - amount)


@pytest.fixture
def characters(storage: Storage) -> CharacterStore[TokenSheet]:
    return CharacterStore(storage.database, DataclassSheet(TokenSheet))


async def campaign_of(storage: Storage, system: System = aethelgard.SYSTEM):
    return await storage.campaigns.start(
        guild_id=1,
        channel_id=CHANNEL,
        user_id=GM,
        settings=CampaignSettings.create(system, "Sheets"),
    )


async def test_create_and_find_a_players_only_character(storage, characters) -> None:
    campaign = await campaign_of(storage)
    created = await characters.create(campaign, ALICE, "Wren", TokenSheet(3, ("brave",)))
    found = await characters.find(campaign, user_id=ALICE)
    assert found == created
    assert found.sheet == TokenSheet(3, ("brave",))
    assert (await characters.find(campaign, name="wren")).id == created.id  # any case
    summaries = await storage.campaigns.characters(campaign)
    assert [(c.name, c.user_id) for c in summaries] == [("Wren", ALICE)]


async def test_one_character_per_player_unless_the_system_says_otherwise(
    storage, characters, monkeypatch: pytest.MonkeyPatch
) -> None:
    campaign = await campaign_of(storage)
    await characters.create(campaign, ALICE, "Wren", TokenSheet(3))
    with pytest.raises(TooManyCharacters):
        await characters.create(campaign, ALICE, "Second", TokenSheet(3))
    monkeypatch.setattr(
        "bot.storage.characters.declaration",
        lambda system: SystemDeclaration(system, characters_per_player=2),
    )
    await characters.create(campaign, ALICE, "Second", TokenSheet(3))
    with pytest.raises(WhichCharacter) as which:
        await characters.find(campaign, user_id=ALICE)
    assert which.value.names == ("Second", "Wren")
    assert (await characters.find(campaign, user_id=ALICE, name="second")).name == "Second"


async def test_names_are_unique_in_a_campaign_and_missing_ones_explained(
    storage, characters
) -> None:
    campaign = await campaign_of(storage)
    await characters.create(campaign, ALICE, "Wren", TokenSheet(3))
    with pytest.raises(CharacterNameTaken):
        await characters.create(campaign, BOB, "WREN", TokenSheet(3))
    with pytest.raises(CharacterNotFound) as none:
        await characters.find(campaign, user_id=BOB)
    assert none.value.name is None
    with pytest.raises(CharacterNotFound):
        await characters.find(campaign, user_id=BOB, name="Wren")  # Alice's, not Bob's


async def test_update_applies_the_rule_to_the_stored_sheet_and_logs_with_it(
    storage, characters
) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))

    def entry(after) -> RollEntry:
        return RollEntry(
            campaign.id, 1, CHANNEL, ALICE, "test", Visibility.PUBLIC, {"left": after.sheet.tokens}
        )

    changed = await characters.update(wren, spend(2), entry)
    assert (changed.before.sheet.tokens, changed.after.sheet.tokens) == (5, 3)
    logged = await storage.rolls.get(changed.roll_id)
    assert logged.payload == {"left": 3}
    # A rule that refuses changes nothing and logs nothing.
    with pytest.raises(RulesError):
        await characters.update(wren, spend(4), entry)
    assert (await characters.find(campaign, user_id=ALICE)).sheet.tokens == 3
    assert await storage.rolls.get(changed.roll_id + 1) is None


async def test_concurrent_spends_on_one_character_end_in_the_serial_result(
    storage, characters
) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(10))

    async def spend_one() -> bool:
        try:
            await characters.update(wren, spend(1))
        except RulesError:
            return False
        return True

    outcomes = await asyncio.gather(*(spend_one() for _ in range(40)))
    assert outcomes.count(True) == 10
    assert (await characters.find(campaign, user_id=ALICE)).sheet.tokens == 0


async def test_concurrent_creates_of_one_name_make_one_character(storage, characters) -> None:
    campaign = await campaign_of(storage)
    results = await asyncio.gather(
        *(characters.create(campaign, user, "Wren", TokenSheet(1)) for user in range(10, 30)),
        return_exceptions=True,
    )
    assert sum(not isinstance(result, Exception) for result in results) == 1
    assert all(isinstance(r, CharacterNameTaken) for r in results if isinstance(r, Exception))


async def test_a_stored_sheet_that_breaks_its_rules_is_refused_on_load(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(1))
    async with storage.database.transaction() as connection:
        await connection.execute(
            'UPDATE characters SET sheet = \'{"tokens": 1, "mood": "odd"}\' WHERE id = ?',
            (wren.id,),
        )
    with pytest.raises(ValueError, match="unknown sheet fields"):
        await characters.find(campaign, user_id=ALICE)


# --- Characters that forgive mistakes (docs/players/sinew.md, "Characters forgive mistakes")

N = 30


def anyone(character) -> None:
    """A check that lets every asker through (the cog's checks are tested end to end)."""


def roll_for(campaign, *first_rolls: int) -> RollEntry:
    return RollEntry(
        campaign.id, 1, CHANNEL, ALICE, "test", Visibility.PUBLIC, {}, first_rolls=first_rolls
    )


async def test_a_characters_first_roll_marks_it_rolled_in_the_rolls_transaction(
    storage, characters
) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    assert not wren.rolled and wren.first_rolls == (wren.id,)
    await storage.rolls.record(roll_for(campaign))  # a roll for no character marks nothing
    assert not (await characters.by_id(wren.id)).rolled
    await storage.rolls.record_noting_previous(roll_for(campaign, wren.id))
    rolled = await characters.by_id(wren.id)
    assert rolled.rolled and rolled.first_rolls == ()
    # In a state change's own transaction too (``update`` logs with ``insert_roll``).
    bo = await characters.create(campaign, BOB, "Bo", TokenSheet(5))
    await characters.update(bo, spend(1), lambda after: roll_for(campaign, *after.first_rolls))
    assert (await characters.by_id(bo.id)).rolled


async def test_edit_character_decides_from_the_character_as_stored_now(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    await storage.rolls.record(roll_for(campaign, wren.id))
    seen = []

    def edit(now):
        seen.append(now.rolled)  # the command read it unrolled; the edit sees it rolled
        return replace(now.sheet, tokens=6)

    changed = await characters.edit_character(wren, edit)
    assert seen == [True] and changed.after.sheet.tokens == 6
    with pytest.raises(RulesError):
        await characters.edit_character(wren, lambda now: replace(now.sheet, tokens=11))
    assert (await characters.by_id(wren.id)).sheet.tokens == 6


async def test_concurrent_edits_of_one_character_end_in_the_serial_result(
    storage, characters
) -> None:
    # Each edit moves the tokens 5 → 6 and refuses a sheet already at 6: serially, one lands.
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))

    def once(now):
        if now.sheet.tokens == 6:
            raise RulesError("nothing to change")
        return replace(now.sheet, tokens=now.sheet.tokens + 1)

    outcomes = await fire(N, lambda _: characters.edit_character(wren, once))
    assert len(succeeded(outcomes)) == 1
    assert (await characters.by_id(wren.id)).sheet.tokens == 6


async def test_rename_keeps_names_unique_and_lets_the_case_change(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    await characters.create(campaign, BOB, "Bo", TokenSheet(5))
    for taken in ("BO", "Ｂｏ", "Wren"):  # another's name in any case, or its own unchanged
        with pytest.raises(CharacterNameTaken):
            await characters.rename_character(wren, taken, anyone)
    changed = await characters.rename_character(wren, "WREN", anyone)
    assert (changed.before.name, changed.after.name) == ("Wren", "WREN")
    assert (await characters.by_id(wren.id)).name == "WREN"


async def test_concurrent_renames_to_one_name_rename_once(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    outcomes = await fire(N, lambda _: characters.rename_character(wren, "Robin", anyone))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, CharacterNameTaken) for o in outcomes) == N - 1
    assert (await characters.by_id(wren.id)).name == "Robin"


async def test_give_refuses_a_player_at_the_maximum_and_the_owner(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    await characters.create(campaign, BOB, "Bo", TokenSheet(5))
    with pytest.raises(TooManyCharacters):  # Bob has his one already
        await characters.give_character(campaign, wren, BOB)
    with pytest.raises(CharacterAlreadyTheirs):
        await characters.give_character(campaign, wren, ALICE)
    changed = await characters.give_character(campaign, wren, 99)
    assert (changed.before.user_id, changed.after.user_id) == (ALICE, 99)
    assert (await characters.find(campaign, user_id=99)).id == wren.id


async def test_concurrent_gives_end_with_one_owner(storage, characters) -> None:
    # A GM's repeated clicks: the first give moves it, every later one finds it theirs already.
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    outcomes = await fire(N, lambda _: characters.give_character(campaign, wren, 100))
    [given] = succeeded(outcomes)
    assert (given.before.user_id, given.after.user_id) == (ALICE, 100)
    assert sum(isinstance(o, CharacterAlreadyTheirs) for o in outcomes) == N - 1
    assert (await characters.by_id(wren.id)).user_id == 100


async def test_delete_removes_the_character_and_its_tracks_keeps_its_rolls(
    storage, characters
) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    await storage.tracks.change(campaign, aethelgard.STRESS.name, 20, character_id=wren.id)
    roll_id = await storage.rolls.record(roll_for(campaign, wren.id))
    deleted = await characters.delete_character(campaign, wren.id, anyone, prompt_id=7)
    assert deleted.name == "Wren"
    assert await characters.all(campaign) == []
    assert await storage.campaigns.tracks(campaign) == []
    assert await storage.rolls.get(roll_id) is not None
    with pytest.raises(EndPromptAnswered):  # the prompt's first answer stands
        await characters.delete_character(campaign, wren.id, anyone, prompt_id=7)
    with pytest.raises(CharacterGone):
        await characters.delete_character(campaign, wren.id, anyone, prompt_id=8)


async def test_concurrent_deletes_of_one_prompt_delete_once(storage, characters) -> None:
    campaign = await campaign_of(storage)
    wren = await characters.create(campaign, ALICE, "Wren", TokenSheet(5))
    outcomes = await fire(N, lambda _: characters.delete_character(campaign, wren.id, anyone, 9))
    assert len(succeeded(outcomes)) == 1
    assert sum(isinstance(o, EndPromptAnswered) for o in outcomes) == N - 1
    assert await storage.campaigns.end_prompt_answer(9) is EndAnswer.ENDED
