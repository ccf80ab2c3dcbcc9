"""Exact integer polynomial powers in numpy: number-theoretic transforms modulo a few primes.

Realms' attack odds (docs/players/realms.md, "Rules notes") are the coefficients of a
polynomial with small integer weights raised to the number of strikes. Those coefficients
outgrow int64 at once (11 strikes of 4d20+50: about 2^238), and Python's big integers multiply
them at several milliseconds a query. Here every coefficient is kept as its residues modulo
several primes below 2^29, enough that their product exceeds the largest count: the power is
one transform per prime (all primes in one numpy array), a pointwise power and one transform
back, every product below 2^62 so int64 is exact. The Chinese remainder theorem (Garner's
mixed-radix digits, also in numpy) gives back each count exactly; ``ExactChances`` turns a
count into a ``Fraction`` only when it is read, and gives every chance as a float at once
(charts and ranking need floats, the text only a few exact chances).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

__all__ = ["ExactChances", "Residues", "moduli_above", "power", "powers"]

_TWO_ADIC = 21  # every prime is c · 2^21 + 1: transforms of up to 2^21 points
_PRIME_LIMIT = 2**29  # residues below 2^29: see _transformed
SMALL_POWER_BITS = 60_000  # a power this small is packed into one Python integer instead


def _is_prime(number: int) -> bool:
    """Deterministic Miller-Rabin for numbers below 3.4 · 10^14 (these bases suffice)."""
    if number < 2:
        return False
    for small in (2, 3, 5, 7, 11, 13, 17):
        if number % small == 0:
            return number == small
    odd, twos = number - 1, 0
    while odd % 2 == 0:
        odd, twos = odd // 2, twos + 1
    for base in (2, 3, 5, 7, 11, 13, 17):
        x = pow(base, odd, number)
        if x in (1, number - 1):
            continue
        for _ in range(twos - 1):
            x = x * x % number
            if x == number - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=1)
def _primes() -> tuple[int, ...]:
    """The primes c · 2^21 + 1 below 2^29, largest first (28 of them: 770 bits together)."""
    step = 2**_TWO_ADIC
    return tuple(
        c * step + 1 for c in range((_PRIME_LIMIT - 1) // step, 0, -1) if _is_prime(c * step + 1)
    )


@lru_cache(maxsize=64)
def moduli_above(bound: int) -> tuple[int, ...]:
    """Return the fewest of the primes whose product exceeds ``bound``."""
    chosen: list[int] = []
    product = 1
    for prime in _primes():
        if product > bound:
            break
        chosen.append(prime)
        product *= prime
    if product <= bound:
        raise ValueError(f"{bound.bit_length()}-bit counts are beyond these primes")
    return tuple(chosen)


@dataclass(frozen=True, slots=True)
class _Transform:
    """Roots of unity of a ``size``-point transform, per prime (one row each), as int64."""

    moduli: np.ndarray  # (primes, 1, 1)
    forward: tuple[np.ndarray, ...]  # per stage (1, 2, 4, ... size / 2 rows): (primes, rows, 1)
    inverse: tuple[np.ndarray, ...]
    size_inverse: np.ndarray  # (primes, 1): size^-1 modulo each prime


def _root_powers(roots: list[int], moduli: np.ndarray, count: int) -> np.ndarray:
    """Return root^0 .. root^(count - 1) modulo each prime, one row per prime."""
    powers = np.ones((len(roots), 1), dtype=np.int64)
    step = np.array(roots, dtype=np.int64).reshape(-1, 1)
    while powers.shape[1] < count:
        powers = np.concatenate([powers, powers * step % moduli], axis=1)
        step = step * step % moduli
    return powers[:, :count]


@lru_cache(maxsize=64)
def _transform(moduli: tuple[int, ...], size: int) -> _Transform:
    roots = []
    for prime in moduli:
        candidate = 2
        while pow(root := pow(candidate, (prime - 1) // size, prime), size // 2, prime) == 1:
            candidate += 1  # root's order divides size; it is exactly size unless this is 1
        roots.append(root)
    column = np.array(moduli, dtype=np.int64).reshape(-1, 1)
    half = max(size // 2, 1)
    inverses = [pow(root, -1, prime) for root, prime in zip(roots, moduli, strict=True)]
    tables = (_root_powers(roots, column, half), _root_powers(inverses, column, half))
    rows = [1 << stage for stage in range((size - 1).bit_length())]  # 1, 2, ..., size / 2
    forward, inverse = (
        tuple(table[:, :: half // count][:, :count, None].copy() for count in rows)
        for table in tables
    )
    return _Transform(
        moduli=column[:, :, None],
        forward=forward,
        inverse=inverse,
        size_inverse=np.array([[pow(size, -1, p)] for p in moduli], dtype=np.int64),
    )


def _transformed(
    values: np.ndarray, twiddles: tuple[np.ndarray, ...], moduli: np.ndarray, used: int = 0
) -> np.ndarray:
    """Return the number-theoretic transform of each row (natural order in and out), each
    value below (stages + 1) · p: reduced lazily, the caller takes the remainder once.

    Radix 2, decimation in time, every stage on whole arrays (as in the classic vectorised
    FFT): after a stage with R rows and C columns, entry (r, c) is the transform at r of the
    inputs whose index is c modulo C; a stage merges the left and right halves of the columns
    with the twiddles into twice the rows. The array is held as (rows, columns) while there
    are fewer rows, then as (columns, rows), so numpy's inner loops run along the longer side.
    Only the twiddle's product is reduced: a stage's outputs are below its inputs' bound plus
    p (x + t and x + p - t, t < p), and with p < 2^29 a product stays below 2^62.

    When only the first ``used`` inputs can be non-zero, the stages whose right half of the
    columns is all zeros only copy the left half into each row: they are skipped.
    """
    primes, size = values.shape
    split = (len(twiddles) + 1) // 2  # the stages with fewer rows than columns
    skipped = 0
    while used and skipped < split and size >> (skipped + 1) >= used:
        skipped += 1
    columns = size >> skipped
    blocks = np.broadcast_to(values[:, None, :columns], (primes, 1 << skipped, columns))
    for factor in twiddles[skipped:split]:
        rows, half = factor.shape[1], blocks.shape[2] // 2
        merged = np.empty((primes, 2 * rows, half), dtype=np.int64)
        turned = blocks[:, :, half:] * factor
        turned %= moduli
        np.add(blocks[:, :, :half], turned, out=merged[:, :rows])
        np.add(blocks[:, :, :half], moduli, out=merged[:, rows:])
        merged[:, rows:] -= turned
        blocks = merged
    blocks = blocks.transpose(0, 2, 1).copy()  # (primes, columns, rows)
    for factor in twiddles[split:]:
        rows, half = factor.shape[1], blocks.shape[1] // 2
        merged = np.empty((primes, half, 2 * rows), dtype=np.int64)
        turned = blocks[:, half:] * factor.reshape(primes, 1, rows)
        turned %= moduli
        np.add(blocks[:, :half], turned, out=merged[:, :, :rows])
        np.add(blocks[:, :half], moduli, out=merged[:, :, rows:])
        merged[:, :, rows:] -= turned
        blocks = merged
    return blocks.reshape(primes, size)


@dataclass(frozen=True, slots=True)
class Residues:
    """Integers kept modulo ``moduli``: ``values[i, j]`` is integer ``j`` modulo prime ``i``."""

    moduli: tuple[int, ...]
    values: np.ndarray  # (primes, count) int64

    def integers(self, indices: np.ndarray | None = None) -> list[int]:
        """Return the integers (those at ``indices``, or all), each below the moduli's product."""
        digits = _garner(self, indices)
        radices = _radices(self.moduli)
        rows = [[int(digit) for digit in row] for row in digits.tolist()]
        return [
            sum(digit * radix for digit, radix in zip(column, radices, strict=True))
            for column in zip(*rows, strict=True)
        ]


@lru_cache(maxsize=16)
def _radices(moduli: tuple[int, ...]) -> tuple[int, ...]:
    """1, p0, p0·p1, ...: the weights of Garner's mixed-radix digits."""
    radices = [1]
    for prime in moduli[:-1]:
        radices.append(radices[-1] * prime)
    return tuple(radices)


def _garner(residues: Residues, indices: np.ndarray | None = None) -> np.ndarray:
    """Return the mixed-radix digits d (one row per prime) with x = d0 + d1·p0 + d2·p0·p1 + ...,
    each digit below its prime, of every integer (or those at ``indices``): digit j is final
    once the earlier ones are taken out, and it is taken out of all later rows at once."""
    values = residues.values if indices is None else residues.values[:, indices]
    digits = values.copy()
    moduli = residues.moduli
    for j, prime in enumerate(moduli[:-1]):
        later = np.array(moduli[j + 1 :], dtype=np.int64).reshape(-1, 1)
        inverses = np.array([pow(prime, -1, other) for other in moduli[j + 1 :]], dtype=np.int64)
        rest = digits[j + 1 :]
        rest -= digits[j]
        rest %= later
        rest *= inverses.reshape(-1, 1)
        rest %= later
    return digits


def power(terms: Mapping[int, int], exponent: int, moduli: tuple[int, ...]) -> tuple[int, Residues]:
    """Return the lowest exponent of ``(sum of weight · x^e for e, weight in terms) ** exponent``
    and its coefficients, one per exponent upwards, modulo ``moduli`` (exact when every
    coefficient is below their product: see ``moduli_above``). Weights are non-negative."""
    return powers([terms], [exponent], moduli)[0][0]


def powers(
    polynomials: Sequence[Mapping[int, int]], exponents: Sequence[int], moduli: tuple[int, ...]
) -> list[list[tuple[int, Residues]]]:
    """Return ``power(polynomial, exponent, moduli)`` for each polynomial (outer list) and each
    exponent (inner list), from one transform of all the polynomials and one transform back
    of all their powers: the numpy calls are shared (a Realms split has a power per target).
    The lowest exponent is the exponent times the lowest of all the polynomials' exponents
    (a polynomial that starts higher has zeros first)."""
    low = min(min(terms) for terms in polynomials)
    span = max(max(terms) for terms in polynomials) - low + 1
    length = max(exponents) * (span - 1) + 1
    size = max(2, 1 << (length - 1).bit_length())  # no wrap-around: size >= length
    if size > 2**_TWO_ADIC:
        raise ValueError(f"a power of {length} coefficients is beyond these primes' transforms")
    primes = len(moduli)
    # Bytes a coefficient takes, packed: each is at most the polynomial at x = 1, to the power.
    bound = max(sum(terms.values()) for terms in polynomials) ** max(exponents)
    width = bound.bit_length() // 8 + 1
    if length * width * 8 <= SMALL_POWER_BITS:
        return [
            [
                (exponent * low, _packed_power(terms, low, exponent, width, moduli))
                for exponent in exponents
            ]
            for terms in polynomials
        ]
    forward = _transform(moduli * len(polynomials), size)
    coefficients = np.zeros((primes * len(polynomials), size), dtype=np.int64)
    for i, terms in enumerate(polynomials):
        coefficients[i * primes : (i + 1) * primes, np.fromiter(terms, dtype=np.int64) - low] = (
            np.array([[weight % prime for weight in terms.values()] for prime in moduli])
        )
    spectrum = _transformed(coefficients, forward.forward, forward.moduli, span)
    column = forward.moduli[:, :, 0]
    spectrum %= column
    raised = [_pointwise_power(spectrum, exponent, column) for exponent in exponents]
    backward = _transform(moduli * (len(polynomials) * len(exponents)), size)
    back = _transformed(np.concatenate(raised), backward.inverse, backward.moduli)
    counts = back % backward.moduli[:, :, 0] * backward.size_inverse % backward.moduli[:, :, 0]
    rows = primes * len(polynomials)
    return [
        [
            (
                exponent * low,
                Residues(
                    moduli,
                    counts[j * rows + i * primes : j * rows + (i + 1) * primes][
                        :, : exponent * (span - 1) + 1
                    ],
                ),
            )
            for j, exponent in enumerate(exponents)
        ]
        for i in range(len(polynomials))
    ]


def _packed_power(
    terms: Mapping[int, int], low: int, exponent: int, width: int, moduli: tuple[int, ...]
) -> Residues:
    """Return the coefficients of a small power (from ``x^(exponent · low)`` up) modulo
    ``moduli``, computed exactly with Python's big integers: the polynomial packed into one
    integer, ``width`` bytes a coefficient (Kronecker substitution; every coefficient of every
    power up to this one is at most the polynomial at 1 to this power, so none carries into
    the next), one
    ``pow``, and the bytes read back as 16-bit limbs, each coefficient's residues a dot product
    with 2^(16j) modulo each prime. Below a few tens of thousands of bits this costs less than
    the transforms' fixed share of numpy calls (a split's targets of 1, 2 and 3 strikes)."""
    span = max(terms) - low + 1
    packed = bytearray(span * width)
    for at, weight in terms.items():
        packed[(at - low) * width : (at - low + 1) * width] = weight.to_bytes(width, "little")
    length = exponent * (span - 1) + 1
    limb_bytes = width + width % 2
    data = bytearray(length * limb_bytes)
    result = pow(int.from_bytes(packed, "little"), exponent).to_bytes(length * width, "little")
    rows = np.frombuffer(data, dtype=np.uint8).reshape(length, limb_bytes)
    rows[:, :width] = np.frombuffer(result, dtype=np.uint8).reshape(length, width)
    limbs = rows.view("<u2").astype(np.int64)  # (length, limbs)
    return Residues(moduli, (limbs @ _limb_weights(moduli, limbs.shape[1])).T % _column(moduli))


@lru_cache(maxsize=64)
def _limb_weights(moduli: tuple[int, ...], limbs: int) -> np.ndarray:
    """2^(16j) modulo each prime: one row per limb j, one column per prime (each below 2^29, a
    limb below 2^16: a dot product of a few dozen stays below 2^63)."""
    return np.array([[pow(2, 16 * j, prime) for prime in moduli] for j in range(limbs)])


@lru_cache(maxsize=64)
def _column(moduli: tuple[int, ...]) -> np.ndarray:
    return np.array(moduli, dtype=np.int64).reshape(-1, 1)


def _pointwise_power(spectrum: np.ndarray, exponent: int, column: np.ndarray) -> np.ndarray:
    """Return each entry to the power ``exponent`` modulo its row's prime (square and multiply)."""
    result = np.ones_like(spectrum)
    base, remaining = spectrum, exponent
    while remaining:
        if remaining & 1:
            result = result * base % column
        remaining >>= 1
        if remaining:
            base = base * base % column
    return result


class ExactChances(Mapping[int, Fraction]):
    """Outcome → exact chance, each a count (as residues) over one ``denominator``.

    Reading a chance builds its ``Fraction``; ``floats`` has every chance as a float already
    (from the mixed-radix digits: within a few units in the last place), for charts and for
    ranking, and ``float_array`` / ``outcome_array`` the same as numpy arrays. Outcomes with
    count zero are left out; outcomes iterate in increasing order.
    """

    __slots__ = (
        "_digits",
        "_fractions",
        "_index",
        "_moduli",
        "denominator",
        "float_array",
        "floats",
        "outcome_array",
        "outcomes",
    )

    def __init__(self, outcomes: np.ndarray, counts: Residues, denominator: int) -> None:
        digits = _garner(counts)
        nonzero = np.flatnonzero(digits.any(axis=0))
        self._moduli = counts.moduli
        self._digits = digits[:, nonzero]
        self.outcome_array: np.ndarray = outcomes[nonzero]
        self.outcomes: tuple[int, ...] = tuple(self.outcome_array.tolist())
        self.denominator = denominator
        radices = np.array([float(radix) for radix in _radices(counts.moduli)])
        self.float_array: np.ndarray = radices @ self._digits.astype(np.float64) / denominator
        self.floats: tuple[float, ...] = tuple(self.float_array.tolist())
        self._index = {outcome: i for i, outcome in enumerate(self.outcomes)}
        self._fractions: dict[int, Fraction] = {}

    def count(self, outcome: int) -> int:
        """Return the exact count (numerator) of ``outcome``; 0 if it can't happen."""
        i = self._index.get(outcome)
        if i is None:
            return 0
        radices = _radices(self._moduli)
        return sum(int(d) * r for d, r in zip(self._digits[:, i].tolist(), radices, strict=True))

    def __getitem__(self, outcome: int) -> Fraction:
        found = self._fractions.get(outcome)
        if found is None:
            if outcome not in self._index:
                raise KeyError(outcome)
            found = self._fractions[outcome] = Fraction(self.count(outcome), self.denominator)
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self.outcomes)

    def __len__(self) -> int:
        return len(self.outcomes)

    def __contains__(self, outcome: object) -> bool:
        return outcome in self._index

    def float_items(self) -> list[tuple[int, float]]:
        """Return (outcome, chance as a float) for every outcome, in increasing order."""
        return list(zip(self.outcomes, self.floats, strict=True))
