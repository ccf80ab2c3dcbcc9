"""The session recap: rolls, criticals, fumbles, Luck spends and an exact luck score.

docs/gms.md, "Campaign recap". Pure: the rolls come in as ``RecapRoll`` (read from the log by
``rules.recap_reading``), the tallies go out as a ``Recap``.

The luck of one roll is the mid-rank percentile of its result on its exact distribution,
oriented so that higher is luckier: P(worse) + P(same) / 2. A roll-under system counts a lower
result as the better one. The mean over a player's scored rolls is their luck score; 50% is
average luck, and a score of 82% reads "top 18%" (its dice ran hot).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from rules.errors import RulesError
from rules.inputs import name_key
from rules.odds import Distribution

__all__ = [
    "MAX_RECAP_ROLLS",
    "ROLL_ID_MAX",
    "SESSION_PAUSE",
    "SINCE_MAX_LENGTH",
    "EndedChallenge",
    "Recap",
    "RecapRoll",
    "Since",
    "Tally",
    "challenges_since",
    "luck_of",
    "parse_since",
    "recap",
    "tail_of",
]

SESSION_PAUSE = timedelta(hours=3)  # a pause this long between two rolls ends a session
CHALLENGE_END_SLACK = timedelta(minutes=1)  # a challenge's end, stamped before its roll
MAX_RECAP_ROLLS = 2_000  # a longer session is recapped by its latest rolls, saying so
AVERAGE_LUCK = Fraction(1, 2)
# The largest roll id /campaign reveal and a recap's `since` take: Discord's largest integer
# option, 2^53 - 1 (roll ids are far below it).
ROLL_ID_MAX = 2**53 - 1
_ROLL_ID = re.compile(r"#?\s*([0-9]{1,16})")
_DATE_FORMATS = ("%Y-%m-%d", "%Y-%m-%d %H:%M")
SINCE_HELP = "a date (2026-11-20, or 2026-11-20 19:30 in UTC) or a roll number (#123 or 123)"


@dataclass(frozen=True, slots=True)
class Since:
    """Where a recap starts: a roll id, a moment (UTC), or neither (after the last pause)."""

    roll_id: int | None = None
    at: datetime | None = None


SINCE_MAX_LENGTH = 40
"""The longest ``since`` Discord lets a user type: "2026-11-20 19:30 UTC" with room to spare."""


def parse_since(text: str | None) -> Since:
    """Read the recap's ``since``: a roll id (#123 or 123) or a date, with a time in UTC."""
    if text is None or not text.strip():
        return Since()
    cleaned = " ".join(text.split())
    number = _ROLL_ID.fullmatch(cleaned)
    if number is not None:
        roll_id = int(number.group(1))
        if not 1 <= roll_id <= ROLL_ID_MAX:
            raise RulesError(f"There is no roll #{roll_id}: give {SINCE_HELP}.")
        return Since(roll_id=roll_id)
    for layout in _DATE_FORMATS:
        try:
            return Since(at=datetime.strptime(cleaned, layout).replace(tzinfo=UTC))
        except ValueError:
            continue
    raise RulesError(f"Since must be {SINCE_HELP}.")  # the text itself isn't repeated back


@dataclass(frozen=True, slots=True)
class RecapRoll:
    """One logged roll as the recap reads it.

    Attributes:
        total: The result shown, when a higher one is better (for the biggest roll), else None.
        luck: The mid-rank percentile of the result (0-1, higher luckier); None: not scored.
        chance: The chance of a result at least this far out on its side of the distribution
            (the smaller tail); the most unlikely roll has the smallest.
        luck_spend: A Luck spend logged as its own entry: not a new roll.
        pressure: The Pressure this roll added (a failed Sinew & Steel tamper).
        crisis: A Crisis, logged as its own entry when Pressure reached it: not a new roll.
        won: For a contest (an opposed roll, an attack), whether its roller won; None: no
            contest. A Luck spend carries the contest's outcome after it.
        root: For a Luck spend, the id of the roll first spent on.
        contest: For a contest logged as more than one roll (each side under its own roller, an
            inspiration reroll of a side), the id of the roll it was first logged under, which
            all of them share; None: the contest is this roll alone (or a Luck spend's root).
        defending: The roll is the defending side's (``won`` is the defender's).
        challenge: The extended challenge this roll counted towards (its name as names compare:
            ``rules.inputs.name_key``).
        made_at: When it was logged (UTC, as the log keeps times: ISO 8601 text).
        too_large: Unscored because its exact distribution is too large to compute within the
            recap's bounds (``rules.recap_placement``): counted, and the recap says so.
    """

    id: int
    user_id: int
    kind: str
    total: int | None = None
    luck: Fraction | None = None
    chance: Fraction | None = None
    critical: bool = False
    fumble: bool = False
    luck_spend: bool = False
    pressure: int = 0
    crisis: bool = False
    won: bool | None = None
    root: int | None = None
    contest: int | None = None
    defending: bool = False
    challenge: str | None = None
    made_at: str = ""
    too_large: bool = False

    @property
    def made(self) -> bool:
        """Whether this is a roll someone made, not an entry logged because of one."""
        return not (self.luck_spend or self.crisis)

    @property
    def contest_key(self) -> int | None:
        """The contest this roll belongs to: the id it was first logged under (a Luck spend's,
        its root's)."""
        if self.contest is not None:
            return self.contest
        return self.id if self.made else self.root


@dataclass(frozen=True, slots=True)
class EndedChallenge:
    """An extended challenge won or lost: its name and when it ended (as ``made_at``)."""

    name: str
    won: bool
    ended_at: str


@dataclass(frozen=True, slots=True)
class Tally:
    """One player's numbers (``user_id``), or the whole table's (``user_id`` None)."""

    user_id: int | None
    rolls: int
    criticals: int
    fumbles: int
    luck_spends: int
    pressure: int  # Pressure gained
    crises: int
    contests_won: int
    contests_lost: int
    challenges_won: int
    challenges_lost: int
    scored: int  # rolls with a luck score
    luck: Fraction | None  # the mean luck of the scored rolls
    biggest: RecapRoll | None
    unlikeliest: RecapRoll | None
    too_large: int = 0  # rolls unscored as too large to score (docs/gms.md, "Campaign recap")

    @property
    def top_share(self) -> Fraction | None:
        """The share of results as lucky or luckier: a luck of 82% is "the top 18%"."""
        return None if self.luck is None else 1 - self.luck


@dataclass(frozen=True, slots=True)
class Recap:
    """A session: its first and last roll ids, each player's tally and the table's."""

    first_id: int | None
    last_id: int | None
    players: tuple[Tally, ...]  # most rolls first, then by user id
    table: Tally

    @property
    def user_ids(self) -> set[int]:
        """Every player named in the recap (a defender who spent Luck included)."""
        return {tally.user_id for tally in self.players if tally.user_id is not None}


def luck_of(distribution: Distribution, value: int, *, higher_is_better: bool) -> Fraction:
    """Return the mid-rank percentile of ``value``: P(worse) + P(equal) / 2."""
    same = distribution.probability(value)
    if higher_is_better:
        worse = distribution.at_most(value - 1)
    else:
        worse = distribution.at_least(value + 1)
    return worse + same / 2


def tail_of(distribution: Distribution, value: int) -> Fraction:
    """Return the smaller of P(at most ``value``) and P(at least ``value``)."""
    return min(distribution.at_most(value), distribution.at_least(value))


def _outcomes(rolls: Sequence[RecapRoll]) -> dict[int, bool]:
    """Whether each contest's attacker won, by its key (``RecapRoll.contest_key``): as rolled,
    then as its latest roll (a side's reroll) or Luck spend left it."""
    outcomes: dict[int, bool] = {}
    for roll in rolls:
        key = roll.contest_key
        if roll.won is None or key is None or not (roll.made or key in outcomes):
            continue
        outcomes[key] = roll.won != roll.defending
    return outcomes


def _contests(made: Sequence[RecapRoll], outcomes: dict[int, bool]) -> list[bool]:
    """Each contest side these rolls made, won or lost as the contest ended: a side counts
    once however many of its rolls were logged (each side of a contest between players counts
    for its own roller)."""
    sides = {(roll.contest_key, roll.defending) for roll in made if roll.won is not None}
    return [
        outcomes[key] != defending
        for key, defending in sides
        if key is not None and key in outcomes
    ]


def _seconds(stored: str) -> float:
    return datetime.fromisoformat(stored).timestamp()


def challenges_since(first_made_at: str) -> str:
    """Where to look for challenges ended in a session that starts with a roll logged at
    ``first_made_at``: a little before it, as a challenge's end is stamped just before the roll
    that ended it is logged (docs/gms.md, "Campaign recap")."""
    moment = datetime.fromisoformat(first_made_at) - CHALLENGE_END_SLACK
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _challenge_endings(
    rolls: Sequence[RecapRoll], ended: Sequence[EndedChallenge]
) -> tuple[dict[int, bool], list[bool]]:
    """Each challenge won or lost, on the roll that ended it: the roll towards it logged
    closest to its end (the same transaction); one with no such roll here, the table's alone."""
    endings: dict[int, bool] = {}
    unclaimed: list[bool] = []
    for challenge in ended:
        name, end = name_key(challenge.name), _seconds(challenge.ended_at)
        towards = [roll for roll in rolls if roll.made and roll.challenge == name]
        if not towards:
            # Ended by a roll this recap doesn't show: the table's, if within the session.
            if rolls and end >= _seconds(rolls[0].made_at):
                unclaimed.append(challenge.won)
            continue
        last = min(towards, key=lambda roll: abs(_seconds(roll.made_at) - end))
        endings[last.id] = challenge.won
    return endings, unclaimed


def _tally(
    user_id: int | None,
    rolls: Sequence[RecapRoll],
    outcomes: dict[int, bool],
    endings: dict[int, bool],
    unclaimed: Sequence[bool] = (),
) -> Tally:
    made = [roll for roll in rolls if roll.made]
    contests = _contests(made, outcomes)
    challenges = [endings[roll.id] for roll in made if roll.id in endings] + list(unclaimed)
    scored = [roll.luck for roll in made if roll.luck is not None]
    sized = [roll for roll in made if roll.total is not None]
    unlikely = [roll for roll in made if roll.chance is not None]
    return Tally(
        user_id=user_id,
        rolls=len(made),
        criticals=sum(roll.critical for roll in made),
        fumbles=sum(roll.fumble for roll in made),
        luck_spends=sum(roll.luck_spend for roll in rolls),
        pressure=sum(roll.pressure for roll in rolls),
        crises=sum(roll.crisis for roll in rolls),
        contests_won=sum(contests),
        contests_lost=len(contests) - sum(contests),
        challenges_won=sum(challenges),
        challenges_lost=len(challenges) - sum(challenges),
        scored=len(scored),
        luck=sum(scored, Fraction(0)) / len(scored) if scored else None,
        # The earliest wins a tie: max and min keep the first of equals.
        biggest=max(sized, key=lambda roll: roll.total or 0, default=None),
        unlikeliest=min(unlikely, key=lambda roll: roll.chance or 0, default=None),
        too_large=sum(roll.too_large for roll in made),
    )


def recap(rolls: Sequence[RecapRoll], ended: Sequence[EndedChallenge] = ()) -> Recap:
    """Tally a session's rolls (oldest first) per player and for the table, with the
    challenges that ended during it."""
    by_user: dict[int, list[RecapRoll]] = {}
    for roll in rolls:
        by_user.setdefault(roll.user_id, []).append(roll)
    outcomes = _outcomes(rolls)
    endings, unclaimed = _challenge_endings(rolls, ended)
    players = [_tally(user_id, own, outcomes, endings) for user_id, own in by_user.items()]
    players.sort(key=lambda tally: (-tally.rolls, tally.user_id or 0))
    return Recap(
        first_id=rolls[0].id if rolls else None,
        last_id=rolls[-1].id if rolls else None,
        players=tuple(players),
        table=_tally(None, rolls, outcomes, endings, unclaimed),
    )
