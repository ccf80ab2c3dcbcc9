"""`/help` end to end: paged from the synced command tree, privately, within Discord's limits."""

from __future__ import annotations

import re

import pytest

from bot.client import DiceBot
from bot.render.help import NOTATION_EXAMPLES
from rules.expressions import roll_request
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.e2e.test_forged_ids import BUTTON, TOO_BIG, forged_message
from tests.fakediscord.messages import JSON
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


def synced_leaves(commands: list[JSON]) -> set[str]:
    """Every command a user can run, as its full name, from the synced tree's JSON."""
    found: set[str] = set()

    def walk(command: JSON, prefix: str) -> None:
        name = f"{prefix} {command['name']}".strip()
        groups = [o for o in command.get("options", []) if o["type"] in (1, 2)]
        if not groups:
            found.add(name)
        for group in groups:
            walk(group, name)

    for command in commands:
        walk(command, "")
    return found


def check_within_discord_limits(embed: JSON) -> None:
    fields = embed.get("fields", [])
    total = len(embed["title"]) + len(embed.get("description", "")) + len(embed["footer"]["text"])
    total += sum(len(field["name"]) + len(field["value"]) for field in fields)
    assert total <= 6000 and len(embed.get("description", "")) <= 4096
    assert len(fields) <= 25 and all(len(field["value"]) <= 1024 for field in fields)
    assert all(len(field["name"]) <= 256 for field in fields)
    assert "cut to fit Discord" not in str(embed)


async def every_page(fake_discord: FakeDiscord, user: str = "player") -> list[JSON]:
    """Open /help and press ▶ until it comes back to the first page; return each page."""
    reply = await fake_discord.invoke("help", {}, user=user)
    assert reply.ephemeral
    pages = [reply.embeds[0]]
    total = int(pages[0]["footer"]["text"].split(" of ")[1])
    for number in range(2, total + 2):
        pressed = await fake_discord.click(reply, f"help:next:{number if number <= total else 1}")
        assert pressed.callback_type == 7 and pressed.message_id == reply.message_id
        pages.append(reply.embeds[0])
    assert pages[-1] == pages[0]  # ▶ on the last page wraps to the overview
    return pages[:-1]


async def test_help_pages_show_every_synced_command_within_discord_limits(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    pages = await every_page(fake_discord)
    shown = {
        match
        for page in pages
        for field in page.get("fields", [])
        for match in re.findall(r"^`/([^`]+)`", field["value"], re.MULTILINE)
    }
    synced = synced_leaves(fake_discord.synced_commands(guild=True))
    assert len(synced) > 70 and synced == shown
    for missing_before in ("sinew tamper", "sinew purge", "sinew opposed", "sinew attack"):
        assert missing_before in shown
    for page in pages:
        check_within_discord_limits(page)
    titles = [page["title"] for page in pages]
    assert titles[:2] == ["📖 Help: start here", "🎲 Dice, macros and campaigns"]
    for system in ("Aethelgard", "Cosmos Engine", "Enchanted Realms", "Sinew & Steel"):
        assert any(title.startswith(f"🎲 {system}") for title in titles)
    assert [page["footer"]["text"] for page in pages] == [
        f"Page {n} of {len(pages)}" for n in range(1, len(pages) + 1)
    ]


async def test_help_overview_says_what_a_player_and_a_gm_type_first(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    overview = (await every_page(fake_discord))[0]
    text = overview["description"]
    assert "**A player**" in text and "**A GM**" in text
    assert "`/sinew character create`" in text and "`/campaign start`" in text
    synced = synced_leaves(fake_discord.synced_commands(guild=True))
    for named in re.findall(r"`/([a-z_ ]+)`", text):
        assert named in synced, named  # the overview names only commands that exist
    contents = overview["fields"][0]["value"].splitlines()
    assert contents[0] == "2. 🎲 Dice, macros and campaigns"


async def test_help_page_shows_options_and_the_previous_button_wraps(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("help", {}, user="player")
    total = int(reply.embeds[0]["footer"]["text"].split(" of ")[1])
    assert reply.original.custom_ids() == [f"help:prev:{total}", "help:next:2"]
    await fake_discord.click(reply, f"help:prev:{total}", user="player")
    assert reply.embeds[0]["footer"]["text"] == f"Page {total} of {total}"
    await fake_discord.click(reply, "help:next:1", user="player")
    await fake_discord.click(reply, "help:next:2", user="player")
    table = reply.embeds[0]
    roll = next(field["value"] for field in table["fields"] if field["name"] == "/roll")
    assert roll.startswith("`/roll` `expression [hidden] [blind]`\nRoll dice notation")


async def test_help_buttons_work_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("help", {}, user="player")
    async with restarted(fake_discord, dicebot, seed=1):
        pressed = await fake_discord.click(reply, "help:next:2", user="player")
        assert pressed.callback_type == 7
        assert reply.embeds[0]["title"] == "🎲 Dice, macros and campaigns"


async def test_help_button_with_a_forged_page_shows_the_last_or_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    total = len(await every_page(fake_discord))
    past = await fake_discord.click(
        forged_message(fake_discord, "help:next:999", BUTTON), "help:next:999"
    )
    assert (
        past.callback_type == 7 and past.embeds[0]["footer"]["text"] == f"Page {total} of {total}"
    )
    for page in ("0", TOO_BIG):
        custom_id = f"help:prev:{page}"
        refused = await fake_discord.click(
            forged_message(fake_discord, custom_id, BUTTON), custom_id
        )
        assert refused.ephemeral and f"There is no help page {page}" in refused.content
    assert fake_discord.error_logs == []


async def test_help_explains_dice_notation_with_examples_that_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("help", {"topic": "notation"}, user="player")
    assert reply.ephemeral
    embed = reply.embeds[0]
    assert embed["title"] == "🎲 Dice notation for /roll"
    shown = re.findall(r"^`([^`]+)`", embed["description"], flags=re.MULTILINE)
    assert shown == [example for example, _ in NOTATION_EXAMPLES]
    for example in shown:
        roll_request(example, new_rng(0))  # every example is a request /roll accepts
    limits = next(field["value"] for field in embed["fields"] if field["name"] == "Limits")
    assert "200 characters, 1,000 dice per `/roll`" in limits and "10,000 sides" in limits


async def test_help_says_a_plain_realms_check_rolls_one_die(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    pages = await every_page(fake_discord)
    entries = [
        entry
        for page in pages
        for field in page.get("fields", [])
        for entry in re.split(r"\n(?=`/)", field["value"])
        if entry.startswith("`/realms check`")
    ]
    assert len(entries) == 1
    assert (
        "One die (save, check, competition…); at advantage or disadvantage two, "
        "the higher or lower kept"
    ) in entries[0]
    assert "two dice, keep one" not in entries[0]
