"""Suggestions while typing: open challenges, the actions of the chosen scale, hidden rolls."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.client import DiceBot
from rules import aethelgard, cosmos
from rules.sixpool import skills as sixpool_skills
from tests.e2e.test_aethelgard import create as create_ysolde
from tests.e2e.test_aethelgard import start_campaign as start_aethelgard
from tests.e2e.test_cosmos import open_challenge, start_campaign
from tests.e2e.test_sinew import create, start_sinew
from tests.e2e.test_sixpool import create as create_rin
from tests.e2e.test_sixpool import start as start_sixpool
from tests.fakediscord.payloads import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_challenge_names_suggest_this_channels_open_challenges(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    for name in ("Escape the Vault", "Hold the Line", "Vault Heist"):
        await open_challenge(fake_discord, name, tn=12, successes=2, max_rolls=3)
    await fake_discord.invoke("cosmos challenge end", {"name": "Hold the Line"})
    roll = {"attribute": 1, "skill": 1, "tn": 12}
    choices = await fake_discord.autocomplete(
        "cosmos roll", {**roll, "challenge": "vau"}, "challenge", user="player"
    )
    # Starts-with first, then contains; ended challenges are not offered.
    assert [c["name"] for c in choices] == ["Vault Heist", "Escape the Vault"]
    assert [c["value"] for c in choices] == ["Vault Heist", "Escape the Vault"]
    for command in ("cosmos challenge status", "cosmos challenge end"):
        every = await fake_discord.autocomplete(command, {"name": ""}, "name")
        assert sorted(c["name"] for c in every) == ["Escape the Vault", "Vault Heist"]


async def test_challenge_names_are_empty_without_a_cosmos_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    choices = await fake_discord.autocomplete("cosmos challenge end", {"name": ""}, "name")
    assert choices == []


async def test_actions_are_those_of_the_chosen_scale(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    roll = {"attribute": 1, "skill": 1, "tn": 12}
    starship = await fake_discord.autocomplete(
        "cosmos roll", {**roll, "scale": "starship", "action": ""}, "action"
    )
    expected = [action.value for action in cosmos.ACTIONS_BY_SCALE[cosmos.Scale.STARSHIP]]
    assert sorted(c["value"] for c in starship) == sorted(expected)
    assert {c["name"] for c in starship} == {"Fleet Command", "Navigation", "Diplomacy"}
    typed = await fake_discord.autocomplete(
        "cosmos roll", {**roll, "scale": "personal", "action": "so"}, "action"
    )
    assert [c["value"] for c in typed] == ["social"]
    unscaled = await fake_discord.autocomplete("cosmos roll", {**roll, "action": ""}, "action")
    assert len(unscaled) == len(cosmos.Action)


async def test_reveal_suggests_a_gm_the_campaigns_unrevealed_secret_rolls_and_a_player_none(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_campaign(fake_discord)
    for expression in ("1d6", "2d20kl1", "3d8"):
        await fake_discord.invoke("roll", {"expression": expression, "hidden": True}, user="gm")
    await fake_discord.invoke("roll", {"expression": "1d4", "hidden": True}, user="admin")
    await fake_discord.invoke("roll", {"expression": "1d4"}, user="gm")  # public: roll #5
    await fake_discord.invoke("roll", {"expression": "1d20", "blind": True}, user="player")  # 6
    await fake_discord.invoke("campaign reveal", {"roll_id": 1}, user="gm")
    choices = await fake_discord.autocomplete("campaign reveal", {"roll_id": ""}, "roll_id")
    # Newest first: every secret roll of the campaign a GM may reveal; #1 revealed, #5 public.
    assert [c["value"] for c in choices] == [6, 4, 3, 2]
    assert choices[2]["name"].startswith("#3 · 🎲 gm: 3d8 · total ")
    typed = await fake_discord.autocomplete("campaign reveal", {"roll_id": "2"}, "roll_id")
    assert [c["value"] for c in typed] == [2]
    # A player, even the blind roll's own roller, is shown no outcome at all.
    for prefix in ("", "6"):
        shown = await fake_discord.autocomplete(
            "campaign reveal", {"roll_id": prefix}, "roll_id", user="player"
        )
        assert shown == []
    elsewhere = await fake_discord.autocomplete(
        "campaign reveal", {"roll_id": ""}, "roll_id", channel=fake_discord.other_channel_id
    )
    assert elsewhere == []


def synced_options(commands: list[JSON], prefix: str = "") -> Iterator[tuple[str, JSON]]:
    """Every synced option, with its command's full name."""
    for command in commands:
        name = f"{prefix} {command['name']}".strip()
        for option in command.get("options", []):
            if option["type"] in (1, 2):
                yield from synced_options([option], name)
            else:
                yield name, option


async def test_every_character_skill_macro_and_challenge_option_suggests(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    options = list(synced_options(fake_discord.synced_commands(guild=True)))
    characters = {command for command, option in options if option["name"] == "character"}
    assert {"sinew damage", "sinew heal", "aethelgard stress add", "sixpool check"} <= characters
    named = {"character", "skill", "vs_skill", "challenge"}
    typed = [(c, o) for c, o in options if o["name"] in named and o["type"] == 3]  # text options
    by_name = ("macro roll", "macro delete", "cosmos challenge status", "cosmos challenge end")
    names = [(c, o) for c, o in options if c in by_name and o["name"] == "name"]
    assert len(typed) >= 37 and len(names) == len(by_name)
    missing = [f"{c} {o['name']}" for c, o in typed + names if not o.get("autocomplete")]
    assert missing == []


async def test_character_names_suggest_the_campaigns_with_the_askers_own_first(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sinew(fake_discord)
    for user, name in (("gm", "Ash"), ("admin", "Bramble"), ("player", "Brannoc")):
        await create(fake_discord, name, user=user)
    damage = {"character": "", "amount": 1}
    every = await fake_discord.autocomplete("sinew damage", damage, "character", user="player")
    assert [c["value"] for c in every] == ["Brannoc", "Ash", "Bramble"]
    for command in ("sinew damage", "sinew heal"):
        typed = {"character": "bra", "amount": 1}
        mine = await fake_discord.autocomplete(command, typed, "character", user="player")
        assert [c["value"] for c in mine] == ["Brannoc", "Bramble"]
        gm = await fake_discord.autocomplete(command, typed, "character", user="gm")
        assert [c["value"] for c in gm] == ["Bramble", "Brannoc"]
    contains = await fake_discord.autocomplete(
        "sinew luck test", {"character": "SH"}, "character", user="gm"
    )
    assert [c["name"] for c in contains] == ["Ash"]
    elsewhere = await fake_discord.autocomplete(
        "sinew heal", damage, "character", channel=fake_discord.other_channel_id
    )
    assert elsewhere == []


async def test_aethelgard_skills_suggest_the_sheets_then_the_documents(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_aethelgard(fake_discord)
    await create_ysolde(fake_discord)
    check = {"attribute": "WITS", "skill": "st"}
    mine = await fake_discord.autocomplete("aethelgard check", check, "skill", user="player")
    assert [c["value"] for c in mine] == ["Stealth", "System Bypass", "Wasteland Survival"]
    every = await fake_discord.autocomplete(
        "aethelgard check", {**check, "skill": ""}, "skill", user="player"
    )
    sheets_then_documents = ["Stealth", "System Bypass", "Acrobatics", "Crafting", "Rhetoric"]
    assert [c["value"] for c in every] == [*sheets_then_documents, "Wasteland Survival"]
    assert set(aethelgard.SKILLS) <= {c["value"] for c in every}
    # A GM without a character sees the document's; naming one adds its sheet's.
    gm = await fake_discord.autocomplete("aethelgard check", check, "skill", user="gm")
    assert [c["value"] for c in gm] == ["System Bypass", "Wasteland Survival"]
    named = await fake_discord.autocomplete(
        "aethelgard check", {**check, "character": "ysolde"}, "skill", user="gm"
    )
    assert [c["value"] for c in named] == ["Stealth", "System Bypass", "Wasteland Survival"]


async def test_sixpool_skills_suggest_the_sheets_then_the_documents_even_without_a_sheet(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start_sixpool(fake_discord)
    # The case: a GM with no character typing "st" was offered nothing.
    typed = await fake_discord.autocomplete(
        "sixpool character set", {"skill": "st"}, "skill", user="gm"
    )
    assert [c["value"] for c in typed] == ["stealth", "history", "investigation"]
    await create_rin(fake_discord)
    for skill in ("Lore of the Deep", "Stealth"):
        set_skill = {"skill": skill, "training": "trained"}
        await fake_discord.invoke("sixpool character set", set_skill, user="player")
    every = await fake_discord.autocomplete(
        "sixpool check", {"pool": "DEX", "skill": ""}, "skill", user="player"
    )
    assert [c["value"] for c in every][:3] == ["lore of the deep", "stealth", "acrobatics"]
    assert len(every) == 21  # the sheet's custom skill and the document's twenty
    for command, focused in (
        ("sixpool contest", "skill"),
        ("sixpool group", "skill"),
        ("sixpool trained_only", "skill"),
        ("sixpool passive", "skill"),
    ):
        found = await fake_discord.autocomplete(command, {focused: "lore"}, focused, user="player")
        assert [c["value"] for c in found] == ["lore of the deep"], command
    # An opponent's skill comes from the sheet of the player chosen in vs_user.
    rin = {"pool": "DEX", "vs_user": fake_discord.users["player"], "vs_skill": "lore"}
    theirs = await fake_discord.autocomplete("sixpool contest", rin, "vs_skill", user="gm")
    assert [c["value"] for c in theirs] == ["lore of the deep"]
    nobody = await fake_discord.autocomplete(
        "sixpool contest", {"vs_skill": "lore"}, "vs_skill", user="player"
    )
    assert nobody == []
    assert len(sixpool_skills.SKILLS) == 20 and "sleight of hand" in sixpool_skills.SKILLS
