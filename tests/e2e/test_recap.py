"""`/campaign recap`: a seeded session of three players, recapped per player and for the table.

The expected numbers are computed here from the logged rolls themselves (read back with
``RollLog.history``): every luck score by enumerating every ordered roll of the dice, never by
calling the recap's own functions (docs/gms.md, "Campaign recap").
"""

from __future__ import annotations

import asyncio
import io
import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from PIL import Image

from bot import offload
from bot.client import DiceBot
from bot.render import recap as recap_render
from bot.storage import LoggedRoll
from rules import recap_placement as placement
from rules.randomness import new_rng
from tests.e2e.test_postgres_bot import pgbot  # noqa: F401 - the bot on PostgreSQL
from tests.e2e.test_sinew import create as create_sinew_character
from tests.e2e.test_sinew import seed_where
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def enumerated(count: int, sides: int, score: Callable[[tuple[int, ...]], int]) -> list[int]:
    return [score(faces) for faces in itertools.product(range(1, sides + 1), repeat=count)]


# Every roll the session below makes, as the dice it throws: (count, sides, score).
EXPRESSIONS: dict[str, tuple[int, int, Callable[[tuple[int, ...]], int]]] = {
    "2d6": (2, 6, sum),
    "3d6": (3, 6, sum),
    "4d6kh3": (4, 6, lambda faces: sum(sorted(faces)[1:])),
    "1d20": (1, 20, sum),
}
SINEW_MODES: dict[str, tuple[int, Callable[[tuple[int, ...]], int]]] = {
    "straight": (1, lambda faces: faces[0]),
    "advantage": (2, min),
    "disadvantage": (2, max),
}


def expected_luck(roll: LoggedRoll) -> Fraction:
    """Mid-rank of the logged result among every equally likely roll: P(worse) + P(same)/2."""
    result: dict[str, Any] = roll.payload["result"]
    if roll.kind == "dice":
        count, sides, score = EXPRESSIONS[result["expression"]]
        outcomes, value, higher = enumerated(count, sides, score), result["total"], True
    else:  # a Sinew test, or an opposed roll's own side: roll-under, a lower kept d20 is luckier
        result = result["attacker"] if roll.kind == "sinew.opposed" else result
        count, keep = SINEW_MODES[result["mode"]]
        outcomes, value, higher = enumerated(count, 20, keep), keep(tuple(result["dice"])), False
    worse = sum(1 for o in outcomes if (o < value if higher else o > value))
    same = outcomes.count(value)
    return Fraction(2 * worse + same, 2 * len(outcomes))


def attacker_wins(result: dict[str, Any]) -> bool:
    """A Sinew & Steel opposed roll, straight and unshifted: the attacker wins by succeeding
    with a larger margin than the defender's, or when only the attacker succeeds."""

    def test(side: dict[str, Any]) -> tuple[bool, int]:
        face, score = side["dice"][0], side["score"]
        return (face == 1 or (face != 20 and face <= score)), score - face

    (attacker, a_margin), (defender, d_margin) = test(result["attacker"]), test(result["defender"])
    return attacker and (not defender or a_margin > d_margin)


def phrase(luck: Fraction) -> str:
    """How a luck score reads after "…'s dice": "ran hot: **top 18%**"."""
    if luck >= Fraction(1, 2):
        share = f"top {max(round((1 - luck) * 100), 1)}%"
    else:
        share = f"bottom {max(round(luck * 100), 1)}%"
    temper = "even" if share.endswith(" 50%") else "hot" if luck >= Fraction(1, 2) else "cold"
    return f"ran {temper}: **{share}**"


async def session(fake: FakeDiscord) -> None:
    await fake.invoke("campaign start", {"system": "sinew", "name": "Iron Age"}, user="gm")
    await create_sinew_character(fake, "Wren")
    for options in ({"attribute": "str"}, {"attribute": "ref", "advantage": True}):
        await fake.invoke("sinew test", options, user="player")
    await fake.invoke("roll", {"expression": "2d6"}, user="player")
    await fake.invoke("roll", {"expression": "3d6"}, user="admin")
    await fake.invoke("roll", {"expression": "4d6kh3"}, user="admin")
    await fake.invoke("roll", {"expression": "8d6 e6"}, user="admin")  # counted, unscored
    secret = await fake.invoke("roll", {"expression": "1d20", "hidden": True}, user="gm")
    assert secret.ephemeral


async def logged(bot: DiceBot, fake: FakeDiscord, *, secret: bool) -> list[LoggedRoll]:
    campaign = await bot.storage.campaigns.active(fake.channel_id)
    assert campaign is not None
    rolls = await bot.storage.rolls.history(campaign.id, include_secret=secret, limit=100)
    return rolls[::-1]


def fields(reply: Reply) -> dict[str, str]:
    return {field["name"]: field["value"] for field in reply.embeds[0].get("fields", [])}


def check_player(lines: str, name: str, rolls: list[LoggedRoll]) -> None:
    scored = [roll for roll in rolls if roll.payload["result"].get("expression") != "8d6 e6"]
    luck = sum((expected_luck(roll) for roll in scored), Fraction(0)) / len(scored)
    assert lines.startswith(f"{len(rolls)} roll"), lines
    assert f"{name}'s dice {phrase(luck)} ({len(scored)} scored roll" in lines, lines


async def test_recap_counts_each_player_and_the_table_with_the_exact_luck_score(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await session(fake_discord)
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    assert not reply.ephemeral  # the table reads it
    rolls = await logged(dicebot, fake_discord, secret=False)
    players = fields(reply)
    ids = {name: fake_discord.users[name].id for name in ("admin", "player")}
    # Most rolls first (3 each: by user id); the GM's only roll is hidden.
    assert list(players) == sorted(ids, key=lambda name: ids[name])
    for name in players:
        own = [roll for roll in rolls if roll.user_id == fake_discord.users[name].id]
        check_player(players[name], name, own)
    description = reply.embeds[0]["description"]
    check_player(description, "The table", rolls)
    # The biggest total: the exploding 8d6 is unscored but counts (a Sinew test has no total).
    biggest = max(rolls, key=lambda roll: roll.payload["result"].get("total", 0))
    assert f"Biggest: **{biggest.payload['result']['total']}** `#{biggest.id}`" in description
    name, data = reply.attachments[0]
    assert name == "recap.png" and data.startswith(PNG_SIGNATURE)
    assert reply.embeds[0]["image"]["url"] == "attachment://recap.png"
    with Image.open(io.BytesIO(data)) as image:  # two players and the table: three bars
        assert image.size == (
            1000,
            recap_render.HEADER + 3 * recap_render.ROW + recap_render.FOOTER,
        )


async def test_recap_hidden_is_a_gms_private_view_with_the_secret_rolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await session(fake_discord)
    blind = await fake_discord.invoke("roll", {"expression": "2d6", "blind": True}, user="player")
    assert blind.ephemeral
    public = await fake_discord.invoke("campaign recap", {}, user="gm")
    assert fields(public)["player"].startswith("3 rolls")  # neither secret roll
    refused = await fake_discord.invoke("campaign recap", {"hidden": True}, user="player")
    assert refused.ephemeral and "Only a GM can" in refused.content
    private = await fake_discord.invoke("campaign recap", {"hidden": True}, user="gm")
    assert private.ephemeral
    rolls = await logged(dicebot, fake_discord, secret=True)
    gm_rolls = [roll for roll in rolls if roll.user_id == fake_discord.users["gm"].id]
    assert len(gm_rolls) == 1
    check_player(fields(private)["gm"], "gm", gm_rolls)
    assert fields(private)["player"].startswith("4 rolls")  # the blind roll counts
    assert private.embeds[0]["footer"]["text"].startswith("GM view")
    assert private.embeds[0]["description"].startswith(f"{len(rolls)} rolls")


async def test_recap_starts_after_the_last_long_pause_or_where_asked(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await session(fake_discord)
    rolls = await logged(dicebot, fake_discord, secret=False)
    # The first three rolls were made last week: the session is what came after the pause.
    await dicebot.storage.database.write_alone(
        "UPDATE rolls SET created_at = '2026-11-01T20:00:00.000Z' WHERE id <= ?", (rolls[2].id,)
    )
    tonight = await fake_discord.invoke("campaign recap", {}, user="player")
    assert list(fields(tonight)) == ["admin"]
    assert tonight.embeds[0]["description"].startswith("3 rolls")
    for since in (f"#{rolls[1].id}", str(rolls[1].id)):
        asked = await fake_discord.invoke("campaign recap", {"since": since}, user="player")
        assert asked.embeds[0]["description"].startswith("5 rolls")
    dated = await fake_discord.invoke("campaign recap", {"since": "2026-10-31"}, user="player")
    assert dated.embeds[0]["description"].startswith(f"{len(rolls)} rolls")
    future = await fake_discord.invoke("campaign recap", {"since": "2999-01-01 10:00"})
    assert future.embeds[0]["description"] == "No rolls in this session yet."
    assert future.attachments == []


async def test_recap_refuses_a_bad_since_and_a_channel_without_a_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    nothing = await fake_discord.invoke("campaign recap", {}, user="player")
    assert nothing.ephemeral and "campaign" in nothing.content.lower()
    await session(fake_discord)
    bad = await fake_discord.invoke("campaign recap", {"since": "last tuesday"}, user="player")
    assert bad.ephemeral and "Since must be a date" in bad.content and "roll number" in bad.content


async def test_recap_counts_luck_spends_pressure_and_a_crisis_as_no_new_rolls(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "sinew", "name": "Iron"}, user="gm")
    await create_sinew_character(fake_discord, "Brakka")  # STR 12, INT 7, 10 Luck tokens
    # A failed STR test the player then spends 1 token on (one more log entry, no new roll).
    dicebot.rng = new_rng(seed_where(lambda r: not r.success and not r.natural_twenty, 12))
    await fake_discord.invoke("sinew test", {"attribute": "str"}, user="player")
    spent = await fake_discord.invoke("sinew luck spend", {"tokens": 1}, user="player")
    assert spent.content.startswith("🍀 Luck spent"), spent.content
    # Pressure 4, then a failed tamper: 4 → 5, a Crisis (logged as its own entry).
    await fake_discord.invoke("sinew pressure add", {"amount": 4, "character": "Brakka"}, user="gm")
    dicebot.rng = new_rng(seed_where(lambda r: not r.success, 7))
    await fake_discord.invoke("sinew tamper", {"attribute": "int"}, user="player")
    # An opposed roll against an NPC's score: won or lost by the rule (docs/players/sinew.md),
    # worked out here.
    await fake_discord.invoke("sinew opposed", {"attribute": "str", "vs_score": 11}, user="player")
    rolls = await logged(dicebot, fake_discord, secret=False)
    assert [roll.kind for roll in rolls] == [
        "sinew.test", "sinew.test", "sinew.tamper", "sinew.crisis", "sinew.opposed",
    ]  # fmt: skip
    won = int(attacker_wins(rolls[4].payload["result"]))
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    player = fields(reply)["player"]
    assert player.startswith(
        f"3 rolls · 🍀 1 Luck spend · 🌀 +1 Pressure · ⚔️ contests {won} won, {1 - won} lost"
        " · 💀 1 Crisis"
    ), player
    # The luck of the three rolls made: the test (before its Luck shift), the tamper's test and
    # the roller's own side of the opposed roll.
    made = [rolls[0], rolls[2], rolls[4]]
    luck = sum((expected_luck(roll) for roll in made), Fraction(0)) / 3
    assert f"player's dice {phrase(luck)} (3 scored rolls)" in player


async def test_recap_counts_a_challenge_for_the_roll_that_ended_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"}, user="gm")
    challenge = {"name": "Vault", "tn": 12, "successes": 1, "max_rolls": 1}
    await fake_discord.invoke("cosmos challenge start", challenge, user="gm")
    roll = {"attribute": 3, "skill": 2, "tn": 12}
    # Its one roll ends it (the name in another case: challenge names ignore case).
    await fake_discord.invoke("cosmos roll", {**roll, "challenge": "vault"}, user="player")
    await fake_discord.invoke("cosmos roll", roll, user="admin")
    status = await dicebot.storage.database.fetch_one("SELECT status FROM cosmos_challenges")
    assert status is not None and status["status"] in ("won", "lost")
    won = int(status["status"] == "won")
    reply = await fake_discord.invoke("campaign recap", {}, user="gm")
    players = fields(reply)
    assert f"🏁 challenges {won} won, {1 - won} lost" in players["player"]
    assert "challenges" not in players["admin"]
    assert f"🏁 challenges {won} won, {1 - won} lost" in reply.embeds[0]["description"]


async def test_recap_on_postgresql_counts_the_same_session(
    fake_discord: FakeDiscord,
    pgbot: DiceBot,  # noqa: F811 - the fixture imported above: the bot on PostgreSQL
) -> None:
    bot = pgbot
    await session(fake_discord)
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    rolls = await logged(bot, fake_discord, secret=False)
    for name, lines in fields(reply).items():
        own = [roll for roll in rolls if roll.user_id == fake_discord.users[name].id]
        check_player(lines, name, own)
    check_player(reply.embeds[0]["description"], "The table", rolls)
    assert reply.attachments[0][1].startswith(PNG_SIGNATURE)


def sixpool_luck(result: dict[str, Any]) -> Fraction:
    """The kept d20 among every equally likely roll: the higher of two with advantage, the
    lower with disadvantage (the modifiers are a constant and change nothing)."""
    keep: Callable[[tuple[int, ...]], int] = {"advantage": max, "disadvantage": min}.get(
        result["mode"], lambda faces: faces[0]
    )
    outcomes = enumerated(len(result["dice"]), 20, keep)
    value = keep(tuple(result["dice"]))
    worse = sum(1 for outcome in outcomes if outcome < value)
    return Fraction(2 * worse + outcomes.count(value), 2 * len(outcomes))


async def test_recap_scores_a_sixpool_check_and_the_rollers_side_of_a_contest(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "sixpool", "name": "Six"}, user="gm")
    sheet = {"name": "Rin", "level": 1, "primary": "DEX",
             "str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}  # fmt: skip
    await fake_discord.invoke("sixpool character create", sheet, user="player")
    dicebot.rng = new_rng(5)
    check = {"pool": "DEX", "dc": 12, "advantage": True}
    await fake_discord.invoke("sixpool check", check, user="player")
    await fake_discord.invoke("sixpool contest", {"pool": "DEX", "vs_modifier": 4}, user="player")
    rolls = await logged(dicebot, fake_discord, secret=False)
    assert [roll.kind for roll in rolls] == ["sixpool.check", "sixpool.contest"]
    contest = rolls[1].payload["result"]

    def kept_face(side: dict[str, Any]) -> int:
        return int(max(side["dice"]) if side["mode"] == "advantage" else side["dice"][0])

    def total(side: dict[str, Any]) -> int:
        return kept_face(side) + sum(part["value"] for part in side["modifiers"])

    won = int(total(contest["attacker"]) > total(contest["defender"]))  # a tie: the defender's
    # A kept natural 20 is a crit, a kept 1 a fumble: the check's and the roller's side's.
    kept = [kept_face(side) for side in (rolls[0].payload["result"], contest["attacker"])]
    naturals = "".join(
        f" · {emoji} {count} {word}{'s' if count > 1 else ''}"
        for emoji, word, count in (("✨", "crit", kept.count(20)), ("💥", "fumble", kept.count(1)))
        if count
    )
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    player = fields(reply)["player"]
    assert player.startswith(f"2 rolls{naturals} · ⚔️ contests {won} won, {1 - won} lost"), player
    luck = (sixpool_luck(rolls[0].payload["result"]) + sixpool_luck(contest["attacker"])) / 2
    assert f"player's dice {phrase(luck)} (2 scored rolls)" in player, player


async def test_recap_averages_the_luck_of_a_roll_of_several_parts(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"}, user="gm")
    dicebot.rng = new_rng(11)
    await fake_discord.invoke("roll", {"expression": "1d20; 2 2d6; 8d6 e6"}, user="player")
    (roll,) = await logged(dicebot, fake_discord, secret=False)
    rolls = [one for part in roll.payload["result"]["rolls"] for one in part]
    placed = [one for one in rolls if one["expression"] in EXPRESSIONS]  # not the exploding one
    assert [one["expression"] for one in placed] == ["1d20", "2d6", "2d6"]
    lucks = []
    for one in placed:
        count, sides, score = EXPRESSIONS[one["expression"]]
        outcomes, value = enumerated(count, sides, score), one["total"]
        worse = sum(1 for outcome in outcomes if outcome < value)
        lucks.append(Fraction(2 * worse + outcomes.count(value), 2 * len(outcomes)))
    reply = await fake_discord.invoke("campaign recap", {}, user="player")
    player = fields(reply)["player"]
    assert player.startswith("1 roll"), player
    luck = sum(lucks, Fraction(0)) / 3
    assert f"player's dice {phrase(luck)} (1 scored roll)" in player, player


def sums_at_most(dice: int, faces: int, value: int) -> int:
    """Ordered rolls of ``dice`` dice of faces 1..faces summing to at most ``value``, by
    inclusion and exclusion (k dice forced past their faces), independently of the bot."""
    return sum(
        (-1) ** k * math.comb(dice, k) * math.comb(value - k * faces, dice)
        for k in range(dice + 1)
        if value - k * faces >= dice
    )


# Legal /roll rolls whose exact distributions are heavy: each its own shape, a few tenths of a
# second to compute in the recap's worker (seconds each on the event loop before), and one far
# past the recap's bound (its keep counting alone would take hours).
HEAVY_DICE = {"28d1000": 28, "27d1000": 27, "26d1000": 26}
TOO_LARGE = "100d1000kh50"


async def test_recap_of_heavy_rolls_never_holds_the_loop(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Void"}, user="gm")
    for text in (*HEAVY_DICE, TOO_LARGE):
        await fake_discord.invoke("roll", {"expression": text}, user="player")
    # Cold: no shape computed yet in the recap's worker (forked here, before the measure).
    await offload.in_process(placement.clear_cache, worker=offload.RECAP)
    loop = asyncio.get_running_loop()
    gaps: list[float] = []

    async def ticker() -> None:  # how long the loop went without running this task
        while True:
            before = loop.time()
            await asyncio.sleep(0.002)
            gaps.append(loop.time() - before)

    ticking = asyncio.create_task(ticker())
    try:
        started = loop.time()
        recap_reply = await fake_discord.send("campaign recap", {}, user="player")
        other = await fake_discord.send("roll", {"expression": "1d20"}, user="admin")
        await fake_discord.wait_answered([other])
        recap_pending = not recap_reply.settled(wait_deferred=True)
        await fake_discord.wait_answered([recap_reply])
        took = loop.time() - started
    finally:
        ticking.cancel()
    # Another player's /roll is answered while the recap's placements are computed, and the
    # loop never stood still for a good part of the recap (on the loop, it stood still for all
    # of it): relative to the recap's own time, so a slow machine slows both alike.
    assert recap_pending, "the /roll waited for the recap"
    assert max(gaps) < took / 2, (max(gaps), took)
    player = fields(recap_reply)["player"]
    assert player.startswith("4 rolls"), player
    assert "1 roll too large to score" in player, player
    lucks = []
    for roll in await logged(dicebot, fake_discord, secret=False):
        text, value = roll.payload["result"]["expression"], roll.payload["result"]["total"]
        if text in HEAVY_DICE:
            dice, every = HEAVY_DICE[text], 1000 ** HEAVY_DICE[text]
            below, upto = sums_at_most(dice, 1000, value - 1), sums_at_most(dice, 1000, value)
            lucks.append(Fraction(below + upto, 2 * every))
    assert len(lucks) == 3
    luck = sum(lucks, Fraction(0)) / 3
    assert f"player's dice {phrase(luck)} (3 scored rolls)" in player, player
