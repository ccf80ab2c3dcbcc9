"""The shared character model: created, found and changed through named operations."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import pytest

from bot.storage import Storage, Visibility
from bot.storage.characters import CharacterStore
from bot.storage.errors import (
    CharacterNameTaken,
    CharacterNotFound,
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
