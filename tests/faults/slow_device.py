"""A slow disk for tests: real files, but database I/O served one at a time behind a fixed service time.

Like one spindle, it queues: with one I/O in flight a database read takes the service time,
with n in flight about n times that, so read latency grows with the load and a load sweep
has a latency limit to find. Every I/O still reaches the real file (unbuffered, as the
platform's backend does it); the device only holds it in line first.

The queue spans processes (a lock file, flock) and threads (a lock per process), so the run's
workers share the one "spindle". Database creation (large sequential writes) and the logs are
not slowed. POSIX only: the tests that use it are skipped elsewhere.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from pathlib import Path

from engine.io.platform import AlignedBuffer, IoFile
from tests.faults.pass_through import PassThroughBackend, PassThroughFile

SLOWED_UP_TO = 512 * 1024  # page reads, flush writes and maintenance's batches; creation's 4 MiB chunks are larger
_queues: dict[str, tuple[threading.Lock, int]] = {}  # per process: the lock file's path -> (thread lock, its fd)
_made = threading.Lock()


def _queue(lock_path: Path) -> tuple[threading.Lock, int]:
    key = str(lock_path)
    with _made:
        if key not in _queues:
            _queues[key] = (threading.Lock(), os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644))
        return _queues[key]


class SlowDevice(PassThroughBackend):
    """The platform's backend with database I/O queued on one server of `service_ms` per I/O; with `per_volume`, one
    such server for each volume (file system) a database is on, so volumes serve in parallel."""

    def __init__(self, lock_path: Path, service_ms: float, *, per_volume: bool = False) -> None:
        super().__init__()
        self.lock_path = lock_path
        self.service_s = service_ms / 1000.0
        self.per_volume = per_volume
        each = "each volume's" if per_volume else "one at a time"
        self.name = f"slow device ({service_ms:g} ms per database I/O, {each})"

    def queue_for(self, path: Path) -> Path:
        """The lock file of the server that serves `path`."""
        if not self.per_volume:
            return self.lock_path
        return self.lock_path.with_name(f"{self.lock_path.stem}-{os.stat(path).st_dev}{self.lock_path.suffix}")

    def wrap(self, handle: IoFile) -> IoFile:
        return _SlowFile(handle, self)

    def serve(self, io: PassThroughFile, length: int) -> None:
        """Hold the caller in its server's queue, then for the service time."""
        if length > SLOWED_UP_TO:
            return
        lock, fd = _queue(self.queue_for(io.path))
        with lock:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                time.sleep(self.service_s)
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)


class _SlowFile(PassThroughFile):
    def __init__(self, inner: IoFile, device: SlowDevice) -> None:
        super().__init__(inner)
        self._device = device

    def read_into(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        self._device.serve(self, length or buffer.size)
        return super().read_into(buffer, offset, length)

    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        self._device.serve(self, length or buffer.size)
        return super().write_from(buffer, offset, length)
