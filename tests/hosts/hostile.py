"""A hostile peer for the tests across servers: it holds one agent's certificate and key (as whoever took that server
would), or none, or another authority's, and says over the link what it likes: pickled frames, messages naming another
host, messages out of turn, a message larger than the link takes. It records what came back and how the link closed."""

from __future__ import annotations

import asyncio
import pickle
import ssl
from dataclasses import dataclass, field
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from engine.hosts.roster import Roster
from engine.hosts.tls import context
from engine.hosts.trust import Identity, key_request


class Touch:
    """Unpickled, it makes `path`: what a Dask peer's `__Pickled__` frame could run in whoever reads it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (open, (str(self.path), "w"))


def pickled(path: Path) -> bytes:
    return pickle.dumps({"op": "run", "function": Touch(path)})


def stolen(roster: Roster, host: str) -> Identity:
    """`host`'s agent's certificate and key as a thief holds them once its agent redeemed its bundle."""
    request, key = key_request(host)
    return Identity(roster.redeem(host, request, f"tls://{host}:1"), key)


@dataclass
class Heard:
    """What a hostile connection got back: each message, then the close code and reason (or the error it met)."""

    messages: list[str] = field(default_factory=list)
    code: int | None = None
    reason: str = ""
    error: str = ""


async def _say(address: str, tls: ssl.SSLContext, said: list[str | bytes], source: str, wait_s: float) -> Heard:
    heard = Heard()
    try:
        async with connect(address.replace("tls://", "wss://") + "/", ssl=tls, open_timeout=10, max_size=None,
                           compression=None, local_addr=(source, 0)) as ws:
            for message in said:
                try:
                    await ws.send(message)
                except ConnectionClosed:  # refused before it said all: what came back is read below
                    break
            try:
                async with asyncio.timeout(wait_s):
                    async for message in ws:
                        heard.messages.append(str(message))
            except TimeoutError:
                pass
            except ConnectionClosed:
                pass
            heard.code, heard.reason = ws.close_code, ws.close_reason or ""
    except Exception as exc:  # what the hostile met, whatever it is, is what the test reads
        heard.error = f"{type(exc).__name__}: {exc}"
    return heard


def say(address: str, authority_pem: str, identity: Identity | None, *said: str | bytes, source: str = "127.0.0.3",
        wait_s: float = 5.0) -> Heard:
    """Connect to the controller at `address` as `identity` (no certificate with None), say each of `said`, and
    hear what comes back until the link closes or `wait_s` passes."""
    if identity is None:
        tls = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=authority_pem)
        tls.check_hostname = False
    else:
        tls = context(ssl.Purpose.SERVER_AUTH, authority_pem, identity)
    return asyncio.run(_say(address, tls, list(said), source, wait_s))
