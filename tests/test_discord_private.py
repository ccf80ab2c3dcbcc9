"""discord.py's private behaviour the bot relies on (bot/discord_private.py), one test each.

Each test drives the installed discord.py directly, so an upgrade that changes one of these
fails here, naming what changed, before any end-to-end test fails for a reason hard to see.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import discord
import yarl
from discord import app_commands
from discord.http import Route
from discord.interactions import InteractionResponse
from discord.state import ConnectionState
from discord.ui.view import ViewStore

from bot.discord_private import (
    GatedCommandTree,
    endpoints,
    give_option,
    guild_ready_timeout,
    invoke_with_options,
    keep_no_view,
    press_is_dispatched,
    set_endpoints,
    set_guild_ready_timeout,
)

if TYPE_CHECKING:  # (importing it at run time is circular in discord.py)
    from discord.types.interactions import ApplicationCommandInteractionDataOption


def _probe_command(seen: dict[str, object], check: Any) -> app_commands.Command[Any, ..., Any]:
    async def probe(
        interaction: discord.Interaction, dice: int, hidden: bool = False, blind: bool = False
    ) -> None:
        seen.update(dice=dice, hidden=hidden, blind=blind)

    command: app_commands.Command[Any, ..., None]
    command = app_commands.Command(name="probe", description="probe", callback=probe)
    command.add_check(check)
    return command


def _interaction(namespace: object = None) -> Any:
    return SimpleNamespace(
        namespace=namespace, _state=None, guild_id=None, guild=None, command=None, extras={}
    )


async def test_an_option_given_by_a_check_reaches_the_callback() -> None:
    """1. Checks run after the namespace is built and before the arguments are read from it."""
    seen: dict[str, object] = {}

    async def hide(interaction: discord.Interaction) -> bool:
        assert "hidden" not in interaction.namespace  # not typed: only its default so far
        give_option(interaction.namespace, "hidden", True)
        return True

    command = _probe_command(seen, hide)
    interaction = _interaction()
    typed: list[ApplicationCommandInteractionDataOption] = [
        {"type": 4, "name": "dice", "value": 3},
        {"type": 5, "name": "blind", "value": False},
    ]
    interaction.namespace = app_commands.Namespace(interaction, {}, typed)
    # What CommandTree._call does once it has found the command.
    await command._invoke_with_namespace(interaction, interaction.namespace)
    assert seen == {"dice": 3, "hidden": True, "blind": False}


async def test_a_command_invoked_with_options_runs_its_checks_then_its_callback() -> None:
    """2. ``_invoke_with_namespace``: checks, then options (defaults for those left out)."""
    seen: dict[str, object] = {}
    checked: list[str] = []

    async def check(interaction: discord.Interaction) -> bool:
        checked.append("check")
        return True

    await invoke_with_options(_probe_command(seen, check), _interaction(), {"dice": 2})
    assert checked == ["check"]
    assert seen == {"dice": 2, "hidden": False, "blind": False}

    async def refuse(interaction: discord.Interaction) -> bool:
        return False

    seen.clear()
    try:
        await invoke_with_options(_probe_command(seen, refuse), _interaction(), {"dice": 2})
    except app_commands.CheckFailure:
        pass
    else:
        raise AssertionError("a failing check must stop the command")
    assert seen == {}


async def test_each_application_command_interaction_passes_the_tree_gate() -> None:
    """3. ``CommandTree._call`` is the coroutine started for each application command."""
    entered: list[object] = []
    errors: list[BaseException] = []

    class Probe(GatedCommandTree[discord.Client]):
        def gate(self) -> AbstractAsyncContextManager[object]:
            @asynccontextmanager
            async def gate() -> Any:
                entered.append("gate")
                raise app_commands.CheckFailure("stopped at the gate")
                yield

            return gate()

        async def on_error(
            self, interaction: discord.Interaction, error: app_commands.AppCommandError
        ) -> None:
            errors.append(error)

    client = discord.Client(intents=discord.Intents.none())
    client.loop = asyncio.get_running_loop()
    tree = Probe(client)
    tree._from_interaction(_interaction())  # what discord.py does with an INTERACTION_CREATE
    for _ in range(10):
        await asyncio.sleep(0)
    assert entered == ["gate"]
    assert [str(error) for error in errors] == ["stopped at the gate"]


def test_rest_and_gateway_endpoints_can_be_pointed_elsewhere() -> None:
    """4. ``Route.BASE`` prefixes every REST call; ``DEFAULT_GATEWAY`` is the gateway URL."""
    before = endpoints()
    try:
        set_endpoints(api_base="http://127.0.0.1:9/api", gateway=yarl.URL("ws://127.0.0.1:9/"))
        assert Route("GET", "/users/@me").url == "http://127.0.0.1:9/api/users/@me"
        assert endpoints() == ("http://127.0.0.1:9/api", yarl.URL("ws://127.0.0.1:9/"))
        set_endpoints()  # None leaves both as they are
        assert endpoints()[0] == "http://127.0.0.1:9/api"
    finally:
        set_endpoints(*before)
    assert endpoints() == before
    source = inspect.getsource(discord.gateway.DiscordWebSocket.from_client)
    assert "cls.DEFAULT_GATEWAY" in source


def test_the_guild_ready_timeout_can_be_changed_on_a_built_client() -> None:
    """5. The constructor option lives on ``client._connection``, read when READY is delayed."""
    client = discord.Client(intents=discord.Intents.none(), guild_ready_timeout=0.5)
    assert guild_ready_timeout(client) == 0.5
    set_guild_ready_timeout(client, 0.01)
    assert guild_ready_timeout(client) == 0.01
    assert "self.guild_ready_timeout" in inspect.getsource(ConnectionState._delay_ready)


async def test_a_stopped_view_is_not_stored_when_sent() -> None:
    """6. discord.py stores a sent view for its message only if the view isn't finished.

    A view built outside a running event loop can't be stopped (``is_finished`` stays False):
    the bot builds its views in handlers, inside the loop, as this test does.
    """
    view = keep_no_view(discord.ui.View(timeout=None))
    assert view.is_finished()
    for send in (discord.abc.Messageable.send, InteractionResponse.send_message):
        source = inspect.getsource(send)
        assert "not view.is_finished()" in source and "store_view(" in source, send


async def test_a_dynamic_item_answers_only_a_component_the_message_still_carries() -> None:
    """7. A press reaches ``from_custom_id`` only when the message still has the component."""
    reached: list[str] = []

    class Stop(Exception):
        pass

    class Probe(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:(?P<n>\d+)"):
        @classmethod
        async def from_custom_id(
            cls, interaction: discord.Interaction, item: Any, match: re.Match[str]
        ) -> Probe:
            reached.append(match["n"])
            raise Stop  # discord.py logs it and drops the press: enough for this test

    def message(*custom_ids: str) -> Any:
        row = discord.ActionRow(
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "x", "custom_id": c} for c in custom_ids
                ],
            }
        )
        return SimpleNamespace(
            id=1, components=[row] if custom_ids else [], flags=discord.MessageFlags()
        )

    no_state: Any = None  # the store never reaches its connection state here
    store = ViewStore(no_state)
    store.add_dynamic_items(Probe)
    for carried, pressed in ((("probe:1",), "probe:1"), (("probe:2",), "probe:3"), ((), "probe:4")):
        interaction: Any = SimpleNamespace(message=message(*carried), data={"custom_id": pressed})
        store.dispatch_dynamic_items(2, pressed, interaction)
    for _ in range(10):
        await asyncio.sleep(0)
    assert reached == ["1"]  # probe:3 and probe:4 were no longer on their messages


async def test_press_is_dispatched_says_whether_discord_py_hands_the_press_to_an_item() -> None:
    """9. ``press_is_dispatched`` agrees with ``ViewStore.dispatch_view`` on every kind of press:
    a dynamic item's (on the message or not), a stored view's (listening or stopped), none."""
    reached: list[str] = []

    class Stop(Exception):
        pass

    class Probe(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"probe:(?P<n>\d+)"):
        @classmethod
        async def from_custom_id(
            cls, interaction: discord.Interaction, item: Any, match: re.Match[str]
        ) -> Probe:
            reached.append(match["n"])
            raise Stop  # discord.py logs it and drops the press: enough for this test

    class Live(discord.ui.Button[discord.ui.View]):
        async def callback(self, interaction: discord.Interaction) -> None:
            reached.append(str(self.custom_id))

    def message(message_id: int, *custom_ids: str) -> Any:
        row = discord.ActionRow(
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "x", "custom_id": c} for c in custom_ids
                ],
            }
        )
        components = [row] if custom_ids else []
        return SimpleNamespace(id=message_id, components=components, flags=discord.MessageFlags())

    no_state: Any = None  # the store never reaches its connection state here
    store = ViewStore(no_state)
    store.add_dynamic_items(Probe)
    listening = discord.ui.View(timeout=None)
    listening.add_item(Live(custom_id="live:1"))
    store.add_view(listening, 10)
    stopped = discord.ui.View(timeout=None)
    stopped.add_item(Live(custom_id="live:2"))
    store.add_view(stopped, 20)
    stopped.stop()
    anywhere = discord.ui.View(timeout=None)
    anywhere.add_item(Live(custom_id="live:3"))
    store.add_view(anywhere)  # a persistent view: any message
    client: Any = SimpleNamespace(_connection=SimpleNamespace(_view_store=store))
    presses: list[tuple[int, tuple[str, ...], str, str | None]] = [
        # The message's id and custom ids, what is pressed, and whom discord.py hands it to.
        (1, ("probe:1",), "probe:1", "1"),
        (1, ("probe:2",), "probe:3", None),  # no longer on its message
        (1, (), "probe:4", None),
        (1, ("nonsense",), "nonsense", None),  # no item's
        (10, ("live:1",), "live:1", "live:1"),
        (20, ("live:2",), "live:2", None),  # its view stopped
        (30, ("live:3",), "live:3", "live:3"),
        (30, (), "live:1", None),  # another message's view
    ]
    for message_id, carried, pressed, handed in presses:
        interaction: Any = SimpleNamespace(
            message=message(message_id, *carried),
            data={"custom_id": pressed, "component_type": 2},
            type=discord.InteractionType.component,
        )
        assert press_is_dispatched(client, interaction) is (handed is not None), pressed
        reached.clear()
        store.dispatch_view(2, pressed, interaction)
        for _ in range(10):
            await asyncio.sleep(0)
        assert reached == ([] if handed is None else [handed]), pressed
