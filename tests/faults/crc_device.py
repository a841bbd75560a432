"""A disk with pending sectors, for tests: real files under real unbuffered I/O.

`CrcDevice`: every read that covers one of a few bad database pages fails with the operating system's data error,
until the page is written again, as a drive fails a pending sector's reads with an uncorrectable ECC error until a
write remaps it. Windows reports it as ERROR_CRC (23), which ESE names -1021 JET_errDiskReadVerificationFailure; on
POSIX the device raises EBADMSG, Linux's "bad CRC" (`engine.io.platform.DATA_ERRNOS`). The bad pages are the page
numbers `pages` of every database file, and, on cue, the page of one single-page database read in `every` (up to
`most` of them a file; that read is the first to fail). `late`: the read of a file's first bad page fails only once a
read of a later one has (or after `LATE_WAIT_S`), as a drive that retries one sector longer than another.

`ledger` receives, across the run's worker processes: "bad path page" when a page goes bad, "failed path offset
length" for each read that fails, "mended path page" when a write remaps a bad page. POSIX only: the tests that use
it are skipped elsewhere.
"""

from __future__ import annotations

import errno
import itertools
import os
import threading
from pathlib import Path
from typing import Any

from engine.io.platform import AlignedBuffer, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from tests.faults.pass_through import PassThroughBackend, PassThroughFile, io_size, note

LATE_WAIT_S = 10.0


class CrcDevice(PassThroughBackend):
    def __init__(self, ledger: Path, *, pages: tuple[int, ...] = (), every: int = 0, most: int = 0,
                 late: bool = False) -> None:
        super().__init__()
        self.ledger = ledger
        self.pages = pages
        self.every = every
        self.most = most
        self.late = late
        self.name = f"CRC device (pages {list(pages)} and one read in {every}, up to {most} a file, fail with EBADMSG)"
        self._surfaces: dict[str, _Surface] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_surfaces"] = {}  # each process's own: a worker's device knows the files it opens
        return state

    def wrap(self, handle: IoFile) -> IoFile:
        surface = self._surfaces.setdefault(str(handle.path), _Surface(self, str(handle.path)))
        return _CrcFile(handle, surface)


class _Surface:
    """One database file's bad pages, shared by every handle of it in a process."""

    def __init__(self, device: CrcDevice, path: str) -> None:
        self.device = device
        self.path = path
        self.bad = set(device.pages)
        self.cued = 0
        self.reads = itertools.count(1)
        self.lock = threading.Lock()
        self.later_failed = threading.Event()

    def read(self, offset: int, size: int) -> bool:
        """True when the read fails: it covers a bad page, or it is the single-page read a page goes bad at."""
        first, count = offset // PAGE_SIZE_BYTES, max(1, size // PAGE_SIZE_BYTES)
        device = self.device
        with self.lock:
            if not self.bad.intersection(range(first, first + count)):
                cue = (device.every and first > 0 and size == PAGE_SIZE_BYTES and self.cued < device.most
                       and next(self.reads) % device.every == 0)
                if not cue:
                    return False
                self.cued += 1
                self.bad.add(first)
                note(self.device.ledger, f"bad {self.path} {first}")
            note(self.device.ledger, f"failed {self.path} {offset} {size}")
            return True

    def failing(self, offset: int, size: int) -> None:
        """A read that fails, as late as the device fails it: the first bad page's after a later one's."""
        if not self.device.late:
            return
        first, count = offset // PAGE_SIZE_BYTES, max(1, size // PAGE_SIZE_BYTES)
        if min(self.device.pages) in range(first, first + count):
            self.later_failed.wait(LATE_WAIT_S)
        else:
            self.later_failed.set()

    def written(self, offset: int, size: int) -> None:
        first, count = offset // PAGE_SIZE_BYTES, size // PAGE_SIZE_BYTES
        with self.lock:
            for page in sorted(self.bad.intersection(range(first, first + count))):
                self.bad.discard(page)
                note(self.device.ledger, f"mended {self.path} {page}")


class _CrcFile(PassThroughFile):
    def __init__(self, inner: IoFile, surface: _Surface) -> None:
        super().__init__(inner)
        self._surface = surface

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if self._surface.read(offset, io_size(buffer, length)):
            self._surface.failing(offset, io_size(buffer, length))
            raise OSError(errno.EBADMSG, os.strerror(errno.EBADMSG), str(self.path))
        return super().read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        done = super().write_from(buffer, offset, length)
        self._surface.written(offset, io_size(buffer, length))
        return done


class CrcLedger:
    """What a CRC device's ledger says: the pages that went bad, the reads that failed, the pages mended, by file."""

    def __init__(self, ledger: Path) -> None:
        self.bad: list[tuple[str, int]] = []
        self.failed: list[tuple[str, int, int]] = []
        self.mended: list[tuple[str, int]] = []
        lines = ledger.read_text(encoding="utf-8").splitlines() if ledger.exists() else []
        for line in lines:
            what, rest = line.split(" ", 1)
            if what == "failed":
                path, offset, size = rest.rsplit(" ", 2)
                self.failed.append((path, int(offset), int(size)))
            else:
                path, page = rest.rsplit(" ", 1)
                (self.bad if what == "bad" else self.mended).append((path, int(page)))
