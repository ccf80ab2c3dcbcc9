"""Pressure and Crisis rules (docs/players/sinew.md, "Pressure and Crisis")."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pytest

from bot.data_tables import DATA_DIRECTORY, load_table
from rules import RulesError, sinew
from rules.randomness import Rng
from rules.sinew import Score, Skin
from rules.sinew_pressure import (
    CrisisRoll,
    PressureChange,
    add_pressure,
    crisis_stamina_loss,
    parse_pressure_table,
    parse_skin,
    remove_pressure,
    require_pressure_to_purge,
    roll_crisis,
    sacrifice,
    start_rite,
)
from tests.expect import as_rng


class ScriptedDice:
    """A stand-in generator that rolls the faces it is given, in order (and counts them)."""

    def __init__(self, faces: Iterable[int]) -> None:
        self.faces = list(faces)
        self.rolled = 0

    def integers(self, low: int, high: int, size: int | None = None) -> np.ndarray:
        count = 1 if size is None else size
        taken, self.faces = self.faces[:count], self.faces[count:]
        assert len(taken) == count, "the test scripted too few faces"
        assert all(low <= face < high for face in taken)
        self.rolled += count
        return np.array(taken)


def dice(*faces: int) -> Rng:
    return as_rng(ScriptedDice(faces))


# --- the track


def test_ruling_sinew_pressure_adds_up_to_four_without_a_crisis() -> None:
    rng = dice()  # no die may be rolled below 5
    assert add_pressure(rng, 0, 1, lingering_taint=False) == PressureChange(0, 1, 1)
    assert add_pressure(rng, 1, 3, lingering_taint=False) == PressureChange(1, 4, 4)


def test_ruling_sinew_reaching_five_fires_a_crisis_and_resets_to_zero() -> None:
    change = add_pressure(dice(3), 4, 1, lingering_taint=False)
    assert (change.before, change.reached, change.after) == (4, 5, 0)
    assert change.crisis == CrisisRoll((3,), (3,)) and change.delta == -4


def test_ruling_sinew_lingering_taint_resets_to_one() -> None:
    change = add_pressure(dice(1), 4, 1, lingering_taint=True)
    assert change.crisis is not None
    assert (change.reached, change.after, change.crisis.events) == (5, 1, (1,))


def test_ruling_sinew_crossing_five_by_several_fires_exactly_one_crisis() -> None:
    rng = ScriptedDice([4, 2])
    change = add_pressure(as_rng(rng), 3, 5, lingering_taint=False)  # 3 + 5 would be 8
    assert change.crisis is not None
    assert (change.reached, change.after, change.crisis.events) == (5, 0, (4,))
    assert rng.rolled == 1  # one Crisis die, the second face unused


def test_ruling_sinew_removing_pressure_stops_at_zero() -> None:
    assert remove_pressure(3, 1) == PressureChange(3, 2, 2)
    assert remove_pressure(2, 5) == PressureChange(2, 0, 0)


def test_pressure_amounts_and_steps_are_checked() -> None:
    with pytest.raises(RulesError, match=r"Amount must be between 1 and 5 \(got 0\)"):
        add_pressure(dice(), 0, 0, lingering_taint=False)
    with pytest.raises(RulesError, match=r"Amount must be between 1 and 5 \(got 6\)"):
        remove_pressure(3, 6)
    with pytest.raises(RulesError, match="Pressure must be between 0 and 5"):
        add_pressure(dice(), 6, 1, lingering_taint=False)


# --- the Crisis table


def test_ruling_sinew_crisis_six_rolls_twice_more() -> None:
    crisis = roll_crisis(dice(6, 2, 5))
    assert crisis == CrisisRoll((6, 2, 5), (2, 5)) and crisis.rolled_twice


def test_ruling_sinew_crisis_rerolls_further_sixes() -> None:
    crisis = roll_crisis(dice(6, 6, 6, 1, 6, 3))
    assert crisis.faces == (6, 6, 6, 1, 6, 3) and crisis.events == (1, 3)


def test_ruling_sinew_crisis_events_may_repeat_and_stack() -> None:
    crisis = roll_crisis(dice(6, 2, 2))
    assert crisis.events == (2, 2) and crisis_stamina_loss(crisis) == 2


def test_ruling_sinew_crisis_two_takes_one_stamina() -> None:
    assert [crisis_stamina_loss(CrisisRoll((face,), (face,))) for face in range(1, 6)] == [
        0, 1, 0, 0, 0,
    ]  # fmt: skip


def test_crisis_table_over_every_first_face_and_pair() -> None:
    """Every path through the table: faces 1-5 are one event; a 6 and then any two non-6s."""
    for face in range(1, 6):
        assert roll_crisis(dice(face)).events == (face,)
    for first in range(1, 6):
        for second in range(1, 6):
            crisis = roll_crisis(dice(6, first, second))
            assert crisis.events == (first, second) and len(crisis.faces) == 3


def test_crisis_roll_rejects_impossible_faces() -> None:
    with pytest.raises(ValueError, match="Crisis events"):
        CrisisRoll((6,), (6,))
    with pytest.raises(ValueError, match="Crisis faces"):
        CrisisRoll((7,), (1,))


# --- purging


def test_ruling_sinew_sacrifice_lowers_an_attribute_within_the_rails() -> None:
    # STR 12, REF 11, INT 7, EMP 7, LCK 10, STA 5 (balanced).
    sheet = sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)
    assert sacrifice(sheet, Score.STR).strength == 11
    poorer = sacrifice(sheet, Score.LCK)
    assert (poorer.luck, poorer.luck_tokens) == (9, 9)  # the token over the new cap is lost
    worn = sacrifice(sacrifice(sheet, Score.INT), Score.STA)
    assert (worn.intellect, worn.stamina, worn.current_stamina) == (6, 4, 4)
    with pytest.raises(RulesError, match="INT is 6, its lowest"):
        sacrifice(worn, Score.INT)


def test_ruling_sinew_rite_once_per_downtime_renewed_by_thorough_rest() -> None:
    sheet = sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)
    used = start_rite(sheet)
    assert used.rite_used
    with pytest.raises(RulesError, match="already tried this downtime"):
        start_rite(used)
    assert sinew.rest(used, sinew.Rest.SHORT).sheet.rite_used
    assert sinew.rest(used, sinew.Rest.CALM).sheet.rite_used
    assert not sinew.rest(used, sinew.Rest.THOROUGH).sheet.rite_used


def test_purging_needs_pressure() -> None:
    require_pressure_to_purge(1)
    with pytest.raises(RulesError, match="already 0"):
        require_pressure_to_purge(0)


# --- the texts in data/


def test_every_skin_has_a_data_file_and_every_file_a_skin() -> None:
    files = {path.stem for path in (DATA_DIRECTORY / "sinew" / "skins").glob("*.toml")}
    assert files == {skin.value for skin in Skin}
    for skin in Skin:
        texts = load_table(f"sinew/skins/{skin.value}.toml", parse_skin)
        assert texts.name == skin.value


def test_ruling_sinew_step_texts_in_both_skins() -> None:
    fantasy = load_table("sinew/skins/fantasy.toml", parse_skin)
    scifi = load_table("sinew/skins/scifi.toml", parse_skin)
    assert [fantasy.colour(step) for step in range(6)] == [
        "Spirit calm", "Uneasy whisper", "Bad omens", "Eldritch tremor", "Veil thins",
        "Backlash, possession, curse",
    ]  # fmt: skip
    assert [scifi.colour(step) for step in range(6)] == [
        "Timeline stable", "Data-glitch", "Quantum flutter", "System alarms", "Causality shear",
        "Temporal implosion, AI seizure",
    ]  # fmt: skip
    assert fantasy.crisis(2) == "Withering" and scifi.crisis(2) == "Tech burnout"
    table = load_table("sinew/pressure.toml", parse_pressure_table)
    assert table.state(4).startswith("power or pool use costs +1")
    assert table.effect(2) == "loses 1 Stamina and a key item melts"


def test_bad_skin_files_are_refused_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="colours: expected a list of 6 texts"):
        parse_skin({"name": "x", "colours": ["a"], "crises": ["a"] * 5})
    with pytest.raises(ValueError, match=r"crises\[1\]: expected a non-empty text"):
        parse_skin({"name": "x", "colours": ["a"] * 6, "crises": ["a", " ", "c", "d", "e"]})
    with pytest.raises(ValueError, match="mood: unknown key"):
        parse_pressure_table({"states": ["a"] * 6, "effects": ["a"] * 6, "mood": 1})


def test_luck_surcharge_at_step_four_is_the_step_texts_promise() -> None:
    assert sinew.luck_cost(1, 3) == 1 and sinew.luck_cost(1, 4) == 2 and sinew.luck_cost(3, 5) == 4
