"""Sinew & Steel (`002_…`): the campaign setting and tracks its rules need from the start.

The system's rules (roll-under tests, Luck, Stamina, Crisis) arrive with their own issue;
`/campaign start` already offers lingering taint, and the Pressure track is declared here.
"""

from __future__ import annotations

from rules.declarations import Setting, SystemDeclaration, TrackSpec

__all__ = ["DECLARATION", "LINGERING_TAINT", "PRESSURE", "PRESSURE_MAX"]

PRESSURE_MAX = 5  # reaching it triggers a Crisis

LINGERING_TAINT: Setting[bool] = Setting(
    name="lingering_taint",
    label="Lingering taint",
    help="Sinew & Steel only: a Crisis leaves Pressure at 1 instead of 0",
    kind=bool,
    default=False,
    info=lambda on: "Lingering taint: on (a Crisis leaves Pressure at 1)" if on else None,
)

# One Pressure track on the party and one on each character.
PRESSURE = TrackSpec(
    name="pressure", minimum=0, maximum=PRESSURE_MAX, party=True, per_character=True
)

DECLARATION = SystemDeclaration(settings=(LINGERING_TAINT,), tracks=(PRESSURE,))
