"""An agent: its link to the controller (`engine.hosts.link`), and each test's part it runs (`engine.hosts.part`).

The agent listens on nothing: it connects to its controller over mutual TLS, and answers that connection alone. It
speaks only once the peer has proved itself with the controller's own certificate, pinned at enrolment (never just
any certificate of the authority: another agent's would pass that), and it does what the controller says only as
typed messages validated on arrival; one that does not validate, or comes out of turn, closes the link, said.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import time
from collections.abc import Callable
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from engine.hosts.checks import shown
from engine.hosts.link import CONNECTION_OPTIONS, OPEN_S, SCHEME, Peer, certified, closed_words, der_of
from engine.hosts.membership import Membership
from engine.hosts.messages import (
    ClockQuestion,
    ClockReading,
    Ended,
    Go,
    Hello,
    Lead,
    MalformedError,
    Prepare,
    Refusal,
    Stop,
    ToAgent,
    Welcome,
    to_agent,
)
from engine.hosts.part import Part, run_part
from engine.hosts.port import address_in_use, controller_endpoint
from engine.hosts.tls import context, refused_by
from engine.hosts.trust import Identity, fingerprint, key_request, same_key
from engine.protocol import PROTOCOL_VERSION
from engine.run.gate import Told

ENDED_BY_CONTROLLER = "the controller closed the test or its connection was lost"


class AgentRefusedError(RuntimeError):
    """The controller refused this agent, or cannot be reached: why, in words."""


class ControllerAbsentError(AgentRefusedError):
    """Nothing answers at the controller's address (yet): the agent waits for it."""


class NotItsControllerError(ControllerAbsentError):
    """Something else answers at the controller's address: a peer whose certificate is not the one pinned at enrolment
    (another agent's, another authority's, a self-signed one). Nothing is said to it, and the agent goes on waiting for
    its own controller: only its own controller's refusal ends it."""


def _refusal_words(controller: str, reason: str) -> str:
    kind = refused_by(reason)
    if kind == "revoked":
        return (f"the controller at {controller} refused this agent: its host was removed from the controller's "
                "servers; enrol it again with a new bundle (jetwise hosts add on the controller)")
    if kind == "other_authority":
        return (f"the controller at {controller} and this agent belong to different tests (another authority, "
                "another Jetwise's): enrol this agent with a bundle from that controller")
    return f"the TLS handshake with the controller at {controller} failed: {reason}"


def _tls_error(exc: BaseException) -> ssl.SSLError | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


async def _connected(membership: Membership, identity: Identity, listen: str | None, port: int) -> ClientConnection:
    """The link to the controller, its certificate checked against the one pinned at enrolment."""
    controller = membership.controller
    try:
        host, controller_port = controller_endpoint(controller)
    except ValueError as exc:
        raise AgentRefusedError(str(exc)) from None
    if membership.controller_pem is None:
        raise AgentRefusedError("this agent was enrolled by an earlier Jetwise that did not keep its controller's "
                                "certificate: enrol it again with a new bundle (jetwise hosts add on the controller)")
    where = f"[{host}]" if ":" in host else host
    try:
        ws = await connect(f"{SCHEME}://{where}:{controller_port}/", ssl=context(
            ssl.Purpose.SERVER_AUTH, membership.authority_pem, identity), open_timeout=OPEN_S, compression=None,
            user_agent_header=None, local_addr=(listen or "", port) if listen or port else None, **CONNECTION_OPTIONS)
    except Exception as exc:  # each said in words, below
        if address_in_use(exc):
            raise
        tls = _tls_error(exc)
        if isinstance(tls, ssl.SSLCertVerificationError):  # this agent refused the peer's certificate, not it ours
            raise NotItsControllerError(
                f"the peer at {controller} is not this agent's controller: its certificate is not of this agent's "
                f"authority ({shown(getattr(tls, 'verify_message', None) or tls.reason or tls)}); nothing was sent to it") from exc
        if tls is not None:
            raise AgentRefusedError(_refusal_words(controller, str(tls.reason or tls))) from exc
        if isinstance(exc, (TimeoutError, ConnectionRefusedError)):
            raise ControllerAbsentError(f"nothing answers at {controller}: start the test on the controller, or check "
                                        "the address and that its port is open in the firewall") from exc
        if isinstance(exc, (ConnectionError, InvalidHandshake, EOFError)):  # a test ending or beginning there
            raise ControllerAbsentError(f"the controller at {controller} closed the connection as it was made (a test "
                                        "ending or beginning there); trying again") from exc
        if isinstance(exc, OSError):
            raise AgentRefusedError(f"cannot reach the controller at {controller}: {exc.strerror or exc}") from exc
        raise
    cert = certified(ws.transport.get_extra_info("ssl_object"))
    if cert is None or cert.der != der_of(membership.controller_pem):
        await ws.close(1008, "not this agent's controller")
        held = f"{cert.role or 'no role'} certificate of {shown(cert.host)}" if cert is not None else "no certificate"
        raise NotItsControllerError(
            f"the peer at {controller} is not this agent's controller: it holds the {held}, not the controller's "
            f"certificate pinned at enrolment ({fingerprint(membership.controller_pem)}); nothing was sent to it")
    return ws


class _Agent:
    """The agent's end of one link: what the controller says, each test's part, and why the link ended."""

    def __init__(self, ws: ClientConnection, runs: Path, said: Callable[[str], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.runs, self.said = runs, said
        self.ended = ENDED_BY_CONTROLLER
        self.peer = Peer(ws, self.loop)
        self.part: Part | None = None
        self.running: asyncio.Future[None] | None = None
        self.last_test: str | None = None
        self.refused = False  # the controller refused this agent

    def take(self, message: ToAgent) -> None:
        """The controller's word, or `MalformedError` when it comes out of turn."""
        if isinstance(message, ClockQuestion):
            self.peer.send(ClockReading(number=message.number, time_s=time.time()))
        elif isinstance(message, Prepare):
            if self.part is not None:
                raise MalformedError(f"a test {message.test_id} while test {self.part.test_id} runs here")
            self.part = Part(message.test_id, self.peer.send)
            self.last_test = message.test_id
            self.said(f"Test {message.test_id}: running this server's part")
            self.running = self.loop.run_in_executor(None, self._run, message, self.part)
        elif isinstance(message, (Go, Stop, Lead)):
            part = self.part
            if part is None or part.test_id != message.test_id:
                if message.test_id == self.last_test:  # a word that crossed its part's end: nothing to do
                    return
                raise MalformedError(f"a '{message.kind}' for test {message.test_id}, which this agent is not running")
            if isinstance(message, Go):
                part.go(message.at_s)
            elif isinstance(message, Stop):
                part.stop(message.reason)
            else:
                part.tell(message.step, Told(message.at, message.load, message.end))
        elif isinstance(message, Refusal):
            self.ended = f"the controller refused this agent: {shown(message.reason)}"
            self.refused = True
        else:
            raise MalformedError(f"a '{message.kind}' once the link was open")

    def _run(self, prepare: Prepare, part: Part) -> None:
        ended: Ended = run_part(prepare, self.runs, part)
        self.peer.send(ended)
        self.loop.call_soon_threadsafe(self._part_ended, part)

    def _part_ended(self, part: Part) -> None:
        if self.part is part:
            self.part = None


async def serve(membership: Membership, identity: Identity, runs: Path, *,
                on_redeemed: Callable[[str, str], None], listen: str | None = None, port: int = 0,
                on_connected: Callable[[str], None] = lambda _address: None,
                said: Callable[[str], None] = lambda _words: None) -> str:
    """Connect to the controller and run each test's part it asks for, in `runs`, until the link ends (the controller
    closed it or was lost, which stops a part running): why it ended. At the first contact the bundle is redeemed: a
    key made here, and `on_redeemed` given its certificate and the key (PEM) to keep in place of the bundle's.
    `AgentRefusedError` saying why the controller refused this agent (`ControllerAbsentError`: nothing answers there
    yet)."""
    ws = await _connected(membership, identity, listen, port)
    agent = _Agent(ws, runs, said)
    request_pem, key_pem = key_request(membership.host) if not membership.redeemed else (None, None)
    try:
        agent.peer.send(Hello(host=membership.host, protocol=PROTOCOL_VERSION, request_pem=request_pem))
        try:
            first = to_agent(await asyncio.wait_for(ws.recv(), OPEN_S))
        except (TimeoutError, ConnectionClosed, MalformedError) as exc:
            raise AgentRefusedError(f"the controller at {membership.controller} did not welcome this agent: "
                                    f"{exc if isinstance(exc, MalformedError) else 'no answer'}") from exc
        if isinstance(first, Refusal):
            raise AgentRefusedError(f"the controller at {membership.controller} refused this agent: {shown(first.reason)}")
        if not isinstance(first, Welcome):
            raise AgentRefusedError(f"the controller at {membership.controller} answered '{first.kind}', not welcome")
        if key_pem is not None:
            if first.cert_pem is None or not same_key(first.cert_pem, key_pem):
                raise AgentRefusedError(f"the controller at {membership.controller} did not certify the key this agent "
                                        "made to redeem its bundle")
            on_redeemed(first.cert_pem, key_pem)
        local = ws.local_address
        on_connected(f"tls://{local[0]}:{local[1]}")
        if first.note:
            said(f"The controller says: {shown(first.note)}")
        try:
            async for text in ws:
                agent.take(to_agent(text))
        except ConnectionClosed as exc:
            if agent.ended == ENDED_BY_CONTROLLER and (exc.rcvd is None or exc.rcvd.code != 1000):
                agent.ended = f"the controller was lost ({closed_words(exc, 'the controller')})"
        except MalformedError as exc:
            agent.ended = f"the controller's message was refused: {exc}"
            said(f"Refused: {agent.ended}")
            agent.peer.refuse(str(exc))
        if agent.part is not None:
            agent.part.stop(agent.ended)
        if agent.running is not None:
            await asyncio.wait([agent.running], timeout=120)  # the part ends, its results written
        if agent.refused:  # its own controller refused it (removed, replaced): it waits for no next test
            raise AgentRefusedError(agent.ended)
        return agent.ended
    finally:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), OPEN_S)
        agent.peer.stop()
