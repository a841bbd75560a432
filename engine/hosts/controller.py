"""The controller: it listens for its agents over mutual TLS, one WebSocket link each (`engine.hosts.link`), in a thread
of the controller's own process.

It makes the TLS handshake itself, so every refusal is said with who, from which address and why (`refusals`, and
`said` as it happens): no TLS, no certificate, another authority's, a removed host's. It answers only an agent's
certificate of its own authority for a host enrolled now, under that certificate's host name: a message is filed
under the host the certificate names, never one the message names, and a Hello that names another host is refused.
Each message is validated on arrival (`engine.hosts.messages`); one that is not the link's, or comes out of turn (a
test's message from a server not in it), is refused and its link closed. `wait_for` waits until every enrolled
host's agent has connected.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from websockets.asyncio.server import Server, ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode
from websockets.protocol import State
from websockets.server import ServerProtocol

from engine.hosts.checks import shown
from engine.hosts.link import (
    CONNECTION_OPTIONS,
    OPEN_S,
    SILENT_S,
    Certified,
    Peer,
    certified,
    closed_words,
    der_of,
)
from engine.hosts.messages import (
    MAX_MESSAGE_BYTES,
    ClockQuestion,
    ClockReading,
    FromAgent,
    Hello,
    MalformedError,
    Welcome,
    from_agent,
)
from engine.hosts.roster import CONTROLLER_PORT, Roster
from engine.hosts.tls import context, refused_by
from engine.hosts.trust import RequestError
from engine.protocol import PROTOCOL_VERSION

# what one agent may have sent that the controller has not checked yet: a flood past it (a thief with a valid key
# filling the controller's memory) is refused; a test's own flood is checked far faster than this fills
UNCHECKED_BYTES = 4 * MAX_MESSAGE_BYTES
CLOCK_READINGS = 5  # the clock is read this many times; the reading of the least round trip is kept
CLOCK_WAIT_S = 2.0  # one reading's deadline
ROSTER_CHECK_S = 1.0  # how often the controller reads its roster again, for a host removed meanwhile
HELLO_BYTES = 8 * 1024  # the largest hello: a host name and a certificate request of a few hundred bytes each
HOST_CHARS = 253  # the longest host name (a DNS name's length): the most of one a refusal shows
KEPT_REFUSALS = 100  # refusals the controller keeps to say again; more are counted (`refusals_more`)
_LOG = logging.getLogger("jetwise.controller")


@dataclass(frozen=True)
class Refusal:
    """A connection or a message the controller refused: from where, who, and why in words."""

    peer: str
    why: str
    who: str = ""

    @property
    def words(self) -> str:
        return f"refused {self.who + ' from ' if self.who else ''}{self.peer}: {self.why}"


@dataclass(frozen=True)
class Gone:
    """A server's link ended during a test: why, in words."""

    why: str


Inbox = Callable[[str, FromAgent | Gone | Refusal], None]
Arrived = Callable[[list[str], float], None]  # a wait's hosts connected so far, and its seconds left


@dataclass
class _Test:
    test_id: str
    hosts: frozenset[str]
    inbox: Inbox


@dataclass
class _Agent:
    host: str
    peer: Peer
    address: str
    who: str
    cert: Certified
    clocks: dict[int, asyncio.Future[float]] = field(default_factory=dict)
    refused: bool = False  # one of its messages was refused: its link closes, and nothing after it is read
    unchecked_bytes: int = 0  # of its messages read and waiting to be checked
    _counting: threading.Lock = field(default_factory=threading.Lock)

    def unchecked(self, size: int) -> int:
        """Count `size` more bytes waiting to be checked (less, negative, once checked): how many wait now."""
        with self._counting:
            self.unchecked_bytes += size
            return self.unchecked_bytes


class HostsMissingError(RuntimeError):
    """Not every enrolled host's agent connected in time: which, in words."""


def handshake_words(exc: BaseException) -> str:
    """A failed TLS handshake, as the controller says it."""
    if isinstance(exc, TimeoutError):
        return f"no TLS handshake within {OPEN_S:g} s"
    if isinstance(exc, (ConnectionError, ssl.SSLEOFError)) or not str(exc):
        return ("it broke off the TLS handshake: it does not trust this controller's certificate (an agent of another "
                "authority: another test's, or another Jetwise's)")
    reason = str(getattr(exc, "reason", None) or exc)
    if getattr(exc, "verify_message", None):  # the server's side of a refused certificate says why here
        reason = f"{reason}: {exc.verify_message}"  # type: ignore[attr-defined]
    if "CERTIFICATE" in reason.upper() and "RETURN" in reason.upper():
        return f"no certificate: only an enrolled agent's certificate is answered ({reason})"
    what = {"revoked": "a removed host's certificate",
            "other_authority": "a certificate of another authority (another test's, or another Jetwise's)",
            "plaintext": "no TLS (plaintext)", "handshake": "a failed TLS handshake"}[refused_by(reason)]
    return f"{what} ({reason})"


def not_answered(roster: Roster, cert: Certified | None) -> str | None:
    """Why the controller answers no agent proving itself with `cert` (past the TLS handshake: of its authority), if
    it answers none: no certificate, one not an agent's, a removed host's, a replaced one, a redeemed bundle's."""
    if cert is None:
        return "no certificate"
    if cert.role != "agent" or cert.host is None:
        return f"a certificate issued to {cert.role or 'no role'}, not to an agent"
    removed = [e for e in roster.file.hosts if e.name == cert.host and e.removed_utc is not None
               and cert.der in (der_of(e.cert_pem), der_of(e.bundle_pem or e.cert_pem))]
    current = [entry for entry in roster.hosts() if entry.name == cert.host]
    if removed and not current:
        assert removed[-1].removed_utc is not None
        return (f"a removed host's certificate: its host was removed from the controller's servers on "
                f"{removed[-1].removed_utc:%Y-%m-%d %H:%M} UTC; enrol it again with a new bundle (jetwise hosts add "
                "on the controller)")
    if current and current[-1].bundle_pem is not None and der_of(current[-1].bundle_pem) == cert.der:
        entry = current[-1]
        assert entry.redeemed_utc is not None
        return (f"{cert.host}'s enrolment bundle was redeemed already, on {entry.redeemed_utc:%Y-%m-%d %H:%M} UTC "
                f"from {entry.redeemed_from}: this is a copy of it (if that was not {cert.host}'s agent, enrol "
                f"{cert.host} again: jetwise hosts add)")
    if not current and not removed:
        return f"a certificate of {cert.host}, which this controller has not enrolled"
    if not current or der_of(current[-1].cert_pem) != cert.der:
        return (f"a replaced certificate of {cert.host}: the host was enrolled again since; enrol this agent with "
                "the new bundle")
    return None


class _Gate(asyncio.Protocol):
    """A connection before its TLS handshake, which the controller makes itself to say why one fails."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self.early = bytearray()  # what arrived once TLS was up, before the link took the connection
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.pause_reading()  # the TLS handshake reads it
        self.transport = transport
        self.controller._started(self.controller._admit(self))

    def data_received(self, data: bytes) -> None:
        self.early += data


class _AgentConnection(ServerConnection):
    """A WebSocket connection, with what its TLS handshake proved."""

    def __init__(self, protocol: ServerProtocol, server: Server, *, address: str, cert: Certified | None) -> None:
        super().__init__(protocol, server, **{k: v for k, v in CONNECTION_OPTIONS.items() if k != "max_size"})
        self.address, self.cert = address, cert


class Controller:
    """The controller's end of every agent's link, in a thread of this process. `said` is told each refusal as it
    happens (in the link's thread)."""

    def __init__(self, roster: Roster, *, host: str = "0.0.0.0", port: int = CONTROLLER_PORT,
                 said: Callable[[str], None] | None = None) -> None:
        self.roster = roster
        self.context = context(ssl.Purpose.CLIENT_AUTH, roster.file.authority_pem, roster.controller)
        self.refusals: list[Refusal] = []
        self.refusals_more = 0  # refusals beyond `KEPT_REFUSALS`, counted
        self._said = said
        self._seen: set[tuple[str, str]] = set()
        self._agents: dict[str, _Agent] = {}
        self._test: _Test | None = None
        self._numbers = itertools.count()
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = threading.Lock()
        self._checking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jetwise-link-check")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="jetwise-controller", daemon=True)
        self._host, self._port = host, port
        self._server: asyncio.Server | None = None
        self._links: Server | None = None

    # listening ---------------------------------------------------------------------------------------------------

    def __enter__(self) -> Controller:
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=60)
        self._port = int(self._server.sockets[0].getsockname()[1])
        return self

    async def _listen(self) -> asyncio.Server:
        """The listener, whose connections make their TLS handshake at the gate before they become links."""
        async def gated() -> asyncio.Server:
            return await asyncio.get_running_loop().create_server(lambda: _Gate(self), self._host, self._port)

        self._links = await Server(gated, self._serve, _LOG)  # the links' bookkeeping, around the gated listener
        self._started(self._watch_roster())
        return self._links.server

    async def _watch_roster(self) -> None:
        """A host removed (`jetwise hosts remove`, in another process) while the controller runs: within
        `ROSTER_CHECK_S` its agent is refused and its link closed, which ends its part of a test running."""
        while True:
            await asyncio.sleep(ROSTER_CHECK_S)
            if not self.roster.refresh():
                continue
            with self._lock:
                agents = list(self._agents.values())
            for agent in agents:
                why = not_answered(self.roster, agent.cert)
                if why is not None:
                    self._refuse_agent(agent, why)

    def _started(self, work: Coroutine[object, object, None]) -> None:
        task = self._loop.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def address(self) -> str:
        host = socket.getfqdn() if self._host in ("0.0.0.0", "::", "") else self._host
        return f"tls://{host}:{self._port}"

    async def _admit(self, gate: _Gate) -> None:
        """The TLS handshake of a new connection, then its link; a failed handshake said."""
        assert gate.transport is not None
        peer = gate.transport.get_extra_info("peername")
        address = f"tls://{peer[0]}:{peer[1]}" if peer else "tls://?"
        try:
            tls = await asyncio.get_running_loop().start_tls(gate.transport, gate, self.context, server_side=True,
                                                             ssl_handshake_timeout=OPEN_S)
        except (OSError, TimeoutError, ssl.SSLError) as exc:
            self._refused(Refusal(address, handshake_words(exc)))
            gate.transport.abort()
            return
        if tls is None:
            return
        assert self._links is not None
        connection = _AgentConnection(ServerProtocol(max_size=MAX_MESSAGE_BYTES), self._links, address=address,
                                      cert=certified(tls.get_extra_info("ssl_object")))
        tls.set_protocol(connection)
        connection.connection_made(tls)  # starts `_serve`
        if gate.early:
            connection.data_received(bytes(gate.early))

    def _refused(self, refusal: Refusal) -> None:
        refusal = Refusal(refusal.peer, shown(refusal.why), refusal.who)  # a peer's words in it, escaped and bounded
        with self._lock:
            key = (refusal.peer.rsplit(":", 1)[0], refusal.why)
            if key in self._seen:  # a peer that tries again and again: said once
                return
            if len(self.refusals) >= KEPT_REFUSALS:  # counted, not kept: no peer grows the controller
                self.refusals_more += 1
                if self.refusals_more > 1:
                    return
                refusal = Refusal(refusal.peer, f"{KEPT_REFUSALS} refusals are said already: further ones are counted, "
                                                "not said", refusal.who)
            else:
                self._seen.add(key)
                self.refusals.append(refusal)
            test = self._test
        _LOG.warning(refusal.words)
        if test is not None:  # the test says it, on the console and in its log
            test.inbox("", refusal)
        elif self._said is not None:
            self._said(refusal.words)

    def _redeemed(self, host: str, hello: Hello, address: str) -> tuple[str | None, str | None]:
        """The certificate of the key `host`'s agent made, when its Hello redeems its bundle; or why it is refused."""
        entry = next(e for e in reversed(self.roster.hosts()) if e.name == host)
        if entry.redeemed_utc is None and hello.request_pem is None:
            return None, "its bundle is not redeemed, and it asks for no certificate of its own key"
        if entry.redeemed_utc is not None and hello.request_pem is not None:
            return None, "it asks to redeem a bundle redeemed already"
        if hello.request_pem is None:
            return None, None
        try:
            return self.roster.redeem(host, hello.request_pem, address), None
        except RequestError as exc:
            return None, str(exc)

    # a link -------------------------------------------------------------------------------------------------------

    async def _serve(self, connection: ServerConnection) -> None:
        assert isinstance(connection, _AgentConnection)
        address, cert = connection.address, connection.cert
        refused = not_answered(self.roster, cert)
        who = f"the agent {cert.host}" if cert is not None and refused is None else \
            f"a peer holding {cert.host}'s certificate" if cert is not None else "a peer"
        try:
            async with asyncio.timeout(OPEN_S):
                await connection.handshake(server_header=None)
        except Exception:  # a peer that speaks no WebSocket: said, cut off
            _LOG.debug("no WebSocket handshake from %s", address, exc_info=True)
        if connection.protocol.state is not State.OPEN:
            self._refused(Refusal(address, "it speaks no WebSocket (not Jetwise's link)", who))
            connection.transport.abort()
            return
        agent: _Agent | None = None
        peer = Peer(connection, self._loop, lost=lambda _words: None,
                    silent=f"it answered nothing for {SILENT_S:g} s (its agent frozen, or its network cut)")
        gone = ""
        try:
            agent = await self._welcome(connection, peer, cert, refused, address, who)
            if agent is None:
                return
            async for text in connection:
                peer.heard()
                if agent.unchecked(len(text)) > UNCHECKED_BYTES:
                    self._refuse_agent(agent, f"it sent more than {UNCHECKED_BYTES // (1024 * 1024)} MiB faster than "
                                              "the controller could check it (a flood)")
                    break
                # checked in order in the checking thread: the link's thread only reads, so it answers every link's
                # pings however many messages wait to be checked (a flood's backlog waits in memory, not in TCP, up to
                # UNCHECKED_BYTES)
                self._checking.submit(self._checked, agent, text)
                await asyncio.sleep(0)  # one link's backlog read off in one go would hold back the others'
            gone = "its agent closed the connection"
        except ConnectionClosed as exc:
            gone = peer.silenced or closed_words(exc, "its agent")
            if exc.sent is not None and exc.sent.code != CloseCode.NORMAL_CLOSURE and exc.rcvd is None and \
                    (agent is None or not agent.refused):
                self._refused(Refusal(address, gone, who))  # the link itself refused it: too large, not WebSocket
        finally:
            if agent is not None:
                self._left(agent, peer, gone)
            await self._closed(connection, peer)

    async def _welcome(self, connection: ServerConnection, peer: Peer, cert: Certified | None, refused: str | None,
                       address: str, who: str) -> _Agent | None:
        """The agent's first word, checked against its certificate: registered and welcomed, or refused."""
        if refused is not None:
            self._refuse(peer, address, who, refused)
            return None
        assert cert is not None and cert.host is not None
        try:
            text = await asyncio.wait_for(connection.recv(), OPEN_S)
            if len(text) > HELLO_BYTES:  # a hello is small: nothing larger is validated at all
                raise MalformedError(f"a first message of {len(text):,} bytes, where a hello is at most {HELLO_BYTES:,}")
            # validated in the checking thread, never in the loop that keeps every link alive
            first = await asyncio.get_running_loop().run_in_executor(self._checking, from_agent, text)
        except TimeoutError:
            self._refuse(peer, address, who, f"it said nothing within {OPEN_S:g} s of connecting")
            return None
        except MalformedError as exc:
            self._refuse(peer, address, who, str(exc))
            return None
        peer.heard()
        if not isinstance(first, Hello):
            why = f"its first message was '{first.kind}', not hello"
        elif first.host != cert.host:
            why = f"it names {shown(first.host, HOST_CHARS)}, and its certificate is {cert.host}'s"
        elif first.protocol != PROTOCOL_VERSION:
            why = (f"it speaks event protocol {first.protocol}, the controller {PROTOCOL_VERSION}: run the same "
                   "Jetwise version on both")
        else:
            why = None
        cert_pem = None
        if why is None:  # its certificate judged again as it is admitted: the roster may have changed since it connected
            self.roster.refresh()
            why = not_answered(self.roster, cert)
        if why is None and isinstance(first, Hello):
            cert_pem, why = self._redeemed(cert.host, first, address)
        with self._lock:
            there = self._agents.get(cert.host)
            if why is None and there is not None:
                why = (f"{cert.host}'s agent is connected already from {there.peer.address}: a second one with its "
                       "certificate is refused (a copied bundle or key)")
            if why is None:
                # known from now on by the certificate of the key it made, when it redeemed its bundle with this hello
                known = cert if cert_pem is None else Certified(cert.role, cert.host, der_of(cert_pem))
                agent = self._agents[cert.host] = _Agent(cert.host, peer, address, who, known)
                test = self._test
        if why is not None:
            self._refuse(peer, address, who, why)
            return None
        note = "" if test is None or cert.host in test.hosts else "a test is running: this agent joins the next test"
        peer.send(Welcome(note=note, cert_pem=cert_pem))
        return agent

    def _checked(self, agent: _Agent, text: str | bytes) -> None:
        """A message of `agent`'s, validated (in the checking thread) and filed under its certificate's host; one
        that is not the link's, or out of turn, refused and its link closed."""
        agent.unchecked(-len(text))
        if agent.refused:
            return
        try:
            def of_its_test(said: dict[str, Any]) -> None:  # before the message costs a validation
                test = self._test
                if "test_id" in said and (test is None or agent.host not in test.hosts or said["test_id"] != test.test_id):
                    raise MalformedError(f"a '{said['kind']}' message of test {shown(said['test_id'], 100)}, which it "
                                         "is not running")

            message = from_agent(text, of_its_test)
            if isinstance(message, ClockReading):
                self._loop.call_soon_threadsafe(self._clock_read, agent, message)
                return
            if isinstance(message, Hello):
                raise MalformedError("a second hello")
            test = self._test
            if test is None or agent.host not in test.hosts or message.test_id != test.test_id:
                raise MalformedError(f"a '{message.kind}' message of test {message.test_id}, which it is not running")
        except MalformedError as exc:
            self._refuse_agent(agent, str(exc))
            return
        test.inbox(agent.host, message)

    def _clock_read(self, agent: _Agent, reading: ClockReading) -> None:
        waiting = agent.clocks.pop(reading.number, None)
        if waiting is None:
            self._refuse_agent(agent, "a clock reading the controller did not ask for")
        elif not waiting.done():
            waiting.set_result(reading.time_s)

    def _refuse_agent(self, agent: _Agent, why: str) -> None:
        if not agent.refused:
            agent.refused = True
            self._refuse(agent.peer, agent.address, agent.who, why)

    def _refuse(self, peer: Peer, address: str, who: str, why: str) -> None:
        self._refused(Refusal(address, why, who))
        peer.refuse(why)

    def _left(self, agent: _Agent, peer: Peer, gone: str) -> None:
        with self._lock:
            if self._agents.get(agent.host) is agent:
                del self._agents[agent.host]
            test = self._test
        for waiting in agent.clocks.values():
            waiting.cancel()
        if test is not None and agent.host in test.hosts:  # after every message of its that waits to be checked
            self._checking.submit(test.inbox, agent.host, Gone(gone))

    async def _closed(self, connection: ServerConnection, peer: Peer) -> None:
        try:
            await asyncio.wait_for(connection.wait_closed(), OPEN_S)
        except TimeoutError:
            connection.transport.abort()
        peer.stop()

    # for a test ---------------------------------------------------------------------------------------------------

    def agents(self) -> dict[str, str]:
        """Each connected agent's host name and address."""
        with self._lock:
            return {host: agent.peer.address for host, agent in self._agents.items()}

    def begin(self, test_id: str, hosts: list[str], inbox: Inbox) -> None:
        """Hand each message of `hosts`' for `test_id`, each link of theirs that ends, and each refusal to `inbox`
        (called in the link's thread) until `end`."""
        with self._lock:
            self._test = _Test(test_id, frozenset(hosts), inbox)

    def end(self) -> None:
        with self._lock:
            self._test = None

    def send(self, host: str, message: BaseModel) -> bool:
        """Send `message` to `host`'s agent; False when it is not connected."""
        with self._lock:
            agent = self._agents.get(host)
        if agent is not None:
            agent.peer.send(message)
        return agent is not None

    def refuse(self, host: str, why: str) -> None:
        """Refuse `host`'s agent (a message out of turn), said, its link closed."""
        with self._lock:
            agent = self._agents.get(host)
        if agent is not None:
            self._refuse_agent(agent, why)

    def clock_offset(self, host: str) -> float | None:
        """The controller's clock minus `host`'s, from the reading of the least round trip; None when it does not
        answer in time."""
        try:
            return asyncio.run_coroutine_threadsafe(self._clock(host), self._loop).result(
                timeout=CLOCK_READINGS * CLOCK_WAIT_S + 1)
        except (TimeoutError, asyncio.CancelledError, ConnectionError):
            return None

    async def _clock(self, host: str) -> float | None:
        agent = self._agents.get(host)
        if agent is None:
            return None
        readings = []
        for _ in range(CLOCK_READINGS):
            if self._agents.get(host) is not agent:  # its link ended: no more readings to wait for
                break
            number = next(self._numbers)
            waiting = agent.clocks[number] = self._loop.create_future()
            asked = time.time()
            agent.peer.send(ClockQuestion(number=number))
            try:
                theirs = await asyncio.wait_for(waiting, CLOCK_WAIT_S)
            except (TimeoutError, asyncio.CancelledError):
                agent.clocks.pop(number, None)
                continue
            answered = time.time()
            readings.append((answered - asked, (asked + answered) / 2 - theirs))
        return min(readings)[1] if readings else None

    # waiting for the agents ---------------------------------------------------------------------------------------

    def connected_within(self, hosts: list[str], timeout_s: float,
                         arrived: Arrived | None = None) -> dict[str, str]:
        """The hosts whose agents connected within `timeout_s` (all of them as soon as they have), with their
        addresses; `arrived` is told the hosts connected and the seconds left, as the wait begins and whenever they
        change."""
        deadline = time.monotonic() + timeout_s
        told: list[str] | None = None
        while True:
            connected = self.agents()
            now = [host for host in hosts if host in connected]
            if arrived is not None and now != told:
                told = now
                arrived(now, max(0.0, deadline - time.monotonic()))
            if len(now) == len(hosts) or time.monotonic() >= deadline:
                return {host: connected[host] for host in now}
            time.sleep(0.1)

    def wait_for(self, hosts: list[str], timeout_s: float,
                 arrived: Arrived | None = None) -> dict[str, str]:
        """Every host's agent, once each has connected (`arrived` told as they do); `HostsMissingError` naming those
        that did not."""
        connected = self.connected_within(hosts, timeout_s, arrived)
        missing = [host for host in hosts if host not in connected]
        if missing:
            said = "; ".join(r.words for r in self.refusals)
            raise HostsMissingError(f"no agent connected for {', '.join(missing)} within {timeout_s:g} s"
                                    + (f" ({said})" if said else ""))
        return connected

    def __exit__(self, *_exc: object) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self._close(), self._loop).result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._checking.shutdown(wait=True, cancel_futures=True)

    async def _close(self) -> None:
        """Every link closed (the test over), then the listener."""
        with self._lock:
            agents = list(self._agents.values())
        for agent in agents:
            agent.peer.close(1000, "the controller closed the test")
        if self._server is not None:
            self._server.close()
        pending = [task for task in self._tasks if not task.done()]
        if self._links is not None:
            pending += list(self._links.handler_tasks)
        if pending:
            await asyncio.wait(pending, timeout=5)
        for task in pending:
            task.cancel()
