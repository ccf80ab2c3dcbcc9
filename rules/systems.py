"""The game systems a campaign can run, found where each declares itself.

docs/development.md, "Adding a system". A system is a module or package of ``rules`` (or of the
``rules`` package of an extra package a deployment names, the SYSTEM_PACKAGES setting) whose
``DECLARATION`` is a ``SystemDeclaration`` (``rules/declarations.py``); the declaration's
``system`` says its key, display name and mid-sentence name. Nothing here lists the systems: a
new one touches no file but its own.

A campaign outlives the package of its system: one whose stored key no installed package
declares reads as a system "not installed" (``system_named``, ``not_installed``), a value every
reader of campaigns can show and refuse with, never an exception.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from rules.errors import RulesError

if TYPE_CHECKING:
    from rules.declarations import SystemDeclaration

__all__ = [
    "RULES_PACKAGE",
    "System",
    "all_systems",
    "not_installed",
    "parse_system",
    "registered",
    "system_named",
    "use_packages",
]

RULES_PACKAGE = "rules"
QUOTE_MAX = 40  # how much of an unknown system a refusal repeats back


@dataclass(frozen=True, slots=True)
class System:
    """A tabletop system: ``value`` is the name users type and the storage key."""

    value: str
    display_name: str  # as its rule document spells it
    sentence_name: str | None = None  # mid-sentence, when it differs ("six-pool d20")
    # False: the system of a stored campaign that no installed package declares
    # (``not_installed``); its key is the stored one, whatever it holds.
    installed: bool = True

    def __post_init__(self) -> None:
        if self.installed and (not self.value or self.value != self.value.strip().casefold()):
            raise ValueError(f"a system's key is lower case, without spaces (got {self.value!r})")

    @property
    def in_sentence(self) -> str:
        """Return the name as written mid-sentence ("a six-pool d20 campaign")."""
        return self.sentence_name or self.display_name

    @property
    def with_article(self) -> str:
        """Return the name mid-sentence after "a" or "an" ("an Aethelgard", "a six-pool d20")."""
        name = self.in_sentence
        return f"{'an' if name[:1].casefold() in 'aeiou' else 'a'} {name}"

    def __str__(self) -> str:
        return self.value


class _Registry:
    """The systems declared in ``rules`` and the extra packages, found once per set of packages."""

    def __init__(self) -> None:
        self.extra: tuple[str, ...] = ()
        self._found: Mapping[str, SystemDeclaration] | None = None

    def use(self, packages: Iterable[str]) -> None:
        chosen = tuple(packages)
        if chosen != self.extra:
            self.extra, self._found = chosen, None

    @property
    def found(self) -> Mapping[str, SystemDeclaration]:
        if self._found is None:
            self._found = MappingProxyType(_scan((RULES_PACKAGE, *self.extra)))
        return self._found


_registry = _Registry()


def _scan(packages: Iterable[str]) -> dict[str, SystemDeclaration]:
    """Import each package's modules; keep each ``DECLARATION``, by its system's key."""
    from rules.declarations import SystemDeclaration  # imports this module

    found: dict[str, SystemDeclaration] = {}
    for package_name in packages:
        package = importlib.import_module(package_name)
        for module_info in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}."):
            module = importlib.import_module(module_info.name)
            declared = getattr(module, "DECLARATION", None)
            if not isinstance(declared, SystemDeclaration):
                continue
            key = declared.system.value
            if key in found and found[key] is not declared:
                raise ValueError(f"two systems are declared as {key!r} ({module_info.name})")
            found[key] = declared
    return found


def use_packages(packages: Iterable[str]) -> None:
    """Find systems in these packages too, beside ``rules`` (replacing the ones named before).

    The bot calls it with its SYSTEM_PACKAGES setting before it loads its cogs.
    """
    _registry.use(packages)


def registered() -> Mapping[str, SystemDeclaration]:
    """Return every system's declaration by its key, in the order they were found."""
    return _registry.found


def all_systems() -> tuple[System, ...]:
    """Return every system, in the order they were found."""
    return tuple(declared.system for declared in registered().values())


def not_installed(key: str) -> System:
    """The system of a stored campaign whose key ``key`` no installed package declares: it reads
    "system not installed (`key`)", and mid-sentence "a system not installed here (`key`)"."""
    short = key if len(key) <= QUOTE_MAX else key[:QUOTE_MAX] + "…"
    shown = "`" + (short.replace("`", "'") or " ") + "`"
    return System(
        key,
        f"system not installed ({shown})",
        sentence_name=f"system not installed here ({shown})",
        installed=False,
    )


def system_named(key: str) -> System:
    """Return the system stored as ``key``: the one declared so, else (its package was removed
    from SYSTEM_PACKAGES) a system ``not_installed``."""
    declared = registered().get(key)
    return not_installed(key) if declared is None else declared.system


def parse_system(text: str) -> System:
    """Return the system whose key is ``text`` (any case), else raise RulesError."""
    declared = registered().get(text.strip().casefold())
    if declared is not None:
        return declared.system
    allowed = ", ".join(registered())
    shown = text if len(text) <= QUOTE_MAX else text[:QUOTE_MAX] + "…"
    raise RulesError(f"Unknown system `{shown}`: choose one of {allowed}.")
