"""Discord's limits on a message, which the real API enforces with 400 Invalid Form Body.

The fake checks every message the bot creates or edits against them, so a reply that Discord
would reject fails in tests as it fails for users: the interaction goes unanswered. Each checker
returns the problems it found (``form.Problem``), each at the path of its field.
"""

from __future__ import annotations

from typing import Any

from .form import Form, Problem
from .payloads import JSON

CONTENT_MAX = 2_000
EMBEDS_MAX = 10
EMBED_TITLE_MAX = 256
EMBED_DESCRIPTION_MAX = 4_096
EMBED_FIELDS_MAX = 25
FIELD_NAME_MAX = 256
FIELD_VALUE_MAX = 1_024
FOOTER_TEXT_MAX = 2_048
AUTHOR_NAME_MAX = 256
EMBEDS_TOTAL_MAX = 6_000  # the characters of every embed of one message, added up
BUTTON_LABEL_MAX = 80
CUSTOM_ID_MAX = 100


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _check_embed(form: Form, embed: JSON) -> int:
    """Check one embed; return how many characters it counts towards 6,000."""
    form.text("title", embed.get("title"), high=EMBED_TITLE_MAX)
    form.text("description", embed.get("description"), high=EMBED_DESCRIPTION_MAX)
    footer, author = embed.get("footer") or {}, embed.get("author") or {}
    form.at("footer").text("text", footer.get("text"), high=FOOTER_TEXT_MAX)
    form.at("author").text("name", author.get("name"), high=AUTHOR_NAME_MAX)
    size = sum(
        len(_text(text))
        for text in (embed.get("title"), embed.get("description"), footer.get("text"))
    ) + len(_text(author.get("name")))
    fields = form.count("fields", embed.get("fields"), high=EMBED_FIELDS_MAX)
    for index, entry in enumerate(fields):
        at = form.at("fields", index)
        at.text("name", entry.get("name"), low=1, high=FIELD_NAME_MAX, required=True)
        at.text("value", entry.get("value"), low=1, high=FIELD_VALUE_MAX, required=True)
        size += len(_text(entry.get("name"))) + len(_text(entry.get("value")))
    return size


def _check_components(form: Form, components: list[JSON]) -> None:
    for index, component in enumerate(components):
        at = form.at(index)
        at.text("label", component.get("label"), high=BUTTON_LABEL_MAX)
        at.text("custom_id", component.get("custom_id"), low=1, high=CUSTOM_ID_MAX)
        _check_components(at.at("components"), component.get("components") or [])


CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100


def choice_problems(body: JSON) -> list[Problem]:
    """Return why Discord would refuse an autocomplete answer (empty if it would accept it)."""
    form = Form()
    if not isinstance(body.get("choices"), list):
        form.refuse("choices", "BASE_TYPE_REQUIRED", "This field is required")
    for index, choice in enumerate(form.count("choices", body.get("choices"), high=CHOICES_MAX)):
        at = form.at("choices", index)
        at.text("name", choice.get("name"), low=1, high=CHOICE_NAME_MAX, required=True)
        if isinstance(choice.get("value"), str):
            at.text("value", choice.get("value"), high=CHOICE_VALUE_MAX)
    return form.problems


def message_problems(body: JSON) -> list[Problem]:
    """Return why Discord would refuse this message body (empty if it would accept it)."""
    form = Form()
    form.text("content", body.get("content"), high=CONTENT_MAX)
    total = 0
    for index, embed in enumerate(form.count("embeds", body.get("embeds"), high=EMBEDS_MAX)):
        total += _check_embed(form.at("embeds", index), embed)
    if total > EMBEDS_TOTAL_MAX:
        form.refuse(
            "embeds",
            "MESSAGE_EMBEDS_TOO_LONG",
            f"Embed size exceeds maximum size of {EMBEDS_TOTAL_MAX}",
        )
    _check_components(form.at("components"), body.get("components") or [])
    return form.problems
