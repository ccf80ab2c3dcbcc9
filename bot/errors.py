"""Errors a command shows to its user, and the one place that turns any error into a reply."""

from __future__ import annotations

import contextlib
import logging
import secrets

import discord
from discord import app_commands

from rules.errors import RulesError

__all__ = ["CommandError", "RulesError", "reply_ephemeral", "report_error"]

log = logging.getLogger(__name__)


class CommandError(RulesError):
    """A mistake outside the game rules (no campaign here, not a GM, unknown roll id).

    Like RulesError, the message is shown to the user as it is, so it says what was wrong and
    what is allowed.
    """


async def reply_ephemeral(interaction: discord.Interaction, message: str) -> None:
    """Answer an interaction privately, whether or not it was answered already."""
    if interaction.response.is_done():
        await interaction.followup.send(message, ephemeral=True)
    else:
        await interaction.response.send_message(message, ephemeral=True)


def _user_message(error: BaseException) -> str | None:
    """Return the message to show for a user mistake, or None for an unexpected error."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, RulesError):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        if isinstance(error.__cause__, RulesError):
            return str(error.__cause__)
        return f"`{error.value}` isn't a valid {error.type.name.lower()} here."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You can't use this command here."
    return None


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Show a user mistake as an ephemeral reply; log anything else with an id the user sees."""
    message = _user_message(error)
    command = interaction.command.qualified_name if interaction.command else "component"
    if message is not None:
        log.info("/%s by %s refused: %s", command, interaction.user.id, message)
        await reply_ephemeral(interaction, f"❌ {message}")
        return
    error_id = secrets.token_hex(4)
    log.error("Error %s in /%s by %s", error_id, command, interaction.user.id, exc_info=error)
    with contextlib.suppress(discord.HTTPException):
        await reply_ephemeral(
            interaction,
            f"⚠️ Something went wrong on our side (error id `{error_id}`). "
            "Please try again, and quote the id if you report it.",
        )
