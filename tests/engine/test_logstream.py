"""The log writer on real log files: commits, lazy flushing, sector rewrites, rollover."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from engine.io.log_files import log_sector_bytes, prepare_logs
from engine.io.pages import LOG_SECTOR_MAGIC
from engine.io.platform import default_backend
from engine.workload.context import InstanceContext, RunClock
from engine.workload.logstream import LAZY_FLUSH_BYTES, LOG_DATA_BYTES, LOG_DATA_START, LogWriter
from engine.workload.stats import LOG_WRITE, StreamStats, ThreadMeter

DB_ID = b"L" * 16


class _Log:
    """A started log writer over 16 fresh log files, and what it wrote."""

    def __init__(self, folder: Path, sector_bytes: int | None = None) -> None:
        backend = default_backend()
        unbuffered = backend.probe_unbuffered(folder).supported
        self.paths = prepare_logs(backend, folder, 0, DB_ID, unbuffered=unbuffered)
        if sector_bytes is None:  # what the device under `folder` takes
            sector_bytes = log_sector_bytes(backend, self.paths[0], unbuffered=unbuffered)
        now = time.perf_counter_ns()
        self.clock = RunClock(t0_ns=now, interval_ns=10**12, stop_at_ns=now + 10**13)
        self.meter = ThreadMeter("Instance 1", now, 10**12)
        self.errors: list[str] = []
        self.closed: list[int] = []
        ctx = InstanceContext(backend, "Instance 1", self.clock, lambda *e: self.errors.append(str(e)), lambda *_: None, unbuffered)
        self.writer = LogWriter(ctx, self.meter, self.paths, DB_ID, sector_bytes, on_close=self.closed.append)
        self.writer.thread.start()

    def stop(self) -> StreamStats:
        self.clock.stop.set()
        self.writer.thread.join(5)
        self.writer.close()
        assert not self.errors
        stats = StreamStats()
        for bucket in self.meter.take(1 << 62):
            stats.merge(bucket.stream(LOG_WRITE))
        return stats


def test_every_non_lazy_commit_is_one_write_through(tmp_path):
    log = _Log(tmp_path)
    for _ in range(100):
        log.writer.append(2560, commit=True)  # returns once written: one record per write
    sector = log.writer.sector_bytes
    stats = log.stop()
    assert stats.count == 100
    # whole sectors, the partly filled last sector written again by the next write
    assert stats.bytes % sector == 0
    assert 100 * 2560 <= stats.bytes <= 100 * (2560 + 2 * sector)


def test_lazy_commits_ride_together_in_fewer_writes(tmp_path):
    log = _Log(tmp_path)
    for _ in range(100):
        log.writer.append(2560, commit=False)
    deadline = time.monotonic() + 5
    while log.writer._flushed < 100 * 2560 and time.monotonic() < deadline:
        time.sleep(0.01)
    stats = log.stop()
    assert 1 <= stats.count <= 100 * 2560 // LAZY_FLUSH_BYTES + 1
    assert stats.bytes >= 100 * 2560


def test_a_partly_filled_sector_is_written_again_by_the_next_write(tmp_path):
    log = _Log(tmp_path)
    log.writer.append(100, commit=True)
    log.writer.append(100, commit=True)
    sector = log.writer.sector_bytes
    stats = log.stop()
    assert (stats.count, stats.bytes) == (2, 2 * sector)  # the first sector, twice
    data = log.paths[0].read_bytes()
    assert data[LOG_DATA_START : LOG_DATA_START + 8] == LOG_SECTOR_MAGIC


def test_the_stream_rolls_over_to_the_next_file_and_closes_the_full_one(tmp_path):
    log = _Log(tmp_path, sector_bytes=4096)
    record = 64 * 1024
    for _ in range(LOG_DATA_BYTES // record + 2):
        log.writer.append(record, commit=True)
    stats = log.stop()
    assert log.closed == [0]
    assert log.writer.generation == 1
    assert stats.bytes >= LOG_DATA_BYTES


def test_a_commit_waiting_on_a_stopped_log_returns(tmp_path):
    log = _Log(tmp_path)
    log.clock.stop.set()
    log.writer.thread.join(5)
    done = threading.Event()
    threading.Thread(target=lambda: (log.writer.append(10, commit=True), done.set()), daemon=True).start()
    assert done.wait(5)
    log.writer.close()


def test_sector_size_probe_finds_512_byte_sectors_where_the_device_takes_them(tmp_path):
    backend = default_backend()
    paths = prepare_logs(backend, tmp_path, 0, DB_ID, unbuffered=backend.probe_unbuffered(tmp_path).supported)
    before = paths[0].read_bytes()[:LOG_DATA_START]
    size = log_sector_bytes(backend, paths[0], unbuffered=True)
    assert size in (512, 4096)
    assert paths[0].read_bytes()[:LOG_DATA_START] == before  # the header is never touched
    assert log_sector_bytes(backend, paths[0], unbuffered=False) == 512


def test_a_sector_size_that_does_not_divide_the_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match="does not divide"):
        _Log(tmp_path, sector_bytes=3000)
