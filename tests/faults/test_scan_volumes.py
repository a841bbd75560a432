"""A Database Checksum goes volume by volume as Jetstress's does, and a backup keeps two reads in flight per database.

Four databases of 4 MB on two file systems (this machine's disk and /dev/shm), listed alternately. Each volume is served by
its own slow spindle (`tests.faults.slow_device`, 3 ms per database read, one at a time): a read's latency is its
wait in its volume's queue, so the reads in flight on a volume are its reads' total latency over the time they took
(Little's law). Measured from the samples, each volume keeps the depth the checksum buffers give it, and the
databases of one volume are read one after another while the volumes run at once.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from engine.model import config as model
from engine.model.config import DatabaseSpec
from engine.results.document import read_samples
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.run.scan_plan import BACKUP_DEPTH, scan_depth, scan_groups
from tests.conftest import small_config

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="the slow device locks with flock")]

SERVICE_MS = 3.0
SECOND_VOLUME = Path("/dev/shm")


@pytest.fixture
def two_volumes(tmp_path):
    if not SECOND_VOLUME.is_dir() or os.stat(SECOND_VOLUME).st_dev == os.stat(tmp_path).st_dev:
        pytest.skip("no second file system at /dev/shm")
    other = Path(tempfile.mkdtemp(prefix="jetwise-volume-", dir=SECOND_VOLUME))
    yield tmp_path / "disk", other
    shutil.rmtree(other, ignore_errors=True)


def _config(volumes: tuple[Path, Path], test_type: model.TestType, **overrides: object):
    first, second = volumes
    folders = [first / "DB1", second / "DB2", first / "DB3", second / "DB4"]  # alternately, as a server lists them
    specs = [DatabaseSpec(database_path=folder, log_path=folder.with_name(f"Log{folder.name[2:]}")) for folder in folders]
    for folder in folders:
        folder.mkdir(parents=True)
    # /dev/shm takes no unbuffered I/O: the test is about the order and depth, not the device
    return small_config(first, databases=4, test_type=test_type, allow_buffered_io=True, worker_processes=2,
                        **overrides).model_copy(update={"databases": specs})


def _in_flight(folder: Path, instances: list[str], seconds: float) -> tuple[float, float]:
    """Reads in flight while `instances`' databases were read for `seconds`: their reads' summed latency over that time
    (Little's law), from the samples; and how many reads."""
    busy_ms = reads = 0.0
    samples = read_samples(folder)
    for sample in samples:
        for name, counters in sample.instances.items():
            if name in instances and "db_read" in counters.streams:
                stream = counters.streams["db_read"]
                reads += stream.count
                busy_ms += stream.sum_ns / 1e6
    return busy_ms / 1000.0 / seconds, reads


def test_a_checksum_reads_one_database_of_each_volume_at_a_time_keeping_its_depth_on_each(two_volumes, tmp_path):
    from tests.faults.slow_device import SlowDevice

    # 0.5 MiB of checksum buffers: 8 reads of 64 KiB for the server, 4 on each of the two volumes
    config = _config(two_volumes, model.TestType.DATABASE_CHECKSUM, checksum_buffers_mb=0.5)
    groups = scan_groups(config)
    assert groups == [(0, 2), (1, 3)]
    depth = scan_depth(config, len(groups))
    assert depth == 4
    Runner(config, tmp_path / "create", lambda _e: None).run()  # makes the databases and logs (a checksum of them)
    device = SlowDevice(tmp_path / "spindle.lock", SERVICE_MS, per_volume=True)
    result = Runner(config, tmp_path / "out", lambda _e: None, backend=device).run()
    assert result.verdict == Outcome.PASS, result.summary.reasons
    rows = result.scan.databases
    assert all(row.complete and row.seen_pages == row.pages for row in rows)
    reading = SERVICE_MS * rows[0].bytes_read / result.scan.read_bytes / 1000  # its reads, one at a time on the spindle
    for first, second in groups:
        # the volume's second database began when its first ended, never beside it
        assert rows[second].began_s >= rows[first].began_s + rows[first].seconds - 1e-3, rows
        assert rows[first].seconds >= reading * 0.5
    # the volumes ran at once: each volume's first database began at the start
    assert max(rows[first].began_s for first, _ in groups) < min(rows[first].seconds for first, _ in groups)
    for group in groups:
        flight, reads = _in_flight(tmp_path / "out", [rows[i].instance for i in group], sum(rows[i].seconds for i in group))
        assert reads == pytest.approx(sum(rows[i].bytes_read for i in group) / result.scan.read_bytes)
        assert depth * 0.7 <= flight <= depth * 1.05, f"{flight:.2f} reads in flight on the volume of {group}"


def test_a_backup_reads_every_database_at_once_with_two_reads_in_flight_each(two_volumes, tmp_path):
    from tests.faults.slow_device import SlowDevice

    config = _config(two_volumes, model.TestType.DATABASE_BACKUP)
    assert scan_groups(config) == [(0,), (1,), (2,), (3,)]
    Runner(config.model_copy(update={"test_type": model.TestType.DATABASE_CHECKSUM}), tmp_path / "create", lambda _e: None).run()
    device = SlowDevice(tmp_path / "spindle.lock", SERVICE_MS, per_volume=True)
    result = Runner(config, tmp_path / "out", lambda _e: None, backend=device).run()
    assert result.verdict == Outcome.PASS, result.summary.reasons
    rows = result.scan.databases
    assert max(row.began_s for row in rows) < min(row.seconds for row in rows), "every database at once"
    for row in rows:
        flight, _reads = _in_flight(tmp_path / "out", [row.instance], row.seconds)
        # two databases share each volume's spindle: a read waits behind its own database's other read and the
        # other database's two, so its latency is about 2 x 2 services while 2 of its own are in flight
        assert BACKUP_DEPTH * 0.7 <= flight <= BACKUP_DEPTH * 1.05, f"{flight:.2f} reads in flight on {row.instance}"
