"""A test device's backend and file: every call goes to the platform's own; a device overrides what it changes."""

from __future__ import annotations

from pathlib import Path

from engine.io.platform import AlignedBuffer, IoBackend, IoFile, UnbufferedProbe


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
