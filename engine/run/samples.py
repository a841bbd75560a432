"""What a run's samples tell after the fact: the running verdict the window shows, and a killed run's result.

Both read the samples as they were recorded (`IntervalSample`): the counters the run counted, added up
through the same totals and verdict as a live run (`Measurement`), so a rebuilt result is the one the
run would have written, each instance's percentiles and I/O errors by kind included. An instance's
counters in a samples file cover a window of samples (`span_s`), not one; they are read one sample at a
time, so a day-long run is never held in memory. Samples of an older version held averages: their
counters are as far as those tell (no instance's percentiles, no kinds of error).
A Checksum or Backup test killed before its end is rebuilt with how far each database's scan
got, from the bytes its samples read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engine.io.file_names import database_sizes
from engine.model.config import TestConfig
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.results.figures import merge_streams
from engine.results.host_schema import HostInfo
from engine.results.maxima import HighestAverages
from engine.results.note_schema import RunNote
from engine.results.sample_schema import IntervalSample
from engine.results.schema import RunResult, RunTimes
from engine.results.sums import LatencySum
from engine.results.verdict import Verdict, judge
from engine.run.measurement import Measurement
from engine.run.run_end import RunEnd
from engine.run.settling import SettleRule
from engine.run.steps import at_load
from engine.run.sweep import Load
from engine.workload.errors import ErrorTally
from engine.workload.histogram import percentiles_ms
from engine.workload.scan import ScanTally
from engine.workload.stats import DB_READ, InstanceInterval, split_totals


def parts_from_sample(sample: IntervalSample) -> dict[str, InstanceInterval]:
    """Each instance's counters in a sample, to total and judge like live intervals."""
    return {name: counters.part(name) for name, counters in sample.instances.items()}


def merge_sample(totals: Mapping[str, InstanceInterval], highest: HighestAverages, sample: IntervalSample) -> None:
    """Add what a sample tells of each instance to `totals` and to the log-interval averages (instances it does not
    name are left alone)."""
    parts = {name: part for name, part in parts_from_sample(sample).items() if name in totals}
    for name, part in parts.items():
        totals[name].merge(part)
    highest.add(sample.interval, parts, sample.duration_s)


class RunningVerdict:
    """The engine's own verdict applied to the measured samples so far (the window's running verdict)."""

    def __init__(self, config: TestConfig) -> None:
        self.config = config
        self.step: int | None = None
        self._start()

    def _start(self) -> None:
        self.judged = self.config.as_one()  # across servers: every server's instances, against the summed target
        self.totals = {name: InstanceInterval(name) for name in self.config.instance_names}
        self.highest = HighestAverages.of(self.judged)
        self.measured_s = 0.0

    def add(self, sample: IntervalSample) -> None:
        if sample.phase != "measure":
            return
        if sample.step != self.step:  # a sweep's next step: judged on its own, at its own setting
            self.step = sample.step
            if sample.threads is not None and sample.sluggish_sessions is not None:
                self.config = at_load(self.config, Load(sample.threads, sample.sluggish_sessions))
            self._start()
        merge_sample(self.totals, self.highest, sample)
        self.measured_s += sample.duration_s

    def verdict(self) -> Verdict:
        streams, cache = split_totals(self.totals)
        return judge(self.judged, streams, self.measured_s, cache=cache, highest=self.highest.highest_ms())


def rebuild_result(
    config: TestConfig, samples: Iterable[IntervalSample], run_id: str, reason: str, *, settle: SettleRule | None = None,
    host: HostInfo | None = None,
) -> RunResult:
    """The aborted result of a run that ended without writing one, from the samples it recorded, on `host` (the
    machine its run folder names, when it does).

    The samples go through the same measurement as a live run, one at a time, and are judged on the counters they
    carry: the run's percentiles and errors by kind come back with them. An older version's samples held the
    server's histograms alone: its percentiles are the server's, from them.
    """
    measurement = Measurement(config, settle, lambda _event: None, lambda _text, _level: None)
    first: IntervalSample | None = None
    last: IntervalSample | None = None
    collecting: IntervalSample | None = None  # the first measured sample of what is judged
    step: int | None = None
    measured_s = 0.0
    latency = LatencySum()
    errors = {name: ErrorTally() for name in measurement.names}  # met whenever they were, warm-up included
    for sample in samples:
        first, last = first or sample, sample
        for name, counters in sample.instances.items():
            if name in errors:
                errors[name].merge(ErrorTally.of(counters.errors))
        if sample.phase != "measure":
            continue
        if collecting is None or sample.step != step:  # a sweep: the last step measured is judged, at its setting
            measurement = Measurement(config, settle, lambda _event: None, lambda _text, _level: None)
            collecting, step, measured_s = sample, sample.step, 0.0
            latency = LatencySum()
        merge_sample(measurement.totals, measurement.highest, sample)
        if sample.latency is not None:
            latency.add(sample.latency)
        measurement.host_samples.append(sample.host)
        measurement.stalls.observe(sample.summary.database_page_fault_stalls_per_s)
        measurement.spikes.observe(sample.summary, time_utc=sample.time_utc, elapsed_s=sample.elapsed_s,
                                   duration_s=sample.duration_s)
        measured_s += sample.duration_s
    if collecting is not None and collecting.threads is not None and collecting.sluggish_sessions is not None:
        config = at_load(config, Load(collecting.threads, collecting.sluggish_sessions))
        measurement.config = config
    for name, tally in errors.items():
        measurement.totals[name].errors = tally
    reads = any(part.streams.get(DB_READ) for part in measurement.totals.values())
    end = RunEnd(
        measured_s=measured_s,
        aborted_reason=f"Run aborted: {reason}",
        times=RunTimes(test_start_utc=first.time_utc if first else None, test_end_utc=last.time_utc if last else None,
                       collection_start_utc=collecting.time_utc if collecting else None,
                       collection_end_utc=last.time_utc if last else None),
        notes=[RunNote(what="rebuilt", measured=reads)],
        host=host or HostInfo(),
    )
    end.database_bytes = {name: (None, size) for name, size in database_sizes(config).items()}
    if config.recovers:
        end.notes.append(RunNote(what="replay_not_sampled"))
    if config.scans:
        end.scans = _scans_so_far(config, measurement.totals)
        damaged = sum(sum(s.errors for s in part.streams.values()) for part in measurement.totals.values())
        if damaged and not any(part.errors for part in measurement.totals.values()):  # an older version's samples
            end.notes.append(RunNote(what="damaged_counted", count=damaged))
    result = measurement.result(run_id, end, backend_name="", device="")
    if any(stats.count and any(stats.hist.values()) for part in measurement.totals.values()
           for stats in part.streams.values()):
        return result
    # An older version's samples: its instances' counters have no histograms, its windows' server ones do.
    highest = merge_streams(part.streams for part in measurement.totals.values())  # the samples' maxima
    percentiles = {name: percentiles_ms(counts, highest_ns=highest[name].max_ns if name in highest else None)
                   for name, counts in latency.streams.items() if counts}
    return result.model_copy(update={"summary": result.summary.model_copy(update={"latency_percentiles_ms": percentiles})})


def _scans_so_far(config: TestConfig, totals: Mapping[str, InstanceInterval]) -> dict[int, ScanTally]:
    """How far each database's scan got, by the bytes its samples read (the database first, then its logs)."""
    scans = {}
    for index in range(config.database_count):
        part = totals.get(config.instance_name(index))
        read = part.streams.get(DB_READ) if part is not None else None
        nbytes = read.bytes if read is not None else 0
        pages = config.database_pages * len(config.databases[index].database_paths)
        scans[index] = ScanTally(pages_total=pages, pages_seen=nbytes // PAGE_SIZE_BYTES, bytes_read=nbytes)
    return scans
