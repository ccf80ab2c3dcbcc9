"""The one layout of a roll's reply, for every system (docs/players/index.md, "Reading a reply").

A reply has four parts, always in the same place:

1. the **title**: the verdict's emoji and word, who rolled, what they rolled, and the total
   ("✅ Success · Alice: Athletics vs TN 14 · total 17");
2. the **dice** (the description's first line, after 🎲): every die with the arithmetic
   ("**10** + **7** (kept; dropped ~~4~~) + 3 + 2"), past ``DICE_SHOWN`` dice cut with
   "… and 960 more"; under it a note only when it says what the title doesn't;
3. the **fields**: only the state the roll changed (a pool left, Luck left, Pressure, Stamina,
   a challenge's progress), never the title's verdict or total again;
4. the **footer**: the roll's id, set when it is published (``bot.publish.set_roll_footer``).

Every system's roll render builds a ``RollReply`` and turns it into its embed with ``embed``;
what a roll changes later (a Luck spend, damage taken, a challenge's progress) is added as more
fields, so it still comes before the footer. An ordinary roll of each system stays within
``ORDINARY_CHARACTERS`` and ``ORDINARY_LINES`` (docs/players/index.md, "Reading a reply").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import discord

from bot.render.style import (
    EMBED_DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    TITLE_LIMIT,
    Colour,
    shown,
    truncate,
)

__all__ = [
    "DICE_PER_LINE_MIN",
    "DICE_SHOWN",
    "ORDINARY_CHARACTERS",
    "ORDINARY_LINES",
    "Part",
    "RollEmbed",
    "RollReply",
    "Verdict",
    "add_part",
    "cut_dice",
    "kept_among",
    "was_cut",
    "what_of",
]

DICE_SHOWN = 40
"""The most dice a reply's dice line shows; the rest are counted ("… and 960 more"), the total
exact in the title and every die in the roll log's export (docs/players/dice.md, "Limits")."""
DICE_PER_LINE_MIN = 5  # a roll of several sets shares DICE_SHOWN among its lines, 5 each at least
ORDINARY_CHARACTERS = 320
ORDINARY_LINES = 7
"""An ordinary roll's reply, title to footer, reads at a glance on a phone (docs/players/index.md,
"Reading a reply")."""

# A dice term's faces as the rules write them: "4d6kh3 (~~3~~, **4**, **5**, **6**)", with a
# count after a colon ("6d10t7 (7, 3, 9: 2 successes)").
_TERM = re.compile(r"(?P<spelled>\b\d*d[^\s()]*) \((?P<faces>[^():]*)(?P<summary>: [^()]*)?\)")


def cut_dice(text: str, shown: int = DICE_SHOWN) -> str:
    """Show the first ``shown`` dice of a line of dice terms and count the rest, term by term:
    "1000d6 (3, 4, …, 2, … and 960 more)"; every term, operator and count stays."""
    left = shown

    def cut(match: re.Match[str]) -> str:
        nonlocal left
        faces = match["faces"].split(", ")
        if len(faces) <= left:
            left -= len(faces)
            return match[0]
        kept, left = faces[:left], 0
        more = f"… and {len(faces) - len(kept)} more"
        return f"{match['spelled']} ({', '.join([*kept, more])}{match['summary'] or ''})"

    return _TERM.sub(cut, text)


def kept_among(dice: Sequence[int], kept: int | None) -> str:
    """Dice in roll order, the one at index ``kept`` bold and the others struck through: the
    dice line's way of showing which die counted ("~~4~~, **17**")."""
    return ", ".join(
        f"**{face}**" if index == kept else f"~~{face}~~" for index, face in enumerate(dice)
    )


_CUT = re.compile(r"… and \d+ more\)")


def was_cut(text: str) -> bool:
    """Whether ``cut_dice`` counted some of a text's dice instead of showing them."""
    return _CUT.search(text) is not None


class Verdict(Enum):
    """How a roll went, as its title's first mark."""

    SUCCESS = "✅"
    FAILURE = "❌"
    CRITICAL = "✨"
    FUMBLE = "💀"
    NONE = "🎲"  # no target to pass or fail (a bare /roll, stealth, a spell)

    @property
    def word(self) -> str:
        """The verdict's default word, after its emoji."""
        return _WORDS[self]

    @classmethod
    def of(cls, success: bool, *, critical: bool = False, fumble: bool = False) -> Verdict:
        """A fumble or a critical success first, then success or failure (the roll log's
        summaries, from what each system logged)."""
        if fumble:
            return cls.FUMBLE
        if critical:
            return cls.CRITICAL
        return cls.SUCCESS if success else cls.FAILURE

    @property
    def colour(self) -> discord.Colour:
        """The embed's colour: a critical or fumble is unmistakable at a glance."""
        return _COLOURS[self]


_WORDS = {
    Verdict.SUCCESS: "Success",
    Verdict.FAILURE: "Failure",
    Verdict.CRITICAL: "Critical success",
    Verdict.FUMBLE: "Fumble",
    Verdict.NONE: "",
}
_COLOURS = {
    Verdict.SUCCESS: Colour.SUCCESS,
    Verdict.FAILURE: Colour.FAILURE,
    Verdict.CRITICAL: Colour.CRITICAL_SUCCESS,
    Verdict.FUMBLE: Colour.CRITICAL_FAILURE,
    Verdict.NONE: Colour.ROLL,
}


class RollEmbed(discord.Embed):
    """A roll's embed that also keeps what was rolled (``RollReply.what``), which the roll log
    stores as data beside the result (``bot.publish.Roll.entry``) rather than reading it back
    from the title. A copy (``Embed.copy``, ``from_dict``) has none: ``what_of`` gives None."""

    __slots__ = ("what",)

    what: str


def what_of(embed: discord.Embed) -> str | None:
    """What a roll's embed says was rolled, when it is a ``RollEmbed``."""
    what = getattr(embed, "what", None)
    return what if isinstance(what, str) else None


@dataclass(frozen=True, slots=True)
class Part:
    """One line of a breakdown: a name and the number(s) it names."""

    name: str
    value: str


@dataclass(frozen=True, slots=True)
class RollReply:
    """A roll's reply before it becomes an embed.

    ``who`` is the roller's name as typed (shown as plain text here); ``what``, ``total``,
    ``dice``, ``notes`` and the breakdown are markup-safe already (each render passes user
    text through ``shown``). ``word`` replaces the verdict's default word (e.g. "Hit",
    "NATURAL 20: CATASTROPHE!"); ``colour`` the verdict's colour.
    """

    who: str
    what: str
    verdict: Verdict
    total: str
    dice: str
    breakdown: Sequence[Part] = ()
    notes: Sequence[str] = ()
    word: str | None = None
    colour: discord.Colour | None = None

    @property
    def title(self) -> str:
        """The verdict, who, what and the total, in that one line."""
        title = self._title(self.what)
        if len(title) > TITLE_LIMIT and self.what and self.total:
            # A total cut short reads as another number (`/roll` of a 150-digit number:
            # docs/players/dice.md, "Limits"): what was rolled is shortened instead, the total kept
            # whole.
            keep = len(self.what) - (len(title) - TITLE_LIMIT) - 1
            if keep > 0:
                title = self._title(f"{self.what[:keep]}…")
        return truncate(title, TITLE_LIMIT)

    def _title(self, what: str) -> str:
        word = self.verdict.word if self.word is None else self.word
        head = f"{shown(self.who)}: {what}" if what else shown(self.who)
        parts = " · ".join(part for part in (word, head, self.total) if part)
        return f"{self.verdict.value} {parts}"

    def embed(self) -> discord.Embed:
        """The reply's embed: title, dice (and notes), then one field per changed state."""
        description = "\n".join([f"🎲 {self.dice}", *self.notes])
        embed = RollEmbed(
            title=self.title,
            description=truncate(description, EMBED_DESCRIPTION_LIMIT),
            colour=self.colour or self.verdict.colour,
        )
        embed.what = self.what
        for part in self.breakdown:
            add_part(embed, part)
        return embed


def add_part(embed: discord.Embed, part: Part) -> None:
    """Add one more named line to a reply's fields (before its footer): what a roll changed."""
    embed.add_field(
        name=truncate(part.name, TITLE_LIMIT), value=truncate(part.value, FIELD_LIMIT), inline=False
    )
