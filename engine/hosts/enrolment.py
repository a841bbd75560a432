"""Enrolling a server as an agent: a one-time bundle the controller writes and the agent imports, opened by a code.

The controller writes `HOST.jwenrol`: a one-time certificate and private key for the agent, the test's
authority certificate and the controller's own (the agent pins it: it answers no other) as PKCS#12,
encrypted with a one-time code the controller shows and never writes, and the controller's address.
The engineer copies the file to the server (over RDP), runs `jetwise agent --enrol FILE` and types
the code: the agent keeps the key in the operating system's credential store (`engine.hosts.keys`)
and deletes the file. A copy of the file without the code opens nothing; the code without the file
is 80 random bits of nothing. The bundle's key serves once: at its first contact the agent makes a
key of its own and the controller certifies it (`engine.hosts.roster.Roster.redeem`), and the
bundle's certificate is refused from then on, so a copy of the bundle is refused, and said.
"""

from __future__ import annotations

import base64
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

from engine.hosts.trust import Identity
from engine.model.host_names import file_name_of

BUNDLE_FORMAT = "jetwise-enrolment"
BUNDLE_VERSION = 2  # 2: with the controller's certificate
BUNDLE_SUFFIX = ".jwenrol"
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O or U to misread


def bundle_name(host: str) -> str:
    """The file name of `host`'s bundle: the host's name as a file name."""
    return file_name_of(host) + BUNDLE_SUFFIX


class EnrolmentError(ValueError):
    """The bundle cannot be opened: why, in words for the engineer at the server."""


@dataclass(frozen=True)
class Enrolment:
    """What an agent keeps from its bundle: its host name, the controller's address, its identity, the authority."""

    host: str
    controller: str
    identity: Identity
    authority_pem: str
    controller_pem: str


def one_time_code() -> str:
    """16 characters of Crockford's base 32 (80 random bits) in four groups, as an engineer types it: "K7QH-3MZP-…"."""
    chars = "".join(secrets.choice(_ALPHABET) for _ in range(16))
    return "-".join(chars[i:i + 4] for i in range(0, 16, 4))


def _normal(code: str) -> bytes:
    """A typed code as it was made: any case, with or without its dashes and spaces; O read as 0, I and L as 1."""
    cleaned = code.strip().upper().replace("-", "").replace(" ", "")
    return cleaned.translate(str.maketrans("OIL", "011")).encode()


def bundle_bytes(enrolment: Enrolment, code: str) -> bytes:
    """The bundle's bytes: the agent's key and certificate, the authority's certificate, encrypted with `code`."""
    key = serialization.load_pem_private_key(enrolment.identity.key_pem.encode(), password=None)
    sealed = pkcs12.serialize_key_and_certificates(
        enrolment.host.encode(), key, enrolment.identity.certificate,  # type: ignore[arg-type]
        [x509.load_pem_x509_certificate(enrolment.authority_pem.encode()),
         x509.load_pem_x509_certificate(enrolment.controller_pem.encode())],
        serialization.BestAvailableEncryption(_normal(code)))
    data = {"format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "host": enrolment.host,
            "controller": enrolment.controller, "pkcs12": base64.b64encode(sealed).decode()}
    return json.dumps(data, indent=1).encode()


def is_bundle(path: Path) -> bool:
    """Whether `path` is an enrolment bundle Jetwise wrote (by its format field), so it may be replaced."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == BUNDLE_FORMAT


def open_bundle(path: Path, code: str) -> Enrolment:
    """The enrolment in a bundle file, opened with the code the controller showed."""
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise EnrolmentError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise EnrolmentError(f"{path} is not a Jetwise enrolment bundle (it is not JSON)") from exc
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise EnrolmentError(f"{path} is not a Jetwise enrolment bundle")
    if data.get("version") != BUNDLE_VERSION:
        raise EnrolmentError(f"{path} is an enrolment bundle of version {data.get('version')}; this Jetwise reads "
                             f"version {BUNDLE_VERSION}: enrol with matching versions")
    try:
        sealed = base64.b64decode(str(data["pkcs12"]), validate=True)
        key, cert, cas = pkcs12.load_key_and_certificates(sealed, _normal(code))
    except (KeyError, ValueError) as exc:
        raise EnrolmentError("the code does not open this bundle: type the code the controller showed for "
                             f"{data.get('host', 'this host')} (a new bundle has a new code)") from exc
    authorities = [ca for ca in cas if _is_authority(ca)]
    controllers = [ca for ca in cas if not _is_authority(ca)]
    if key is None or cert is None or len(authorities) != 1 or len(controllers) != 1:
        raise EnrolmentError(f"{path} holds no key, certificate, authority and controller: write a new bundle on the "
                             "controller")
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    return Enrolment(str(data["host"]), str(data["controller"]),
                     Identity(cert.public_bytes(serialization.Encoding.PEM).decode(), key_pem),
                     authorities[0].public_bytes(serialization.Encoding.PEM).decode(),
                     controllers[0].public_bytes(serialization.Encoding.PEM).decode())


def _is_authority(cert: x509.Certificate) -> bool:
    try:
        return bool(cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
    except x509.ExtensionNotFound:
        return False
