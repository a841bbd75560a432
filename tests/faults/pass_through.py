"""A test device's backend and file: every call goes to the platform's own; a device overrides what it changes."""

from __future__ import annotations

from pathlib import Path

from engine.io.platform import AlignedBuffer, IoBackend, IoFile, UnbufferedProbe
from engine.model.sizing import PAGE_SIZE_BYTES

FLUSH_UP_TO = 8 * PAGE_SIZE_BYTES  # a flush writes at most 8 coalesced pages; creation and growth write more at once


def io_size(buffer: AlignedBuffer, length: int | None) -> int:
    """The bytes an I/O of `buffer` moves: `length`, or the whole buffer."""
    return len(buffer.view) if length is None else length


def of_pages(offset: int, size: int) -> bool:
    """Whether an I/O is of whole database pages past the file's header page."""
    return offset >= PAGE_SIZE_BYTES and size % PAGE_SIZE_BYTES == 0


def is_flush(offset: int, size: int) -> bool:
    """Whether a write is a flush of dirty pages: whole pages past the header, at most `FLUSH_UP_TO` of them (never a
    database's creation, its growth or its header)."""
    return of_pages(offset, size) and size <= FLUSH_UP_TO


def note(ledger: Path, line: str) -> None:
    """Append `line` to a device's ledger, which every worker process of a run writes to."""
    with open(ledger, "a", encoding="utf-8") as written:
        written.write(f"{line}\n")


class PassThroughBackend(IoBackend):
    """The platform's backend, whose database files opened for I/O (not while created) a device may wrap (`wrap`)."""

    def __init__(self) -> None:
        from engine.io.platform.posix import PosixBackend  # the devices are POSIX's: their tests are skipped elsewhere

        self._inner = PosixBackend()

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        handle = self._inner.open_file(path, create=create, writable=writable, unbuffered=unbuffered,
                                       write_through=write_through)
        return self.wrap(handle) if path.suffix == ".jwdb" and not create else handle

    def wrap(self, handle: IoFile) -> IoFile:
        return handle

    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        return self._inner.probe_unbuffered(directory)


class PassThroughFile(IoFile):
    def __init__(self, inner: IoFile) -> None:
        self._inner = inner
        self.path = inner.path

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._inner.read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._inner.write_from(buffer, offset, length)

    def size_bytes(self) -> int:
        return self._inner.size_bytes()

    def flush(self) -> None:
        self._inner.flush()

    def close(self) -> None:
        self._inner.close()
