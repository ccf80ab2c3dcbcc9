"""An aiohttp server that plays Discord (REST API and gateway) for an unmodified discord.py bot.

The fake holds one guild with two text channels (``channel_id`` "table", ``other_channel_id``
"lobby"; ``add_text_channel`` adds more before the bot connects), a public thread in "table"
(``thread_id`` "scene-1") and the members ``users["gm"]``, ``users["player"]`` and
``users["admin"]`` (the admin has a role with Manage Server). The guild is owned by the bot
itself, so no test user gets the owner's implicit permissions.

API: ``start``/``stop``; ``api_base``, ``gateway_url``, ``token``; ``synced_commands(guild=)``;
``invoke(command, options, user=, channel=)`` and ``click(reply_or_message, custom_id, user=,
values=)`` return a ``Reply`` (``.raw`` is the callback body the bot posted; the response
message itself is ``.message``, a ``FakeMessage``); ``channel_messages(channel_id)`` returns
message dicts as Discord sends them, each attachment with its bytes under "data". ``invoke``
refuses options Discord's client would not send (unknown, missing, outside choices or ranges);
``stale_client=True`` skips the choice and range checks, as a client holding an outdated copy
of the commands would. ``bot_connected`` says whether a bot has identified on the gateway.

Timing: ``invoke`` and ``click`` return once the bot has answered the interaction. If the answer
is a deferral (callback type 5 or 6), they wait on until the deferred message is completed by an
edit of ``@original`` or a followup (pass ``wait_deferred=False`` to return at the deferral).
Requests the bot makes *after* its answer (more followups, channel messages, errors it logs)
race with the test: wait for them with ``wait_followups``, ``wait_channel_messages`` or the
general ``wait_until``. Every wait ends as soon as what it waits for happens, and gives up after
``fake.timeout`` seconds (30 by default: generous, so a busy machine never fails a test that is
merely slow) with a TimeoutError naming what it waited for; wrap a call in ``asyncio.timeout()``
to wait less (there is no per-call ``timeout=``: ruff's ASYNC109 asks for exactly that).

For load generation (bench/), ``send`` sends a slash command like ``invoke`` but returns its
``Reply`` at once; ``wait_answered(replies)`` waits for many, and ``forget(replies)`` lets the
fake drop answered ones. Each Reply stamps ``sent_at`` and ``answered_at``
(``time.perf_counter()``, the callback's body fully read), so ``reply.latency`` does not depend
on when the waiting task wakes up. ``identified_at`` and ``synced_at`` stamp the bot's gateway
IDENTIFY and its latest command sync the same way.

Shards: GET /gateway/bot recommends ``recommended_shards`` (1 by default) and allows
``max_concurrency`` identifies at once. Any number of gateway connections may be open; each
IDENTIFY's ``shard: [id, count]`` (absent: [0, 1]) is recorded in ``identified_shards``, and that
connection's READY and GUILD_CREATEs list only the guilds it owns, as Discord routes them:
``(guild_id >> 22) % count == id``. Every event of a guild (an interaction) goes to the
connections owning it; one no connection owns is recorded in ``undeliverable`` and never
answered, as when the process running that shard is down. ``add_guild`` adds a second guild
(``FakeGuild``: its id and channels), with an id on the shard asked for: the first guild is on
shard 0 of 2, a guild added with the default ``shard=(1, 2)`` on shard 1. Send to a guild by
passing one of its channels (``invoke(..., channel=guild.channel_id)``).

Contexts (where a command is used, as Discord's ``context`` and ``authorizing_integration_owners``
say): the fake's guilds have the bot installed (context 0, ``{"0": guild_id}``). ``open_dm(user)``
is the user's DM with the bot (type 1, context 1), ``add_group_dm(users)`` a group DM without the
bot (type 3, context 2) and ``add_foreign_guild()`` a guild the bot is not in (context 0): in
those the user runs the bot as a user install (``{"1": user_id}``), the interaction carries
``user`` instead of ``member`` outside guilds, and the bot can't post to the group DM's or the
foreign guild's channels (403 Missing Access). Only global commands are offered there, and only
those whose ``contexts`` and ``integration_types`` allow it (``stale_client=True`` sends one
anyway, as a client with an outdated command list could); ``commands_offered(channel)`` lists them.
A channel in ``muted_channels`` denies the bot Send Messages (403 Missing Permissions).

Limits and deadlines: every message, callback, followup, edit and autocomplete answer the bot
sends is checked against Discord's documented limits (limits.py); what breaks one is refused as
Discord refuses it (400 Invalid Form Body, each problem at its field's path; 413 for too large an
upload) and recorded in ``refused_requests``. A callback more than 3 s after the interaction was
sent gets 404 Unknown interaction (10062) and invalidates its token; a followup or a webhook
edit more than 15 min after it gets 401 Invalid Webhook Token (50027); both are recorded in
``late_responses``. Time is ``fake.clock`` (``time.monotonic``); a test moves it on with
``advance_clock(seconds)`` instead of sleeping.

Faults: ``fail_next(Endpoint.CALLBACK, 429, 502)`` makes the next two requests to an endpoint
fail, in that order, before the fake acts on them (a 429 as Discord's rate limiter sends it, with
``retry_after`` seconds; a 5xx as its front end does); ``served_failures`` lists those answered,
``pending_failures`` counts those still waiting for a request. ``acted=True`` acts on the request
before failing it, as when Discord's answer is lost on the way back. As Discord does, the fake
makes a channel message sent with ``enforce_nonce`` once per nonce (discord.py gives every
message a random nonce and sets it), answering a retry with the message already made.

Every request to a route the fake does not implement is answered 404 and recorded in
``unhandled_requests``; every log record at ERROR or above is recorded in ``error_logs``.
``check_clean()`` fails on either, unless the test called ``expect_errors()`` (for logs), on
refused and late requests, and on failures set with ``fail_next`` that no request ever met.
"""

from __future__ import annotations

import asyncio
import enum
import json
import logging
import math
import re
import secrets
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from . import payloads
from .commands import MAX_COMMANDS_REACHED, command_problems, too_many_commands
from .form import Problem, describe, invalid_form_body
from .limits import (
    ATTACHMENT_SIZE_MAX,
    CHANNEL_MESSAGE_FLAGS,
    EDIT_FLAGS,
    FOLLOWUP_FLAGS,
    callback_problems,
    message_problems,
    upload_problem,
)
from .messages import FakeMessage, Files, Reply, interactive_components
from .payloads import JSON, LOADING, FakeUser, snowflake

API = "/api/v10"
TEXT_CHANNEL = 0  # a channel's "type" in Discord's payloads
DM_CHANNEL = 1
GROUP_DM_CHANNEL = 3
GUILD_INSTALL, USER_INSTALL = 0, 1  # integration types (keys of authorizing_integration_owners)
IN_GUILD, IN_BOT_DM, IN_PRIVATE_CHANNEL = 0, 1, 2  # interaction contexts
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


class _ErrorLogHandler(logging.Handler):
    """Pass every record at ERROR or above, as plain text, to a callback."""

    def __init__(self, record: Callable[[str], None]) -> None:
        super().__init__(logging.ERROR)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        self._record = record

    def emit(self, record: logging.LogRecord) -> None:
        self._record(ANSI_ESCAPE.sub("", self.format(record)))


class Endpoint(enum.Enum):
    """What a test can make fail with ``FakeDiscord.fail_next``."""

    CALLBACK = "POST /interactions/{id}/{token}/callback"  # the answer to an interaction
    FOLLOWUP = "POST /webhooks/{app}/{token}"  # a followup message
    WEBHOOK_MESSAGE = "/webhooks/{app}/{token}/messages/{message}"  # edit @original or a followup
    CHANNEL_MESSAGE = "POST /channels/{channel}/messages"  # a message of its own (announcements)


@dataclass(frozen=True, slots=True)
class Failure:
    """A failure answered instead of a request: its endpoint, status and the request path."""

    endpoint: Endpoint
    status: int
    path: str


@dataclass(frozen=True, slots=True)
class _Planned:
    """A failure ``fail_next`` queued: its status, the 429's retry_after, whether to act first."""

    status: int
    retry_after: float
    acted: bool


@dataclass(frozen=True, slots=True)
class FakeGuild:
    """A guild of the fake: its id, name and two text channels ("table" and "lobby")."""

    id: int
    name: str
    channel_id: int
    other_channel_id: int

    def on_shard(self, shard_count: int) -> int:
        """The shard Discord sends this guild's events to, as every client computes it."""
        return (self.id >> 22) % shard_count


@dataclass(slots=True)
class _Connection:
    """One identified gateway connection: the shard it runs and its own event sequence."""

    websocket: web.WebSocketResponse
    shard_id: int
    shard_count: int
    sequence: int = 0

    def owns(self, guild_id: int) -> bool:
        return (guild_id >> 22) % self.shard_count == self.shard_id


def snowflake_on_shard(shard_id: int, shard_count: int) -> int:
    """A fresh snowflake whose guild would be on ``shard_id`` of ``shard_count`` (the shard is
    its timestamp modulo the count: moved at most ``shard_count - 1`` ms ahead)."""
    fresh = snowflake()
    milliseconds = fresh >> 22
    milliseconds += (shard_id - milliseconds) % shard_count
    return (milliseconds << 22) | (fresh & ((1 << 22) - 1))


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
RATE_LIMIT_MESSAGE = "You are being rate limited."
# How often wait_until checks a condition that may turn on the bot's side (nothing wakes it).
POLL_SECONDS = 0.01
# interactions/receiving-and-responding, "Interaction Callback": "you must send an initial
# response within 3 seconds of receiving the event. If the 3 second deadline is exceeded, the
# token will be invalidated" (Discord then answers 404, code 10062 Unknown interaction), and
# "Interaction tokens are valid for 15 minutes" for followups and edits (after which Discord
# answers 401, code 50027 Invalid Webhook Token: discord/discord-api-docs issue #6851).
CALLBACK_DEADLINE = 3.0
TOKEN_LIFETIME = 15 * 60.0
UNKNOWN_INTERACTION = 10062
INVALID_WEBHOOK_TOKEN = 50027
# reference, "Uploading Files": too large an upload is answered 413, code 40005.
REQUEST_TOO_LARGE = 40005


class FakeDiscord:
    """Discord's REST API and gateway on 127.0.0.1, for one bot in the same event loop."""

    def __init__(self, *, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.recommended_shards = 1  # GET /gateway/bot's "shards"
        self.max_concurrency = 1  # ... and its session_start_limit.max_concurrency
        self.application_id = snowflake()
        self.bot_user = FakeUser(self.application_id, "Fake Dice Bot", bot=True)
        self.token = payloads.bot_token(self.application_id)
        # On shard 0 of 2 (and of 1): a guild from add_guild() can take shard 1 of 2.
        self.guild_id = snowflake_on_shard(0, 2)
        self.channel_id = snowflake()
        self.other_channel_id = snowflake()
        self.guilds = [
            FakeGuild(self.guild_id, "Fake Table", self.channel_id, self.other_channel_id)
        ]
        self.thread_id = snowflake()
        # A channel only the bot (the guild's owner here) and members with Manage Server can
        # read: what a GM log channel must be.
        self.gm_log_channel_id = snowflake()
        admin_role_id = snowflake()
        admin_permissions = payloads.EVERYONE_PERMISSIONS | payloads.MANAGE_GUILD
        self.users: dict[str, FakeUser] = {
            "gm": FakeUser(snowflake(), "gm"),
            "player": FakeUser(snowflake(), "player"),
            "admin": FakeUser(snowflake(), "admin", (admin_role_id,), admin_permissions),
        }
        self._members = {person.id: person for person in [*self.users.values(), self.bot_user]}
        self._roles = {
            self.guild_id: payloads.role(
                self.guild_id, "@everyone", payloads.EVERYONE_PERMISSIONS, 0
            ),
            admin_role_id: payloads.role(admin_role_id, "Admin", payloads.MANAGE_GUILD, 1),
        }
        self._admin_role_id = admin_role_id
        self._extra_roles: list[int] = []  # add_role's, in the first guild
        gm_id = self.users["gm"].id
        self._channels = {
            self.channel_id: payloads.text_channel(self.channel_id, self.guild_id, "table"),
            self.other_channel_id: payloads.text_channel(
                self.other_channel_id, self.guild_id, "lobby"
            ),
            self.gm_log_channel_id: payloads.text_channel(
                self.gm_log_channel_id,
                self.guild_id,
                "gm-log",
                [payloads.overwrite(self.guild_id, deny=payloads.VIEW_CHANNEL)],
            ),
            self.thread_id: payloads.thread(
                self.thread_id, self.guild_id, self.channel_id, gm_id, "scene-1"
            ),
        }

        self._dm_channels: dict[int, int] = {}  # user id → their DM channel with the bot
        # Guilds the bot is not in (add_foreign_guild): a user install reaches them.
        self._foreign_guilds: set[int] = set()
        # Users whose DMs are closed to the bot: sending them one gets 403 (code 50007).
        self.closed_dms: set[int] = set()
        # Channels that deny the bot Send Messages: posting there gets 403 (code 50013).
        self.muted_channels: set[int] = set()

        self.unhandled_requests: list[str] = []
        self.refused_requests: list[str] = []  # bodies refused (400) for breaking Discord's limits
        # The next this-many interactions the bot answers have "expired", as when Discord's 3 s
        # deadline passed: their callbacks and followups get 404 Unknown interaction / webhook.
        self.expired_interactions = 0
        self._expired_tokens: set[str] = set()
        # What Discord's deadlines are measured with (CALLBACK_DEADLINE, TOKEN_LIFETIME): a test
        # replaces it (or calls advance_clock) to be late without waiting.
        self.clock: Callable[[], float] = time.monotonic
        # Discord's 3 s for the first response. Only a test whose point is a burst far past
        # one server's traffic (hundreds at once, to check the serial result) lifts it (None):
        # on a loaded CI machine the burst itself takes longer, and speed is the benchmarks'.
        self.callback_deadline: float | None = CALLBACK_DEADLINE
        # Answers that came after Discord's deadline (refused as Discord refuses them).
        self.late_responses: list[str] = []
        self.error_logs: list[str] = []
        self.errors_expected = False
        self._failing: dict[Endpoint, deque[_Planned]] = {e: deque() for e in Endpoint}
        self.served_failures: list[Failure] = []
        self.sync_count = 0
        self.synced_at: float | None = None  # time.perf_counter() of the latest sync
        self.identified_at: float | None = None  # ... and of the latest gateway IDENTIFY
        self._synced: dict[int | None, list[JSON]] = {}  # guild id (None: global) -> commands
        self._replies: dict[str, Reply] = {}  # interaction token -> reply
        self._channel_messages: dict[int, list[FakeMessage]] = {}
        # (channel id, nonce) -> the message a POST with enforce_nonce made: a retry gets it back.
        self._nonces: dict[tuple[int, str], FakeMessage] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self._connections: dict[web.WebSocketResponse, _Connection] = {}
        self.identified_shards: list[tuple[int, int]] = []  # each IDENTIFY's [id, count]
        self.shard_identified_at: dict[int, float] = {}  # shard id -> perf_counter of its latest
        self.undeliverable: list[str] = []  # events of a guild no connected shard owns
        # What wait_until waits on: each waiter's future, resolved by the next fake-side change;
        # the pollers' also by the next poll tick (their condition may turn on the bot's side).
        self._waiters: list[asyncio.Future[None]] = []
        self._pollers: list[asyncio.Future[None]] = []
        self._poll_tick: tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._port = 0
        self._log_handler = _ErrorLogHandler(self._record_error)

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._started_port()}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self._started_port()}/gateway"

    def _started_port(self) -> int:
        if not self._port:
            raise RuntimeError("FakeDiscord is not started")
        return self._port

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        self._add_routes(app.router)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        await web.SockSite(self._runner, listener).start()
        self._port = listener.getsockname()[1]
        self._loop = asyncio.get_running_loop()
        logging.getLogger().addHandler(self._log_handler)

    async def stop(self) -> None:
        for websocket in list(self._sockets):
            await websocket.close(code=1000)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        logging.getLogger().removeHandler(self._log_handler)

    def _add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/gateway", self._gateway_socket)
        router.add_get(API + "/gateway", self._get_gateway)
        router.add_get(API + "/gateway/bot", self._get_gateway)
        router.add_get(API + "/users/@me", self._get_me)
        router.add_post(API + "/users/@me/channels", self._post_dm_channel)
        router.add_get(API + "/users/{user}", self._get_user)
        router.add_get(API + "/guilds/{guild}/members/{user}", self._get_member)
        router.add_get(API + "/oauth2/applications/@me", self._get_application)
        for path in ("/applications/{app}/commands", "/applications/{app}/guilds/{guild}/commands"):
            router.add_put(API + path, self._put_commands)
            router.add_get(API + path, self._get_commands)
        router.add_post(
            API + "/interactions/{id}/{token}/callback",
            self._faulty(Endpoint.CALLBACK, self._post_callback),
        )
        router.add_post(
            API + "/webhooks/{app}/{token}", self._faulty(Endpoint.FOLLOWUP, self._post_followup)
        )
        router.add_route(
            "*",
            API + "/webhooks/{app}/{token}/messages/{message}",
            self._faulty(Endpoint.WEBHOOK_MESSAGE, self._webhook_message),
        )
        router.add_get(API + "/channels/{channel}", self._get_channel)
        router.add_post(
            API + "/channels/{channel}/messages",
            self._faulty(Endpoint.CHANNEL_MESSAGE, self._post_channel_message),
        )
        router.add_route("*", API + "/channels/{channel}/messages/{message}", self._channel_message)
        router.add_route("*", "/{tail:.*}", self._unhandled)

    # -- what tests use --------------------------------------------------------------------

    def add_text_channel(self, name: str, overwrites: list[JSON] | None = None) -> int:
        """Add a text channel to the guild before the bot connects; return its id.

        ``overwrites``: its permission overwrites (``payloads.overwrite``)."""
        if self._connections:
            raise RuntimeError("add channels before the bot connects (GUILD_CREATE lists them)")
        channel_id = snowflake()
        self._channels[channel_id] = payloads.text_channel(
            channel_id, self.guild_id, name, overwrites
        )
        return channel_id

    def add_role(self, name: str, permissions: int = 0, *, bot_id: int | None = None) -> int:
        """Add a role to the first guild before the bot connects; return its id. With
        ``bot_id``, the role Discord manages for that bot (the dice bot's: ``application_id``)."""
        if self._connections:
            raise RuntimeError("add roles before the bot connects (GUILD_CREATE lists them)")
        role_id = snowflake()
        position = 2 + len(self._extra_roles)
        self._roles[role_id] = payloads.role(role_id, name, permissions, position, bot_id=bot_id)
        self._extra_roles.append(role_id)
        return role_id

    async def set_overwrites(self, channel_id: int, overwrites: list[JSON]) -> None:
        """Change a channel's permission overwrites, as a server admin would: the bot gets a
        CHANNEL_UPDATE (wait for its cache to show the change before relying on it)."""
        channel = {**self._channels[channel_id], "permission_overwrites": list(overwrites)}
        self._channels[channel_id] = channel
        await self._dispatch("CHANNEL_UPDATE", channel, int(channel["guild_id"]))

    def add_guild(
        self, name: str = "Second Table", *, shard: tuple[int, int] = (1, 2)
    ) -> FakeGuild:
        """Add a guild, with the same members, whose id puts it on ``shard`` (id, count), before
        the bot connects; return it. Its "table" and "lobby" channels take commands as the first
        guild's do (``invoke(..., channel=guild.channel_id)``)."""
        if self._connections:
            raise RuntimeError("add guilds before the bot connects (READY lists them)")
        shard_id, shard_count = shard
        guild_id = snowflake_on_shard(shard_id, shard_count)
        guild = FakeGuild(guild_id, name, snowflake(), snowflake())
        self._roles[guild_id] = payloads.role(
            guild_id, "@everyone", payloads.EVERYONE_PERMISSIONS, 0
        )
        for channel_id, channel_name in (
            (guild.channel_id, "table"),
            (guild.other_channel_id, "lobby"),
        ):
            self._channels[channel_id] = payloads.text_channel(channel_id, guild_id, channel_name)
        self.guilds.append(guild)
        return guild

    def open_dm(self, user: str | FakeUser = "player") -> int:
        """Return the id of ``user``'s DM channel with the bot (made if new): commands there
        come in context 1 (the bot's DM), as a user install."""
        person = self._person(user)
        channel_id = self._dm_channels.get(person.id)
        if channel_id is None:
            channel_id = snowflake()
            self._dm_channels[person.id] = channel_id
            self._channels[channel_id] = payloads.dm_channel(channel_id, person)
        return channel_id

    def add_group_dm(self, users: tuple[str, ...] = ("player", "gm")) -> int:
        """Add a group DM of ``users`` (the bot is not in it); return its id. Commands there
        come in context 2 (a private channel), as a user install; the bot can't post there."""
        channel_id = snowflake()
        people = [self._person(user) for user in users]
        self._channels[channel_id] = payloads.group_dm(channel_id, people)
        return channel_id

    def add_foreign_guild(self, name: str = "Elsewhere") -> FakeGuild:
        """Add a guild the bot is not in (no GUILD_CREATE, no access to its channels); return
        it. Its members use the bot there as a user install; posting to its channels is 403."""
        guild = FakeGuild(snowflake_on_shard(0, 2), name, snowflake(), snowflake())
        for channel_id, channel_name in (
            (guild.channel_id, "table"),
            (guild.other_channel_id, "lobby"),
        ):
            self._channels[channel_id] = payloads.text_channel(channel_id, guild.id, channel_name)
        self._foreign_guilds.add(guild.id)
        return guild

    def context_of(self, channel_id: int) -> tuple[int, int]:
        """Return the interaction context of a channel and the integration type used there."""
        channel = self._channels[channel_id]
        if "guild_id" in channel:
            foreign = int(channel["guild_id"]) in self._foreign_guilds
            return IN_GUILD, USER_INSTALL if foreign else GUILD_INSTALL
        bot_dm = channel["type"] == DM_CHANNEL and channel_id in self._dm_channels.values()
        return (IN_BOT_DM if bot_dm else IN_PRIVATE_CHANNEL), USER_INSTALL

    def commands_offered(self, channel_id: int) -> list[str]:
        """The names of the commands Discord's client offers in a channel, sorted."""
        names = {c["name"] for c in self._commands_seen_in(channel_id) if c.get("type", 1) == 1}
        found = (self._find_command(name, channel_id)[0] for name in names)
        return sorted(command["name"] for command in found if self._offered(command, channel_id))

    def synced_commands(self, guild: bool = False) -> list[JSON]:
        """Return the commands the bot last synced, for the guild or globally."""
        return list(self._synced.get(self.guild_id if guild else None, []))

    def channel_messages(self, channel_id: int) -> list[JSON]:
        """Return the messages the bot posted to a channel (POST /channels/{id}/messages).

        Each is the message as Discord returns it; each attachment also holds its ``data``.
        """
        return [message.raw_with_data() for message in self._channel_messages.get(channel_id, [])]

    def posted_count(self, channel_id: int) -> int:
        """How many messages the bot posted to a channel (``channel_messages`` without copies)."""
        return len(self._channel_messages.get(channel_id, []))

    def dm_messages(self, user: str | FakeUser) -> list[JSON]:
        """Return the direct messages the bot sent to a user."""
        person = self._person(user)
        channel_id = self._dm_channels.get(person.id)
        return [] if channel_id is None else self.channel_messages(channel_id)

    def channel_message(self, channel_id: int, message_id: int | str) -> FakeMessage:
        """Return a message the bot posted to a channel, live (to click on or read its edits)."""
        for message in self._channel_messages.get(channel_id, []):
            if str(message.id) == str(message_id):
                return message
        raise KeyError(f"no message {message_id} in channel {channel_id}")

    async def invoke(
        self,
        command: str,
        options: Mapping[str, Any] | None = None,
        *,
        user: str | FakeUser = "gm",
        channel: int | None = None,
        wait_deferred: bool = True,
        stale_client: bool = False,
    ) -> Reply:
        """Send a slash command ("campaign gm add") and return the bot's answer.

        Option values: str, int, float, bool, a FakeUser (USER/MENTIONABLE), or an id.
        ``stale_client=True`` skips the choice and range checks, as a Discord client holding an
        outdated copy of the commands would (a choice since removed, a changed range).
        """
        reply = await self.send(
            command, options, user=user, channel=channel, stale_client=stale_client
        )
        await self._wait_settled(reply, f"/{command}", wait_deferred)
        return reply

    async def send(
        self,
        command: str,
        options: Mapping[str, Any] | None = None,
        *,
        user: str | FakeUser = "gm",
        channel: int | None = None,
        stale_client: bool = False,
    ) -> Reply:
        """Send a slash command like ``invoke``, but return its Reply at once, unanswered."""
        root, *path = command.split()
        definition, from_guild_tree = self._find_command(root, channel)
        if not stale_client:
            self._check_offered(definition, channel or self.channel_id)
        resolved: JSON = {}
        data: JSON = {
            "id": definition["id"],
            "name": root,
            "type": 1,
            "options": self._encode_options(
                definition, path, dict(options or {}), resolved, check=not stale_client
            ),
        }
        return await self._send_command(data, resolved, from_guild_tree, user, channel)

    async def autocomplete(
        self,
        command: str,
        options: Mapping[str, Any],
        focused: str,
        *,
        user: str | FakeUser = "gm",
        channel: int | None = None,
    ) -> list[JSON]:
        """Type into option ``focused`` (its value in ``options`` is the text so far) and
        return the choices the bot suggests, as Discord's client would show them."""
        root, *path = command.split()
        definition, from_guild_tree = self._find_command(root, channel)
        self._check_offered(definition, channel or self.channel_id)
        resolved: JSON = {}
        others = {name: value for name, value in options.items() if name != focused}
        nested = self._encode_options(definition, path, others, resolved, check=False, partial=True)
        leaf = nested
        while leaf and leaf[0]["type"] in (1, 2):
            leaf = leaf[0]["options"]
        declared = definition
        for name in path:
            declared = next(o for o in declared["options"] if o["name"] == name)
        kind = next(o["type"] for o in declared["options"] if o["name"] == focused)
        # The client sends the text typed so far, whatever the option's type.
        leaf.append(
            {"name": focused, "type": kind, "value": str(options[focused]), "focused": True}
        )
        data: JSON = {"id": definition["id"], "name": root, "type": 1, "options": nested}
        reply = await self._send_command(data, resolved, from_guild_tree, user, channel, kind=4)
        await self._wait_settled(reply, f"autocomplete of {focused!r} in /{command}", False)
        return list((reply.raw or {}).get("data", {}).get("choices", []))

    async def send_raw(
        self,
        command: str,
        options: list[JSON],
        *,
        resolved: JSON | None = None,
        user: str | FakeUser = "gm",
        channel: int | None = None,
    ) -> Reply:
        """Send a slash command whose leaf ``options`` go on the wire exactly as given.

        For payloads no Discord client sends (wrong JSON types, missing or unknown options,
        unresolved users): a hostile or broken client, or a forged request. Returns at once.
        """
        root, *path = command.split()
        definition, from_guild_tree = self._find_command(root, channel)
        nested: list[JSON] = options
        node = definition
        chain: list[JSON] = []
        for name in path:
            node = next((o for o in node.get("options", []) if o["name"] == name), {"type": 1})
            chain.append({"name": name, "type": node["type"]})
        for level in reversed(chain):
            nested = [{**level, "options": nested}]
        data: JSON = {"id": definition["id"], "name": root, "type": 1, "options": nested}
        return await self._send_command(data, resolved, from_guild_tree, user, channel)

    async def _send_command(
        self,
        data: JSON,
        resolved: JSON | None,
        from_guild_tree: bool,
        user: str | FakeUser,
        channel: int | None,
        kind: int = 2,  # 2: a slash command, 4: an autocomplete request
    ) -> Reply:
        if resolved:
            data["resolved"] = resolved
        channel_id = channel or self.channel_id
        if from_guild_tree:
            data["guild_id"] = str(self._guild_of(channel_id))
        payload = self._interaction(kind, data, self._person(user), channel_id)
        return await self._send_interaction(payload, None)

    async def click(
        self,
        target: Reply | FakeMessage,
        custom_id: str,
        *,
        user: str | FakeUser = "gm",
        values: list[str] | None = None,
        wait_deferred: bool = True,
        stale_client: bool = False,
    ) -> Reply:
        """Click a button (or pick select ``values``) on a message; return the bot's answer.

        ``stale_client=True`` clicks a button the message no longer shows, as a client that has
        not yet seen the edit (or a double click) does.
        """
        message = target.message if isinstance(target, Reply) else target
        if message is None:
            raise ValueError("the reply has no message to click on")
        component = next(
            (c for c in interactive_components(message.components) if c["custom_id"] == custom_id),
            {"custom_id": custom_id, "type": 2} if stale_client else None,
        )
        if component is None:
            raise ValueError(
                f"no component {custom_id!r} on the message; it has {message.custom_ids()}"
            )
        data: JSON = {"custom_id": custom_id, "component_type": component["type"]}
        if values is not None:
            data["values"] = values
        payload = self._interaction(3, data, self._person(user), message.channel_id)
        payload["message"] = message.raw
        reply = await self._send_interaction(payload, message)
        await self._wait_settled(reply, f"the click on {custom_id!r}", wait_deferred)
        return reply

    async def wait_answered(self, replies: list[Reply], *, wait_deferred: bool = True) -> None:
        """Wait until the bot has answered every one of ``replies`` (from ``send``)."""
        settled = 0  # replies[:settled] are answered; checked in order, so waking is cheap

        def all_settled() -> bool:
            nonlocal settled
            while settled < len(replies) and replies[settled].settled(wait_deferred):
                settled += 1
            return settled == len(replies)

        await self.wait_until(
            all_settled,
            f"the bot to answer {len(replies)} interactions (answered {settled})",
            fake_side=True,
        )
        refused = [reply.refused for reply in replies if reply.refused is not None]
        if refused:
            raise AssertionError(
                f"Discord refused {len(refused)} of the bot's answers, the first: {refused[0]}"
            )

    def forget(self, replies: list[Reply]) -> None:
        """Drop answered replies, so a long benchmark does not keep every one; the bot can no
        longer edit them or send followups to them."""
        for reply in replies:
            self._replies.pop(reply.interaction["token"], None)

    async def wait_until(
        self, predicate: Callable[[], object], what: str, *, fake_side: bool = False
    ) -> None:
        """Wait until ``predicate()`` is true; raise TimeoutError naming ``what`` otherwise.

        Fake-side changes (a request the bot made, a connection, an ERROR logged) wake the wait
        at once; a short poll (every POLL_SECONDS) covers conditions that turn on the bot's
        side. ``fake_side=True`` says the condition can only turn with a fake-side change (a
        reply answered, a message posted): then there is no poll, which matters when hundreds
        wait at once (a poll would wake each of them a hundred times a second).
        """
        if predicate():
            return
        loop = asyncio.get_running_loop()
        waiting: list[asyncio.Future[None]] = []  # this wait's current future, for the timer

        def time_up() -> None:
            if waiting and not waiting[0].done():
                waiting[0].set_result(None)

        deadline = loop.time() + self.timeout
        timer = loop.call_at(deadline, time_up)
        try:
            while not predicate():
                if loop.time() >= deadline:
                    raise TimeoutError(
                        f"timed out after {self.timeout} s waiting for {what}{self._diagnosis()}"
                    )
                future = loop.create_future()
                waiting[:] = [future]
                if fake_side:
                    self._waiters.append(future)
                else:
                    self._pollers.append(future)
                    if self._poll_tick is None or self._poll_tick[0] is not loop:
                        self._poll_tick = loop, loop.call_later(POLL_SECONDS, self._poll)
                await future
        finally:
            timer.cancel()

    def _poll(self) -> None:
        self._poll_tick = None
        self._wake(self._pollers)
        self._pollers = []

    @staticmethod
    def _wake(futures: list[asyncio.Future[None]]) -> None:
        for future in futures:
            if not future.done():
                future.set_result(None)

    async def wait_followups(self, reply: Reply, count: int = 1) -> list[FakeMessage]:
        """Wait until the reply has ``count`` followups; return them."""
        await self.wait_until(
            lambda: len(reply.followups) >= count, f"{count} followup(s)", fake_side=True
        )
        return list(reply.followups)

    async def wait_channel_messages(self, channel_id: int, count: int = 1) -> list[JSON]:
        """Wait until ``count`` messages were posted to the channel; return them."""
        await self.wait_until(
            lambda: len(self._channel_messages.get(channel_id, [])) >= count,
            f"{count} message(s) in channel {channel_id}",
            fake_side=True,
        )
        return self.channel_messages(channel_id)

    def fail_next(
        self,
        endpoint: Endpoint,
        *statuses: int,
        retry_after: float = 0.05,
        acted: bool = False,
    ) -> None:
        """Answer the next ``len(statuses)`` requests to ``endpoint`` with these statuses, in
        order, without acting on them (as Discord's rate limiter and front end refuse a request
        before it reaches the API). A 429 tells the client to retry after ``retry_after`` s.
        ``acted=True`` (5xx only): act on each request first, as when Discord did what was
        asked but its answer was lost on the way back (a 502 from its front end).

        discord.py retries a 429 after ``retry_after``; it retries a 5xx after 1, 3, 5, 7 s on
        the webhook routes (callback, followup, webhook message), but on the bot's own routes
        (channel messages) only 500, 502, 504 and 524; it gives up after five tries.
        """
        for status in statuses:
            if status != 429 and status < 500:
                raise ValueError(f"{status} is not a failure discord.py could retry")
            if acted and status == 429:
                raise ValueError("a 429 comes from the rate limiter, before Discord acts")
            self._failing[endpoint].append(_Planned(status, retry_after, acted))

    @property
    def pending_failures(self) -> int:
        """How many failures set with ``fail_next`` no request has met yet."""
        return sum(len(queue) for queue in self._failing.values())

    def expect_errors(self) -> list[str]:
        """Let this test log ERRORs; return the (live) list of them, to assert on."""
        self.errors_expected = True
        return self.error_logs

    def world(self) -> str:
        """What a connected bot may hold of this fake in its cache (guilds, channels, roles,
        members, DMs) and what decides how the fake treats it, as text: the same text, the
        same world. tests/e2e/conftest.py goes on with a bot only while its world is unchanged.
        """
        return repr(
            (
                self.guilds,
                sorted(self._channels.items()),
                sorted(self._roles.items()),
                sorted(self.users.items()),
                sorted(self._members),
                sorted(self._dm_channels.items()),
                sorted(self._foreign_guilds),
                sorted(self.closed_dms),
                sorted(self.muted_channels),
            )
        )

    @property
    def unanswered(self) -> int:
        """How many interactions sent to the bot it has not answered (yet)."""
        return sum(reply.raw is None for reply in self._replies.values())

    def forget_the_test(self) -> None:
        """Forget what the bot did and what a test planned (replies, posted messages, errors,
        failures), keeping the world and the bot's connection: the next test starts from a
        clean record, as it would with a new fake."""
        self.unhandled_requests.clear()
        self.refused_requests.clear()
        self.expired_interactions = 0
        self._expired_tokens.clear()
        self.clock = time.monotonic
        self.callback_deadline = CALLBACK_DEADLINE
        self.late_responses.clear()
        self.error_logs = []  # a new list: expect_errors() handed the old one to a test
        self.errors_expected = False
        for planned in self._failing.values():
            planned.clear()
        self.served_failures.clear()
        self._replies.clear()
        self._channel_messages.clear()
        self._nonces.clear()
        self.undeliverable.clear()

    def check_clean(self) -> None:
        """Raise AssertionError if the bot used an unimplemented route, sent what Discord
        refuses, answered after Discord's deadline or logged an ERROR."""
        problems = []
        if self.unhandled_requests:
            problems.append(
                "the bot used routes the fake does not implement:\n  "
                + "\n  ".join(self.unhandled_requests)
            )
        if self.refused_requests:
            problems.append(
                "the bot sent requests Discord would refuse (400 Invalid Form Body):\n  "
                + "\n  ".join(self.refused_requests)
            )
        if self.late_responses:
            problems.append(
                "the bot answered after Discord's deadline (3 s for the first response, "
                "15 min for the interaction's token):\n  " + "\n  ".join(self.late_responses)
            )
        unserved = {e.name: len(queue) for e, queue in self._failing.items() if queue}
        if unserved:
            problems.append(f"failures set with fail_next were never served: {unserved}")
        if self.error_logs and not self.errors_expected:
            problems.append(
                "ERROR logged (call fake.expect_errors() if intended):\n"
                + "\n".join(self.error_logs)
            )
        if problems:
            raise AssertionError("\n".join(problems))

    # -- interactions ----------------------------------------------------------------------

    def _person(self, user: str | FakeUser) -> FakeUser:
        return self.users[user] if isinstance(user, str) else user

    def _guild_of(self, channel_id: int) -> int:
        """The guild a channel (or thread) belongs to; the first guild for a DM channel."""
        guild_id = self._channels.get(channel_id, {}).get("guild_id")
        return int(guild_id) if guild_id is not None else self.guild_id

    def _scopes(self, channel_id: int) -> tuple[int | None, ...]:
        """Where the client in a channel finds commands: its guild's (if the bot is installed
        there), then the global ones."""
        context, install = self.context_of(channel_id)
        if context == IN_GUILD and install == GUILD_INSTALL:
            return (self._guild_of(channel_id), None)
        return (None,)

    def _commands_seen_in(self, channel_id: int) -> list[JSON]:
        return [c for scope in self._scopes(channel_id) for c in self._synced.get(scope, [])]

    def _offered(self, command: JSON, channel_id: int) -> bool:
        """Whether Discord's client offers ``command`` in a channel: its contexts (all when
        unset) and install types (a guild install when unset) allow where it is used."""
        context, install = self.context_of(channel_id)
        contexts = command.get("contexts")
        installs = command.get("integration_types") or [GUILD_INSTALL]
        return (contexts is None or context in contexts) and install in installs

    def _bot_is_in(self, channel_id: int) -> bool:
        """Whether the bot can see a channel: not one of a guild it is not in, nor a group DM."""
        context, install = self.context_of(channel_id)
        return context == IN_BOT_DM or install == GUILD_INSTALL

    def _check_offered(self, command: JSON, channel_id: int) -> None:
        if not self._offered(command, channel_id):
            context, install = self.context_of(channel_id)
            raise ValueError(
                f"Discord does not offer /{command['name']} in context {context} with install "
                f"type {install} (contexts {command.get('contexts')}, integration_types "
                f"{command.get('integration_types')}); stale_client=True sends it anyway"
            )

    def _find_command(self, name: str, channel: int | None = None) -> tuple[JSON, bool]:
        """Return the synced chat command ``name`` as the client in ``channel``'s guild sees it
        (that guild's commands, then the global ones), and whether it came from the guild's."""
        for guild_id in self._scopes(channel or self.channel_id):
            for command in self._synced.get(guild_id, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command, guild_id is not None
        known = sorted({c["name"] for commands in self._synced.values() for c in commands})
        raise ValueError(f"/{name} was not synced by the bot; synced: {known}")

    def _encode_options(
        self,
        definition: JSON,
        path: list[str],
        values: dict[str, Any],
        resolved: JSON,
        *,
        check: bool = True,
        partial: bool = False,
    ) -> list[JSON]:
        """Encode the options the Discord way, nesting SUB_COMMAND_GROUP and SUB_COMMAND."""
        declared = {option["name"]: option for option in definition.get("options", [])}
        if path:
            child = declared.get(path[0])
            if child is None or child["type"] not in (1, 2):
                raise ValueError(f"{definition['name']!r} has no subcommand {path[0]!r}")
            options = self._encode_options(
                child, path[1:], values, resolved, check=check, partial=partial
            )
            return [{"name": child["name"], "type": child["type"], "options": options}]
        if any(option["type"] in (1, 2) for option in declared.values()):
            raise ValueError(f"{definition['name']!r} needs a subcommand: {sorted(declared)}")
        unknown = set(values) - set(declared)
        required = {name for name, option in declared.items() if option.get("required")}
        missing = set() if partial else required - set(values)
        if unknown or missing:
            raise ValueError(
                f"{definition['name']!r}: unknown option(s) {sorted(unknown)}, "
                f"missing required {sorted(missing)}; it takes {sorted(declared)}"
            )
        return [
            {
                "name": name,
                "type": declared[name]["type"],
                "value": (_allowed if check else _unchecked)(
                    declared[name], self._encode_value(declared[name]["type"], value, resolved)
                ),
            }
            for name, value in values.items()
        ]

    def _encode_value(self, kind: int, value: Any, resolved: JSON) -> Any:
        if kind == 3:
            return str(value)
        if kind == 4:
            return int(value)
        if kind == 5:
            return bool(value)
        if kind == 10:
            return float(value)
        if kind not in (6, 7, 8, 9):
            raise ValueError(f"option type {kind} is not supported by the fake")
        target = value.id if isinstance(value, FakeUser) else int(value)
        if kind in (6, 9) and target in self._members:
            person = self._members[target]
            resolved.setdefault("users", {})[str(target)] = payloads.user(person)
            resolved.setdefault("members", {})[str(target)] = payloads.member(
                person, with_user=False, with_permissions=True
            )
        elif kind in (8, 9) and target in self._roles:
            resolved.setdefault("roles", {})[str(target)] = self._roles[target]
        elif kind == 7 and target in self._channels:
            channel = {**self._channels[target], "permissions": str(payloads.EVERYONE_PERMISSIONS)}
            resolved.setdefault("channels", {})[str(target)] = channel
        else:
            raise ValueError(f"{target} is not a member, role or channel of the fake guild")
        return str(target)

    def _interaction(self, kind: int, data: JSON, person: FakeUser, channel_id: int) -> JSON:
        if channel_id not in self._channels:
            raise ValueError(f"unknown channel {channel_id}")
        context, install = self.context_of(channel_id)
        payload: JSON = {
            "id": str(snowflake()),
            "application_id": str(self.application_id),
            "type": kind,
            "token": secrets.token_urlsafe(48),
            "version": 1,
            "data": data,
            "channel_id": str(channel_id),
            "channel": {**self._channels[channel_id], "permissions": str(person.permissions)},
            "app_permissions": str(self.bot_user.permissions),
            "locale": "en-US",
            "entitlements": [],
            "context": context,
            "attachment_size_limit": ATTACHMENT_SIZE_MAX,  # Discord's default for everyone
        }
        if context == IN_GUILD:
            guild_id = self._guild_of(channel_id)
            payload["guild_id"] = str(guild_id)
            payload["guild"] = {"id": str(guild_id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = payloads.member(person, with_permissions=True)
        else:  # a DM or group DM: the user, no member
            payload["user"] = payloads.user(person)
        if install == GUILD_INSTALL:
            payload["authorizing_integration_owners"] = {"0": payload["guild_id"]}
        else:
            payload["authorizing_integration_owners"] = {"1": str(person.id)}
        return payload

    async def _send_interaction(self, payload: JSON, source: FakeMessage | None) -> Reply:
        reply = Reply(interaction=payload, source=source)
        self._replies[payload["token"]] = reply
        reply.sent_at = time.perf_counter()
        reply.sent_clock = self.clock()
        # Discord sends the events of DMs to shard 0 (as a guild id of 0 would be).
        guild_id = int(payload.get("guild_id") or 0)
        await self._dispatch("INTERACTION_CREATE", payload, guild_id)
        return reply

    async def _wait_settled(self, reply: Reply, what: str, wait_deferred: bool) -> None:
        await self.wait_until(
            lambda: reply.settled(wait_deferred), f"the bot to answer {what}", fake_side=True
        )
        if reply.refused is not None:
            raise AssertionError(f"Discord refused the bot's answer to {what}: {reply.refused}")

    @staticmethod
    def _refused_completion(reply: Reply, why: str) -> None:
        """A deferred answer whose completing followup or edit was refused never completes."""
        if reply.deferred and not reply.completed:
            reply.refused = why

    # -- gateway ---------------------------------------------------------------------------

    async def _gateway_socket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse()
        await websocket.prepare(request)
        self._sockets.add(websocket)
        try:
            await websocket.send_json({"op": 10, "d": {"heartbeat_interval": 41_250}})
            async for frame in websocket:
                if frame.type is WSMsgType.TEXT:
                    await self._on_gateway_packet(websocket, json.loads(frame.data))
        finally:
            self._sockets.discard(websocket)
            self._connections.pop(websocket, None)
            self.notify()
        return websocket

    @property
    def bot_connected(self) -> bool:
        """Whether a bot has identified on the gateway (READY and GUILD_CREATE were sent)."""
        return bool(self._connections)

    @property
    def connected_shards(self) -> list[tuple[int, int]]:
        """The (shard id, shard count) of every identified connection still open, sorted."""
        return sorted((c.shard_id, c.shard_count) for c in self._connections.values())

    async def _on_gateway_packet(self, websocket: web.WebSocketResponse, packet: JSON) -> None:
        op = packet["op"]
        if op == 1:  # heartbeat
            await websocket.send_json({"op": 11})
        elif op == 2:  # identify
            self.identified_at = time.perf_counter()
            shard = packet["d"].get("shard")
            shard_id, shard_count = (int(shard[0]), int(shard[1])) if shard else (0, 1)
            self.identified_shards.append((shard_id, shard_count))
            self.shard_identified_at[shard_id] = self.identified_at
            connection = _Connection(websocket, shard_id, shard_count)
            self._connections[websocket] = connection
            owned = [guild for guild in self.guilds if connection.owns(guild.id)]
            await self._send_event(connection, "READY", self._ready_payload(owned, shard))
            for guild in owned:
                await self._send_event(connection, "GUILD_CREATE", self._guild_payload(guild))
            self.notify()
        elif op not in (3, 4):  # presence and voice state updates need no answer
            self.unhandled_requests.append(f"gateway op {op}")

    async def _dispatch(self, event: str, data: JSON, guild_id: int) -> None:
        """Send a guild's event to the connections of the shard owning it, as Discord does."""
        if not self._connections:
            raise RuntimeError("no bot is connected to the fake gateway (use run_bot)")
        owners = [c for c in self._connections.values() if c.owns(guild_id)]
        if not owners:
            self.undeliverable.append(f"{event} for guild {guild_id}")
            self.notify()
        for connection in owners:
            await self._send_event(connection, event, data)

    async def _send_event(self, connection: _Connection, event: str, data: JSON) -> None:
        connection.sequence += 1
        frame = {"op": 0, "t": event, "s": connection.sequence, "d": data}
        await connection.websocket.send_json(frame)

    def _ready_payload(self, guilds: list[FakeGuild], shard: list[int] | None) -> JSON:
        ready: JSON = {
            "v": 10,
            "user": {**payloads.user(self.bot_user), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": str(guild.id), "unavailable": True} for guild in guilds],
            "session_id": secrets.token_hex(16),
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
        }
        if shard is not None:  # Discord echoes the shard of the IDENTIFY
            ready["shard"] = shard
        return ready

    def _guild_payload(self, guild: FakeGuild) -> JSON:
        channels = [c for c in self._channels.values() if c.get("guild_id") == str(guild.id)]
        return payloads.guild(
            guild.id,
            guild.name,
            owner_id=self.bot_user.id,
            roles=[
                self._roles[guild.id],
                self._roles[self._admin_role_id],
                *(self._roles[r] for r in self._extra_roles if guild.id == self.guild_id),
            ],
            channels=[c for c in channels if c["type"] == TEXT_CHANNEL],
            threads=[c for c in channels if c["type"] != TEXT_CHANNEL],
            members=[payloads.member(person) for person in self._members.values()],
        )

    # -- REST ------------------------------------------------------------------------------

    async def _get_gateway(self, request: web.Request) -> web.Response:
        limit = {
            "total": 1000,
            "remaining": 1000,
            "reset_after": 0,
            "max_concurrency": self.max_concurrency,
        }
        return _json(
            {
                "url": self.gateway_url,
                "shards": self.recommended_shards,
                "session_start_limit": limit,
            }
        )

    async def _post_dm_channel(self, request: web.Request) -> web.Response:
        body = await request.json()
        person = next(
            (p for p in self.users.values() if str(p.id) == str(body.get("recipient_id"))), None
        )
        if person is None:
            return _error(400, 50033, "Invalid Recipient(s)")
        channel_id = self._dm_channels.get(person.id)
        if channel_id is None:
            channel_id = snowflake()
            self._dm_channels[person.id] = channel_id
            self._channels[channel_id] = payloads.dm_channel(channel_id, person)
        return _json(self._channels[channel_id])

    async def _get_user(self, request: web.Request) -> web.Response:
        wanted = request.match_info["user"]
        person = next((p for p in self.users.values() if str(p.id) == wanted), None)
        if person is None:
            return _error(404, 10013, "Unknown User")
        return _json(payloads.user(person))

    def member_leaves(self, user: str) -> None:
        """``users[user]`` leaves the guild: Discord no longer finds them as a member."""
        del self._members[self.users[user].id]

    async def _get_member(self, request: web.Request) -> web.Response:
        wanted = request.match_info["user"]
        person = next((p for p in self._members.values() if str(p.id) == wanted), None)
        if person is None:
            return _error(404, 10007, "Unknown Member")
        return _json(payloads.member(person))

    async def _get_me(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            # What Discord answers a token it does not know; discord.py raises LoginFailure.
            return _json({"message": "401: Unauthorized", "code": 0}, status=401)
        return _json({**payloads.user(self.bot_user), "verified": True, "mfa_enabled": False})

    async def _get_application(self, request: web.Request) -> web.Response:
        return _json(payloads.application(self.application_id, self.users["admin"]))

    async def _put_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        guild_id = int(guild) if guild else None
        body = await request.json()
        # Discord checks the whole list and refuses all of it: nothing is registered.
        refusal = self._refuse("command sync", command_problems(body, guild=guild_id is not None))
        if refusal is not None:
            return refusal
        too_many = too_many_commands(body)  # not a form error: Discord's JSON error 30032
        if too_many is not None:
            self.refused_requests.append(f"command sync: {too_many}")
            self.notify()
            return _error(400, MAX_COMMANDS_REACHED, too_many)
        return _json(self.register_commands(guild_id, body))

    def register_commands(self, guild_id: int | None, commands: list[JSON]) -> list[JSON]:
        """Register ``commands`` for the guild (None: globally) as a sync does, without the
        bot sending them: for a test whose bot syncs exactly what an earlier one did (the e2e
        ``dicebot`` fixture). Return them as Discord answers the sync."""
        registered = [self._registered(command, guild_id) for command in commands]
        self._synced[guild_id] = registered
        self.sync_count += 1
        self.synced_at = time.perf_counter()
        self.notify()
        return registered

    async def _get_commands(self, request: web.Request) -> web.Response:
        guild = request.match_info.get("guild")
        return _json(self._synced.get(int(guild) if guild else None, []))

    def _registered(self, command: JSON, guild_id: int | None) -> JSON:
        """Return a command as Discord answers a sync: with ids, permissions as a string."""
        permissions = command.get("default_member_permissions")
        registered = {
            **command,
            "id": str(snowflake()),
            "application_id": str(self.application_id),
            "version": str(snowflake()),
            "type": command.get("type", 1),
            "default_member_permissions": None if permissions is None else str(permissions),
        }
        if guild_id is not None:
            registered["guild_id"] = str(guild_id)
        return registered

    async def _post_callback(self, request: web.Request) -> web.Response:
        reply = self._replies.get(request.match_info["token"])
        if reply is None or reply.interaction["id"] != request.match_info["id"]:
            return _error(404, 10062, "Unknown interaction")
        if reply.raw is not None:
            return _error(400, 40060, "Interaction has already been acknowledged.")
        token = request.match_info["token"]
        if self.expired_interactions > 0 and token not in self._expired_tokens:
            self.expired_interactions -= 1
            self._expired_tokens.add(token)
        if token in self._expired_tokens:
            return _error(404, 10062, "Unknown interaction")
        deadline = self.callback_deadline
        if deadline is not None and self._late(reply, deadline, "the callback"):
            self._expired_tokens.add(token)  # "the token will be invalidated"
            reply.refused = self.late_responses[-1]
            return _error(404, UNKNOWN_INTERACTION, "Unknown interaction")
        body, files = await _read_body(request)
        problems = callback_problems(body, int(reply.interaction["type"]), file_count=len(files))
        refusal = self._check_limits("interaction callback", problems, files)
        if refusal is not None:
            reply.refused = self.refused_requests[-1]
            return refusal
        reply.answered_at = time.perf_counter()
        kind = int(body["type"])
        data = body.get("data") or {}
        if kind in (4, 5):  # a new message; type 5 shows "is thinking…" until completed
            reply.message = self._new_message(reply.channel_id, data, files)
            if kind == 5:
                reply.message.flags |= LOADING
        elif kind in (6, 7) and reply.source is not None:  # the clicked message is @original
            reply.message = reply.source
            if kind == 7:
                reply.message.apply(data, files)
        reply.raw = body
        self.notify()
        message = reply.message
        interaction: JSON = {"id": reply.interaction["id"], "type": reply.interaction["type"]}
        resource: JSON = {"type": kind}
        if message is not None:
            interaction["response_message_id"] = str(message.id)
            interaction["response_message_loading"] = message.loading
            interaction["response_message_ephemeral"] = message.ephemeral
            if kind != 6:
                resource["message"] = message.raw
        return _json({"interaction": interaction, "resource": resource})

    async def _post_followup(self, request: web.Request) -> web.Response:
        reply = self._reply_for(request)
        if reply is not None and self._late(reply, TOKEN_LIFETIME, "a followup"):
            self._refused_completion(reply, self.late_responses[-1])
            return _error(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        if reply is None or request.match_info["token"] in self._expired_tokens:
            return _error(404, 10015, "Unknown Webhook")
        body, files = await _read_body(request)
        problems = message_problems(body, flags=FOLLOWUP_FLAGS, file_count=len(files))
        refusal = self._check_limits("followup", problems, files)
        if refusal is not None:
            self._refused_completion(reply, self.refused_requests[-1])
            return refusal
        message = reply.message
        if reply.callback_type == 5 and message is not None and message.loading:
            message.apply(body, files)  # the first followup fills the deferred message
        else:
            message = self._new_message(reply.channel_id, body, files)
            reply.followups.append(message)
        if reply.deferred:
            reply.completed = True
        self.notify()
        if request.query.get("wait") in ("1", "true", "True"):
            return _json(message.raw)
        return web.Response(status=204)

    async def _webhook_message(self, request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "PATCH", "DELETE"):
            return await self._unhandled(request)
        reply = self._reply_for(request)
        if reply is None:
            return _error(404, 10015, "Unknown Webhook")
        wanted = request.match_info["message"]
        if self._late(reply, TOKEN_LIFETIME, f"{request.method} of message {wanted}"):
            self._refused_completion(reply, self.late_responses[-1])
            return _error(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        if wanted == "@original":
            message = reply.message
        else:
            candidates = [reply.message, *reply.followups]
            message = next((m for m in candidates if m is not None and str(m.id) == wanted), None)
        if message is None or message.deleted:
            return _error(404, 10008, "Unknown Message")
        response = await self._message_request(request, message)
        if response.status in (400, 413) and message is reply.message:  # a refused edit
            self._refused_completion(reply, self.refused_requests[-1])
        elif request.method == "PATCH" and message is reply.message and reply.deferred:
            reply.completed = True
        self.notify()
        return response

    async def _get_channel(self, request: web.Request) -> web.Response:
        channel = self._channels.get(int(request.match_info["channel"]))
        return _error(404, 10003, "Unknown Channel") if channel is None else _json(channel)

    async def _post_channel_message(self, request: web.Request) -> web.Response:
        channel_id = int(request.match_info["channel"])
        if channel_id not in self._channels:
            return _error(404, 10003, "Unknown Channel")
        closed = {self._dm_channels.get(user_id) for user_id in self.closed_dms}
        if channel_id in closed:
            return _error(403, 50007, "Cannot send messages to this user")
        if not self._bot_is_in(channel_id):
            return _error(403, 50001, "Missing Access")
        if channel_id in self.muted_channels:
            return _error(403, 50013, "Missing Permissions")
        body, files = await _read_body(request)
        problems = message_problems(body, flags=CHANNEL_MESSAGE_FLAGS, file_count=len(files))
        refusal = self._check_limits("channel message", problems, files)
        if refusal is not None:
            return refusal
        nonce = (channel_id, str(body["nonce"])) if body.get("enforce_nonce") else None
        if nonce in self._nonces:  # Discord returns the message it made, and makes no other
            return _json(self._nonces[nonce].raw)
        message = self._new_message(channel_id, body, files)
        self._channel_messages.setdefault(channel_id, []).append(message)
        if nonce is not None:
            self._nonces[nonce] = message
        self.notify()
        return _json(message.raw)

    async def _channel_message(self, request: web.Request) -> web.StreamResponse:
        if request.method not in ("GET", "PATCH", "DELETE"):
            return await self._unhandled(request)
        channel_id = int(request.match_info["channel"])
        # A public interaction reply is a channel message too (an ephemeral one is not).
        replies = [
            reply.message
            for reply in self._replies.values()
            if reply.message is not None
            and reply.message.channel_id == channel_id
            and not reply.message.ephemeral
        ]
        messages = [*self._channel_messages.get(channel_id, []), *replies]
        wanted = request.match_info["message"]
        message = next((m for m in messages if str(m.id) == wanted and not m.deleted), None)
        if message is None:
            return _error(404, 10008, "Unknown Message")
        response = await self._message_request(request, message)
        self.notify()
        return response

    async def _message_request(self, request: web.Request, message: FakeMessage) -> web.Response:
        """Answer GET, PATCH or DELETE on a stored message."""
        if request.method == "DELETE":
            message.deleted = True
            return web.Response(status=204)
        if request.method == "PATCH":
            body, files = await _read_body(request)
            # An edit may repeat the message's own flags and set only EDIT_FLAGS besides.
            allowed = EDIT_FLAGS | message.flags
            problems = message_problems(body, flags=allowed, file_count=len(files))
            refusal = self._check_limits("message edit", problems, files)
            if refusal is not None:
                return refusal
            message.apply(body, files)
        return _json(message.raw)

    def _check_limits(
        self, what: str, problems: list[Problem], files: Files
    ) -> web.Response | None:
        """Refuse a request over Discord's limits as Discord does, and record it: an upload too
        large with 413 (code 40005), a body with problems with 400 Invalid Form Body."""
        too_large = upload_problem(files)
        if too_large is not None:
            self.refused_requests.append(f"{what}: {too_large}")
            self.notify()
            return _error(413, REQUEST_TOO_LARGE, "Request entity too large")
        return self._refuse(what, problems)

    def _late(self, reply: Reply, deadline: float, what: str) -> bool:
        """Whether more than ``deadline`` seconds (on ``clock``) have passed since the fake
        sent the reply's interaction; if so, record the late answer: ``check_clean`` fails on
        it, as the answer fails in production."""
        if reply.sent_clock is None:
            return False
        waited = self.clock() - reply.sent_clock
        if waited <= deadline:
            return False
        self.late_responses.append(
            f"{what} for {_interaction_name(reply.interaction)} came {waited:.3f} s after the "
            f"interaction (Discord's deadline: {deadline:g} s)"
        )
        self.notify()
        return True

    def advance_clock(self, seconds: float) -> None:
        """Move ``clock`` ``seconds`` ahead, as if that much time had passed."""
        previous = self.clock
        self.clock = lambda: previous() + seconds

    def _refuse(self, what: str, problems: list[Problem]) -> web.Response | None:
        """Answer Discord's 400 Invalid Form Body for ``problems`` (None when there are none),
        and record it: ``check_clean`` fails a test whose bot sent what Discord refuses."""
        if not problems:
            return None
        self.refused_requests.append(f"{what}: {describe(problems)}")
        self.notify()
        return _json(invalid_form_body(problems), status=400)

    async def _unhandled(self, request: web.Request) -> web.Response:
        self.unhandled_requests.append(f"{request.method} {request.path}")
        self.notify()
        return _error(404, 0, "404: Not Found (not implemented by the fake)")

    # -- helpers ---------------------------------------------------------------------------

    def _faulty(self, endpoint: Endpoint, handler: Handler) -> Handler:
        """Wrap a route's handler to answer the failures ``fail_next`` queued for it."""

        async def handle(request: web.Request) -> web.StreamResponse:
            queue = self._failing[endpoint]
            if not queue:
                return await handler(request)
            planned = queue.popleft()
            if planned.acted:  # Discord did it; only its answer was lost on the way back
                await handler(request)
            self.served_failures.append(Failure(endpoint, planned.status, request.path))
            self.notify()
            if planned.status == 429:
                return _rate_limited(endpoint, planned.retry_after)
            return _server_error(planned.status)

        return handle

    def _reply_for(self, request: web.Request) -> Reply | None:
        if request.match_info["app"] != str(self.application_id):
            return None
        return self._replies.get(request.match_info["token"])

    def _new_message(self, channel_id: int, body: JSON, files: Files) -> FakeMessage:
        message = FakeMessage(snowflake(), channel_id, payloads.user(self.bot_user))
        message.flags = int(body.get("flags") or 0)
        message.apply(body, files)
        return message

    def notify(self) -> None:
        """Wake every wait_until to check its condition again: a fake-side change, or one on
        the bot's side that a test's fixtures see happen (the bot ready, its task ended)."""
        waiters, pollers = self._waiters, self._pollers
        self._waiters, self._pollers = [], []
        self._wake(waiters)
        self._wake(pollers)

    def _record_error(self, text: str) -> None:
        self.error_logs.append(text)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.notify)

    def _diagnosis(self) -> str:
        notes = [f"\nERROR logged: {text}" for text in self.error_logs]
        notes += [f"\nunhandled request: {text}" for text in self.unhandled_requests]
        return "".join(notes)


def _interaction_name(interaction: JSON) -> str:
    """What a test sent: "/sinew heal", or "the click on 'end:1'"."""
    data = interaction.get("data") or {}
    if "custom_id" in data:
        return f"the click on {data['custom_id']!r}"
    names, options = [str(data.get("name", "?"))], data.get("options") or []
    while options and options[0].get("type") in (1, 2):  # a subcommand (group)
        names.append(options[0]["name"])
        options = options[0].get("options") or []
    return "/" + " ".join(names)


def _unchecked(option: JSON, value: Any) -> Any:
    return value


def _allowed(option: JSON, value: Any) -> Any:
    """Return ``value`` if Discord's client would send it for ``option``, else raise ValueError."""
    choices = [choice["value"] for choice in option.get("choices") or []]
    size = len(value) if isinstance(value, str) else value
    low = option.get("min_length" if isinstance(value, str) else "min_value")
    high = option.get("max_length" if isinstance(value, str) else "max_value")
    if choices and value not in choices:
        raise ValueError(
            f"Discord only sends {option['name']!r} as one of {choices}, not {value!r}"
        )
    if (low is not None and size < low) or (high is not None and size > high):
        raise ValueError(f"Discord only sends {option['name']!r} within [{low}, {high}]: {value!r}")
    return value


async def _read_body(request: web.Request) -> tuple[JSON, Files]:
    """Return the JSON body (or multipart payload_json) and the uploaded files by index."""
    if request.content_type != "multipart/form-data":
        return (await request.json() if request.can_read_body else {}), {}
    form = await request.post()
    files: Files = {}
    for name, value in form.items():
        if isinstance(value, web.FileField):
            index = int(name.removeprefix("files[").removesuffix("]"))
            files[index] = (value.filename, value.file.read())
    return json.loads(str(form["payload_json"])), files


def _json(body: Any, status: int = 200) -> web.Response:
    # Exactly "application/json": discord.py does not parse "application/json; charset=utf-8".
    return web.Response(
        status=status, body=json.dumps(body).encode(), content_type="application/json"
    )


def _rate_limited(endpoint: Endpoint, retry_after: float) -> web.Response:
    """A 429 as Discord sends it: the body discord.py reads ``retry_after`` from, the rate
    limit headers, and ``Via`` (a 429 without it comes from Cloudflare: discord.py gives up)."""
    headers = {
        "Retry-After": str(math.ceil(retry_after)),
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
        "X-RateLimit-Reset-After": f"{retry_after:.3f}",
        "X-RateLimit-Bucket": f"fake-{endpoint.name.lower()}",
        "X-RateLimit-Scope": "user",
        "Via": "1.1 google",
    }
    body = {"message": RATE_LIMIT_MESSAGE, "retry_after": retry_after, "global": False}
    response = _json(body, status=429)
    response.headers.update(headers)
    return response


def _server_error(status: int) -> web.Response:
    """A 5xx: Discord's API answers 500 in JSON, its front end a gateway error as a page."""
    if status == 500:
        return _json({"message": "500: Internal Server Error", "code": 0}, status)
    return web.Response(
        status=status,
        text=f"<html><body>{status} Server Error</body></html>",
        content_type="text/html",
    )


def _error(status: int, code: int, message: str) -> web.Response:
    return _json({"message": message, "code": code}, status)
