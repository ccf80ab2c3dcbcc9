"""A fake Discord (REST API and gateway) for end-to-end tests of the bot; see server.py."""

from .fixtures import run_bot
from .messages import FakeMessage, Reply
from .payloads import FakeUser
from .server import FakeDiscord

__all__ = ["FakeDiscord", "FakeMessage", "FakeUser", "Reply", "run_bot"]
