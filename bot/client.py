"""The bot: connects to Discord, opens storage, loads every cog and syncs the commands."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import pkgutil
import time
from typing import TYPE_CHECKING

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

import cogs
from bot.anywhere import (
    copy_as_guild_commands,
    in_server,
    refuse_outside_server,
    server_contexts,
    server_installs,
)
from bot.buttons import (
    Reroller,
    RevealButton,
    RollAgainButton,
    ShownMessages,
    answer_unclaimed_press,
)
from bot.config import Settings
from bot.discord_private import GatedCommandTree, set_endpoints
from bot.errors import RESTARTING_MESSAGE, CommandError, Outcome, reply_ephemeral, report_error
from bot.memory import collect_if_due, collect_overdue, freeze_after_start
from bot.options import check_payload
from bot.publish import is_roll_command
from bot.ratelimit import roll_limiter
from bot.render import charts
from bot.storage import Storage
from bot.storage.errors import CannotSave
from bot.storage.syncs import payload_hash
from bot.suggestions import suggest_characters
from rules.randomness import Rng, new_rng
from rules.systems import SystemRegistry, install

if TYPE_CHECKING:  # imported at run time only with METRICS_PORT set (docs/hosting.md, "Metrics")
    from bot.metrics import Metrics

__all__ = ["DiceBot", "DiceTree", "create_bot", "point_at_discord"]

log = logging.getLogger(__name__)

# On SIGTERM or Ctrl-C the bot answers what it has received before it closes: at most this long
# (it closes as soon as the last is answered).
DRAIN_TIMEOUT_SECONDS = 5.0
# Commands and autocompletes handled at once (a burst beyond waits its turn, in order).
CONCURRENT_INTERACTIONS = 64
# Connections to Discord's REST API at once. discord.py's own pool is unbounded: a burst of 2,000
# interactions opened 2,000 connections, and their buffers kept the bot's memory 15-27 MB higher
# after each burst. Past this many, requests wait for a free connection (kept alive, reused).
HTTP_CONNECTIONS = 100
# Discord lets `max_concurrency` shards IDENTIFY per this many seconds (shard i in bucket
# i % max_concurrency); one more in a bucket is refused (op 9) and must identify again.
IDENTIFY_INTERVAL_SECONDS = 5.0


def point_at_discord(settings: Settings) -> None:
    """Send REST and gateway traffic to the configured Discord (a fake one in tests)."""
    set_endpoints(
        api_base=settings.api_base.rstrip("/") if settings.api_base else None,
        gateway=yarl.URL(settings.gateway_url) if settings.gateway_url else None,
    )


class DiceTree(GatedCommandTree["DiceBot"]):
    """The command tree with the bot's one error path and a latency line per command."""

    def __init__(self, client: DiceBot) -> None:
        # Offered to server installs in servers unless a command says it works anywhere
        # (bot.anywhere): a new command never reaches DMs by accident.
        super().__init__(
            client, allowed_installs=server_installs(), allowed_contexts=server_contexts()
        )
        self._running = asyncio.Semaphore(CONCURRENT_INTERACTIONS)

    def gate(self) -> asyncio.Semaphore:
        # discord.py starts a task per interaction as it arrives: a burst of 2,000 all built
        # their replies at once, and the bot's memory stayed at that peak (+15 MB a burst).
        # Past this many, an interaction waits here holding only its payload.
        return self._running

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        interaction.extras["started"] = time.perf_counter()
        if not self.client.admit(interaction):
            await reply_ephemeral(interaction, RESTARTING_MESSAGE)
            return False
        if not await _works_here(interaction):  # before the options: where comes first
            return False
        if interaction.type is discord.InteractionType.application_command:
            check_payload(self, interaction)  # raises to on_error, which explains the refusal
        return True

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        outcome = await report_error(interaction, error)
        _finished(interaction, outcome)


async def _works_here(interaction: discord.Interaction) -> bool:
    """Refuse, in one line, a command that needs a server with the bot used anywhere else (a
    DM, a group DM, a server where only the user installed it); suggest nothing there."""
    if in_server(interaction):  # the usual case: no need to find the command (discord.py will)
        return True
    try:
        refuse_outside_server(interaction, interaction.command)
    except CommandError as refusal:
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            _finished(interaction, await report_error(interaction, refusal))
        return False
    return True


def _finished(interaction: discord.Interaction, outcome: Outcome) -> None:
    """The one place a slash command's end is seen: its log line, and its metrics if on."""
    started = interaction.extras.get("started")
    seconds = time.perf_counter() - started if started is not None else None
    name = interaction.command.qualified_name if interaction.command else "?"
    log.info(
        "/%s by %s in %s %s in %.1f ms",
        name,
        interaction.user.id,
        interaction.channel_id,
        "answered" if outcome is Outcome.OK else "failed",
        seconds * 1000 if seconds is not None else float("nan"),
    )
    metrics: Metrics | None = getattr(interaction.client, "metrics", None)
    if metrics is not None:
        metrics.interaction_finished(name, outcome, seconds)


class DiceBot(commands.AutoShardedBot):
    """The dice bot; cogs reach storage and the random source through it.

    Sharded: with ``settings.shards`` it runs those shards (SHARD_COUNT, SHARD_IDS), else as
    many as Discord recommends (GET /gateway/bot), all in this process. Discord sends each
    server's events to one shard, so processes with disjoint shards serve disjoint servers.
    That is what makes the one cache of shared state in process memory correct with several
    processes on one database: each channel's running campaign (CampaignStore) is only ever
    changed by the process running its server's shard.
    """

    storage: Storage

    def __init__(
        self, settings: Settings, *, rng: Rng | None = None, tune_memory: bool = False
    ) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # channels and threads, to map a thread to its parent's campaign
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=DiceTree,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=settings.shards.count if settings.shards else None,
            shard_ids=list(settings.shards.ids) if settings.shards else None,  # type: ignore[arg-type]  # discord.py: None (its default) runs every shard; its options TypedDict omits it
        )
        self.settings = settings
        # The systems of its own rules and of SYSTEM_PACKAGES', found once: the cogs build the
        # commands that list systems or their settings from it (docs/development.md, "Adding a
        # system").
        extra = settings.system_packages
        self.systems = SystemRegistry.scan(f"{package}.rules" for package in extra)
        self._identify_concurrency: int | None = None  # Discord's max_concurrency, once asked
        self._identified: dict[int, float] = {}  # shard id -> loop time of its last identify
        # Freeze the start-up objects out of the garbage collector's sight (bot.memory): for
        # the bot's own process only, never for a test run that hosts a bot among other things.
        self.tune_memory = tune_memory
        self.rng = rng if rng is not None else new_rng()
        self._in_flight: set[asyncio.Task[object]] = set()
        self.draining = False
        # Set when setup_hook found the commands as last synced and skipped the sync.
        self.commands_unchanged = False
        self.shutdown_task: asyncio.Task[None] | None = None
        self.rerollers: dict[str, Reroller] = {}  # by roll kind, from the cogs (bot.buttons)
        self.shown_messages = ShownMessages()  # its rolls' messages being sent and edited
        self.metrics: Metrics | None = None
        if settings.metrics is not None:
            from bot.metrics import Metrics  # prometheus_client: loaded only when asked for

            self.metrics = Metrics(self)

    async def login(self, token: str) -> None:
        # The database first: a DATABASE_PATH or DATABASE_URL that can't be used is reported
        # before Discord is contacted.
        assert self.settings.database is not None
        metrics = self.metrics
        self.storage = await Storage.open(
            self.settings.database,
            timer=metrics.time_database if metrics else None,
            in_flight=lambda: self.in_flight,
        )
        if metrics is not None:
            assert self.settings.metrics is not None
            metrics.start(self.settings.metrics)
            log.info("Serving metrics at %s", self.settings.metrics)
        # Made here, not in __init__: aiohttp wants a running loop, as discord.py's own default.
        self.http.connector = aiohttp.TCPConnector(limit=HTTP_CONNECTIONS)
        await super().login(token)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Wait only as long as Discord's identify limit asks before a shard connects.

        discord.py's default sleeps 5 s before every shard but the first, whatever Discord
        allows: 16 shards in one process would take 75 s to connect. Discord lets shards of
        different buckets (shard id % max_concurrency) identify together, and a bucket once
        per 5 s. Processes don't coordinate: two started at once may both identify in a bucket;
        Discord then refuses one (op 9) and discord.py identifies it again through this hook.
        """
        shard = shard_id or 0
        loop = asyncio.get_running_loop()
        if self._identified:  # the first identify never waits: no need to ask Discord then
            if self._identify_concurrency is None:
                try:
                    limits = await self.fetch_session_start_limits()
                    self._identify_concurrency = max(1, limits.max_concurrency)
                except discord.DiscordException:
                    self._identify_concurrency = 1  # what every bot is allowed
            concurrency = self._identify_concurrency
            last = max(
                (
                    at
                    for other, at in self._identified.items()
                    if other % concurrency == shard % concurrency
                ),
                default=None,
            )
            if last is not None:
                await asyncio.sleep(max(0.0, last + IDENTIFY_INTERVAL_SECONDS - loop.time()))
        self._identified[shard] = loop.time()

    def admit(self, interaction: discord.Interaction) -> bool:
        """Track the task answering an interaction; return False once the bot is shutting down.

        Commands and button clicks both call this first, from the task discord.py runs them in,
        so ``shutdown`` can wait for every interaction the bot has started to answer.
        """
        task = asyncio.current_task()
        if task is not None and task not in self._in_flight:
            self._in_flight.add(task)
            task.add_done_callback(self._answered)
        return not self.draining

    @property
    def in_flight(self) -> int:
        """How many interactions the bot has started and not yet finished answering."""
        return len(self._in_flight)

    def _answered(self, task: asyncio.Task[object]) -> None:
        self._in_flight.discard(task)
        if self.tune_memory and not self._in_flight:
            collect_if_due()  # while no interaction waits (bot.memory)

    async def shutdown(self) -> None:
        """Stop starting new work, finish the interactions in flight (a few seconds at most),
        then close: every command that changed state has told its user so.

        No quiet period: under steady load no moment passes without an interaction arriving.
        New ones get the restart notice at once (``admit``); once everything admitted is
        answered the shards disconnect, so nothing more arrives, and the notices sent meanwhile
        are waited for before the HTTP session closes. Each wait ends the moment its last
        interaction is answered, and both together within DRAIN_TIMEOUT_SECONDS.
        """
        self.draining = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + DRAIN_TIMEOUT_SECONDS
        await self._wait_for_in_flight(deadline)
        # Nothing more is read from Discord: an interaction still on the wire gets Discord's
        # "did not respond", as it would a moment later from a closed connection.
        disconnects = [shard.disconnect() for shard in self.shards.values()]
        for failure in await asyncio.gather(*disconnects, return_exceptions=True):
            if isinstance(failure, Exception):  # close() below closes what is left
                log.warning("A shard's disconnect failed: %s", failure)
        await self._wait_for_in_flight(deadline)
        unfinished = len(self._in_flight - {asyncio.current_task()})
        if unfinished:
            log.warning("Closing with %d interactions still unanswered", unfinished)
        await self.close()

    async def _wait_for_in_flight(self, deadline: float) -> None:
        """Wait until no interaction is being answered (those admitted while waiting included),
        or until ``deadline`` (loop time)."""
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        while (busy := self._in_flight - {current}) and (remaining := deadline - loop.time()) > 0:
            await asyncio.wait(busy, timeout=remaining)

    async def _cancel_in_flight(self) -> None:
        """Cancel the interactions still being answered, and wait until they have stopped.

        Closing ends the HTTP session: an answer still under way would then fail ("Session is
        closed") and log a traceback. ``shutdown`` has waited for them already; what is left
        is what a second Ctrl-C (or the drain's time limit) gives up. Done again until none is
        left, as one may be admitted while the others stop.
        """
        current = asyncio.current_task()
        while busy := self._in_flight - {current}:
            for task in busy:
                task.cancel()
            await asyncio.wait(busy)

    async def setup_hook(self) -> None:
        await self.load_commands()
        if self.settings.shards is None or 0 in self.settings.shards.ids:
            # Commands belong to the application, not to a shard: one process syncs them, not
            # every process of a sharded bot at once (Discord rate-limits the route).
            await self.sync_commands()
        self._settling = asyncio.create_task(self._settle(), name="bot-settle")

    async def load_commands(self) -> None:
        """Build the command tree the bot syncs: every cog (the bot's and SYSTEM_PACKAGES'),
        the roll commands' checks and the options' suggestions. Needs ``storage``; contacts
        nobody (docs/gen_commands.py writes the command reference from this tree)."""
        self.add_dynamic_items(RevealButton, RollAgainButton)
        # The rules read a campaign's system by key from the registry installed (rules.systems).
        install(self.systems)
        extra = self.settings.system_packages
        # Each cog module is imported once per process and its setup() run for this bot.
        # discord.py's load_extension would execute the module anew for every bot built (and
        # drop it on close): start-up would pay for compiling and building every command again,
        # and two bots in one process would hold two copies of each cog's module.
        for package_name in (cogs.__name__, *(f"{package}.cogs" for package in extra)):
            package = importlib.import_module(package_name)
            for module in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}."):
                await importlib.import_module(module.name).setup(self)
        # Roll commands (declared with bot.publish.roll_command): the user's rate limit. (The
        # campaign's default visibility of GM rolls is the asker's: ``Asker.visibility``.)
        limiter = roll_limiter(
            self.settings.roll_limit,
            self.storage.roll_windows,
            shared=self.settings.may_share_state,
        )
        for command in self.tree.walk_commands():
            if is_roll_command(command):
                assert isinstance(command, app_commands.Command)
                # A new list, not add_check: a cog's commands are shallow copies of its class's,
                # sharing one list of checks with every other bot built in this process.
                if limiter is not None:
                    command.checks = [*command.checks, limiter.check]
        suggest_characters(self.tree)  # every `character` option suggests the campaign's

    async def _settle(self) -> None:
        """Load the chart renderer in the background (start-up stays fast, and the first odds
        query doesn't pay loading PIL and the fonts inside Discord's 3 s deadline); then,
        with everything long-lived built, tune the garbage collector (bot.memory)."""
        await charts.warm_up()
        if self.tune_memory:
            freeze_after_start()
            await collect_overdue()

    async def sync_commands(self) -> None:
        """Sync to the development guild when GUILD_ID is set (instant), else globally; skip it
        when the payload is the one this application last synced there (docs/hosting.md,
        "Upgrades and migrations"): a sync overwrites every command, and Discord rate-limits it.

        The hash is of the JSON discord.py sends (the tree has no translator), recorded only
        once Discord has accepted it: a sync that failed is tried again at the next start.
        """
        guild_id = self.settings.guild_id
        guild = discord.Object(id=guild_id) if guild_id is not None else None
        if guild is not None:
            copy_as_guild_commands(self.tree, guild)
        assert self.application_id is not None  # known once logged in, before setup_hook
        scope = "global" if guild_id is None else f"guild {guild_id}"
        digest = payload_hash(
            [command.to_dict(self.tree) for command in self.tree.get_commands(guild=guild)]
        )
        syncs = self.storage.command_syncs
        if (
            self.tree.translator is None
            and await syncs.synced_hash(self.application_id, scope) == digest
        ):
            self.commands_unchanged = True
            log.info("Commands unchanged since the last sync: not synced")
            return
        synced = await self.tree.sync(guild=guild)
        # A database that can't be written has warned once: the next start syncs again.
        with contextlib.suppress(CannotSave):
            await syncs.record_sync(self.application_id, scope, digest)
        if guild is not None:
            log.info("Synced %d commands to guild %s", len(synced), guild_id)
        else:
            log.info("Synced %d commands globally (may take up to an hour to show)", len(synced))

    async def on_ready(self) -> None:
        shards = self.settings.shards or f"{self.shard_count} as Discord recommends"
        log.info("Ready as %s in %d servers (shards %s)", self.user, len(self.guilds), shards)

    async def on_shard_ready(self, shard_id: int) -> None:
        servers = sum(1 for guild in self.guilds if guild.shard_id == shard_id)
        log.info("Shard %d of %s ready in %d servers", shard_id, self.shard_count, servers)

    def dispatch(self, event_name: str, /, *args: object, **kwargs: object) -> None:
        # discord.py's delayed "ready" (up to 2 s after connecting) isn't cancelled by close():
        # dispatched into a closed client it fails with a traceback on the way out.
        if not self.is_closed():
            if event_name == "app_command_completion":
                # A command answered: its line now, rather than in a task of its own per
                # command (what an on_app_command_completion handler costs: ~2% of a /roll).
                interaction = args[0]
                assert isinstance(interaction, discord.Interaction)
                _finished(interaction, Outcome.OK)
            elif event_name == "interaction":
                # Just after discord.py dispatched it to the bot's buttons: one none takes is
                # answered here, decided on the same state (bot.buttons).
                interaction = args[0]
                assert isinstance(interaction, discord.Interaction)
                answer_unclaimed_press(self, interaction)
            super().dispatch(event_name, *args, **kwargs)

    async def close(self) -> None:
        # discord.py calls close() again itself once the shards' connections end; each step
        # below is safe to repeat (Storage.close waits for the one close under way).
        self.draining = True
        if hasattr(self, "_settling"):
            self._settling.cancel()  # the chart thread finishes an import under way first
            await asyncio.wait([self._settling])
        try:
            # The last wait before discord.py closes the HTTP session: nothing is admitted
            # between the two.
            await self._cancel_in_flight()
            await super().close()
        finally:
            # Even when cancelled (a second Ctrl-C): aiosqlite's threads would keep the process
            # alive, and closing commits nothing half-done (an open transaction rolls back).
            if hasattr(self, "storage"):
                await self.storage.close()
            if self.metrics is not None:
                self.metrics.stop()


def create_bot(settings: Settings, *, rng: Rng | None = None, tune_memory: bool = False) -> DiceBot:
    """Build the bot for ``settings``, pointed at the configured Discord."""
    point_at_discord(settings)
    return DiceBot(settings, rng=rng, tune_memory=tune_memory)
