"""Campaign settings: the name and skin every campaign has, and each system's own settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

from rules.choices import parse_choice
from rules.declarations import JsonValue, Setting, declaration
from rules.errors import RulesError
from rules.inputs import checked_name
from rules.systems import System

__all__ = [
    "MAX_CAMPAIGN_NAME_LENGTH",
    "CampaignSettings",
    "GmRolls",
    "SettingsChange",
    "Skin",
    "TableSwitches",
    "setting_owners",
]

MAX_CAMPAIGN_NAME_LENGTH = 100

T = TypeVar("T")


class Skin(StrEnum):
    """The flavour of colour texts (Sinew & Steel's Pressure steps use it)."""

    FANTASY = "fantasy"
    SCIFI = "scifi"


class GmRolls(StrEnum):
    """How a GM's roll is shown when the GM doesn't say `hidden` (`/campaign settings`)."""

    PUBLIC = "public"
    HIDDEN = "hidden"


def setting_owners() -> dict[str, tuple[System, Setting[Any]]]:
    """Return every system setting by option name, with the system that declares it."""
    return {
        setting.name: (system, setting)
        for system in System
        for setting in declaration(system).settings
    }


@dataclass(frozen=True, slots=True)
class CampaignSettings:
    """A campaign's system, name and skin, and the values of its system's settings.

    ``options`` holds every declared setting of the system, as stored (JSON values); read one
    typed with ``get``.
    """

    system: System
    name: str
    skin: Skin = Skin.FANTASY
    options: Mapping[str, JsonValue] = field(default_factory=lambda: MappingProxyType({}))

    def get(self, setting: Setting[T]) -> T:
        """Return a setting's value (its default if the campaign predates it)."""
        raw = self.options.get(setting.name)
        return setting.default if raw is None else setting.parse(raw, self.system)

    def info_lines(self) -> list[str]:
        """Return the settings as `/campaign info` lists them."""
        lines = [f"Skin: {self.skin.value}"]
        for setting in declaration(self.system).settings:
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
        skin: Skin | None = None,
        chosen: Mapping[str, object] | None = None,
    ) -> CampaignSettings:
        """Validate a new campaign's settings; refuse one its system doesn't use.

        ``chosen`` maps setting names to what the user gave (None or absent: the default).
        """
        clean_name = " ".join(checked_name(name, "the campaign").split())
        if len(clean_name) > MAX_CAMPAIGN_NAME_LENGTH:
            raise RulesError(
                f"Campaign names can be at most {MAX_CAMPAIGN_NAME_LENGTH} characters "
                f"(got {len(clean_name)})."
            )
        given = {key: value for key, value in (chosen or {}).items() if value is not None}
        own = {setting.name: setting for setting in declaration(system).settings}
        for key in given:
            if key not in own:
                owner = setting_owners().get(key)
                whose = f"a {owner[0].in_sentence} setting" if owner else "not a setting"
                raise RulesError(
                    f"`{key}` is {whose}; a {system.display_name} campaign doesn't use it."
                )
        options = {
            key: setting.to_json(
                setting.parse(given[key], system) if key in given else setting.default
            )
            for key, setting in own.items()
        }
        return cls(
            system=system,
            name=clean_name,
            skin=skin or Skin.FANTASY,
            options=MappingProxyType(options),
        )

    @classmethod
    def stored(
        cls, system: System, name: str, skin: Skin, options: Mapping[str, object]
    ) -> CampaignSettings:
        """Rebuild settings read from storage, validating each declared value."""
        own = declaration(system).settings
        values = {
            setting.name: setting.to_json(setting.parse(options[setting.name], system))
            for setting in own
            if setting.name in options
        }
        return cls(system=system, name=name, skin=skin, options=MappingProxyType(values))


@dataclass(frozen=True, slots=True)
class SettingsChange:
    """What `/campaign settings` was asked to change; None (or False) leaves it as it is."""

    gm_channel_id: int | None = None
    gm_channel_off: bool = False
    secret_notice: bool | None = None
    announce_naturals: bool | None = None
    gm_rolls: GmRolls | None = None
    skin: Skin | None = None

    @classmethod
    def asked(
        cls,
        *,
        gm_channel_id: int | None = None,
        gm_channel_off: bool = False,
        secret_notice: bool | None = None,
        announcements: bool | None = None,
        skin: str | None = None,
        gm_rolls: str | None = None,
    ) -> SettingsChange:
        """Validate the options as given: a GM channel or none, and at least one change."""
        if gm_channel_id is not None and gm_channel_off:
            raise RulesError("Give `gm_channel` or `gm_channel_off`, not both.")
        asked = (gm_channel_id, secret_notice, announcements, skin, gm_rolls)
        if all(value is None for value in asked) and not gm_channel_off:
            raise RulesError(
                "Say what to change: `gm_channel`, `gm_channel_off`, `secret_notice`, "
                "`announcements`, `skin` or `gm_rolls`."
            )
        return cls(
            gm_channel_id=gm_channel_id,
            gm_channel_off=gm_channel_off,
            secret_notice=secret_notice,
            announce_naturals=announcements,
            gm_rolls=None if gm_rolls is None else parse_choice(GmRolls, gm_rolls, "gm_rolls"),
            skin=None if skin is None else parse_choice(Skin, skin, "skin"),
        )

    def apply(self, switches: TableSwitches) -> TableSwitches:
        """Return ``switches`` with this change applied (what it leaves out stays as it is)."""
        channel_id = switches.gm_channel_id
        if self.gm_channel_id is not None:
            channel_id = self.gm_channel_id
        elif self.gm_channel_off:
            channel_id = None
        notice = switches.secret_notice if self.secret_notice is None else self.secret_notice
        loud = (
            switches.announce_naturals if self.announce_naturals is None else self.announce_naturals
        )
        hidden = (
            switches.gm_rolls_hidden if self.gm_rolls is None else self.gm_rolls is GmRolls.HIDDEN
        )
        return TableSwitches(
            gm_channel_id=channel_id,
            secret_notice=notice,
            announce_naturals=loud,
            gm_rolls_hidden=hidden,
        )


@dataclass(frozen=True, slots=True)
class TableSwitches:
    """A campaign's table switches (`/campaign settings`), kept as JSON.

    Attributes:
        gm_channel_id: Where hidden and blind rolls are also posted for the GMs (None: blind
            rolls go to each GM by direct message).
        secret_notice: Whether the channel hears "gwen rolled in secret" for a blind roll.
        announce_naturals: Whether public crits and fumbles (natural 20s and 1s, Aethelgard
            criticals and fumbles) are also announced in the channel.
        gm_rolls_hidden: Whether a GM's rolls are hidden unless the GM says `hidden: false`.
    """

    gm_channel_id: int | None = None
    secret_notice: bool = False
    announce_naturals: bool = True
    gm_rolls_hidden: bool = False

    def __post_init__(self) -> None:
        if self.gm_channel_id is not None and (
            isinstance(self.gm_channel_id, bool) or not isinstance(self.gm_channel_id, int)
        ):
            raise ValueError(f"gm_channel_id must be a channel id (got {self.gm_channel_id!r})")
        for name in ("secret_notice", "announce_naturals", "gm_rolls_hidden"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false (got {getattr(self, name)!r})")

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> TableSwitches:
        keys = ("gm_channel_id", "secret_notice", "announce_naturals", "gm_rolls_hidden")
        # Any: __post_init__ checks each value's type.
        known: dict[str, Any] = {key: data[key] for key in keys if key in data}
        return cls(**known)

    def to_json(self) -> dict[str, object]:
        return {
            "gm_channel_id": self.gm_channel_id,
            "secret_notice": self.secret_notice,
            "announce_naturals": self.announce_naturals,
            "gm_rolls_hidden": self.gm_rolls_hidden,
        }

    def info_lines(self) -> list[str]:
        gm_channel = f"<#{self.gm_channel_id}>" if self.gm_channel_id else "none (blind rolls: DMs)"
        notice = "on" if self.secret_notice else "off"
        naturals = "on" if self.announce_naturals else "off"
        return [
            f"GM log channel: {gm_channel}",
            f"Secret-roll notice: {notice}",
            f"Crit and fumble announcements: {naturals}",
            f"GM rolls: {'hidden' if self.gm_rolls_hidden else 'public'} unless said otherwise",
        ]
