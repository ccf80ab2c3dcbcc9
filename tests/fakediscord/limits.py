"""Discord's limits on what a bot sends, which the real API enforces with 400 Invalid Form Body.

The fake checks every message the bot creates or edits, every interaction callback and every
autocomplete answer against them, so a reply that Discord would reject fails in tests as it
fails for users: the interaction goes unanswered. Each checker returns the problems it found
(``form.Problem``), each at the path of its field; a callback's ``data`` is checked under
"data", as Discord reports it ("data.embeds.0.description").

Every rule names its source: a page of discord-api-docs (``resources/message``,
``interactions/receiving-and-responding``, ``components/reference``, ``reference``) and the
section on it. The error codes are Discord's own where its answers show them (BASE_TYPE_*,
NUMBER_TYPE_*, MAX_EMBED_SIZE_EXCEEDED, MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE,
COMPONENT_*, BUTTON_COMPONENT_*); where Discord documents a rule but not its answer (a flag
that can't be set, a callback type the interaction does not take), the code is the fake's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .form import Form, Path, Problem
from .payloads import EPHEMERAL, JSON

# -- message flags (resources/message "Message Flags") --------------------------------------

SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_VOICE_MESSAGE = 1 << 13
IS_COMPONENTS_V2 = 1 << 15
# The flags each request may set ("only ... can be set"):
# resources/message "Create Message" (POST /channels/{id}/messages): no EPHEMERAL.
CHANNEL_MESSAGE_FLAGS = (
    SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_VOICE_MESSAGE | IS_COMPONENTS_V2
)
# interactions/receiving-and-responding "Messages" (callback types 4 and 7).
RESPONSE_FLAGS = CHANNEL_MESSAGE_FLAGS | EPHEMERAL
# ... its footnote: "If you create a callback with the type DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
# the only valid message flag you may use is EPHEMERAL".
DEFERRED_FLAGS = EPHEMERAL
# resources/webhook "Execute Webhook" (SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2)
# and interactions/receiving-and-responding "Create Followup Message" (EPHEMERAL too).
FOLLOWUP_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2 | EPHEMERAL
# resources/message "Edit Message" and resources/webhook "Edit Webhook Message": "SUPPRESS_EMBEDS
# and IS_COMPONENTS_V2 only". "When specifying flags, ensure to include all previously set
# flags": an edit may repeat the message's own flags (the caller adds them), and UPDATE_MESSAGE
# (callback type 7) edits the clicked message, so it takes these too: no EPHEMERAL (a message's
# ephemerality is fixed when it is created, "Create Followup Message").
EDIT_FLAGS = SUPPRESS_EMBEDS | IS_COMPONENTS_V2

# -- message content and embeds (resources/message) -----------------------------------------

CONTENT_MAX = 2_000  # "Create Message": content "up to 2000 characters"
EMBEDS_MAX = 10  # "Create Message": "Up to 10 rich embeds"
# "Embed Limits" (leading and trailing whitespace not counted: "trimmed automatically").
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4_096
EMBED_FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1_024
FOOTER_TEXT_MAX = 2_048
AUTHOR_NAME_MAX = 256
EMBEDS_TOTAL_MAX = 6_000  # title, description, field names and values, footer text, author name
EMBED_COLOR_MAX = 0xFF_FF_FF  # "Embed Structure": color, an RGB integer
# "Allowed Mentions Object": "parse" takes the allowed mention types; "roles" and "users" at
# most 100 ids each; "parse" is mutually exclusive with the id list of the same type.
MENTION_TYPES = ("everyone", "roles", "users")
MENTION_IDS_MAX = 100
# Uploads: ten files a message (Discord answers an eleventh with 50035 at "attachments"; discord.py
# refuses it before sending). reference "Uploading Files": each file at most 10 MiB by default
# ("The default limit is 10 MiB"; an interaction's attachment_size_limit may say more where
# Nitro or boosts raise it: the fake's interactions say 10 MiB); a request at most 25 MiB
# (resources/message "Create Message", "Limitations"). Over either, Discord answers 413 with
# code 40005, "Request entity too large".
ATTACHMENTS_MAX = 10
ATTACHMENT_SIZE_MAX = 10 * 1024 * 1024
REQUEST_SIZE_MAX = 25 * 1024 * 1024

# -- components (components/reference) ------------------------------------------------------

ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
SELECT_TYPES = (STRING_SELECT, 5, 6, 7, 8)  # string, user, role, mentionable, channel selects
# "Legacy Message Component Behavior": "Legacy messages allow up to 5 action rows as top-level
# components"; with IS_COMPONENTS_V2 (the page's introduction) "Messages allow up to 40 total
# components".
ACTION_ROWS_MAX = 5
V2_COMPONENTS_MAX = 40
ROW_BUTTONS_MAX = 5  # "Action Row": "Up to 5 ... buttons" or "A single select component"
BUTTON_LABEL_MAX = 80  # "Button Structure": label "max 80 characters"
BUTTON_URL_MAX = 512  # ... url "max 512 characters"
LINK_STYLE, PREMIUM_STYLE = 5, 6  # "Button Styles": 1-4 need custom_id, 5 url, 6 sku_id
BUTTON_STYLES = (1, 2, 3, 4, LINK_STYLE, PREMIUM_STYLE)
CUSTOM_ID_MAX = 100  # "Custom ID": "a string of 1 to 100 characters", unique in the message
# "String Select Structure" and "Select Option Structure".
SELECT_OPTIONS_MAX = 25
OPTION_TEXT_MAX = 100  # an option's label, value and description
PLACEHOLDER_MAX = 150
SELECT_VALUES_MAX = 25  # min_values 0-25, max_values 1-25

# -- interaction callbacks (interactions/receiving-and-responding) ---------------------------

# "Interaction Type"
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
# "Interaction Callback Type"
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
# Which callback each interaction takes: DEFERRED_UPDATE_MESSAGE and UPDATE_MESSAGE "Only valid
# for component-based interactions", MODAL "Not available for MODAL_SUBMIT and PING
# interactions", and an autocomplete interaction is answered with its result (PREMIUM_REQUIRED
# is deprecated and LAUNCH_ACTIVITY is for Activities: neither is for this bot).
CALLBACKS_FOR = {
    APPLICATION_COMMAND: (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL),
    MESSAGE_COMPONENT: (
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE,
        UPDATE_MESSAGE,
        MODAL,
    ),
    AUTOCOMPLETE: (AUTOCOMPLETE_RESULT,),
    MODAL_SUBMIT: (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE),
}
# "Autocomplete": "max of 25 choices"; each choice (interactions/application-commands
# "Application Command Option Choice Structure") a name of 1-100 characters and a string value
# of at most 100.
CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100
# "Modal": custom_id 1-100 characters, title at most 45, 1 to 5 components.
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _trimmed(value: Any) -> Any:
    """An embed's text as Discord measures it: without leading and trailing whitespace."""
    return value.strip() if isinstance(value, str) else value


def _object(value: Any) -> JSON:
    return value if isinstance(value, dict) else {}


# -- embeds ------------------------------------------------------------------------------------


def _check_embed(form: Form, embed: JSON) -> int:
    """Check one embed; return how many characters it counts towards 6,000."""
    title, description = _trimmed(embed.get("title")), _trimmed(embed.get("description"))
    footer, author = _object(embed.get("footer")), _object(embed.get("author"))
    footer_text, author_name = _trimmed(footer.get("text")), _trimmed(author.get("name"))
    form.text("title", title, high=EMBED_TITLE_MAX)
    form.text("description", description, high=EMBED_DESCRIPTION_MAX)
    form.at("footer").text("text", footer_text, high=FOOTER_TEXT_MAX)
    form.at("author").text("name", author_name, high=AUTHOR_NAME_MAX)
    form.number("color", embed.get("color"), low=0, high=EMBED_COLOR_MAX)
    size = sum(len(_text(text)) for text in (title, description, footer_text, author_name))
    fields = form.count("fields", embed.get("fields"), high=EMBED_FIELDS_MAX)
    for index, entry in enumerate(fields):
        at, entry = form.at("fields", index), _object(entry)
        name, value = _trimmed(entry.get("name")), _trimmed(entry.get("value"))
        at.text("name", name, low=1, high=FIELD_NAME_MAX, required=True)
        at.text("value", value, low=1, high=FIELD_VALUE_MAX, required=True)
        size += len(_text(name)) + len(_text(value))
    return size


def _check_embeds(form: Form, embeds: Any) -> None:
    total = 0
    for index, embed in enumerate(form.count("embeds", embeds, high=EMBEDS_MAX)):
        total += _check_embed(form.at("embeds", index), _object(embed))
    if total > EMBEDS_TOTAL_MAX:
        form.refuse(
            "embeds",
            "MAX_EMBED_SIZE_EXCEEDED",
            f"Embed size exceeds maximum size of {EMBEDS_TOTAL_MAX}",
        )


# -- allowed mentions, flags, attachments --------------------------------------------------


def _check_allowed_mentions(form: Form, mentions: Any) -> None:
    if mentions is None:
        return
    if not isinstance(mentions, dict):
        form.refuse(
            "allowed_mentions", "MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType"
        )
        return
    at = form.at("allowed_mentions")
    parse = at.count("parse", mentions.get("parse"), high=len(MENTION_TYPES))
    for index, kind in enumerate(parse):
        if kind not in MENTION_TYPES:
            choices = ", ".join(repr(choice) for choice in MENTION_TYPES)
            at.at("parse").refuse(index, "BASE_TYPE_CHOICES", f"Value must be one of ({choices}).")
    for kind in ("roles", "users"):
        ids = at.count(kind, mentions.get(kind), high=MENTION_IDS_MAX)
        if kind in parse and ids:  # an empty or null list is fine ("Allowed Mentions Examples")
            at.refuse(
                None,
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {kind}: [ids...] are mutually exclusive.',
            )


def flag_names(flags: int) -> str:
    """The bits of ``flags`` as numbers, for a message: "4, 64"."""
    return ", ".join(str(1 << bit) for bit in range(flags.bit_length()) if flags >> bit & 1)


def _check_flags(form: Form, flags: Any, allowed: int) -> None:
    if flags is None:
        return
    if isinstance(flags, bool) or not isinstance(flags, int):
        form.refuse("flags", "NUMBER_TYPE_COERCE", f'Value "{flags}" is not int.')
        return
    extra = flags & ~allowed
    if extra:
        form.refuse(
            "flags",
            "MESSAGE_FLAGS_NOT_SETTABLE",  # the fake's code: Discord documents only the rule
            f"Flags {flag_names(extra)} can't be set here (only {flag_names(allowed)}).",
        )


def _check_attachments(form: Form, entries: Any, file_count: int) -> None:
    listed = form.count("attachments", entries, high=ATTACHMENTS_MAX)
    if file_count > ATTACHMENTS_MAX and len(listed) <= ATTACHMENTS_MAX:
        form.refuse(
            "attachments", "BASE_TYPE_MAX_LENGTH", f"Must be {ATTACHMENTS_MAX} or fewer in length."
        )


def upload_problem(files: Mapping[int, tuple[str, bytes]]) -> str | None:
    """Why Discord would answer 413 Request entity too large to these uploads (None: it would
    take them): a file over 10 MiB, or more than 25 MiB in all."""
    for index, (filename, data) in sorted(files.items()):
        if len(data) > ATTACHMENT_SIZE_MAX:
            return (
                f"files[{index}] ({filename}) is {len(data):,} bytes, over the "
                f"{ATTACHMENT_SIZE_MAX:,} a file may be"
            )
    total = sum(len(data) for _, data in files.values())
    if total > REQUEST_SIZE_MAX:
        return (
            f"the files are {total:,} bytes in all, over the {REQUEST_SIZE_MAX:,} a request may be"
        )
    return None


# -- components --------------------------------------------------------------------------------


def _check_button(form: Form, button: JSON) -> None:
    style = button.get("style")
    if style not in BUTTON_STYLES:
        styles = ", ".join(str(s) for s in BUTTON_STYLES)
        form.refuse("style", "BASE_TYPE_CHOICES", f"Value must be one of ({styles}).")
        return
    form.text("label", button.get("label"), high=BUTTON_LABEL_MAX)
    form.text("url", button.get("url"), high=BUTTON_URL_MAX)
    form.text("custom_id", button.get("custom_id"), low=1, high=CUSTOM_ID_MAX)
    has = {name for name in ("custom_id", "url", "sku_id") if button.get(name) is not None}
    unwanted: tuple[str, ...]
    if style == LINK_STYLE:
        wanted, unwanted = "url", ("custom_id", "sku_id")
    elif style == PREMIUM_STYLE:
        wanted, unwanted = "sku_id", ("custom_id", "url", "label", "emoji")
        has |= {name for name in ("label", "emoji") if button.get(name) is not None}
    else:
        wanted, unwanted = "custom_id", ("url", "sku_id")
    if wanted not in has:
        form.refuse(
            wanted,
            f"BUTTON_COMPONENT_{wanted.upper()}_REQUIRED",
            f"A button of style {style} needs a {wanted}",
        )
    for name in unwanted:
        if name in has:
            form.refuse(
                name,
                "BUTTON_COMPONENT_INVALID_FIELD",
                f"A button of style {style} can't have a {name}",
            )


def _check_select(form: Form, select: JSON) -> None:
    form.text("custom_id", select.get("custom_id"), low=1, high=CUSTOM_ID_MAX, required=True)
    form.text("placeholder", select.get("placeholder"), high=PLACEHOLDER_MAX)
    form.number("min_values", select.get("min_values"), low=0, high=SELECT_VALUES_MAX)
    form.number("max_values", select.get("max_values"), low=1, high=SELECT_VALUES_MAX)
    if select.get("type") != STRING_SELECT:
        return  # user, role, mentionable and channel selects list no options
    if select.get("options") is None:
        form.refuse("options", "BASE_TYPE_REQUIRED", "This field is required")
    options = form.count("options", select.get("options"), low=1, high=SELECT_OPTIONS_MAX)
    for index, option in enumerate(options):
        at, option = form.at("options", index), _object(option)
        at.text("label", option.get("label"), low=1, high=OPTION_TEXT_MAX, required=True)
        at.text("value", option.get("value"), low=1, high=OPTION_TEXT_MAX, required=True)
        at.text("description", option.get("description"), high=OPTION_TEXT_MAX)
    max_values = select.get("max_values")
    if options and isinstance(max_values, int) and len(options) < max_values <= SELECT_VALUES_MAX:
        form.refuse(
            "max_values",
            "NUMBER_TYPE_MAX",
            f"int value should be less than or equal to {len(options)}.",
        )


def _check_interactive(form: Form, component: JSON) -> None:
    """Check a button or a select, wherever it is."""
    if component.get("type") == BUTTON:
        _check_button(form, component)
    elif component.get("type") in SELECT_TYPES:
        _check_select(form, component)


def _check_row(form: Form, row: JSON) -> None:
    """Check an action row: up to 5 buttons, or a single select ("Action Row")."""
    children = form.count("components", row.get("components"), low=1, high=ROW_BUTTONS_MAX)
    at = form.at("components")
    has_select = any(_object(child).get("type") in SELECT_TYPES for child in children)
    for index, child in enumerate(children):
        child = _object(child)
        if child.get("type") not in (BUTTON, *SELECT_TYPES):
            at.at(index).refuse("type", "COMPONENT_TYPE_INVALID", "Not a button or a select")
        elif has_select and index > 0:  # a select takes the whole row
            at.refuse(
                index,
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width",
            )
        _check_interactive(at.at(index), child)


def _check_legacy_rows(form: Form, components: list[Any]) -> None:
    """A message without IS_COMPONENTS_V2: action rows and nothing else at the top ("Action
    Row": "a top-level layout component"; "Button": "must be placed inside an Action Row or a
    Section's accessory", and a Section needs IS_COMPONENTS_V2)."""
    for index, row in enumerate(components):
        row, at = _object(row), form.at("components", index)
        if row.get("type") != ACTION_ROW:
            at.refuse("type", "COMPONENT_TYPE_INVALID", "Must be an action row (type 1)")
        else:
            _check_row(at, row)


def _walk(path: Path, components: list[Any]) -> Iterator[tuple[Path, JSON]]:
    """Every component at any depth, with its path (rows, containers, a section's accessory)."""
    for index, component in enumerate(components):
        component, at = _object(component), (*path, index)
        yield at, component
        children = component.get("components")
        yield from _walk((*at, "components"), children if isinstance(children, list) else [])
        if isinstance(component.get("accessory"), dict):
            yield (*at, "accessory"), component["accessory"]


def _check_unique_custom_ids(form: Form, found: list[tuple[Path, JSON]]) -> None:
    """No custom_id twice in a message ("Custom ID": "Multiple components on the same message
    must not share the same custom_id")."""
    seen: set[str] = set()
    for path, component in found:
        custom_id = component.get("custom_id")
        if not isinstance(custom_id, str):
            continue
        if custom_id in seen:
            form.at(*path).refuse(
                "custom_id",
                "COMPONENT_CUSTOM_ID_DUPLICATED",
                "Component custom id cannot be duplicated",
            )
        seen.add(custom_id)


def _check_components(form: Form, components: list[Any], v2: bool) -> None:
    found = list(_walk(("components",), components))
    if not v2:
        _check_legacy_rows(form, components)
    elif len(found) > V2_COMPONENTS_MAX >= len(components):
        form.refuse(
            "components",
            "BASE_TYPE_MAX_LENGTH",
            f"Must be {V2_COMPONENTS_MAX} or fewer components in all.",
        )
    if v2:
        for path, component in found:
            _check_interactive(form.at(*path), component)
    _check_unique_custom_ids(form, found)


# -- whole bodies ------------------------------------------------------------------------------


def _check_message(form: Form, body: JSON, flags: int, file_count: int) -> None:
    form.text("content", body.get("content"), high=CONTENT_MAX)
    _check_embeds(form, body.get("embeds"))
    _check_allowed_mentions(form, body.get("allowed_mentions"))
    _check_flags(form, body.get("flags"), flags)
    _check_attachments(form, body.get("attachments"), file_count)
    set_flags = body.get("flags")
    v2 = isinstance(set_flags, int) and bool(set_flags & IS_COMPONENTS_V2)
    top_max = V2_COMPONENTS_MAX if v2 else ACTION_ROWS_MAX
    _check_components(form, form.count("components", body.get("components"), high=top_max), v2)


def message_problems(
    body: JSON, *, flags: int = CHANNEL_MESSAGE_FLAGS, file_count: int = 0
) -> list[Problem]:
    """Why Discord would refuse this message body (empty if it would accept it).

    ``flags``: the message flags this request may set (CHANNEL_MESSAGE_FLAGS, FOLLOWUP_FLAGS,
    EDIT_FLAGS and the message's own for an edit); ``file_count``: the files uploaded with it.
    """
    form = Form()
    _check_message(form, body, flags, file_count)
    return form.problems


def _check_choices(form: Form, body: JSON) -> None:
    if not isinstance(body.get("choices"), list):
        form.refuse("choices", "BASE_TYPE_REQUIRED", "This field is required")
    for index, choice in enumerate(form.count("choices", body.get("choices"), high=CHOICES_MAX)):
        at, choice = form.at("choices", index), _object(choice)
        at.text("name", choice.get("name"), low=1, high=CHOICE_NAME_MAX, required=True)
        if isinstance(choice.get("value"), str):
            at.text("value", choice.get("value"), high=CHOICE_VALUE_MAX)


def choice_problems(body: JSON) -> list[Problem]:
    """Why Discord would refuse an autocomplete answer's data (empty if it would accept it)."""
    form = Form()
    _check_choices(form, body)
    return form.problems


def _check_modal(form: Form, body: JSON) -> None:
    form.text("custom_id", body.get("custom_id"), low=1, high=CUSTOM_ID_MAX, required=True)
    form.text("title", body.get("title"), low=1, high=MODAL_TITLE_MAX, required=True)
    if body.get("components") is None:
        form.refuse("components", "BASE_TYPE_REQUIRED", "This field is required")
    form.count("components", body.get("components"), low=1, high=MODAL_COMPONENTS_MAX)


# What each callback type's data is checked as: a message (and the flags it may set), the
# autocomplete choices, or a modal. DEFERRED_UPDATE_MESSAGE takes no data.
MESSAGE_CALLBACK_FLAGS = {
    CHANNEL_MESSAGE: RESPONSE_FLAGS,
    DEFERRED_CHANNEL_MESSAGE: DEFERRED_FLAGS,
    UPDATE_MESSAGE: EDIT_FLAGS,
}


def callback_problems(body: JSON, interaction_type: int, *, file_count: int = 0) -> list[Problem]:
    """Why Discord would refuse this answer to an interaction of ``interaction_type`` (empty if
    it would take it): a callback type the interaction does not take, or its data's problems,
    under "data"."""
    form = Form()
    kind = body.get("type")
    allowed = CALLBACKS_FOR.get(interaction_type, ())
    if kind not in allowed:
        choices = ", ".join(str(choice) for choice in allowed)
        form.refuse(
            "type",
            "INTERACTION_CALLBACK_TYPE_INVALID",  # the fake's code: the rule is documented
            f"Callback type {kind} is not valid for an interaction of type {interaction_type}; "
            f"it takes one of ({choices}).",
        )
        return form.problems
    data, at = _object(body.get("data")), form.at("data")
    if kind in MESSAGE_CALLBACK_FLAGS:
        _check_message(at, data, MESSAGE_CALLBACK_FLAGS[kind], file_count)
    elif kind == AUTOCOMPLETE_RESULT:
        _check_choices(at, data)
    elif kind == MODAL:
        _check_modal(at, data)
    return form.problems
