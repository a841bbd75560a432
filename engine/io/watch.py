"""The database and log files a running test uses stay the files it opened, or the test ends aborted saying which.

Each file's identity (its volume and file number: st_dev and st_ino on POSIX, the volume serial number and file ID
that Python's `os.stat` reads on Windows) is taken once the test's files are ready and compared at every interval.
A file deleted under the test (POSIX keeps an unlinked file open, so the test would measure on and pass) or another
file renamed over its name is found by the next interval. On Windows the files are opened without FILE_SHARE_DELETE,
so the system itself refuses to delete or rename them while the test runs; the comparison is the same there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path


class FileWatch:
    """The identities of a test's files as they were when it opened them, each with the instance it belongs to."""

    def __init__(self, files: Iterable[tuple[str, Path]]) -> None:
        self._known = {path: (owner, _identity(path)) for owner, path in files}

    def changed(self) -> str | None:
        """What became of the first file that is no longer the one opened (None while every one is)."""
        for path, (owner, known) in self._known.items():
            try:
                now = os.stat(path)
            except FileNotFoundError:
                return f"{owner}: {path} was deleted while the test ran; the test cannot go on without it"
            except OSError as exc:
                return f"{owner}: {path} cannot be found any more ({exc.strerror or exc}); the test cannot go on without it"
            if known is None or not os.path.samestat(known, now):
                return f"{owner}: {path} was replaced by another file while the test ran; the test cannot go on with it"
        return None


def _identity(path: Path) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None
