"""Discord's limits on an application-command sync, which the real API enforces when it refuses.

A bulk overwrite (``PUT /applications/{app}/commands``, or ``.../guilds/{guild}/commands``)
sends the whole list of commands; Discord checks all of it and refuses all of it, with 400
Invalid Form Body (code 50035) and every problem at the path of its field, the command's index
first (``0.options.2.max_value``): nothing is registered. ``command_problems`` returns those
problems (``form.Problem``), empty when Discord would accept the body.

Sources, in discord-api-docs (developers/interactions/application-commands.mdx as of 2026):
"Application Command Naming", "Application Command Structure", "Application Command Option
Structure", "Application Command Option Type", "Application Command Option Choice Structure",
"Registering a Command" (the counts), "Slash Commands" (the 8,000 characters) and
developers/reference.mdx "Error Messages" (the 400's shape, APPLICATION_COMMAND_TOO_LARGE).

Error codes: where Discord's exact code was found in public reports it is used and its source
named next to it; the others ("Our codes" below) are plausible codes in Discord's style, as no
report of that refusal was found: the paths follow Discord's rule, those codes are the fake's.

Too many commands of one type is not a form error: Discord answers it with the JSON error
30032 (``too_many_commands``), and only once the body is otherwise valid.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Literal

from .form import Form, Problem
from .payloads import JSON

# -- types ("Application Command Types", "Application Command Option Type") ----------------------

CHAT_INPUT, USER, MESSAGE, PRIMARY_ENTRY_POINT = 1, 2, 3, 4
COMMAND_TYPES = (CHAT_INPUT, USER, MESSAGE, PRIMARY_ENTRY_POINT)

SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN = 1, 2, 3, 4, 5
USER_OPTION, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 6, 7, 8, 9, 10, 11
OPTION_TYPES = tuple(range(SUB_COMMAND, ATTACHMENT + 1))
SUBCOMMANDS = (SUB_COMMAND, SUB_COMMAND_GROUP)
WITH_CHOICES = (STRING, INTEGER, NUMBER)  # choices, and autocomplete, only on these
WITH_VALUE_RANGE = (INTEGER, NUMBER)  # min_value / max_value only on these
Level = Literal["command", "group", "subcommand"]  # what holds a list of options
LEVELS: dict[int, Level] = {SUB_COMMAND: "subcommand", SUB_COMMAND_GROUP: "group"}

# -- limits -------------------------------------------------------------------------------------

COMMAND_NAME_MAX = 32  # "Application Command Structure": name, 1-32 characters (options too)
DESCRIPTION_MAX = 100  # ... description, 1-100 characters (options: "1-100 character")
OPTIONS_MAX = 25  # "Parameters for the command, max of 25"; an option's own: "up to 25"
CHOICES_MAX = 25  # "Choices for the user to pick from, max 25"
CHOICE_NAME_MAX = 100  # "Option Choice Structure": "1-100 character choice name"
CHOICE_VALUE_MAX = 100  # ... "up to 100 characters if string"
STRING_LENGTH_MAX = 6_000  # min_length: "minimum of 0, maximum of 6000"; max_length: 1 to 6000
# "Application Command Option Type": INTEGER "Any integer between -2^53+1 and 2^53-1" (so since
# discord-api-docs #7458, 2025; before it said ±2^53), NUMBER "Any double between -2^53 and
# 2^53". The fake holds min_value / max_value (and choice values) to the option type's range.
INTEGER_MAX = 2**53 - 1
NUMBER_MAX = 2**53
# "Slash Commands": "a maximum of 8000 characters for combined name, description, and value
# properties for each command, its options (including subcommands and groups), and choices".
COMMAND_SIZE_MAX = 8_000
# "Registering a Command": 100 global CHAT_INPUT commands, 15 USER and 15 MESSAGE (5 each until
# the "Updates to Context Menu Commands" change of 2026-03-03), "the same amount of
# guild-specific commands per guild". (PRIMARY_ENTRY_POINT: 1, refused below anyway.)
COMMANDS_MAX = {CHAT_INPUT: 100, USER: 15, MESSAGE: 15}
# The body itself is a list of at most 130 (the sum above): over it Discord refuses the list
# with BASE_TYPE_MAX_LENGTH "Must be 130 or fewer in length." at the body's root (observed,
# chenhg5/cc-connect#504, 2026-04; 100 commands accepted, 130 refused with 30032).
BULK_MAX = sum(COMMANDS_MAX.values())
# "Interaction Context Types" (receiving-and-responding) and "Application Integration Types"
# (resources/application).
CONTEXT_TYPES = (0, 1, 2)  # GUILD, BOT_DM, PRIVATE_CHANNEL
INTEGRATION_TYPES = (0, 1)  # GUILD_INSTALL, USER_INSTALL

# -- Discord's error codes ----------------------------------------------------------------------

# Sourced: discord-api-docs reference.mdx "Error Messages" (body root of a single create; at the
# command's index in a bulk overwrite: "0[APPLICATION_COMMAND_TOO_LARGE]: Command exceeds
# maximum size (8000)", reported by bots in public code).
TOO_LARGE = "APPLICATION_COMMAND_TOO_LARGE"
# Sourced: "5.options[0].name[APPLICATION_COMMAND_INVALID_NAME]: Command name is invalid"
# (Garlic-Team/gcommands#295, 2022; same text in Rapptz/discord.py#9838, 2024).
INVALID_NAME = "APPLICATION_COMMAND_INVALID_NAME"
# Sourced: "7[APPLICATION_COMMANDS_DUPLICATE_NAME]: Application command names must be unique"
# (albertgmz/BeatDock#103, 2026), at the index of the command that repeats a name.
DUPLICATE_COMMAND = "APPLICATION_COMMANDS_DUPLICATE_NAME"
# Sourced: {"options": {"1": {"_errors": [{"code": "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
# "message": "Required options must be placed before non-required options"}]}}}, at the
# required option that follows an optional one (discord-api-docs bug report quoted in public
# code; "0.options[2][APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID]" in another bot's log).
REQUIRED_ORDER = "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID"
# Seen in yepcord (a reimplementation of Discord's API, not Discord itself) for options mixing
# subcommands with other types; used here for every misplaced subcommand or group.
OPTION_TYPES_MIXED = "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID"
# Our codes: no public report of these refusals was found.
DUPLICATE_OPTION = "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME"
FIELD_NOT_FOR_TYPE = "APPLICATION_COMMAND_OPTION_FIELD_INVALID"
MIN_ABOVE_MAX = "APPLICATION_COMMAND_OPTION_MIN_MAX_INVALID"
AUTOCOMPLETE_WITH_CHOICES = "APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES_INVALID"
GLOBAL_ONLY = "APPLICATION_COMMAND_GLOBAL_ONLY_FIELD"
UNSUPPORTED_TYPE = "APPLICATION_COMMAND_TYPE_UNSUPPORTED"
# Discord's JSON error code (topics/opcodes-and-status-codes) for a type over its count:
# "Maximum number of application commands reached (100)" (chenhg5/cc-connect#504).
MAX_COMMANDS_REACHED = 30032


# -- the checks ---------------------------------------------------------------------------------


def command_problems(commands: Any, *, guild: bool) -> list[Problem]:
    """Return why Discord would refuse this bulk overwrite (empty if it would accept it).

    ``guild``: the body was sent to a guild's commands (``contexts`` and ``integration_types``
    are then refused: "only for globally-scoped commands").
    """
    form = Form()
    if not isinstance(commands, list):
        form.refuse(None, "BASE_TYPE_ARRAY", "Must be an array.")
        return form.problems
    if len(commands) > BULK_MAX:
        form.refuse(None, "BASE_TYPE_MAX_LENGTH", f"Must be {BULK_MAX} or fewer in length.")
    for index, command in enumerate(commands):
        _check_command(form.at(index), command, guild=guild)
    _check_unique_commands(form, commands)
    return form.problems


def too_many_commands(commands: list[JSON]) -> str | None:
    """Discord's message when a type has more commands than it allows (its JSON error 30032,
    not a form error), or None. "Registering a Command": 100 CHAT_INPUT, 15 USER, 15 MESSAGE,
    globally and per guild."""
    counts = Counter(_command_type(command) for command in commands if isinstance(command, dict))
    for kind, most in COMMANDS_MAX.items():
        if counts[kind] > most:
            return f"Maximum number of application commands reached ({most})"
    return None


def command_size(command: JSON) -> int:
    """How many characters of the 8,000 a command counts, as "Slash Commands" defines them.

    "combined name, description, and value properties for each command, its options (including
    subcommands and groups), and choices. When localization fields are present, only the
    longest localization for each field (including the default value) is counted". So: the
    name and description of the command and of every option at any depth, and the name and
    value of every choice; each name or description counts its longest version among the
    default and its ``*_localizations``. A number value counts as its decimal text (``str()``
    of the JSON number: 5 is one character, 2.5 three).
    """
    size = _longest(command, "name") + _longest(command, "description")
    for choice in _dicts(command.get("choices")):
        size += _longest(choice, "name") + len(_value_text(choice.get("value")))
    for option in _dicts(command.get("options")):
        size += command_size(option)
    return size


def _check_command(form: Form, command: Any, *, guild: bool) -> None:
    if not isinstance(command, dict):
        form.refuse(None, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        return
    kind = _command_type(command)
    if isinstance(kind, bool) or kind not in COMMAND_TYPES:
        _refuse_choice(form, "type", COMMAND_TYPES)
        return
    if kind == PRIMARY_ENTRY_POINT:
        # Only an app with an Activity (the EMBEDDED flag) may have one, and never in a guild;
        # the fake's application has none.
        form.refuse("type", UNSUPPORTED_TYPE, "Entry point commands need an Activity.")
        return
    if kind == CHAT_INPUT:
        _check_name(form, command, chat_input=True)
        _check_description(form, command)
        _check_options(form, command.get("options"), level="command")
    else:
        _check_context_menu(form, command)
    _check_permissions(form, command.get("default_member_permissions"))
    _check_where(form, command, guild=guild)
    if command_size(command) > COMMAND_SIZE_MAX:
        form.refuse(None, TOO_LARGE, f"Command exceeds maximum size ({COMMAND_SIZE_MAX})")


def _check_context_menu(form: Form, command: JSON) -> None:
    """USER and MESSAGE commands: "may be mixed case and can include spaces"; the description
    is an "Empty string for USER and MESSAGE commands"; "options can only be set for
    application commands of type CHAT_INPUT"."""
    _check_name(form, command, chat_input=False)
    description = command.get("description")
    if description not in (None, ""):
        form.refuse("description", "BASE_TYPE_MAX_LENGTH", "Must be 0 or fewer in length.")
    if command.get("options"):
        form.refuse("options", FIELD_NOT_FOR_TYPE, "Only chat input commands take options.")


def _check_unique_commands(form: Form, commands: list[Any]) -> None:
    """ "Command names are unique per application, per type, within each scope": a repeat is
    refused at its index."""
    seen: set[tuple[int, str]] = set()
    for index, command in enumerate(commands):
        if not isinstance(command, dict) or not isinstance(command.get("name"), str):
            continue
        key = (_command_type(command), command["name"])
        if key in seen:
            form.at(index).refuse(
                None, DUPLICATE_COMMAND, "Application command names must be unique"
            )
        seen.add(key)


def _check_permissions(form: Form, permissions: Any) -> None:
    """``default_member_permissions``: "?string", a permission bit set. discord.py sends an
    int, which Discord takes too; anything but digits (or null) is refused."""
    if permissions is None:
        return
    digits = str(permissions) if isinstance(permissions, int) else permissions
    if (
        isinstance(permissions, bool)
        or not isinstance(digits, str)
        or not digits.isascii()
        or not digits.isdecimal()
    ):
        form.refuse(
            "default_member_permissions",
            "NUMBER_TYPE_COERCE",
            f'Value "{permissions}" is not int.',
        )


def _check_where(form: Form, command: JSON, *, guild: bool) -> None:
    """``contexts`` and ``integration_types``: "only for globally-scoped commands" (a null or
    absent one is fine anywhere), values from their documented types."""
    for field, allowed in (("contexts", CONTEXT_TYPES), ("integration_types", INTEGRATION_TYPES)):
        values = command.get(field)
        if values is None:
            continue
        if guild:
            form.refuse(field, GLOBAL_ONLY, f"{field} is only for global commands.")
            continue
        if not isinstance(values, list):
            form.refuse(field, "BASE_TYPE_ARRAY", "Must be an array.")
            continue
        for index, value in enumerate(values):
            if isinstance(value, bool) or value not in allowed:
                _refuse_choice(form.at(field), index, allowed)


# -- names and descriptions ---------------------------------------------------------------------

# "Application Command Naming": CHAT_INPUT command names and option names match
# ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$ (the apostrophe since discord-api-docs #7303,
# 2025). Python's re has no \p{...}: a character passes if it is one of -_' , a letter or a
# number by its Unicode category (L*, N*: exactly \p{L} and \p{N}), or in the Devanagari or
# Thai blocks. The blocks stand for the scripts: \p{sc=Deva} also holds Devanagari Extended-A
# (U+11B00..) and leaves out U+0951-0954 and U+0964-0965 (Inherited, Common), which the blocks
# hold; no command name of ours is near either edge.
NAME_PUNCTUATION = "-_'"
DEVANAGARI_BLOCKS = ((0x0900, 0x097F), (0xA8E0, 0xA8FF), (0x11B00, 0x11B5F))
THAI_BLOCKS = ((0x0E00, 0x0E7F),)


def _name_character(char: str) -> bool:
    if char in NAME_PUNCTUATION or unicodedata.category(char)[0] in "LN":
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in DEVANAGARI_BLOCKS + THAI_BLOCKS)


def _chat_input_name(name: str) -> bool:
    """Whether ``name`` is a valid CHAT_INPUT command or option name (its length apart): only
    allowed characters, and "If there is a lowercase variant of any letters used, you must use
    those" (a letter that lower() changes is refused; uncased letters pass)."""
    return all(_name_character(char) and char.lower() == char for char in name)


def _check_name(form: Form, owner: JSON, *, chat_input: bool) -> None:
    """A command's or option's name and each of its ``name_localizations`` ("Values follow the
    same restrictions as name")."""

    def check(at: Form, field: str | int, name: Any) -> None:
        valid = _check_length(at, field, name, low=1, high=COMMAND_NAME_MAX, required=True)
        if valid and chat_input and not _chat_input_name(name):
            at.refuse(field, INVALID_NAME, "Command name is invalid")

    check(form, "name", owner.get("name"))
    _check_localizations(form, "name_localizations", owner.get("name_localizations"), check)


def _check_description(form: Form, owner: JSON) -> None:
    """A chat-input command's, subcommand's, group's or option's description: 1-100 characters,
    and each of its ``description_localizations``."""

    def check(at: Form, field: str | int, text: Any) -> None:
        _check_length(at, field, text, low=1, high=DESCRIPTION_MAX, required=True)

    check(form, "description", owner.get("description"))
    localized = owner.get("description_localizations")
    _check_localizations(form, "description_localizations", localized, check)


def _check_localizations(
    form: Form, field: str, localized: Any, check: Callable[[Form, str | int, Any], None]
) -> None:
    """Each value of a ``*_localizations`` dictionary, at ``field.<locale>``. (Whether each key
    is one of Discord's locales is not checked.)"""
    if localized is None:
        return
    if not isinstance(localized, dict):
        form.refuse(field, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
        return
    for locale, text in localized.items():
        check(form.at(field), locale, text)


def _check_length(
    form: Form, field: str | int, text: Any, *, low: int, high: int, required: bool = False
) -> bool:
    """Check a string's length against Discord's "between" rule; return whether it passed.

    Discord words a length with both bounds as one rule whichever side breaks it: "In
    27.options[2].description[BASE_TYPE_BAD_LENGTH]: Must be between 1 and 100" for a
    103-character description (elizaOS/eliza#16199), the same for an empty one
    (Pycord-Development/pycord#1865).
    """
    if text is None:
        if required:
            form.refuse(field, "BASE_TYPE_REQUIRED", "This field is required")
        return False
    if not isinstance(text, str):
        form.refuse(field, "BASE_TYPE_STRING", "Must be a string.")
        return False
    if not low <= len(text) <= high:
        form.refuse(field, "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")
        return False
    return True


# -- options ------------------------------------------------------------------------------------


def _check_options(form: Form, options: Any, *, level: Level) -> None:
    """Check the options of a command, a group or a subcommand: at most 25, names unique,
    required ones first, each option, and what may nest where."""
    listed = form.count("options", options, high=OPTIONS_MAX)
    at = form.at("options")
    _check_nesting(at, listed, level=level)
    seen: set[str] = set()
    optional_seen = False
    for index, option in enumerate(listed):
        if not isinstance(option, dict):
            at.refuse(index, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        _check_option(at.at(index), option)
        # "name must be unique within an array of application command options"
        name = option.get("name")
        if isinstance(name, str):
            if name in seen:
                at.refuse(index, DUPLICATE_OPTION, "Command option names must be unique")
            seen.add(name)
        # "Required options must be listed before optional options"
        if option.get("required"):
            if optional_seen:
                at.refuse(
                    index,
                    REQUIRED_ORDER,
                    "Required options must be placed before non-required options",
                )
        elif option.get("type") not in SUBCOMMANDS:
            optional_seen = True


def _check_nesting(form: Form, options: list[Any], *, level: Level) -> None:
    """What may nest where ("Subcommands and Subcommand Groups"): a command holds either
    subcommands and groups or plain options, never both; a group holds only subcommands (so
    groups nest one level at most); a subcommand holds only plain options."""
    types = [option.get("type") for option in options if isinstance(option, dict)]
    if level == "command":
        nested = sum(1 for kind in types if kind in SUBCOMMANDS)
        if 0 < nested < len(types):
            form.refuse(
                None,
                OPTION_TYPES_MIXED,
                "Sub-command and sub-command group option types are mutually exclusive to all"
                " other types",
            )
        return
    for index, kind in enumerate(types):
        if level == "group" and kind != SUB_COMMAND:
            form.at(index).refuse("type", OPTION_TYPES_MIXED, "A group holds only subcommands.")
        elif level == "subcommand" and kind in SUBCOMMANDS:
            form.at(index).refuse("type", OPTION_TYPES_MIXED, "A subcommand holds no subcommands.")


def _check_option(form: Form, option: JSON) -> None:
    kind = option.get("type")
    if isinstance(kind, bool) or kind not in OPTION_TYPES:
        _refuse_choice(form, "type", OPTION_TYPES)
        return
    _check_name(form, option, chat_input=True)
    _check_description(form, option)
    if kind in SUBCOMMANDS:
        _check_options(form, option.get("options"), level=LEVELS[kind])
    elif option.get("options"):
        _refuse_field(form, "options", "subcommands and groups")
    _check_choices(form, option, kind)
    _check_value_range(form, option, kind)
    _check_length_range(form, option, kind)
    _check_autocomplete(form, option, kind)


def _check_choices(form: Form, option: JSON, kind: int) -> None:
    """At most 25 choices, only on STRING, INTEGER and NUMBER options; each choice's name 1-100
    characters (and its localizations), its value of the option's type: a string of at most 100
    characters, an integer or a number within the type's range."""
    choices = option.get("choices")
    if choices is None:
        return
    if kind not in WITH_CHOICES:
        if choices:
            _refuse_field(form, "choices", "STRING, INTEGER and NUMBER options")
        return
    for index, choice in enumerate(form.count("choices", choices, high=CHOICES_MAX)):
        at = form.at("choices", index)
        if not isinstance(choice, dict):
            at.refuse(None, "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue

        def check(where: Form, field: str | int, name: Any) -> None:
            _check_length(where, field, name, low=1, high=CHOICE_NAME_MAX, required=True)

        check(at, "name", choice.get("name"))
        _check_localizations(at, "name_localizations", choice.get("name_localizations"), check)
        _check_value(at, "value", choice.get("value"), kind, required=True)


def _check_value_range(form: Form, option: JSON, kind: int) -> None:
    """``min_value`` / ``max_value``: only on INTEGER and NUMBER options, "integer for INTEGER
    options, double for NUMBER options", within the type's range, the minimum not above the
    maximum."""
    low, high = option.get("min_value"), option.get("max_value")
    if low is None and high is None:
        return
    if kind not in WITH_VALUE_RANGE:
        for field, value in (("min_value", low), ("max_value", high)):
            if value is not None:
                _refuse_field(form, field, "INTEGER and NUMBER options")
        return
    valid = [
        _check_value(form, "min_value", low, kind),
        _check_value(form, "max_value", high, kind),
    ]
    if all(valid) and low is not None and high is not None and low > high:
        form.refuse("min_value", MIN_ABOVE_MAX, "min_value must not be above max_value.")


def _check_length_range(form: Form, option: JSON, kind: int) -> None:
    """``min_length`` (0-6000) / ``max_length`` (1-6000): only on STRING options; the minimum
    not above the maximum."""
    low, high = option.get("min_length"), option.get("max_length")
    if low is None and high is None:
        return
    if kind != STRING:
        for field, value in (("min_length", low), ("max_length", high)):
            if value is not None:
                _refuse_field(form, field, "STRING options")
        return
    valid = [
        _check_integer(form, "min_length", low, low=0, high=STRING_LENGTH_MAX),
        _check_integer(form, "max_length", high, low=1, high=STRING_LENGTH_MAX),
    ]
    if all(valid) and low is not None and high is not None and low > high:
        form.refuse("min_length", MIN_ABOVE_MAX, "min_length must not be above max_length.")


def _check_autocomplete(form: Form, option: JSON, kind: int) -> None:
    """``autocomplete``: only on STRING, INTEGER and NUMBER options, and "may not be set to true
    if choices are present"."""
    if not option.get("autocomplete"):
        return
    if kind not in WITH_CHOICES:
        _refuse_field(form, "autocomplete", "STRING, INTEGER and NUMBER options")
    elif option.get("choices"):
        form.refuse(
            "autocomplete", AUTOCOMPLETE_WITH_CHOICES, "Autocomplete may not be set with choices."
        )


def _check_value(form: Form, field: str, value: Any, kind: int, *, required: bool = False) -> bool:
    """Check a value of an option of type ``kind`` (a choice's value, min_value, max_value);
    return whether it passed (absent passes unless ``required``)."""
    if value is None:
        if required:
            form.refuse(field, "BASE_TYPE_REQUIRED", "This field is required")
        return not required
    if kind == STRING:
        if not isinstance(value, str):
            form.refuse(field, "BASE_TYPE_STRING", "Must be a string.")
            return False
        if len(value) > CHOICE_VALUE_MAX:
            form.refuse(
                field, "BASE_TYPE_MAX_LENGTH", f"Must be {CHOICE_VALUE_MAX} or fewer in length."
            )
            return False
        return True
    if kind == INTEGER:
        return _check_integer(form, field, value, low=-INTEGER_MAX, high=INTEGER_MAX)
    return _check_number(form, field, value)


def _check_integer(form: Form, field: str, value: Any, *, low: int, high: int) -> bool:
    """An integer within [low, high] (absent passes); return whether it passed."""
    if value is None:
        return True
    if isinstance(value, bool) or not isinstance(value, int):
        form.refuse(field, "NUMBER_TYPE_COERCE", f'Value "{value}" is not int.')
        return False
    return _check_bounds(form, field, value, low=low, high=high, kind="int")


def _check_number(form: Form, field: str, value: Any) -> bool:
    """A NUMBER option's value: a finite double within ±2^53; return whether it passed."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        form.refuse(field, "NUMBER_TYPE_COERCE", f'Value "{value}" is not a valid number.')
        return False
    return _check_bounds(form, field, value, low=-NUMBER_MAX, high=NUMBER_MAX, kind="float")


def _check_bounds(
    form: Form, field: str, value: float, *, low: float, high: float, kind: str
) -> bool:
    """Discord's wording of a number out of range ("limit[NUMBER_TYPE_MAX]: int value should be
    less than or equal to 100.", Mephisto5558/Teufelsbot#271)."""
    if value > high:
        form.refuse(
            field, "NUMBER_TYPE_MAX", f"{kind} value should be less than or equal to {high}."
        )
        return False
    if value < low:
        form.refuse(
            field, "NUMBER_TYPE_MIN", f"{kind} value should be greater than or equal to {low}."
        )
        return False
    return True


def _refuse_field(form: Form, field: str, only_on: str) -> None:
    """A field set on an option type that does not take it ("Valid Option Types")."""
    form.refuse(field, FIELD_NOT_FOR_TYPE, f"{field} is only for {only_on}.")


def _refuse_choice(form: Form, field: str | int, allowed: Iterable[int]) -> None:
    """A value outside an enumeration, in Discord's words ("Value must be one of {8}.")."""
    listed = ", ".join(str(value) for value in allowed)
    form.refuse(field, "BASE_TYPE_CHOICES", f"Value must be one of {{{listed}}}.")


# -- helpers ------------------------------------------------------------------------------------


def _command_type(command: JSON) -> Any:
    """A command's type: CHAT_INPUT when absent ("defaults to 1")."""
    kind = command.get("type", CHAT_INPUT)
    return CHAT_INPUT if kind is None else kind


def _dicts(items: Any) -> list[JSON]:
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _longest(owner: JSON, field: str) -> int:
    """The length of ``field`` or of its longest localization, whichever is longer."""
    texts = [owner.get(field)]
    localized = owner.get(f"{field}_localizations")
    if isinstance(localized, dict):
        texts.extend(localized.values())
    return max((len(text) for text in texts if isinstance(text, str)), default=0)


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return str(value)
