"""Mutual TLS on every link of a test across servers, from a key held in memory.

`context` builds each end's context: the authority's certificate from memory, and the party's key
through a temporary file encrypted with a random password that never leaves the process (Python's
`ssl` loads a key from a file alone). Only certificates of this test's authority pass the
handshake, and both ends prove themselves; which of them each end answers is its link's to say
(`engine.hosts.controller`: an agent's enrolled now; `engine.hosts.agent`: the controller's pinned).
"""

from __future__ import annotations

import secrets
import ssl
import tempfile
from pathlib import Path
from typing import Literal

from cryptography.hazmat.primitives import serialization

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


def context(purpose: ssl.Purpose, authority_pem: str, identity: Identity) -> ssl.SSLContext:
    """A TLS context that proves `identity` and accepts only the authority's certificates."""
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
    ctx.verify_mode = ssl.CERT_REQUIRED  # both sides prove themselves
    ctx.check_hostname = False  # hosts are often reached by address; the authority is this test's alone
    return ctx
