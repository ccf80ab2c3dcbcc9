"""The game systems a campaign can run, found where each declares itself.

docs/development.md, "Adding a system". A system is a module or package of ``rules`` (or of the
``rules`` package of an extra package a deployment names, the SYSTEM_PACKAGES setting) whose
``DECLARATION`` is a ``SystemDeclaration`` (``rules/declarations.py``); the declaration's
``system`` says its key, display name and mid-sentence name. Nothing here lists the systems: a
new one touches no file but its own.

A campaign outlives the package of its system: one whose stored key no installed package
declares reads as a system "not installed" (``system_named``, ``not_installed``), a value every
reader of campaigns can show and refuse with, never an exception.

The systems found are a ``SystemRegistry`` value: the bot scans one at start from its
SYSTEM_PACKAGES and hands it to the cogs (bot/client.py). The rules that read a campaign's
system by its stored key (``system_named``, ``declaration``) read the registry the bot installed
(``install``): one bot per process, and passing it to every reader of a campaign row would thread
it through the storage for nothing.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rules.errors import RulesError

if TYPE_CHECKING:
    from rules.declarations import Setting, SystemDeclaration

__all__ = [
    "RULES_PACKAGE",
    "System",
    "SystemRegistry",
    "all_systems",
    "current",
    "install",
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


@dataclass(frozen=True, slots=True)
class SystemRegistry:
    """The systems declared in ``rules`` and in the extra rules packages, found once.

    The bot scans one at start from its SYSTEM_PACKAGES (``scan``), keeps it and hands it to the
    cogs, which build the commands listing systems from it; it also installs it as the current
    registry (``install``), which the rules read where a campaign names its system by key.
    """

    packages: tuple[str, ...]  # the extra rules packages scanned beside ``rules``
    declarations: Mapping[str, SystemDeclaration]  # by system key, in the order found

    @classmethod
    def scan(cls, packages: Iterable[str] = ()) -> SystemRegistry:
        """Import ``rules`` and each of ``packages`` (rules packages, "games.rules"), module by
        module; keep each ``DECLARATION``, by its system's key."""
        chosen = tuple(packages)
        return cls(chosen, MappingProxyType(_scan((RULES_PACKAGE, *chosen))))

    @property
    def systems(self) -> tuple[System, ...]:
        """Every system, in the order they were found."""
        return tuple(declared.system for declared in self.declarations.values())

    def settings(self) -> dict[str, tuple[System, Setting[Any]]]:
        """Every system's setting by option name, with the system that declares it."""
        return {
            setting.name: (declared.system, setting)
            for declared in self.declarations.values()
            for setting in declared.settings
        }

    def named(self, key: str) -> System:
        """The system stored as ``key``: the one declared so, else a system ``not_installed``."""
        declared = self.declarations.get(key)
        return not_installed(key) if declared is None else declared.system

    def parse(self, text: str) -> System:
        """The system whose key is ``text`` (any case), else raise RulesError."""
        declared = self.declarations.get(text.strip().casefold())
        if declared is not None:
            return declared.system
        allowed = ", ".join(self.declarations)
        shown = text if len(text) <= QUOTE_MAX else text[:QUOTE_MAX] + "…"
        raise RulesError(f"Unknown system `{shown}`: choose one of {allowed}.")


# The registry the rules read a campaign's system from by key (``system_named``,
# ``declaration``): the one the bot installed at start (its worker processes install the same:
# bot/offload.py). Until one is installed, the bot's own systems.
_current: SystemRegistry | None = None


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


def install(registry: SystemRegistry) -> None:
    """Make ``registry`` the current one, the registry the rules read systems by key from."""
    global _current
    _current = registry


def current() -> SystemRegistry:
    """The registry installed (``install``), else the one of ``rules`` alone."""
    global _current
    if _current is None:
        _current = SystemRegistry.scan()
    return _current


def use_packages(packages: Iterable[str]) -> None:
    """Install the registry of ``rules`` and these rules packages ("games.rules")."""
    install(SystemRegistry.scan(packages))


def registered() -> Mapping[str, SystemDeclaration]:
    """Return every system's declaration by its key (the current registry's), in the order they
    were found."""
    return current().declarations


def all_systems() -> tuple[System, ...]:
    """Return every system of the current registry, in the order they were found."""
    return current().systems


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
    """Return the system stored as ``key``: the one declared so in the current registry, else
    (its package was removed from SYSTEM_PACKAGES) a system ``not_installed``."""
    return current().named(key)


def parse_system(text: str) -> System:
    """Return the current registry's system whose key is ``text`` (any case), else raise
    RulesError."""
    return current().parse(text)
