"""The link between the controller and an agent: one WebSocket over mutual TLS, typed messages of data both ways.

Each end sends its messages in order from any thread (`Peer.send`), through one task that writes them. websockets
keeps the connection alive (`CONNECTION_OPTIONS`): a ping every `BEAT_S`, answered by the other end's link (its event
loop, never the run's threads), so a busy server answers while a dead or frozen one does not; a ping unanswered for
`SILENT_S` and the other end is lost (websockets closes the link with 1011, said as `closed_words` says it). Every wait
has a deadline: the TLS and WebSocket handshakes (`OPEN_S`), the first word (`OPEN_S`), the closing handshake
(`CLOSE_S`). A message larger than `MAX_MESSAGE_BYTES` closes the connection (WebSocket's 1009); one that does not
validate, or comes out of turn, is refused (1008) with the reason said.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from pydantic import BaseModel
from websockets.asyncio.connection import Connection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from engine.hosts.messages import MAX_MESSAGE_BYTES, Refusal

BEAT_S = 0.25  # how often each end pings the other
SILENT_S = 3.0  # a ping unanswered this long: the other end is lost (ended, frozen, its network cut)
OPEN_S = 10.0  # the TLS and WebSocket handshakes, and the first word after them, each within this
CLOSE_S = 0.4  # the closing handshake: a peer that does not answer it (a lost one's included) is cut off after this
SCHEME = "wss"
CONNECTION_OPTIONS: dict[str, Any] = {  # both ends: websockets' keepalive at the link's pace, no queue cap
    "max_size": MAX_MESSAGE_BYTES, "ping_interval": BEAT_S, "ping_timeout": SILENT_S, "close_timeout": CLOSE_S,
    "max_queue": None}  # a message waiting to be read never holds back the pongs behind it


@dataclass(frozen=True)
class Certified:
    """What a peer's certificate says: its role (`agent`, `controller`), its host name, and the certificate itself."""

    role: str | None
    host: str | None
    der: bytes


def certified(tls: ssl.SSLObject | ssl.SSLSocket | None) -> Certified | None:
    """The certificate the peer proved itself with in the TLS handshake, or None without one."""
    der = tls.getpeercert(binary_form=True) if tls is not None else None
    if not der:
        return None
    subject = x509.load_der_x509_certificate(der).subject
    role = subject.get_attributes_for_oid(x509.NameOID.ORGANIZATIONAL_UNIT_NAME)
    host = subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    return Certified(str(role[0].value) if role else None, str(host[0].value) if host else None, der)


def der_of(cert_pem: str) -> bytes:
    return x509.load_pem_x509_certificate(cert_pem.encode()).public_bytes(serialization.Encoding.DER)


def closed_words(exc: ConnectionClosed | None, who: str) -> str:
    """Why a connection closed, in words, from its close frames."""
    if exc is None or (exc.rcvd is None and exc.sent is None):
        return f"its connection closed without a word ({who} ended, or its network is cut)"
    if exc.sent is not None and exc.sent.code == CloseCode.MESSAGE_TOO_BIG:
        return f"it sent a message larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB"
    if exc.rcvd is None and exc.sent is not None and exc.sent.code == CloseCode.INTERNAL_ERROR:  # websockets' keepalive
        return f"it answered nothing for {SILENT_S:g} s: {who} frozen, or its network cut"
    if exc.rcvd is None and exc.sent is not None and exc.sent.code != CloseCode.NORMAL_CLOSURE:
        return f"it broke the WebSocket protocol ({exc.sent.reason or exc.sent.code})"
    frame = exc.rcvd or exc.sent
    assert frame is not None
    return f"its connection closed ({frame.reason or frame.code})"


class Peer:
    """One end of a link: messages to the other end, sent in order from any thread."""

    def __init__(self, ws: Connection, loop: asyncio.AbstractEventLoop) -> None:
        self.ws, self.loop = ws, loop
        self.address = "tls://{}:{}".format(*ws.remote_address[:2])
        self._outbox: asyncio.Queue[str | tuple[int, str]] = asyncio.Queue()
        self._sending = loop.create_task(self._send_all())

    def send(self, message: BaseModel) -> None:
        """Send `message` after those sent before it (from any thread); nothing once the link is closed."""
        self.loop.call_soon_threadsafe(self._outbox.put_nowait, message.model_dump_json())

    def close(self, code: int = CloseCode.NORMAL_CLOSURE, reason: str = "") -> None:
        """Close the link once what was sent before is written (from any thread)."""
        self.loop.call_soon_threadsafe(self._outbox.put_nowait, (code, reason[:120]))

    def refuse(self, reason: str) -> None:
        """Tell the other end why it is refused, and close the link (a policy violation)."""
        self.send(Refusal(reason=reason))
        self.close(CloseCode.POLICY_VIOLATION, reason)

    async def _send_all(self) -> None:
        try:
            while True:
                item = await self._outbox.get()
                if isinstance(item, tuple):
                    await self.ws.close(*item)
                    return
                await self.ws.send(item)
        except ConnectionClosed:
            return

    def stop(self) -> None:
        """End the link's own task (in the link's event loop)."""
        self._sending.cancel()
