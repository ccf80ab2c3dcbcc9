"""The fake refuses what Discord refuses: each documented limit, at the limit and one over.

Every expected number here is written out by hand from discord-api-docs (the source each rule
in limits.py names), not read from the constants under test.
"""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest
from discord.ext import commands

from tests.fakediscord import FakeDiscord, Reply, run_bot
from tests.fakediscord.form import Problem
from tests.fakediscord.limits import (
    CHANNEL_MESSAGE_FLAGS,
    EDIT_FLAGS,
    FOLLOWUP_FLAGS,
    callback_problems,
    choice_problems,
    message_problems,
    upload_problem,
)
from tests.fakediscord.payloads import JSON

Found = list[tuple[tuple[str | int, ...], str]]
MiB = 1024 * 1024


def found(problems: list[Problem]) -> Found:
    return [(problem.path, problem.code) for problem in problems]


def in_message(body: JSON, **options: Any) -> Found:
    return found(message_problems(body, **options))


def embed(**fields: Any) -> JSON:
    return {"embeds": [fields]}


def button(custom_id: str = "b", **fields: Any) -> JSON:
    return {"type": 2, "style": 1, "custom_id": custom_id, **fields}


def select(custom_id: str = "s", options: int | list[JSON] = 3, **fields: Any) -> JSON:
    """A string select with these options, or this many."""
    if isinstance(options, int):
        options = [{"label": f"l{n}", "value": f"v{n}"} for n in range(options)]
    return {"type": 3, "custom_id": custom_id, "options": options, **fields}


def row(*children: JSON) -> JSON:
    return {"type": 1, "components": list(children)}


def in_row(child: JSON) -> JSON:
    return {"components": [row(child)]}


MAX_LENGTH, BAD_LENGTH, MIN_LENGTH = (
    "BASE_TYPE_MAX_LENGTH",
    "BASE_TYPE_BAD_LENGTH",
    "BASE_TYPE_MIN_LENGTH",
)
REQUIRED = "BASE_TYPE_REQUIRED"
CHILD = ("components", 0, "components", 0)  # the first component of the first row

# (rule, a body at the limit, a body over it, where Discord answers, its code)
MESSAGE_RULES: list[tuple[str, JSON, JSON, tuple[str | int, ...], str]] = [
    ("content", {"content": "x" * 2000}, {"content": "x" * 2001}, ("content",), MAX_LENGTH),
    (
        "embeds",
        {"embeds": [{"title": "t"}] * 10},
        {"embeds": [{"title": "t"}] * 11},
        ("embeds",),
        MAX_LENGTH,
    ),
    ("title", embed(title="x" * 256), embed(title="x" * 257), ("embeds", 0, "title"), MAX_LENGTH),
    (
        "description",
        embed(description="x" * 4096),
        embed(description="x" * 4097),
        ("embeds", 0, "description"),
        MAX_LENGTH,
    ),
    (
        "description trimmed",
        embed(description=" " + "x" * 4096 + "\n "),
        embed(description=" " + "x" * 4097 + "\n "),
        ("embeds", 0, "description"),
        MAX_LENGTH,
    ),
    (
        "fields",
        embed(fields=[{"name": "n", "value": "v"}] * 25),
        embed(fields=[{"name": "n", "value": "v"}] * 26),
        ("embeds", 0, "fields"),
        MAX_LENGTH,
    ),
    (
        "field name",
        embed(fields=[{"name": "x" * 256, "value": "v"}]),
        embed(fields=[{"name": "x" * 257, "value": "v"}]),
        ("embeds", 0, "fields", 0, "name"),
        MAX_LENGTH,
    ),
    (
        "field name empty",
        embed(fields=[{"name": "x", "value": "v"}]),
        embed(fields=[{"name": "", "value": "v"}]),
        ("embeds", 0, "fields", 0, "name"),
        BAD_LENGTH,
    ),
    (
        "field name missing",
        embed(fields=[{"name": "x", "value": "v"}]),
        embed(fields=[{"value": "v"}]),
        ("embeds", 0, "fields", 0, "name"),
        REQUIRED,
    ),
    (
        "field value",
        embed(fields=[{"name": "n", "value": "x" * 1024}]),
        embed(fields=[{"name": "n", "value": "x" * 1025}]),
        ("embeds", 0, "fields", 0, "value"),
        MAX_LENGTH,
    ),
    (
        "field value empty",
        embed(fields=[{"name": "n", "value": "x"}]),
        embed(fields=[{"name": "n", "value": "  "}]),
        ("embeds", 0, "fields", 0, "value"),
        BAD_LENGTH,
    ),
    (
        "footer text",
        embed(footer={"text": "x" * 2048}),
        embed(footer={"text": "x" * 2049}),
        ("embeds", 0, "footer", "text"),
        MAX_LENGTH,
    ),
    (
        "author name",
        embed(author={"name": "x" * 256}),
        embed(author={"name": "x" * 257}),
        ("embeds", 0, "author", "name"),
        MAX_LENGTH,
    ),
    # 6,000 in all: 200 + 4,000 + 100 + 1,000 + 500 + 200 (title, description, a field's name
    # and value, footer, author), then one more in the author's name.
    (
        "embed total",
        embed(
            title="t" * 200,
            description="d" * 4000,
            fields=[{"name": "n" * 100, "value": "v" * 1000}],
            footer={"text": "f" * 500},
            author={"name": "a" * 200},
        ),
        embed(
            title="t" * 200,
            description="d" * 4000,
            fields=[{"name": "n" * 100, "value": "v" * 1000}],
            footer={"text": "f" * 500},
            author={"name": "a" * 201},
        ),
        ("embeds",),
        "MAX_EMBED_SIZE_EXCEEDED",
    ),
    (
        "embed total across embeds",
        {"embeds": [{"description": "x" * 4096}, {"description": "x" * 1904}]},
        {"embeds": [{"description": "x" * 4096}, {"description": "x" * 1905}]},
        ("embeds",),
        "MAX_EMBED_SIZE_EXCEEDED",
    ),
    (
        "colour",
        embed(color=16777215),
        embed(color=16777216),
        ("embeds", 0, "color"),
        "NUMBER_TYPE_MAX",
    ),
    ("colour negative", embed(color=0), embed(color=-1), ("embeds", 0, "color"), "NUMBER_TYPE_MIN"),
    # components
    (
        "action rows",
        {"components": [row(button(f"b{n}")) for n in range(5)]},
        {"components": [row(button(f"b{n}")) for n in range(6)]},
        ("components",),
        MAX_LENGTH,
    ),
    (
        "top level is an action row",
        {"components": [row(button())]},
        {"components": [button()]},
        ("components", 0, "type"),
        "COMPONENT_TYPE_INVALID",
    ),
    (
        "buttons in a row",
        {"components": [row(*(button(f"b{n}") for n in range(5)))]},
        {"components": [row(*(button(f"b{n}") for n in range(6)))]},
        ("components", 0, "components"),
        MAX_LENGTH,
    ),
    (
        "empty row",
        {"components": [row(button())]},
        {"components": [row()]},
        ("components", 0, "components"),
        MIN_LENGTH,
    ),
    (
        "a select takes the whole row",
        {"components": [row(select())]},
        {"components": [row(select(), button())]},
        ("components", 0, "components", 1),
        "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
    ),
    (
        "no text input in a message",
        {"components": [row(button())]},
        {"components": [row({"type": 4, "custom_id": "t", "style": 1, "label": "x"})]},
        (*CHILD, "type"),
        "COMPONENT_TYPE_INVALID",
    ),
    (
        "button label",
        in_row(button(label="x" * 80)),
        in_row(button(label="x" * 81)),
        (*CHILD, "label"),
        MAX_LENGTH,
    ),
    (
        "button needs a custom_id",
        in_row(button()),
        in_row({"type": 2, "style": 4, "label": "x"}),
        (*CHILD, "custom_id"),
        "BUTTON_COMPONENT_CUSTOM_ID_REQUIRED",
    ),
    (
        "button has no url",
        in_row(button()),
        in_row(button(url="https://example.org")),
        (*CHILD, "url"),
        "BUTTON_COMPONENT_INVALID_FIELD",
    ),
    (
        "link button needs a url",
        in_row({"type": 2, "style": 5, "label": "x", "url": "https://example.org"}),
        in_row({"type": 2, "style": 5, "label": "x"}),
        (*CHILD, "url"),
        "BUTTON_COMPONENT_URL_REQUIRED",
    ),
    (
        "link button has no custom_id",
        in_row({"type": 2, "style": 5, "url": "https://example.org"}),
        in_row({"type": 2, "style": 5, "url": "https://example.org", "custom_id": "c"}),
        (*CHILD, "custom_id"),
        "BUTTON_COMPONENT_INVALID_FIELD",
    ),
    (
        "link url",
        in_row({"type": 2, "style": 5, "url": "h" * 512}),
        in_row({"type": 2, "style": 5, "url": "h" * 513}),
        (*CHILD, "url"),
        MAX_LENGTH,
    ),
    (
        "premium button needs a sku_id",
        in_row({"type": 2, "style": 6, "sku_id": "123"}),
        in_row({"type": 2, "style": 6}),
        (*CHILD, "sku_id"),
        "BUTTON_COMPONENT_SKU_ID_REQUIRED",
    ),
    (
        "premium button has no custom_id",
        in_row({"type": 2, "style": 6, "sku_id": "123"}),
        in_row({"type": 2, "style": 6, "sku_id": "123", "custom_id": "c"}),
        (*CHILD, "custom_id"),
        "BUTTON_COMPONENT_INVALID_FIELD",
    ),
    (
        "button style",
        in_row(button(style=4)),
        in_row(button(style=7)),
        (*CHILD, "style"),
        "BASE_TYPE_CHOICES",
    ),
    (
        "custom_id",
        in_row(button("x" * 100)),
        in_row(button("x" * 101)),
        (*CHILD, "custom_id"),
        MAX_LENGTH,
    ),
    ("custom_id empty", in_row(button("x")), in_row(button("")), (*CHILD, "custom_id"), BAD_LENGTH),
    (
        "custom_id unique in the message",
        {"components": [row(button("a")), row(select("b"))]},
        {"components": [row(button("a")), row(select("a"))]},
        ("components", 1, "components", 0, "custom_id"),
        "COMPONENT_CUSTOM_ID_DUPLICATED",
    ),
    (
        "select needs a custom_id",
        in_row(select("s")),
        in_row({"type": 3, "options": [{"label": "l", "value": "v"}]}),
        (*CHILD, "custom_id"),
        REQUIRED,
    ),
    (
        "select options",
        in_row(select(options=25)),
        in_row(select(options=26)),
        (*CHILD, "options"),
        MAX_LENGTH,
    ),
    (
        "select no options",
        in_row(select(options=1)),
        in_row(select(options=0)),
        (*CHILD, "options"),
        MIN_LENGTH,
    ),
    (
        "option label",
        in_row(select(options=[{"label": "x" * 100, "value": "v"}])),
        in_row(select(options=[{"label": "x" * 101, "value": "v"}])),
        (*CHILD, "options", 0, "label"),
        MAX_LENGTH,
    ),
    (
        "option value",
        in_row(select(options=[{"label": "l", "value": "x" * 100}])),
        in_row(select(options=[{"label": "l", "value": "x" * 101}])),
        (*CHILD, "options", 0, "value"),
        MAX_LENGTH,
    ),
    (
        "option description",
        in_row(select(options=[{"label": "l", "value": "v", "description": "x" * 100}])),
        in_row(select(options=[{"label": "l", "value": "v", "description": "x" * 101}])),
        (*CHILD, "options", 0, "description"),
        MAX_LENGTH,
    ),
    (
        "placeholder",
        in_row(select(placeholder="x" * 150)),
        in_row(select(placeholder="x" * 151)),
        (*CHILD, "placeholder"),
        MAX_LENGTH,
    ),
    (
        "min_values",
        in_row(select(min_values=0)),
        in_row(select(min_values=-1)),
        (*CHILD, "min_values"),
        "NUMBER_TYPE_MIN",
    ),
    (
        "min_values at most 25",
        in_row(select(options=25, min_values=25)),
        in_row(select(options=25, min_values=26)),
        (*CHILD, "min_values"),
        "NUMBER_TYPE_MAX",
    ),
    (
        "max_values",
        in_row(select(max_values=1)),
        in_row(select(max_values=0)),
        (*CHILD, "max_values"),
        "NUMBER_TYPE_MIN",
    ),
    (
        "max_values at most 25",
        in_row(select(options=25, max_values=25)),
        in_row(select(options=25, max_values=26)),
        (*CHILD, "max_values"),
        "NUMBER_TYPE_MAX",
    ),
    (
        "max_values at most the options",
        in_row(select(options=3, max_values=3)),
        in_row(select(options=3, max_values=4)),
        (*CHILD, "max_values"),
        "NUMBER_TYPE_MAX",
    ),
    (
        "user select needs no options",
        in_row({"type": 5, "custom_id": "u", "max_values": 25}),
        in_row({"type": 5, "custom_id": "u", "max_values": 26}),
        (*CHILD, "max_values"),
        "NUMBER_TYPE_MAX",
    ),
    # attachments (the uploads' sizes: test_uploads_over_10_mib_are_too_large)
    (
        "attachments",
        {"attachments": [{"id": n} for n in range(10)]},
        {"attachments": [{"id": n} for n in range(11)]},
        ("attachments",),
        MAX_LENGTH,
    ),
    # allowed mentions
    (
        "mention types",
        {"allowed_mentions": {"parse": ["everyone", "roles", "users"]}},
        {"allowed_mentions": {"parse": ["here"]}},
        ("allowed_mentions", "parse", 0),
        "BASE_TYPE_CHOICES",
    ),
    (
        "user ids",
        {"allowed_mentions": {"users": [str(n) for n in range(100)]}},
        {"allowed_mentions": {"users": [str(n) for n in range(101)]}},
        ("allowed_mentions", "users"),
        MAX_LENGTH,
    ),
    (
        "role ids",
        {"allowed_mentions": {"roles": [str(n) for n in range(100)]}},
        {"allowed_mentions": {"roles": [str(n) for n in range(101)]}},
        ("allowed_mentions", "roles"),
        MAX_LENGTH,
    ),
    (
        "parse users and users",
        {"allowed_mentions": {"parse": ["users", "roles"], "users": []}},
        {"allowed_mentions": {"parse": ["users"], "users": ["1"]}},
        ("allowed_mentions",),
        "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
    ),
    (
        "parse roles and roles",
        {"allowed_mentions": {"parse": ["everyone"], "roles": ["1"], "users": ["2"]}},
        {"allowed_mentions": {"parse": ["roles"], "roles": ["1"]}},
        ("allowed_mentions",),
        "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
    ),
    # flags of a channel message (POST /channels/{id}/messages): 4, 4096, 8192, 32768
    (
        "channel flags",
        {"flags": 4 | 4096 | 8192},
        {"flags": 64},
        ("flags",),
        "MESSAGE_FLAGS_NOT_SETTABLE",
    ),
]


@pytest.mark.parametrize(
    ("accepted", "refused", "path", "code"),
    [rule[1:] for rule in MESSAGE_RULES],
    ids=[rule[0] for rule in MESSAGE_RULES],
)
def test_a_message_at_the_limit_is_accepted_and_one_over_refused(
    accepted: JSON, refused: JSON, path: tuple[str | int, ...], code: str
) -> None:
    assert in_message(accepted) == []
    assert in_message(refused) == [(path, code)]


def test_a_refusal_says_what_discord_says() -> None:
    [problem] = message_problems(embed(description="x" * 4097))
    assert str(problem) == "embeds.0.description: Must be 4096 or fewer in length."
    [problem] = message_problems({"allowed_mentions": {"parse": ["users"], "users": ["1"]}})
    assert (
        str(problem)
        == 'allowed_mentions: parse:["users"] and users: [ids...] are mutually exclusive.'
    )


def test_components_v2_take_40_components_of_any_kind() -> None:
    text = {"type": 10, "content": "hello"}
    flags = {"flags": 32768}
    assert in_message({**flags, "components": [text] * 40}) == []
    assert in_message({**flags, "components": [text] * 41}) == [(("components",), MAX_LENGTH)]
    # 40 in all, nested: a container of 39 (40 with itself), then a 41st inside it
    assert in_message({**flags, "components": [{"type": 17, "components": [text] * 39}]}) == []
    assert in_message({**flags, "components": [{"type": 17, "components": [text] * 40}]}) == [
        (("components",), MAX_LENGTH)
    ]
    # a section's button accessory is checked and its custom_id counted
    section = {"type": 9, "components": [text], "accessory": button("a", label="x" * 81)}
    assert in_message({**flags, "components": [section, row(button("a"))]}) == [
        (("components", 0, "accessory", "label"), MAX_LENGTH),
        (("components", 1, "components", 0, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED"),
    ]
    assert in_message({"components": [text]}) == [
        (("components", 0, "type"), "COMPONENT_TYPE_INVALID")
    ]


def test_ten_files_are_accepted_and_an_eleventh_refused() -> None:
    assert in_message({}, file_count=10) == []
    assert in_message({}, file_count=11) == [(("attachments",), MAX_LENGTH)]


def test_uploads_over_10_mib_are_too_large() -> None:
    assert upload_problem({0: ("a.bin", b"x" * (10 * MiB))}) is None
    assert upload_problem({0: ("a.bin", b"x"), 1: ("b.bin", b"x" * (10 * MiB + 1))}) == (
        "files[1] (b.bin) is 10,485,761 bytes, over the 10,485,760 a file may be"
    )
    # 25 MiB a request: two files at the limit and one of 5 MiB, then one byte more
    exactly = {0: ("a", b"x" * (10 * MiB)), 1: ("b", b"x" * (10 * MiB)), 2: ("c", b"x" * (5 * MiB))}
    assert upload_problem(exactly) is None
    over = {**exactly, 3: ("d", b"x")}
    assert upload_problem(over) == (
        "the files are 26,214,401 bytes in all, over the 26,214,400 a request may be"
    )


@pytest.mark.parametrize(
    ("allowed", "accepted", "refused"),
    [
        (CHANNEL_MESSAGE_FLAGS, 4 | 4096 | 8192 | 32768, 64),
        (FOLLOWUP_FLAGS, 4 | 64 | 4096 | 32768, 8192),
        (EDIT_FLAGS, 4 | 32768, 64),
        (EDIT_FLAGS, 4 | 32768, 4096),
        (EDIT_FLAGS | 64, 4 | 64, 4096),  # an ephemeral message's edit may repeat its flag
    ],
    ids=["channel message", "followup", "edit", "edit, silent", "edit of an ephemeral message"],
)
def test_each_request_sets_only_the_flags_discord_lets_it(
    allowed: int, accepted: int, refused: int
) -> None:
    assert in_message({"flags": accepted}, flags=allowed) == []
    assert in_message({"flags": refused}, flags=allowed) == [
        (("flags",), "MESSAGE_FLAGS_NOT_SETTABLE")
    ]


# -- interaction callbacks ------------------------------------------------------------------

TEXT_INPUT_ROW: JSON = {"type": 1, "components": [{"type": 4, "custom_id": "i", "style": 1}]}
MODAL_DATA: JSON = {"custom_id": "m", "title": "t", "components": [TEXT_INPUT_ROW]}
VALID_DATA: dict[int, JSON | None] = {
    4: {"content": "hi"},
    5: {"flags": 64},
    6: None,
    7: {"content": "hi"},
    8: {"choices": []},
    9: MODAL_DATA,
}
# Which callbacks each interaction takes, written out: an application command 4, 5 and 9, a
# component 4-7 and 9, an autocomplete 8 alone, a modal submit 4-7.
TAKES = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}


def callback(kind: int, data: JSON | None = None, interaction: int = 2) -> Found:
    body: JSON = {"type": kind} if data is None else {"type": kind, "data": data}
    return found(callback_problems(body, interaction))


@pytest.mark.parametrize("interaction", sorted(TAKES))
@pytest.mark.parametrize("kind", [1, 4, 5, 6, 7, 8, 9, 10, 12])
def test_each_interaction_takes_only_its_callback_types(interaction: int, kind: int) -> None:
    problems = callback(kind, VALID_DATA.get(kind), interaction)
    if kind in TAKES[interaction]:
        assert problems == []
    else:
        assert problems == [(("type",), "INTERACTION_CALLBACK_TYPE_INVALID")]


def test_a_callback_data_problem_is_under_data() -> None:
    assert callback(4, embed(description="x" * 4096)) == []
    [problem] = callback_problems({"type": 4, "data": embed(description="x" * 4097)}, 2)
    assert (problem.path, problem.code) == (("data", "embeds", 0, "description"), MAX_LENGTH)
    assert str(problem) == "data.embeds.0.description: Must be 4096 or fewer in length."
    assert callback(7, in_row(button("x" * 101)), 3) == [
        (("data", *CHILD, "custom_id"), MAX_LENGTH)
    ]
    assert callback(4, {}, 2) == [] and callback(4, None, 2) == []


@pytest.mark.parametrize(
    ("kind", "interaction", "accepted", "refused"),
    [
        (4, 2, 4 | 64 | 4096 | 8192 | 32768, 2),  # "Messages": those five
        (5, 2, 64, 4),  # a deferral: EPHEMERAL only
        (7, 3, 4 | 32768, 64),  # an update of the clicked message: an edit's flags
    ],
    ids=["message", "deferred", "update"],
)
def test_callback_flags(kind: int, interaction: int, accepted: int, refused: int) -> None:
    assert callback(kind, {"flags": accepted}, interaction) == []
    assert callback(kind, {"flags": refused}, interaction) == [
        (("data", "flags"), "MESSAGE_FLAGS_NOT_SETTABLE")
    ]


def choices(count: int = 1, name: str = "n", value: Any = "v") -> JSON:
    return {"choices": [{"name": name, "value": value}] * count}


@pytest.mark.parametrize(
    ("accepted", "refused", "path", "code"),
    [
        (choices(25), choices(26), ("choices",), MAX_LENGTH),
        (choices(name="x" * 100), choices(name="x" * 101), ("choices", 0, "name"), MAX_LENGTH),
        (choices(name="x"), choices(name=""), ("choices", 0, "name"), BAD_LENGTH),
        (choices(value="x" * 100), choices(value="x" * 101), ("choices", 0, "value"), MAX_LENGTH),
        (choices(value=10**9), {"choices": None}, ("choices",), REQUIRED),
    ],
    ids=["count", "name", "name empty", "value", "required"],
)
def test_autocomplete_choices(
    accepted: JSON, refused: JSON, path: tuple[Any, ...], code: str
) -> None:
    assert found(choice_problems(accepted)) == []
    assert found(choice_problems(refused)) == [(path, code)]
    assert callback(8, refused, 4) == [(("data", *path), code)]


@pytest.mark.parametrize(
    ("field", "accepted", "refused", "code"),
    [
        ("title", "x" * 45, "x" * 46, MAX_LENGTH),
        ("custom_id", "x" * 100, "x" * 101, MAX_LENGTH),
        ("components", [TEXT_INPUT_ROW] * 5, [TEXT_INPUT_ROW] * 6, MAX_LENGTH),
        ("components", [TEXT_INPUT_ROW], [], MIN_LENGTH),
    ],
    ids=["title", "custom_id", "components", "no components"],
)
def test_modal(field: str, accepted: Any, refused: Any, code: str) -> None:
    assert callback(9, {**MODAL_DATA, field: accepted}) == []
    assert callback(9, {**MODAL_DATA, field: refused}) == [(("data", field), code)]


# -- through HTTP, with discord.py ------------------------------------------------------------


@dataclass
class ManualClock:
    """A clock that stands still until a test moves it: deadlines to the exact second."""

    now: float = 1_000.0

    def __call__(self) -> float:
        return self.now


Outcome = str | discord.HTTPException  # "ok", or what discord.py raised


@dataclass
class Steps:
    """What the bot's latest command met, step by step; ``done`` once it has finished."""

    clock: ManualClock
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    done: bool = False

    async def step(self, name: str, request: Awaitable[Any]) -> None:
        try:
            await request
        except discord.HTTPException as error:
            self.outcomes[name] = error
        else:
            self.outcomes[name] = "ok"


def build_bot(guild_id: int, steps: Steps) -> commands.Bot:
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
    tree = bot.tree

    @tree.command(description="Reply with a description this long")
    async def describe(interaction: discord.Interaction, length: int) -> None:
        embed = discord.Embed(description="x" * length)
        await steps.step("reply", interaction.response.send_message(embed=embed))
        steps.done = True

    @tree.command(description="Answer this many seconds after the interaction")
    async def late(interaction: discord.Interaction, seconds: float) -> None:
        steps.clock.now += seconds
        await steps.step("reply", interaction.response.send_message("here"))
        await steps.step("followup", interaction.followup.send("and here"))
        steps.done = True

    @tree.command(description="Answer, then follow up this many seconds after")
    async def later(interaction: discord.Interaction, seconds: float) -> None:
        await steps.step("reply", interaction.response.send_message("first"))
        steps.clock.now += seconds
        await steps.step("followup", interaction.followup.send("second"))
        await steps.step("edit", interaction.edit_original_response(content="edited"))
        steps.done = True

    @tree.command(description="Upload a file this large")
    async def upload(interaction: discord.Interaction, size: int) -> None:
        file = discord.File(io.BytesIO(b"x" * size), filename="big.bin")
        await steps.step("reply", interaction.response.send_message(file=file))
        steps.done = True

    async def setup_hook() -> None:
        tree.copy_global_to(guild=discord.Object(guild_id))
        await tree.sync(guild=discord.Object(guild_id))

    bot.setup_hook = setup_hook  # type: ignore[method-assign]  # discord.py: a hook to override; this test's one bot sets it on the instance
    return bot


@pytest.fixture
async def steps(fake_discord: FakeDiscord) -> AsyncIterator[Steps]:
    """The bot's steps, its clock the fake's: a ManualClock the bot's commands move on."""
    record = Steps(ManualClock())
    fake_discord.clock = record.clock
    async with run_bot(fake_discord, build_bot(fake_discord.guild_id, record)):
        yield record


async def run(
    fake: FakeDiscord, steps: Steps, command: str, options: dict[str, Any]
) -> tuple[Reply, dict[str, Outcome]]:
    """Send a command and wait until the bot has finished it; return its reply and steps."""
    steps.outcomes, steps.done = {}, False
    reply = await fake.send(command, options)
    await fake.wait_until(lambda: steps.done, f"/{command} to finish")
    return reply, steps.outcomes


def refusal(result: Outcome) -> tuple[int, int, str]:
    assert isinstance(result, discord.HTTPException), result
    return result.status, result.code, str(result)


async def test_a_reply_over_the_limit_is_refused_with_discords_answer(
    fake_discord: FakeDiscord, steps: Steps
) -> None:
    reply, outcomes = await run(fake_discord, steps, "describe", {"length": 4096})
    assert outcomes == {"reply": "ok"} and len(reply.embeds[0]["description"]) == 4096

    reply, outcomes = await run(fake_discord, steps, "describe", {"length": 4097})
    status, code, text = refusal(outcomes["reply"])
    assert (status, code) == (400, 50035)
    assert "In data.embeds.0.description: Must be 4096 or fewer in length." in text
    assert reply.raw is None
    assert fake_discord.refused_requests == [
        "interaction callback: data.embeds.0.description: Must be 4096 or fewer in length."
    ]
    fake_discord.refused_requests.clear()  # refused on purpose: check_clean would fail on it


async def test_a_refused_answer_ends_the_wait_for_it_at_once_with_the_reason(
    fake_discord: FakeDiscord, steps: Steps
) -> None:
    # Not the fake's 30 s timeout: the refusal itself, as soon as it is made.
    with pytest.raises(AssertionError, match=r"refused the bot's answer to /describe: .*4096"):
        async with asyncio.timeout(5):
            await fake_discord.invoke("describe", {"length": 4097})
    fake_discord.refused_requests.clear()  # refused on purpose: check_clean would fail on it


async def test_a_callback_after_3_seconds_is_an_unknown_interaction(
    fake_discord: FakeDiscord, steps: Steps
) -> None:
    reply, outcomes = await run(fake_discord, steps, "late", {"seconds": 3.0})
    assert outcomes == {"reply": "ok", "followup": "ok"} and reply.content == "here"

    reply, outcomes = await run(fake_discord, steps, "late", {"seconds": 3.001})
    assert refusal(outcomes["reply"])[:2] == (404, 10062)
    # Discord invalidated the token: the followup finds no webhook
    assert refusal(outcomes["followup"])[:2] == (404, 10015)
    assert reply.raw is None
    assert fake_discord.refused_requests == []  # not a form problem
    assert fake_discord.late_responses == [
        "the callback for /late came 3.001 s after the interaction (Discord's deadline: 3 s)"
    ]
    with pytest.raises(AssertionError, match="answered after Discord's deadline"):
        fake_discord.check_clean()
    fake_discord.late_responses.clear()  # late on purpose: check_clean would fail on it


async def test_the_token_takes_followups_and_edits_for_15_minutes(
    fake_discord: FakeDiscord, steps: Steps
) -> None:
    reply, outcomes = await run(fake_discord, steps, "later", {"seconds": 900.0})
    assert outcomes == {"reply": "ok", "followup": "ok", "edit": "ok"}
    assert reply.content == "edited" and len(reply.followups) == 1

    reply, outcomes = await run(fake_discord, steps, "later", {"seconds": 900.5})
    assert refusal(outcomes["followup"])[:2] == (401, 50027)
    assert refusal(outcomes["edit"])[:2] == (401, 50027)
    assert reply.content == "first" and reply.followups == []
    assert fake_discord.late_responses == [
        "a followup for /later came 900.500 s after the interaction (Discord's deadline: 900 s)",
        "PATCH of message @original for /later came 900.500 s after the interaction "
        "(Discord's deadline: 900 s)",
    ]
    fake_discord.late_responses.clear()  # late on purpose: check_clean would fail on it


async def test_an_upload_over_10_mib_is_too_large(fake_discord: FakeDiscord, steps: Steps) -> None:
    reply, outcomes = await run(fake_discord, steps, "upload", {"size": 10 * MiB})
    assert outcomes == {"reply": "ok"} and len(reply.attachments[0][1]) == 10 * MiB

    reply, outcomes = await run(fake_discord, steps, "upload", {"size": 10 * MiB + 1})
    status, code, text = refusal(outcomes["reply"])
    assert (status, code) == (413, 40005) and "Request entity too large" in text
    assert fake_discord.refused_requests == [
        "interaction callback: files[0] (big.bin) is 10,485,761 bytes, over the 10,485,760 a "
        "file may be"
    ]
    fake_discord.refused_requests.clear()  # refused on purpose: check_clean would fail on it


def test_advance_clock_moves_the_clock_on() -> None:
    fake = FakeDiscord()
    clock = ManualClock(5.0)
    fake.clock = clock
    fake.advance_clock(3.0)
    fake.advance_clock(0.5)
    assert fake.clock() == 8.5
    clock.now = 10.0
    assert fake.clock() == 13.5


def test_forgetting_the_test_restores_the_clock_and_the_record() -> None:
    fake = FakeDiscord()
    fake.advance_clock(60.0)
    fake.late_responses.append("late")
    fake.forget_the_test()
    assert fake.late_responses == []
    assert fake.clock is time.monotonic
