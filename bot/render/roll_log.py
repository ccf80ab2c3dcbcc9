"""A logged roll in one line: who, what, its total and its verdict (docs/gms.md, "The roll log").

Each system's summariser reads the rules result the roll log keeps in the payload (rebuilt
with the rules' own classes, so the total and verdict are the ones the reply showed). A kind
without a summariser, or a payload one can't read, shows only what was rolled.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from bot.render.reply import Verdict
from bot.storage import LoggedRoll, Visibility
from rules import aethelgard, sinew, sixpool
from rules.errors import RulesError
from rules.expressions import Natural
from rules.expressions.request import Comparison
from rules.realms.rerolls import attack_from_dict, check_from_dict, stealth_from_dict

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


def _one(total: int, verdict: Verdict | None = None, note: str | None = None) -> RollSummary:
    return RollSummary((Outcome(total),), verdict, note=note)


def _contest(mine: int, theirs: int, won: bool, note: str | None = None) -> RollSummary:
    return RollSummary((Outcome(mine), Outcome(theirs)), Verdict.of(won), versus=True, note=note)


# --- `/roll`


def _dice(result: Mapping[str, Any]) -> RollSummary:
    if "rolls" not in result:  # one expression
        return _one(int(result["total"]), _natural(result["natural"]))
    outcomes = []
    for part, rolls in zip(result["request"]["parts"], result["rolls"], strict=True):
        compared = part.get("comparison")
        comparison = None if compared is None else Comparison(**compared)
        for roll in rolls:
            total = int(roll["total"])
            verdict = _natural(roll["natural"])
            if comparison is not None:
                verdict = Verdict.of(comparison.holds(total))
            outcomes.append(Outcome(total, verdict))
    if len(outcomes) == 1:
        return RollSummary((Outcome(outcomes[0].total),), outcomes[0].verdict)
    return RollSummary(tuple(outcomes))


def _natural(value: str) -> Verdict | None:
    natural = Natural(value)
    if natural is Natural.TWENTY:
        return Verdict.CRITICAL
    return Verdict.FUMBLE if natural is Natural.ONE else None


# --- Sinew (roll-under d20: a natural 1 is extraordinary, a natural 20 a catastrophe)


def _sinew_test(result: Mapping[str, Any]) -> RollSummary:
    test = sinew.TestResult(**result)
    verdict = Verdict.of(test.success, critical=test.natural_one, fumble=test.natural_twenty)
    return _one(test.roll, verdict)


def _sinew_opposed(result: Mapping[str, Any]) -> RollSummary:
    contest = sinew.OpposedResult.from_dict(result)
    won = contest.winner is sinew.Side.ATTACKER
    return _contest(contest.attacker.roll, contest.defender.roll, won)


def _sinew_attack(result: Mapping[str, Any]) -> RollSummary:
    attack = sinew.AttackResult.from_dict(result)
    contest = attack.contest
    note = f"{attack.damage_taken} damage"
    return _contest(contest.attacker.roll, contest.defender.roll, attack.hit, note)


# --- Six-pool d20


def _sixpool_verdict(roll: sixpool.RollResult) -> Verdict:
    degree = roll.degree
    return Verdict.of(
        degree.succeeds,
        critical=degree is sixpool.Degree.CRITICAL_SUCCESS,
        fumble=degree is sixpool.Degree.CRITICAL_FAILURE,
    )


def _sixpool_roll(result: Mapping[str, Any]) -> RollSummary:
    roll = sixpool.RollResult(**result)
    return _one(roll.total, _sixpool_verdict(roll))


def _sixpool_contest(result: Mapping[str, Any]) -> RollSummary:
    # The roller's own side first: each side of a contest between players is its own roll, under its
    # player (docs/players/sixpool.md, "Rules notes"); one logged before names none: the attacker's.
    contest = sixpool.ContestResult.from_dict(result)
    return _contest(contest.own.total, contest.other.total, contest.roller_wins)


# --- Enchanted Realms


def _realms_attack(result: Mapping[str, Any]) -> RollSummary:
    attack = attack_from_dict(result)
    hurt = any(target.riders for target in attack.targets)  # the reply's Hit / Miss
    dealt = tuple(Outcome(target.damage) for target in attack.targets)
    return RollSummary(dealt, Verdict.of(hurt), note="damage")


def _realms_check(result: Mapping[str, Any]) -> RollSummary:
    check = check_from_dict(result)
    return _one(check.result, None if check.success is None else Verdict.of(check.success))


def _realms_stealth(result: Mapping[str, Any]) -> RollSummary:
    return _one(stealth_from_dict(result).total)


# --- Aethelgard (d10 pools: the net successes)


def _pool(result: Mapping[str, Any]) -> aethelgard.PoolRoll:
    return aethelgard.PoolRoll(**result)


_DEGREES = {
    aethelgard.Degree.CRITICAL: Verdict.CRITICAL,
    aethelgard.Degree.SUCCESS: Verdict.SUCCESS,
    aethelgard.Degree.FAILURE: Verdict.FAILURE,
    aethelgard.Degree.FUMBLE: Verdict.FUMBLE,
}


def _aethelgard_pool(result: Mapping[str, Any]) -> RollSummary:
    roll = _pool(result)
    return _one(roll.net, _DEGREES[roll.degree])


def _aethelgard_opposed(result: Mapping[str, Any]) -> RollSummary:
    contest = aethelgard.OpposedRoll(_pool(result["attacker"]), _pool(result["defender"]))
    return _contest(contest.attacker.net, contest.defender.net, contest.attacker_wins)


def _aethelgard_attack(result: Mapping[str, Any]) -> RollSummary:
    damage, block = result.get("damage"), result.get("block")
    attack = aethelgard.AttackRoll(
        _pool(result["accuracy"]),
        None if damage is None else _pool(damage),
        int(result.get("soak", 0)),
        None if block is None else _pool(block),
    )
    accuracy = attack.accuracy
    verdict = Verdict.of(attack.hit, critical=attack.damage_doubled, fumble=accuracy.fumble)
    return _one(accuracy.net, verdict, note=f"{attack.damage_dealt} damage")


# --- Cosmos (the verdict is logged with the roll)


def _cosmos_verdict(roll: Mapping[str, Any], success: bool) -> Verdict:
    return Verdict.of(
        success,
        critical=bool(roll["critical_success"]),
        fumble=bool(roll["critical_failure"]),
    )


def _cosmos_roll(result: Mapping[str, Any]) -> RollSummary:
    roll = result["roll"]
    return _one(int(roll["total"]), _cosmos_verdict(roll, bool(result["success"])))


def _cosmos_opposed(result: Mapping[str, Any]) -> RollSummary:
    attacker, defender = result["attacker"], result["defender"]
    won = result["winner"] == "attacker"
    return _contest(int(attacker["total"]), int(defender["total"]), won)


Summariser = Callable[[Mapping[str, Any]], RollSummary]

# The roll log's kinds ('dice' for /roll, else '<system>.<command>'), as the cogs log them.
SUMMARISERS: dict[str, Summariser] = {
    "dice": _dice,
    "sinew.test": _sinew_test,
    "sinew.luck_test": _sinew_test,
    "sinew.tamper": _sinew_test,
    "sinew.rite": _sinew_test,
    "sinew.opposed": _sinew_opposed,
    "sinew.attack": _sinew_attack,
    "sixpool.check": _sixpool_roll,
    "sixpool.attack": _sixpool_roll,
    "sixpool.save": _sixpool_roll,
    "sixpool.take": _sixpool_roll,
    "sixpool.group": _sixpool_roll,
    "sixpool.contest": _sixpool_contest,
    "realms.attack": _realms_attack,
    "realms.check": _realms_check,
    "realms.stealth": _realms_stealth,
    "aethelgard.roll": _aethelgard_pool,
    "aethelgard.check": _aethelgard_pool,
    "aethelgard.craft": _aethelgard_pool,
    "aethelgard.opposed": _aethelgard_opposed,
    "aethelgard.attack": _aethelgard_attack,
    "cosmos.roll": _cosmos_roll,
    "cosmos.opposed": _cosmos_opposed,
}


def summarise(roll: LoggedRoll) -> RollSummary | None:
    """A logged roll's totals and verdict; None for a kind without them (or a payload that
    can't be read: the line still shows what was rolled)."""
    summariser = SUMMARISERS.get(roll.kind)
    result = roll.payload.get("result")
    if summariser is None or not isinstance(result, Mapping):
        return None
    try:
        return summariser(result)
    except (KeyError, TypeError, ValueError, AttributeError, RulesError):
        return None


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
    """What the roll was, from its reply's title: without the verdict, the roller (the log
    names them) and the total (the log shows it after the arrow). Titles of rolls logged
    before the one layout lose only a verdict headline."""
    title = str(roll.payload.get("embed", {}).get("title") or roll.kind)
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
