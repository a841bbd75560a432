"""The controller: the Dask scheduler and client in the controller's own process, listening for its agents over
mutual TLS.

It accepts only agents of its roster's authority whose certificates are not revoked, and says
who it refused and why (`refusals`): Dask logs a failed handshake and retries; the controller
turns each into a fact the window or the console shows. `wait_for` waits until every enrolled
host's agent has connected, each by its certificate's host name.
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from distributed import Client, Scheduler

from engine.hosts.admission import Admission
from engine.hosts.roster import CONTROLLER_PORT, Roster
from engine.hosts.tls import HostSecurity, refused_by

_HANDSHAKE = re.compile(r"TLS handshake failed with remote '([^']+)': (.*)")


@dataclass(frozen=True)
class Refusal:
    """A connection the controller refused: from where, and why in OpenSSL's words."""

    peer: str
    reason: str

    @property
    def words(self) -> str:
        what = {"revoked": "a removed host's certificate",
                "other_authority": "a certificate of another authority (another test's, or another Jetwise's)",
                "plaintext": "no TLS (plaintext)", "handshake": "a failed TLS handshake"}[refused_by(self.reason)]
        return f"refused {self.peer}: {what} ({self.reason})"


class _Refusals(logging.Handler):
    def __init__(self, found: Callable[[Refusal], None]) -> None:
        super().__init__(logging.WARNING)
        self.found = found

    def emit(self, record: logging.LogRecord) -> None:
        matched = _HANDSHAKE.search(record.getMessage())
        if matched is not None:
            self.found(Refusal(matched.group(1), matched.group(2)))


class HostsMissingError(RuntimeError):
    """Not every enrolled host's agent connected in time: which, in words."""


class Controller:
    """The scheduler and client of a test across servers, in a thread of this process."""

    def __init__(self, roster: Roster, *, host: str = "0.0.0.0", port: int = CONTROLLER_PORT) -> None:
        self.roster = roster
        self.security = HostSecurity(roster.file.authority_pem, roster.controller, roster.revoked_pem())
        self.refusals: list[Refusal] = []
        self.admission = Admission()  # who registers as an agent, beyond the handshake
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._handler = _Refusals(self._refused)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="jetwise-controller", daemon=True)
        self._host, self._port = host, port
        self.scheduler: Scheduler | None = None
        self.client: Client | None = None

    def _refused(self, refusal: Refusal) -> None:
        with self._lock:
            key = (refusal.peer.rsplit(":", 1)[0], refusal.reason)
            if key not in self._seen:  # a worker retries every few tenths of a second: each refusal said once
                self._seen.add(key)
                self.refusals.append(refusal)

    def __enter__(self) -> Controller:
        logging.getLogger("distributed.comm.tcp").addHandler(self._handler)
        self._thread.start()

        async def start() -> Scheduler:
            scheduler: Scheduler = await Scheduler(security=self.security, host=self._host, port=self._port,
                                                   dashboard=False)
            scheduler.http_server.stop()  # Dask's HTTP server speaks plaintext: no listener but the TLS one
            self.admission.install(scheduler.handlers)
            return scheduler

        self.scheduler = asyncio.run_coroutine_threadsafe(start(), self._loop).result(timeout=60)
        self.client = Client(self.scheduler.address, security=self.security, timeout=30)  # type: ignore[no-untyped-call]
        return self

    @property
    def address(self) -> str:
        assert self.scheduler is not None
        return self.scheduler.address

    def agents(self) -> dict[str, str]:
        """Each connected agent's host name and address."""
        assert self.client is not None
        info: dict[str, Any] = self.client.scheduler_info(n_workers=-1)["workers"]
        return {str(worker.get("name")): address for address, worker in info.items()}

    def connected_within(self, hosts: list[str], timeout_s: float) -> dict[str, str]:
        """The hosts whose agents connected within `timeout_s` (all of them as soon as they have), with their
        addresses."""
        deadline = time.monotonic() + timeout_s
        while True:
            connected = self.agents()
            if all(host in connected for host in hosts) or time.monotonic() >= deadline:
                return {host: connected[host] for host in hosts if host in connected}
            time.sleep(0.2)

    def wait_for(self, hosts: list[str], timeout_s: float) -> dict[str, str]:
        """Every host's agent, once each has connected; `HostsMissingError` naming those that did not."""
        connected = self.connected_within(hosts, timeout_s)
        missing = [host for host in hosts if host not in connected]
        if missing:
            said = "; ".join(r.words for r in self.refusals)
            raise HostsMissingError(f"no agent connected for {', '.join(missing)} within {timeout_s:g} s"
                                    + (f" ({said})" if said else ""))
        return connected

    def __exit__(self, *_exc: object) -> None:
        if self.client is not None:
            self.client.close()  # type: ignore[no-untyped-call]
        if self.scheduler is not None:
            asyncio.run_coroutine_threadsafe(self.scheduler.close(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        logging.getLogger("distributed.comm.tcp").removeHandler(self._handler)
