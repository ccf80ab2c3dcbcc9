"""Exact odds of one die of a success-counting term (`4d10 t8 ie10`, `4d10 r7 t8`, `5d10 t7t10`),
as `/roll` rolls it: docs/players/dice.md, "Game modes", placed by the recap (docs/gms.md,
"Campaign recap").

A die counts ``[success] + [double] - [failure]`` for each face it shows, its explosions
included. Rerolls (by face) come first and only on the first face; an explosion adds a new die,
which explodes again for `ie` (at most ``MAX_REPEATS`` rounds, as rolling.py draws them).

Exact and bounded whatever the die: the faces are gathered into a few groups (a face's worth,
-1 to 2, and whether it explodes), each with how many faces it holds, read from the runs of
faces the modifiers pick alike, so a d10,000 costs what a d10 does. Each explosion round is a
sum over those groups in integers over one denominator (the die's size to the power of the
rounds): no ``Fraction`` is formed, and the weights returned are those integers, reduced by
their common divisor.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, reduce
from itertools import pairwise
from math import gcd

from rules.expressions.terms import MAX_REPEATS, DiceTerm, Faces

Weights = dict[int, int]  # value: weight, over a denominator kept beside it
Groups = dict[tuple[int, bool], int]  # (a face's worth, whether it explodes): weight


def counted_die(term: DiceTerm) -> tuple[int, tuple[int, ...]] | None:
    """One die's value as (lowest value, integer weights from it up), or None when the term isn't
    a success count this reads (keep, drop, `mi`, `ma`, a reroll or explosion by rank or `ra`)."""
    if not term.counts or term.keep is not None or term.selections:
        return None
    if term.minimum is not None or term.maximum is not None:
        return None
    for repeat in (term.reroll, term.explode):
        if repeat is not None and (repeat.rank is not None or repeat.add):
            return None
    return _counted(term.die.low, term.die.high, term.success, term.double, term.failure,
                    term.reroll.faces if term.reroll else None,
                    term.reroll is not None and term.reroll.again,
                    term.explode.faces if term.explode else None,
                    term.explode is not None and term.explode.again)  # fmt: skip


@lru_cache(maxsize=256)
def _counted(
    low: int,
    high: int,
    success: Faces | None,
    double: Faces | None,
    failure: Faces | None,
    reroll: Faces | None,
    reroll_again: bool,
    explode: Faces | None,
    explode_again: bool,
) -> tuple[int, tuple[int, ...]]:
    # Cached by the die and its modifiers alone: `4d10 t8 ie10` and `9d10 t8 ie10` share it.
    def worth(face: int) -> int:
        picked = sum(face in faces for faces in (success, double) if faces is not None)
        return picked - (failure is not None and face in failure)

    size = high - low + 1
    faces = _segments(low, high, (success, double, failure, reroll, explode))

    def exploding(face: int) -> bool:
        return explode is not None and face in explode

    # A new die (an explosion's): each face once.
    uniform = _grouped(faces, worth, exploding, lambda face: 1)
    # The first die, after its rerolls (m faces rerolled, ``rounds`` times at most): over
    # size ** (rounds + 1), a rerolled face keeps m ** rounds (every draw rerolled), any other
    # sum(m ** j * size ** (rounds - j)) (kept at its first draw, or after j rerolls). Only the
    # weights' ratios matter, so the denominators are left out.
    rerolled = sum(length for face, length in faces if reroll and face in reroll)
    rounds = (MAX_REPEATS if reroll_again else 1) if rerolled else 0
    kept = sum(rerolled**j * size ** (rounds - j) for j in range(rounds + 1))
    lost = rerolled**rounds
    first = _grouped(faces, worth, exploding,
                     lambda face: lost if reroll and face in reroll else kept)  # fmt: skip
    if explode is None:
        return _reduced(_chain(first, {}, 1))
    # What the dice after an exploding face add: explosions chained, at most MAX_REPEATS rounds.
    after, denominator = {0: 1}, 1
    for _ in range(MAX_REPEATS if explode_again else 1):
        after, denominator = _chain(uniform, after, denominator), denominator * size
    return _reduced(_chain(first, after, denominator))


def _segments(low: int, high: int, picks: tuple[Faces | None, ...]) -> list[tuple[int, int]]:
    """The die's faces as runs that every modifier picks alike: (a face of the run, its length).
    A d10,000 is a handful of runs, so its odds cost what a d10's do."""
    edges = {low, high + 1}
    for faces in picks:
        if faces is not None:
            edges |= {edge for edge in (faces.low, None if faces.high is None else faces.high + 1)
                      if edge is not None and low < edge <= high}  # fmt: skip
    ordered = sorted(edges)
    return [(start, end - start) for start, end in pairwise(ordered)]


def _grouped(
    faces: list[tuple[int, int]],
    worth: Callable[[int], int],
    exploding: Callable[[int], bool],
    weight: Callable[[int], int],
) -> Groups:
    groups: Groups = {}
    for face, length in faces:
        key = (worth(face), exploding(face))
        groups[key] = groups.get(key, 0) + weight(face) * length
    return groups


def _chain(groups: Groups, after: Weights, denominator: int) -> Weights:
    """A die of ``groups`` (weights over their sum) followed, on an exploding face, by what
    ``after`` adds (weights over ``denominator``): the weights over both denominators' product."""
    chain: Weights = {}
    for (own, explodes), weight in groups.items():
        if explodes:
            for more, further in after.items():
                chain[own + more] = chain.get(own + more, 0) + weight * further
        else:
            chain[own] = chain.get(own, 0) + weight * denominator
    return chain


def _reduced(weights: Weights) -> tuple[int, tuple[int, ...]]:
    present = {value: weight for value, weight in weights.items() if weight}
    low, high = min(present), max(present)
    common = reduce(gcd, present.values())
    return low, tuple(present.get(value, 0) // common for value in range(low, high + 1))
