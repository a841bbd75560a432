"""A hostile peer for the tests across servers: it holds one agent's certificate and key (as whoever took that server
would), or none, or another authority's, and says over the link what it likes: pickled frames, messages naming another
host, messages out of turn, a message larger than the link takes. It records what came back and how the link closed."""

from __future__ import annotations

import asyncio
import json
import pickle
import ssl
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from engine.hosts.messages import ClockReading, Hello
from engine.hosts.roster import Roster
from engine.hosts.tls import context
from engine.hosts.trust import Identity, key_request
from engine.protocol import PROTOCOL_VERSION


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


async def _say(address: str, tls: ssl.SSLContext, said: list[str | bytes], source: str, wait_s: float,
               until: Callable[[], bool]) -> Heard:
    heard = Heard()
    try:
        async with connect(address.replace("tls://", "wss://") + "/", ssl=tls, open_timeout=10, max_size=None,
                           compression=None, local_addr=(source, 0)) as ws:
            while not until():  # connected, and saying nothing yet
                await asyncio.sleep(0.05)
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
        wait_s: float = 5.0, until: Callable[[], bool] = lambda: True) -> Heard:
    """Connect to the controller at `address` as `identity` (no certificate with None), once `until` is true say each
    of `said`, and hear what comes back until the link closes or `wait_s` passes."""
    if identity is None:
        tls = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=authority_pem)
        tls.check_hostname = False
    else:
        tls = context(ssl.Purpose.SERVER_AUTH, authority_pem, identity)
    return asyncio.run(_say(address, tls, list(said), source, wait_s, until))


async def _take_part(address: str, tls: ssl.SSLContext, host: str, says: Callable[[str], Iterator[tuple[float, str]]],
                     wait_s: float) -> Heard:
    heard = Heard()
    try:
        async with connect(address.replace("tls://", "wss://") + "/", ssl=tls, open_timeout=10, max_size=None,
                           compression=None, local_addr=(host, 0)) as ws:
            await ws.send(Hello(host=host, protocol=PROTOCOL_VERSION).model_dump_json())

            async def saying(test_id: str) -> None:
                for delay_s, text in says(test_id):
                    await asyncio.sleep(delay_s)
                    await ws.send(text)

            sayer: asyncio.Task[None] | None = None
            try:
                async with asyncio.timeout(wait_s):
                    async for message in ws:
                        heard.messages.append(str(message))
                        data = json.loads(message)
                        if data["kind"] == "clock":  # its clock, as an agent's answers
                            await ws.send(ClockReading(number=data["number"], time_s=time.time()).model_dump_json())
                        elif data["kind"] == "prepare" and sayer is None:
                            sayer = asyncio.create_task(saying(data["test_id"]))
            except (TimeoutError, ConnectionClosed):
                pass
            if sayer is not None:
                sayer.cancel()
            heard.code, heard.reason = ws.close_code, ws.close_reason or ""
    except Exception as exc:  # what the hostile met, whatever it is, is what the test reads
        heard.error = f"{type(exc).__name__}: {exc}"
    return heard


def take_part(address: str, authority_pem: str, identity: Identity, host: str,
              says: Callable[[str], Iterator[tuple[float, str]]], wait_s: float = 60.0) -> Heard:
    """Connect to the controller at `address` as `host`'s agent holding `identity`, answer its clock as an agent does,
    and once it is told to prepare a test, say what `says(test_id)` gives, each text after its delay; hear what comes
    back until the link closes or `wait_s` passes."""
    tls = context(ssl.Purpose.SERVER_AUTH, authority_pem, identity)
    return asyncio.run(_take_part(address, tls, host, says, wait_s))


def self_signed(host: str = "127.0.0.1") -> ssl.SSLContext:
    """A listener's TLS context with a certificate of its own making and no Jetwise key at all."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, host)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    folder = Path(tempfile.mkdtemp())
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    return tls
