"""`/sixpool` after the second rules audit, end to end through the fake Discord with seeded
dice (docs/players/sixpool.md, "Rules notes"): inspiration on any d20 roll of its holder (either
side of a contest, a group-check roll, its reroll after them), a GM's NPC challenging a player (a
tie goes to the player), and each side of a contest between players logged and recapped under its
own roller. Every expected die is drawn here from the seed, as the bot draws them."""

from __future__ import annotations

import asyncio
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from bot.client import DiceBot
from bot.storage import RollEntry, Visibility
from rules.randomness import new_rng
from rules.sixpool import Pool
from tests.e2e.test_sixpool import character, create, start
from tests.expect import logged_roll
from tests.fakediscord.messages import FakeMessage
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


def draws(seed: int, *counts: int) -> list[tuple[int, ...]]:
    """The d20s a seeded generator rolls, one call per count (each side of a contest is one
    call: two dice with advantage, else one)."""
    rng = np.random.default_rng(seed)
    return [tuple(int(face) for face in rng.integers(1, 21, size=count)) for count in counts]


def seed_drawing(predicate: Any, *counts: int) -> int:
    return next(seed for seed in range(10_000) if predicate(*draws(seed, *counts)))


async def inspire(fake: FakeDiscord, user: str) -> None:
    reply = await fake.invoke("sixpool inspire", {"user": fake.users[user]}, user="gm")
    assert not reply.ephemeral, reply.content


async def players(fake: FakeDiscord) -> None:
    """Rin (the player's, level 1, DEX 8) and Vex (the GM's, the same sheet)."""
    await start(fake)
    await create(fake)
    await create(fake, "Vex", user="gm")


async def challenged(fake: FakeDiscord, **options: Any) -> FakeMessage:
    """Rin challenges Vex (DEX vs WIS); return the prompt in the channel."""
    asked = {"pool": "DEX", "vs_user": fake.users["gm"], "vs_pool": "WIS", **options}
    sent = await fake.invoke("sixpool contest", asked, user="player")
    assert sent.ephemeral and "stays secret" in sent.content, sent.content
    [prompt] = await fake.wait_channel_messages(fake.channel_id)
    return fake.channel_message(fake.channel_id, prompt["id"])


async def declared(
    fake: FakeDiscord, bot: DiceBot, prompt: FakeMessage, seed: int, *, inspired: bool = False
) -> FakeMessage:
    """The defender declares a spend of 0 (and inspiration, from the second list); return
    the contest's result in the channel."""
    choice = await fake.click(prompt, "sixpool:contest:1", user="gm")
    assert choice.ephemeral, choice.content
    most = choice.original.custom_ids()[0].rsplit(":", 1)[1]
    bot.rng = new_rng(seed)
    select = f"sixpool:spend:1:{most}" + (":inspired" if inspired else "")
    picked = await fake.click(choice, select, user="gm", values=["0"])
    assert "You spend 0" in picked.content, picked.content
    posted = await fake.wait_channel_messages(fake.channel_id, 2)
    return fake.channel_message(fake.channel_id, posted[1]["id"])


def dice_lines(embed: dict[str, Any]) -> list[str]:
    return str(embed["description"]).split("\n")


# --- 1. Inspiration on either side of a contest and on a group-check roll


async def test_rule_challenger_spends_inspiration_on_a_contest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Against an NPC's modifier at once, and against a player once they declare: 2d20 keep
    the higher, and the inspiration is gone."""
    fake = fake_discord
    await players(fake)
    npc = {"pool": "DEX", "vs_modifier": 3, "inspiration": True}
    refused = await fake.invoke("sixpool contest", npc, user="player")
    assert refused.ephemeral and "no inspiration to spend" in refused.content
    await inspire(fake, "player")
    seed = seed_drawing(lambda ours, theirs: ours[0] != ours[1], 2, 1)
    (first, second), (theirs,) = draws(seed, 2, 1)
    dicebot.rng = new_rng(seed)
    reply = await fake.invoke("sixpool contest", npc, user="player")
    assert not reply.ephemeral, reply.content
    lines = dice_lines(reply.embeds[0])
    assert lines[0] == "🎲 Rin: 2d20, keep the higher (advantage): " + ", ".join(
        f"**{face}**" if face == max(first, second) else f"~~{face}~~" for face in (first, second)
    )
    assert reply.embeds[0]["title"].endswith(f" · {max(first, second)} vs {theirs + 3}")
    assert "Rin spent inspiration for advantage." in lines
    assert not (await character(fake, dicebot)).sheet.inspired
    # Against a player: declared with the challenge, spent when both roll.
    await inspire(fake, "player")
    prompt = await challenged(fake, inspiration=True)
    result = await declared(fake, dicebot, prompt, seed)
    lines = dice_lines(result.embeds[0])
    assert lines[0].startswith("🎲 Rin: 2d20, keep the higher (advantage): ")
    assert lines[1] == f"Vex: 1d20: **{theirs}**"
    assert result.embeds[0]["title"].endswith(f" · {max(first, second)} vs {theirs}")
    assert not (await character(fake, dicebot)).sheet.inspired


async def test_rule_defender_spends_inspiration_with_their_spend(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    prompt = await challenged(fake)
    plain = await fake.click(prompt, "sixpool:contest:1", user="gm")
    assert plain.original.custom_ids() == ["sixpool:spend:1:3"]  # no inspiration: one list
    await inspire(fake, "gm")
    choice = await fake.click(prompt, "sixpool:contest:1", user="gm")
    assert "You hold inspiration: the second list spends it" in choice.content
    assert choice.original.custom_ids() == ["sixpool:spend:1:3", "sixpool:spend:1:3:inspired"]
    seed = seed_drawing(lambda ours, theirs: theirs[0] != theirs[1], 1, 2)
    (ours,), (first, second) = draws(seed, 1, 2)
    dicebot.rng = new_rng(seed)
    picked = await fake.click(choice, "sixpool:spend:1:3:inspired", user="gm", values=["1"])
    assert picked.content == "✅ You spend 1 and your inspiration. The result is in the channel."
    posted = await fake.wait_channel_messages(fake.channel_id, 2)
    result = posted[1]["embeds"][0]
    lines = dice_lines(result)
    assert lines[0] == f"🎲 Rin: 1d20: **{ours}**"
    assert lines[1].startswith("Vex: 2d20, keep the higher (advantage): ")
    assert result["title"].endswith(f" · {ours} vs {max(first, second) + 1}")
    assert "Vex spent inspiration for advantage." in lines
    vex = (await character(fake, dicebot, "Vex")).sheet
    assert not vex.inspired and vex.points(Pool.WIS) == 3


async def test_rule_group_check_roll_spends_inspiration(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    group = await fake.invoke("sixpool group", {"dc": 12, "pool": "DEX"}, user="gm")
    choice = await fake.click(group, "sixpool:group:1:roll", user="player")
    assert "holding inspiration: the second list spends it" in choice.content
    assert choice.original.custom_ids() == [
        "sixpool:groupspend:1:5",
        "sixpool:groupspend:1:5:inspired",
    ]
    seed = seed_drawing(lambda faces: faces[0] != faces[1], 2)
    [(first, second)] = draws(seed, 2)
    dicebot.rng = new_rng(seed)
    rolled = await fake.click(choice, "sixpool:groupspend:1:5:inspired", user="player",
                              values=["2"])  # fmt: skip
    embed = rolled.embeds[0]
    assert embed["description"].startswith("🎲 2d20, keep the higher (advantage)")
    assert embed["title"].endswith(f" · total {max(first, second) + 2}")
    assert rolled.original.custom_ids() == []  # spent: no reroll to offer
    sheet = (await character(fake, dicebot)).sheet
    assert not sheet.inspired and sheet.points(Pool.DEX) == 6


# --- 1b. Inspiration's reroll after a contest roll and a group-check roll


async def test_rule_inspiration_reroll_after_a_contest_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Vex defends holding inspiration and doesn't spend it: the contest's message offers
    Vex's die to reroll; only Vex may, once; the contest is decided anew as a roll of Vex's."""
    fake = fake_discord
    await players(fake)
    await inspire(fake, "gm")
    seed = seed_drawing(lambda ours, theirs: ours[0] > theirs[0] + 1, 1, 1)
    (ours,), (theirs,) = draws(seed, 1, 1)
    result = await declared(fake, dicebot, await challenged(fake), seed)
    assert result.custom_ids() == ["sixpool:reroll:2:0"]  # Vex's side is roll #2
    [button] = [c for row in result.components for c in row["components"]]
    assert button["label"] == f"Vex: reroll die 1 ({theirs})"
    stranger = await fake.click(result, "sixpool:reroll:2:0", user="player")
    assert stranger.ephemeral and "who made roll #2, can reroll" in stranger.content
    again = seed_drawing(lambda face: face[0] + 0 >= ours, 1)
    [(new_face,)] = draws(again, 1)
    dicebot.rng = new_rng(again)
    pressed = await fake.click(result, "sixpool:reroll:2:0", user="gm")
    assert not pressed.ephemeral, pressed.content
    embed = result.embeds[0]  # the contest's message, edited in place
    reason = "a tie holds" if new_face == ours else "higher total"
    title = f"✅ Vex wins ({reason}) · Vex: contest vs Rin: WIS vs DEX · {new_face} vs {ours}"
    assert embed["title"] == title
    assert f"Inspiration spent: Vex's die 1 rerolled, {theirs} → {new_face}." in dice_lines(embed)
    assert embed["footer"]["text"] == "Roll #3"
    assert result.custom_ids() == []  # spent
    assert not (await character(fake, dicebot, "Vex")).sheet.inspired
    rerolled = await logged_roll(dicebot.storage, 3)
    assert rerolled.user_id == fake.users["gm"].id and rerolled.kind == "sixpool.contest"
    assert rerolled.payload["result"]["roller"] == "defender"
    assert rerolled.payload["options"]["contest_of"] == 1  # the contest Rin's roll #1 opened
    # Rin's recap: her one side, lost as the contest ended; Vex's: two rolls, one side, won.
    recap = await fake.invoke("campaign recap", {}, user="player")
    fields = {field["name"]: field["value"] for field in recap.embeds[0]["fields"]}
    assert fields["player"].startswith("1 roll") and "contests 0 won, 1 lost" in fields["player"]
    assert fields["gm"].startswith("2 rolls") and "contests 1 won, 0 lost" in fields["gm"]


async def test_rule_inspiration_reroll_after_a_contest_against_an_npc_and_a_group_roll(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    seed = 11
    dicebot.rng = new_rng(seed)
    _, (theirs,) = draws(seed, 1, 1)
    contest = await fake.invoke("sixpool contest", {"pool": "DEX", "vs_modifier": 2},
                                user="player")  # fmt: skip
    assert contest.original.custom_ids() == ["sixpool:reroll:1:0"]
    dicebot.rng = new_rng(7)
    [(new_face,)] = draws(7, 1)
    pressed = await fake.click(contest, "sixpool:reroll:1:0", user="player")
    assert pressed.embeds[0]["title"].endswith(f"· Rin: contest vs Opponent: DEX contest · "
                                               f"{new_face} vs {theirs + 2}")  # fmt: skip
    assert not (await character(fake, dicebot)).sheet.inspired
    # A group-check roll: its reroll is offered privately with it, and the check counts anew.
    await inspire(fake, "player")
    group = await fake.invoke("sixpool group", {"dc": 15, "pool": "DEX"}, user="gm")
    failing = seed_drawing(lambda face: 1 < face[0] < 14, 1)
    choice = await fake.click(group, "sixpool:group:1:roll", user="player")
    dicebot.rng = new_rng(failing)
    rolled = await fake.click(choice, "sixpool:groupspend:1:5", user="player", values=["0"])
    assert rolled.original.custom_ids() == ["sixpool:reroll:3:0"]
    await fake.wait_until(
        lambda: group.embeds[0]["fields"][-1]["value"].startswith("❌ Rin: "),
        "the group check to count the roll",
    )
    passing = seed_drawing(lambda face: face[0] >= 15, 1)
    [(face,)] = draws(passing, 1)
    dicebot.rng = new_rng(passing)
    presses = [fake.click(rolled, "sixpool:reroll:3:0", user="player") for _ in range(2)]
    first, second = await asyncio.gather(*presses)  # a double press: rerolled once
    [again] = [press for press in (first, second) if "no longer your latest" not in press.content]
    assert again.embeds[0]["title"].endswith(f" · total {face}")
    await fake.wait_until(
        lambda: group.embeds[0]["fields"][-1]["value"] == f"✅ Rin: {face} (roll #4)",
        "the group check to count the reroll",
    )
    closed = await fake.click(group, "sixpool:group:1:close", user="gm")
    assert closed.content == "Closed: 1 of 1 succeeded."


# --- 1c. One inspiration, spent once


async def test_rule_one_inspiration_is_spent_once_by_concurrent_rolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    group = await fake.invoke("sixpool group", {"dc": 10, "pool": "DEX"}, user="gm")
    choice = await fake.click(group, "sixpool:group:1:roll", user="player")
    rolls = [
        ("sixpool contest", {"pool": "DEX", "vs_modifier": 2, "inspiration": True}),
        ("sixpool check", {"pool": "DEX", "dc": 10, "inspiration": True}),
        ("sixpool save", {"pool": "WIS", "dc": 10, "inspiration": True}),
    ] * 4
    sent = [fake.send(command, options, user="player") for command, options in rolls]
    grouped = fake.click(choice, "sixpool:groupspend:1:5:inspired", user="player", values=["0"])
    replies = await asyncio.gather(grouped, *sent)
    await fake.wait_answered(list(replies))
    spent = [reply for reply in replies if "keep the higher (advantage)" in str(reply.embeds)]
    assert len(spent) == 1
    refused = [reply for reply in replies if reply is not spent[0]]
    assert all("no inspiration to spend" in reply.content for reply in refused)
    assert not (await character(fake, dicebot)).sheet.inspired
    assert await dicebot.storage.rolls.get(2) is None  # one roll logged


async def test_rule_a_challengers_inspiration_spent_meanwhile_leaves_the_contest_open(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Rin declares her inspiration in a challenge, then spends it on a check as Vex declares:
    one of the two spends it; if the check did, the contest is refused and stays open."""
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    prompt = await challenged(fake, inspiration=True)
    choice = await fake.click(prompt, "sixpool:contest:1", user="gm")
    check = {"pool": "DEX", "dc": 10, "inspiration": True}
    replies = await asyncio.gather(
        fake.send("sixpool check", check, user="player"),
        fake.click(choice, "sixpool:spend:1:3", user="gm", values=["0"]),
    )
    await fake.wait_answered(list(replies))
    checked, picked = replies
    contest_spent = "You spend 0" in picked.content
    assert contest_spent == checked.ephemeral  # exactly one of the two spent it
    assert not (await character(fake, dicebot)).sheet.inspired
    contest = await dicebot.storage.database.reader.fetch_one(
        "SELECT status FROM sixpool_contests WHERE id = 1"
    )
    assert contest is not None
    if contest_spent:
        assert "no inspiration to spend" in checked.content and contest["status"] == "resolved"
    else:
        assert "Rin holds no inspiration to spend" in picked.content
        assert contest["status"] == "pending"


async def test_rule_both_sides_reroll_at_once_and_the_contest_keeps_both_dice(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Both players hold inspiration after a contest: their rerolls at once end as one after
    the other would, each die rerolled once, the contest decided on both new dice."""
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    await inspire(fake, "gm")
    result = await declared(fake, dicebot, await challenged(fake), 3)
    assert result.custom_ids() == ["sixpool:reroll:1:0", "sixpool:reroll:2:0"]
    presses = [fake.click(result, f"sixpool:reroll:{n}:0", user=user)
               for n, user in ((1, "player"), (2, "gm"))]  # fmt: skip
    replies = await asyncio.gather(*presses)
    assert not any(reply.ephemeral for reply in replies), [r.content for r in replies]
    earlier, last = [await logged_roll(dicebot.storage, n) for n in (3, 4)]
    assert {earlier.user_id, last.user_id} == {fake.users["player"].id, fake.users["gm"].id}
    # The later reroll was made on the contest the earlier one left: both new dice in it.
    both = last.payload["result"]
    for roll in (earlier, last):
        side = roll.payload["result"]["roller"]
        assert both[side]["dice"] == roll.payload["result"][side]["dice"]
    contest = await dicebot.storage.database.reader.fetch_one(
        "SELECT roll_id FROM sixpool_contests WHERE id = 1"
    )
    assert contest is not None and contest["roll_id"] == 4
    for name in ("Rin", "Vex"):
        assert not (await character(fake, dicebot, name)).sheet.inspired


async def test_rule_a_players_next_roll_ends_only_their_own_contest_rerolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """As under a check: a side's rerolls last while the contest is its player's latest roll
    here; Rin rolling again takes hers off the contest's message, Vex's stay."""
    fake = fake_discord
    await players(fake)
    await inspire(fake, "player")
    await inspire(fake, "gm")
    result = await declared(fake, dicebot, await challenged(fake), 5)
    assert result.custom_ids() == ["sixpool:reroll:1:0", "sixpool:reroll:2:0"]
    check = await fake.invoke("sixpool check", {"pool": "DEX", "dc": 10}, user="player")
    assert check.original.custom_ids() == ["roll:again:3", "sixpool:reroll:3:0"]
    await fake.wait_until(
        lambda: result.custom_ids() == ["sixpool:reroll:2:0"], "Rin's contest rerolls to go"
    )
    from tests.e2e.test_secrecy import forged  # a press its message no longer shows

    replayed = forged(fake, fake.channel_id, "sixpool:reroll:1:0")
    late = await fake.click(replayed, "sixpool:reroll:1:0", user="player")
    assert late.ephemeral and "no longer your latest roll" in late.content
    assert (await character(fake, dicebot)).sheet.inspired


async def test_rule_inspiration_awarded_after_a_contest_offers_the_players_die_there(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """As under a check: inspiration awarded while the contest is Vex's latest roll here
    offers Vex's die on the contest's message."""
    fake = fake_discord
    await players(fake)
    result = await declared(fake, dicebot, await challenged(fake), 8)
    assert result.custom_ids() == []
    await inspire(fake, "gm")
    await fake.wait_until(
        lambda: result.custom_ids() == ["sixpool:reroll:2:0"], "Vex's reroll to appear"
    )


# --- 2. A GM's NPC challenges a player; a tie goes to the player


async def test_rule_an_npc_challenges_a_player_and_a_tie_goes_to_the_player(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    # The NPC's d20 first, then Rin's: NPC d20 + 4 == Rin's d20 + 1 (1 DEX point spent).
    seed = seed_drawing(lambda npc, rin: npc[0] + 4 == rin[0] + 1, 1, 1)
    (npc,), (rin,) = draws(seed, 1, 1)
    asked = {"npc_modifier": 4, "vs_user": fake.users["player"], "vs_pool": "DEX"}
    sent = await fake.invoke("sixpool contest", asked, user="gm")
    assert sent.ephemeral and "the NPC's modifier (+4) stays secret" in sent.content
    [prompt] = await fake.wait_channel_messages(fake.channel_id)
    assert prompt["embeds"][0]["title"] == "⚔️ NPC challenges you: DEX contest"
    message = fake.channel_message(fake.channel_id, prompt["id"])
    choice = await fake.click(message, "sixpool:contest:1", user="player")
    dicebot.rng = new_rng(seed)
    await fake.click(choice, "sixpool:spend:1:5", user="player", values=["1"])
    posted = await fake.wait_channel_messages(fake.channel_id, 2)
    result = posted[1]["embeds"][0]
    # By hand: the totals tie, and a tie goes to the defending player.
    assert result["title"] == (
        f"✅ Rin wins (a tie holds) · Rin: contest vs NPC: DEX contest · {rin + 1} vs {npc + 4}"
    )
    assert result["description"].split("\n")[:2] == [
        f"🎲 NPC: 1d20: **{npc}** + 4 [NPC's modifier]",
        f"Rin: 1d20: **{rin}** + 1 [1 DEX point spent]",
    ]
    assert [field["value"] for field in result["fields"]] == ["1 spent: 7/8 left"]
    logged = await logged_roll(dicebot.storage, 1)  # the player's roll, alone
    assert logged.user_id == fake.users["player"].id
    assert logged.payload["result"]["roller"] == "defender"
    assert await dicebot.storage.rolls.get(2) is None
    assert (await character(fake, dicebot)).sheet.points(Pool.DEX) == 7


async def test_rule_only_a_gm_challenges_as_an_npc_and_mixes_are_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    fake = fake_discord
    await players(fake)
    rin, vex = fake.users["player"], fake.users["gm"]
    asked = {"npc_modifier": 5, "vs_user": vex, "vs_pool": "DEX"}
    player = await fake.invoke("sixpool contest", asked, user="player")
    assert player.ephemeral and "Only a GM can challenge a player as an NPC" in player.content
    npc = {"npc_modifier": 5, "vs_user": rin, "vs_pool": "DEX"}
    for options, refusal in (
        ({"npc_modifier": 5}, "name them with `vs_user`"),
        ({**npc, "vs_modifier": 2}, "a contest of two NPCs"),
        ({**npc, "pool": "DEX"}, "are a character's"),
        ({**npc, "spend": 1}, "are a character's"),
        ({**npc, "inspiration": True}, "are a character's"),
        ({"npc_modifier": 5, "vs_user": rin}, "Name the player's pool with `vs_pool`"),
        ({"vs_user": rin}, "Name your `pool`"),
    ):
        reply = await fake.invoke("sixpool contest", options, user="gm")
        assert reply.ephemeral and refusal in reply.content, (options, reply.content)
    assert fake.channel_messages(fake.channel_id) == []  # nothing sent, nothing stored
    row = await dicebot.storage.database.reader.fetch_one("SELECT 1 FROM sixpool_contests")
    assert row is None


# --- 3. Each side of a contest is its own roller


async def test_rule_each_side_of_a_contest_is_logged_and_recapped_under_its_own_roller(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """Rin (the player's) challenges Vex (the GM's) and loses: one log line under each, and
    each recap counts its own side."""
    fake = fake_discord
    await players(fake)
    seed = seed_drawing(lambda rin, vex: rin[0] > 1 and rin[0] + 2 < vex[0] < 20, 1, 1)
    (rin,), (vex,) = draws(seed, 1, 1)
    await declared(fake, dicebot, await challenged(fake, spend=2), seed)
    player, gm = fake.users["player"].id, fake.users["gm"].id
    page = await fake.invoke("campaign log", {}, user="player")
    assert page.embeds[0]["description"].splitlines() == [
        f"`#2` · <@{gm}> · contest vs Rin: WIS vs DEX → **{vex}** vs **{rin + 2}** ✅",
        f"`#1` · <@{player}> · contest vs Vex: DEX vs WIS → **{rin + 2}** vs **{vex}** ❌",
    ]
    recap = await fake.invoke("campaign recap", {}, user="player")
    fields = {field["name"]: field["value"] for field in recap.embeds[0]["fields"]}
    assert fields["player"].startswith("1 roll · ⚔️ contests 0 won, 1 lost"), fields["player"]
    assert fields["gm"].startswith("1 roll · ⚔️ contests 1 won, 0 lost"), fields["gm"]
    # Each player's luck is their own d20's: 1d20 straight, mid-rank (face - 1/2) / 20.
    for name, face in (("player", rin), ("gm", vex)):
        luck = Fraction(2 * face - 1, 40)
        if luck >= Fraction(1, 2):
            share = f"top {max(round((1 - luck) * 100), 1)}%"
        else:
            share = f"bottom {max(round(luck * 100), 1)}%"
        temper = "even" if share.endswith(" 50%") else "hot" if luck >= Fraction(1, 2) else "cold"
        assert f"{name}'s dice ran {temper}: **{share}** (1 scored roll)" in fields[name]


async def test_rule_a_contest_logged_in_the_old_format_still_reads(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """A contest logged before each side was its own roller: one roll under the defender who
    pressed, its result naming no roller. It still reads, as the attacker's side it was."""
    fake = fake_discord
    await players(fake)
    campaign = await dicebot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    side = {"mode": "straight", "modifiers": [], "dc": 0, "base_dc": 0, "situation": "normal",
            "take": None}  # fmt: skip
    result = {"attacker": {**side, "dice": [15]}, "defender": {**side, "dice": [9]}}
    title = "✅ Rin wins (higher total) · Rin: contest vs Vex: DEX vs WIS · 15 vs 9"
    entry = RollEntry(campaign.id, fake.guild_id, fake.channel_id, fake.users["gm"].id,
                      "sixpool.contest", Visibility.PUBLIC,
                      {"result": result, "embed": {"title": title}, "options": {}})  # fmt: skip
    roll_id = await dicebot.storage.rolls.record(entry)
    page = await fake.invoke("campaign log", {}, user="player")
    assert page.embeds[0]["description"] == (
        f"`#{roll_id}` · <@{fake.users['gm'].id}> · contest vs Vex: DEX vs WIS → **15** vs **9** ✅"
    )
    recap = await fake.invoke("campaign recap", {}, user="player")
    fields = {field["name"]: field["value"] for field in recap.embeds[0]["fields"]}
    assert fields["gm"].startswith("1 roll · ⚔️ contests 1 won, 0 lost"), fields["gm"]


async def test_rule_contest_reply_of_each_side_names_its_roller(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """The channel's message is the challenger's roll; the defender's roll keeps its own reply
    (their name, their total first, their verdict), for the log and Reveal alike."""
    fake = fake_discord
    await players(fake)
    seed = seed_drawing(lambda rin, vex: rin[0] != vex[0], 1, 1)
    (rin,), (vex,) = draws(seed, 1, 1)
    result = await declared(fake, dicebot, await challenged(fake), seed)
    assert result.embeds[0]["footer"]["text"] == "Rolls #1 and #2"
    rin_roll, vex_roll = [await logged_roll(dicebot.storage, n) for n in (1, 2)]
    rin_won = rin > vex
    winner = "Rin" if rin_won else "Vex"
    assert rin_roll.payload["embed"]["title"] == (
        f"{'✅' if rin_won else '❌'} {winner} wins (higher total) · Rin: contest vs Vex: "
        f"DEX vs WIS · {rin} vs {vex}"
    )
    assert result.embeds[0]["title"] == rin_roll.payload["embed"]["title"]
    assert vex_roll.payload["embed"]["title"] == (
        f"{'❌' if rin_won else '✅'} {winner} wins (higher total) · Vex: contest vs Rin: "
        f"WIS vs DEX · {vex} vs {rin}"
    )
    assert (rin_roll.user_id, vex_roll.user_id) == (fake.users["player"].id, fake.users["gm"].id)
    assert "contest_of" not in rin_roll.payload["options"]
    assert vex_roll.payload["options"]["contest_of"] == 1
