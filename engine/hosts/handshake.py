"""Each agent's connection makes its TLS handshake itself, so that a failed one is said with its address and why.

websockets serves the controller's links; the connection it makes for each (`AgentConnection`) holds the transport
back until mutual TLS is up (`engine.hosts.tls`), says a handshake that fails, or a peer that then speaks no WebSocket,
as a refusal (`engine.hosts.admission`), and keeps what the handshake proved for the controller to read.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Coroutine
from typing import ClassVar, Protocol

from websockets.asyncio.server import ServerConnection

from engine.hosts.admission import Refusal, handshake_words
from engine.hosts.link import OPEN_S, Certified, certified


class Listening(Protocol):
    """What a connection needs of the controller that listens."""

    context: ssl.SSLContext

    def spawn(self, work: Coroutine[object, object, None]) -> None: ...
    def refused(self, refusal: Refusal) -> None: ...
    def who(self, cert: Certified | None) -> str: ...


def connection_of(controller: Listening) -> type[AgentConnection]:
    """The connection class of one controller's links."""
    return type("Connection", (AgentConnection,), {"controller": controller})


class AgentConnection(ServerConnection):
    """A WebSocket connection whose TLS handshake its controller makes itself, to say why one fails; with what that
    handshake proved (`address`, `cert`, `who` it is as a refusal names it)."""

    controller: ClassVar[Listening]
    address = "tls://?"
    cert: Certified | None = None
    who = "a peer"
    _linked = False  # past the TLS handshake: websockets has the connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()  # the TLS handshake reads it
        self._early = bytearray()  # what arrives once TLS is up, before websockets has the connection
        peer = transport.get_extra_info("peername")
        self.address = f"tls://{peer[0]}:{peer[1]}" if peer else "tls://?"
        self.controller.spawn(self._tls(transport))

    async def _tls(self, transport: asyncio.Transport) -> None:
        try:
            tls = await asyncio.get_running_loop().start_tls(transport, self, self.controller.context,
                                                             server_side=True, ssl_handshake_timeout=OPEN_S)
        except (OSError, TimeoutError, ssl.SSLError) as exc:
            self.controller.refused(Refusal(self.address, handshake_words(exc)))
            transport.abort()
            return
        if tls is not None:
            self.cert, self._linked = certified(tls.get_extra_info("ssl_object")), True
            self.who = self.controller.who(self.cert)
            super().connection_made(tls)  # websockets' WebSocket handshake, then the controller's own
            if self._early:
                super().data_received(bytes(self._early))

    def data_received(self, data: bytes) -> None:
        if self._linked:
            super().data_received(data)
        else:
            self._early += data

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._linked:
            return
        if self.response is None or self.response.status_code != 101:  # no WebSocket handshake: said, cut off
            self.controller.refused(Refusal(self.address, "it speaks no WebSocket (not Jetwise's link)", self.who))
        super().connection_lost(exc)
