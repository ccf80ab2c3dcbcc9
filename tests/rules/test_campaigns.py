"""`/campaign settings`: what a change asks for, and the switches it leaves (pure)."""

from __future__ import annotations

import pytest

from rules import RulesError
from rules.campaigns import GmRolls, SettingsChange, Skin, TableSwitches

STORED = TableSwitches(
    gm_channel_id=42, secret_notice=True, announce_naturals=False, gm_rolls_hidden=True
)


def test_settings_change_leaves_what_it_does_not_name() -> None:
    change = SettingsChange.asked(secret_notice=False)
    assert change.apply(STORED) == TableSwitches(
        gm_channel_id=42, secret_notice=False, announce_naturals=False, gm_rolls_hidden=True
    )


def test_settings_change_sets_every_switch_it_names() -> None:
    change = SettingsChange.asked(
        gm_channel_id=7, secret_notice=False, announcements=True, gm_rolls="public"
    )
    assert change.gm_rolls is GmRolls.PUBLIC
    assert change.apply(STORED) == TableSwitches(
        gm_channel_id=7, secret_notice=False, announce_naturals=True, gm_rolls_hidden=False
    )
    assert SettingsChange.asked(gm_rolls="hidden").apply(TableSwitches()).gm_rolls_hidden


def test_settings_change_gm_channel_off_clears_the_channel() -> None:
    assert SettingsChange.asked(gm_channel_off=True).apply(STORED).gm_channel_id is None


def test_settings_change_skin_alone_keeps_the_switches() -> None:
    change = SettingsChange.asked(skin="scifi")
    assert change.skin is Skin.SCIFI
    assert change.apply(STORED) == STORED


def test_settings_change_refuses_a_channel_and_no_channel_at_once() -> None:
    with pytest.raises(RulesError, match="Give `gm_channel` or `gm_channel_off`, not both"):
        SettingsChange.asked(gm_channel_id=7, gm_channel_off=True)


def test_settings_change_refuses_nothing_to_change() -> None:
    with pytest.raises(RulesError, match="Say what to change"):
        SettingsChange.asked()


def test_settings_change_refuses_an_unknown_choice() -> None:
    with pytest.raises(RulesError, match="Unknown gm_rolls `secret`"):
        SettingsChange.asked(gm_rolls="secret")
