"""Who the controller admits as an agent, beyond the TLS handshake: a certificate issued to an agent for the host
name it registers under, the same event protocol, and no joining a test that is running.

The controller's scheduler answers `jetwise-admit` (an agent asks before its worker registers, and gets the reason in
words) and checks the same rule when a worker registers, so a worker that did not ask is refused too.

Every certificate of the authority passes the TLS handshake, an agent's as well as the controller's, and Dask does not
tell roles apart: a Dask client may ask the scheduler to run code on every worker, and anyone may ask a worker to run
code. So the roles are told apart here (`only_the_controller`): the scheduler answers an agent's certificate only the
few questions an agent's worker asks of it (`AGENT_ASKS`), and an agent's worker answers the controller's certificate
alone. Whoever holds one server's agent key cannot make the controller, or another server, run anything.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from time import time
from typing import Any

from distributed.core import Status, error_message

from engine.protocol import PROTOCOL_VERSION

ADMIT_OP = "jetwise-admit"
STARTUP_KEY = "jetwise"  # the worker's startup information under this key: {"protocol": N}
CONTROLLER_ROLE, AGENT_ROLE = "controller", "agent"  # a certificate's organizational unit (engine.hosts.trust.issue)
# What an agent's worker asks of the controller's scheduler: to be admitted and registered (`Admission`), its
# heartbeat, who the controller is (a part's beat), and to leave. A client's registration, a broadcast, running a
# function or a plugin are not among them.
AGENT_ASKS = frozenset({ADMIT_OP, "register-worker", "heartbeat_worker", "identity", "unregister"})


def startup_information() -> dict[str, Callable[[Any], dict[str, int]]]:
    """What an agent's worker tells the scheduler when it registers (Dask's `startup_information`)."""
    return {STARTUP_KEY: lambda _worker: {"protocol": PROTOCOL_VERSION}}


def _subject(peercert: dict[str, Any] | None) -> dict[str, str]:
    """A peer certificate's subject as names to values (Python's `getpeercert()` form)."""
    found: dict[str, str] = {}
    for part in (peercert or {}).get("subject", ()):
        for key, value in part:
            found[key] = value
    return found


def role_of(peercert: dict[str, Any] | None) -> str | None:
    """The role a peer's certificate was issued for (`controller`, `agent`), None without one."""
    return _subject(peercert).get("organizationalUnitName")


def only_the_controller(handlers: dict[str, Callable[..., Any]], refused: Callable[[str], None], *,
                        agents_may: frozenset[str] = frozenset(), server: str) -> None:
    """Answer every question from the controller's certificate, and an agent's only those in `agents_may`; any other
    is answered with the refusal in words, `refused` is told, and the connection is closed."""
    for op, handler in list(handlers.items()):
        handlers[op] = _guarded(op, handler, refused, agents_may, server)


def _guarded(op: str, handler: Callable[..., Any], refused: Callable[[str], None], agents_may: frozenset[str],
             server: str) -> Callable[..., Awaitable[Any]]:
    takes_comm = _takes_comm(handler)

    async def guarded(comm: Any, **message: Any) -> Any:
        role = role_of(comm.extra_info.get("peercert"))
        if role != CONTROLLER_ROLE and not (role == AGENT_ROLE and op in agents_may):
            holder = f"an {role}'s certificate" if role else "no certificate"
            why = f"{server} answers '{op}' to the controller only; {comm.peer_address} presented {holder}"
            refused(f"refused {comm.peer_address}: {why}")
            await comm.write(error_message(PermissionError(why), status="uncaught-error"))  # raised at the asker
            comm.abort()
            return Status.dont_reply
        answer = handler(comm, **message) if takes_comm else handler(**message)
        return await answer if inspect.isawaitable(answer) else answer

    return guarded


def _takes_comm(handler: Callable[..., Any]) -> bool:
    """Whether a Dask handler takes the connection first, as Dask decides it (its first parameter named `comm`)."""
    parameters = inspect.signature(handler).parameters
    return bool(parameters) and next(iter(parameters)) == "comm"


@dataclass
class Admission:
    """The controller's rule for agents; `running` while a test runs (no agent joins it then)."""

    running: bool = False
    refused: list[str] = field(default_factory=list)  # each refusal said, for the controller's side

    def reason(self, peercert: dict[str, Any] | None, name: str, protocol: object) -> str | None:
        """Why an agent registering as `name` with `protocol` is refused, or None."""
        subject = _subject(peercert)
        if subject.get("organizationalUnitName") != AGENT_ROLE:
            return "only an agent's certificate registers an agent (this one is the controller's or none)"
        if subject.get("commonName") != name:
            return f"the certificate is {subject.get('commonName')}'s, not {name}'s"
        if protocol != PROTOCOL_VERSION:
            return (f"the agent speaks event protocol {protocol}, the controller {PROTOCOL_VERSION}: run the same "
                    "Jetwise version on both")
        if self.running:
            return "a test is running; an agent that connects now joins the next test, not this one"
        return None

    def install(self, handlers: dict[str, Callable[..., Awaitable[Any]]]) -> None:
        """Answer `jetwise-admit`, check every worker's registration against the same rule, and answer an agent's
        certificate nothing else an agent does not ask."""
        register = handlers["register-worker"]

        async def admit(comm: Any, *, name: str, protocol: object) -> dict[str, Any]:
            why = self.reason(comm.extra_info.get("peercert"), name, protocol)
            return {"admitted": why is None, "reason": why or ""}

        async def registered(comm: Any, **message: Any) -> Any:
            name = str(message.get("name"))
            protocol = (message.get("extra") or {}).get(STARTUP_KEY, {}).get("protocol")
            why = self.reason(comm.extra_info.get("peercert"), name, protocol)
            if why is not None:
                self.refused.append(f"refused the agent {name}: {why}")
                await comm.write({"status": "error", "message": why, "time": time()})
                return None
            return await register(comm, **message)

        handlers[ADMIT_OP] = admit
        handlers["register-worker"] = registered
        only_the_controller(handlers, self.refused.append, agents_may=AGENT_ASKS, server="the controller")
