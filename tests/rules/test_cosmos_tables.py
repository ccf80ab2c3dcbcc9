"""Cosmos tables in data/cosmos/: the shipped files parse, and bad mappings name the bad key."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rules.cosmos import (
    ACTIONS_BY_SCALE,
    Action,
    Band,
    Era,
    Scale,
    parse_conversion,
    parse_critical_effects,
)
from tests.expect import unchecked

DATA = Path(__file__).resolve().parents[2] / "data" / "cosmos"


def _load(name: str) -> dict[str, Any]:
    with (DATA / name).open("rb") as file:
        return tomllib.load(file)


def test_critical_effects_file_has_every_scale_and_action_from_the_document() -> None:
    effects = parse_critical_effects(_load("critical_effects.toml"))
    for scale, actions in ACTIONS_BY_SCALE.items():
        assert set(effects.texts[scale]) == set(actions)
    assert effects.effect(Scale.PERSONAL, Action.SOCIAL) == (
        "Exceptional impression + ongoing advantage"
    )
    assert effects.effect(Scale.STARSHIP, Action.NAVIGATION) == "Perfect course + time advantage"
    assert effects.effect(Scale.CAPITAL, Action.POLITICS) == (
        "Historical significance + institutional change"
    )
    with pytest.raises(TypeError):
        unchecked(effects.texts[Scale.PERSONAL])[Action.COMBAT] = "changed"


def test_conversion_file_matches_the_rulings() -> None:
    tables = parse_conversion(_load("conversion.toml"))
    assert dict(tables.era) == {
        Era.PRIMITIVE: 1,
        Era.MODERN: 1,
        Era.ADVANCED: 2,
        Era.FUTURISTIC: 2,
        Era.COSMIC: 3,
    }
    assert tables.situational == (Band(0, 0, 0), Band(1, 2, 1), Band(3, 4, 2), Band(5, None, 3))
    assert tables.rating == (
        Band(0, 0, 0),
        Band(1, 3, 1),
        Band(4, 6, 2),
        Band(7, 9, 3),
        Band(10, None, 4),
    )


def _broken_effects(change: str) -> dict[str, Any]:
    mapping = copy.deepcopy(_load("critical_effects.toml"))
    if change == "unknown scale":
        mapping["galactic"] = {}
    elif change == "missing scale":
        del mapping["capital"]
    elif change == "wrong action":
        mapping["vehicle"]["social"] = mapping["vehicle"].pop("piloting")
    elif change == "missing action":
        del mapping["starship"]["diplomacy"]
    elif change == "empty text":
        mapping["personal"]["combat"] = "  "
    elif change == "not a table":
        mapping["personal"] = "combat"
    return mapping


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ("unknown scale", "galactic: unknown key"),
        ("missing scale", "capital: missing"),
        ("wrong action", "vehicle.social: unknown key"),
        ("missing action", "starship.diplomacy: missing"),
        ("empty text", "personal.combat: expected non-empty text"),
        ("not a table", "personal: expected a table"),
    ],
)
def test_bad_critical_effects_name_the_key(change: str, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        parse_critical_effects(_broken_effects(change))


def _broken_conversion(change: str) -> dict[str, Any]:
    mapping = copy.deepcopy(_load("conversion.toml"))
    if change == "era value":
        mapping["era"]["cosmic"] = "three"
    elif change == "era too big":
        mapping["era"]["modern"] = 9
    elif change == "unknown era":
        mapping["era"]["stone"] = 0
    elif change == "gap":
        mapping["rating"][2]["from"] = 5
    elif change == "open band not last":
        del mapping["situational"][1]["to"]
    elif change == "last band closed":
        mapping["rating"][-1]["to"] = 99
    elif change == "unknown section":
        mapping["eras"] = {}
    elif change == "empty bands":
        mapping["situational"] = []
    elif change == "backwards band":
        mapping["rating"][1]["to"] = 0
    return mapping


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ("era value", "era.cosmic: expected a whole number from 0 to 5 \\(got 'three'\\)"),
        ("era too big", "era.modern: expected a whole number from 0 to 5 \\(got 9\\)"),
        ("unknown era", "era.stone: unknown key"),
        ("gap", "rating\\[2\\].from: expected a whole number from 4 to 4 \\(got 5\\)"),
        ("open band not last", "situational\\[1\\].to: missing"),
        ("last band closed", "rating\\[4\\].to: the last band must be open-ended"),
        ("unknown section", "eras: unknown key"),
        ("empty bands", "situational: expected a non-empty list of bands"),
        ("backwards band", "rating\\[1\\].to: expected a whole number from 1"),
    ],
)
def test_bad_conversion_names_the_key(change: str, key: str) -> None:
    with pytest.raises(ValueError, match=key):
        parse_conversion(_broken_conversion(change))
