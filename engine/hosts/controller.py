"""The controller: it listens for its agents over mutual TLS, one WebSocket link each (`engine.hosts.link`), in a thread
of the controller's own process.

websockets serves the links (`serve`); each connection makes its TLS handshake itself (`engine.hosts.handshake`), so every
refusal is said with who, from which address and why (`engine.hosts.admission`, and `said` as it happens): no TLS, no
certificate, another authority's, a removed host's. It answers only an agent's certificate of its own authority for a
host enrolled now, under that certificate's host name: a message is filed under the host the certificate names, never
one the message names, and a Hello that names another host is refused. Each message is validated off the event loop
(`engine.hosts.messages`, in the checking thread); one that is not the link's, or comes out of turn (a test's message
from a server not in it), is refused and its link closed. `wait_for` waits until every enrolled host's agent has
connected; `clock_offset` reads an agent's clock (`engine.hosts.clock`).
"""

from __future__ import annotations

import asyncio
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
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode

from engine.hosts.admission import Refusal, Refusals, admitted, not_answered
from engine.hosts.checks import shown
from engine.hosts.clock import CLOCK_READINGS, CLOCK_WAIT_S, Clock
from engine.hosts.handshake import AgentConnection, connection_of
from engine.hosts.link import CONNECTION_OPTIONS, OPEN_S, Certified, Peer, closed_words
from engine.hosts.messages import KIND_BYTES, MAX_MESSAGE_BYTES, ClockReading, FromAgent, Hello, MalformedError, Welcome, from_agent
from engine.hosts.roster import CONTROLLER_PORT, Roster
from engine.hosts.tls import context

# what one agent may have sent that the controller has not checked yet: a flood past it (a thief with a valid key
# filling the controller's memory) is refused; a test's own flood is checked far faster than this fills
UNCHECKED_BYTES = 4 * MAX_MESSAGE_BYTES
ROSTER_CHECK_S = 1.0  # how often the controller reads its roster again, for a host removed meanwhile
_LOG = logging.getLogger("jetwise.controller")


@dataclass(frozen=True)
class Gone:
    """A server's link ended during a test: why, in words."""

    why: str


Inbox = Callable[[str, FromAgent | Gone | Refusal], None]
Arrived = Callable[[list[str], float], None]  # a wait's hosts connected so far, and its seconds left


@dataclass
class _Test:
    test_id: str
    instances: dict[str, int]  # each server's number of databases in the test
    inbox: Inbox

    @property
    def hosts(self) -> frozenset[str]:
        return frozenset(self.instances)


@dataclass
class _Agent:
    host: str
    peer: Peer
    address: str
    who: str
    cert: Certified
    clock: Clock = field(default_factory=Clock)
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


class Controller:
    """The controller's end of every agent's link, in a thread of this process. `said` is told each refusal as it
    happens (in the link's thread)."""

    def __init__(self, roster: Roster, *, host: str = "0.0.0.0", port: int = CONTROLLER_PORT,
                 said: Callable[[str], None] | None = None) -> None:
        self.roster = roster
        self.context = context(ssl.Purpose.CLIENT_AUTH, roster.file.authority_pem, roster.controller)
        self._refusals = Refusals()
        self.refusals = self._refusals.kept  # said, in order: at most `KEPT_REFUSALS`, further ones counted
        self._said = said
        self._agents: dict[str, _Agent] = {}
        self._test: _Test | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = threading.Lock()
        self._checking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jetwise-link-check")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="jetwise-controller", daemon=True)
        self._host, self._port = host, port
        self._links: Server | None = None

    # listening ---------------------------------------------------------------------------------------------------

    def __enter__(self) -> Controller:
        self._thread.start()
        self._links = asyncio.run_coroutine_threadsafe(self._listen(), self._loop).result(timeout=60)
        self._port = int(self._links.sockets[0].getsockname()[1])
        return self

    async def _listen(self) -> Server:
        links = await serve(self._serve, self._host, self._port, create_connection=connection_of(self), compression=None,
                            server_header=None, open_timeout=OPEN_S, **CONNECTION_OPTIONS)
        self.spawn(self._watch_roster())
        return links

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

    def spawn(self, work: Coroutine[object, object, None]) -> None:
        task = self._loop.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def address(self) -> str:
        host = socket.getfqdn() if self._host in ("0.0.0.0", "::", "") else self._host
        return f"tls://{host}:{self._port}"

    def who(self, cert: Certified | None) -> str:
        """Who a peer proving itself with `cert` is, as a refusal names it."""
        if cert is None:
            return "a peer"
        return f"the agent {cert.host}" if not_answered(self.roster, cert) is None else \
            f"a peer holding {cert.host}'s certificate"

    def refused(self, refusal: Refusal) -> None:
        said = self._refusals.to_say(refusal)
        if said is None:
            return
        _LOG.warning(said.words)
        with self._lock:
            test = self._test
        if test is not None:  # the test says it, on the console and in its log
            test.inbox("", said)
        elif self._said is not None:
            self._said(said.words)

    # a link -------------------------------------------------------------------------------------------------------

    async def _serve(self, connection: ServerConnection) -> None:
        assert isinstance(connection, AgentConnection)
        address, who = connection.address, connection.who
        agent: _Agent | None = None
        peer = Peer(connection, self._loop)
        gone = ""
        try:
            agent = await self._welcome(connection, peer)
            if agent is None:
                return
            async for text in connection:
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
            gone = closed_words(exc, "its agent")
            if exc.sent is not None and exc.sent.code not in (CloseCode.NORMAL_CLOSURE, CloseCode.INTERNAL_ERROR) \
                    and exc.rcvd is None and (agent is None or not agent.refused):
                self.refused(Refusal(address, gone, who))  # the link itself refused it: too large, not WebSocket
        finally:
            if agent is not None:
                self._left(agent, gone)
            try:  # its refusal, or its last word, written before websockets closes what is left of it
                await asyncio.wait_for(connection.wait_closed(), OPEN_S)
            except TimeoutError:
                connection.transport.abort()
            peer.stop()

    async def _welcome(self, connection: AgentConnection, peer: Peer) -> _Agent | None:
        """The agent's first word, checked against its certificate: registered and welcomed, or refused."""
        cert, address, who = connection.cert, connection.address, connection.who
        why, cert_pem = not_answered(self.roster, cert), None
        try:
            if why is None:
                assert cert is not None and cert.host is not None
                text = await asyncio.wait_for(connection.recv(), OPEN_S)
                if len(text) > KIND_BYTES["hello"]:  # a hello is small: nothing larger is validated at all
                    raise MalformedError(f"a first message of {len(text):,} bytes, where a hello is at most "
                                         f"{KIND_BYTES['hello']:,}")
                # validated in the checking thread, never in the loop that keeps every link alive
                first = await asyncio.get_running_loop().run_in_executor(self._checking, from_agent, text)
                cert, cert_pem, why = admitted(self.roster, cert, first, address)
        except TimeoutError:
            why = f"it said nothing within {OPEN_S:g} s of connecting"
        except MalformedError as exc:
            why = str(exc)
        agent = test = None
        with self._lock:
            there = self._agents.get(cert.host) if cert is not None and cert.host is not None else None
            if why is None and there is not None:
                why = (f"{there.host}'s agent is connected already from {there.peer.address}: a second one with its "
                       "certificate is refused (a copied bundle or key)")
            if why is None and cert is not None and cert.host is not None:  # known by the key it made, if it made one
                agent = self._agents[cert.host] = _Agent(cert.host, peer, address, who, cert)
                test = self._test
        if agent is None:
            self._refuse(peer, address, who, why or "no certificate")
            return None
        note = "" if test is None or agent.host in test.hosts else "a test is running: this agent joins the next test"
        peer.send(Welcome(note=note, cert_pem=cert_pem))
        return agent

    def _checked(self, agent: _Agent, text: str | bytes) -> None:
        """A message of `agent`'s, validated (in the checking thread) and filed under its certificate's host; one
        that is not the link's, or out of turn, refused and its link closed."""
        agent.unchecked(-len(text))
        test = self._test
        if agent.refused:
            return
        try:
            def of_its_test(said: dict[str, Any]) -> None:  # before the message costs a validation
                if "test_id" in said and (test is None or agent.host not in test.hosts or said["test_id"] != test.test_id):
                    raise MalformedError(f"a '{said['kind']}' message of test {shown(said['test_id'], 100)}, which it "
                                         "is not running")

            message = from_agent(text, of_its_test, None if test is None else test.instances.get(agent.host))
            if isinstance(message, Hello):
                raise MalformedError("a second hello")
        except MalformedError as exc:
            self._refuse_agent(agent, str(exc))
            return
        if isinstance(message, ClockReading):
            self._loop.call_soon_threadsafe(self._clock_read, agent, message)
        else:  # a test's message, of this test (`of_its_test`)
            assert test is not None
            test.inbox(agent.host, message)

    def _clock_read(self, agent: _Agent, reading: ClockReading) -> None:
        if not agent.clock.answered(reading):
            self._refuse_agent(agent, "a clock reading the controller did not ask for")

    def _refuse_agent(self, agent: _Agent, why: str) -> None:
        if not agent.refused:
            agent.refused = True
            self._refuse(agent.peer, agent.address, agent.who, why)

    def _refuse(self, peer: Peer, address: str, who: str, why: str) -> None:
        self.refused(Refusal(address, why, who))
        peer.refuse(why)

    def _left(self, agent: _Agent, gone: str) -> None:
        with self._lock:
            if self._agents.get(agent.host) is agent:
                del self._agents[agent.host]
            test = self._test
        agent.clock.cancel()
        if test is not None and agent.host in test.hosts:  # after every message of its that waits to be checked
            self._checking.submit(test.inbox, agent.host, Gone(gone))

    # for a test ---------------------------------------------------------------------------------------------------

    def agents(self) -> dict[str, str]:
        """Each connected agent's host name and address."""
        with self._lock:
            return {host: agent.peer.address for host, agent in self._agents.items()}

    def begin(self, test_id: str, instances: dict[str, int], inbox: Inbox) -> None:
        """Hand each message for `test_id` of the hosts `instances` names (with the number of databases each runs in
        it), each link of theirs that ends, and each refusal to `inbox` (called in the link's thread) until `end`."""
        with self._lock:
            self._test = _Test(test_id, dict(instances), inbox)

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
        with self._lock:
            agent = self._agents.get(host)
        if agent is None:
            return None
        try:
            return asyncio.run_coroutine_threadsafe(
                agent.clock.offset(agent.peer, lambda: self._agents.get(host) is agent), self._loop).result(
                timeout=CLOCK_READINGS * CLOCK_WAIT_S + 1)
        except (TimeoutError, asyncio.CancelledError, ConnectionError):
            return None

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
        if self._links is not None:  # each link closes as its agent answers, within the closing handshake's deadline
            self._links.close(close_connections=False)
            try:
                await asyncio.wait_for(self._links.wait_closed(), 5)
            except TimeoutError:
                _LOG.debug("a link did not close within 5 s of the test's end")
        for task in self._tasks:
            task.cancel()
