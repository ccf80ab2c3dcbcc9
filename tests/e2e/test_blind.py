"""Blind rolls and the GM log channel: nobody but the GMs sees a secret result until revealed."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from bot.client import DiceBot
from bot.storage import Visibility
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.e2e.test_buttons import restarted
from tests.expect import logged_roll, revealed_line
from tests.fakediscord.fixtures import settled
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def campaign_with_gm_channel(fake: FakeDiscord) -> None:
    await fake.invoke("campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm")
    refused = await fake.invoke(
        "campaign settings", {"gm_channel": fake.gm_log_channel_id}, user="player"
    )
    assert refused.ephemeral and "GM" in refused.content
    done = await fake.invoke("campaign settings", {"gm_channel": fake.gm_log_channel_id}, user="gm")
    assert done.ephemeral and f"GM log channel: <#{fake.gm_log_channel_id}>" in done.content


async def test_blind_roll_goes_to_the_gm_log_channel_only(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await campaign_with_gm_channel(fake_discord)
    dicebot.rng = new_rng(4)
    expected = roll_expression("1d20+7", new_rng(4))
    reply = await fake_discord.invoke(
        "roll", {"expression": "1d20+7", "blind": True}, user="player"
    )
    assert reply.ephemeral and reply.embeds == []
    assert reply.content == "🙈 You rolled in secret: the GM has the result (roll #1)."
    assert str(expected.total) not in reply.content
    [posted] = await fake_discord.wait_channel_messages(fake_discord.gm_log_channel_id)
    assert expected.breakdown in posted["embeds"][0]["description"]
    assert posted["embeds"][0]["footer"]["text"] == "Secret roll #1 by player"
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert f"GM log channel: <#{fake_discord.gm_log_channel_id}>" in str(info.embeds[0])
    logged = await logged_roll(dicebot.storage, 1)
    assert logged.visibility is Visibility.BLIND


async def test_reveal_from_the_gm_log_channel_posts_in_the_campaign_channel(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await campaign_with_gm_channel(fake_discord)
    await fake_discord.invoke("roll", {"expression": "2d6", "blind": True}, user="player")
    [posted] = await fake_discord.wait_channel_messages(fake_discord.gm_log_channel_id)
    message = fake_discord.channel_message(fake_discord.gm_log_channel_id, posted["id"])
    stranger = await fake_discord.click(message, "roll:reveal:1", user="player")
    assert stranger.ephemeral
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    revealed = await fake_discord.click(message, "roll:reveal:1", user="gm")
    assert revealed.ephemeral and f"in <#{fake_discord.channel_id}>" in revealed.content
    [shown] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert revealed_line(shown["embeds"][0]).endswith("a blind roll, seen by the GMs only")


async def test_hidden_gm_roll_is_also_posted_to_the_gm_log_channel(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await campaign_with_gm_channel(fake_discord)
    hidden = await fake_discord.invoke("roll", {"expression": "1d20", "hidden": True}, user="gm")
    assert hidden.ephemeral
    [posted] = await fake_discord.wait_channel_messages(fake_discord.gm_log_channel_id)
    assert posted["embeds"][0]["footer"]["text"] == "Secret roll #1 by gm"


async def test_blind_roll_without_a_gm_channel_goes_to_the_gms_by_dm(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    dicebot.rng = new_rng(2)
    expected = roll_expression("1d8", new_rng(2))
    await fake_discord.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    await fake_discord.wait_until(lambda: fake_discord.dm_messages("gm"), "the GM's DM")
    [dm] = fake_discord.dm_messages("gm")
    assert expected.breakdown in dm["embeds"][0]["description"]
    assert fake_discord.dm_messages("player") == []
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_closed_dms_and_no_channel_tell_the_player_the_roll_is_logged(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke(
        "campaign start", {"system": "cosmos", "name": "Far Stars"}, user="gm"
    )
    fake_discord.closed_dms.add(fake_discord.users["gm"].id)
    reply = await fake_discord.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    await fake_discord.wait_until(lambda: reply.followups, "the warning")
    assert "No GM could be reached" in reply.followups[0].content
    assert reply.followups[0].ephemeral


async def test_secret_notice_and_bad_blind_requests(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    outside = await fake_discord.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    assert outside.ephemeral and "no running campaign" in outside.content
    await campaign_with_gm_channel(fake_discord)
    both = await fake_discord.invoke(
        "roll", {"expression": "1d8", "blind": True, "hidden": True}, user="gm"
    )
    assert both.ephemeral and "not both" in both.content
    await fake_discord.invoke("campaign settings", {"secret_notice": True}, user="gm")
    await fake_discord.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    [notice] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert notice["content"] == "🎲 player rolled in secret." and notice["embeds"] == []


SIXPOOL_POOLS = {"str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}
SINEW_SCORES = {"str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
# Each system's roll commands, with what a player needs first (a character) and the options.
BLIND_COMMANDS = [
    ("cosmos", None, "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15}),
    ("cosmos", None, "cosmos opposed",
     {"attribute": 3, "skill": 2, "vs_attribute": 2, "vs_skill": 1}),
    ("sinew", ("sinew character create", {"name": "Brakka", **SINEW_SCORES}),
     "sinew test", {"attribute": "str"}),
    ("sinew", ("sinew character create", {"name": "Brakka", **SINEW_SCORES}),
     "sinew luck test", {}),
    ("sinew", ("sinew character create", {"name": "Brakka", **SINEW_SCORES}),
     "sinew opposed", {"attribute": "str", "vs_score": 11}),
    ("sinew", ("sinew character create", {"name": "Brakka", **SINEW_SCORES}),
     "sinew attack", {"attribute": "str", "edge": "brutal", "vs_score": 11}),
    ("sixpool", ("sixpool character create",
                 {"name": "Rin", "level": 1, "primary": "DEX", **SIXPOOL_POOLS}),
     "sixpool check", {"pool": "DEX", "dc": 12, "spend": 1}),
    ("sixpool", ("sixpool character create",
                 {"name": "Rin", "level": 1, "primary": "DEX", **SIXPOOL_POOLS}),
     "sixpool attack", {"pool": "STR", "ac": 13}),
    ("sixpool", ("sixpool character create",
                 {"name": "Rin", "level": 1, "primary": "DEX", **SIXPOOL_POOLS}),
     "sixpool save", {"pool": "WIS", "dc": 11}),
    ("aethelgard", None, "aethelgard roll", {"pool": 6}),
    ("aethelgard", None, "aethelgard opposed", {"pool": 6, "vs_pool": 5}),
    ("aethelgard", None, "aethelgard attack", {"accuracy": 6, "defense": 1, "damage": 4}),
    ("aethelgard", None, "aethelgard craft", {"pool": 6}),
    ("aethelgard", ("aethelgard character create",
                    {"name": "Ysolde", "might": 4, "finesse": 6, "wits": 8, "will": 5,
                     "sturdiness": 3}),
     "aethelgard check", {"attribute": "WITS"}),
    ("realms", None, "realms attack", {"dice": 2, "to_hit": 11, "damage": "1d8+1"}),
    ("realms", None, "realms check", {"die": "d20", "target": 12}),
    ("realms", None, "realms stealth", {"dice": 3}),
]  # fmt: skip


async def secret_table(
    fake: FakeDiscord, system: str, setup: tuple[str, dict[str, object]] | None, user: str
) -> None:
    """A campaign of ``system`` with a GM log channel, and ``user``'s character if one is needed."""
    await fake.invoke("campaign start", {"system": system, "name": "Secrets"}, user="gm")
    await fake.invoke("campaign settings", {"gm_channel": fake.gm_log_channel_id}, user="gm")
    if setup is not None:
        created = await fake.invoke(setup[0], setup[1], user=user)
        assert not created.ephemeral, created.content


@pytest.mark.parametrize(("system", "setup", "command", "options"), BLIND_COMMANDS)
async def test_no_one_but_the_gms_sees_a_blind_result_in_any_system(
    fake_discord: FakeDiscord,
    dicebot: DiceBot,
    system: str,
    setup: tuple[str, dict[str, object]] | None,
    command: str,
    options: dict[str, object],
) -> None:
    await secret_table(fake_discord, system, setup, user="player")
    reply = await fake_discord.invoke(command, {**options, "blind": True}, user="player")
    assert reply.ephemeral and reply.embeds == [], reply.content
    assert reply.content.startswith("🙈 You rolled in secret: the GM has the result (roll #")
    [posted] = await fake_discord.wait_channel_messages(fake_discord.gm_log_channel_id)
    assert posted["embeds"] and posted["embeds"][0]["title"]
    await asyncio.sleep(0.05)  # nothing else arrives: no announcement, no notice
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    assert fake_discord.dm_messages("player") == []
    roll_id = int(reply.content.split("#")[1].rstrip(")."))
    logged = await logged_roll(dicebot.storage, roll_id)
    assert logged.visibility is Visibility.BLIND


async def test_a_public_crit_is_shown_in_its_roll_and_never_posted_again(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # No switch for it any more: the table sees the crit in the roll's own title.
    await fake_discord.invoke("campaign start", {"system": "realms", "name": "Vale"}, user="gm")
    nothing = await fake_discord.invoke("campaign settings", {}, user="gm")
    assert nothing.ephemeral and "Say what to change" in nothing.content
    assert "announcements" not in nothing.content
    seed = next(s for s in range(5000) if max(np.random.default_rng(s).integers(1, 21, 2)) == 20)
    dicebot.rng = new_rng(seed)
    natural = await fake_discord.invoke(
        "realms check", {"die": "d20", "advantage": 1}, user="player"
    )
    assert natural.embeds[0]["title"].startswith("✨ NATURAL 20")  # still in the reply
    await asyncio.sleep(0.05)
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert "announcements" not in str(info.embeds[0])


async def test_gm_rolls_default_to_hidden_when_the_campaign_says_so_after_a_restart(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Shadows"}, user="gm")
    refused = await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"}, user="player")
    assert refused.ephemeral and "GM" in refused.content
    done = await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"}, user="gm")
    assert "GM rolls: hidden unless said otherwise" in done.content
    async with restarted(fake_discord, dicebot, seed=6) as bot:
        plain = await fake_discord.invoke("roll", {"expression": "1d20"}, user="gm")
        assert plain.ephemeral and plain.embeds[0]["footer"]["text"].startswith("Hidden roll #")
        system = await fake_discord.invoke(
            "cosmos roll", {"attribute": 3, "skill": 2, "tn": 15}, user="gm"
        )
        assert system.ephemeral and system.embeds[0]["footer"]["text"].startswith("Hidden roll #")
        shown = await fake_discord.invoke(
            "roll", {"expression": "1d20", "hidden": False}, user="gm"
        )
        assert not shown.ephemeral  # the GM said so
        player = await fake_discord.invoke("roll", {"expression": "1d20"}, user="player")
        assert not player.ephemeral  # players' rolls are theirs to show
        blind = await fake_discord.invoke("roll", {"expression": "1d20", "blind": True}, user="gm")
        assert blind.ephemeral and "rolled in secret" in blind.content  # not "hidden and blind"
        logged = [await logged_roll(bot.storage, roll_id) for roll_id in (1, 2, 3, 4)]
        assert [roll.visibility.secret for roll in logged] == [True, True, False, False]
        back = await fake_discord.invoke("campaign settings", {"gm_rolls": "public"}, user="gm")
        assert "GM rolls: public unless said otherwise" in back.content
        again = await fake_discord.invoke("roll", {"expression": "1d20"}, user="gm")
        assert not again.ephemeral


@pytest.mark.parametrize(
    ("system", "setup", "command", "options"),
    [("cosmos", None, "roll", {"expression": "4d6kh3+2"}), *BLIND_COMMANDS],
)
async def test_no_one_but_the_gms_sees_a_hidden_gm_result_in_any_system(
    fake_discord: FakeDiscord,
    dicebot: DiceBot,
    system: str,
    setup: tuple[str, dict[str, object]] | None,
    command: str,
    options: dict[str, object],
) -> None:
    await secret_table(fake_discord, system, setup, user="gm")  # the GM's character: an NPC
    reply = await fake_discord.invoke(command, {**options, "hidden": True}, user="gm")
    assert reply.ephemeral and reply.embeds, reply.content  # the GM sees the dice
    [posted] = await fake_discord.wait_channel_messages(fake_discord.gm_log_channel_id)
    assert posted["embeds"][0]["title"] == reply.embeds[0]["title"]  # the GM log's copy
    await asyncio.sleep(0.05)  # nothing else arrives: no announcement
    assert fake_discord.channel_messages(fake_discord.channel_id) == []
    assert fake_discord.dm_messages("player") == []


async def test_secret_notice_tells_the_channel_of_a_gms_hidden_roll_as_of_a_blind_one(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await campaign_with_gm_channel(fake_discord)
    quiet = await fake_discord.invoke("roll", {"expression": "1d8", "hidden": True}, user="gm")
    assert quiet.ephemeral
    await settled(fake_discord, dicebot)
    assert fake_discord.channel_messages(fake_discord.channel_id) == []  # the notice is off
    await fake_discord.invoke("campaign settings", {"secret_notice": True}, user="gm")
    hidden = await fake_discord.invoke("roll", {"expression": "1d8", "hidden": True}, user="gm")
    assert hidden.ephemeral and hidden.embeds  # the GM sees the result, privately
    [notice] = await fake_discord.wait_channel_messages(fake_discord.channel_id)
    assert notice["content"] == "🎲 gm rolled in secret." and notice["embeds"] == []
    await fake_discord.invoke("roll", {"expression": "1d8", "blind": True}, user="player")
    notices = await fake_discord.wait_channel_messages(fake_discord.channel_id, 2)
    assert [message["content"] for message in notices] == [
        "🎲 gm rolled in secret.",
        "🎲 player rolled in secret.",
    ]
