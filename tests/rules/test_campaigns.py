"""`/campaign settings`: what a change asks for, and the switches it leaves (pure)."""

from __future__ import annotations

import pytest

from rules import RulesError, aethelgard, cosmos, realms, sinew, sixpool
from rules.campaigns import CampaignSettings, GmRolls, SettingsChange, TableSwitches

STORED = TableSwitches(gm_channel_id=42, secret_notice=True, gm_rolls_hidden=True)


def asked(**options: object) -> SettingsChange:
    """What `/campaign settings` asks of an Enchanted Realms campaign (no settings it changes)."""
    return SettingsChange.asked(system=realms.SYSTEM, **options)  # type: ignore[arg-type]


def test_settings_change_leaves_what_it_does_not_name() -> None:
    change = asked(secret_notice=False)
    assert change.apply(STORED) == TableSwitches(
        gm_channel_id=42, secret_notice=False, gm_rolls_hidden=True
    )


def test_settings_change_sets_every_switch_it_names() -> None:
    change = asked(gm_channel_id=7, secret_notice=False, gm_rolls="public")
    assert change.gm_rolls is GmRolls.PUBLIC
    assert change.apply(STORED) == TableSwitches(
        gm_channel_id=7, secret_notice=False, gm_rolls_hidden=False
    )
    assert asked(gm_rolls="hidden").apply(TableSwitches()).gm_rolls_hidden


def test_settings_change_gm_channel_off_clears_the_channel() -> None:
    assert asked(gm_channel_off=True).apply(STORED).gm_channel_id is None


def test_settings_change_skin_alone_keeps_the_switches() -> None:
    change = SettingsChange.asked(system=sinew.SYSTEM, chosen={"skin": "scifi", "other": None})
    assert change.options == {"skin": "scifi"}
    assert change.apply(STORED) == STORED
    started = CampaignSettings.create(sinew.SYSTEM, "Grit", chosen={"lingering_taint": True})
    changed = change.settle(started)
    assert changed.get(sinew.SKIN) is sinew.Skin.SCIFI
    assert changed.get(sinew.LINGERING_TAINT) is True  # what it doesn't name stays


def test_settings_change_refuses_a_setting_of_another_system() -> None:
    with pytest.raises(RulesError, match="`skin` is a Sinew & Steel setting; an Enchanted Realms"):
        asked(secret_notice=True, chosen={"skin": "scifi"})


def test_settings_change_refuses_a_setting_chosen_only_at_start() -> None:
    with pytest.raises(RulesError, match="`lingering_taint` is chosen when the campaign starts"):
        SettingsChange.asked(system=sinew.SYSTEM, chosen={"lingering_taint": True})


def test_settings_change_refuses_an_unknown_skin() -> None:
    with pytest.raises(RulesError, match="`skin` for a Sinew & Steel campaign must be fantasy"):
        SettingsChange.asked(system=sinew.SYSTEM, chosen={"skin": "steampunk"})


def test_settings_change_refuses_a_channel_and_no_channel_at_once() -> None:
    with pytest.raises(RulesError, match="Give `gm_channel` or `gm_channel_off`, not both"):
        asked(gm_channel_id=7, gm_channel_off=True)


def test_settings_change_refuses_nothing_to_change() -> None:
    with pytest.raises(RulesError, match="Say what to change") as refused:
        asked()
    assert "`gm_rolls`, `skin`." in str(refused.value)  # and each system's changeable settings


def test_settings_change_refuses_an_unknown_choice() -> None:
    with pytest.raises(RulesError, match="Unknown gm_rolls `secret`"):
        asked(gm_rolls="secret")


def test_switches_saved_with_the_old_announcements_switch_still_read() -> None:
    # Campaigns saved while crits could be announced apart hold "announce_naturals": dropped.
    old = {"gm_channel_id": None, "secret_notice": True, "announce_naturals": False}
    assert TableSwitches.from_json(old) == TableSwitches(secret_notice=True)
    assert "announce_naturals" not in TableSwitches.from_json(old).to_json()


def test_a_system_is_named_with_its_article_mid_sentence() -> None:
    # "an" before a vowel sound, as a player writes it (the issue saw "A Aethelgard campaign").
    named = {s.value: s.with_article for s in (realms.SYSTEM, sinew.SYSTEM, aethelgard.SYSTEM)}
    assert named == {
        "realms": "an Enchanted Realms",
        "sinew": "a Sinew & Steel",
        "aethelgard": "an Aethelgard",
    }
    assert sixpool.SYSTEM.with_article == "a six-pool d20"
    assert cosmos.SYSTEM.with_article == "a Cosmos Engine"
