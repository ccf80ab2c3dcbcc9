"""Converting legacy modifiers (era, situational, rating) to advantage dice."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from rules.cosmos.dice import ADVANTAGE_CAP, RATING_MAX, SITUATIONAL_LIMIT, Pool
from rules.inputs import require_whole
from rules.tables import require_int, require_keys, require_table

# --- Conversion


class Era(StrEnum):
    """Technology era of equipment, converted to advantage dice."""

    PRIMITIVE = "primitive"
    MODERN = "modern"
    ADVANCED = "advanced"
    FUTURISTIC = "futuristic"
    COSMIC = "cosmic"


@dataclass(frozen=True, slots=True)
class Band:
    """An inclusive range of values giving a number of dice; ``high`` None is open-ended."""

    low: int
    high: int | None
    dice: int

    def contains(self, value: int) -> bool:
        """Return whether ``value`` falls in this band."""
        return self.low <= value and (self.high is None or value <= self.high)


@dataclass(frozen=True, slots=True)
class ConversionTables:
    """Conversion tables: era to dice, situational size bands, rating bands."""

    era: Mapping[Era, int]
    situational: tuple[Band, ...]
    rating: tuple[Band, ...]


def _parse_bands(path: str, value: object) -> tuple[Band, ...]:
    """Validate a list of ``{from, to, dice}`` bands: from 0, contiguous, only the last open."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"{path}: expected a non-empty list of bands")
    bands: list[Band] = []
    expected_low = 0
    for index, entry in enumerate(value):
        where = f"{path}[{index}]"
        table = require_table(where, entry)
        last = index == len(value) - 1
        if last and "to" in table:
            raise ValueError(f"{where}.to: the last band must be open-ended (no 'to')")
        require_keys(where, table, ["from", "dice"] if last else ["from", "to", "dice"])
        low = require_int(f"{where}.from", table["from"], expected_low, expected_low)
        dice = require_int(f"{where}.dice", table["dice"], 0, ADVANTAGE_CAP)
        high = None if last else require_int(f"{where}.to", table["to"], low, 10**6)
        bands.append(Band(low, high, dice))
        if high is not None:
            expected_low = high + 1
    return tuple(bands)


def parse_conversion(mapping: Mapping[str, object]) -> ConversionTables:
    """Validate the conversion mapping (conversion.toml) and freeze it.

    Raises:
        ValueError: naming the bad key (e.g. ``era.cosmic`` or ``rating[2].from``).
    """
    require_keys("", require_table("conversion", mapping), ["era", "situational", "rating"])
    era_table = require_table("era", mapping["era"])
    require_keys("era", era_table, [era.value for era in Era])
    era = {
        member: require_int(f"era.{member.value}", era_table[member.value], 0, ADVANTAGE_CAP)
        for member in Era
    }
    return ConversionTables(
        era=MappingProxyType(era),
        situational=_parse_bands("situational", mapping["situational"]),
        rating=_parse_bands("rating", mapping["rating"]),
    )


@dataclass(frozen=True, slots=True)
class Conversion:
    """Legacy modifiers converted to dice, and the pool they make after cancellation and cap.

    Attributes:
        situational_dice: Positive for advantage dice, negative for disadvantage dice.
        pool: All advantage (era + positive situational + rating) and disadvantage dice.
    """

    era: Era | None
    situational: int
    rating: int
    era_dice: int
    situational_dice: int
    rating_dice: int
    pool: Pool


def _band_dice(bands: tuple[Band, ...], value: int) -> int:
    """Return the dice of the band holding ``value`` (bands cover every value from 0)."""
    return next(band.dice for band in bands if band.contains(value))


def convert(
    tables: ConversionTables, *, era: Era | None = None, situational: int = 0, rating: int = 0
) -> Conversion:
    """Convert an equipment era, a situational modifier and a system rating to dice."""
    situational = require_whole(
        "Situational modifier", situational, -SITUATIONAL_LIMIT, SITUATIONAL_LIMIT
    )
    rating = require_whole("Rating", rating, 0, RATING_MAX)
    era_dice = 0 if era is None else tables.era[era]
    size = _band_dice(tables.situational, abs(situational))
    situational_dice = size if situational >= 0 else -size
    rating_dice = _band_dice(tables.rating, rating)
    return Conversion(
        era=era,
        situational=situational,
        rating=rating,
        era_dice=era_dice,
        situational_dice=situational_dice,
        rating_dice=rating_dice,
        pool=Pool(
            advantage=era_dice + max(situational_dice, 0) + rating_dice,
            disadvantage=max(-situational_dice, 0),
        ),
    )
