"""A roll's one button is sent as a payload (bot.buttons.SentView): the same as discord.py's."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.buttons import RevealButton, RollAgainButton, SentView, roll_buttons
from bot.storage import Visibility
from cogs.dice import KIND


def laid_out_by_discord_py(button: discord.ui.Item[Any]) -> list[dict[str, object]]:
    view = discord.ui.View(timeout=None)
    view.add_item(button)
    view.stop()
    return view.to_components()


@pytest.mark.parametrize(
    ("visibility", "button"),
    [(Visibility.PUBLIC, RollAgainButton), (Visibility.HIDDEN, RevealButton)],
)
async def test_a_rolls_one_button_is_sent_as_discord_py_lays_it_out(
    visibility: Visibility, button: type[RollAgainButton | RevealButton], fake_bot_kinds: None
) -> None:
    for roll_id in (1, 987_654_321):
        view = roll_buttons(roll_id, KIND, visibility)
        assert isinstance(view, SentView)
        assert view.to_components() == laid_out_by_discord_py(button(roll_id))
        # Finished: discord.py keeps no view for the message (the dynamic item answers).
        assert view.is_finished() and not view.is_dispatchable()


async def test_a_roll_without_buttons_gets_no_view(fake_bot_kinds: None) -> None:
    assert roll_buttons(5, "no such kind", Visibility.PUBLIC) is None


@pytest.fixture
def fake_bot_kinds() -> None:
    """Roll again is offered under the rolls of the kinds a cog registered (/roll's here)."""
    from bot.buttons import register_reroll

    class Host:
        rerollers: dict = {}  # noqa: RUF012

    async def reroll(*_: object) -> None: ...

    register_reroll(Host(), KIND, reroll)
