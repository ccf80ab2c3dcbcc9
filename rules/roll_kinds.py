"""What a logged roll says, read once for every reader: each system declares its roll kinds.

docs/development.md, "Roll kinds". The roll log keeps each roll's rules result as data (its
``dataclasses.asdict``) under the roll's kind ("sinew.test", "dice" for `/roll`). A system
declares each kind it logs as a ``RollKind`` in its ``SystemDeclaration``: how the stored
result is decoded back into the rules' own result, and how that result reads as a ``Reading``
(its totals, its verdict, whether it is a critical or a fumble, and where it falls on its exact
distribution). The roll log's lines, the exports, the recap, Luck spends, rerolls and Roll again
all read a logged roll through its kind, so each system has one definition of each of these.

A kind whose stored result can't be read (a result from an older shape, a kind no installed
system declares) reads as None: the log shows only what was rolled, the recap counts it unscored.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from rules.errors import RulesError
from rules.odds import Distribution

__all__ = [
    "EMBED",
    "OPTIONS",
    "PAYLOAD_VERSION",
    "RESULT",
    "VERSION",
    "WHAT",
    "Builder",
    "Placement",
    "Reading",
    "RollKind",
    "Total",
    "kind_named",
    "read_result",
    "roll_kinds",
]

T = TypeVar("T")

# A logged roll's payload (JSON), one definition for its writers and readers:
RESULT = "result"  # the rules' result, as ``dataclasses.asdict`` gives it: what every kind reads
OPTIONS = "options"  # the command's options: what Roll again repeats
EMBED = "embed"  # the reply as posted: shown again by a reveal, a Luck spend, a reroll
WHAT = "what"  # what was rolled, as the reply said it ("DEX check (stealth)"): since version 2
VERSION = "version"  # the payload's version: 1 (none written) read ``WHAT`` from the embed's title
PAYLOAD_VERSION = 2
# An exact distribution's builder: module-level (and cached), so that a recap computes each
# distinct question (the builder and its arguments) once.
Builder = Callable[..., Distribution | None]
# What a stored result can raise when it is not the shape its kind reads: read as None.
UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError, RulesError)


@dataclass(frozen=True, slots=True)
class Total:
    """One total of a roll (a `/roll` of several sets has one each), with its own verdict:
    ``success`` None when it has no target."""

    value: int
    success: bool | None = None
    critical: bool = False
    fumble: bool = False


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a roll's result falls on its exact distribution (the recap's luck score).

    Attributes:
        value: The result placed (a Luck shift left out: the dice as rolled).
        builder: Builds the distribution from ``arguments`` (None: a `/roll`'s ``expression``, or
            a result nothing places: counted, unscored).
        expression: A `/roll`'s expression, which only the recap reads for its dice shape
            (``rules.recap_placement.shape_of``, within the recap's bounds, in its worker): the
            roll log, which reads the same ``Reading`` on the event loop, never parses it.
        higher_is_better: False for a roll-under die.
        biggest: A candidate for the session's biggest roll (not a sum of separate strikes).
        parts: Several rolls in one (a `/roll` of sets), each placed alone.
    """

    value: int
    builder: Builder | None = None
    arguments: tuple[Hashable, ...] = ()
    expression: str | None = None
    higher_is_better: bool = True
    biggest: bool = True
    parts: tuple[Placement, ...] = ()


@dataclass(frozen=True, slots=True)
class Reading:
    """A logged roll as every reader sees it.

    Attributes:
        totals: Its totals: one; a contest's roller and other side; or each set of a `/roll`.
        success: The roll's verdict (a contest's or an attack's: the roller's side won); None
            when it has no target.
        critical: The system's one definition of a critical success, for this roll.
        fumble: Its one definition of a fumble (a critical failure).
        contest: Two sides: the totals are the roller's and the other side's.
        defending: The roller is the defending side of the contest.
        note: What follows the totals in the log ("3 damage").
        pressure: The Pressure the roll added (a failed Sinew & Steel tamper).
        placement: Where its result falls on its exact distribution; None: not placed.
    """

    totals: tuple[Total, ...]
    success: bool | None = None
    critical: bool = False
    fumble: bool = False
    contest: bool = False
    defending: bool = False
    note: str | None = None
    pressure: int = 0
    placement: Placement | None = None


@dataclass(frozen=True, slots=True)
class RollKind(Generic[T]):
    """A kind of roll a system logs: its name in the log, how its stored result is decoded
    into the rules' result (``decode``), and how that result reads (``read``)."""

    name: str
    decode: Callable[[Mapping[str, Any]], T]
    read: Callable[[T], Reading]

    def result_of(self, stored: object) -> T | None:
        """The rules' result a logged roll stored, or None if it isn't one this kind reads."""
        if not isinstance(stored, Mapping):
            return None
        try:
            return self.decode(stored)
        except UNREADABLE:
            return None

    def reading(self, stored: object) -> Reading | None:
        """What a stored result says, or None if it can't be read."""
        result = self.result_of(stored)
        if result is None:
            return None
        try:
            return self.read(result)
        except UNREADABLE:
            return None


_cache: tuple[object, Mapping[str, RollKind[Any]]] | None = None


def roll_kinds() -> Mapping[str, RollKind[Any]]:
    """Every roll kind: `/roll`'s and each installed system's, by name."""
    global _cache
    from rules.expressions.kinds import CORE_KINDS  # imports this module
    from rules.systems import registered

    declared = registered()
    if _cache is None or _cache[0] is not declared:
        found: dict[str, RollKind[Any]] = {kind.name: kind for kind in CORE_KINDS}
        for declaration in declared.values():
            for kind in declaration.roll_kinds:
                if kind.name in found:
                    raise ValueError(f"two roll kinds are declared as {kind.name!r}")
                found[kind.name] = kind
        _cache = (declared, found)
    return _cache[1]


def kind_named(name: str) -> RollKind[Any] | None:
    """The roll kind logged as ``name``, or None (a kind no installed system declares)."""
    return roll_kinds().get(name)


def read_result(kind: str, stored: object) -> Reading | None:
    """What a logged roll of ``kind`` says from its stored result; None if it can't be read."""
    found = kind_named(kind)
    return None if found is None else found.reading(stored)
