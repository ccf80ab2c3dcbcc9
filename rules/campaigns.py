"""Campaign settings: the name every campaign has, and each system's own settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from rules.choices import parse_choice
from rules.declarations import JsonValue, Setting, declaration
from rules.errors import RulesError
from rules.inputs import checked_name
from rules.systems import System, current

__all__ = [
    "MAX_CAMPAIGN_NAME_LENGTH",
    "CampaignSettings",
    "GmRolls",
    "SettingsChange",
    "TableSwitches",
    "setting_owners",
]

MAX_CAMPAIGN_NAME_LENGTH = 100
# `/campaign settings`' own options (each system's changeable settings come after them)
SWITCH_OPTIONS = ("gm_channel", "gm_channel_off", "secret_notice", "gm_rolls")

T = TypeVar("T")


class GmRolls(StrEnum):
    """How a GM's roll is shown when the GM doesn't say `hidden` (`/campaign settings`)."""

    PUBLIC = "public"
    HIDDEN = "hidden"


def setting_owners() -> dict[str, tuple[System, Setting[Any]]]:
    """Return every system setting by option name, with the system that declares it (those of
    the current registry: ``rules.systems.current``)."""
    return current().settings()


def _refuse_foreign(system: System, key: str) -> RulesError:
    """The refusal of an option ``system`` doesn't declare (another system's setting?)."""
    owner = setting_owners().get(key)
    whose = f"{owner[0].with_article} setting" if owner else "not a setting"
    return RulesError(f"`{key}` is {whose}; {system.with_article} campaign doesn't use it.")


@dataclass(frozen=True, slots=True)
class CampaignSettings:
    """A campaign's system and name, and the values of its system's settings.

    ``options`` holds every declared setting of the system, as stored (JSON values); read one
    typed with ``get``.
    """

    system: System
    name: str
    options: Mapping[str, JsonValue] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, setting: Setting[T]) -> T:
        """Return a setting's value (its default if the campaign predates it)."""
        raw = self.options.get(setting.name)
        return setting.default if raw is None else setting.parse(raw, self.system)

    def info_lines(self, *, changeable_only: bool = False) -> list[str]:
        """Return the settings as `/campaign info` lists them (`/campaign settings`: only those
        it may change). A system not installed declares none: its stored values are listed
        as they are, and none may change."""
        if not self.system.installed:
            return [] if changeable_only else [f"{k}: {v}" for k, v in self.options.items()]
        lines: list[str] = []
        for setting in declaration(self.system).settings:
            if changeable_only and not setting.changeable:
                continue
            line = setting.describe(self.get(setting))
            if line is not None:
                lines.append(line)
        return lines

    @classmethod
    def create(
        cls,
        system: System,
        name: str,
        *,
        chosen: Mapping[str, object] | None = None,
    ) -> CampaignSettings:
        """Validate a new campaign's settings; refuse one its system doesn't use.

        ``chosen`` maps setting names to what the user gave (None or absent: the default).
        """
        clean_name = checked_name(name, "Campaign name", MAX_CAMPAIGN_NAME_LENGTH)
        given = {key: value for key, value in (chosen or {}).items() if value is not None}
        own = {setting.name: setting for setting in declaration(system).settings}
        for key in given:
            if key not in own:
                raise _refuse_foreign(system, key)
        options = {
            key: setting.to_json(
                setting.parse(given[key], system) if key in given else setting.default
            )
            for key, setting in own.items()
        }
        return cls(system=system, name=clean_name, options=MappingProxyType(options))

    @classmethod
    def stored(cls, system: System, name: str, options: Mapping[str, object]) -> CampaignSettings:
        """Rebuild settings read from storage, validating each declared value. A system not
        installed keeps its stored values as they are (saved back unchanged with the switches),
        for when its package is installed again."""
        if not system.installed:
            kept = {k: v for k, v in options.items() if isinstance(v, bool | str)}
            return cls(system=system, name=name, options=MappingProxyType(kept))
        own = declaration(system).settings
        values = {
            setting.name: setting.to_json(setting.parse(options[setting.name], system))
            for setting in own
            if setting.name in options
        }
        return cls(system=system, name=name, options=MappingProxyType(values))


@dataclass(frozen=True, slots=True)
class SettingsChange:
    """What `/campaign settings` was asked to change; None (or False) leaves it as it is.

    ``options`` holds the new values (as stored) of the system's changeable settings asked for.
    """

    gm_channel_id: int | None = None
    gm_channel_off: bool = False
    secret_notice: bool | None = None
    gm_rolls: GmRolls | None = None
    options: Mapping[str, JsonValue] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def asked(
        cls,
        *,
        system: System,
        gm_channel_id: int | None = None,
        gm_channel_off: bool = False,
        secret_notice: bool | None = None,
        gm_rolls: str | None = None,
        chosen: Mapping[str, object] | None = None,
    ) -> SettingsChange:
        """Validate the options as given: a GM channel or none, settings ``system`` lets change
        (``chosen``: by name; None or absent leaves one as it is), and at least one change."""
        if gm_channel_id is not None and gm_channel_off:
            raise RulesError("Give `gm_channel` or `gm_channel_off`, not both.")
        own = {setting.name: setting for setting in declaration(system).settings}
        options: dict[str, JsonValue] = {}
        for key, value in (chosen or {}).items():
            if value is None:
                continue
            setting = own.get(key)
            if setting is None:
                raise _refuse_foreign(system, key)
            if not setting.changeable:
                raise RulesError(f"`{key}` is chosen when the campaign starts; it can't change.")
            options[key] = setting.to_json(setting.parse(value, system))
        asked = (gm_channel_id, secret_notice, gm_rolls)
        if all(value is None for value in asked) and not gm_channel_off and not options:
            changeable = [name for name, (_, s) in setting_owners().items() if s.changeable]
            names = ", ".join(f"`{name}`" for name in (*SWITCH_OPTIONS, *changeable))
            raise RulesError(f"Say what to change: {names}.")
        return cls(
            gm_channel_id=gm_channel_id,
            gm_channel_off=gm_channel_off,
            secret_notice=secret_notice,
            gm_rolls=None if gm_rolls is None else parse_choice(GmRolls, gm_rolls, "gm_rolls"),
            options=MappingProxyType(options),
        )

    def settle(self, settings: CampaignSettings) -> CampaignSettings:
        """Return ``settings`` with the asked settings changed (the others stay as they are)."""
        return replace(settings, options=MappingProxyType({**settings.options, **self.options}))

    def apply(self, switches: TableSwitches) -> TableSwitches:
        """Return ``switches`` with this change applied (what it leaves out stays as it is)."""
        channel_id = switches.gm_channel_id
        if self.gm_channel_id is not None:
            channel_id = self.gm_channel_id
        elif self.gm_channel_off:
            channel_id = None
        notice = switches.secret_notice if self.secret_notice is None else self.secret_notice
        hidden = (
            switches.gm_rolls_hidden if self.gm_rolls is None else self.gm_rolls is GmRolls.HIDDEN
        )
        return TableSwitches(
            gm_channel_id=channel_id,
            secret_notice=notice,
            gm_rolls_hidden=hidden,
        )


@dataclass(frozen=True, slots=True)
class TableSwitches:
    """A campaign's table switches (`/campaign settings`), kept as JSON.

    Attributes:
        gm_channel_id: Where hidden and blind rolls are also posted for the GMs (None: blind
            rolls go to each GM by direct message).
        secret_notice: Whether the channel hears "gwen rolled in secret" for a blind or hidden
            roll.
        gm_rolls_hidden: Whether a GM's rolls are hidden unless the GM says `hidden: false`.
    """

    gm_channel_id: int | None = None
    secret_notice: bool = False
    gm_rolls_hidden: bool = False

    def __post_init__(self) -> None:
        if self.gm_channel_id is not None and (
            isinstance(self.gm_channel_id, bool) or not isinstance(self.gm_channel_id, int)
        ):
            raise ValueError(f"gm_channel_id must be a channel id (got {self.gm_channel_id!r})")
        for name in ("secret_notice", "gm_rolls_hidden"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false (got {getattr(self, name)!r})")

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableSwitches:
        keys = ("gm_channel_id", "secret_notice", "gm_rolls_hidden")
        # Any: __post_init__ checks each value's type. Other keys are dropped: a campaign saved
        # before crits stopped being announced apart still holds "announce_naturals".
        known: dict[str, Any] = {key: data[key] for key in keys if key in data}
        return cls(**known)

    def to_json(self) -> dict[str, object]:
        return {
            "gm_channel_id": self.gm_channel_id,
            "secret_notice": self.secret_notice,
            "gm_rolls_hidden": self.gm_rolls_hidden,
        }

    def info_lines(self) -> list[str]:
        gm_channel = f"<#{self.gm_channel_id}>" if self.gm_channel_id else "none (blind rolls: DMs)"
        notice = "on" if self.secret_notice else "off"
        return [
            f"GM log channel: {gm_channel}",
            f"Secret-roll notice: {notice}",
            f"GM rolls: {'hidden' if self.gm_rolls_hidden else 'public'} unless said otherwise",
        ]
