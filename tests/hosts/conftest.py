"""Keys a test makes are removed from the credential store after it: the store is the user's, not a scratch folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.hosts.keys import KeyStore
from engine.hosts.membership import membership_in
from engine.hosts.roster import Roster, key_name


def key_names(data: Path) -> list[str]:
    """The credential store's names of the keys a data folder's roster and agent enrolment refer to."""
    names = []
    found = Roster.file_in(data / "hosts")
    if found is not None:
        names += [key_name("authority", found.authority_pem), key_name("controller", found.authority_pem)]
    membership = membership_in(data / "agent")
    if membership is not None:
        names.append(membership.key_name)
    return names


@pytest.fixture
def keys(tmp_path: Path) -> Iterator[KeyStore]:
    """The credential store; afterwards every key of a data folder under the test's folder is removed."""
    store = KeyStore()
    yield store
    for data in {tmp_path, *(p.parent for p in tmp_path.rglob("*") if p.name in ("hosts", "agent"))}:
        for name in key_names(data):
            store.remove(name)
