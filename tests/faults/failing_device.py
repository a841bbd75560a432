"""A disk whose I/O fails with an operating system error, for tests: real files under real unbuffered I/O.

`FailingDevice`: one database read in `reads_every` (of whole pages past the file's header) fails with EIO, as a disk
or its path fails an I/O, and so does one flush in `writes_every` (a write of whole pages past the header, at most
eight of them: never a database's creation, growth or header), which is then never made. ESE names either an I/O
error (-1022 JET_errDiskIO). Each failed I/O is appended to `ledger` as "read path offset length" or "write path
offset length", across the run's worker processes. POSIX only: the tests that use it are skipped elsewhere.
"""

from __future__ import annotations

import errno
import itertools
import os
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from tests.faults.pass_through import PassThroughBackend, PassThroughFile, io_size, is_flush, note, of_pages


class FailingDevice(PassThroughBackend):
    def __init__(self, ledger: Path, *, reads_every: int = 0, writes_every: int = 0) -> None:
        super().__init__()
        self.ledger = ledger
        self.reads_every = reads_every
        self.writes_every = writes_every
        self.name = f"failing device (EIO on one database read in {reads_every}, one flush in {writes_every})"

    def wrap(self, handle: IoFile) -> IoFile:
        return _FailingFile(handle, self)


class _FailingFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: FailingDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._reads = itertools.count(1)
        self._writes = itertools.count(1)

    def _fail(self, what: str, offset: int, size: int) -> OSError:
        note(self._device.ledger, f"{what} {self.path} {offset} {size}")
        return OSError(errno.EIO, os.strerror(errno.EIO), str(self.path))

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        size = io_size(buffer, length)
        every = self._device.reads_every
        if every and of_pages(offset, size) and next(self._reads) % every == 0:
            raise self._fail("read", offset, size)
        return super().read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        size = io_size(buffer, length)
        every = self._device.writes_every
        if every and is_flush(offset, size) and next(self._writes) % every == 0:
            raise self._fail("write", offset, size)
        return super().write_from(buffer, offset, length)


def failed_ios(ledger: Path, what: str) -> list[tuple[str, int, int]]:
    """Every (file, offset, length) of the device's failed reads or writes (`what`), in the order they failed."""
    if not ledger.exists():
        return []
    found = []
    for line in ledger.read_text(encoding="utf-8").splitlines():
        kind, rest = line.split(" ", 1)
        path, offset, size = rest.rsplit(" ", 2)
        if kind == what:
            found.append((path, int(offset), int(size)))
    return found
