"""Discord's size limits on a message, which the real API enforces with 400 Invalid Form Body.

The fake checks every message the bot creates or edits against them, so a reply that Discord
would reject fails in tests as it fails for users: the interaction goes unanswered.
"""

from __future__ import annotations

from typing import Any

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


def _embed_problems(index: int, embed: JSON) -> tuple[list[str], int]:
    """Return what is wrong with one embed, and how many characters it counts towards 6,000."""
    problems: list[str] = []

    def check(what: str, text: str, limit: int, *, required: bool = False) -> int:
        if len(text) > limit:
            problems.append(f"embeds[{index}].{what}: {len(text)} characters (max {limit})")
        if required and not text.strip():
            problems.append(f"embeds[{index}].{what}: required and empty")
        return len(text)

    size = check("title", _text(embed.get("title")), EMBED_TITLE_MAX)
    size += check("description", _text(embed.get("description")), EMBED_DESCRIPTION_MAX)
    size += check("footer.text", _text((embed.get("footer") or {}).get("text")), FOOTER_TEXT_MAX)
    size += check("author.name", _text((embed.get("author") or {}).get("name")), AUTHOR_NAME_MAX)
    fields = embed.get("fields") or []
    if len(fields) > EMBED_FIELDS_MAX:
        problems.append(f"embeds[{index}].fields: {len(fields)} (max {EMBED_FIELDS_MAX})")
    for number, field in enumerate(fields):
        size += check(
            f"fields[{number}].name", _text(field.get("name")), FIELD_NAME_MAX, required=True
        )
        size += check(
            f"fields[{number}].value", _text(field.get("value")), FIELD_VALUE_MAX, required=True
        )
    return problems, size


def _component_problems(components: list[JSON]) -> list[str]:
    problems: list[str] = []
    for component in components:
        label = _text(component.get("label"))
        if len(label) > BUTTON_LABEL_MAX:
            problems.append(f"component label: {len(label)} characters (max {BUTTON_LABEL_MAX})")
        custom_id = _text(component.get("custom_id"))
        if len(custom_id) > CUSTOM_ID_MAX:
            problems.append(f"custom_id: {len(custom_id)} characters (max {CUSTOM_ID_MAX})")
        problems += _component_problems(component.get("components") or [])
    return problems


CHOICES_MAX = 25
CHOICE_NAME_MAX = 100
CHOICE_VALUE_MAX = 100


def choice_problems(body: JSON) -> list[str]:
    """Return why Discord would refuse an autocomplete answer (empty if it would accept it)."""
    choices = body.get("choices")
    if not isinstance(choices, list):
        return ["choices: missing"]
    problems = (
        [f"choices: {len(choices)} (max {CHOICES_MAX})"] if len(choices) > CHOICES_MAX else []
    )
    for index, choice in enumerate(choices):
        name, value = _text(choice.get("name")), choice.get("value")
        if not 1 <= len(name) <= CHOICE_NAME_MAX:
            problems.append(
                f"choices[{index}].name: {len(name)} characters (1 to {CHOICE_NAME_MAX})"
            )
        if isinstance(value, str) and len(value) > CHOICE_VALUE_MAX:
            problems.append(
                f"choices[{index}].value: {len(value)} characters (max {CHOICE_VALUE_MAX})"
            )
    return problems


def message_problems(body: JSON) -> list[str]:
    """Return why Discord would refuse this message body (empty if it would accept it)."""
    problems: list[str] = []
    content = _text(body.get("content"))
    if len(content) > CONTENT_MAX:
        problems.append(f"content: {len(content)} characters (max {CONTENT_MAX})")
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_MAX:
        problems.append(f"embeds: {len(embeds)} (max {EMBEDS_MAX})")
    total = 0
    for index, embed in enumerate(embeds):
        embed_problems, size = _embed_problems(index, embed)
        problems += embed_problems
        total += size
    if total > EMBEDS_TOTAL_MAX:
        problems.append(f"embeds: {total} characters in all (max {EMBEDS_TOTAL_MAX})")
    problems += _component_problems(body.get("components") or [])
    return problems
