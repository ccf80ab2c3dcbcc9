"""Errors a command shows to its user, and the one place that turns any error into a reply."""

from __future__ import annotations

import enum
import logging
import math
import secrets

import discord
from discord import app_commands

from bot.options import STALE_COMMAND_MESSAGE, MalformedOptions, StaleCommand
from bot.render.errors import describe
from bot.render.style import CONTENT_LIMIT, truncate
from bot.storage.errors import StorageError
from rules.errors import RulesError

__all__ = [
    "RESTARTING_MESSAGE",
    "CommandError",
    "Outcome",
    "RulesError",
    "reply_ephemeral",
    "report_error",
]

log = logging.getLogger(__name__)

RESTARTING_MESSAGE = "⏳ The bot is restarting; try again in a few seconds."

# Discord's error codes for an interaction that can no longer be answered.
INTERACTION_GONE = frozenset({10062, 10015})  # Unknown interaction, Unknown Webhook
ALREADY_ACKNOWLEDGED = 40060  # Interaction has already been acknowledged


class Outcome(enum.Enum):
    """How a command ended: answered, refused (a user's mistake, told why), or an error."""

    OK = "ok"
    REFUSED = "refused"
    ERROR = "error"


class CommandError(RulesError):
    """A mistake outside the game rules (no campaign here, not a GM, unknown roll id).

    Like RulesError, the message is shown to the user as it is, so it says what was wrong and
    what is allowed.
    """


async def reply_ephemeral(interaction: discord.Interaction, message: str) -> None:
    """Answer an interaction privately, whether or not it was answered already.

    Not once the bot is closing: its connection to Discord is gone (or going), and the answer
    would fail with a traceback; Discord tells the user the interaction failed.
    """
    if interaction.client.is_closed():
        return
    message = truncate(message, CONTENT_LIMIT)
    if interaction.response.is_done():
        await interaction.followup.send(message, ephemeral=True)
    else:
        await interaction.response.send_message(message, ephemeral=True)


def _user_message(error: BaseException) -> str | None:
    """Return the message to show for a user mistake, or None for an unexpected error."""
    while isinstance(error, app_commands.CommandInvokeError):  # a macro runs a command in it
        error = error.original
    if isinstance(error, RulesError | MalformedOptions | StaleCommand):
        return str(error)
    if isinstance(error, StorageError):
        return describe(error)
    if isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        return STALE_COMMAND_MESSAGE
    if isinstance(error, app_commands.TransformerError):
        if isinstance(error.__cause__, RulesError):
            return str(error.__cause__)
        return f"`{error.value}` isn't a valid {error.type.name.lower()} here."
    if isinstance(error, app_commands.CommandOnCooldown):
        limit = f"{error.cooldown.rate} rolls per {error.cooldown.per:g} seconds"
        return (
            f"You're rolling faster than this bot allows ({limit} each). "
            f"Try again in {math.ceil(error.retry_after)} s."
        )
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You can't use this command here."
    return None


async def report_error(interaction: discord.Interaction, error: BaseException) -> Outcome:
    """Show a user mistake as an ephemeral reply (REFUSED); log anything else with an id the
    user sees (ERROR, as is an interaction Discord no longer takes answers to)."""
    message = _user_message(error)
    command = _command_name(interaction)
    original = error
    while isinstance(original, app_commands.CommandInvokeError):
        original = original.original
    if isinstance(original, discord.NotFound) and original.code in INTERACTION_GONE:
        # Discord no longer takes answers to it (its 3 s deadline passed): nobody to tell.
        log.warning(
            "/%s by %s: the interaction expired before the answer", command, interaction.user.id
        )
        return Outcome.ERROR
    if isinstance(original, discord.HTTPException) and original.code == ALREADY_ACKNOWLEDGED:
        # discord.py refuses locally to answer twice, so only Discord says this: it took our
        # answer but its reply to us was lost (a 5xx), and discord.py sent the answer again.
        # The user has it; a notice would be refused the same way.
        log.warning(
            "/%s by %s: Discord had taken the answer before a retry", command, interaction.user.id
        )
        return Outcome.ERROR
    if message is not None:
        log.info("/%s by %s refused: %s", command, interaction.user.id, truncate(message, 300))
        await _try_reply(interaction, f"❌ {message}", "refusal")
        return Outcome.REFUSED
    error_id = secrets.token_hex(4)
    log.error("Error %s in /%s by %s", error_id, command, interaction.user.id, exc_info=error)
    if isinstance(original, discord.HTTPException):
        # Discord refused a reply or announcement even after discord.py's retries. Commands
        # write (one transaction) before they talk to Discord, so the change is saved:
        # repeating the command would apply it twice.
        notice = (
            f"⚠️ Discord refused part of the answer (error id `{error_id}`). Whatever the "
            "command changed is saved: check before you repeat it."
        )
    else:
        notice = (
            f"⚠️ Something went wrong on our side (error id `{error_id}`). "
            "Please try again, and quote the id if you report it."
        )
    await _try_reply(interaction, notice, "error notice")
    return Outcome.ERROR


def _command_name(interaction: discord.Interaction) -> str:
    # interaction.command is looked up from the payload, which may name no known command.
    try:
        command = interaction.command
    except (AttributeError, KeyError, TypeError):
        command = None
    return command.qualified_name if command else "component"


async def _try_reply(interaction: discord.Interaction, message: str, what: str) -> None:
    """Send a refusal or error notice; if Discord won't take it, log that once and go on."""
    try:
        await reply_ephemeral(interaction, message)
    except discord.HTTPException as failure:
        # Typically the interaction expired (3 s) or was already answered elsewhere.
        log.warning(
            "Could not send the %s to %s: %s %s",
            what,
            interaction.user.id,
            failure.status,
            truncate(failure.text, 200),
        )
