"""A file of a test device: every call goes to the platform's own file; a device overrides what it changes."""

from __future__ import annotations

from engine.io.platform import AlignedBuffer, IoFile


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
