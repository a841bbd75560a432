"""The certificates of a test across servers: its own certificate authority, one certificate per server, and the
list of servers removed.

Each test across servers has an authority of its own, made on the controller (the window, or
`jetwise run --hosts`): nothing signed by another authority, another Jetwise's included, is
accepted. Every agent gets a certificate for its host name and the controller one of its own;
both prove themselves to each other on every connection (mutual TLS). Keys are ECDSA P-256:
small enough for Windows Credential Manager, where they are kept (`engine.hosts.keys`). An agent's
first certificate is the bundle's, for one contact: then it makes a key of its own and the
controller certifies it from its request (`key_request`, `certify`).
"""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_DAYS = 400  # a storage design's test campaign, with room; a new authority is one step
Role = Literal["agent", "controller"]


@dataclass(frozen=True)
class Identity:
    """A certificate and its private key, in PEM."""

    cert_pem: str
    key_pem: str

    @property
    def certificate(self) -> x509.Certificate:
        return x509.load_pem_x509_certificate(self.cert_pem.encode())

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.cert_pem)


def fingerprint(cert_pem: str) -> str:
    """A certificate's SHA-256 fingerprint as an engineer compares it: "3F:A2:…", 32 pairs."""
    digest = x509.load_pem_x509_certificate(cert_pem.encode()).fingerprint(hashes.SHA256())
    return ":".join(f"{byte:02X}" for byte in digest)


def key_id(authority_pem: str) -> str:
    """The short form of an authority's fingerprint that names its parties' keys in the credential store."""
    return fingerprint(authority_pem).replace(":", "")[:16]


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _cert_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def new_authority(test: str, now: datetime | None = None) -> Identity:
    """A certificate authority for one test across servers, named after it."""
    now = now or datetime.now(UTC)
    key = _key()
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Jetwise"),
                      x509.NameAttribute(NameOID.COMMON_NAME, f"Jetwise test CA {test} {secrets.token_hex(4)}")])
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=VALID_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return Identity(_cert_pem(cert), _pem(key))


def issue(authority: Identity, host: str, role: Role, now: datetime | None = None) -> Identity:
    """A certificate for `host` in `role` and its new key, signed by the test's authority: it proves itself as a server
    and as a client."""
    key = _key()
    return Identity(certify(authority, host, role, key.public_key(), now), _pem(key))


def certify(authority: Identity, host: str, role: Role, public_key: ec.EllipticCurvePublicKey,
            now: datetime | None = None) -> str:
    """The certificate (PEM) of `public_key` for `host` in `role`, signed by the test's authority."""
    now = now or datetime.now(UTC)
    ca_cert = authority.certificate
    ca_key = serialization.load_pem_private_key(authority.key_pem.encode(), password=None)
    assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
    names: list[x509.GeneralName] = [x509.DNSName(host)]
    try:
        names.append(x509.IPAddress(ipaddress.ip_address(host)))
    except ValueError:
        pass
    subject = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Jetwise"),
                         x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, role),
                         x509.NameAttribute(NameOID.COMMON_NAME, host)])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_cert.subject).public_key(public_key)
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(min(now + timedelta(days=VALID_DAYS), ca_cert.not_valid_after_utc))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return _cert_pem(cert)


def key_request(host: str) -> tuple[str, str]:
    """A new key made here and its certificate request for `host` (both PEM): the key never leaves this machine."""
    key = _key()
    request = (x509.CertificateSigningRequestBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])).sign(key, hashes.SHA256()))
    return request.public_bytes(serialization.Encoding.PEM).decode(), _pem(key)


class RequestError(ValueError):
    """A certificate request that cannot be signed: why, in words."""


def requested_key(request_pem: str) -> ec.EllipticCurvePublicKey:
    """The public key of a certificate request, once its signature proves its sender holds the private key."""
    try:
        request = x509.load_pem_x509_csr(request_pem.encode())
    except ValueError as exc:
        raise RequestError("its certificate request is not one (PEM)") from exc
    key = request.public_key()
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        raise RequestError("its certificate request is not for an ECDSA P-256 key")
    if not request.is_signature_valid:
        raise RequestError("its certificate request's signature does not verify")
    return key


def same_key(cert_pem: str, key_pem: str) -> bool:
    """Whether `cert_pem` certifies the public half of `key_pem`."""
    key = serialization.load_pem_private_key(key_pem.encode(), password=None)
    public = x509.load_pem_x509_certificate(cert_pem.encode()).public_key()
    form = (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return bool(public.public_bytes(*form) == key.public_key().public_bytes(*form))
