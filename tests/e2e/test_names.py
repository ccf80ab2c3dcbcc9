"""Every name users give passes one check, after Unicode NFKC (docs/players/index.md, "Names"):
its length counted once normalised, no invisible or direction-changing characters, and unique
in its scope as NFKC case-folded names. Each refusal is private and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from bot.client import DiceBot
from tests.e2e.test_sixpool import POOLS
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

LIGATURE = "\ufdfa"  # ARABIC LIGATURE SALLALLAHOU ALAYHE WASALLAM: 18 characters after NFKC
KILOGRAM = "\u338f"  # SQUARE KG: "kg" after NFKC

# Each system with characters: its campaign, and a character's options but the name.
CHARACTERS: dict[str, tuple[str, dict[str, Any]]] = {
    "sinew": (
        "sinew character create",
        {"str": 10, "ref": 10, "int": 10, "emp": 10, "lck": 10, "sta": 5},
    ),
    "aethelgard": (
        "aethelgard character create",
        {"might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3},
    ),
    "sixpool": ("sixpool character create", {"level": 1, "primary": "DEX", **POOLS}),
}


async def start(fake: FakeDiscord, system: str) -> None:
    reply = await fake.invoke("campaign start", {"system": system, "name": "Table"}, user="gm")
    assert not reply.ephemeral, reply.content


async def names(bot: DiceBot, table: str) -> list[str]:
    rows = await bot.storage.database.fetch_all(f"SELECT name FROM {table} ORDER BY id")
    return [row["name"] for row in rows]


@pytest.mark.parametrize("system", sorted(CHARACTERS))
async def test_character_names_are_measured_after_nfkc(
    fake_discord: FakeDiscord, dicebot: DiceBot, system: str
) -> None:
    await start(fake_discord, system)
    command, options = CHARACTERS[system]
    refused = await fake_discord.invoke(
        command, {"name": LIGATURE * 60, **options}, user="player"
    )  # 60 characters as typed (Discord's limit), 1,080 once normalised
    assert refused.ephemeral
    assert "Character name must be 1 to 60 characters (got 1,080 once normalised" in (
        refused.content
    )
    assert await names(dicebot, "characters") == []
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


@pytest.mark.parametrize("name", [LIGATURE * 40, KILOGRAM * 40], ids=["U+FDFA", "U+338F"])
async def test_macro_names_are_measured_after_nfkc(
    fake_discord: FakeDiscord, dicebot: DiceBot, name: str
) -> None:
    refused = await fake_discord.invoke(
        "macro save", {"name": name, "expression": "1d20"}, user="player"
    )
    assert refused.ephemeral
    assert "Macro name must be 1 to 40 characters (got " in refused.content
    assert "once normalised" in refused.content
    assert await names(dicebot, "macros") == []


async def test_macro_names_are_unique_after_nfkc_and_case_folding(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    saved = await fake_discord.invoke(
        "macro save", {"name": "Éclair", "expression": "1d20"}, user="player"
    )
    assert saved.ephemeral and "Saved your macro" in saved.content
    for same in ("éCLAIR", "ÉCLAIR", "E\u0301clair"):  # any case; é typed as e + combining accent
        again = await fake_discord.invoke(
            "macro save", {"name": same, "expression": "1d6"}, user="player"
        )
        assert again.ephemeral and "exists already" in again.content, same
    rolled = await fake_discord.invoke("macro roll", {"name": "ÉCLAIR"}, user="player")
    assert not rolled.ephemeral, rolled.content
    assert await names(dicebot, "macros") == ["Éclair"]


@pytest.mark.parametrize("system", sorted(CHARACTERS))
async def test_character_names_are_unique_after_nfkc_and_case_folding(
    fake_discord: FakeDiscord, dicebot: DiceBot, system: str
) -> None:
    await start(fake_discord, system)
    command, options = CHARACTERS[system]
    first = await fake_discord.invoke(command, {"name": "Straße", **options}, user="player")
    assert not first.ephemeral, first.content
    # Another player, the same name folded: SQLite's NOCASE folds ASCII letters only.
    taken = await fake_discord.invoke(command, {"name": "STRASSE", **options}, user="admin")
    assert taken.ephemeral, taken.content
    assert await names(dicebot, "characters") == ["Straße"]


CHALLENGE = {"tn": 15, "successes": 3, "max_rolls": 5}


@pytest.mark.parametrize(
    ("name", "refusal"),
    [
        ("Heist\u200b", "character 6 is U+200B, a zero-width character"),
        ("\u202eHeist", "character 1 is U+202E, a direction-changing (bidi) character"),
        ("Hei\u00adst", "character 4 is U+00AD, a soft hyphen"),
        ("\uff28\uff25\uff29\uff33\uff34", "A challenge called **HEIST** is already open"),
    ],
    ids=["zero-width space", "right-to-left override", "soft hyphen", "fullwidth"],
)
async def test_a_challenge_name_that_passes_for_an_open_one_is_refused_and_not_announced(
    fake_discord: FakeDiscord, dicebot: DiceBot, name: str, refusal: str
) -> None:
    await start(fake_discord, "cosmos")
    opened = await fake_discord.invoke(
        "cosmos challenge start", {"name": "Heist", **CHALLENGE}, user="gm"
    )
    assert not opened.ephemeral, opened.content
    posted = fake_discord.channel_messages(fake_discord.channel_id)
    refused = await fake_discord.invoke(
        "cosmos challenge start", {"name": name, **CHALLENGE}, user="gm"
    )
    assert refused.ephemeral
    assert refusal in refused.content
    if refusal.startswith("character"):
        assert "can't hold invisible, control or direction-changing characters" in refused.content
    assert fake_discord.channel_messages(fake_discord.channel_id) == posted
    assert await names(dicebot, "cosmos_challenges") == ["Heist"]


async def test_a_challenge_is_found_by_its_nfkc_case_folded_name(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, "cosmos")
    await fake_discord.invoke("cosmos challenge start", {"name": "Straße", **CHALLENGE})
    status = await fake_discord.invoke("cosmos challenge status", {"name": "ＳＴＲＡＳＳＥ"})
    assert status.ephemeral and "Straße" in str(status.embeds), status.content
    rolled = await fake_discord.invoke(
        "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15, "challenge": "strasse"}
    )
    assert not rolled.ephemeral, rolled.content
    logged = await dicebot.storage.rolls.get(1)
    assert logged is not None
    assert logged.payload["options"]["challenge"] == "Straße"  # as the challenge is called


async def test_sinew_items_and_boons_pass_the_name_check(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, "sinew")
    command, options = CHARACTERS["sinew"]
    await fake_discord.invoke(command, {"name": "Brakka", **options}, user="player")
    for name, refusal in (
        (LIGATURE * 5, "Item name must be 1 to 80 characters (got 90 once normalised"),
        ("Ro\u200bpe", "Item name can't hold invisible"),
    ):
        item = await fake_discord.invoke("sinew item add", {"name": name}, user="player")
        assert item.ephemeral and refusal in item.content, item.content
    for text, refusal in (
        (LIGATURE * 12, "Boon must be 1 to 200 characters (got 216 once normalised"),
        ("Favour\u202e of the tribe", "Boon can't hold invisible"),
    ):
        boon = await fake_discord.invoke("sinew boon add", {"text": text}, user="player")
        assert boon.ephemeral and refusal in boon.content, boon.content
    added = await fake_discord.invoke("sinew item add", {"name": "ＲＯＰＥ"}, user="player")
    assert not added.ephemeral and "added ROPE" in str(added.embeds), added.content
    dropped = await fake_discord.invoke("sinew item remove", {"name": "rope"}, user="player")
    assert not dropped.ephemeral, dropped.content
    [row] = await dicebot.storage.database.fetch_all("SELECT sheet FROM characters")
    assert '"items":[]' in row["sheet"] and '"boons":[]' in row["sheet"]


async def test_aethelgard_skill_names_pass_the_name_check(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, "aethelgard")
    command, options = CHARACTERS["aethelgard"]
    for skills, refusal in (
        ("Stealth\u200b 2", "Skill name can't hold invisible"),
        ("Stealth 2, ＳＴＥＡＬＴＨ 3", "STEALTH is listed twice"),
        (f"{LIGATURE * 3} 2", "Skill name must be 1 to 40 characters (got 54 once normalised"),
    ):
        created = await fake_discord.invoke(
            command, {"name": "Ysolde", **options, "skills": skills}, user="player"
        )
        assert created.ephemeral and refusal in created.content, created.content
    assert await names(dicebot, "characters") == []


async def test_sixpool_skill_names_pass_the_name_check(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, "sixpool")
    command, options = CHARACTERS["sixpool"]
    await fake_discord.invoke(command, {"name": "Rin", **options}, user="player")
    trained = await fake_discord.invoke(
        "sixpool character set", {"skill": "lock\u00adpicking", "training": "trained"},
        user="player",
    )  # fmt: skip
    assert trained.ephemeral and "Skill name can't hold invisible" in trained.content
    listed = await fake_discord.invoke("sixpool trained_only", {"skill": "arc\u2066ana"})
    assert listed.ephemeral and "Skill name can't hold invisible" in listed.content
    assert await dicebot.storage.database.fetch_all("SELECT * FROM sixpool_trained_only") == []
    folded = await fake_discord.invoke("sixpool trained_only", {"skill": "ＡＲＣＡＮＡ"})
    assert not folded.ephemeral, folded.content
    rows = await dicebot.storage.database.fetch_all("SELECT skill FROM sixpool_trained_only")
    assert [row["skill"] for row in rows] == ["arcana"]
