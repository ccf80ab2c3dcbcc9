"""Sinew & Steel Luck: what a spend costs, what it moves, and which spends are worth offering.

docs/players/sinew.md, "Rules notes" ("Who may spend Luck, on what", "Luck buttons show only what
helps", "Pressure step 4 costs +1 token per spend"). Pure: paying the tokens is storage's job.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import overload

from rules.errors import RulesError
from rules.inputs import require_whole
from rules.sinew.changes import heal, take_damage
from rules.sinew.combat import AttackResult, OpposedResult, Side
from rules.sinew.constants import LUCK_SURCHARGE, LUCK_SURCHARGE_STEP, PRESSURE_MAX
from rules.sinew.sheet import Score, Sheet
from rules.sinew.tests import TestResult

# --- Luck


def luck_surcharge(pressure: int) -> int:
    """Return the extra tokens every Luck spend costs at this Pressure step (house: +1 at 4)."""
    pressure = require_whole("Pressure", pressure, 0, PRESSURE_MAX)
    return LUCK_SURCHARGE if pressure >= LUCK_SURCHARGE_STEP else 0


def luck_cost(tokens: int, pressure: int = 0) -> int:
    """Return the tokens paid to shift the die by ``tokens``: one each, +1 per spend at step 4."""
    tokens = require_whole("Tokens", tokens, 1, Score.LCK.maximum)
    return tokens + luck_surcharge(pressure)


def _shift(result: TestResult, tokens: int) -> TestResult:
    """Return ``result`` with the die lowered by ``tokens`` more, refusing illegal shifts."""
    tokens = require_whole("Tokens", tokens, 1, Score.LCK.maximum)
    if result.natural_one or result.natural_twenty:
        raise RulesError(
            f"A natural {result.natural} can't be changed: Luck never moves natural 1s or 20s."
        )
    if tokens > result.luck_room:
        raise RulesError(
            f"Luck can lower this {result.roll} by at most {result.luck_room} "
            f"(a die never goes below 1); got {tokens}."
        )
    return replace(result, shift=result.shift + tokens)


# --- Spending Luck


@overload
def spend_luck(result: TestResult, tokens: int, *, side: None = None) -> TestResult: ...
@overload
def spend_luck(result: OpposedResult, tokens: int, *, side: Side) -> OpposedResult: ...
@overload
def spend_luck(result: AttackResult, tokens: int, *, side: Side) -> AttackResult: ...


def spend_luck(
    result: TestResult | OpposedResult | AttackResult, tokens: int, *, side: Side | None = None
) -> TestResult | OpposedResult | AttackResult:
    """Return the roll with one test's die lowered by ``tokens``, its outcome re-evaluated.

    Pure: paying the tokens (and any Pressure surcharge, see ``luck_cost``) is storage's job.
    Spends may come in several steps; each result remembers the shift so far. On an opposed
    roll or an attack, ``side`` says whose die moves.

    Raises:
        RulesError: a natural 1 or 20, or a shift that would take the die below 1.
        ValueError: ``side`` is missing for a contest, or given for a plain test (a caller bug).
    """
    if isinstance(result, TestResult):
        if side is not None:
            raise ValueError("a plain test has no sides")
        return _shift(result, tokens)
    if side is None:
        raise ValueError("say whose die Luck moves in an opposed roll or attack")
    contest = result.contest if isinstance(result, AttackResult) else result
    if side is Side.ATTACKER:
        moved = replace(contest, attacker=_shift(contest.attacker, tokens))
    else:
        moved = replace(contest, defender=_shift(contest.defender, tokens))
    return replace(result, contest=moved) if isinstance(result, AttackResult) else moved


def tokens_to_succeed(result: TestResult) -> int | None:
    """Return the fewest tokens that turn the test into a success (0 if it already succeeds).

    None when no spend can: a natural 20, or a score below 1 (the die can't go under 1).
    """
    if result.success:
        return 0
    needed = result.roll - result.score
    return needed if needed <= result.luck_room else None


def tokens_to_win(result: OpposedResult | AttackResult, side: Side) -> int | None:
    """Return the fewest tokens ``side`` spends on its own die to win (0 if it wins already).

    None when no spend can make it win (one spend is at most the largest Luck cap).
    """
    contest = result.contest if isinstance(result, AttackResult) else result
    for tokens in range(min(contest.side(side).luck_room, Score.LCK.maximum) + 1):
        moved = contest if tokens == 0 else spend_luck(contest, tokens, side=side)
        if moved.winner is side:
            return tokens
    return None


@dataclass(frozen=True, slots=True)
class LuckOffer:
    """A spend worth offering after an attack: the fewest tokens that give a better result."""

    tokens: int
    result: AttackResult

    @property
    def damage_taken(self) -> int:
        """Return the damage the defender would take after this spend."""
        return self.result.damage_taken


def attack_luck_offers(result: AttackResult, available: int) -> tuple[LuckOffer, ...]:
    """Return the attacker's worthwhile spends: each fewest-token spend that deals more damage.

    The three questions of the document in one list: turn a miss into a hit, push the margin
    over 10, cut soak by a full 4 points. ``available`` is the tokens the attacker can spend
    (after any Pressure surcharge). Offers beyond what the die can move are left out.
    """
    available = require_whole("Available tokens", available, 0, Score.LCK.maximum)
    offers: list[LuckOffer] = []
    best = result.damage_taken
    hit = result.hit
    room = min(result.contest.attacker.luck_room, available)
    for tokens in range(1, room + 1):
        moved = spend_luck(result, tokens, side=Side.ATTACKER)
        if moved.damage_taken > best or (moved.hit and not hit):
            offers.append(LuckOffer(tokens, moved))
            best, hit = moved.damage_taken, moved.hit
    return tuple(offers)


# --- The roller's spends (the bot's `/sinew luck spend` and Luck buttons)

Spendable = TestResult | OpposedResult | AttackResult
"""What the roller may spend Luck on: a test, an opposed roll or an attack."""


def lower_roller_die(result: Spendable, tokens: int, side: Side = Side.ATTACKER) -> Spendable:
    """Return the roll with one side's die lowered by ``tokens``: the test's, or the contest
    side's (the attacker's by default; the defender spends on their own die).

    docs/players/sinew.md, "Who may spend Luck" and "The defender's Luck".
    """
    if isinstance(result, TestResult):
        if side is not Side.ATTACKER:
            raise ValueError("a plain test has only its roller")
        return spend_luck(result, tokens)
    return spend_luck(result, tokens, side=side)


def roller_tokens_needed(result: Spendable, side: Side = Side.ATTACKER) -> int | None:
    """Return the tokens that turn a test or win a contest for ``side`` (0: it already does;
    None: can't)."""
    if isinstance(result, TestResult):
        return tokens_to_succeed(result)
    return tokens_to_win(result, side)


def tokens_that_help(result: Spendable, side: Side = Side.ATTACKER) -> int:
    """Return the tokens that turn a failed test or win a lost contest, or raise RulesError."""
    needed = roller_tokens_needed(result, side)
    if needed == 0:
        if side is Side.DEFENDER:
            raise RulesError("The defender already wins: there is no hit or loss to turn.")
        raise RulesError("This roll already succeeds: there is no failure for Luck to turn.")
    if needed is None or needed > Score.LCK.maximum:
        raise RulesError("Luck can't turn this roll into a success: the die can't go that low.")
    return needed


@dataclass(frozen=True, slots=True)
class LuckSpent:
    """A spend by the roller: how far the die moved, what it cost, and the roll before and after.

    Attributes:
        shift: How far this spend lowered the die.
        cost: Tokens paid (``luck_cost``: the shift plus any Pressure surcharge).
        before: The roll spent on.
        after: The roll after the spend.
        sheet: The roller's sheet after paying.
    """

    shift: int
    cost: int
    before: Spendable
    after: Spendable
    sheet: Sheet

    @property
    def extra_damage(self) -> int:
        """Return the damage the spend adds to an attack's defender (0 for anything else)."""
        if isinstance(self.after, AttackResult) and isinstance(self.before, AttackResult):
            return max(self.after.damage_taken - self.before.damage_taken, 0)
        return 0

    @property
    def stamina_given_back(self) -> int:
        """Return the damage a defender's spend undoes (a hit turned into a miss gives back
        the Stamina it took; 0 for anything else)."""
        if isinstance(self.after, AttackResult) and isinstance(self.before, AttackResult):
            return max(self.before.damage_taken - self.after.damage_taken, 0)
        return 0


def apply_luck(
    result: Spendable,
    sheet: Sheet,
    tokens: int | None,
    *,
    pressure: int,
    roller: str,
    side: Side = Side.ATTACKER,
) -> LuckSpent:
    """Return ``side``'s spend of ``tokens`` (None: what turns or wins it) on ``result``.

    The price is ``luck_cost`` at the payer's Pressure step (docs/players/sinew.md, "Pressure step 4
    costs +1 token per spend"); ``roller`` names the payer in a refusal. ``side`` DEFENDER: the
    defender of a contest lowers their own die.

    Raises:
        RulesError: nothing for Luck to turn, a die that can't move that far, or ``sheet``
            holds fewer tokens than the spend costs.
    """
    shift = tokens_that_help(result, side) if tokens is None else tokens
    moved = lower_roller_die(result, shift, side)
    cost = luck_cost(shift, pressure)
    if sheet.luck_tokens < cost:
        raise RulesError(
            f"Lowering the die by {shift} costs {cost} Luck token"
            f"{'s' if cost != 1 else ''}; {roller} has {sheet.luck_tokens}."
        )
    paid = replace(sheet, luck_tokens=sheet.luck_tokens - cost)
    return LuckSpent(shift=shift, cost=cost, before=result, after=moved, sheet=paid)


@dataclass(frozen=True, slots=True)
class LuckConsequences:
    """A spend with everything it changes at the table.

    Attributes:
        spent: The spend itself (the roll before and after, the shift, the cost).
        payer: The payer's sheet after paying and, for a contest's defender whose spend turned
            a hit into a miss, with the Stamina that hit took given back.
        hurt: Under an attack, the defending character's sheet after the damage the roller's
            spend adds (None: the defender is unchanged, or not a character).
    """

    spent: LuckSpent
    payer: Sheet
    hurt: Sheet | None = None


def luck_consequences(
    result: Spendable,
    sheet: Sheet,
    tokens: int | None,
    *,
    pressure: int,
    roller: str,
    side: Side = Side.ATTACKER,
    defender: Sheet | None = None,
) -> LuckConsequences:
    """Return a spend (``apply_luck``) with its consequences: the roller's spend under an
    attack hurts ``defender`` (a player's character) by the damage it adds; the defender's own
    spend gives back the Stamina a hit it turns into a miss took. Either side pays the Pressure
    surcharge of its own step (``pressure``)."""
    spent = apply_luck(result, sheet, tokens, pressure=pressure, roller=roller, side=side)
    if side is Side.DEFENDER:
        back = spent.stamina_given_back
        return LuckConsequences(spent, heal(spent.sheet, back).sheet if back else spent.sheet)
    extra = spent.extra_damage
    hurt = take_damage(defender, extra).sheet if defender is not None and extra > 0 else None
    return LuckConsequences(spent, spent.sheet, hurt)


@dataclass(frozen=True, slots=True)
class LuckChoice:
    """A spend worth a button under a roll its roller can still change.

    Attributes:
        tokens: How far the button lowers the die; None: as far as turns it when pressed.
        shift: How far it lowers the die now.
        cost: Tokens it costs now (surcharge included).
        turns: Whether it turns the test or wins the contest (under a test or opposed roll).
        offer: Under an attack, the better result it gives.
    """

    tokens: int | None
    shift: int
    cost: int
    turns: bool = False
    offer: LuckOffer | None = None


def luck_choices(
    result: Spendable, *, held: int, pressure: int, side: Side = Side.ATTACKER
) -> tuple[LuckChoice, ...]:
    """Return the spends worth offering (docs/players/sinew.md, "Luck buttons").

    Under a failed test or a lost opposed roll: 1 token, and the tokens that turn or win it when
    that is more than 1, each only if the ``held`` tokens pay for it (docs/players/sinew.md: "Luck
    buttons show only what helps", and only what the roller can pay). Under an attack: each spend
    that gives a better result (a hit, more damage), among those the ``held`` tokens pay for,
    surcharge included. The defender of a contest (``side`` DEFENDER) is offered the same as a lost
    opposed roll: 1 token, and what wins it (under an attack: a miss).
    """
    if isinstance(result, AttackResult) and side is Side.ATTACKER:
        available = min(max(held - luck_surcharge(pressure), 0), Score.LCK.maximum)
        return tuple(
            LuckChoice(offer.tokens, offer.tokens, luck_cost(offer.tokens, pressure), offer=offer)
            for offer in attack_luck_offers(result, available)
        )
    needed = roller_tokens_needed(result, side)
    if needed is None or needed == 0 or needed > Score.LCK.maximum:
        return ()
    one = LuckChoice(1, 1, luck_cost(1, pressure), turns=needed == 1)
    choices = (
        (one,)
        if needed == 1
        else (one, LuckChoice(None, needed, luck_cost(needed, pressure), turns=True))
    )
    return tuple(choice for choice in choices if choice.cost <= held)
