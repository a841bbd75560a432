"""The port the controller listens on for its agents (or an agent for its controller): a TCP port, 1 to 65535, that no
other program on this server holds.

A port another program holds is found as the controller (or the agent) starts listening, before any test begins, and
said as such (`PortInUseError`), not as the listener's own failure. Where an agent finds its controller is
tls://HOST:PORT (`controller_endpoint`), read alike where it is typed and where the agent connects.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from engine.hosts.controller import Controller
from engine.hosts.roster import CONTROLLER_PORT, Roster
from engine.model.host_names import host_flaw
from engine.model.units import as_typed

LOWEST_PORT, HIGHEST_PORT = 1, 65535
_IN_USE = {errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", errno.EADDRINUSE)}  # Windows's own number for it


def port_problem(port: int) -> str | None:
    """Why `port` is no TCP port to listen on, if it is none."""
    if LOWEST_PORT <= port <= HIGHEST_PORT:
        return None
    return f"give a port from {LOWEST_PORT} to {HIGHEST_PORT} (got {port})"


def bundle_port(address: str | None) -> int | None:
    """The port an enrolment bundle's controller address names (where its agent connects); None without one."""
    try:
        return controller_endpoint(address)[1] if address else None
    except ValueError:
        return None


def controller_endpoint(address: str) -> tuple[str, int]:
    """The host and port of `address`, where an agent finds its controller: tls://HOST:PORT, or HOST:PORT; a
    ValueError says why `address` is none, as `jetwise hosts add --controller` and the agent both read it."""
    try:
        parts = urlsplit(address if "://" in address else f"tls://{address}")
        host, port = parts.hostname or "", parts.port
    except ValueError:  # a bracket left open, or a port that is no number up to 65535
        parts, host, port = None, "", 0
    if parts is None or (port is not None and port_problem(port) is not None):
        bare = address.count(":") > 2 and "[" not in address  # an IPv6 address's colons read as the port's
        why = "it is not HOST:PORT with a port from 1 to 65535" + ("; an IPv6 address goes in brackets, [fd00::21]"
                                                                   if bare else "")
    elif parts.scheme != "tls":
        why = f"it begins {parts.scheme}://, not tls://"
    elif parts.path or parts.query or parts.fragment or parts.username is not None:
        why = "it holds more than HOST:PORT"
    elif (flaw := host_flaw(host)) is not None:
        why = f"its host {as_typed(host)} is no host name or address: {flaw}"
    elif port is None:
        why = "it names no port"
    else:
        return host, port
    raise ValueError(f"{as_typed(address)} is not a controller's address ({why}): give tls://HOST:PORT, such as "
                     f"tls://ctl.contoso.com:{CONTROLLER_PORT}")


class PortInUseError(RuntimeError):
    """The port the controller was to listen on is held by another program on this server."""

    def __init__(self, port: int, choose: str = "with --port") -> None:
        super().__init__(f"port {port} on this server is in use by another program: choose another {choose}")


def address_in_use(error: BaseException) -> bool:
    """Whether `error`, or an error it was raised from, is the system's "address already in use"."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in _IN_USE:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextmanager
def controller_on(roster: Roster, port: int, *, choose: str = "with --port",
                  said: Callable[[str], None] | None = None) -> Iterator[Controller]:
    """The controller of `roster` listening on `port`, closed on leaving, `said` told each refusal as it happens;
    `PortInUseError` (saying how to `choose` another) when another program holds the port, with nothing of the
    controller left running."""
    controller = Controller(roster, port=port, said=said)
    try:
        controller.__enter__()
    except BaseException as exc:
        controller.__exit__(None, None, None)  # its thread, started before the listener failed
        if address_in_use(exc):
            raise PortInUseError(port, choose) from exc
        raise
    try:
        yield controller
    finally:
        controller.__exit__(None, None, None)
