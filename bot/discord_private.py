"""Every reliance of the bot on discord.py's private behaviour, in one place.

discord.py documents none of what follows; each item is a small named function (or, for the
tree, a base class) so the code that needs it says what it needs, and
``tests/test_discord_private.py`` exercises each against the installed discord.py: an upgrade
that changes one fails there, naming it. The bot pins ``discord.py>=2.7,<3``.

1. ``invoke_with_options``: ``Command._invoke_with_namespace`` runs a command as if typed (its
   checks, transformers and defaults, then the callback) (``bot.saved_commands``).
2. ``GatedCommandTree``: ``CommandTree._call`` is the one coroutine discord.py starts per
   application-command interaction (``bot.client.DiceTree`` bounds how many run at once).
3. ``set_endpoints``: ``Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY`` are where discord.py
   sends REST calls and opens the gateway (``bot.client.point_at_discord``, the fake Discord).
4. ``set_guild_ready_timeout``: the wait for GUILD_CREATEs before READY lives on the client's
   ``_connection`` and is otherwise only a constructor option (the fake Discord's fixtures).
5. ``keep_no_view``: a view stopped before it is sent is not stored for its message, so only the
   dynamic items answer its presses (``bot.buttons.roll_buttons`` stops its view this way). Only
   a view built inside the running event loop can be stopped.
6. Dynamic items answer a press only while the message the press comes from still carries that
   component (``ViewStore.schedule_dynamic_item_call``): a button the bot removed never
   reaches ``from_custom_id`` (the bot answers the press: item 8).
7. ``bot.buttons.SentView``: sending a message with a view, discord.py asks the view only for
   ``to_components()``, ``has_components_v2()``, ``is_finished()`` and ``is_dispatchable()``,
   so a roll's one button is sent as a ready payload without a live view. Relied on by that
   class, tested by ``tests/test_sent_view.py`` (the payload equals discord.py's own layout).
8. ``press_is_dispatched``: a component interaction (a button press, a select) reaches an item
   only through ``ViewStore.dispatch_view``, called just before ``dispatch("interaction")`` in
   ``ConnectionState.parse_interaction_create``: a dynamic item whose template matches the
   custom id, if the message still carries the component (item 6), or a view stored for the
   message (or with none) still listening. Any other press is dropped unanswered ("This
   interaction failed"); ``bot.buttons.answer_unclaimed_press`` answers it.
- ``add_options``: a command's options are ``Command._params``, ``CommandParameter``s that
  discord.py builds from its callback's signature (``annotation_to_parameter``); it syncs them
  and hands each given (or its default) to ``Command._callback`` as a keyword argument. Options
  added there after the command is built are synced, checked and handed on like its own: the
  commands whose options are the systems' settings, built when ``cogs.campaign`` is set up.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine, Iterable, Mapping
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Optional, TypeVar

import discord
import yarl
from discord import app_commands
from discord.app_commands.transformers import annotation_to_parameter
from discord.gateway import DiscordWebSocket
from discord.http import Route

__all__ = [
    "AddedOption",
    "GatedCommandTree",
    "add_options",
    "endpoints",
    "guild_ready_timeout",
    "invoke_with_options",
    "keep_no_view",
    "press_is_dispatched",
    "set_endpoints",
    "set_guild_ready_timeout",
]

ClientT = TypeVar("ClientT", bound=discord.Client)


async def invoke_with_options(
    command: app_commands.Command[Any, ..., Any],
    interaction: discord.Interaction,
    options: Mapping[str, object],
) -> None:
    """Run ``command`` for ``interaction`` as if typed with ``options`` (checks, then callback)."""
    namespace = SimpleNamespace(**options)
    await command._invoke_with_namespace(interaction, namespace)  # type: ignore[arg-type]  # discord.py (private): any object with the options as attributes serves as the namespace


class GatedCommandTree(app_commands.CommandTree[ClientT]):
    """A command tree that handles each application command inside ``self.gate()``."""

    def gate(self) -> AbstractAsyncContextManager[object]:
        """Return what an interaction holds while it is handled (nothing, unless overridden)."""
        return nullcontext()

    async def _call(self, interaction: discord.Interaction[ClientT]) -> None:
        async with self.gate():
            await super()._call(interaction)


def endpoints() -> tuple[str, yarl.URL]:
    """Return where discord.py sends REST calls and opens the gateway."""
    return Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY


def set_endpoints(api_base: str | None = None, gateway: yarl.URL | None = None) -> None:
    """Send discord.py's REST calls to ``api_base`` and open its gateway at ``gateway``.

    None leaves that one as it is.
    """
    if api_base is not None:
        Route.BASE = api_base
    if gateway is not None:
        DiscordWebSocket.DEFAULT_GATEWAY = gateway


def guild_ready_timeout(client: discord.Client) -> float:
    """Return how long ``client`` waits for more GUILD_CREATEs before READY, in seconds."""
    return float(client._connection.guild_ready_timeout)


def set_guild_ready_timeout(client: discord.Client, seconds: float) -> None:
    """Make a built ``client`` wait ``seconds`` for more GUILD_CREATEs before READY."""
    client._connection.guild_ready_timeout = seconds


def keep_no_view(view: discord.ui.View) -> discord.ui.View:
    """Return ``view`` stopped, so sending it stores nothing per message (dynamic items answer).

    Call it inside the running event loop: a view built outside one can't be stopped.
    """
    view.stop()
    return view


def press_is_dispatched(client: discord.Client, interaction: discord.Interaction) -> bool:
    """Whether discord.py hands the component interaction ``interaction`` to an item (item 8).

    Call it as the interaction arrives (``Client.dispatch("interaction")``), when discord.py has
    just dispatched it: the same lookups on the same state, so it never disagrees with them.
    """
    data: Any = interaction.data or {}
    custom_id, component_type = data.get("custom_id"), data.get("component_type")
    if not isinstance(custom_id, str):
        return False
    store = client._connection._view_store
    message = interaction.message
    if message is not None and any(
        pattern.fullmatch(custom_id) for pattern in store._dynamic_items
    ):
        kind = discord.ui.LayoutView if message.flags.components_v2 else discord.ui.View
        shown = kind.from_message(message, timeout=None)
        if any(
            item.type.value == component_type and getattr(item, "custom_id", None) == custom_id
            for item in shown.walk_children()
        ):
            return True
    key = (component_type, custom_id)
    item = store._views.get(message.id, {}).get(key) if message is not None else None
    if item is None:
        item = store._views.get(None, {}).get(key)
    return item is not None and item.view is not None and not item.view.is_finished()


@dataclass(frozen=True, slots=True)
class AddedOption:
    """An optional option given to a command once built: a boolean, or a string (with choices)."""

    name: str
    description: str  # ≤ 100 characters, as Discord requires
    kind: type[bool] | type[str]
    choices: tuple[app_commands.Choice[Any], ...] = ()


def add_options(
    command: app_commands.Command[Any, ..., Any],
    options: Iterable[AddedOption],
    callback: Callable[..., Coroutine[Any, Any, Any]],
) -> None:
    """Give ``command`` these options after its own, each optional (None when not given), and
    let ``callback`` answer it: it takes what the command's callback takes, and the added
    options by name as keyword arguments (``**options``)."""
    for option in options:
        if option.name in command._params:
            raise ValueError(f"{command.qualified_name} has an option {option.name!r} already")
        declared = inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None)
        parameter = annotation_to_parameter(Optional[option.kind], declared)  # noqa: UP045  # as the annotation ``bool | None`` reads
        parameter.description = option.description
        if option.choices:
            parameter.choices = list(option.choices)
        parameter._convert_to_locale_strings()
        command._params[option.name] = parameter
    command._callback = callback
