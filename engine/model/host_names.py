"""What names a server of a test across servers: an RFC 1123 host name or an IPv4 or IPv6 address, and nothing else.

A host's name becomes its certificate's name and its enrolment bundle's file name, so a name such as `../x`, an
absolute path or an empty one is refused where it is typed, never written as a path.
"""

from __future__ import annotations

import ipaddress
import re

from engine.model.units import as_typed

LONGEST_NAME = 253  # RFC 1123: a host name's characters, dots included
LONGEST_LABEL = 63
_LABEL = re.compile(r"[A-Za-z0-9-]+")
WHAT_A_HOST_IS = ("give an RFC 1123 host name such as mbx1.contoso.com (labels of letters, digits and hyphens, "
                  "separated by dots) or an IPv4 or IPv6 address such as 10.0.0.21 or fd00::21")


def on_server(host: str, name: str) -> str:
    """An instance's name in a test across servers: "HOST Instance N" (a host name holds no space)."""
    return f"{host} {name}"


def short_names(hosts: list[str]) -> dict[str, str]:
    """Each host as a narrow view names it: its first label (`exmbx01` of `exmbx01.corp.contoso.com`) where that tells
    the hosts apart, its whole name where it does not or where it is an address."""
    def first(host: str) -> str:
        try:
            ipaddress.ip_address(host)
            return host
        except ValueError:
            return host.split(".", 1)[0]

    firsts = [first(host) for host in hosts]
    return {host: short if firsts.count(short) == 1 else host for host, short in zip(hosts, firsts, strict=True)}


def file_name_of(host: str) -> str:
    """`host` as a file or folder name: an IPv6 address's colons as dashes (no file name on Windows holds a colon)."""
    return host.replace(":", "-")


def host_problem(host: str) -> str | None:
    """Why `host` names no server, if it names none: said with what a host name may be."""
    why = host_flaw(host)
    return None if why is None else f"{as_typed(host)} is not a host name or address ({why}): {WHAT_A_HOST_IS}"


def host_flaw(host: str) -> str | None:
    """What keeps `host` from being a host name or address ("it holds ' '"), if anything does."""
    if not host:
        return "it is empty"
    try:
        ipaddress.ip_address(host)
        return None
    except ValueError:
        pass
    if len(host) > LONGEST_NAME:
        return f"it has {len(host):,} characters, more than {LONGEST_NAME}"
    odd = sorted({char for char in host if char != "." and not _LABEL.fullmatch(char)})
    if odd:
        return f"it holds {' '.join(repr(char) for char in odd[:5])}"
    labels = host.split(".")
    if any(not label for label in labels):
        return "it has an empty label: a dot at its start or end, or two dots together"
    if any(len(label) > LONGEST_LABEL for label in labels):
        return f"a label is longer than {LONGEST_LABEL} characters"
    if any(label.startswith("-") or label.endswith("-") for label in labels):
        return "a label begins or ends with a hyphen"
    if labels[-1].isdigit():
        return "its last label is all digits, as only an IPv4 address's is, and it is no IPv4 address"
    return None

