"""Exact odds of one die of a success-counting term (`4d10 t8 ie10`, `4d10 r7 t8`, `5d10 t7t10`),
as `/roll` rolls it: docs/players/dice.md, "Game modes", placed by the recap (docs/gms.md,
"Campaign recap").

A die counts ``[success] + [double] - [failure]`` for each face it shows, its explosions
included. Rerolls (by face) come first and only on the first face; an explosion adds a new die,
which explodes again for `ie` (at most ``MAX_REPEATS`` rounds, as rolling.py draws them). Every
probability is an exact ``Fraction`` and the weights returned are integers over one denominator,
so the recap's counts stay exact, the repeat cap included.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import lcm

from rules.expressions.terms import MAX_REPEATS, DiceTerm, Faces

Polynomial = dict[int, Fraction]  # value: probability


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
    die = term.die
    faces = range(die.low, die.high + 1)
    third = Fraction(1, die.size)

    def value(face: int) -> int:
        return sum(
            face in picked for picked in (term.success, term.double) if picked is not None
        ) - (term.failure is not None and face in term.failure)

    first = _first_faces(faces, term.reroll.faces if term.reroll else None, term)
    explode = term.explode
    if explode is None:
        chain: Polynomial = {}
        for face, chance in first.items():
            _add(chain, value(face), chance)
        return _weights(chain)
    # A new die with k rounds of explosions left: its value, and its explosions'.
    uniform = {face: third for face in faces}
    after: Polynomial = _chain(uniform, value, explode.faces, {0: Fraction(1)})
    rounds = MAX_REPEATS if explode.again else 1
    for _ in range(rounds - 1):
        after = _chain(uniform, value, explode.faces, after)
    return _weights(_chain(first, value, explode.faces, after))


def _first_faces(faces: range, reroll: Faces | None, term: DiceTerm) -> dict[int, Fraction]:
    """The first die's last face, after its rerolls (once, or again up to MAX_REPEATS)."""
    size = len(faces)
    chances = {face: Fraction(1, size) for face in faces}
    if reroll is None:
        return chances
    rounds = MAX_REPEATS if term.reroll is not None and term.reroll.again else 1
    for _ in range(rounds):
        rerolled = sum((chances[face] for face in faces if face in reroll), Fraction(0))
        if rerolled == 0:
            break
        chances = {
            face: (0 if face in reroll else chances[face]) + rerolled / size for face in faces
        }
    return chances


def _chain(
    faces: dict[int, Fraction], value: Callable[[int], int], exploding: Faces, after: Polynomial
) -> Polynomial:
    chain: Polynomial = {}
    for face, chance in faces.items():
        own = value(face)
        if face in exploding:
            for more, further in after.items():
                _add(chain, own + more, chance * further)
        else:
            _add(chain, own, chance)
    return chain


def _add(polynomial: Polynomial, value: int, chance: Fraction) -> None:
    if chance:
        polynomial[value] = polynomial.get(value, Fraction(0)) + chance


def _weights(polynomial: Polynomial) -> tuple[int, tuple[int, ...]]:
    low, high = min(polynomial), max(polynomial)
    denominator = lcm(*(chance.denominator for chance in polynomial.values()))
    weights = tuple(
        int(polynomial.get(value, Fraction(0)) * denominator) for value in range(low, high + 1)
    )
    return low, weights
