"""Numbers as players read them: chances as percentages, modifiers with their sign."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["percent", "signed"]


def percent(chance: Fraction) -> str:
    """Show an exact chance as a percentage, keeping tiny non-zero chances visible."""
    value = float(chance) * 100
    if chance == 0:
        return "0%"
    if chance == 1:
        return "100%"
    if value < 0.01:
        return f"{value:.2g}%"
    return f"{value:.2f}%"


def signed(number: int) -> str:
    """Show a modifier with its sign and a true minus: +2, 0, −1."""
    return f"{number:+d}".replace("-", "−") if number else "0"
