"""Fire N calls of one storage operation at once, as N users pressing a button together."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


async def fire(count: int, call: Callable[[int], Awaitable[T]]) -> list[T | BaseException]:
    """Start ``call(0)`` … ``call(count - 1)`` together; return each result or exception."""
    return await asyncio.gather(*(call(number) for number in range(count)), return_exceptions=True)


def succeeded(outcomes: list[T | BaseException]) -> list[T]:
    """Return the outcomes that are results; fail on an exception of an unexpected kind."""
    unexpected = [o for o in outcomes if isinstance(o, BaseException) and not _refusal(o)]
    assert not unexpected, unexpected
    return [o for o in outcomes if not isinstance(o, BaseException)]


def _refusal(error: BaseException) -> bool:
    from bot.storage.errors import StorageError
    from rules.errors import RulesError

    return isinstance(error, StorageError | RulesError)
