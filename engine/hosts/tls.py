"""Mutual TLS on every connection of a test across servers, from a key held in memory.

Dask's own TLS settings take file paths, or write a key given in memory to a temporary file in
the clear. `HostSecurity` builds each connection's context itself: the authority's certificate
from memory, the party's key through a temporary file encrypted with a random password that
never leaves the process, and, where the controller listens or connects, the authority's list of
revoked certificates, so a removed host is refused. No listener speaks plaintext
(`require_encryption`), and only certificates of this test's authority are accepted.
"""

from __future__ import annotations

import secrets
import ssl
import tempfile
from pathlib import Path
from typing import Any, Literal

from cryptography.hazmat.primitives import serialization
from distributed.security import Security

from engine.hosts.trust import Identity

Refused = Literal["revoked", "other_authority", "plaintext", "handshake"]


def refused_by(reason: str) -> Refused:
    """What OpenSSL's words for a failed handshake mean, on either side ("SSLV3_ALERT_CERTIFICATE_REVOKED",
    "tlsv1 alert unknown ca", …): a revoked certificate, another authority's, no TLS at all, or another failure."""
    why = reason.upper().replace(" ", "_")
    if "REVOKED" in why:
        return "revoked"
    if "UNKNOWN_CA" in why or "CERTIFICATE_VERIFY_FAILED" in why:
        return "other_authority"
    if "WRONG_VERSION" in why or "HTTP" in why:
        return "plaintext"
    return "handshake"


def context(purpose: ssl.Purpose, authority_pem: str, identity: Identity, revoked_pem: str | None) -> ssl.SSLContext:
    """A TLS context that proves `identity` and accepts only the authority's certificates not revoked."""
    ctx = ssl.create_default_context(purpose=purpose, cadata=authority_pem)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    password = secrets.token_hex(32).encode()
    key = serialization.load_pem_private_key(identity.key_pem.encode(), password=None)
    sealed = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                               serialization.BestAvailableEncryption(password))
    with tempfile.TemporaryDirectory(prefix="jetwise-tls-") as folder:
        cert_path, key_path = Path(folder) / "cert.pem", Path(folder) / "key.pem"
        cert_path.write_text(identity.cert_pem)
        key_path.write_bytes(sealed)  # encrypted: the password is in this process alone
        ctx.load_cert_chain(cert_path, key_path, password=password)
        if revoked_pem is not None:
            crl_path = Path(folder) / "revoked.pem"
            crl_path.write_text(revoked_pem)
            ctx.load_verify_locations(cafile=crl_path)
            ctx.verify_flags |= ssl.VERIFY_CRL_CHECK_LEAF
    ctx.verify_mode = ssl.CERT_REQUIRED  # both sides prove themselves
    ctx.check_hostname = False  # hosts are often reached by address; the authority is this test's alone
    return ctx


class HostSecurity(Security):
    """Dask's security settings for one party of a test across servers: mutual TLS for every role."""

    def __init__(self, authority_pem: str, identity: Identity, revoked_pem: str | None = None) -> None:
        here = identity.cert_pem  # Dask asks for a certificate per role: the party has one for all
        super().__init__(  # type: ignore[no-untyped-call]
            require_encryption=True, tls_ca_file=authority_pem, tls_client_cert=here,
                         tls_scheduler_cert=here, tls_worker_cert=here)
        self._authority, self._identity, self._revoked = authority_pem, identity, revoked_pem

    def _get_tls_context(self, tls: dict[str, Any], purpose: ssl.Purpose) -> ssl.SSLContext | None:
        return context(purpose, self._authority, self._identity, self._revoked)
