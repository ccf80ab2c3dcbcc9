"""Dice Maiden's game modes: each a word read as the notation it stands for (docs/players/dice.md,
"Game modes").

`4cod` is `4d10 t8 ie10`, `sr6` is `6d6 t5`…: each mode is spelled out before the dice are read,
so it rolls, shows and counts as the notation does, and the breakdown shows what was rolled.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rules.errors import RulesError

# Earthdawn's step table (1 to 50), as Dice Maiden rolls it: `ed9` is `1d8ie+1d6ie`.
_EARTHDAWN = (
    "1d4ie-2",
    "1d4ie-1",
    "1d4ie",
    "1d6ie",
    "1d8ie",
    "1d10ie",
    "1d12ie",
    "2d6ie",
    "1d8ie+1d6ie",
    "2d8ie",
    "1d10ie+1d8ie",
    "2d10ie",
    "1d12ie+1d10ie",
    "2d12ie",
    "1d12ie+2d6ie",
    "1d12ie+1d8ie+1d6ie",
    "1d12ie+2d8ie",
    "1d12ie+1d10ie+1d8ie",
    "1d20ie+2d6ie",
    "1d20ie+1d8ie+1d6ie",
    "1d20ie+1d10ie+1d6ie",
    "1d20ie+1d10ie+1d8ie",
    "1d20ie+2d10ie",
    "1d20ie+1d12ie+1d10ie",
    "1d20ie+1d12ie+1d8ie+1d4ie",
    "1d20ie+1d12ie+1d8ie+1d6ie",
    "1d20ie+1d12ie+2d8ie",
    "1d20ie+2d10ie+1d8ie",
    "1d20ie+1d12ie+1d10ie+1d8ie",
    "1d20ie+1d12ie+1d10ie+1d8ie",
    "1d20ie+1d10ie+2d8ie+1d6ie",
    "1d20ie+2d10ie+1d8ie+1d6ie",
    "1d20ie+2d10ie+2d8ie",
    "1d20ie+3d10ie+1d8ie",
    "1d20ie+1d12ie+2d10ie+1d8ie",
    "2d20ie+1d10ie+1d8ie+1d4ie",
    "2d20ie+1d10ie+1d8ie+1d6ie",
    "2d20ie+1d10ie+2d8ie",
    "2d20ie+2d10ie+1d8ie",
    "2d20ie+1d12ie+1d10ie+1d8ie",
    "2d20ie+1d10ie+1d8ie+2d6ie",
    "2d20ie+1d10ie+2d8ie+1d6ie",
    "2d20ie+2d10ie+1d8ie+1d6ie",
    "2d20ie+2d10ie+2d8ie",
    "2d20ie+3d10ie+1d8ie",
    "2d20ie+1d12ie+2d10ie+1d8ie",
    "2d20ie+2d10ie+2d8ie+1d4ie",
    "2d20ie+2d10ie+2d8ie+1d6ie",
    "2d20ie+2d10ie+3d8ie",
    "2d20ie+3d10ie+2d8ie",
)


# Earthdawn 4th edition's steps (1 to 40), as Dice Maiden's table means them (every die explodes;
# its typed table misplaces some `ie`s, as `1d12 + ie 2d6 ie`).
_EARTHDAWN_4 = (
    *_EARTHDAWN[:19],
    "1d20ie+1d8ie+1d6ie",
    "1d20ie+2d8ie",
    "1d20ie+1d10ie+1d8ie",
    "1d20ie+2d10ie",
    "1d20ie+1d12ie+1d10ie",
    "1d20ie+2d12ie",
    "1d20ie+1d12ie+2d6ie",
    "1d20ie+1d12ie+1d8ie+1d6ie",
    "1d20ie+1d12ie+2d8ie",
    "1d20ie+1d12ie+1d10ie+1d8ie",
    "2d20ie+2d6ie",
    "2d20ie+1d8ie+1d6ie",
    "2d20ie+2d8ie",
    "2d20ie+1d10ie+1d8ie",
    "2d20ie+2d10ie",
    "2d20ie+1d12ie+1d10ie",
    "2d20ie+2d12ie",
    "2d20ie+1d12ie+2d6ie",
    "2d20ie+1d12ie+1d8ie+1d6ie",
    "2d20ie+1d12ie+2d8ie",
    "2d20ie+1d12ie+1d10ie+1d8ie",
)


def _step(table: tuple[str, ...], name: str) -> Callable[[re.Match[str]], str]:
    def spelled(match: re.Match[str]) -> str:
        step = int(match["n"])
        if not 1 <= step <= len(table):
            last = len(table)
            raise RulesError(f"Earthdawn steps go from `{name}1` to `{name}{last}` (got {step}).")
        return table[step - 1]

    return spelled


def _wrath(match: re.Match[str]) -> str:
    """Wrath & Glory: a 4 or 5 is an icon, a 6 an exalted icon worth two; `dn2` tests for 2."""
    pool = f"{match['n']}d6 t4t6"
    return pool if match["dn"] is None else f"{pool}>={match['dn']}"


# Each mode: its pattern (a whole word, at the start of a roll) and what it is read as.
_MODES: tuple[tuple[str, Callable[[re.Match[str]], str]], ...] = (
    # Chronicles of Darkness: successes on 8+, 10s explode again (`cod8`: 8-again, `cod9`:
    # 9-again); rote quality (`codr`) rerolls each failure (7 or less) once.
    (r"(?P<n>\d+)cod", lambda m: f"{m['n']}d10 t8 ie10"),
    (r"(?P<n>\d+)cod(?P<again>[89])", lambda m: f"{m['n']}d10 t8 ie{m['again']}"),
    (r"(?P<n>\d+)codr", lambda m: f"{m['n']}d10 r7 t8"),
    # World of Darkness: successes on the difficulty or more, each 1 takes one away.
    (r"(?P<n>\d+)wod(?P<t>\d+)", lambda m: f"{m['n']}d10 t{m['t']} f1"),
    # Warhammer 40k / Age of Sigmar: d6 successes on the target or more.
    (r"(?P<n>\d+)wh(?P<t>\d+)\+", lambda m: f"{m['n']}d6 t{m['t']}"),
    # Double digit (d66 style): the first die is the tens, the second the units.
    (r"dd(?P<a>[1-9])(?P<b>[1-9])", lambda m: f"(1d{m['a']}*10)+1d{m['b']}"),
    # AGE system: 2d6 plus the dragon (stunt) die.
    (r"age", lambda m: "2d6+1d6"),
    # Sunsails: New Millennium: d6 successes on 4+, 6s explode again.
    (r"snm(?P<n>\d+)", lambda m: f"{m['n']}d6 ie6 t4"),
    # The D6 System: the pool plus a wild die that explodes again.
    (r"d6s(?P<n>\d+)", lambda m: f"{m['n']}d6+1d6 ie"),
    (r"d6s", lambda m: "1d6 ie"),
    # Shadowrun: d6 hits on 5+.
    (r"sr(?P<n>\d+)", lambda m: f"{m['n']}d6 t5"),
    # Storypath: d10 successes on 8+, 10s explode again.
    (r"sp(?P<n>\d+)", lambda m: f"{m['n']}d10 t8 ie10"),
    # Year Zero: d6 successes on 6.
    (r"(?P<n>\d+)yz", lambda m: f"{m['n']}d6 t6"),
    # D&D quick rolls at the start of a roll: `attack +5` is `1d20 +5` (a word after the dice is
    # a label: `1d20+5 attack`).
    (r"(?:attack|skill|save)", lambda m: "1d20"),
    # Earthdawn steps, and Earthdawn 4th edition's.
    (r"ed4e(?P<n>\d+)", _step(_EARTHDAWN_4, "ed4e")),
    (r"ed(?P<n>\d+)", _step(_EARTHDAWN, "ed")),
    # Exalted: d10 successes on 7+ (`ex5t8`: on 8+), each 10 counting twice (a second `t`).
    (r"ex(?P<n>\d+)(?:t(?P<t>\d+))?", lambda m: f"{m['n']}d10 t{m['t'] or 7}t10"),
    # Wrath & Glory: icons on 4+, a 6 counting twice (the wrath die is one of the pool).
    (r"wng\s+(?:dn(?P<dn>\d+)\s+)?(?P<n>\d*)d6", _wrath),
    # Dark Heresy 2nd edition: the dice as they are (a 10 shows Righteous Fury in the dice).
    (r"dh(?=\s+\d*d)", lambda m: ""),
    # Hero System normal damage: the STUN total of Nd6 (BODY: see "Game modes").
    (r"(?P<n>\d+)hsn", lambda m: f"{m['n']}d6"),
    # Dice Maiden's percentile advantage (roll-under: the lower tens die) and disadvantage.
    (r"\+d%", lambda m: "((2d10kl1-1)*10)+1d10"),
    (r"-d%", lambda m: "((2d10kh1-1)*10)+1d10"),
)
_COMPILED = tuple(
    (re.compile(rf"(?P<sets>\d{{1,2}}\s+)?{pattern}(?=$|[\s+\-*/)])", re.IGNORECASE), spelled)
    for pattern, spelled in _MODES
)


def spell_mode(body: str) -> str:
    """``body`` with a game mode at its start (after any sets) spelled as notation."""
    for pattern, spelled in _COMPILED:
        found = pattern.match(body)
        if found is not None:
            return ((found["sets"] or "") + spelled(found) + body[found.end() :]).strip()
    return body
