"""A disk that hangs one I/O, as a failing path, controller or array holds an I/O it never completes: real files, and
one database read (or one page flush) held once the test asks for it.

The test creates the `ask` file when it wants the hang; the first database read (or flush) any worker makes after that
takes the `taken` file with O_EXCL, so exactly one I/O of one process hangs, however many workers share the device.
It writes there what it holds ("path offset length") and holds it until the `release` file exists or `hold_s` has
passed; then it completes the I/O and appends "completed" to `taken`. A test knows from it which I/O hung, and whether
the run waited for it. POSIX only: the tests that use it are skipped elsewhere.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from engine.model.sizing import PAGE_SIZE_BYTES
from tests.faults.pass_through import PassThroughBackend, PassThroughFile, io_size, is_flush


class HangingDevice(PassThroughBackend):
    """The platform's backend with one database read, or with `writes` one page flush, held once `ask` exists."""

    def __init__(self, ask: Path, hold_s: float, *, writes: bool = False) -> None:
        super().__init__()
        self.ask = ask
        self.taken = ask.with_name(ask.name + ".taken")
        self.release = ask.with_name(ask.name + ".release")
        self.hold_s = hold_s
        self.writes = writes
        self.name = f"hanging device (one database {'flush' if writes else 'read'} held {hold_s:g} s)"

    def wrap(self, handle: IoFile) -> IoFile:
        return _HangingFile(handle, self)

    def maybe_hang(self, path: Path, offset: int, length: int) -> None:
        if not self.ask.exists():
            return
        try:
            fd = os.open(self.taken, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return  # another I/O is the one held
        os.write(fd, f"{path} {offset} {length}\n".encode())
        os.close(fd)
        deadline = time.monotonic() + self.hold_s
        while not self.release.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(self.taken, "a", encoding="utf-8") as taken:
            taken.write("completed\n")

    def held(self) -> tuple[str, int, int] | None:
        """The I/O the device held: file, offset, length; None if it held none."""
        if not self.taken.exists():
            return None
        path, offset, length = self.taken.read_text(encoding="utf-8").splitlines()[0].rsplit(" ", 2)
        return path, int(offset), int(length)

    def completed(self) -> bool:
        return self.taken.exists() and "completed" in self.taken.read_text(encoding="utf-8")


class _HangingFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: HangingDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._done = False  # this file has met the hang, or seen it taken: no more looking

    def _watch(self, offset: int, length: int) -> None:
        if self._done:
            return
        self._device.maybe_hang(self.path, offset, length)
        self._done = self._device.taken.exists()

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if not self._device.writes and offset >= PAGE_SIZE_BYTES:
            self._watch(offset, io_size(buffer, length))
        return super().read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        size = io_size(buffer, length)
        if self._device.writes and is_flush(offset, size):
            self._watch(offset, size)
        return super().write_from(buffer, offset, length)
