"""The samples file: one compact copy of a run's samples, read back whole, by column or after a kill."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine.results.document import read_samples
from engine.results.sample_file import SAMPLES_DB, SampleFile, SampleWriter, is_sample_file
from engine.results.schema import Figures, HostFigures, InstanceFigures, IntervalSample, LatencyHistograms
from engine.results.sums import LatencySum
from engine.workload.histogram import bucket_index, packed, percentiles_ms, to_sparse, unpacked


def sample(interval: int, phase: str = "measure", instances: int = 3, step: int | None = None) -> IntervalSample:
    """Instance i reads 10 * (i + 1) + interval pages a second at 2 + interval / 10 ms."""
    rows = [InstanceFigures(name=f"Instance {i + 1}", db_reads_per_s=10.0 * (i + 1) + interval,
                            db_read_avg_latency_ms=2.0 + interval / 10, db_read_max_latency_ms=5.0 + interval,
                            db_read_avg_bytes=32768.0, transactional_iops=10.0 * (i + 1) + interval,
                            db_cache_hit_ratio=0.5, io_errors=1 if interval == 7 else 0) for i in range(instances)]
    reads = sum(r.db_reads_per_s for r in rows)
    summary = Figures(db_reads_per_s=reads, transactional_iops=reads, db_read_avg_latency_ms=2.0 + interval / 10,
                      db_read_max_latency_ms=5.0 + interval, db_read_avg_bytes=32768.0, db_cache_hit_ratio=0.5)
    # The server's reads this second: half at its average latency, half at three times it.
    typical = bucket_index(round((2.0 + interval / 10) * 1e6))
    slow = bucket_index(round((2.0 + interval / 10) * 3e6))
    latency = LatencyHistograms(span_s=1.0, streams={"db_read": {typical: round(reads) // 2, slow: round(reads) // 2}})
    return IntervalSample(interval=interval, phase=phase, time_utc=f"2026-11-22T10:00:{interval:02d}+00:00",
                          elapsed_s=interval + 1.0, duration_s=1.0, host=HostFigures(cpu_percent=20.0 + interval),
                          summary=summary, instances=rows, step=step, latency=latency)


def written(path: Path, samples: list[IntervalSample]) -> SampleFile:
    writer = SampleWriter(path)
    for one in samples:
        writer.add(one)
    writer.close()
    return SampleFile(path)


def test_every_second_of_the_server_and_each_instance_in_windows_that_keep_the_totals(tmp_path):
    samples = [sample(i, "warmup" if i < 4 else "measure") for i in range(40)]
    back = list(written(tmp_path / SAMPLES_DB, samples))
    assert [s.interval for s in back] == list(range(40))
    assert [s.summary.transactional_iops for s in back] == [s.summary.transactional_iops for s in samples]
    assert back[9].time_utc == "2026-11-22T10:00:09+00:00" and back[9].host.cpu_percent == 29.0
    windows = [(s.interval, s.phase, row.span_s) for s in back for row in s.instances if row.name == "Instance 2"]
    # 4 s of warm-up, then windows at whole multiples of 15 s; none spans the start of the measured time
    assert windows == [(3, "warmup", 4.0), (14, "measure", 11.0), (29, "measure", 15.0), (39, "measure", 10.0)]
    for index in range(3):
        kept = sum(row.db_reads_per_s * row.span_s for s in back for row in s.instances if row.name == f"Instance {index + 1}")
        assert kept == pytest.approx(sum(s.instances[index].db_reads_per_s for s in samples))
    second = [row for s in back for row in s.instances if row.name == "Instance 2"][1]
    assert second.db_read_max_latency_ms == 5.0 + 14  # the window's highest
    assert second.db_read_avg_latency_ms == pytest.approx(
        sum((20 + i) * (2 + i / 10) for i in range(4, 15)) / sum(20 + i for i in range(4, 15)), abs=1e-4)  # by the reads
    assert sum(row.io_errors for s in back for row in s.instances) == 3  # interval 7, every instance


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
    assert [(s.interval, s.step, s.instances[0].span_s) for s in back if s.instances] == [(4, 0, 5.0), (8, 1, 4.0)]


def test_columns_read_without_the_samples(tmp_path):
    file = written(tmp_path / SAMPLES_DB, [sample(i) for i in range(20)])
    columns = file.columns("elapsed_s", "transactional_iops", "step")
    assert columns["elapsed_s"] == [i + 1.0 for i in range(20)]
    assert columns["transactional_iops"] == [60.0 + 3 * i for i in range(20)]
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
    assert [row.span_s for s in back for row in s.instances if row.name == "Instance 1"] == [15.0, 7.0]
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
