"""A TCP proxy in front of the test PostgreSQL server that records what the bot asks of it, in
round trips: how many times a client waits for the server, and for which statements.

PostgreSQL's protocol (https://www.postgresql.org/docs/current/protocol-message-formats.html):
after the untyped start-up messages, each client message is a type byte, an int32 length (itself
included) and a body. A client waits for the server after a Sync (``S``, the end of an
extended-protocol batch: Parse, Bind, Execute…) or a simple Query (``Q``), so each of those is
one round trip. asyncpg prepares a statement once per connection (Parse under a name) and then
runs it by name (Bind), so the proxy maps names back to the statement text.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import struct
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

__all__ = ["RoundTrip", "WireRecorder"]

SSL_REQUEST = 80877103  # the untyped requests a client may send before its start-up message
GSSENC_REQUEST = 80877104
LENGTH = struct.Struct("!i")


@dataclass(frozen=True)
class RoundTrip:
    """One wait for the server: the statements it ran, in order (a simple query's text, or
    each extended-protocol Bind's statement), and those it only prepared (Parse with no Bind)."""

    connection: int
    statements: tuple[str, ...]
    prepared: tuple[str, ...] = ()


@dataclass
class _Client:
    number: int
    names: dict[str, str] = field(default_factory=dict)  # prepared statement name → text
    statements: list[str] = field(default_factory=list)  # since the last Sync
    parsed: list[str] = field(default_factory=list)


class WireRecorder:
    """Listens on a free port of 127.0.0.1 and forwards every connection to ``host:port``."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._numbers = itertools.count(1)
        self._tasks: set[asyncio.Task[None]] = set()
        self.trips: list[RoundTrip] = []

    async def __aenter__(self) -> WireRecorder:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await task

    def url(self, database_url: str) -> str:
        """``database_url`` pointed at this proxy (and without SSL: the bytes stay readable)."""
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        parts = urlsplit(database_url)
        netloc = f"{parts.username}@127.0.0.1:{port}" if parts.username else f"127.0.0.1:{port}"
        query = "&".join(filter(None, [parts.query, "sslmode=disable"]))
        return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))

    def take(self) -> list[RoundTrip]:
        """The round trips recorded since the last ``take``."""
        trips, self.trips = self.trips, []
        return trips

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        server_reader, server_writer = await asyncio.open_connection(*self._target)
        back = asyncio.create_task(_pipe(server_reader, writer))
        self._tasks.add(back)
        try:
            await self._forward(_Client(next(self._numbers)), reader, server_writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            server_writer.close()
            back.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await back
            writer.close()
            self._tasks.discard(back)
            self._tasks.discard(task)

    async def _forward(
        self, client: _Client, reader: asyncio.StreamReader, out: asyncio.StreamWriter
    ) -> None:
        while True:  # untyped: SSL/GSS requests (refused: sslmode=disable), then the start-up
            head = await reader.readexactly(4)
            body = await reader.readexactly(LENGTH.unpack(head)[0] - 4)
            out.write(head + body)
            await out.drain()
            if LENGTH.unpack(body[:4])[0] not in (SSL_REQUEST, GSSENC_REQUEST):
                break
        while True:
            kind = await reader.readexactly(1)
            head = await reader.readexactly(4)
            body = await reader.readexactly(LENGTH.unpack(head)[0] - 4)
            self._note(client, kind, body)
            out.write(kind + head + body)
            await out.drain()

    def _note(self, client: _Client, kind: bytes, body: bytes) -> None:
        if kind == b"Q":
            text = body.split(b"\0", 1)[0].decode()
            self.trips.append(RoundTrip(client.number, (text,)))
        elif kind == b"P":  # Parse: name, text, …
            name, text = (part.decode() for part in body.split(b"\0", 2)[:2])
            client.names[name] = text
            client.parsed.append(text)
        elif kind == b"B":  # Bind: portal, statement name, …
            name = body.split(b"\0", 2)[1].decode()
            client.statements.append(client.names[name])
        elif kind == b"S":
            prepared = tuple(text for text in client.parsed if text not in client.statements)
            trip = RoundTrip(client.number, tuple(client.statements), prepared)
            self.trips.append(trip)
            client.statements.clear()
            client.parsed.clear()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    writer.close()  # the server hung up: so does the proxy, to its client
