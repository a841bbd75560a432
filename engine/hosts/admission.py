"""Who the controller admits as an agent, beyond the TLS handshake: a certificate issued to an agent for the host
name it registers under, the same event protocol, and no joining a test that is running.

The controller's scheduler answers `jetwise-admit` (an agent asks before its worker registers, and gets the reason in
words) and checks the same rule when a worker registers, so a worker that did not ask is refused too.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from time import time
from typing import Any

from engine.protocol import PROTOCOL_VERSION

ADMIT_OP = "jetwise-admit"
STARTUP_KEY = "jetwise"  # the worker's startup information under this key: {"protocol": N}


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


@dataclass
class Admission:
    """The controller's rule for agents; `running` while a test runs (no agent joins it then)."""

    running: bool = False
    refused: list[str] = field(default_factory=list)  # each refusal said, for the controller's side

    def reason(self, peercert: dict[str, Any] | None, name: str, protocol: object) -> str | None:
        """Why an agent registering as `name` with `protocol` is refused, or None."""
        subject = _subject(peercert)
        if subject.get("organizationalUnitName") != "agent":
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
        """Answer `jetwise-admit`, and check every worker's registration against the same rule."""
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
