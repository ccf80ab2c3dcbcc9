"""How Sinew & Steel's rolls are named in the roll log, and the keys a Luck spend adds to a
payload: one definition for the cogs that log them, the storage that chains the spends, and the
recap and log that read them back."""

from __future__ import annotations

__all__ = [
    "ATTACK_KIND",
    "CRISIS_KIND",
    "LUCK_BY",
    "LUCK_KIND",
    "LUCK_ROOT",
    "OPPOSED_KIND",
    "RITE_KIND",
    "TAMPER_KIND",
    "TEST_KIND",
]

TEST_KIND = "sinew.test"
LUCK_KIND = "sinew.luck_test"
OPPOSED_KIND = "sinew.opposed"
ATTACK_KIND = "sinew.attack"
TAMPER_KIND = "sinew.tamper"
RITE_KIND = "sinew.rite"
CRISIS_KIND = "sinew.crisis"  # a Crisis, logged beside the roll that brought it

LUCK_ROOT = "luck_of"  # in a Luck spend's payload: the roll first spent on
LUCK_BY = "luck_by"  # in a defender's Luck spend: who spent (the entry is the roller's)
