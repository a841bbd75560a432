"""Whom the controller answers, and every refusal said: a TLS handshake's failure in words, an agent's certificate
judged against the roster (as it connects, as it says hello, and whenever the roster changes), its hello against its
certificate, and the refusals kept, each peer's reason once and a bounded number of them."""

from __future__ import annotations

import ssl
import threading
from dataclasses import dataclass

from engine.hosts.checks import shown
from engine.hosts.link import OPEN_S, Certified, der_of
from engine.hosts.messages import Hello
from engine.hosts.roster import Roster
from engine.hosts.tls import refused_by
from engine.hosts.trust import RequestError
from engine.model.host_names import LONGEST_NAME
from engine.protocol import PROTOCOL_VERSION

KEPT_REFUSALS = 100  # refusals the controller keeps to say again; more are counted (`Refusals.more`)


@dataclass(frozen=True)
class Refusal:
    """A connection or a message the controller refused: from where, who, and why in words."""

    peer: str
    why: str
    who: str = ""

    @property
    def words(self) -> str:
        return f"refused {self.who + ' from ' if self.who else ''}{self.peer}: {self.why}"


class Refusals:
    """The refusals said: each peer's reason once (a peer that tries again and again is said once), at most
    `KEPT_REFUSALS` kept, further ones counted (`more`), so no peer grows the controller."""

    def __init__(self) -> None:
        self.kept: list[Refusal] = []
        self.more = 0
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def to_say(self, refusal: Refusal) -> Refusal | None:
        """`refusal` as it is said, a peer's words in it escaped and bounded; None when it is not said again."""
        refusal = Refusal(refusal.peer, shown(refusal.why), refusal.who)
        key = (refusal.peer.rsplit(":", 1)[0], refusal.why)
        with self._lock:
            if key in self._seen:
                return None
            if len(self.kept) >= KEPT_REFUSALS:
                self.more += 1
                return None if self.more > 1 else Refusal(
                    refusal.peer, f"{KEPT_REFUSALS} refusals are said already: further ones are counted, not said",
                    refusal.who)
            self._seen.add(key)
            self.kept.append(refusal)
        return refusal


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


def admitted(roster: Roster, cert: Certified, first: object, address: str) -> tuple[Certified, str | None, str | None]:
    """An agent's first message `first` judged against its certificate `cert` (of an enrolled host's, as it
    connected) and the roster as it is now: the certificate it is known by from now on, the certificate of the key it
    made when this hello redeems its bundle, and why it is refused (None: admitted)."""
    assert cert.host is not None
    if not isinstance(first, Hello):
        return cert, None, f"its first message was '{getattr(first, 'kind', '?')}', not hello"
    if first.host != cert.host:
        return cert, None, f"it names {shown(first.host, LONGEST_NAME)}, and its certificate is {cert.host}'s"
    if first.protocol != PROTOCOL_VERSION:
        return cert, None, (f"it speaks event protocol {first.protocol}, the controller {PROTOCOL_VERSION}: run the "
                            "same Jetwise version on both")
    roster.refresh()  # judged again as it is admitted: the roster may have changed since it connected
    why = not_answered(roster, cert)
    if why is not None:
        return cert, None, why
    entry = next(e for e in reversed(roster.hosts()) if e.name == cert.host)
    if entry.redeemed_utc is None and first.request_pem is None:
        return cert, None, "its bundle is not redeemed, and it asks for no certificate of its own key"
    if entry.redeemed_utc is not None and first.request_pem is not None:
        return cert, None, "it asks to redeem a bundle redeemed already"
    if first.request_pem is None:
        return cert, None, None
    try:
        cert_pem = roster.redeem(cert.host, first.request_pem, address)
    except RequestError as exc:
        return cert, None, str(exc)
    # known from now on by the certificate of the key it made
    return Certified(cert.role, cert.host, der_of(cert_pem)), cert_pem, None
