"""The controller's servers: its authority, its own certificate, and each agent enrolled or removed.

Kept in `hosts/roster.json` in the data folder, with the certificates only; the authority's and
the controller's private keys are in the credential store (`engine.hosts.keys`). Enrolling a host
issues it a one-time certificate and writes its bundle (`engine.hosts.enrolment`), which the agent
redeems at its first contact for a certificate of a key it made itself (`redeem`); enrolling it
again replaces the certificate it had; removing it ends its certificate: the controller answers
only the certificate of each host enrolled now, and refuses every other, saying why. Resetting
starts the authority anew (`reset`): for a controller whose keys the credential store lost, as
the Linux kernel's key store loses them when the machine restarts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from engine.hosts.enrolment import Enrolment, bundle_bytes, bundle_name, is_bundle, one_time_code
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.trust import Identity, certify, fingerprint, issue, key_id, new_authority, requested_key
from engine.io.safety import PRIVATE_FILE_MODE, make_folders, write_text
from engine.model.host_names import host_problem
from engine.results.base import Schema, UtcTime

ROSTER_FILE = "roster.json"
ROSTER_VERSION = 1
CONTROLLER_PORT = 8786  # where the controller listens for its agents
KEYS = ("authority", "controller")  # the private keys the controller keeps in the credential store


def key_name(what: str, authority_pem: str) -> str:
    """The credential store's name of the key of the authority's `what` ("authority" or "controller")."""
    return f"{what}:{key_id(authority_pem)}"


class HostEntry(Schema):
    name: str = Field(description="The host name (or address) the agent was enrolled as.")
    cert_pem: str = Field(description="The certificate the agent proves itself with: its bundle's until redeemed.")
    enrolled_utc: UtcTime
    removed_utc: UtcTime | None = None
    bundle_pem: str | None = Field(None, description="The bundle's one-time certificate, once redeemed: refused.")
    redeemed_utc: UtcTime | None = None
    redeemed_from: str | None = Field(None, description="The address the bundle was redeemed from.")
    controller: str | None = Field(None, description=(
        "The controller's address its bundle names (tls://HOST:PORT), where its agent connects; None when enrolled by "
        "a Jetwise that did not keep it."))


class RosterFile(Schema):
    version: int = ROSTER_VERSION
    authority_pem: str
    controller_pem: str
    hosts: list[HostEntry] = Field(default_factory=list)


@dataclass(frozen=True)
class Enrolled:
    """A host's enrolment as the controller shows it: the bundle written, the code to type, the fingerprint."""

    host: str
    bundle: Path
    code: str
    fingerprint: str


class RosterError(RuntimeError):
    """The roster cannot be used as asked: why, in words."""


class Roster:
    """The controller's authority and its agents, in `folder` with the keys in `keys`."""

    def __init__(self, folder: Path, keys: KeyStore) -> None:
        self.folder, self.keys = folder, keys
        found = self.file_in(folder)
        self.file = found if found is not None else self._created()
        self._stamp = self._stamped()

    @staticmethod
    def file_in(folder: Path) -> RosterFile | None:
        """The roster kept in `folder`, or None before the first host was enrolled."""
        path = folder / ROSTER_FILE
        if not path.exists():
            return None
        try:
            found = RosterFile.model_validate_json(path.read_bytes())
        except ValueError as exc:  # not a roster Jetwise wrote, or one damaged: neither read nor replaced
            raise RosterError(f"{path} cannot be read as this controller's roster (it is damaged, or not Jetwise's); "
                              "move it away to start the controller's authority anew") from exc
        if found.version != ROSTER_VERSION:
            raise RosterError(f"{path} is of version {found.version}; this Jetwise reads {ROSTER_VERSION}")
        return found

    def _stamped(self) -> tuple[int, int] | None:
        try:
            stat = (self.folder / ROSTER_FILE).stat()
        except OSError:
            return None
        return stat.st_mtime_ns, stat.st_size

    def refresh(self) -> bool:
        """Read the roster again when another process changed it (`jetwise hosts add` or `remove` while a controller
        runs): whether it changed. A roster of another authority (`jetwise hosts reset`) is not taken: the running
        controller answers its own authority's agents until it ends."""
        stamp = self._stamped()
        if stamp is None or stamp == self._stamp:
            return False
        self._stamp = stamp
        try:
            found = self.file_in(self.folder)
        except RosterError:  # half written, or damaged: the roster as it was read last stands
            return False
        if found is None or found.authority_pem != self.file.authority_pem or found == self.file:
            return False
        self.file = found
        return True

    def key_name(self, what: str) -> str:
        """The credential store's name of the authority's or the controller's key."""
        return key_name(what, self.file.authority_pem)

    def _created(self) -> RosterFile:
        authority = new_authority(datetime.now(UTC).strftime("%Y%m%d"))
        controller = issue(authority, "controller", "controller")
        self.file = RosterFile(authority_pem=authority.cert_pem, controller_pem=controller.cert_pem)
        self.keys.put(self.key_name("authority"), authority.key_pem)
        self.keys.put(self.key_name("controller"), controller.key_pem)
        self._save()
        return self.file

    def _save(self) -> None:
        make_folders(self.folder)
        write_text(self.folder / ROSTER_FILE, self.file.model_dump_json(indent=1))
        self._stamp = self._stamped()

    def _identity(self, what: str, cert_pem: str) -> Identity:
        key = self.keys.get(self.key_name(what))
        if key is None:
            raise KeyStoreError(f"the {what}'s private key is not in {self.keys.where}: start this controller's "
                                "authority anew with jetwise hosts reset, then enrol each server again (jetwise hosts add "
                                "HOST)")
        return Identity(cert_pem, key)

    @property
    def authority(self) -> Identity:
        return self._identity("authority", self.file.authority_pem)

    @property
    def controller(self) -> Identity:
        return self._identity("controller", self.file.controller_pem)

    @property
    def authority_fingerprint(self) -> str:
        return fingerprint(self.file.authority_pem)

    def hosts(self) -> list[HostEntry]:
        """The hosts enrolled and not removed, in the order they were enrolled."""
        return [entry for entry in self.file.hosts if entry.removed_utc is None]

    def add(self, host: str, controller_address: str, folder: Path) -> Enrolled:
        """Enrol `host`: its one-time certificate, and its bundle written to `folder` (a host enrolled before has its
        old certificate refused from now on)."""
        if (problem := host_problem(host)) is not None:  # a name is never a path: ../x would be written elsewhere
            raise RosterError(problem)
        bundle = folder / bundle_name(host)
        if bundle.exists() and not is_bundle(bundle):  # never written over: not a file Jetwise made
            raise RosterError(f"{bundle} exists and is not a Jetwise enrolment bundle; move it, or write the bundle "
                              "elsewhere (--folder)")
        now = datetime.now(UTC)
        for entry in self.hosts():
            if entry.name == host:
                entry.removed_utc = now
        identity = issue(self.authority, host, "agent")
        code = one_time_code()
        write_text(bundle, bundle_bytes(Enrolment(host, controller_address, identity, self.file.authority_pem,
                                                  self.file.controller_pem), code).decode(),
                   file_mode=PRIVATE_FILE_MODE)  # its owner's alone
        self.file.hosts.append(HostEntry(name=host, cert_pem=identity.cert_pem, enrolled_utc=now,
                                         controller=controller_address))
        self._save()
        return Enrolled(host, bundle, code, identity.fingerprint)

    def remove(self, host: str) -> HostEntry:
        """Remove `host`: its certificate is refused from now on."""
        found = [entry for entry in self.hosts() if entry.name == host]
        if not found:
            raise RosterError(f"{host} is not enrolled; enrolled: {', '.join(e.name for e in self.hosts()) or 'none'}")
        for entry in found:
            entry.removed_utc = datetime.now(UTC)
        self._save()
        return found[-1]

    def redeem(self, host: str, request_pem: str, address: str) -> str:
        """Redeem `host`'s bundle at its agent's first contact from `address`: the key its agent made, certified (the
        certificate, PEM), in place of the bundle's, which is refused from now on. RequestError when the request is
        not one the controller signs."""
        entry = next(e for e in reversed(self.hosts()) if e.name == host)
        cert_pem = certify(self.authority, host, "agent", requested_key(request_pem))
        entry.bundle_pem, entry.cert_pem = entry.cert_pem, cert_pem
        entry.redeemed_utc, entry.redeemed_from = datetime.now(UTC), address
        self._save()
        return cert_pem

    def reset(self) -> list[HostEntry]:
        """Start the authority anew: the authority's and the controller's keys removed from the credential store (those
        still in it) and the roster with every host enrolled deleted, so the next enrolment makes a new authority. The
        hosts that were enrolled, each to be enrolled again."""
        enrolled = self.hosts()
        for what in KEYS:
            self.keys.remove(self.key_name(what))
        (self.folder / ROSTER_FILE).unlink()
        return enrolled
