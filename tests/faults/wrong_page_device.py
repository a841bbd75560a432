"""A disk that returns another page's content, for tests: real files under real unbuffered I/O.

`WrongPageDevice`: on one database read in `every` (of whole pages past the file's header: a transaction's single
page or span, a checksum's 64 KiB), the read's first page comes back as another page of the same database, whole and
valid, read from another offset of the file: what a misdirected read or write leaves, which ESE names a wrong page
number (-1118 JET_errReadPgnoVerifyFailure). Each such read is appended to `ledger` as "path page other", so a test
knows which page was asked for and whose content came back, across the run's worker processes. POSIX only: the tests
that use it are skipped elsewhere.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from tests.faults.pass_through import PassThroughBackend, PassThroughFile, note

DISTANCE = 100  # the page whose content comes back lies this many pages on, round the file's pages past its header


class WrongPageDevice(PassThroughBackend):
    def __init__(self, ledger: Path, every: int) -> None:
        super().__init__()
        self.ledger = ledger
        self.every = every
        self.name = f"wrong-page device (one database read in {every} returns another page's content)"

    def wrap(self, handle: IoFile) -> IoFile:
        return _WrongPageFile(handle, self)


class _WrongPageFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: WrongPageDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._reads = itertools.count(1)

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        done = super().read_into(buffer, offset, length)
        if offset < PAGE_SIZE_BYTES or done % PAGE_SIZE_BYTES or next(self._reads) % self._device.every:
            return done
        page = offset // PAGE_SIZE_BYTES
        pages = self.size_bytes() // PAGE_SIZE_BYTES
        other = 1 + (page - 1 + DISTANCE) % (pages - 1)
        elsewhere = AlignedBuffer(PAGE_SIZE_BYTES)
        try:
            super().read_into(elsewhere, other * PAGE_SIZE_BYTES, PAGE_SIZE_BYTES)
            buffer.view[:PAGE_SIZE_BYTES] = elsewhere.view
        finally:
            elsewhere.release()
        note(self._device.ledger, f"{self.path} {page} {other}")
        return done


def wrong_pages(ledger: Path) -> dict[tuple[str, int], int]:
    """Every (file, page) the device returned another page's content for, and that other page."""
    if not ledger.exists():
        return {}
    found = {}
    for line in ledger.read_text(encoding="utf-8").splitlines():
        path, page, other = line.rsplit(" ", 2)
        found[(path, int(page))] = int(other)
    return found
