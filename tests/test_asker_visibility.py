"""The asker decides a roll's visibility, once: the command's `hidden` and `blind` options, the
asker's role and the campaign's `gm_rolls` setting (docs/gms.md, "Campaigns"; "Hidden, blind
and reveal"). Each expected value is written out by hand, one row per case."""

from __future__ import annotations

import pytest

from bot.asker import HIDDEN_NO_CAMPAIGN, PLAYER_HIDDEN, Asker
from bot.errors import CommandError
from bot.storage import Campaign, Visibility
from rules import cosmos
from rules.campaigns import CampaignSettings, TableSwitches

GM, PLAYER = 7, 8
BOTH = "Choose `hidden` (a GM's own secret) or `blind` (a player's), not both."
NO_CAMPAIGN = "This channel has no running campaign"

PUBLIC, HIDDEN, BLIND = Visibility.PUBLIC, Visibility.HIDDEN, Visibility.BLIND


def asker(role: str, table: str) -> Asker:
    """``role``: gm or player; ``table``: none (no campaign), public or hidden (`gm_rolls`)."""
    campaign = None
    if table != "none":
        switches = TableSwitches(gm_rolls_hidden=table == "hidden")
        settings = CampaignSettings.create(cosmos.SYSTEM, "Table")
        campaign = Campaign(1, 1, 1, settings, GM, frozenset({GM}), switches)
    user = GM if role == "gm" else PLAYER
    is_gm = campaign is not None and user in campaign.gm_ids
    return Asker(1, 1, user, campaign, is_gm=is_gm, manages_server=False)


# (role, campaign's gm_rolls or no campaign, hidden option (None: not said), blind option,
#  the visibility decided, or the start of the refusal)
TABLE: list[tuple[str, str, bool | None, bool, Visibility | str]] = [
    # A GM, `gm_rolls:hidden`: unsaid is hidden; `hidden:false` public; blind stays blind.
    ("gm", "hidden", None, False, HIDDEN),
    ("gm", "hidden", False, False, PUBLIC),
    ("gm", "hidden", True, False, HIDDEN),
    ("gm", "hidden", None, True, BLIND),
    ("gm", "hidden", False, True, BLIND),
    ("gm", "hidden", True, True, BOTH),
    # A GM, `gm_rolls:public` (the default): only what the GM says.
    ("gm", "public", None, False, PUBLIC),
    ("gm", "public", False, False, PUBLIC),
    ("gm", "public", True, False, HIDDEN),
    ("gm", "public", None, True, BLIND),
    ("gm", "public", False, True, BLIND),
    ("gm", "public", True, True, BOTH),
    # A player, either setting: the default is the GMs' only; `hidden` is refused (to blind).
    ("player", "hidden", None, False, PUBLIC),
    ("player", "hidden", False, False, PUBLIC),
    ("player", "hidden", True, False, PLAYER_HIDDEN),
    ("player", "hidden", None, True, BLIND),
    ("player", "hidden", False, True, BLIND),
    ("player", "hidden", True, True, PLAYER_HIDDEN),
    ("player", "public", None, False, PUBLIC),
    ("player", "public", True, False, PLAYER_HIDDEN),
    ("player", "public", None, True, BLIND),
    # No campaign: no GMs, so no hidden roll and no blind one (nobody to send it to).
    ("player", "none", None, False, PUBLIC),
    ("player", "none", False, False, PUBLIC),
    ("player", "none", True, False, HIDDEN_NO_CAMPAIGN),
    ("player", "none", None, True, NO_CAMPAIGN),
    ("player", "none", True, True, HIDDEN_NO_CAMPAIGN),
]


@pytest.mark.parametrize(("role", "table", "hidden", "blind", "expected"), TABLE)
def test_the_askers_decision_table(
    role: str, table: str, hidden: bool | None, blind: bool, expected: Visibility | str
) -> None:
    """What a roll command's handler decides (``visibility``) and its roll then checks
    (``may_roll``) before anything is rolled."""
    who = asker(role, table)
    if isinstance(expected, Visibility):
        assert who.may_roll(who.visibility(hidden=hidden, blind=blind)) is expected
        return
    with pytest.raises(CommandError) as refused:
        who.may_roll(who.visibility(hidden=hidden, blind=blind))
    assert str(refused.value).startswith(expected), str(refused.value)


@pytest.mark.parametrize(
    ("role", "table", "inherited", "expected"),
    [
        ("gm", "hidden", PUBLIC, PUBLIC),  # Roll again of a public roll: no default applied
        ("gm", "public", HIDDEN, HIDDEN),
        ("player", "hidden", BLIND, BLIND),
        ("player", "hidden", HIDDEN, PLAYER_HIDDEN),  # a forged press under a GM's roll
        ("player", "none", BLIND, NO_CAMPAIGN),
        ("player", "none", PUBLIC, PUBLIC),
    ],
)
def test_an_inherited_visibility_is_checked_not_decided_again(
    role: str, table: str, inherited: Visibility, expected: Visibility | str
) -> None:
    """Roll again passes the roll's own ``Visibility``: ``may_roll`` refuses what the presser
    may not roll here, and the campaign's default never changes it."""
    who = asker(role, table)
    if isinstance(expected, Visibility):
        assert who.may_roll(inherited) is expected
        return
    with pytest.raises(CommandError) as refused:
        who.may_roll(inherited)
    assert str(refused.value).startswith(expected), str(refused.value)
