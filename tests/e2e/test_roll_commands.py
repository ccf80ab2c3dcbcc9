"""Roll commands are declared (``bot.publish.roll_command``), never guessed from an option name:
every command that logs a roll gets the roll rate limit and the campaign's default visibility."""

from __future__ import annotations

import ast
import inspect
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from discord import app_commands

from bot.client import DiceBot, create_bot
from bot.publish import is_roll_command
from bot.ratelimit import RollLimit
from bot.storage import Visibility
from rules.randomness import new_rng
from tests.e2e.test_aethelgard import create as create_aethelgard
from tests.e2e.test_secrecy import CHARACTER, ROLLS
from tests.e2e.test_sinew import create as create_sinew
from tests.e2e.test_sixpool import create as create_sixpool
from tests.expect import logged_roll
from tests.fakediscord.fixtures import run_bot
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot

# A function that calls one of these logs a roll: the publish path, the one delivery of a
# logged roll, a roll-log entry, or the roll log itself.
LOGS_A_ROLL = {"publish_roll", "deliver_roll", "entry", "record", "insert_roll"}

RATE_LIMITED = "❌ You're rolling faster than this bot allows"

# Commands the analysis can't tell apart from roll commands, each with why it logs no roll.
LOGS_NO_ROLL = {
    "sinew pressure remove": "shares the Pressure path, whose only roll is a Crisis, on a rise",
}


@cache
def _functions(module: ModuleType) -> dict[str, list[ast.AST]]:
    """Every function and method of a module by name, nested ones included."""
    found: dict[str, list[ast.AST]] = defaultdict(list)
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name].append(node)
    return found


def _called(function: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                names.add(node.func.id)
            elif isinstance(node.func, ast.Attribute):
                names.add(node.func.attr)
    return names


def logs_a_roll(command: app_commands.Command[Any, Any, Any]) -> bool:
    """Whether the command's callback, or anything of its module it calls by name, logs a roll
    (an over-approximation: a name shared with a roll-logging function counts)."""
    module = inspect.getmodule(command.callback)
    assert module is not None
    functions = _functions(module)
    seen: set[str] = set()
    pending = [command.callback.__name__]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for function in functions.get(name, []):
            called = _called(function)
            if called & LOGS_A_ROLL:
                return True
            pending.extend(called & functions.keys())
    return False


def commands_of(bot: DiceBot) -> dict[str, app_commands.Command[Any, Any, Any]]:
    return {
        command.qualified_name: command
        for command in bot.tree.walk_commands()
        if isinstance(command, app_commands.Command)
    }


async def test_every_synced_command_that_logs_a_roll_is_declared_a_roll_command(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    commands = commands_of(dicebot)
    synced = {command["name"] for command in fake_discord.synced_commands(guild=True)}
    assert {name.split()[0] for name in commands} == synced  # walking what Discord was given
    logging = {name for name, command in commands.items() if logs_a_roll(command)}
    declared = {name for name, command in commands.items() if is_roll_command(command)}
    undeclared = logging - declared - LOGS_NO_ROLL.keys()
    assert undeclared == set(), "log rolls but are not declared with @roll_command"
    assert LOGS_NO_ROLL.keys() <= logging - declared  # each exception is still needed
    # The five that were once told apart by a `hidden` option they lack, and the macro.
    assert {
        "realms reroll", "sinew luck spend", "sinew purge", "sinew pressure add", "sixpool take",
        "sixpool contest", "macro roll", "roll",
    } <= declared  # fmt: skip
    for name in declared:  # each leaves `hidden` unsaid (None) for the asker's default
        hidden = [p for p in commands[name].parameters if p.display_name == "hidden"]
        assert all(not p.required and p.default is None for p in hidden), name
    assert all(not is_roll_command(commands[name]) for name in ("help", "campaign info"))


async def test_the_roll_command_test_catches_an_undeclared_one(dicebot: DiceBot) -> None:
    # The analysis above finds a command that logs through a helper, and one that doesn't.
    commands = commands_of(dicebot)
    assert logs_a_roll(commands["sinew luck spend"])  # through _spend and deliver_roll
    assert logs_a_roll(commands["sixpool take"])
    assert not logs_a_roll(commands["sinew odds"])
    assert not logs_a_roll(commands["campaign settings"])


async def limited_bot(fake: FakeDiscord, dicebot: DiceBot, rolls: int) -> DiceBot:
    await dicebot.shutdown()
    return create_bot(replace(dicebot.settings, roll_limit=RollLimit(rolls, 60)), rng=new_rng(1))


async def test_a_macro_holding_a_roll_command_counts_once_for_the_limit(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    async with run_bot(fake_discord, await limited_bot(fake_discord, dicebot, 2)):
        await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Far"})
        saved = await fake_discord.invoke(
            "macro save", {"name": "Shoot", "expression": "/cosmos roll attribute:3 skill:2 tn:15"}
        )
        assert saved.ephemeral and saved.content.startswith("💾 Saved"), saved.content
        first = await fake_discord.invoke("roll", {"expression": "1d6"})
        by_macro = await fake_discord.invoke("macro roll", {"name": "Shoot"})  # the 2nd roll
        assert not first.ephemeral and not by_macro.ephemeral, by_macro.content
        assert by_macro.embeds[0]["footer"]["text"] == "Roll #2"
        third = await fake_discord.invoke("roll", {"expression": "1d6"})
        assert third.ephemeral and third.content.startswith(RATE_LIMITED)


# What each once-unlimited roll command needs first, its options, and who runs it.
ONCE_UNLIMITED = [
    ("realms", [("realms check", {"die": "d20"}, "player")],
     "realms reroll", {"position": 1}, "player"),
    ("sinew", [("sinew test", {"attribute": "ref"}, "player")],
     "sinew luck spend", {"tokens": 1}, "player"),
    ("sinew", [("roll", {"expression": "1d4"}, "player")],
     "sinew purge", {"method": "rite", "attribute": "ref"}, "player"),
    ("sinew", [("roll", {"expression": "1d4"}, "gm")],
     "sinew pressure add", {"amount": 5}, "gm"),
    ("sixpool", [("roll", {"expression": "1d4"}, "player")],
     "sixpool take", {"pool": "DEX", "dc": 10, "value": 10}, "player"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("system", "before", "command", "options", "user"),
    ONCE_UNLIMITED,
    ids=[case[2] for case in ONCE_UNLIMITED],
)
async def test_every_command_that_rolls_counts_for_the_limit(
    fake_discord: FakeDiscord,
    dicebot: DiceBot,
    system: str,
    before: list[tuple[str, dict[str, Any], str]],
    command: str,
    options: dict[str, Any],
    user: str,
) -> None:
    async with run_bot(fake_discord, await limited_bot(fake_discord, dicebot, 1)) as bot:
        await fake_discord.invoke("campaign start", {"system": system, "name": "Limits"})
        if system == "sinew":
            await create_sinew(fake_discord, "Wren")
        if system == "sixpool":
            await create_sixpool(fake_discord, "Rin")
        for name, asked, by in before:  # the user's one roll of the window
            first = await fake_discord.invoke(name, asked, user=by)
            assert not first.content.startswith(RATE_LIMITED), first.content
        refused = await fake_discord.invoke(command, options, user=user)
        assert refused.ephemeral and refused.content.startswith(RATE_LIMITED), refused.content
        assert await bot.storage.rolls.get(2) is None  # nothing rolled or logged


async def test_gm_rolls_hidden_by_default_covers_every_roll_command(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await fake_discord.invoke("campaign start", {"system": "sixpool", "name": "Six"})
    await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"})
    await create_sixpool(fake_discord, "Rin")
    took = await fake_discord.invoke(
        "sixpool take", {"pool": "DEX", "dc": 10, "value": 20, "character": "Rin"}
    )
    assert took.ephemeral and took.embeds[0]["footer"]["text"].startswith("Hidden roll #1")
    assert (await logged_roll(dicebot.storage, 1)).visibility is Visibility.HIDDEN
    shown = await fake_discord.invoke(
        "sixpool take", {"pool": "DEX", "dc": 10, "value": 20, "character": "Rin", "hidden": False}
    )
    assert not shown.ephemeral and shown.embeds[0]["footer"]["text"] == "Roll #2"
    players = await fake_discord.invoke(
        "sixpool take", {"pool": "DEX", "dc": 10, "value": 10}, user="player"
    )
    assert not players.ephemeral  # a player's roll stays public


# What each system needs before its rolls: the player's character (named as in test_secrecy).
CREATE: dict[str, Callable[[FakeDiscord], Awaitable[object]]] = {
    "sinew": lambda fake: create_sinew(fake, CHARACTER["sinew"]),
    "sixpool": lambda fake: create_sixpool(fake, CHARACTER["sixpool"]),
    "aethelgard": create_aethelgard,
}


async def latest_visibility(fake: FakeDiscord, bot: DiceBot, user: str) -> Visibility:
    latest = await bot.storage.rolls.latest(fake.channel_id, fake.users[user].id)
    assert latest is not None
    return latest.visibility


@pytest.mark.parametrize("system", sorted({case.system for case in ROLLS}))
async def test_gm_rolls_hidden_applies_to_each_systems_roll_commands(
    fake_discord: FakeDiscord, dicebot: DiceBot, system: str
) -> None:
    """`gm_rolls:hidden` (docs/gms.md, "Campaigns"): a GM's roll that doesn't say `hidden` is
    hidden, `hidden:false` public, `blind` blind; a player's roll is unaffected."""
    await fake_discord.invoke("campaign start", {"system": system, "name": "Defaults"})
    await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"})
    if system in CREATE:
        await CREATE[system](fake_discord)
    for case in (case for case in ROLLS if case.system == system):
        named = {"character": CHARACTER[system]} if case.names_character else {}
        unsaid = await fake_discord.invoke(case.command, {**case.options, **named})
        assert unsaid.ephemeral, (case.command, unsaid.content)
        assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.HIDDEN
        said = {**case.options, **named, "hidden": False}
        public = await fake_discord.invoke(case.command, said)
        assert not public.ephemeral, (case.command, public.content)
        assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.PUBLIC
        blind = await fake_discord.invoke(case.command, {**case.options, **named, "blind": True})
        assert blind.ephemeral and not blind.embeds, (case.command, blind.content)
        assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.BLIND
        players = await fake_discord.invoke(case.command, case.options, user="player")
        assert not players.ephemeral, (case.command, players.content)
        assert await latest_visibility(fake_discord, dicebot, "player") is Visibility.PUBLIC


async def test_gm_rolls_hidden_applies_to_macros(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """A macro is rolled as its `/macro roll` says (dice or a roll command); unsaid, the default."""
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Defaults"})
    await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"})
    for name, held in (("Dice", "1d20+3"), ("Check", "/cosmos roll attribute:3 skill:2 tn:15")):
        saved = await fake_discord.invoke("macro save", {"name": name, "expression": held})
        assert saved.ephemeral, saved.content
        unsaid = await fake_discord.invoke("macro roll", {"name": name})
        assert unsaid.ephemeral, (name, unsaid.content)
        assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.HIDDEN
        public = await fake_discord.invoke("macro roll", {"name": name, "hidden": False})
        assert not public.ephemeral, (name, public.content)
        assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.PUBLIC


async def test_a_macro_holding_hidden_or_blind_rolls_as_that_command_typed(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    """A saved command's own `hidden` and `blind` decide as if typed, unless `/macro roll` says
    otherwise: a GM's `blind:true` macro under `gm_rolls:hidden` is blind (it was refused as
    "hidden and blind"), a saved `hidden:false` stays public, and `/macro roll hidden:true`
    overrides a saved `blind:true`."""
    await fake_discord.invoke("campaign start", {"system": "cosmos", "name": "Saved secrets"})
    await fake_discord.invoke("campaign settings", {"gm_rolls": "hidden"})
    check = "/cosmos roll attribute:3 skill:2 tn:15"
    for name, held in (("Blind", f"{check} blind:true"), ("Open", f"{check} hidden:false")):
        saved = await fake_discord.invoke("macro save", {"name": name, "expression": held})
        assert saved.ephemeral and "Saved" in saved.content, saved.content
    blind = await fake_discord.invoke("macro roll", {"name": "Blind"})
    assert blind.ephemeral and not blind.embeds, blind.content
    assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.BLIND
    public = await fake_discord.invoke("macro roll", {"name": "Open"})
    assert not public.ephemeral and public.embeds, public.content
    assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.PUBLIC
    overridden = await fake_discord.invoke("macro roll", {"name": "Blind", "hidden": True})
    assert overridden.ephemeral and overridden.embeds, overridden.content
    assert await latest_visibility(fake_discord, dicebot, "gm") is Visibility.HIDDEN
    await fake_discord.invoke("macro save", {"name": "Mine", "expression": f"{check} blind:true"},
                              user="player")  # fmt: skip
    players = await fake_discord.invoke("macro roll", {"name": "Mine"}, user="player")
    assert players.ephemeral and not players.embeds, players.content
    assert await latest_visibility(fake_discord, dicebot, "player") is Visibility.BLIND
