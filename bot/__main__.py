"""`python -m bot`: read `.env`, start the bot, and say plainly what is wrong if it can't."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import aiohttp
import discord
from discord.ext import commands

from bot.client import create_bot
from bot.config import ConfigError, Settings
from bot.tables import TableError

EXIT_CONFIGURATION = 2


async def _run(settings: Settings) -> None:
    # A service manager stops the bot with SIGTERM: close it as cleanly as Ctrl-C does.
    main_task = asyncio.current_task()
    assert main_task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, main_task.cancel)
    async with create_bot(settings) as bot:
        await bot.start(settings.token)


def main() -> int:
    """Run the bot until it is stopped; return the process exit code."""
    try:
        settings = Settings.from_environment()
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_CONFIGURATION
    discord.utils.setup_logging(level=getattr(logging, settings.log_level))
    try:
        asyncio.run(_run(settings))
    except discord.LoginFailure:
        print(
            "error: DISCORD_TOKEN was rejected by Discord: reset the token on the Developer "
            "Portal's Bot page and paste the new one into .env.",
            file=sys.stderr,
        )
        return EXIT_CONFIGURATION
    except commands.ExtensionFailed as error:
        if not isinstance(error.original, TableError):
            raise
        print(f"error: bad game table: {error.original}", file=sys.stderr)
        return 1
    except (aiohttp.ClientConnectionError, OSError) as error:
        print(f"error: cannot reach Discord ({error}); check the network.", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
