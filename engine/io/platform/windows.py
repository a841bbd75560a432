"""Windows backend: CreateFileW with FILE_FLAG_NO_BUFFERING | FILE_FLAG_WRITE_THROUGH.

Positional I/O uses ReadFile/WriteFile on a synchronous handle with an OVERLAPPED
structure carrying the offset. Everything that does not call into kernel32 (flag
composition, offsets, alignment, error mapping) is plain Python and tested on
every platform.
"""

from __future__ import annotations

import ctypes
import errno
import os
import uuid
from pathlib import Path
from typing import Any

from engine.io.platform import WINDOWS_ERROR_CRC, AlignedBuffer, IoBackend, IoFile, UnbufferedProbe
from engine.io.platform import kernel32 as k32
from engine.io.platform.kernel32 import DWORD, HANDLE

GENERIC_READ = 0x80000000
GENERIC_WRITE = 0x40000000
FILE_SHARE_READ = 0x00000001
FILE_SHARE_WRITE = 0x00000002
CREATE_NEW = 1
OPEN_EXISTING = 3
FILE_ATTRIBUTE_NORMAL = 0x00000080
FILE_FLAG_WRITE_THROUGH = 0x80000000
FILE_FLAG_NO_BUFFERING = 0x20000000
FILE_FLAG_RANDOM_ACCESS = 0x10000000
FILE_FLAG_DELETE_ON_CLOSE = 0x04000000
INVALID_HANDLE_VALUE = ctypes.c_void_p(-1).value

# Win32 error codes Jetwise explains to the engineer.
ERROR_FILE_NOT_FOUND = 2
ERROR_PATH_NOT_FOUND = 3
ERROR_ACCESS_DENIED = 5
ERROR_NOT_READY = 21
ERROR_CRC = WINDOWS_ERROR_CRC  # 23: a read the drive cannot return as written; ESE -1021, not -1022
ERROR_SHARING_VIOLATION = 32
ERROR_HANDLE_EOF = 38
ERROR_FILE_EXISTS = 80
ERROR_INVALID_PARAMETER = 87
ERROR_DISK_FULL = 112
ERROR_ALREADY_EXISTS = 183
ERROR_IO_DEVICE = 1117

_ERROR_MAP: dict[int, tuple[int, str]] = {
    ERROR_FILE_NOT_FOUND: (errno.ENOENT, "the file does not exist"),
    ERROR_PATH_NOT_FOUND: (errno.ENOENT, "the folder does not exist"),
    ERROR_ACCESS_DENIED: (errno.EACCES, "access is denied"),
    ERROR_NOT_READY: (errno.EIO, "the device is not ready"),
    ERROR_CRC: (errno.EIO, "the drive could not read the data back as written: a CRC data error (cyclic redundancy check)"),
    ERROR_SHARING_VIOLATION: (errno.EBUSY, "another process has the file open"),
    ERROR_HANDLE_EOF: (errno.EIO, "read past the end of the file"),
    ERROR_FILE_EXISTS: (errno.EEXIST, "the file already exists"),
    ERROR_ALREADY_EXISTS: (errno.EEXIST, "the file already exists"),
    ERROR_INVALID_PARAMETER: (errno.EINVAL, "unbuffered I/O was refused: offset, length or buffer is not "
                              "sector-aligned, or the volume does not allow unbuffered I/O"),
    ERROR_DISK_FULL: (errno.ENOSPC, "the disk is full"),
    ERROR_IO_DEVICE: (errno.EIO, "the device reported an I/O error"),
}


def map_error(winerror: int, path: Path | str, operation: str) -> OSError:
    """Turn a Win32 error code into an OSError with an errno and words an engineer can act on."""
    code, words = _ERROR_MAP.get(winerror, (errno.EIO, f"Windows error {winerror}"))
    error = OSError(code, f"{operation} failed: {words} (Windows error {winerror})", str(path))
    error.winerror = winerror  # type: ignore[attr-defined]
    return error


def create_flags(*, unbuffered: bool, write_through: bool, random_access: bool = False) -> int:
    """dwFlagsAndAttributes for CreateFileW."""
    return (FILE_ATTRIBUTE_NORMAL | (FILE_FLAG_NO_BUFFERING if unbuffered else 0)
            | (FILE_FLAG_WRITE_THROUGH if write_through else 0) | (FILE_FLAG_RANDOM_ACCESS if random_access else 0))


def desired_access(*, writable: bool) -> int:
    return GENERIC_READ | GENERIC_WRITE if writable else GENERIC_READ


def creation_disposition(*, create: bool) -> int:
    """CREATE_NEW or OPEN_EXISTING: never CREATE_ALWAYS or TRUNCATE_EXISTING."""
    return CREATE_NEW if create else OPEN_EXISTING


def split_offset(offset: int) -> tuple[int, int]:
    """(Offset, OffsetHigh) DWORDs of a 64-bit file offset for OVERLAPPED."""
    if offset < 0 or offset >= 1 << 64:
        raise ValueError(f"file offset {offset} is out of range")
    return offset & 0xFFFFFFFF, offset >> 32


def check_alignment(*, offset: int, length: int, address: int, sector_bytes: int) -> None:
    """Raise ValueError unless offset, length and address suit FILE_FLAG_NO_BUFFERING."""
    if sector_bytes <= 0 or sector_bytes & (sector_bytes - 1):
        raise ValueError(f"sector size {sector_bytes} is not a power of two")
    for what, value in (("offset", offset), ("length", length), ("buffer address", address)):
        if value % sector_bytes:
            raise ValueError(f"unbuffered I/O needs the {what} ({value}) to be a multiple of the "
                             f"{sector_bytes}-byte sector")


def effective_alignment(sector_bytes: int) -> int:
    """Align to at least 4 KiB so 512e and 4Kn drives behave the same."""
    return max(4096, sector_bytes)


class OVERLAPPED(ctypes.Structure):
    _fields_ = [("Internal", ctypes.c_size_t), ("InternalHigh", ctypes.c_size_t), ("Offset", DWORD),
                ("OffsetHigh", DWORD), ("hEvent", HANDLE)]


def overlapped_at(offset: int) -> OVERLAPPED:
    low, high = split_offset(offset)
    return OVERLAPPED(Offset=low, OffsetHigh=high)


class WindowsFile(IoFile):
    """A file handle; opened unbuffered, each transfer is held to the volume's sector size first.

    Windows refuses a misaligned unbuffered transfer (ERROR_INVALID_PARAMETER); Wine's file layer and
    a cached volume do not, so the check here is what makes a misaligned transfer fail everywhere
    Jetwise runs, with the value at fault named.
    """

    def __init__(self, path: Path, handle: int, kernel32: Any, sector_bytes: int | None = None) -> None:
        self.path = path
        self._handle: int | None = handle
        self._k32 = kernel32
        self._sector_mask = sector_bytes - 1 if sector_bytes else 0
        self._sector_bytes = sector_bytes

    def _transfer(self, fn: Any, operation: str, buffer: AlignedBuffer, offset: int, length: int | None) -> int:
        size = buffer.size if length is None else length
        if (offset | size | buffer.address) & self._sector_mask:
            try:
                check_alignment(offset=offset, length=size, address=buffer.address, sector_bytes=self._sector_bytes or 1)
            except ValueError as exc:
                raise OSError(errno.EINVAL, f"{operation} refused: {exc}", str(self.path)) from None
        done = DWORD(0)
        ov = overlapped_at(offset)
        if not fn(self._handle, buffer.address, size, ctypes.byref(done), ctypes.byref(ov)):
            raise map_error(k32.last_error(), self.path, operation)
        if done.value != size:
            raise OSError(errno.EIO, f"short {operation}: {done.value} of {size} bytes at offset {offset}", str(self.path))
        return int(done.value)

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._transfer(self._k32.ReadFile, "read", buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._transfer(self._k32.WriteFile, "write", buffer, offset, length)

    def size_bytes(self) -> int:
        return os.path.getsize(self.path)

    def flush(self) -> None:
        if not self._k32.FlushFileBuffers(self._handle):
            raise map_error(k32.last_error(), self.path, "flush")

    def close(self) -> None:
        if self._handle is not None:
            self._k32.CloseHandle(self._handle)
            self._handle = None


class WindowsBackend(IoBackend):
    name = "windows"

    def __init__(self, kernel32: Any = None) -> None:
        self._k32 = kernel32 if kernel32 is not None else k32.load()

    def sector_bytes(self, path: Path) -> int:
        root = os.path.splitdrive(os.path.abspath(path))[0] + "\\"
        sectors, per_sector, free, total = (DWORD() for _ in range(4))
        if not self._k32.GetDiskFreeSpaceW(root, ctypes.byref(sectors), ctypes.byref(per_sector), ctypes.byref(free), ctypes.byref(total)):
            return 4096
        return int(per_sector.value) or 4096

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        flags = create_flags(unbuffered=unbuffered, write_through=write_through, random_access=True)
        handle = self._k32.CreateFileW(str(path), desired_access(writable=writable), FILE_SHARE_READ | FILE_SHARE_WRITE,
                                       None, creation_disposition(create=create), flags, None)
        if handle in (None, INVALID_HANDLE_VALUE):
            raise map_error(k32.last_error(), path, "open")
        return WindowsFile(path, handle, self._k32, self.sector_bytes(path) if unbuffered else None)

    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        scratch = directory / f".jetwise-probe-{uuid.uuid4().hex}.tmp"
        sector = self.sector_bytes(directory)
        alignment = effective_alignment(sector)
        flags = create_flags(unbuffered=True, write_through=True) | FILE_FLAG_DELETE_ON_CLOSE
        handle = self._k32.CreateFileW(str(scratch), desired_access(writable=True), 0, None, CREATE_NEW, flags, None)
        if handle in (None, INVALID_HANDLE_VALUE):
            error = k32.last_error()
            if error == ERROR_INVALID_PARAMETER:
                return UnbufferedProbe(False, False, "the volume refuses FILE_FLAG_NO_BUFFERING")
            raise map_error(error, scratch, "open")
        probe_file = WindowsFile(scratch, handle, self._k32, sector)
        buffer = AlignedBuffer(alignment, alignment)
        try:
            buffer.mm.write(os.urandom(alignment))
            probe_file.write_from(buffer, 0)
        except OSError as exc:
            if exc.errno == errno.EINVAL:
                return UnbufferedProbe(False, False, "the volume refuses unbuffered writes")
            raise
        finally:
            probe_file.close()  # FILE_FLAG_DELETE_ON_CLOSE removes the scratch file
        return UnbufferedProbe(True, False, f"FILE_FLAG_NO_BUFFERING accepted ({sector}-byte sectors)")


# A byte far past the holder's details is the one locked, because Windows locks are mandatory:
# the details stay readable by the run that is refused.
LOCK_OFFSET = 1 << 30


def try_lock(fd: int) -> bool:
    """An exclusive, non-blocking byte-range lock (LockFile); Windows drops it when the process ends."""
    import msvcrt

    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    except OSError:
        return False
    return True


def unlock(fd: int) -> None:
    import msvcrt

    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
