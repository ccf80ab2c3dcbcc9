"""The fake refuses a command sync as Discord does (tests/fakediscord/commands.py): each limit
at its edge is accepted, one past it is refused at the path of its field; then end to end, a
discord.py bot's sync over a limit fails with CommandSyncFailure and registers nothing."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, run_bot
from tests.fakediscord.commands import (
    AUTOCOMPLETE_WITH_CHOICES,
    BOOLEAN,
    DUPLICATE_COMMAND,
    DUPLICATE_OPTION,
    FIELD_NOT_FOR_TYPE,
    GLOBAL_ONLY,
    INTEGER,
    INVALID_NAME,
    MESSAGE,
    MIN_ABOVE_MAX,
    NUMBER,
    OPTION_TYPES_MIXED,
    REQUIRED_ORDER,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    TOO_LARGE,
    UNSUPPORTED_TYPE,
    USER,
    command_problems,
    command_size,
    too_many_commands,
)
from tests.fakediscord.form import Path
from tests.fakediscord.payloads import JSON

BAD_LENGTH = "BASE_TYPE_BAD_LENGTH"
MAX_LENGTH = "BASE_TYPE_MAX_LENGTH"
TOO_HIGH, TOO_LOW, NOT_A_NUMBER = "NUMBER_TYPE_MAX", "NUMBER_TYPE_MIN", "NUMBER_TYPE_COERCE"
CHOICES = "BASE_TYPE_CHOICES"
FIRST_OPTION: Path = (0, "options", 0)


def command(**fields: Any) -> JSON:
    """A valid chat-input command; ``fields`` replace or add to it."""
    return {"type": 1, "name": "roll", "description": "Roll dice", **fields}


def option(kind: int = STRING, name: str = "dice", **fields: Any) -> JSON:
    """A valid option of type ``kind``; ``fields`` replace or add to it."""
    return {"type": kind, "name": name, "description": "What to roll", **fields}


def menu(kind: int = USER, name: str = "Roll for them", **fields: Any) -> JSON:
    """A valid context-menu command (discord.py sends no description)."""
    return {"type": kind, "name": name, **fields}


def with_option(*options: JSON) -> JSON:
    return command(options=list(options))


def problems(*body: JSON, guild: bool = False) -> list[tuple[Path, str]]:
    """Where and why the fake refuses ``body`` (a bulk overwrite of these commands)."""
    return [(problem.path, problem.code) for problem in command_problems(list(body), guild=guild)]


def refused_at(path: Path, code: str, *body: JSON, guild: bool = False) -> bool:
    """Whether ``body`` is refused exactly once, at ``path`` with ``code``."""
    return problems(*body, guild=guild) == [(path, code)]


def named(count: int, **fields: Any) -> list[JSON]:
    """``count`` options with distinct names."""
    return [option(name=f"o{index}", **fields) for index in range(count)]


# -- names -------------------------------------------------------------------------------------


def test_a_name_of_32_characters_is_accepted_and_33_or_none_refused() -> None:
    assert problems(command(name="a" * 32)) == []
    assert refused_at((0, "name"), BAD_LENGTH, command(name="a" * 33))
    assert refused_at((0, "name"), BAD_LENGTH, command(name=""))
    assert refused_at((0, "name"), "BASE_TYPE_REQUIRED", {"type": 1, "description": "Roll"})


@pytest.mark.parametrize(
    "name",
    # punctuation the regex allows, an uncased letter, scripts: their marks (Devanagari ि and ्,
    # Thai ั) pass through \p{sc=Deva} and \p{sc=Thai}; ß is already lowercase
    ["roll-2_d'ice", "日本語", "हिन्दी", "ภาษาไทย", "straße", "ελληνικά", "١٢٣"],
)
def test_a_chat_input_name_of_allowed_characters_in_lowercase_is_accepted(name: str) -> None:
    assert problems(command(name=name)) == []
    assert problems(with_option(option(name=name))) == []


@pytest.mark.parametrize("name", ["Roll", "roll dice", "roll!", "rollÉ", "ǅ", "roll.d6"])
def test_a_chat_input_name_with_a_capital_or_another_character_is_refused(name: str) -> None:
    assert refused_at((0, "name"), INVALID_NAME, command(name=name))
    assert refused_at((*FIRST_OPTION, "name"), INVALID_NAME, with_option(option(name=name)))


def test_a_context_menu_name_may_have_capitals_and_spaces_up_to_32_characters() -> None:
    assert problems(menu(name="Roll For Them")) == []
    assert problems(menu(MESSAGE, name="R" * 32)) == []
    assert refused_at((0, "name"), BAD_LENGTH, menu(name="R" * 33))


def test_a_name_localization_follows_the_rules_of_the_name() -> None:
    assert problems(command(name_localizations={"fr": "lancer", "de": "w" * 32})) == []
    assert refused_at(
        (0, "name_localizations", "fr"), INVALID_NAME, command(name_localizations={"fr": "Lancer"})
    )
    assert refused_at(
        (0, "name_localizations", "de"), BAD_LENGTH, command(name_localizations={"de": "w" * 33})
    )


def test_command_names_are_unique_per_type_in_one_sync() -> None:
    assert problems(command(), menu(name="roll"), menu(MESSAGE, name="roll")) == []
    assert refused_at((1,), DUPLICATE_COMMAND, command(), command(description="Again"))
    assert refused_at((2,), DUPLICATE_COMMAND, menu(), command(), menu())


# -- descriptions ------------------------------------------------------------------------------


def test_a_description_of_100_characters_is_accepted_and_101_or_none_refused() -> None:
    assert problems(command(description="d" * 100)) == []
    assert refused_at((0, "description"), BAD_LENGTH, command(description="d" * 101))
    assert refused_at((0, "description"), BAD_LENGTH, command(description=""))
    assert refused_at(
        (0, "description"), "BASE_TYPE_REQUIRED", {"type": 1, "name": "roll", "options": []}
    )


def test_an_option_description_of_100_characters_is_accepted_and_101_refused() -> None:
    assert problems(with_option(option(description="d" * 100))) == []
    assert refused_at(
        (*FIRST_OPTION, "description"), BAD_LENGTH, with_option(option(description="d" * 101))
    )


def test_a_description_localization_of_100_characters_is_accepted_and_101_refused() -> None:
    assert problems(command(description_localizations={"de": "d" * 100})) == []
    body = command(description_localizations={"de": "d" * 101})
    assert refused_at((0, "description_localizations", "de"), BAD_LENGTH, body)


def test_a_context_menu_takes_no_description_and_no_options() -> None:
    assert problems(menu(), menu(MESSAGE, description="")) == []
    assert refused_at((0, "description"), MAX_LENGTH, menu(description="Rolls"))
    assert refused_at((0, "options"), FIELD_NOT_FOR_TYPE, menu(options=[option()]))


# -- options and choices -----------------------------------------------------------------------


def test_25_options_are_accepted_and_26_refused() -> None:
    assert problems(command(options=named(25))) == []
    assert refused_at((0, "options"), MAX_LENGTH, command(options=named(26)))


def test_25_options_of_a_subcommand_are_accepted_and_26_refused() -> None:
    def subcommand(count: int) -> JSON:
        return option(SUB_COMMAND, name="sub", options=named(count))

    assert problems(with_option(subcommand(25))) == []
    assert refused_at((*FIRST_OPTION, "options"), MAX_LENGTH, with_option(subcommand(26)))


def test_option_names_are_unique_within_one_level() -> None:
    assert problems(with_option(option(name="dice"), option(name="bonus"))) == []
    assert refused_at(
        (0, "options", 1), DUPLICATE_OPTION, with_option(option(name="dice"), option(name="dice"))
    )
    # The same name in two subcommands is fine: each is its own level.
    twins = [option(SUB_COMMAND, name=name, options=[option()]) for name in ("a", "b")]
    assert problems(command(options=twins)) == []


def test_required_options_come_before_optional_ones() -> None:
    required, optional = option(name="dice", required=True), option(name="bonus")
    assert problems(with_option(required, optional)) == []
    assert refused_at((0, "options", 1), REQUIRED_ORDER, with_option(optional, required))


def test_25_choices_are_accepted_and_26_refused() -> None:
    def choices(count: int) -> list[JSON]:
        return [{"name": f"c{index}", "value": f"v{index}"} for index in range(count)]

    assert problems(with_option(option(choices=choices(25)))) == []
    assert refused_at(
        (*FIRST_OPTION, "choices"), MAX_LENGTH, with_option(option(choices=choices(26)))
    )


def test_a_choice_name_of_100_characters_is_accepted_and_101_or_none_refused() -> None:
    def choice(name: str) -> JSON:
        return with_option(option(choices=[{"name": name, "value": "v"}]))

    at = (*FIRST_OPTION, "choices", 0, "name")
    assert problems(choice("n" * 100)) == []
    assert refused_at(at, BAD_LENGTH, choice("n" * 101))
    assert refused_at(at, BAD_LENGTH, choice(""))
    localized = with_option(
        option(choices=[{"name": "n", "value": "v", "name_localizations": {"fr": "n" * 101}}])
    )
    assert refused_at(
        (*FIRST_OPTION, "choices", 0, "name_localizations", "fr"), BAD_LENGTH, localized
    )


def test_a_string_choice_value_of_100_characters_is_accepted_and_101_refused() -> None:
    def choice(value: str) -> JSON:
        return with_option(option(choices=[{"name": "n", "value": value}]))

    assert problems(choice("v" * 100)) == []
    assert refused_at((*FIRST_OPTION, "choices", 0, "value"), MAX_LENGTH, choice("v" * 101))


@pytest.mark.parametrize(
    ("kind", "value", "code"),
    [
        (STRING, 1, "BASE_TYPE_STRING"),
        (INTEGER, "1", NOT_A_NUMBER),
        (INTEGER, 1.5, NOT_A_NUMBER),
        (INTEGER, True, NOT_A_NUMBER),
        (INTEGER, 2**53, TOO_HIGH),
        (NUMBER, "1.5", NOT_A_NUMBER),
        (NUMBER, 2**53 + 1, TOO_HIGH),
    ],
)
def test_a_choice_value_not_of_the_option_type_is_refused(kind: int, value: Any, code: str) -> None:
    body = with_option(option(kind, choices=[{"name": "n", "value": value}]))
    assert refused_at((*FIRST_OPTION, "choices", 0, "value"), code, body)


@pytest.mark.parametrize(
    ("kind", "value"), [(STRING, "d20"), (INTEGER, 2**53 - 1), (NUMBER, 1.5), (NUMBER, 2**53)]
)
def test_a_choice_value_of_the_option_type_is_accepted(kind: int, value: Any) -> None:
    assert problems(with_option(option(kind, choices=[{"name": "n", "value": value}]))) == []


def test_choices_only_on_string_integer_and_number_options() -> None:
    choices = [{"name": "yes", "value": "yes"}]
    assert refused_at(
        (*FIRST_OPTION, "choices"),
        FIELD_NOT_FOR_TYPE,
        with_option(option(BOOLEAN, choices=choices)),
    )


# -- ranges ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "kind", "edge", "past", "code"),
    [
        # INTEGER: "Any integer between -2^53+1 and 2^53-1"
        ("max_value", INTEGER, 2**53 - 1, 2**53, TOO_HIGH),
        ("min_value", INTEGER, -(2**53) + 1, -(2**53), TOO_LOW),
        # NUMBER: "Any double between -2^53 and 2^53"
        ("max_value", NUMBER, 2**53, 2**53 + 1, TOO_HIGH),
        ("min_value", NUMBER, -(2**53), -(2**53) - 1, TOO_LOW),
        ("max_value", NUMBER, 2.0**53, 2.0**54, TOO_HIGH),
    ],
)
def test_a_value_range_within_the_option_type_is_accepted_and_past_it_refused(
    field: str, kind: int, edge: float, past: float, code: str
) -> None:
    assert problems(with_option(option(kind) | {field: edge})) == []
    assert refused_at((*FIRST_OPTION, field), code, with_option(option(kind) | {field: past}))


def test_an_integer_range_takes_integers_and_a_number_range_doubles() -> None:
    assert problems(with_option(option(NUMBER, min_value=0.5, max_value=2.5))) == []
    body = with_option(option(INTEGER, min_value=0.5))
    assert refused_at((*FIRST_OPTION, "min_value"), NOT_A_NUMBER, body)


def test_min_value_above_max_value_is_refused() -> None:
    assert problems(with_option(option(INTEGER, min_value=3, max_value=3))) == []
    body = with_option(option(INTEGER, min_value=4, max_value=3))
    assert refused_at((*FIRST_OPTION, "min_value"), MIN_ABOVE_MAX, body)


@pytest.mark.parametrize("field", ["min_value", "max_value"])
@pytest.mark.parametrize("kind", [STRING, BOOLEAN, SUB_COMMAND])
def test_a_value_range_only_on_integer_and_number_options(field: str, kind: int) -> None:
    body = with_option(option(kind) | {field: 1})
    assert refused_at((*FIRST_OPTION, field), FIELD_NOT_FOR_TYPE, body)


@pytest.mark.parametrize(
    ("field", "edge", "past", "code"),
    [
        ("min_length", 0, -1, TOO_LOW),
        ("min_length", 6_000, 6_001, TOO_HIGH),
        ("max_length", 1, 0, TOO_LOW),
        ("max_length", 6_000, 6_001, TOO_HIGH),
    ],
)
def test_a_string_length_range_of_0_to_6000_is_accepted_and_past_it_refused(
    field: str, edge: int, past: int, code: str
) -> None:
    assert problems(with_option(option(STRING) | {field: edge})) == []
    assert refused_at((*FIRST_OPTION, field), code, with_option(option(STRING) | {field: past}))


def test_a_string_length_range_only_on_string_options_and_min_not_above_max() -> None:
    assert refused_at(
        (*FIRST_OPTION, "max_length"),
        FIELD_NOT_FOR_TYPE,
        with_option(option(INTEGER, max_length=5)),
    )
    body = with_option(option(STRING, min_length=6, max_length=5))
    assert refused_at((*FIRST_OPTION, "min_length"), MIN_ABOVE_MAX, body)


# -- autocomplete ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [STRING, INTEGER, NUMBER])
def test_autocomplete_on_a_string_integer_or_number_option_is_accepted(kind: int) -> None:
    assert problems(with_option(option(kind, autocomplete=True))) == []


def test_autocomplete_on_another_type_or_with_choices_is_refused() -> None:
    at = (*FIRST_OPTION, "autocomplete")
    assert refused_at(at, FIELD_NOT_FOR_TYPE, with_option(option(BOOLEAN, autocomplete=True)))
    choices = [{"name": "d20", "value": "d20"}]
    assert problems(with_option(option(autocomplete=False, choices=choices))) == []
    body = with_option(option(autocomplete=True, choices=choices))
    assert refused_at(at, AUTOCOMPLETE_WITH_CHOICES, body)


# -- nesting -----------------------------------------------------------------------------------


def test_a_group_of_subcommands_of_plain_options_is_accepted() -> None:
    subcommand = option(SUB_COMMAND, name="add", options=[option(required=True), option(name="x")])
    group = option(SUB_COMMAND_GROUP, name="gm", options=[subcommand])
    assert problems(with_option(group, option(SUB_COMMAND, name="list"))) == []


@pytest.mark.parametrize(
    ("inner", "outer"),
    [
        (SUB_COMMAND_GROUP, SUB_COMMAND_GROUP),  # groups nest one level only
        (STRING, SUB_COMMAND_GROUP),  # a group holds only subcommands
        (SUB_COMMAND, SUB_COMMAND),  # a subcommand holds plain options
        (SUB_COMMAND_GROUP, SUB_COMMAND),
    ],
)
def test_a_misplaced_subcommand_or_group_is_refused(inner: int, outer: int) -> None:
    body = with_option(option(outer, name="outer", options=[option(inner, name="inner")]))
    assert refused_at((*FIRST_OPTION, "options", 0, "type"), OPTION_TYPES_MIXED, body)


def test_a_command_mixing_subcommands_and_plain_options_is_refused() -> None:
    body = with_option(option(SUB_COMMAND, name="add"), option(STRING, name="text"))
    assert refused_at((0, "options"), OPTION_TYPES_MIXED, body)


def test_a_plain_option_holds_no_options() -> None:
    body = with_option(option(STRING, options=[option(name="inner")]))
    assert refused_at((*FIRST_OPTION, "options"), FIELD_NOT_FOR_TYPE, body)


# -- counts ------------------------------------------------------------------------------------


def commands_of(kind: int, count: int, prefix: str = "c") -> list[JSON]:
    if kind == 1:
        return [command(name=f"{prefix}{index}") for index in range(count)]
    return [menu(kind, name=f"{prefix}{index}") for index in range(count)]


@pytest.mark.parametrize("guild", [False, True])
@pytest.mark.parametrize(("kind", "most"), [(1, 100), (USER, 15), (MESSAGE, 15)])
def test_commands_of_a_type_up_to_the_limit_are_accepted_and_one_more_refused(
    kind: int, most: int, guild: bool
) -> None:
    at_limit = commands_of(kind, most)
    assert command_problems(at_limit, guild=guild) == []
    assert too_many_commands(at_limit) is None
    over = commands_of(kind, most + 1)
    assert command_problems(over, guild=guild) == []  # not a form error: JSON error 30032
    assert too_many_commands(over) == f"Maximum number of application commands reached ({most})"


def test_a_sync_of_130_commands_is_accepted_and_131_refused_as_a_list() -> None:
    full = commands_of(1, 100) + commands_of(USER, 15) + commands_of(MESSAGE, 15)
    assert command_problems(full, guild=False) == []
    assert too_many_commands(full) is None
    over = [*full, menu(MESSAGE, name="one more")]
    assert [(p.path, p.code) for p in command_problems(over, guild=False)] == [((), MAX_LENGTH)]


# -- the size of a command ---------------------------------------------------------------------


def sized(last_description: int, localized: int = 0) -> JSON:
    """A command counting 7,900 characters plus its last option's description (its longest
    localization if ``localized`` is longer) plus 2 for that option's name.

    The command: name "big" (3) + description of 97 = 100. Three options, each name "o0".."o2"
    (2) + description of 98 (100) + 25 choices of a 50-character name and a 50-character value
    (25 × 100 = 2,500): 2,600 each, 7,800 for three. Total 7,900, then the last option.
    """
    choices = [{"name": f"{index:02}".ljust(50, "n"), "value": "v" * 50} for index in range(25)]
    full = [option(name=f"o{index}", description="d" * 98, choices=choices) for index in range(3)]
    last = option(name="o3", description="d" * last_description)
    if localized:
        last["description_localizations"] = {"fr": "f" * localized, "de": "g"}
    return command(name="big", description="d" * 97, options=[*full, last])


def test_a_command_of_8000_counted_characters_is_accepted_and_8001_refused() -> None:
    assert problems(sized(98)) == []  # 7,900 + 2 + 98 = 8,000
    assert refused_at((0,), TOO_LARGE, sized(99))  # 8,001


def test_a_longer_localization_counts_instead_of_its_default() -> None:
    assert problems(sized(10, localized=98)) == []  # the French 98 counts: 8,000
    assert refused_at((0,), TOO_LARGE, sized(10, localized=99))  # 8,001
    assert refused_at((0,), TOO_LARGE, sized(99, localized=5))  # the default is longest


def test_the_size_counts_names_descriptions_and_choice_values() -> None:
    tiny = {
        "type": 1,
        "name": "r",  # 1
        "description": "dd",  # 2
        "default_member_permissions": "8",  # not counted
        "options": [
            {
                "type": INTEGER,
                "name": "n",  # 1
                "description": "ee",  # 2
                "min_value": 10_000,  # not counted
                "choices": [{"name": "one", "value": 12345}],  # 3 + 5
                "name_localizations": {"fr": "nn"},  # longer than "n": 2 instead of 1
            },
        ],
    }
    assert command_size(tiny) == 1 + 2 + 2 + 2 + 3 + 5
    assert command_size(menu(name="Roll for them")) == 13


# -- where a command is offered ----------------------------------------------------------------


def test_contexts_and_integration_types_are_for_global_commands_only() -> None:
    everywhere = command(contexts=[0, 1, 2], integration_types=[0, 1])
    assert problems(everywhere) == []
    assert problems(everywhere, guild=True) == [
        ((0, "contexts"), GLOBAL_ONLY),
        ((0, "integration_types"), GLOBAL_ONLY),
    ]
    assert problems(command(contexts=None, integration_types=None), guild=True) == []
    assert problems(command(), guild=True) == []


def test_contexts_and_integration_types_take_their_documented_values() -> None:
    assert refused_at((0, "contexts", 1), CHOICES, command(contexts=[0, 3]))
    assert refused_at((0, "integration_types", 0), CHOICES, command(integration_types=[2]))


@pytest.mark.parametrize("permissions", [None, "0", "32", 32, "8589934592"])
def test_default_member_permissions_of_digits_or_null_are_accepted(permissions: Any) -> None:
    assert problems(command(default_member_permissions=permissions)) == []


@pytest.mark.parametrize("permissions", ["abc", "-1", -1, True, 1.5, ["32"]])
def test_default_member_permissions_of_anything_else_are_refused(permissions: Any) -> None:
    body = command(default_member_permissions=permissions)
    assert refused_at((0, "default_member_permissions"), NOT_A_NUMBER, body)


def test_command_and_option_types_are_from_their_lists() -> None:
    assert problems(command(type=1), menu(USER), menu(MESSAGE)) == []
    assert refused_at((0, "type"), CHOICES, command(type=5))
    assert refused_at((0, "type"), UNSUPPORTED_TYPE, command(type=4))
    assert refused_at((*FIRST_OPTION, "type"), CHOICES, with_option(option(12)))


def test_a_body_that_is_not_a_list_of_commands_is_refused() -> None:
    assert [(p.path, p.code) for p in command_problems({"name": "roll"}, guild=False)] == [
        ((), "BASE_TYPE_ARRAY")
    ]
    [not_a_command] = command_problems(["roll"], guild=False)
    assert (not_a_command.path, not_a_command.code) == ((0,), "MODEL_TYPE_CONVERT")


# -- end to end: a discord.py bot syncing through the fake -------------------------------------


def bot_with_range(high: int) -> commands.Bot:
    """A bot whose one command takes an integer from 1 to ``high``."""
    bot = commands.Bot(command_prefix=commands.when_mentioned, intents=discord.Intents.default())

    async def roll(interaction: discord.Interaction, count: int) -> None:
        await interaction.response.send_message(f"rolled {count}")

    # This module's annotations are strings, which discord.py evaluates in its globals: the
    # range chosen here goes in as an object.
    roll.__annotations__["count"] = app_commands.Range[int, 1, high]
    bot.tree.command(description="Roll some dice")(roll)
    return bot


async def test_a_sync_past_a_limit_fails_naming_the_field_and_registers_nothing(
    fake_discord: FakeDiscord,
) -> None:
    bot = bot_with_range(2**53)
    guild = discord.Object(fake_discord.guild_id)
    bot.tree.copy_global_to(guild=guild)
    async with run_bot(fake_discord, bot, expect_sync=False):
        with pytest.raises(app_commands.CommandSyncFailure) as refused:
            await bot.tree.sync()
        with pytest.raises(app_commands.CommandSyncFailure):
            await bot.tree.sync(guild=guild)

    failure = refused.value
    assert (failure.status, failure.code) == (400, 50035)
    assert "In command 'roll'" in str(failure)
    assert "In parameter 'count'" in str(failure)
    assert "max_value: int value should be less than or equal to 9007199254740991." in str(failure)
    assert fake_discord.synced_commands() == []
    assert fake_discord.synced_commands(guild=True) == []
    assert fake_discord.sync_count == 0
    assert fake_discord.refused_requests[0].startswith("command sync: 0.options.0.max_value: ")
    # Refused on purpose: the fake recorded both refusals, which would fail this test at
    # teardown (check_clean) as it fails a test whose bot sends what Discord refuses.
    fake_discord.refused_requests.clear()


async def test_a_sync_within_the_limits_registers_the_commands(fake_discord: FakeDiscord) -> None:
    bot = bot_with_range(2**53 - 1)
    async with run_bot(fake_discord, bot, expect_sync=False):
        await bot.tree.sync()

    [roll] = fake_discord.synced_commands()
    assert roll["options"][0]["max_value"] == 2**53 - 1
    assert fake_discord.refused_requests == []


async def test_a_guild_sync_with_contexts_is_refused(fake_discord: FakeDiscord) -> None:
    bot = bot_with_range(6)
    bot.tree.allowed_contexts = app_commands.AppCommandContext(guild=True, dm_channel=True)
    guild = discord.Object(fake_discord.guild_id)
    bot.tree.copy_global_to(guild=guild)
    async with run_bot(fake_discord, bot, expect_sync=False):
        await bot.tree.sync()  # global: contexts are fine
        with pytest.raises(app_commands.CommandSyncFailure, match="contexts"):
            await bot.tree.sync(guild=guild)

    assert [command["name"] for command in fake_discord.synced_commands()] == ["roll"]
    assert fake_discord.synced_commands(guild=True) == []
    assert fake_discord.refused_requests == [
        "command sync: 0.contexts: contexts is only for global commands."
    ]
    fake_discord.refused_requests.clear()  # refused on purpose (see above)


async def test_too_many_commands_of_a_type_is_discords_error_30032(
    fake_discord: FakeDiscord,
) -> None:
    # discord.py's tree holds at most 100 commands (CommandLimitReached): send the body itself.
    bot = bot_with_range(6)
    body = commands_of(1, 101)
    async with run_bot(fake_discord, bot, expect_sync=False):
        assert bot.application_id is not None
        with pytest.raises(discord.HTTPException) as refused:
            await bot.http.bulk_upsert_global_commands(bot.application_id, payload=body)

    assert (refused.value.status, refused.value.code) == (400, 30032)
    assert refused.value.text == "Maximum number of application commands reached (100)"
    assert fake_discord.synced_commands() == []
    fake_discord.refused_requests.clear()  # refused on purpose (see above)
