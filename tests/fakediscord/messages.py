"""The messages the bot posts to the fake, and its answers to interactions, as tests read them."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import payloads
from .payloads import EPHEMERAL, JSON, LOADING, snowflake

DEFERRED_TYPES = (5, 6)  # interaction callbacks: deferred channel message, deferred update
Files = dict[int, tuple[str, bytes]]  # uploads of one request: files[n] -> (filename, data)


@dataclass(eq=False, slots=True)
class FakeMessage:
    """A message the bot posted; edits change it in place."""

    id: int
    channel_id: int
    author: JSON
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[tuple[str, bytes]] = field(default_factory=list)  # (filename, data)
    attachment_ids: list[int] = field(default_factory=list)
    flags: int = 0
    deleted: bool = False
    timestamp: str = field(default_factory=payloads.now)

    @property
    def message_id(self) -> int:
        return self.id

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def custom_ids(self) -> list[str]:
        """Return the custom ids of every button and select on the message."""
        return [component["custom_id"] for component in interactive_components(self.components)]

    @property
    def raw(self) -> JSON:
        """Return the message as Discord sends it."""
        attachments = []
        for attachment_id, (filename, data) in zip(
            self.attachment_ids, self.attachments, strict=True
        ):
            url = f"https://cdn.discordapp.com/attachments/{self.channel_id}/{attachment_id}/"
            attachments.append(
                {
                    "id": str(attachment_id),
                    "filename": filename,
                    "size": len(data),
                    "url": url + filename,
                    "proxy_url": url + filename,
                }
            )
        return {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": 0,
            "author": self.author,
            "content": self.content,
            "embeds": self.embeds,
            "components": self.components,
            "attachments": attachments,
            "flags": self.flags,
            "timestamp": self.timestamp,
        }

    def raw_with_data(self) -> JSON:
        """Return ``raw`` with each attachment's bytes under "data"."""
        raw = self.raw
        for attachment, (_, data) in zip(raw["attachments"], self.attachments, strict=True):
            attachment["data"] = data
        return raw

    def apply(self, body: JSON, files: Files) -> None:
        """Apply the body of a create or an edit (JSON, or multipart payload_json + files)."""
        if "content" in body:
            self.content = body["content"] or ""
        if "embeds" in body:
            self.embeds = body["embeds"] or []
        if "components" in body:
            self.components = body["components"] or []
        if body.get("flags") is not None:  # ephemerality is fixed when the message is created
            self.flags = (self.flags & EPHEMERAL) | (int(body["flags"]) & ~EPHEMERAL)
        self.flags &= ~LOADING
        if "attachments" not in body and not files:
            return
        existing = dict(zip(self.attachment_ids, self.attachments, strict=True))
        # Each entry keeps an existing attachment (by id) or names an upload (id = its index).
        entries = body.get("attachments")
        if entries is None:
            entries = [{"id": key} for key in [*existing, *files]]
        self.attachment_ids, self.attachments = [], []
        for entry in entries:
            key = int(entry["id"])
            if key in files:
                self.attachment_ids.append(snowflake())
                self.attachments.append(files[key])
            elif key in existing:
                self.attachment_ids.append(key)
                self.attachments.append(existing[key])


@dataclass(eq=False, slots=True)
class Reply:
    """The bot's answer to one interaction: its response message, edits and followups.

    ``content``, ``embeds``, ``components``, ``attachments``, ``ephemeral`` and ``message_id``
    are those of the response message (``@original``) as it stands now.
    """

    interaction: JSON  # the INTERACTION_CREATE body the fake sent
    source: FakeMessage | None = None  # the clicked message, for a component interaction
    raw: JSON | None = None  # the callback body the bot posted: {"type": ..., "data": ...}
    message: FakeMessage | None = None  # "@original": the response message
    followups: list[FakeMessage] = field(default_factory=list)
    completed: bool = False  # a deferral was followed by an edit or a followup
    # time.perf_counter() when the fake sent the interaction and when the bot's callback had
    # fully arrived (body read), for benchmarks; None until then.
    sent_at: float | None = None
    answered_at: float | None = None
    # The fake's clock (FakeDiscord.clock) when it sent the interaction: Discord's deadlines for
    # the callback (3 s) and the token (15 min) count from it.
    sent_clock: float | None = None
    # Why Discord refused the bot's answer (over a limit, or late): it never arrives, and the
    # waits for it end at once with this reason instead of timing out.
    refused: str | None = None

    @property
    def callback_type(self) -> int | None:
        return None if self.raw is None else int(self.raw["type"])

    @property
    def latency(self) -> float | None:
        """Seconds from sending the interaction to the callback's arrival, once answered."""
        if self.sent_at is None or self.answered_at is None:
            return None
        return self.answered_at - self.sent_at

    @property
    def deferred(self) -> bool:
        return self.callback_type in DEFERRED_TYPES

    @property
    def channel_id(self) -> int:
        return int(self.interaction["channel_id"])

    def settled(self, wait_deferred: bool) -> bool:
        """Return whether the bot has answered (and completed its deferral, if asked), or
        Discord refused its answer."""
        if self.refused is not None:
            return True
        if self.raw is None:
            return False
        return not (wait_deferred and self.deferred and not self.completed)

    def _original(self) -> FakeMessage:
        if self.message is None:
            raise AssertionError(f"the answer (callback type {self.callback_type}) has no message")
        return self.message

    @property
    def original(self) -> FakeMessage:
        """The response message, which must exist (``message`` is None until it does)."""
        return self._original()

    @property
    def message_id(self) -> int:
        return self._original().id

    @property
    def content(self) -> str:
        return self._original().content

    @property
    def embeds(self) -> list[JSON]:
        return self._original().embeds

    @property
    def components(self) -> list[JSON]:
        return self._original().components

    @property
    def attachments(self) -> list[tuple[str, bytes]]:
        return self._original().attachments

    @property
    def ephemeral(self) -> bool:
        return self._original().ephemeral


def interactive_components(components: list[JSON]) -> list[JSON]:
    """Return every component with a custom_id (buttons, selects), however deeply nested."""
    found: list[JSON] = []
    for component in components:
        if "custom_id" in component:
            found.append(component)
        found += interactive_components(component.get("components", []))
        if "accessory" in component:
            found += interactive_components([component["accessory"]])
    return found
