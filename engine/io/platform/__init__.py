"""The small interface between the engine and the operating system's file I/O.

The engine asks a backend for aligned buffers and for files opened unbuffered
(and write-through for logs); everything platform-specific stays behind it. A
simulated device can implement the same interface.
"""

from __future__ import annotations

import ctypes
import errno
import mmap
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

DEFAULT_ALIGNMENT = 4096


class AlignedBuffer:
    """A page-aligned buffer usable for unbuffered I/O on every platform.

    Anonymous mmap memory is aligned to the VM page (4 KiB or more), which satisfies
    O_DIRECT and FILE_FLAG_NO_BUFFERING for 512-byte and 4 KiB sector devices.
    """

    __slots__ = ("_address", "mm", "size", "view")

    def __init__(self, size: int, alignment: int = DEFAULT_ALIGNMENT) -> None:
        if size <= 0 or size % alignment:
            raise ValueError(f"buffer size {size} is not a positive multiple of {alignment}")
        self.size = size
        self.mm = mmap.mmap(-1, size)
        self.view = memoryview(self.mm)
        self._address: int | None = None

    @property
    def address(self) -> int:
        """The buffer's memory address (for ctypes calls)."""
        if self._address is None:
            self._address = ctypes.addressof(ctypes.c_char.from_buffer(self.mm))
        return self._address

    def release(self) -> None:
        self.view.release()
        try:
            self.mm.close()
        except BufferError:
            # A ctypes view made for `address` pins the mapping; the GC frees it later.
            pass


@dataclass(frozen=True)
class UnbufferedProbe:
    """What a folder's file system said when asked for unbuffered I/O."""

    supported: bool
    memory_backed: bool
    detail: str

    @property
    def representative(self) -> bool:
        """True when results on this folder measure the storage, not memory."""
        return self.supported and not self.memory_backed


class IoFile(ABC):
    """An open file with positional reads and writes from aligned buffers."""

    path: Path

    @abstractmethod
    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        """Read `length` bytes (default: the whole buffer) at `offset` into the buffer."""

    @abstractmethod
    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        """Write `length` bytes (default: the whole buffer) of the buffer at `offset`."""

    def reader(self, buffer: AlignedBuffer) -> Callable[[int], int]:
        """A function reading the whole buffer at an offset: the hot path's bound form."""
        return lambda offset: self.read_into(buffer, offset)

    def part_at(self, offset: int) -> tuple[IoFile, int]:
        """The file an I/O at `offset` lands in, and the offset there (itself here; one of the files of a set)."""
        return self, offset

    @abstractmethod
    def size_bytes(self) -> int: ...

    @abstractmethod
    def flush(self) -> None:
        """Make written data durable (fsync / FlushFileBuffers)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> IoFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class IoBackend(ABC):
    """Opens files for unbuffered I/O and tells whether a folder allows it."""

    name: str = "abstract"
    simulated: bool = False

    def allocate(self, size: int) -> AlignedBuffer:
        return AlignedBuffer(size, self.alignment)

    @property
    def alignment(self) -> int:
        return DEFAULT_ALIGNMENT

    @abstractmethod
    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        """Open `path`. With `create`, the file must not exist yet (never truncates)."""

    @abstractmethod
    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        """Try an aligned unbuffered write and read in `directory` with a scratch file."""


# What a POSIX system says when a read's data cannot be read back as written: EBADMSG, the "bad CRC" of Linux's file
# systems (ext4's and XFS's EFSBADCRC) and the test devices'; ENODATA, the block layer's critical medium error
# (BLK_STS_MEDIUM), a drive's unrecovered read, on Linux only (elsewhere it means something else). EIO says no more
# than that the I/O failed, so it stays an I/O error.
DATA_ERRNOS = frozenset({errno.EBADMSG, errno.ENODATA} if sys.platform.startswith("linux") else {errno.EBADMSG})
WINDOWS_ERROR_CRC = 23  # ERROR_CRC, "Data error (cyclic redundancy check)": what Windows says for the same


def is_data_error(exc: OSError) -> bool:
    """The operating system failed an I/O for a data error (a CRC): the drive could not read the data back as written,
    which ESE names JET_errDiskReadVerificationFailure (-1021) rather than an I/O error (-1022)."""
    return getattr(exc, "winerror", None) == WINDOWS_ERROR_CRC or exc.errno in DATA_ERRNOS


def default_backend() -> IoBackend:
    """The backend for the platform Jetwise runs on."""
    if sys.platform == "win32":
        from engine.io.platform.windows import WindowsBackend

        return WindowsBackend()
    from engine.io.platform.posix import PosixBackend

    return PosixBackend()


def _native() -> ModuleType:
    """The module of the platform Jetwise runs on (imported on first use: each needs its own OS)."""
    if sys.platform == "win32":
        from engine.io.platform import windows

        return windows
    from engine.io.platform import posix

    return posix


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on an open file without waiting; False when another process holds it.

    The operating system releases it when the process ends, however it ends.
    """
    return bool(_native().try_lock(fd))


def unlock(fd: int) -> None:
    _native().unlock(fd)
