""" "Did you mean …": where `/roll` reads a peer's form differently on purpose, the form that gives
the peer's reading (docs/players/dice.md, "Read differently on purpose").

`/roll` reads `4d6k3` as Dice Maiden does (the highest 3), `e` as exploding once and `d%` as a
d100; avrae/d20 reads them as the 3s, exploding again and again and a tens die. A roll spelled
so is rolled our way, and its reply names d20's reading in our notation, in one short line.
The text given is notation already read (labels and game modes taken off), so each letter below
is the modifier it looks like.
"""

from __future__ import annotations

import re

# A bare keep or drop with a count (`k3`, `p1`; not `kh3`, `k>3`): d20 reads the number as a face.
_BARE_SELECTOR = re.compile(r"(?<![a-z])(?P<letter>[kp])(?P<count>\d+)", re.IGNORECASE)
# `e` that isn't `ie`: it explodes once; d20's explodes again and again.
_ONCE = re.compile(r"(?<![i])e", re.IGNORECASE)
# `d%` (`2d%`): a d100 each; d20's is a tens die, 0 to 90.
_PERCENT = re.compile(r"(?P<count>\d*)d%", re.IGNORECASE)

NOTE_MAX = 150  # characters of the line (an expression is at most 200: longer ones are cut)


def _tens(match: re.Match[str]) -> str:
    count = int(match["count"] or 1)
    return f"(({count}d10-{count})*10)"


def d20_hint(dice: str) -> str | None:
    """The line naming d20's reading of ``dice``, or None when d20 reads it as we do."""
    meant, why = dice, []
    if (found := _BARE_SELECTOR.search(meant)) is not None:
        verb = "keeps the highest" if found["letter"].lower() == "k" else "drops the lowest"
        why.append(f"`{found[0]}` {verb} {found['count']}, d20's the {found['count']}s")
        meant = _BARE_SELECTOR.sub(r"\g<letter>=\g<count>", meant)
    if _ONCE.search(meant):
        why.append("`e` explodes once, d20's again and again")
        meant = _ONCE.sub("ie", meant)
    if _PERCENT.search(meant):
        why.append("`d%` is a d100, d20's a tens die")
        meant = _PERCENT.sub(_tens, meant)
    if not why:
        return None
    line = f"As avrae/d20 reads it, did you mean `{meant}`? ({'; '.join(why)})"
    return line if len(line) <= NOTE_MAX else f"d20's reading: did you mean `{meant}`?"
