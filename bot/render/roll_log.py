"""A logged roll in one line: who, what, its total and its verdict (docs/gms.md, "The roll log").

Each roll is read through its kind (``rules.roll_kinds``): the rules result the roll log keeps in
the payload, rebuilt with the rules' own classes, so the total and verdict are the ones the reply
showed. A kind no installed system declares, or a payload its kind can't read, shows only what
was rolled.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.render.reply import Verdict
from bot.storage import LoggedRoll, Visibility
from rules.roll_kinds import EMBED, RESULT, WHAT, read_result

__all__ = [
    "Outcome",
    "RollSummary",
    "log_line",
    "plain_text",
    "summarise",
    "what_was_rolled",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """One total of a roll, with its own verdict when it has one (a roll of several sets)."""

    total: int
    verdict: Verdict | None = None


@dataclass(frozen=True, slots=True)
class RollSummary:
    """A roll's totals (one; both sides of a contest; or each set), and its verdict: a
    contest's or an attack's is the roller's side."""

    outcomes: tuple[Outcome, ...]
    verdict: Verdict | None = None
    versus: bool = False  # a contest: the roller's total vs the other side's
    note: str | None = None  # what follows the total, e.g. "3 damage"

    @property
    def joiner(self) -> str:
        return " vs " if self.versus else ", "

    def shown(self, most: int | None = None) -> str:
        """The totals in bold, each with its verdict, then the note and the roll's verdict
        (``most``: the first totals only, then how many more: a roll of 80 sets stays short)."""
        outcomes = self.outcomes if most is None else self.outcomes[:most]
        totals = self.joiner.join(
            f"**{outcome.total}**" + (f" {outcome.verdict.value}" if outcome.verdict else "")
            for outcome in outcomes
        )
        if len(outcomes) < len(self.outcomes):
            totals += f"{self.joiner}…and {len(self.outcomes) - len(outcomes)} more"
        return totals + self._note + (f" {self.verdict.value}" if self.verdict else "")

    def plain_total(self) -> str:
        """The totals as plain text (an export's total column)."""
        totals = self.joiner.join(
            str(outcome.total) + (f" ({outcome.verdict.word.lower()})" if outcome.verdict else "")
            for outcome in self.outcomes
        )
        return totals + self._note

    @property
    def _note(self) -> str:
        return f" ({self.note})" if self.note else ""


def _verdict(success: bool | None, critical: bool, fumble: bool) -> Verdict | None:
    if success is None and not critical and not fumble:
        return None  # no target, nothing natural: no verdict
    return Verdict.of(bool(success), critical=critical, fumble=fumble)


def summarise(roll: LoggedRoll) -> RollSummary | None:
    """A logged roll's totals and verdict, read through its kind (``rules.roll_kinds``); None for
    a kind without them (or a payload that can't be read: the line still shows what was rolled)."""
    reading = read_result(roll.kind, roll.payload.get(RESULT))
    if reading is None:
        return None
    outcomes = tuple(Outcome(total.value, _verdict(total.success, total.critical, total.fumble))
                     for total in reading.totals)  # fmt: skip
    verdict = _verdict(reading.success, reading.critical, reading.fumble)
    return RollSummary(outcomes, verdict, versus=reading.contest, note=reading.note)


# What was rolled, in a line: 25 lines of the log fit in one embed with their totals (a page
# whose lines don't fit cuts what was rolled shorter: ``WHAT_SHORTER``).
WHAT_MAX = 90
WHAT_SHORTER = (60, 40, 20)
TOTALS_MAX = 4  # a roll of many sets (up to 80) shows its first totals, then how many more

# A verdict headline at the start of a title ("✅ Success · ", "💀 NATURAL 1! "): the line
# shows the verdict after the total instead.
_HEADLINE = re.compile(
    r"^(?:(?:[✅❌✨💀🌟][^·!]*|(?:(?:critical|strong|bad) )?(?:success|failure))(?: *[·!])+ *)+",
    re.IGNORECASE,
)


# A reply's title in the one layout (docs/players/index.md, "Reading a reply"): "✅ Success · Rin:
# DEX check (stealth) · total 19", the verdict's word left out when there is none. No total has a
# colon, which tells an older title ("✨ NATURAL 1: EXTRAORDINARY SUCCESS! · Brakka: STR test")
# apart.
_LAYOUT_TITLE = re.compile(r"^\S+ (?:[^·]+ · )?[^·:]+: (?P<what>.+) · [^·:]+$")


def what_was_rolled(roll: LoggedRoll) -> str:
    """What the roll was: stored as data since payload version 2 (``rules.roll_kinds.WHAT``);
    for a roll logged before, read back from its reply's title without the verdict, the roller
    (the log names them) and the total (the log shows it after the arrow). Titles of rolls
    logged before the one layout lose only a verdict headline."""
    what = roll.payload.get(WHAT)
    if isinstance(what, str) and what:
        return what
    embed = roll.payload.get(EMBED)
    title = str((embed.get("title") if isinstance(embed, Mapping) else None) or roll.kind)
    laid_out = _LAYOUT_TITLE.match(title)
    if laid_out is not None:
        return laid_out["what"]
    return _HEADLINE.sub("", title) or title


def log_line(roll: LoggedRoll, *, gm_view: bool, what_max: int = WHAT_MAX) -> str:
    """One roll of the log: ``#12`` · who · what → **total** verdict; for a GM, 🔒 marks a
    secret roll not yet revealed, with whether it was hidden or blind. What was rolled is cut
    to ``what_max`` characters, and a roll of many sets shows its first ``TOTALS_MAX`` totals."""
    summary = summarise(roll)
    what = what_was_rolled(roll)
    if len(what) > what_max:  # the total and verdict after it are never cut
        what = what[: what_max - 1].rstrip() + "…"
    line = f"`#{roll.id}` · <@{roll.user_id}> · {what}"
    if summary is not None:
        line += f" → {summary.shown(TOTALS_MAX)}"
    if roll.unrevealed:
        line += " 🔒"
        if gm_view:
            line += " hidden" if roll.visibility is Visibility.HIDDEN else " blind"
    return line


# --- Plain text (exports)

_MENTION = re.compile(r"<@!?([0-9]+)>")
_CUSTOM_EMOJI = re.compile(r"<a?:([A-Za-z0-9_]+):[0-9]+>")
_TIMESTAMP = re.compile(r"<t:(-?[0-9]+)(?::[tTdDfFR])?>")
_SHORTCODE = re.compile(r":[A-Za-z][A-Za-z0-9_+-]*:")
_FORMATTING = re.compile(r"\*\*|__|~~|\|\||[*`]")
_ESCAPED = re.compile(r"\\(.)")
_HELD = re.compile("\ue000([0-9]+)\ue001")  # an escaped character, kept aside
_EMOJI_PARTS = {
    "\N{VARIATION SELECTOR-16}",
    "\N{ZERO WIDTH JOINER}",
    "\N{COMBINING ENCLOSING KEYCAP}",
}


def _iso_time(found: re.Match[str]) -> str:
    return datetime.fromtimestamp(int(found[1]), UTC).isoformat()


def plain_text(text: str, names: Mapping[int, str]) -> str:
    """Markdown as plain text: no formatting marks, backslash escapes or emoji; mentions as
    names (``names``, else the id)."""
    held: list[str] = []

    def hold(found: re.Match[str]) -> str:
        held.append(found[1])
        return f"\ue000{len(held) - 1}\ue001"

    text = _ESCAPED.sub(hold, text)  # an escaped mark was typed: it stays, without its backslash
    text = _MENTION.sub(lambda found: names.get(int(found[1]), found[1]), text)
    text = _CUSTOM_EMOJI.sub("", _TIMESTAMP.sub(_iso_time, text))
    text = _SHORTCODE.sub("", _FORMATTING.sub("", text))
    kept = "".join(
        char for char in text if char not in _EMOJI_PARTS and unicodedata.category(char) != "So"
    )
    lines = (" ".join(line.split()) for line in kept.splitlines())
    plain = "\n".join(line for line in lines if line)
    return _HELD.sub(lambda found: held[int(found[1])], plain)
