"""`/macro`: saved rolls, personal or campaign-wide, rolled by name (also blind), after restarts."""

from __future__ import annotations

import json

import pytest

from bot.client import DiceBot
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.expect import logged_roll
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def test_save_roll_list_and_delete_a_personal_macro(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    saved = await fake_discord.invoke(
        "macro save", {"name": "Sword", "expression": "1d20+7"}, user="player"
    )
    assert saved.ephemeral and "Saved your macro **Sword**: `1d20+7`" in saved.content
    dicebot.rng = new_rng(3)
    rolled = await fake_discord.invoke("macro roll", {"name": "sword"}, user="player")
    assert not rolled.ephemeral
    assert roll_expression("1d20+7", new_rng(3)).breakdown in rolled.embeds[0]["description"]
    listed = await fake_discord.invoke("macro list", {}, user="player")
    assert "👤 **Sword**: `1d20+7`" in listed.embeds[0]["description"]
    others = await fake_discord.invoke("macro roll", {"name": "Sword"}, user="gm")
    assert others.ephemeral and "No macro called **Sword**" in others.content
    suggested = await fake_discord.autocomplete("macro roll", {"name": "sw"}, "name", user="player")
    assert [choice["value"] for choice in suggested] == ["Sword"]
    twice = await fake_discord.invoke(
        "macro save", {"name": "sword", "expression": "1d6"}, user="player"
    )
    assert twice.ephemeral and "exists already" in twice.content
    await fake_discord.invoke("macro delete", {"name": "Sword"}, user="player")
    gone = await fake_discord.invoke("macro roll", {"name": "Sword"}, user="player")
    assert gone.ephemeral


async def test_rule_a_macro_holds_anything_roll_reads_labels_semicolons_and_sets(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    typed = "1d20+7 ! Greataxe; 1d12+4 ! slashing"
    saved = await fake_discord.invoke(
        "macro save", {"name": "Axe", "expression": typed}, user="player"
    )
    assert saved.ephemeral and f"Saved your macro **Axe**: `{typed}`" in saved.content
    await fake_discord.invoke(
        "macro save", {"name": "Stats", "expression": "6 4d6k3"}, user="player"
    )
    # new_rng(1) draws 10 for the d20, then 7 for the d12 (tests/rules/test_notation_corpus)
    dicebot.rng = new_rng(1)
    rolled = await fake_discord.invoke("macro roll", {"name": "Axe"}, user="player")
    assert not rolled.ephemeral
    assert rolled.embeds[0]["description"].splitlines() == [
        "🎲 Greataxe: 1d20 (10) + 7 = **17**",
        "slashing: 1d12 (7) + 4 = **11**",
    ]
    stats = await fake_discord.invoke("macro roll", {"name": "Stats"}, user="player")
    *lines, hint = stats.embeds[0]["description"].splitlines()
    assert [line.removeprefix("🎲 ")[:11] for line in lines] == [
        f"{n}. 4d6kh3 (" for n in range(1, 7)
    ]
    # `k3` is read as keep-highest: the reply says how avrae/d20 would read it (one note).
    assert hint == (
        "💡 As avrae/d20 reads it, did you mean `4d6k=3`? (`k3` keeps the highest 3, d20's the 3s)"
    )
    bad = await fake_discord.invoke(
        "macro save", {"name": "Adv", "expression": "adv 1d20+5"}, user="player"
    )
    assert bad.ephemeral and "Did you mean `1d20+5 adv`?" in bad.content
    listed = await fake_discord.invoke("macro list", {}, user="player")
    assert "Adv" not in listed.embeds[0]["description"]  # a refusal saves nothing


async def test_bad_expressions_are_refused_when_saved(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    bad = await fake_discord.invoke("macro save", {"name": "Oops", "expression": "1d"})
    assert bad.ephemeral and "Couldn't read" in bad.content
    listed = await fake_discord.invoke("macro list", {})
    assert listed.embeds[0]["description"].startswith("None yet")


async def test_campaign_macros_by_the_gm_survive_a_restart_and_roll_blind(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    refused = await fake_discord.invoke(
        "macro save", {"name": "Ambush", "expression": "2d6", "campaign": True}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    await fake_discord.invoke(
        "macro save", {"name": "Ambush", "expression": "2d6", "campaign": True}, user="gm"
    )
    async with restarted(fake_discord, dicebot, seed=1):
        listed = await fake_discord.invoke("macro list", {}, user="player")
        assert "🏰 **Ambush**: `2d6`" in listed.embeds[0]["description"]
        blind = await fake_discord.invoke(
            "macro roll", {"name": "Ambush", "blind": True}, user="player"
        )
        assert blind.ephemeral and "You rolled in secret" in blind.content
        not_yours = await fake_discord.invoke("macro delete", {"name": "Ambush"}, user="player")
        assert not_yours.ephemeral and "GM" in not_yours.content


COSMOS_ROLL = "/cosmos roll attribute:3 skill:2 tn:15"


async def test_a_macro_holds_a_system_roll_command_and_rolls_it_as_if_typed(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    saved = await fake_discord.invoke(
        "macro save",
        {"name": "Shoot", "expression": "/Cosmos Roll tn:15 attribute:3 skill: 2"},
        user="player",
    )
    # Read against the command: spelled back in the command's own order of typing.
    assert saved.ephemeral and "`/cosmos roll tn:15 attribute:3 skill:2`" in saved.content
    dicebot.rng = new_rng(5)
    by_macro = await fake_discord.invoke("macro roll", {"name": "shoot"}, user="player")
    dicebot.rng = new_rng(5)
    typed = await fake_discord.invoke(
        "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15}, user="player"
    )
    assert not by_macro.ephemeral
    assert by_macro.embeds[0]["title"] == typed.embeds[0]["title"]
    assert by_macro.embeds[0]["description"] == typed.embeds[0]["description"]
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.kind == "cosmos.roll"
    assert (logged.payload["options"]["attribute"], logged.payload["options"]["tn"]) == (3, 15)
    listed = await fake_discord.invoke("macro list", {}, user="player")
    assert "**Shoot**: `/cosmos roll tn:15 attribute:3 skill:2`" in listed.embeds[0]["description"]


async def test_a_command_macro_rolls_hidden_for_the_gm_and_blind_for_a_player_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    await fake_discord.invoke(
        "macro save", {"name": "Check", "expression": COSMOS_ROLL, "campaign": True}, user="gm"
    )
    async with restarted(fake_discord, dicebot, seed=2):
        secret = await fake_discord.invoke(
            "macro roll", {"name": "Check", "hidden": True}, user="gm"
        )
        assert secret.ephemeral and secret.embeds[0]["footer"]["text"].startswith("Hidden roll #")
        blind = await fake_discord.invoke(
            "macro roll", {"name": "Check", "blind": True}, user="player"
        )
        assert blind.ephemeral and "You rolled in secret" in blind.content
        refused = await fake_discord.invoke(
            "macro roll", {"name": "Check", "hidden": True}, user="player"
        )
        assert refused.ephemeral and "GM" in refused.content
    assert (
        fake_discord.channel_messages(fake_discord.channel_id) == []
    )  # nothing public: hidden, blind, refused


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "/cosmos roll attribute:9 skill:2 tn:15",
            "`attribute` of `/cosmos roll`: the value must be",
        ),
        ("/cosmos roll skill:2", "`/cosmos roll` needs `attribute`, `tn`"),
        ("/cosmos roll attribute:x skill:2 tn:15", "`attribute` of `/cosmos roll` is a number"),
        ("/cosmos roll 3 2 15", "Give `/cosmos roll`'s options as name:value"),
        ("/cosmos roll attribute:3 skill:2 tn:15 tn:14", "`tn` is given twice"),
        (
            "/cosmos roll attribute:3 skill:2 tn:15 scale:galactic",
            "`scale` of `/cosmos roll` is one of",
        ),
        ("/cosmos roll attribute:3 skill:2 tn:15 hidden:maybe", "is true or false"),
        ("/campaign end", "isn't a roll command"),
        ("/macro roll name:x", "isn't a roll command"),
    ],
)
async def test_a_command_macro_is_checked_when_saved_and_nothing_is_saved_on_refusal(
    fake_discord: FakeDiscord, dicebot: DiceBot, expression: str, message: str
) -> None:
    refused = await fake_discord.invoke(
        "macro save", {"name": "Bad", "expression": expression}, user="player"
    )
    assert refused.ephemeral and message in refused.content
    listed = await fake_discord.invoke("macro list", {}, user="player")
    assert listed.embeds[0]["description"].startswith("None yet")


async def test_a_macro_whose_command_changed_fails_clearly_and_rolls_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("macro save", {"name": "Old", "expression": COSMOS_ROLL})
    await fake_discord.invoke("macro save", {"name": "Gone", "expression": COSMOS_ROLL})
    async with dicebot.storage.database.transaction() as connection:
        # As saved by an older bot: /cosmos roll had other options, and /cosmos shoot existed.
        rows = await connection.fetch_all("SELECT id, name, command FROM macros")
        for macro_id, name, stored in rows:
            data = json.loads(stored)
            if name == "Old":
                data["shape"] = "0123456789abcdef"
            else:
                data["name"] = "cosmos shoot"
            await connection.execute(
                "UPDATE macros SET command = ? WHERE id = ?", (json.dumps(data), macro_id)
            )
    for name, command in (("Old", "cosmos roll"), ("Gone", "cosmos shoot")):
        reply = await fake_discord.invoke("macro roll", {"name": name})
        assert reply.ephemeral
        assert f"`/{command}` has changed since this macro was saved" in reply.content
    assert await dicebot.storage.rolls.get(1) is None  # nothing was rolled


async def macro_rows(bot: DiceBot) -> list[tuple[str, str, int | None]]:
    rows = await bot.storage.database.fetch_all(
        "SELECT name, expression, user_id FROM macros ORDER BY id"
    )
    return [(row["name"], row["expression"], row["user_id"]) for row in rows]


@pytest.mark.parametrize(
    ("name", "code_point"),
    [
        ("fi\u200bre", "U+200B"),  # zero-width space: would pass for "fire"
        ("\u200dfire", "U+200D"),
        ("fire\u2060", "U+2060"),
        ("\ufefffire", "U+FEFF"),
        ("fi\u202ere", "U+202E"),  # right-to-left override
        ("fi\u2066re", "U+2066"),
        ("fi\u200fre", "U+200F"),
        ("fi\u061cre", "U+061C"),
        ("fi\x07re", "U+0007"),  # a control character
    ],
)
async def test_a_macro_name_with_invisible_characters_is_refused_and_nothing_saved(
    fake_discord: FakeDiscord, dicebot: DiceBot, name: str, code_point: str
) -> None:
    refused = await fake_discord.invoke(
        "macro save", {"name": name, "expression": "1d20"}, user="player"
    )
    assert refused.ephemeral
    assert "Macro name can't hold invisible, control or direction-changing" in refused.content
    assert code_point in refused.content
    assert await macro_rows(dicebot) == []


async def test_a_macro_name_is_normalised_so_look_alikes_are_one_name(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    ligature = "\ufb01re"  # "ﬁre": the fi ligature, NFKC "fire"
    saved = await fake_discord.invoke(
        "macro save", {"name": ligature, "expression": "1d20"}, user="player"
    )
    assert saved.ephemeral and "Saved your macro **fire**" in saved.content
    again = await fake_discord.invoke(
        "macro save", {"name": "fire", "expression": "1d6"}, user="player"
    )
    assert again.ephemeral and "exists already" in again.content
    rolled = await fake_discord.invoke("macro roll", {"name": ligature}, user="player")
    assert not rolled.ephemeral
    assert await macro_rows(dicebot) == [("fire", "1d20", fake_discord.users["player"].id)]


async def test_a_character_or_campaign_name_with_invisible_characters_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = await fake_discord.invoke(
        "campaign start", {"system": "aethelgard", "name": "Dark\u202eness"}, user="gm"
    )
    assert campaign.ephemeral and "U+202E" in campaign.content
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None
    await fake_discord.invoke("campaign start", {"system": "aethelgard", "name": "Dark"})
    scores = {"might": 3, "finesse": 3, "wits": 3, "will": 3, "sturdiness": 3}
    character = await fake_discord.invoke(
        "aethelgard character create", {"name": "R\u200bin", **scores}, user="player"
    )
    assert character.ephemeral and "Character name can't hold" in character.content
    rows = await dicebot.storage.database.fetch_all("SELECT name FROM characters")
    assert rows == []


async def test_sixty_concurrent_deletes_of_one_macro_confirm_it_once(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("macro save", {"name": "Sword", "expression": "1d20"}, user="player")
    replies = [
        await fake_discord.send("macro delete", {"name": "Sword"}, user="player") for _ in range(60)
    ]
    await fake_discord.wait_answered(replies)
    answers = [reply.content for reply in replies]
    assert all(reply.ephemeral for reply in replies)
    assert answers.count("🗑️ Deleted **Sword**.") == 1, answers
    assert all(
        "No macro called **Sword**" in answer for answer in answers if "Deleted" not in answer
    ), answers
    assert await macro_rows(dicebot) == []
    assert fake_discord.error_logs == []


async def test_the_per_owner_macro_cap_refuses_the_next_and_saves_nothing(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    cap = 50  # MACROS_PER_OWNER, written out: the test pins the number itself
    for number in range(1, cap + 1):
        saved = await fake_discord.invoke(
            "macro save", {"name": f"m{number}", "expression": f"1d{number + 1}"}, user="player"
        )
        assert saved.ephemeral and f"**m{number}**" in saved.content
    refused = await fake_discord.invoke(
        "macro save", {"name": "one more", "expression": "1d20"}, user="player"
    )
    assert refused.ephemeral and "That's 50 macros already: delete one first." in refused.content
    rows = await macro_rows(dicebot)
    assert len(rows) == cap and "one more" not in [name for name, _, _ in rows]
    # The cap is per owner: another user still saves theirs.
    other = await fake_discord.invoke(
        "macro save", {"name": "one more", "expression": "1d20"}, user="gm"
    )
    assert other.ephemeral and "Saved your macro **one more**" in other.content
