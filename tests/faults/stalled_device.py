"""A disk that stalls once, as a virtual machine's disk does when its host pauses it: real files, and one
database read held for a fixed time after the test asks for it.

The test creates the `ask` file when it wants the stall (when measurement has begun); the first database read
any worker makes after that takes the `done` file with O_EXCL, so exactly one read of one process stalls,
however many workers share the device.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from tests.faults.pass_through import PassThroughBackend, PassThroughFile


class StalledDevice(PassThroughBackend):
    """The platform's backend with a single database read held for `stall_ms` once `ask` exists."""

    def __init__(self, ask: Path, stall_ms: float) -> None:
        super().__init__()
        self.ask = ask
        self.done = ask.with_name(ask.name + ".done")
        self.stall_s = stall_ms / 1000.0
        self.name = f"stalled device (one database read held {stall_ms:g} ms)"

    def wrap(self, handle: IoFile) -> IoFile:
        return _StalledFile(handle, self)

    def maybe_stall(self) -> None:
        if not self.ask.exists():
            return
        try:
            os.close(os.open(self.done, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return  # another read had the stall
        time.sleep(self.stall_s)


class _StalledFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: StalledDevice) -> None:
        super().__init__(inner)
        self._device = device
        self._stalled = False

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if not self._stalled and self._device.ask.exists():
            self._stalled = True  # one try per file: the marker is checked once, not on every read after
            self._device.maybe_stall()
        return super().read_into(buffer, offset, length)
