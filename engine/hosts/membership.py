"""What an agent keeps of its enrolment: its host name, the controller's address, its certificate, the authority.

Kept in `agent/agent.json` in the data folder, certificates only; the agent's private key is in
the credential store (`engine.hosts.keys`). Enrolling imports a bundle (`engine.hosts.enrolment`),
keeps the key and deletes the bundle, so the key is in no file afterwards. At its first contact the
agent redeems the bundle: it makes a key of its own, the controller certifies it, and both replace
the bundle's (`redeemed`).
"""

from __future__ import annotations

from pathlib import Path

from engine.hosts.enrolment import BUNDLE_SUFFIX, EnrolmentError, open_bundle
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.trust import Identity, key_id
from engine.io.safety import make_folders, write_text
from engine.results.base import Schema

AGENT_FILE = "agent.json"


class Membership(Schema):
    """The agent's side of its enrolment."""

    host: str
    controller: str
    authority_pem: str
    cert_pem: str
    controller_pem: str | None = None  # the controller's certificate, pinned: the agent answers no other
    redeemed: bool = False  # the bundle's one-time key replaced by one made here and certified at first contact

    @property
    def key_name(self) -> str:
        return f"agent:{self.host}:{key_id(self.authority_pem)}"

    def identity(self, keys: KeyStore) -> Identity:
        key = keys.get(self.key_name)
        if key is None:
            raise KeyStoreError(f"this agent's private key is not in {keys.where}: enrol it again with a new bundle "
                                "from the controller (jetwise hosts add)")
        return Identity(self.cert_pem, key)

    def redeem(self, cert_pem: str, key_pem: str, folder: Path, keys: KeyStore) -> Membership:
        """Keep the key made here and its certificate from the controller in place of the bundle's."""
        keys.put(self.key_name, key_pem)
        redeemed = self.model_copy(update={"cert_pem": cert_pem, "redeemed": True})
        write_text(folder / AGENT_FILE, redeemed.model_dump_json(indent=1))
        return redeemed


def enrol(bundle: Path, code: str, folder: Path, keys: KeyStore) -> Membership:
    """Import `bundle` with its code: the key into the credential store, the rest into `folder`; the bundle deleted."""
    if bundle.suffix != BUNDLE_SUFFIX:
        raise EnrolmentError(f"{bundle} is not an enrolment bundle (a {BUNDLE_SUFFIX} file the controller wrote)")
    opened = open_bundle(bundle, code)
    membership = Membership(host=opened.host, controller=opened.controller, authority_pem=opened.authority_pem,
                            cert_pem=opened.identity.cert_pem, controller_pem=opened.controller_pem)
    keys.put(membership.key_name, opened.identity.key_pem)
    make_folders(folder)
    write_text(folder / AGENT_FILE, membership.model_dump_json(indent=1))
    bundle.unlink()  # the key is in the credential store now, and in no file
    return membership


def membership_in(folder: Path) -> Membership | None:
    """The agent's enrolment kept in `folder`, or None before it enrolled."""
    path = folder / AGENT_FILE
    return Membership.model_validate_json(path.read_bytes()) if path.exists() else None
