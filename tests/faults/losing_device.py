"""Disks that lose writes, or return pages from the future, for tests: real files under real unbuffered I/O.

`LosingDevice`: one database page write in `every` is acknowledged and never made.

The page keeps what it held before: its older, self-consistent content (right checksum, right page number, older
write sequence), as storage that acknowledges a write from a volatile cache and loses it leaves it. Only the flushes
of dirty pages are lost (writes of whole pages, at most 256 KiB, past the file's header), never the creation of a
database, its growth or its header. Each lost write is appended to `ledger` as "path offset length", so a test knows
which pages the storage lost, across the run's worker processes. POSIX only: the tests that use it are skipped
elsewhere.
"""

from __future__ import annotations

import itertools
import struct
import zlib
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from tests.faults.pass_through import PassThroughBackend, PassThroughFile, io_size, is_flush, note


class LosingDevice(PassThroughBackend):
    def __init__(self, ledger: Path, every: int) -> None:
        super().__init__()
        self.ledger = ledger
        self.every = every
        self.name = f"losing device (one database page write in {every} acknowledged and lost)"

    def wrap(self, handle: IoFile) -> IoFile:
        return _LosingFile(handle, self)


class _LosingFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: LosingDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._writes = itertools.count(1)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        size = io_size(buffer, length)
        if is_flush(offset, size) and next(self._writes) % self._device.every == 0:
            note(self._device.ledger, f"{self.path} {offset} {size}")
            return size  # acknowledged, never made
        return super().write_from(buffer, offset, length)


def lost_pages(ledger: Path) -> set[tuple[str, int]]:
    """Every (file, page) whose write the device lost."""
    if not ledger.exists():
        return set()
    pages = set()
    for line in ledger.read_text(encoding="utf-8").splitlines():
        path, offset, size = line.rsplit(" ", 2)
        first = int(offset) // PAGE_SIZE_BYTES
        pages |= {(path, first + i) for i in range(int(size) // PAGE_SIZE_BYTES)}
    return pages


SEQUENCE_AT = 40  # a page header's write sequence: after magic, version, kind, checksum, database id and page number
FUTURE = 1 << 62  # a write sequence no run gives: past any time in nanoseconds a clock will reach


class AheadDevice(PassThroughBackend):
    """A disk that, on one single-page database read in `every`, returns the page with a write sequence (dbtime) from
    the future: a whole, valid page (its checksum made again) that no write of this run made. Each such read is
    appended to `ledger` as "path page"."""

    def __init__(self, ledger: Path, every: int) -> None:
        super().__init__()
        self.ledger = ledger
        self.every = every
        self.name = f"ahead device (one page read in {every} returns a page from the future)"

    def wrap(self, handle: IoFile) -> IoFile:
        return _AheadFile(handle, self)


class _AheadFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: AheadDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._reads = itertools.count(1)

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        done = super().read_into(buffer, offset, length)
        if offset >= PAGE_SIZE_BYTES and done == PAGE_SIZE_BYTES and next(self._reads) % self._device.every == 0:
            view = buffer.view
            struct.pack_into("<Q", view, SEQUENCE_AT, FUTURE)
            struct.pack_into("<I", view, 12, zlib.crc32(view[16:PAGE_SIZE_BYTES]))
            note(self._device.ledger, f"{self.path} {offset // PAGE_SIZE_BYTES}")
        return done


def pages_ahead(ledger: Path) -> set[tuple[str, int]]:
    """Every (file, page) the device returned from the future."""
    if not ledger.exists():
        return set()
    return {(path, int(page)) for path, page in (line.rsplit(" ", 1) for line in ledger.read_text().splitlines())}
