"""The samples file: one compact copy of a run's samples, read back whole, by column or after a kill."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.io.pages import ErrorKind
from engine.results.counters import added, histograms_of
from engine.results.document import read_samples
from engine.results.figures import interval_counters
from engine.results.host_schema import HostFigures
from engine.results.sample_file import SAMPLES_DB, SampleWriter, is_sample_file
from engine.results.sample_read import SampleFile
from engine.results.sample_schema import Figures, IntervalSample, LatencyHistograms
from engine.results.sums import LatencySum
from engine.workload.errors import IoProblem
from engine.workload.histogram import bucket_index, packed, percentiles_ms, to_sparse, unpacked
from engine.workload.stats import InstanceInterval


def sample(interval: int, phase: str = "measure", instances: int = 3, step: int | None = None) -> IntervalSample:
    """Instance i reads 10 * (i + 1) + interval pages a second, half at 2 + interval / 10 ms and half at three times
    that; at interval 7 each meets a bad checksum. Made as a run makes its samples (`interval_counters`)."""
    parts = {}
    for i in range(instances):
        part = InstanceInterval(f"Instance {i + 1}")
        reads = part.stream("db_read")
        for k in range(10 * (i + 1) + interval):
            ns = round((2.0 + interval / 10) * (1e6 if k % 2 else 3e6))
            reads.count += 1
            reads.bytes += 32768
            reads.sum_ns += ns
            reads.max_ns = max(reads.max_ns, ns)
            reads.hist[bucket_index(ns)] += 1
        part.cache[:2] = [i + 1, 1]
        if interval == 7:
            reads.errors += 1
            part.errors.add(IoProblem(ErrorKind.CHECKSUM, "db_read", f"D:\\DB{i + 1}\\Jetwise001.jwdb", "page",
                                      5, 5 * 32768), interval)
        parts[part.instance] = part
    counters, server, streams = interval_counters(parts)
    return IntervalSample(interval=interval, phase=phase, time_utc=f"2026-11-22T10:00:{interval:02d}+00:00",
                          elapsed_s=interval + 1.0, duration_s=1.0, host=HostFigures(cpu_percent=20.0 + interval),
                          server=server, instances=counters, step=step,
                          latency=LatencyHistograms(span_s=1.0, streams=histograms_of(streams)))


def written(path: Path, samples: list[IntervalSample]) -> SampleFile:
    writer = SampleWriter(path)
    for one in samples:
        writer.add(one)
    writer.close()
    return SampleFile(path)


def test_every_second_of_the_server_and_each_instance_in_windows_that_keep_the_counters(tmp_path):
    samples = [sample(i, "warmup" if i < 4 else "measure") for i in range(40)]
    back = list(written(tmp_path / SAMPLES_DB, samples))
    assert [s.interval for s in back] == list(range(40))
    assert [s.server for s in back] == [s.server for s in samples]  # the server's every second, exactly
    assert [s.summary for s in back] == [s.summary for s in samples]
    assert back[9].time_utc == datetime(2026, 11, 22, 10, 0, 9, tzinfo=UTC) and back[9].host.cpu_percent == 29.0
    windows = [(s.interval, s.phase, s.instances["Instance 2"].span_s) for s in back if s.instances]
    # 4 s of warm-up, then windows at whole multiples of 15 s; none spans the start of the measured time
    assert windows == [(3, "warmup", 4.0), (14, "measure", 11.0), (29, "measure", 15.0), (39, "measure", 10.0)]
    for name in ("Instance 1", "Instance 2", "Instance 3"):  # counted, histograms and errors by kind included
        kept = added(s.instances[name] for s in back if s.instances)
        every = added(s.instances[name] for s in samples)
        assert kept == every
        assert kept.errors[0].count == 1 and kept.errors[0].first.kind is ErrorKind.CHECKSUM
    second = [s.instance_figures() for s in back if s.instances][1][1]
    assert second.name == "Instance 2" and second.span_s == 11.0
    assert second.db_read_max_latency_ms == pytest.approx((2.0 + 1.4) * 3)  # the window's slowest read
    assert second.db_cache_hit_ratio == pytest.approx(2 / 3)  # hits over references, not a mean of ratios


def test_the_servers_latency_histograms_per_window_add_up_to_exact_percentiles(tmp_path):
    samples = [sample(i, "warmup" if i < 4 else "measure") for i in range(40)]
    back = list(written(tmp_path / SAMPLES_DB, samples))
    windows = [(s.interval, s.latency.span_s) for s in back if s.latency is not None]
    assert windows == [(3, 4.0), (14, 11.0), (29, 15.0), (39, 10.0)]  # with the instances' windows
    every = LatencySum()
    for one in samples[4:]:
        every.add(one.latency)
    kept = LatencySum()
    for one in back[4:]:
        if one.latency is not None:
            kept.add(one.latency)
    assert kept.histograms() == every.histograms()  # bucket for bucket: percentiles over the measured time are exact
    assert percentiles_ms(kept.streams["db_read"]) == percentiles_ms(every.streams["db_read"])
    assert (tmp_path / SAMPLES_DB).stat().st_size < 64 * 1024


def test_a_histogram_packs_small_and_unpacks_exactly():
    counts = {bucket_index(value * 1000): 1 + value % 7 for value in range(50, 40_000, 37)}
    blob = packed(counts)
    assert to_sparse(unpacked(blob)) == to_sparse(counts)
    assert len(blob) < 6 * len(counts)  # a few bytes a bucket, where the integers alone are 16
    assert to_sparse(unpacked(packed({}))) == {}


def test_a_sweep_step_starts_a_new_window(tmp_path):
    samples = [sample(i, step=0 if i < 5 else 1) for i in range(9)]
    back = list(written(tmp_path / SAMPLES_DB, samples))
    assert [(s.interval, s.step, s.instances["Instance 1"].span_s) for s in back if s.instances] == [(4, 0, 5.0), (8, 1, 4.0)]


def test_columns_read_without_the_samples(tmp_path):
    file = written(tmp_path / SAMPLES_DB, [sample(i) for i in range(20)])
    columns = file.columns("elapsed_s", "transactional_iops", "step")
    assert columns["elapsed_s"] == [i + 1.0 for i in range(20)]
    assert columns["transactional_iops"] == [60.0 + 3 * i for i in range(20)]
    figures = file.columns(*(name for name in Figures.model_fields))  # made in SQL as the samples make them
    assert [dict(zip(figures, values, strict=True)) for values in zip(*figures.values(), strict=True)] == \
        [s.summary.model_dump() for s in file]
    assert columns["step"] == [None] * 20 and len(file) == 20


def test_a_killed_run_keeps_every_sample_and_the_window_under_way(tmp_path):
    path = tmp_path / SAMPLES_DB
    script = f"""
import os
from pathlib import Path
from engine.results.sample_file import SampleWriter
from tests.engine.test_sample_file import sample
writer = SampleWriter(Path({str(path)!r}), commit_s=0)  # every sample, as in a run in real time
for i in range(22):
    writer.add(sample(i))
os._exit(9)  # killed: no close
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[2], timeout=60)
    assert done.returncode == 9
    back = list(read_samples(tmp_path))
    assert len(back) == 22
    assert [s.instances["Instance 1"].span_s for s in back if s.instances] == [15.0, 7.0]
    assert [s.latency.span_s for s in back if s.latency is not None] == [15.0, 7.0]  # its histograms too
    assert not path.with_name(SAMPLES_DB + "-wal").exists() or path.with_name(SAMPLES_DB + "-wal").stat().st_size == 0


def test_a_foreign_database_is_not_read_as_samples(tmp_path):
    foreign = tmp_path / SAMPLES_DB
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE server (x)")
    assert not is_sample_file(foreign) and is_sample_file(tmp_path / "missing") is False
    with pytest.raises(ValueError, match="is not a Jetwise samples file"):
        read_samples(tmp_path)


def test_a_file_made_a_moment_ago_without_its_tables_yet_reads_as_no_samples(tmp_path):
    """A reader that comes as the writer starts (the header set, the tables not yet) sees none, not an error."""
    from engine.results.sample_file import APPLICATION_ID

    path = tmp_path / SAMPLES_DB
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute("CREATE TABLE other (x)")  # the file exists, as Jetwise's, with no samples table
        db.commit()
    samples = SampleFile(path)
    assert len(samples) == 0 and list(samples) == []


def test_a_file_of_the_format_before_counters_reads_as_counters_as_far_as_its_figures_tell(tmp_path):
    """Format 3 kept figures in ten-thousandths and the server's histograms in a table of their own."""
    from engine.results.sample_file import APPLICATION_ID

    path = tmp_path / SAMPLES_DB
    figures = list(Figures.model_fields)
    head = ["interval", "phase", "time_utc", "elapsed_s", "duration_s", "remaining_s", "cpu_percent",
            "available_memory_mb", "step", "threads", "sluggish_sessions"]
    typical = bucket_index(2_000_000)
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute("PRAGMA user_version = 3")
        db.execute("CREATE TABLE names (instance INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        db.execute(f"CREATE TABLE server ({', '.join(head + figures)}, PRIMARY KEY (interval)) WITHOUT ROWID")
        db.execute(f"CREATE TABLE instances (window, instance, first_interval, last_interval, phase, step, span_s, "
                   f"{', '.join(figures)}, PRIMARY KEY (window, instance)) WITHOUT ROWID")
        db.execute("CREATE TABLE latency (window INTEGER PRIMARY KEY, last_interval INTEGER NOT NULL, span_s REAL "
                   "NOT NULL, db_read BLOB, db_write BLOB, log_write BLOB, bdm_read BLOB, log_replication_read BLOB, "
                   "log_read BLOB)")
        db.execute("INSERT INTO names VALUES (0, 'Instance 1')")
        row = {name: 0 for name in figures} | {"db_reads_per_s": 1_000_000, "transactional_iops": 1_000_000,
                                                "db_read_avg_latency_ms": 20_000, "db_read_avg_bytes": 327_680_000,
                                                "db_cache_hit_ratio": 2_500}
        for interval in range(2):
            db.execute(f"INSERT INTO server VALUES ({', '.join('?' * (len(head) + len(figures)))})",
                       [interval, 1, 1.7e9 + interval, interval + 1.0, 1.0, 0.0, 20.0, 4096.0, None, None, None,
                        *row.values()])
        db.execute(f"INSERT INTO instances VALUES ({', '.join('?' * (7 + len(figures)))})",
                   [0, 0, 0, 1, 1, None, 2.0, *row.values()])
        db.execute("INSERT INTO latency VALUES (0, 1, 2.0, ?, NULL, NULL, NULL, NULL, NULL)", (packed({typical: 200}),))
        db.commit()
    back = list(SampleFile(path))
    assert [s.summary.db_reads_per_s for s in back] == [100.0, 100.0]
    assert back[0].server.streams["db_read"].count == 100 and back[0].server.streams["db_read"].sum_ns == 200_000_000
    instance = back[1].instance_figures()[0]
    assert instance.span_s == 2.0 and instance.db_reads_per_s == 100.0 and instance.db_cache_hit_ratio == 0.25
    assert back[1].latency is not None and back[1].latency.streams == {"db_read": {typical: 200}}
    assert SampleFile(path).columns("transactional_iops") == {"transactional_iops": [100.0, 100.0]}
