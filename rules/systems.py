"""The five game systems a campaign can run."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["System"]


class System(StrEnum):
    """A tabletop system; the value is the name users type and the storage key."""

    COSMOS = "cosmos"
    REALMS = "realms"
    SINEW = "sinew"
    AETHELGARD = "aethelgard"
    SIXPOOL = "sixpool"

    @property
    def display_name(self) -> str:
        """Return the system's name as its rule document spells it."""
        return _TITLES[self]

    @property
    def in_sentence(self) -> str:
        """Return the name as written mid-sentence ("a six-pool d20 campaign")."""
        return _IN_SENTENCE.get(self, self.display_name)


_TITLES = {
    System.COSMOS: "Cosmos Engine",
    System.REALMS: "Enchanted Realms",
    System.SINEW: "Sinew & Steel",
    System.AETHELGARD: "Aethelgard",
    System.SIXPOOL: "Six-pool d20",
}
_IN_SENTENCE = {System.SIXPOOL: "six-pool d20"}
