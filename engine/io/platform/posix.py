"""POSIX backend: O_DIRECT (+ O_DSYNC for log writes), positional preadv/pwritev."""

from __future__ import annotations

import errno
import os
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoBackend, IoFile, UnbufferedProbe

MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "devtmpfs", "hugetlbfs"})
_F_NOCACHE = 48  # macOS fcntl command: bypass the unified buffer cache


def open_flags(*, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> int:
    """Compose open(2) flags. Never O_TRUNC: Jetwise does not truncate files."""
    flags = os.O_RDWR if writable else os.O_RDONLY
    flags |= getattr(os, "O_CLOEXEC", 0)
    if create:
        flags |= os.O_CREAT | os.O_EXCL
    if unbuffered:
        flags |= getattr(os, "O_DIRECT", 0)
    if write_through:
        flags |= getattr(os, "O_DSYNC", os.O_SYNC)
    return flags


def _short(what: str, done: int, size: int, offset: int, path: str) -> OSError:
    return OSError(errno.EIO, f"short {what}: {done} of {size} bytes at offset {offset}", path)


def _bound(
    call: Callable[[int, list[memoryview], int], int], fd: int, buffer: AlignedBuffer, what: str, path: str
) -> Callable[[int], int]:
    """Positional I/O of a whole buffer with everything pre-bound: the hot path's form."""
    views, size = [buffer.view], buffer.size

    def at(offset: int) -> int:
        done = call(fd, views, offset)
        if done != size:
            raise _short(what, done, size, offset, path)
        return done

    return at


class PosixFile(IoFile):
    __slots__ = ("_fd", "path")

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    def _transfer(self, call: Callable[[int, list[memoryview], int], int], what: str, buffer: AlignedBuffer,
                  offset: int, length: int | None) -> int:
        view = buffer.view if length is None else buffer.view[:length]
        done = call(self._fd, [view], offset)
        if done != len(view):
            raise _short(what, done, len(view), offset, str(self.path))
        return done

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._transfer(os.preadv, "read", buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        return self._transfer(os.pwritev, "write", buffer, offset, length)

    def reader(self, buffer: AlignedBuffer) -> Callable[[int], int]:
        return _bound(os.preadv, self._fd, buffer, "read", str(self.path))

    def size_bytes(self) -> int:
        return os.fstat(self._fd).st_size

    def flush(self) -> None:
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class PosixBackend(IoBackend):
    name = "posix"

    def open_file(self, path: Path, *, create: bool, writable: bool, unbuffered: bool, write_through: bool) -> IoFile:
        flags = open_flags(create=create, writable=writable, unbuffered=unbuffered, write_through=write_through)
        fd = os.open(path, flags, 0o644)
        if unbuffered and not hasattr(os, "O_DIRECT") and sys.platform == "darwin":
            import fcntl

            fcntl.fcntl(fd, _F_NOCACHE, 1)
        return PosixFile(path, fd)

    def probe_unbuffered(self, directory: Path) -> UnbufferedProbe:
        fstype = filesystem_type(directory)
        memory_backed = fstype in MEMORY_FILESYSTEMS
        scratch = directory / f".jetwise-probe-{uuid.uuid4().hex}.tmp"
        buffer = self.allocate(self.alignment)
        try:
            buffer.mm.write(os.urandom(self.alignment))
            handle = self.open_file(scratch, create=True, writable=True, unbuffered=True, write_through=True)
        except OSError as exc:
            buffer.release()
            if exc.errno == errno.EINVAL:
                return UnbufferedProbe(False, memory_backed, f"the {fstype or 'file'} file system refuses O_DIRECT")
            raise
        try:
            handle.write_from(buffer, 0)
            handle.read_into(buffer, 0)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            return UnbufferedProbe(False, memory_backed, f"the {fstype or 'file'} file system refuses aligned O_DIRECT I/O")
        finally:
            handle.close()
            buffer.release()
            scratch.unlink(missing_ok=True)  # the scratch file is ours: created with O_EXCL above
        if memory_backed:
            return UnbufferedProbe(True, True, f"{fstype} keeps files in memory, not on storage")
        return UnbufferedProbe(True, False, f"O_DIRECT accepted ({fstype or 'unknown file system'})")


def filesystem_type(directory: Path) -> str:
    """The file system type of `directory` from /proc/self/mounts ('' where unknown)."""
    try:
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    target = os.path.realpath(directory)
    best, best_type = "", ""
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        mount_point = parts[1].replace("\\040", " ")
        inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) >= len(best):
            best, best_type = mount_point, parts[2]
    return best_type


def try_lock(fd: int) -> bool:
    """An exclusive, non-blocking flock on an open file; the kernel drops it when the process ends."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(fd: int) -> None:
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
