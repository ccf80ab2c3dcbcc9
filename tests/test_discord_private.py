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
from typing import Any

import discord
import yarl
from discord import app_commands
from discord.http import Route
from discord.interactions import InteractionResponse
from discord.state import ConnectionState
from discord.ui.view import ViewStore

from bot.discord_private import (
    AddedOption,
    GatedCommandTree,
    add_options,
    endpoints,
    guild_ready_timeout,
    invoke_with_options,
    keep_no_view,
    press_is_dispatched,
    set_endpoints,
    set_guild_ready_timeout,
)


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


async def test_a_command_invoked_with_options_runs_its_checks_then_its_callback() -> None:
    """1. ``_invoke_with_namespace``: checks, then options (defaults for those left out)."""
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
    """2. ``CommandTree._call`` is the coroutine started for each application command."""
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
    """3. ``Route.BASE`` prefixes every REST call; ``DEFAULT_GATEWAY`` is the gateway URL."""
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
    """4. The constructor option lives on ``client._connection``, read when READY is delayed."""
    client = discord.Client(intents=discord.Intents.none(), guild_ready_timeout=0.5)
    assert guild_ready_timeout(client) == 0.5
    set_guild_ready_timeout(client, 0.01)
    assert guild_ready_timeout(client) == 0.01
    assert "self.guild_ready_timeout" in inspect.getsource(ConnectionState._delay_ready)


async def test_a_stopped_view_is_not_stored_when_sent() -> None:
    """5. discord.py stores a sent view for its message only if the view isn't finished.

    A view built outside a running event loop can't be stopped (``is_finished`` stays False):
    the bot builds its views in handlers, inside the loop, as this test does.
    """
    view = keep_no_view(discord.ui.View(timeout=None))
    assert view.is_finished()
    for send in (discord.abc.Messageable.send, InteractionResponse.send_message):
        source = inspect.getsource(send)
        assert "not view.is_finished()" in source and "store_view(" in source, send


async def test_a_dynamic_item_answers_only_a_component_the_message_still_carries() -> None:
    """6. A press reaches ``from_custom_id`` only when the message still has the component."""
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
    """8. ``press_is_dispatched`` agrees with ``ViewStore.dispatch_view`` on every kind of press:
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


async def test_options_added_to_a_built_command_are_synced_and_handed_to_its_new_callback() -> None:
    """``add_options``: the payload is discord.py's for the same options declared in a
    signature, and the callback given receives the added options as keywords."""
    seen: dict[str, object] = {}
    loud = (app_commands.Choice(name="loud", value="loud"),)

    @app_commands.describe(volume="How loud", solo="Alone")
    @app_commands.choices(volume=list(loud))
    async def declared(
        interaction: discord.Interaction,
        dice: int,
        volume: str | None = None,
        solo: bool | None = None,
    ) -> None: ...

    async def own(interaction: discord.Interaction, dice: int) -> None: ...

    async def answer(interaction: discord.Interaction, **options: object) -> None:
        seen.update(options)

    tree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    command: app_commands.Command[Any, ..., None]
    expected: app_commands.Command[Any, ..., None]
    expected = app_commands.Command(name="probe", description="probe", callback=declared)
    command = app_commands.Command(name="probe", description="probe", callback=own)
    add_options(command, [AddedOption("volume", "How loud", str, loud)], answer)
    add_options(command, [AddedOption("solo", "Alone", bool)], answer)
    assert command.to_dict(tree) == expected.to_dict(tree)
    await invoke_with_options(command, _interaction(), {"dice": 3, "volume": "loud"})
    assert seen == {"dice": 3, "volume": "loud", "solo": None}
