"""Campaign settings: which options a system takes, and their defaults."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.errors import RulesError
from rules.systems import System

__all__ = ["MAX_CAMPAIGN_NAME_LENGTH", "CampaignSettings", "EdgeOption", "Skin"]

MAX_CAMPAIGN_NAME_LENGTH = 100


class Skin(StrEnum):
    """The flavour of colour texts (Sinew & Steel's Pressure steps use it)."""

    FANTASY = "fantasy"
    SCIFI = "scifi"


class EdgeOption(StrEnum):
    """Six-pool d20 Edge rule: A = free +Edge on every roll; B = first Edge+1 points give +2."""

    A = "A"
    B = "B"


@dataclass(frozen=True, slots=True)
class CampaignSettings:
    """A campaign's system and the per-system options chosen at its start."""

    system: System
    name: str
    skin: Skin = Skin.FANTASY
    edge_option: EdgeOption | None = None
    lingering_taint: bool = False

    @classmethod
    def create(
        cls,
        system: System,
        name: str,
        *,
        skin: Skin | None = None,
        edge_option: EdgeOption | None = None,
        lingering_taint: bool | None = None,
    ) -> CampaignSettings:
        """Validate options for ``system``; refuse an option that system doesn't use."""
        clean_name = " ".join(name.split())
        if not clean_name:
            raise RulesError("Give the campaign a name.")
        if len(clean_name) > MAX_CAMPAIGN_NAME_LENGTH:
            raise RulesError(
                f"Campaign names can be at most {MAX_CAMPAIGN_NAME_LENGTH} characters "
                f"(got {len(clean_name)})."
            )
        if edge_option is not None and system is not System.SIXPOOL:
            raise RulesError(
                f"`edge_option` is a six-pool d20 setting; a {system.display_name} campaign "
                "doesn't use it."
            )
        if lingering_taint is not None and system is not System.SINEW:
            raise RulesError(
                f"`lingering_taint` is a Sinew & Steel setting; a {system.display_name} campaign "
                "doesn't use it."
            )
        if system is System.SIXPOOL and edge_option is None:
            edge_option = EdgeOption.A
        return cls(
            system=system,
            name=clean_name,
            skin=skin or Skin.FANTASY,
            edge_option=edge_option,
            lingering_taint=bool(lingering_taint),
        )
