"""The simulated device's log is its writer's own rule played (`engine.run.played_log`), not the formula's one write
per forced commit and one per two lazy records: at the rule's limits it gives what the rule says, under load it
carries many commits in one write as group commit does, and a simulated run serves what it plays."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from engine.model.config import default_config
from engine.model.growth import INSERT_LOG_BYTES
from engine.model.sizing import LOG_DATA_BYTES
from engine.run.played_log import PLAYED_SECTOR_BYTES, played_log, write_pieces
from engine.run.sources.model import PROFILES, runner_for, solve
from engine.run.streams import mix_of
from engine.workload.instance import DELETE_LOG_BYTES
from engine.workload.logstream import LAZY_FLUSH_BYTES, LAZY_FLUSH_S, LOG_MAX_WRITE_BYTES


def _config(base: Path, lazy: float, read: float = 0.0, record: str = "insert", **overrides: object):
    """One kind of update (one record size), `read` percent reads, `lazy` percent of the commits lazy."""
    mix = {"insert_percent": 0.0, "delete_percent": 0.0, "replace_percent": 0.0, "read_percent": read,
           "lazy_commit_percent": lazy, f"{record}_percent": 100.0 - read}
    return default_config(base, databases=1, operation_mix=mix, **overrides)


def test_a_write_is_whole_sectors_from_the_one_holding_its_first_byte_at_most_64_kib_and_within_one_log_file():
    assert write_pieces(0, 100) == [PLAYED_SECTOR_BYTES]
    assert write_pieces(700, 1100) == [2 * PLAYED_SECTOR_BYTES]  # the partly written sector again, and the next
    assert write_pieces(0, 3 * LOG_MAX_WRITE_BYTES) == [LOG_MAX_WRITE_BYTES] * 3
    edge = LOG_DATA_BYTES - PLAYED_SECTOR_BYTES
    assert write_pieces(edge, edge + 2 * PLAYED_SECTOR_BYTES) == [PLAYED_SECTOR_BYTES] * 2  # never across a file


def test_one_thread_whose_every_commit_waits_writes_each_record_alone_and_waits_one_write(tmp_path):
    log = played_log(_config(tmp_path, lazy=0.0), threads=1, other_ms=5.0, log_ms=2.0)
    # every transaction an insert, each forced, nothing else pending; one in about 360 crosses into the next log file
    assert log.writes == pytest.approx(1.0 + INSERT_LOG_BYTES / LOG_DATA_BYTES, rel=0.002)
    assert log.bytes_per_write == pytest.approx(-(-INSERT_LOG_BYTES // PLAYED_SECTOR_BYTES) * PLAYED_SECTOR_BYTES,
                                                abs=PLAYED_SECTOR_BYTES)
    assert log.commit_wait_ms == pytest.approx(2.0, rel=0.01)  # its write (two where it crosses a file)


def test_lazy_records_wait_for_a_full_buffer_or_the_writer_s_deadline(tmp_path):
    slow = played_log(_config(tmp_path, lazy=100.0, record="delete"), threads=1, other_ms=100.0, log_ms=1.0)
    # 10 records of 1,200 bytes a second, at most two within 0.1 s: the buffer never fills, so a write goes only at a
    # deadline (a new one set as each write ends), carrying what came since
    assert slow.writes * 10.0 <= 1000.0 / (LAZY_FLUSH_S * 1000.0 + 1.0)
    assert slow.bytes_per_write > DELETE_LOG_BYTES
    fast = played_log(_config(tmp_path, lazy=100.0), threads=8, other_ms=2.0, log_ms=0.1)  # 4,000 records/s
    assert LAZY_FLUSH_BYTES <= fast.bytes_per_write <= LAZY_FLUSH_BYTES + INSERT_LOG_BYTES + 2 * PLAYED_SECTOR_BYTES
    assert fast.writes == pytest.approx(INSERT_LOG_BYTES / fast.bytes_per_write, rel=0.1)


def test_under_load_group_commit_carries_many_commits_in_a_write_where_the_formula_writes_each(tmp_path):
    config = _config(tmp_path, lazy=0.0)
    alone = played_log(config, threads=1, other_ms=10.0, log_ms=5.0)
    many = played_log(config, threads=64, other_ms=10.0, log_ms=5.0)
    assert mix_of(config).log_writes == pytest.approx(1.0) == pytest.approx(alone.writes, rel=0.01)
    assert many.writes < 0.2  # a write carries the commits of the threads that came while the one before went
    assert many.bytes_per_write > 5 * INSERT_LOG_BYTES
    assert many.commit_wait_ms > 1.2 * alone.commit_wait_ms  # its own write, and the rest of the one it came during


def test_the_same_play_gives_the_same_log(tmp_path):
    config = _config(tmp_path, lazy=70.0, read=35.0)
    assert played_log(config, 16, 10.0, 0.6) == played_log(config.model_copy(), 16, 10.0004, 0.6)


def test_a_simulated_run_serves_its_played_log_and_many_threads_on_a_fast_device_write_fewer_larger_writes(tmp_path):
    def run(threads: int):
        config = default_config(tmp_path / f"data{threads}", databases=1, thread_count=threads, duration_s=120.0,
                                warmup_s=30.0, seed=5)
        result = runner_for(PROFILES["flash"], config, tmp_path / f"run{threads}", lambda _e: None).run()
        [row] = result.instances
        [log] = solve(PROFILES["flash"], config).logs
        assert row.log_write_avg_bytes == pytest.approx(log.bytes_per_write, rel=0.05)
        return row.log_writes_per_s / row.db_writes_per_s, log  # log writes per flush write: per transaction, alike

    few, few_log = run(2)
    many, many_log = run(48)
    assert few_log.writes == pytest.approx(mix_of(default_config(tmp_path, databases=1)).log_writes, rel=0.1)
    assert many_log.writes < 0.6 * few_log.writes and many_log.bytes_per_write > 1.5 * few_log.bytes_per_write
    assert many / few == pytest.approx(many_log.writes / few_log.writes, rel=0.1)


LOG_WRITE_S = 0.01  # the slow log's service time


@pytest.mark.skipif(sys.platform == "win32", reason="the slow log is a POSIX test device")
def test_the_real_log_writer_under_many_waiting_commits_groups_them_as_the_play_says(tmp_path):
    """Sixteen threads commit inserts that each wait, on a log whose writes take 10 ms: the real writer (real log files,
    real write-through I/O) carries several commits a write, and as many a write as the play of its rule says."""
    from engine.io.log_files import prepare_logs
    from engine.io.platform import default_backend
    from engine.workload.context import InstanceContext, RunClock
    from engine.workload.logstream import LogWriter
    from engine.workload.stats import LOG_WRITE, StreamStats, ThreadMeter
    from tests.faults.pass_through import PassThroughBackend, PassThroughFile

    class SlowLogFile(PassThroughFile):
        def write_from(self, buffer, offset, length=None):
            time.sleep(LOG_WRITE_S)  # the device's service time, then the real write
            return super().write_from(buffer, offset, length)

    class SlowLog(PassThroughBackend):
        def open_file(self, path, *, create, writable, unbuffered, write_through):
            handle = super().open_file(path, create=create, writable=writable, unbuffered=unbuffered,
                                       write_through=write_through)
            return SlowLogFile(handle) if writable and not create else handle

    db_id, threads, each = b"P" * 16, 16, 60
    unbuffered = default_backend().probe_unbuffered(tmp_path).supported
    paths = prepare_logs(default_backend(), tmp_path, 0, db_id, unbuffered=unbuffered)
    now = time.perf_counter_ns()
    clock = RunClock(t0_ns=now, interval_ns=10**12, stop_at_ns=now + 10**13)
    meter = ThreadMeter("Instance 1", now, 10**12)
    errors: list[object] = []
    ctx = InstanceContext(SlowLog(), "Instance 1", clock, lambda *e: errors.append(e), lambda *_: None, unbuffered)
    writer = LogWriter(ctx, meter, paths, db_id, PLAYED_SECTOR_BYTES)
    writer.thread.start()
    gate = threading.Barrier(threads)
    waited: list[float] = []

    def commits() -> None:
        gate.wait()
        for _ in range(each):
            started = time.perf_counter()
            writer.append(INSERT_LOG_BYTES, commit=True)
            waited.append((time.perf_counter() - started) * 1000.0)

    workers = [threading.Thread(target=commits) for _ in range(threads)]
    began = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - began
    clock.stop.set()
    writer.thread.join(5)
    writer.close()
    stats = StreamStats()
    for bucket in meter.take(1 << 62):
        stats.merge(bucket.stream(LOG_WRITE))
    assert not errors and len(waited) == threads * each
    log_ms = stats.sum_ns / stats.count / 1e6
    # what a thread spent besides its commit's wait: its share of the run less its waits
    other_ms = max(0.01, (seconds * 1000.0 * threads - sum(waited)) / len(waited))
    played = played_log(_config(tmp_path, lazy=0.0), threads, other_ms, log_ms)
    writes = stats.count / len(waited)
    assert writes < 0.5  # commits grouped: each write carries several
    assert writes == pytest.approx(played.writes, rel=0.15)
    assert stats.bytes / stats.count == pytest.approx(played.bytes_per_write, rel=0.15)
    assert sum(waited) / len(waited) == pytest.approx(played.commit_wait_ms, rel=0.15)
