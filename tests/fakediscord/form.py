"""Discord's answer to a request that breaks a documented limit: 400, code 50035.

Discord checks a JSON body field by field and answers every problem at once, each under the path
of its field (discord-api-docs, "Reference" → "Error Messages"):

    {"code": 50035, "message": "Invalid Form Body",
     "errors": {"embeds": {"0": {"description": {"_errors": [
         {"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 4096 or fewer in length."}]}}}}}

discord.py flattens ``errors`` into its exception's text ("In embeds.0.description: Must be 4096
or fewer in length."), so the bot's log names the field as it would in production. A checker
walks a body with a ``Form`` and records each problem at its path; ``invalid_form_body`` builds
the answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]
INVALID_FORM_BODY = 50035

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """One field Discord refuses: where, Discord's error code, and its message."""

    path: Path
    code: str
    message: str

    def __str__(self) -> str:
        where = ".".join(str(part) for part in self.path) or "(body)"
        return f"{where}: {self.message}"


@dataclass(slots=True)
class Form:
    """The problems found in one body, each recorded under the path of its field.

    ``form.at("embeds", 0)`` is the same form seen from a sub-object: what it records lands in
    the same list, under the longer path.
    """

    prefix: Path = ()
    problems: list[Problem] = field(default_factory=list)

    def at(self, *path: str | int) -> Form:
        return Form(self.prefix + path, self.problems)

    def refuse(self, name: str | int | None, code: str, message: str) -> None:
        """Record a problem with the field ``name`` (None: this object itself)."""
        path = self.prefix if name is None else (*self.prefix, name)
        self.problems.append(Problem(path, code, message))

    def text(
        self, name: str, value: Any, *, high: int, low: int = 0, required: bool = False
    ) -> None:
        """Check a string field's length (absent is fine unless ``required``)."""
        if value is None:
            if required:
                self.refuse(name, "BASE_TYPE_REQUIRED", "This field is required")
            return
        if not isinstance(value, str):
            self.refuse(name, "BASE_TYPE_STRING", "Must be a string.")
            return
        if len(value) > high:
            self.refuse(name, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
        elif len(value) < low:
            self.refuse(
                name,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between {low} and {high} in length.",
            )

    def count(self, name: str, items: Any, *, high: int, low: int = 0) -> list[Any]:
        """Check a list field's length; return the list (empty when absent or not a list)."""
        if items is None:
            return []
        if not isinstance(items, list):
            self.refuse(name, "BASE_TYPE_ARRAY", "Must be an array.")
            return []
        if len(items) > high:
            self.refuse(name, "BASE_TYPE_MAX_LENGTH", f"Must be {high} or fewer in length.")
        elif len(items) < low:
            self.refuse(name, "BASE_TYPE_MIN_LENGTH", f"Must be {low} or more in length.")
        return items

    def number(self, name: str, value: Any, *, low: float, high: float) -> None:
        """Check a number field's range (absent is fine)."""
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.refuse(name, "NUMBER_TYPE_COERCE", f'Value "{value}" is not a number.')
        elif value > high:
            self.refuse(
                name, "NUMBER_TYPE_MAX", f"int value should be less than or equal to {high}."
            )
        elif value < low:
            self.refuse(
                name, "NUMBER_TYPE_MIN", f"int value should be greater than or equal to {low}."
            )


def invalid_form_body(problems: list[Problem]) -> JSON:
    """Return Discord's 400 body for these problems: each under the path of its field."""
    errors: JSON = {}
    for problem in problems:
        node = errors
        for part in problem.path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": problem.code, "message": problem.message})
    return {"code": INVALID_FORM_BODY, "message": "Invalid Form Body", "errors": errors}


def describe(problems: list[Problem]) -> str:
    """One line naming every problem: what a test prints and the fake records."""
    return "; ".join(str(problem) for problem in problems)
