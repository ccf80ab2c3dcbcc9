"""Secrecy by construction: what each viewer sees of a secret roll, before and after reveal.

Two servers share one bot. For every command that makes a roll, in each secret visibility
(a GM's hidden roll, a player's blind roll), and for every command or button that derives a
roll from another, the matrix checks the roller's reply, the table channel, the GM log channel,
another player, and the owner of the other server (who can't reveal it), then the table after
a GM reveals it. Every "nothing else was posted" is checked once the bot has settled: nothing
is left in flight that could still post.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.client import DiceBot, create_bot
from bot.storage import LoggedRoll, Visibility
from rules.randomness import new_rng
from tests.e2e.conftest import DICE_SEED, bot_settings, sync_as_the_first_start_did
from tests.e2e.test_aethelgard import create as create_aethelgard
from tests.e2e.test_sinew import create as create_sinew
from tests.e2e.test_sinew import seed_where
from tests.e2e.test_sixpool import create as create_sixpool
from tests.expect import logged_roll, revealed_line
from tests.fakediscord import payloads
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.messages import FakeMessage, Reply
from tests.fakediscord.server import FakeDiscord, FakeGuild

pytestmark = pytest.mark.shared_bot

CHARACTER = {"sinew": "Wren", "sixpool": "Rin", "aethelgard": "Ysolde"}


@dataclass
class Servers:
    fake: FakeDiscord
    bot: DiceBot
    rival: FakeGuild  # another server, whose owner (admin there) tries to reveal our rolls

    async def settled(self) -> None:
        """Wait until the bot has finished everything it started (announcements, DMs)."""
        await self.fake.wait_until(lambda: not self.bot.in_flight, "the bot to settle")

    def posted(self) -> dict[str, int]:
        """How many messages the bot has posted where each viewer could read them."""
        fake = self.fake
        channels = {
            "table": fake.channel_id,
            "thread": fake.thread_id,
            "lobby": fake.other_channel_id,
            "gm log": fake.gm_log_channel_id,
            "rival table": self.rival.channel_id,
            "rival lobby": self.rival.other_channel_id,
        }
        counts = {name: len(fake.channel_messages(id_)) for name, id_ in channels.items()}
        for user in ("gm", "player", "admin"):
            counts[f"DMs of {user}"] = len(fake.dm_messages(user))
        return counts


@pytest.fixture
async def servers(fake_discord: FakeDiscord, migrated_sqlite: Path) -> AsyncIterator[Servers]:
    rival = fake_discord.add_guild("Rival Table", shard=(0, 1))
    # No GUILD_ID: commands sync globally, so the clients in both servers see them.
    settings = bot_settings(fake_discord, migrated_sqlite, guild_sync=False)
    bot = create_bot(settings, rng=new_rng(DICE_SEED))
    sync_as_the_first_start_did(bot, fake_discord)
    async with run_bot(fake_discord, bot):
        found = Servers(fake_discord, bot, rival)
        yield found
        await found.settled()


async def start_table(servers: Servers, system: str) -> None:
    """A campaign with a private GM log channel, and the player's character where needed."""
    fake = servers.fake
    started = await fake.invoke("campaign start", {"system": system, "name": "Secrets"})
    assert not started.ephemeral, started.content
    logged = await fake.invoke("campaign settings", {"gm_channel": fake.gm_log_channel_id})
    assert logged.ephemeral and f"GM log channel: <#{fake.gm_log_channel_id}>" in logged.content
    if system == "sinew":
        created = await create_sinew(fake, CHARACTER[system])
        assert not created.ephemeral, created.content
    elif system == "sixpool":
        created = await create_sixpool(fake, CHARACTER[system])
        assert not created.ephemeral, created.content
    elif system == "aethelgard":
        await create_aethelgard(fake)  # Ysolde, checked there


def forged(fake: FakeDiscord, channel_id: int, custom_id: str) -> FakeMessage:
    """A message of the bot's in ``channel_id`` carrying a button with ``custom_id``, as a
    forged or replayed press presents it (discord.py answers only buttons the message has)."""
    button = {"type": 2, "style": 1, "label": "Press", "custom_id": custom_id}
    return FakeMessage(
        id=payloads.snowflake(),
        channel_id=channel_id,
        author=payloads.user(fake.bot_user),
        components=[{"type": 1, "components": [button]}],
    )


@dataclass(frozen=True)
class Case:
    system: str
    command: str
    options: dict[str, Any] = field(default_factory=dict)
    names_character: bool = False  # a GM rolls it for the player's character

    def asked(self, visibility: Visibility) -> tuple[str, dict[str, Any]]:
        """Who rolls, and the options, for ``visibility``: a GM's hidden roll (for the
        player's character where it needs one) or the player's own blind roll."""
        if visibility is Visibility.HIDDEN:
            named = {"character": CHARACTER[self.system]} if self.names_character else {}
            return "gm", {**self.options, **named, "hidden": True}
        return "player", {**self.options, "blind": True}


ROLLS = [
    Case("cosmos", "roll", {"expression": "1d20+3"}),
    Case("cosmos", "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15}),
    Case(
        "cosmos", "cosmos opposed", {"attribute": 3, "skill": 2, "vs_attribute": 2, "vs_skill": 1}
    ),
    Case("realms", "realms check", {"die": "d20", "target": 11}),
    Case("realms", "realms attack", {"dice": 2, "to_hit": 10, "damage": "1d8+1"}),
    Case("realms", "realms stealth", {"dice": 3}),
    Case("sinew", "sinew test", {"attribute": "ref"}, names_character=True),
    Case("sinew", "sinew luck test", {}, names_character=True),
    Case("sinew", "sinew opposed", {"attribute": "ref", "vs_score": 10}, names_character=True),
    Case("aethelgard", "aethelgard roll", {"pool": 6, "dc": 2}),
    Case("aethelgard", "aethelgard check", {"attribute": "WITS"}, names_character=True),
    Case("sixpool", "sixpool check", {"pool": "DEX", "dc": 12}, names_character=True),
    Case("sixpool", "sixpool take", {"pool": "DEX", "dc": 12, "value": 10}, names_character=True),
]
SECRET = [Visibility.HIDDEN, Visibility.BLIND]


def secret_roll_id(reply: Reply, visibility: Visibility) -> int:
    """Check what the roller is shown of a secret roll; return the roll's id."""
    assert reply.ephemeral, reply.content
    if visibility is Visibility.BLIND:
        # The player sees that they rolled, never the dice, the total or the verdict.
        assert reply.embeds == [] and reply.components == [], reply.embeds
        prefix = "🙈 You rolled in secret: the GM has the result (roll #"
        assert reply.content.startswith(prefix), reply.content
        return int(reply.content.removeprefix(prefix).removesuffix(").").strip())
    # The GM sees the roll privately, with Reveal.
    [embed] = reply.embeds
    footer = embed["footer"]["text"]
    assert footer.startswith("Hidden roll #"), footer
    roll_id = int(footer.removeprefix("Hidden roll #").split(":")[0])
    assert f"roll:reveal:{roll_id}" in reply.original.custom_ids()
    return roll_id


async def check_secret_everywhere(
    servers: Servers, roll_id: int, visibility: Visibility, before: dict[str, int]
) -> LoggedRoll:
    """After a secret roll: only the GM log channel got it; nobody else saw anything; the
    other server's owner can't reveal it; a GM reveals it to the table."""
    fake, bot = servers.fake, servers.bot
    await servers.settled()
    logged = await bot.storage.rolls.get(roll_id)
    assert logged is not None and logged.visibility is visibility and logged.revealed_at is None
    after = servers.posted()
    assert after == {**before, "gm log": before["gm log"] + 1}, (before, after)
    copy = fake.channel_messages(fake.gm_log_channel_id)[-1]
    assert copy["embeds"][0]["title"] == logged.payload["embed"]["title"]
    gm_log_message = fake.channel_message(fake.gm_log_channel_id, copy["id"])
    assert gm_log_message.custom_ids() == [f"roll:reveal:{roll_id}"]

    # Another player: not in the public log, and can't reveal it.
    history = await fake.invoke("campaign log", {}, user="player")
    assert f"`#{roll_id}`" not in history.embeds[0]["description"]
    refused = await fake.invoke("campaign reveal", {"roll_id": roll_id}, user="player")
    assert refused.ephemeral and "Only a GM of the campaign" in refused.content

    # The other server's owner: by command and by a forged Reveal press, it's no roll there.
    rival = servers.rival
    by_command = await fake.invoke(
        "campaign reveal", {"roll_id": roll_id}, user="admin", channel=rival.channel_id
    )
    assert by_command.ephemeral
    assert by_command.content == f"❌ There is no roll #{roll_id} in this server."
    reveal = f"roll:reveal:{roll_id}"
    pressed = await fake.click(forged(fake, rival.channel_id, reveal), reveal, user="admin")
    assert pressed.ephemeral and f"no roll #{roll_id} in this server" in pressed.content
    await servers.settled()
    assert (await logged_roll(bot.storage, roll_id)).revealed_at is None
    assert servers.posted()["table"] == before["table"]

    # A GM reveals it from the GM log channel: the table sees it, once.
    revealed = await fake.click(gm_log_message, f"roll:reveal:{roll_id}", user="gm")
    assert revealed.ephemeral and f"Revealed roll #{roll_id}" in revealed.content
    await servers.settled()
    shown = fake.channel_messages(fake.channel_id)[-1]
    assert shown["embeds"][0]["title"] == logged.payload["embed"]["title"]  # verdict first
    assert revealed_line(shown["embeds"][0]).startswith("Rolled in secret")
    history = await fake.invoke("campaign log", {}, user="player")
    assert f"`#{roll_id}`" in history.embeds[0]["description"]
    return logged


@pytest.mark.parametrize("visibility", SECRET, ids=lambda v: v.value)
@pytest.mark.parametrize("case", ROLLS, ids=lambda c: c.command)
async def test_secrecy_matrix_of_every_roll_command(
    servers: Servers, case: Case, visibility: Visibility
) -> None:
    await start_table(servers, case.system)
    before = servers.posted()
    user, options = case.asked(visibility)
    reply = await servers.fake.invoke(case.command, options, user=user)
    roll_id = secret_roll_id(reply, visibility)
    logged = await check_secret_everywhere(servers, roll_id, visibility, before)
    assert logged.user_id == servers.fake.users[user].id


@pytest.mark.parametrize("system", sorted({case.system for case in ROLLS}))
async def test_secrecy_matrix_a_players_hidden_roll_is_refused_and_nothing_rolled(
    servers: Servers, system: str
) -> None:
    """`hidden` is a GM's: a player asking it of any roll command is refused privately,
    nothing is rolled, logged or posted anywhere (`blind` is the player's secret roll)."""
    await start_table(servers, system)
    before = servers.posted()
    for case in (case for case in ROLLS if case.system == system):
        reply = await servers.fake.invoke(
            case.command, {**case.options, "hidden": True}, user="player"
        )
        assert reply.ephemeral and "Only a GM can roll hidden" in reply.content, case.command
        assert reply.embeds == [] and reply.components == [], case.command
    await servers.settled()
    assert servers.posted() == before
    assert await servers.bot.storage.rolls.get(1) is None


async def roll_secret(servers: Servers, case: Case, visibility: Visibility) -> Reply:
    user, options = case.asked(visibility)
    reply = await servers.fake.invoke(case.command, options, user=user)
    secret_roll_id(reply, visibility)
    await servers.settled()
    return reply


def roller(visibility: Visibility) -> str:
    return "gm" if visibility is Visibility.HIDDEN else "player"


@pytest.mark.parametrize("visibility", SECRET, ids=lambda v: v.value)
async def test_secrecy_matrix_a_realms_reroll_is_as_secret_as_its_roll(
    servers: Servers, visibility: Visibility
) -> None:
    await start_table(servers, "realms")
    if visibility is Visibility.BLIND:  # in a campaign the reroll is a trait the GM gives
        await servers.fake.invoke("realms trait add", {"user": servers.fake.users["player"]})
    await roll_secret(servers, ROLLS[3], visibility)
    before = servers.posted()
    reply = await servers.fake.invoke("realms reroll", {"position": 1}, user=roller(visibility))
    roll_id = secret_roll_id(reply, visibility)
    assert roll_id == 2
    await check_secret_everywhere(servers, roll_id, visibility, before)


@pytest.mark.parametrize("visibility", SECRET, ids=lambda v: v.value)
async def test_secrecy_matrix_a_luck_spend_is_as_secret_as_its_test(
    servers: Servers, visibility: Visibility
) -> None:
    await start_table(servers, "sinew")
    # A failed REF 11 test that one token can't turn: the spend shows a changed roll.
    servers.bot.rng = new_rng(seed_where(lambda r: not r.success and r.roll > 13, 11))
    await roll_secret(servers, Case("sinew", "sinew test", {"attribute": "ref"}, True), visibility)
    before = servers.posted()
    reply = await servers.fake.invoke("sinew luck spend", {"tokens": 1}, user=roller(visibility))
    roll_id = secret_roll_id(reply, visibility)
    logged = await check_secret_everywhere(servers, roll_id, visibility, before)
    assert logged.payload["result"]["shift"] == 1


async def test_secrecy_matrix_a_forged_luck_button_under_a_blind_test_shows_nothing(
    servers: Servers,
) -> None:
    await start_table(servers, "sinew")
    servers.bot.rng = new_rng(seed_where(lambda r: not r.success and r.roll > 13, 11))
    case = Case("sinew", "sinew test", {"attribute": "ref"}, True)
    blind = await roll_secret(servers, case, Visibility.BLIND)
    before = servers.posted()
    fake = servers.fake
    button = forged(fake, fake.channel_id, "sinew:luck:1:1")
    pressed = await fake.click(button, "sinew:luck:1:1", user="player")
    roll_id = secret_roll_id(pressed, Visibility.BLIND)
    assert blind.embeds == []  # the pressed message was not edited into the roll either
    await check_secret_everywhere(servers, roll_id, Visibility.BLIND, before)


@pytest.mark.parametrize("visibility", SECRET, ids=lambda v: v.value)
async def test_secrecy_matrix_an_inspiration_reroll_is_as_secret_as_its_roll(
    servers: Servers, visibility: Visibility
) -> None:
    fake = servers.fake
    await start_table(servers, "sixpool")
    await fake.invoke("sixpool inspire", {"user": fake.users["player"]}, user="gm")
    reply = await roll_secret(servers, ROLLS[11], visibility)
    if visibility is Visibility.BLIND:
        assert reply.components == []  # no Reroll buttons: they would show the dice
    before = servers.posted()
    # The roller's buttons, or (blind) a forged press of one.
    target = reply if reply.components else forged(fake, fake.channel_id, "sixpool:reroll:1:0")
    pressed = await fake.click(target, "sixpool:reroll:1:0", user=roller(visibility))
    roll_id = secret_roll_id(pressed, visibility)
    assert roll_id == 2
    await check_secret_everywhere(servers, roll_id, visibility, before)


async def test_secrecy_matrix_a_forged_roll_again_under_a_blind_roll_rolls_blind(
    servers: Servers,
) -> None:
    await start_table(servers, "cosmos")
    await roll_secret(servers, ROLLS[0], Visibility.BLIND)
    before = servers.posted()
    fake = servers.fake
    button = forged(fake, fake.channel_id, "roll:again:1")
    pressed = await fake.click(button, "roll:again:1", user="player")
    roll_id = secret_roll_id(pressed, Visibility.BLIND)
    assert roll_id == 2
    await check_secret_everywhere(servers, roll_id, Visibility.BLIND, before)


async def test_sinew_luck_spend_on_a_public_test_stays_public(servers: Servers) -> None:
    # The other side of inheritance: a public roll's follow-up is public.
    await start_table(servers, "sinew")
    servers.bot.rng = new_rng(seed_where(lambda r: not r.success and r.roll > 13, 11))
    test = await servers.fake.invoke("sinew test", {"attribute": "ref"}, user="player")
    reply = await servers.fake.invoke("sinew luck spend", {"tokens": 1}, user="player")
    # The spender hears privately; the table sees the spend on the test's public message.
    assert reply.ephemeral and reply.content.startswith("🍀 Luck spent on roll #1")
    assert not test.ephemeral and test.embeds[0]["footer"]["text"] == "Roll #2"
    logged = await logged_roll(servers.bot.storage, 2)
    assert logged.visibility is Visibility.PUBLIC
