"""An agent: a Dask worker named after its host, connected to its controller over mutual TLS.

The worker carries a resource named after its host (`host_resource`), so work the controller
pins to a host runs there alone. Before the worker starts, one TLS handshake with the
controller says, in words, why the controller would refuse this agent (another authority, a
removed host) or that nothing listens there yet; the worker would only retry in silence.
"""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from distributed import Worker
from distributed.core import rpc

from engine.hosts.admission import ADMIT_OP, only_the_controller, startup_information
from engine.hosts.membership import Membership
from engine.hosts.part import keep_runs_in
from engine.hosts.tls import HostSecurity, context, refused_by
from engine.hosts.trust import Identity
from engine.protocol import PROTOCOL_VERSION

HANDSHAKE_WAIT_S = 2.0  # how long a controller that accepted the handshake may stay silent before it counts as accepted


class AgentRefusedError(RuntimeError):
    """The controller refused this agent, or cannot be reached: why, in words."""


def host_resource(host: str) -> str:
    """The resource only `host`'s agent has: work pinned to it runs there alone."""
    return f"host:{host}"


def _address(controller: str) -> tuple[str, int]:
    parts = urlsplit(controller if "://" in controller else f"tls://{controller}")
    if parts.scheme != "tls" or parts.hostname is None or parts.port is None:
        raise AgentRefusedError(f"the controller's address {controller!r} is not tls://HOST:PORT")
    return parts.hostname, parts.port


def handshake(controller: str, authority_pem: str, identity: Identity, timeout_s: float = 10.0) -> None:
    """Prove this agent to the controller once, as the worker will: raise `AgentRefusedError` saying why it would fail."""
    host, port = _address(controller)
    ctx = context(ssl.Purpose.SERVER_AUTH, authority_pem, identity, None)
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as raw, ctx.wrap_socket(raw) as tls:
            tls.settimeout(HANDSHAKE_WAIT_S)  # TLS 1.3 says a refused client certificate on the first read
            try:
                tls.recv(1)
            except TimeoutError:
                return  # the controller accepted this agent and waits for it to speak
    except ssl.SSLError as exc:
        raise AgentRefusedError(_refusal_words(controller, exc)) from exc
    except (TimeoutError, ConnectionRefusedError) as exc:
        raise ControllerAbsentError(f"nothing answers at {controller}: start the test on the controller, or check the address "
                           "and that its port is open in the firewall") from exc
    except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError) as exc:  # a test ending or beginning there
        raise ControllerAbsentError(f"the controller at {controller} closed the connection as it was made (a test "
                                    "ending or beginning there); trying again") from exc
    except OSError as exc:
        raise AgentRefusedError(f"cannot reach the controller at {controller}: {exc.strerror or exc}") from exc


def _refusal_words(controller: str, exc: ssl.SSLError) -> str:
    kind = refused_by(str(exc.reason or exc))
    if kind == "revoked":
        return (f"the controller at {controller} refused this agent: its host was removed from the controller's "
                "servers; enrol it again with a new bundle (jetwise hosts add on the controller)")
    if kind == "other_authority":
        return (f"the controller at {controller} and this agent belong to different tests (another authority, "
                "another Jetwise's): enrol this agent with a bundle from that controller")
    return f"the TLS handshake with the controller at {controller} failed: {exc.reason or exc}"


async def serve(membership: Membership, identity: Identity, runs: Path, *, listen: str | None = None, port: int = 0,
                on_connected: Callable[[str], None] = lambda _address: None,
                on_refused: Callable[[str], None] = lambda _words: None) -> None:
    """Run the agent's worker until its controller closes it or is lost (a lost controller ends the test); each test's
    run folder in `runs`. Only the controller's certificate is answered (`on_refused` says each other)."""
    keep_runs_in(runs)
    security = HostSecurity(membership.authority_pem, identity)
    await admitted(membership, security)
    worker = Worker(membership.controller, security=security, name=membership.host, nthreads=1,
                    resources={host_resource(membership.host): 1}, host=listen, port=port, dashboard=False,
                    death_timeout=30, startup_information=startup_information())
    only_the_controller(worker.handlers, on_refused, server=f"the agent {membership.host}")  # before it listens
    async with worker:
        worker.http_server.stop()  # Dask's HTTP server speaks plaintext: no listener but the TLS one
        on_connected(worker.address)
        await worker.finished()  # type: ignore[no-untyped-call]


async def admitted(membership: Membership, security: HostSecurity) -> None:
    """Ask the controller whether it admits this agent (its certificate's host, its protocol, no test running): raise
    `AgentRefusedError` with the controller's reason."""
    arguments = security.get_connection_args("worker")  # type: ignore[no-untyped-call]
    async with rpc(membership.controller, connection_args=arguments) as controller:  # type: ignore[no-untyped-call]
        answer = await getattr(controller, ADMIT_OP)(name=membership.host, protocol=PROTOCOL_VERSION)
    if not answer.get("admitted"):
        raise AgentRefusedError(f"the controller at {membership.controller} refused this agent: {answer.get('reason')}")


class ControllerAbsentError(AgentRefusedError):
    """Nothing answers at the controller's address (yet): the agent waits for it."""


def wait_for_controller(membership: Membership, identity: Identity, *, on_waiting: Callable[[str], None],
                        retry_s: float = 1.0) -> None:
    """Until the controller answers and accepts this agent: `on_waiting` once while nothing answers; a refusal
    raises `AgentRefusedError` at once."""
    said = False
    while True:
        try:
            handshake(membership.controller, membership.authority_pem, identity)
            return
        except ControllerAbsentError as exc:
            if not said:
                on_waiting(str(exc))
                said = True
            time.sleep(retry_s)
