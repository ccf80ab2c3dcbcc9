"""Six-pool d20 (`004_…`): the campaign setting its rules need from the start.

The system's rules (pools, Effort, checks, contests) arrive with their own issue; `/campaign
start` already offers its Edge option, declared here.
"""

from __future__ import annotations

from enum import StrEnum

from rules.declarations import Setting, SystemDeclaration

__all__ = ["DECLARATION", "EDGE_OPTION", "EdgeOption"]


class EdgeOption(StrEnum):
    """Six-pool d20 Edge rule: A = free +Edge on every roll; B = first Edge+1 points give +2."""

    A = "A"
    B = "B"


EDGE_OPTION: Setting[EdgeOption] = Setting(
    name="edge_option",
    label="Edge option",
    help="Six-pool d20 only: Edge rule A (free +Edge) or B (cheap first points)",
    kind=EdgeOption,
    default=EdgeOption.A,
)

DECLARATION = SystemDeclaration(settings=(EDGE_OPTION,))
