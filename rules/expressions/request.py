"""Requests: what players bring from other bots, read into rolls (docs/players/dice.md, "Dice
notation").

A request is up to ``MAX_PARTS`` rolls separated by `;`; each is

    [sets] dice [comparison] [adv | dis | s ...] [label]

where the label follows `#`, ` ! `, stands in `[brackets]` at the end, or is simply the words
after the dice (Avrae's `1d20+5 attack`). Dice Maiden's `+d20` / `-d20` lead a roll with
advantage / disadvantage and `dndstats` is `6 4d6kh3`. Whatever could be read two ways is
refused, saying which reading we take ("did you mean …").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from enum import Enum

from rules.errors import RulesError
from rules.expressions.hints import d20_hint
from rules.expressions.modes import spell_mode
from rules.expressions.parser import check_dice_asked, parse_expression
from rules.expressions.rolling import DiceSource, ExpressionRoll, roll_parsed
from rules.expressions.terms import COMPARED, MAX_PARTS, MAX_SETS, Expression
from rules.randomness import Rng

COMMENT_MAX = 100  # characters of one roll's label
# A label after ` ! ` (`4d6!` explodes); as the first thing, `! text`.
_BANG = re.compile(r"\s+!(?:\s+(?P<label>.*))?$|^!\s+(?P<only>.*)$", re.DOTALL)
# "6 4d6kh3": a count, a space, then dice (so "2 + 3" stays arithmetic).
_SETS = re.compile(r"(?P<sets>\d{1,2})\s+(?P<expression>\d*d.*)", re.DOTALL | re.IGNORECASE)
# A comparison closing the dice: `1d20>=15`, `(2d6e)>4`. After a modifier letter it is the
# modifier's (`2d6e>4` explodes on 5 and 6).
_COMPARISON = re.compile(
    r"(?P<dice>.*?[\d)%])\s*(?P<operator>>=|<=|==|!=|=|>|<)\s*(?P<target>-?\d+)"
)
# Dice Maiden's advantage and disadvantage: `+d20+5`, `-d20`.
_LEADING_D20 = re.compile(r"(?P<sign>[+-])\s*d20(?![\d%])(?P<rest>.*)", re.DOTALL | re.IGNORECASE)
# A roll that starts with one bare d20 (`adv` rolls it twice).
_BARE_D20 = re.compile(r"1?d20(?P<rest>\s*(?:[-+*/)].*)?)", re.DOTALL | re.IGNORECASE)
_PRIVATE = re.compile(r"p\s+(?P<dice>\d*d.*)", re.DOTALL | re.IGNORECASE)
# Dice Maiden's `ul 3d100` (unsorted results): our breakdown is unsorted unless `s` asks.
_UNSORTED = re.compile(r"ul\s+(?=\d*d)", re.IGNORECASE)
_BRACKETS = re.compile(r"\[(?P<label>[^\[\]]*)\]")
DND_STATS = (6, "4d6kh3")  # `dndstats`: six sets of 4d6, keep the highest three
# Words a label after the dice may have (`1d20+5 dex save`); a longer one goes after `#` or ` ! `.
# Each word is one more way to read the dice, tried in turn, so this bounds the work.
LABEL_WORDS_MAX = 6


class Flag(Enum):
    """A word after the dice that changes the roll."""

    ADVANTAGE = "adv"
    DISADVANTAGE = "dis"
    SORT = "s"
    NO_TOTAL = "nr"


_FLAGS = {
    "adv": Flag.ADVANTAGE,
    "advantage": Flag.ADVANTAGE,
    "dis": Flag.DISADVANTAGE,
    "disadvantage": Flag.DISADVANTAGE,
    "s": Flag.SORT,
    "nr": Flag.NO_TOTAL,
}
# Dice Maiden's `nr` hides the total; our reply always shows it (docs/players/dice.md, "Read
# differently on purpose").
NO_TOTAL_NOTE = "`nr`: the total is always shown here (Dice Maiden's `nr` hides it)."
ADVANTAGE_HINT = (
    "advantage is `2d20kh1+5` or `1d20+5 adv` (disadvantage: `2d20kl1+5`, `1d20+5 dis`)"
)


@dataclass(frozen=True, slots=True)
class Comparison:
    """`>= 15` after the dice: the roll succeeds when its total compares so."""

    operator: str  # >= <= > < = != (d20's "not equal")
    target: int

    def holds(self, total: int) -> bool:
        return COMPARED[self.operator](total, self.target)

    def spelled(self) -> str:
        return f"{self.operator}{self.target}"


@dataclass(frozen=True, slots=True)
class RequestPart:
    """One `;`-separated roll: the expression rolled (as read), its sets, label and flags."""

    expression: str
    sets: int = 1
    label: str | None = None
    comparison: Comparison | None = None
    sort: bool = False
    # One short line for the reply: d20's reading of a form we read otherwise ("did you mean").
    hint: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class RollRequest:
    """What `/roll` was asked: each roll, and whether it is one expression typed as rolled."""

    parts: tuple[RequestPart, ...]
    plain: bool = False

    @property
    def single(self) -> bool:
        """Whether this is one plain expression (shown as before)."""
        return self.plain


@dataclass(frozen=True, slots=True)
class RequestRoll:
    """Every roll of a request, part by part (a part's sets in order)."""

    request: RollRequest
    rolls: tuple[tuple[ExpressionRoll, ...], ...]


def parse_request(text: str) -> RollRequest:
    """Split a `/roll` request into rolls, sets, labels and flags, checking every expression."""
    return _parsed_request(text)[0]


@functools.lru_cache(maxsize=1024)
def _parsed_request(text: str) -> tuple[RollRequest, tuple[Expression, ...]]:
    """``parse_request``, and each part's parsed expression (so nothing is parsed twice).

    Cached (pure, and its results are frozen): a table rolls the same few requests again and
    again, so a roll only rolls. A refusal is not cached; it is worked out anew each time."""
    text = text.strip()
    if not text:
        raise RulesError("Give a dice expression, for example `1d20+5` or `4d6kh3`.")
    pieces = [piece.strip() for piece in text.split(";")]
    if any(not piece for piece in pieces):
        raise RulesError("Each `;` separates two rolls: none of them may be empty.")
    if len(pieces) > MAX_PARTS:
        raise RulesError(
            f"One `/roll` holds at most {MAX_PARTS} rolls separated by `;` (got {len(pieces)})."
        )
    read: list[tuple[RequestPart, Expression]] = []
    for index, piece in enumerate(pieces):
        labelled = bool(read) and read[-1][0].label is not None
        read.append(_part(piece, pieces[index - 1] if labelled else None))
    parts = [part for part, _ in read]
    parsed = tuple(expression for _, expression in read)
    check_dice_asked(sum(part.sets * each.dice for part, each in zip(parts, parsed, strict=True)))
    plain = len(parts) == 1 and parts[0] == RequestPart(text)
    return RollRequest(tuple(parts), plain), parsed


def _part(piece: str, before: str | None) -> tuple[RequestPart, Expression]:
    """One roll, or a refusal saying why (``before``: the roll before it, when it has a label)."""
    try:
        return _read_part(piece)
    except RulesError:
        if before is None or not piece[0].isalpha() or piece.split()[0].lower() in _FLAGS:
            raise
        # `1d20+5 ! Attack; then run`: a label can't hold a `;`, which starts another roll.
        raise RulesError(
            f"`;` starts another roll, and `{piece}` isn't dice: did you mean "
            f"`{before}, {piece}` (one label)?"
        ) from None


@functools.lru_cache(maxsize=1024)
def _read_part(piece: str) -> tuple[RequestPart, Expression]:
    """One roll: its label first (`#`, ` ! `, `[…]`), then sets, dice, comparison and flags.

    Cached, as the expressions are: reading a label after the dice tries several readings.
    """
    body, label = _explicit_label(piece)
    private = _PRIVATE.fullmatch(body)
    if private is not None:
        raise RulesError(
            f"A private roll is an option here: did you mean "
            f"`/roll expression:{private['dice'].strip()} hidden:true`? (GMs; a player's secret "
            "roll is `blind:true`, seen by the GMs)"
        )
    # Dice Maiden's game modes (`4cod`, `sr6`…) are spelled out as the notation they stand for.
    body = spell_mode(_UNSORTED.sub("", body, count=1))
    sets = 1
    if body.lower() == "dndstats":
        sets, body = DND_STATS
    elif (found := _SETS.fullmatch(body)) is not None:
        sets, body = int(found["sets"]), found["expression"].strip()
        if not 1 <= sets <= MAX_SETS:
            raise RulesError(f"A roll set has 1 to {MAX_SETS} sets, like `6 4d6kh3` (got {sets}).")
    spaced = re.fullmatch(r"(?P<sets>\d{1,2})\s+(?P<lead>[+-]d20(?![\d%]).*)", body, re.I)
    if spaced is not None:  # `2 +d20+5`: two sets with advantage, or 2 plus a d20 plus 5?
        lead = spaced["lead"]
        raise RulesError(
            f"Did you mean `{spaced['sets']} 2d20k{'h' if lead[0] == '+' else 'l'}1{lead[4:]}` "
            f"({spaced['sets']} rolls of `{lead}`) or `{spaced['sets']}{lead}` (one sum)?"
        )
    leading = _LEADING_D20.fullmatch(body)
    if leading is not None:  # Dice Maiden's `+d20`: roll the d20 twice
        keep = "kh1" if leading["sign"] == "+" else "kl1"
        body = f"2d20{keep}{leading['rest']}"
    if body.split(maxsplit=1)[0].lower() in _FLAGS:
        raise RulesError(_misplaced(body.split(maxsplit=1)[0], body.split(maxsplit=1)[1:]))
    dice, comparison, words = _dice_and_words(body)
    flags: list[Flag] = []
    while words and words[0].lower() in _FLAGS:
        flags.append(_FLAGS[words.pop(0).lower()])
    if [word.lower() for word in words] == ["p"]:  # Dice Maiden's `4d6 p`
        raise RulesError(
            f"A private roll is an option here: did you mean `/roll expression:{dice} "
            "hidden:true`? (GMs; a player's secret roll is `blind:true`, seen by the GMs)"
        )
    if words:
        if label is not None:
            raise RulesError(
                f"Couldn't read `{' '.join(words)}`: one label to a roll. Did you mean "
                f"`{dice} ! {' '.join(words)} {label}`?"
            )
        _refuse_flag_in_label(dice, words)
        label = " ".join(words)
    if label is not None and len(label) > COMMENT_MAX:
        raise RulesError(f"A label is at most {COMMENT_MAX} characters.")
    dice = _advantage(dice, flags, leading is not None)
    expression = parse_expression(dice)
    hint = d20_hint(dice) or (NO_TOTAL_NOTE if Flag.NO_TOTAL in flags else None)
    part = RequestPart(dice, sets, label, comparison, Flag.SORT in flags, hint)
    return part, expression


def _explicit_label(piece: str) -> tuple[str, str | None]:
    """Split off a label after `#` or ` ! `, or in `[brackets]` at the end."""
    label: str | None = None
    if "#" in piece:
        piece, label = (side.strip() for side in piece.split("#", 1))
        if (found := _BANG.search(piece)) is not None:
            both = f"{found['label'] or found['only'] or ''} {label}".strip()
            raise RulesError(
                f"One label to a roll, after `#` or ` ! `: did you mean "
                f"`{piece[: found.start()].strip()} # {both}`?"
            )
    elif (found := _BANG.search(piece)) is not None:
        label = (found["label"] or found["only"] or "").strip()
        if not label:  # `4d6 !`: Dice Maiden's empty comment, or a spaced-out `4d6!`?
            dice = piece[: found.start()].strip()
            raise RulesError(
                f"Did you mean `{dice}!` (explode again and again) or `{dice} ! label`? "
                "A ` ! ` starts a label."
            )
        piece = piece[: found.start()].strip()
    brackets = list(_BRACKETS.finditer(piece))
    if brackets:
        stripped = " ".join(_BRACKETS.sub("", piece).split())
        named = ", ".join(found["label"].strip() for found in brackets)
        last = brackets[-1]
        if len(brackets) > 1 or label is not None or piece[last.end() :].strip():
            raise RulesError(
                f"Labels in brackets go at the end, one to a roll: did you mean "
                f"`{stripped} ! {named}{'' if label is None else ' ' + label}`?"
            )
        piece, label = piece[: last.start()].strip(), named
    if not piece:
        raise RulesError("Give dice before the label, like `1d20+5 ! fireball`.")
    return piece, label or None


def _dice_and_words(body: str) -> tuple[str, Comparison | None, list[str]]:
    """The longest start of ``body`` that is dice (with a comparison), and the words after it."""
    try:
        return (*_dice(body), [])
    except RulesError as error:
        refusal = error
    # Avrae's trailing label: cut before a word that starts with a letter, the last one first.
    # Nothing else starts a plain-word label: text that starts with an operator or a digit is
    # notation (or refused as such), never silently a label (docs/players/dice.md, "A request").
    cuts = [found.start() for found in re.finditer(r"(?<=\s)[^\W\d_]", body)]
    for cut in reversed(cuts[-LABEL_WORDS_MAX:]):
        head = body[:cut].strip()
        if head[-1] in "+-*/%(<>=":  # dice can't end so: don't parse it to find out
            continue
        try:
            dice, comparison = _dice(head)
        except RulesError:
            continue
        return dice, comparison, body[cut:].split()
    if re.search(r"\s\S", body):  # text after a space that no reading took as a label
        raise RulesError(
            f"{refusal} A label after the dice starts with a letter; any other follows ` ! `, "
            "like `1d20 ! 🔥 fire`."
        ) from None
    raise refusal


def _dice(text: str) -> tuple[str, Comparison | None]:
    """An expression, or one closed by a comparison (`1d20+5>=15`)."""
    try:
        parse_expression(text)
        return text, None
    except RulesError:
        found = _COMPARISON.fullmatch(text)
        if found is None:
            raise
        dice = found["dice"].strip()
        parse_expression(dice)
        operator = "=" if found["operator"] == "==" else found["operator"]
        return dice, Comparison(operator, int(found["target"]))


def _advantage(dice: str, flags: list[Flag], leading: bool) -> str:
    """`1d20+5 adv` is `2d20kh1+5`: the leading d20 rolled twice."""
    wanted = [flag for flag in flags if flag in (Flag.ADVANTAGE, Flag.DISADVANTAGE)]
    if not wanted:
        return dice
    if len(wanted) > 1 or leading:
        raise RulesError(f"One advantage or disadvantage to a roll: {ADVANTAGE_HINT}.")
    bare = _BARE_D20.fullmatch(dice)
    if bare is None:
        raise RulesError(
            f"`{wanted[0].value}` rolls a roll's first d20 twice, and `{dice}` doesn't start "
            f"with one: {ADVANTAGE_HINT}."
        )
    keep = "kh1" if wanted[0] is Flag.ADVANTAGE else "kl1"
    return f"2d20{keep}{bare['rest']}"


def _misplaced(flag: str, rest: list[str]) -> str:
    after = rest[0].strip() if rest else ""
    if not after:
        return f"`{flag}` needs dice: {ADVANTAGE_HINT}."
    return f"Did you mean `{after} {flag}`? Words like `{flag}` go after the dice."


def _refuse_flag_in_label(dice: str, words: list[str]) -> None:
    """A flag inside a trailing label would be read as words: refuse, naming the order we read."""
    for index, word in enumerate(words):
        letters = re.match(r"[a-z]+", word.lower())
        if letters is None or letters[0] not in _FLAGS or (letters[0] == "s" and word != "s"):
            continue
        flag, more = letters[0], word[len(letters[0]) :]
        others = " ".join(words[:index] + words[index + 1 :])
        meant = " ".join(f"{dice}{more} {flag} {others}".split())
        raise RulesError(
            f"Did you mean `{meant}`? `{flag}` goes right after the dice "
            f"(or put the label after `#`: `{dice} # {' '.join(words)}`)."
        )


def roll_request(text: str, rng: Rng) -> RequestRoll:
    """Roll every part and set of a request; all of them together draw at most MAX_DICE dice."""
    request, parsed = _parsed_request(text)
    source = DiceSource(rng)
    rolls = tuple(
        tuple(roll_parsed(part.expression, each, source, sort=part.sort) for _ in range(part.sets))
        for part, each in zip(request.parts, parsed, strict=True)
    )
    return RequestRoll(request, rolls)
