"""The measurement pipeline every run goes through, whatever feeds it intervals.

An interval source (the worker pool on real files, or the storage model in virtual
time) hands each interval's merged counters to `Measurement.add`. The measurement
decides warm-up and settling, keeps the measured window's totals, emits the interval
as an `IntervalSample`, and at the end judges the totals and builds the `RunResult`.
A run that crashed before its end is rebuilt through the same path from its samples
(`rebuild_result`), so every result, finished or not, has one constructor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.model.config import TestConfig
from engine.protocol import EmitFn, IntervalEvent
from engine.results.document import build_result
from engine.results.figures import interval_figures
from engine.results.schema import (
    Figures,
    HostFigures,
    HostInfo,
    InstanceFigures,
    IntervalSample,
    Outcome,
    RunKind,
    RunResult,
    RunTimes,
    Sweep,
)
from engine.results.verdict import Verdict, judge
from engine.run.settling import MeasureWindow, SettleRule, interval_counts
from engine.run.steps import SweepSteps, at_load, host_bound
from engine.run.sweep import Load, SweepPlan
from engine.workload.stats import CACHE_HITS, DB_READ, PAGE_FAULT_STALLS, STREAMS, InstanceInterval, StreamStats, split_totals

LogFn = Callable[[str, str], None]


@dataclass
class RunEnd:
    """How a source's run ended, and the facts the result needs beside the totals."""

    measured_s: float
    aborted_reason: str | None = None
    failures: list[str] = field(default_factory=list)
    host: HostInfo = field(default_factory=HostInfo)
    times: RunTimes = field(default_factory=RunTimes)
    unbuffered_io: bool = True
    io_detail: str = ""
    notes: list[str] = field(default_factory=list)


class Measurement:
    """Intervals in; samples, settling, totals, the verdict and the result out."""

    def __init__(
        self, config: TestConfig, settle: SettleRule | None, emit: EmitFn, log: LogFn, *, sweep: SweepPlan | None = None
    ) -> None:
        self.config = config
        self._emit = emit
        self._log = log
        self.names = [config.instance_name(i) for i in range(config.database_count)]
        self.totals = {name: InstanceInterval(name) for name in self.names}  # the measured window, per instance
        self.host_samples: list[HostFigures] = []
        self.steps: SweepSteps | None = None
        if sweep is None:
            self.window = MeasureWindow(*interval_counts(config), settle)
        else:  # a load sweep: its steps settle one by one, within the sweep's budget
            self.window = MeasureWindow(sweep.min_settle, sweep.budget_intervals - sweep.min_settle, sweep.settle)
            self.steps = SweepSteps(sweep, config, self.names, log)

    @property
    def load(self) -> Load | None:
        """The load a sweep asks for now (None: the configuration's, for the whole run)."""
        return self.steps.load if self.steps is not None else None

    @property
    def warmup_intervals(self) -> int:
        return self.window.warmup_intervals

    @property
    def total_intervals(self) -> int:
        return self.window.total_intervals

    def add(
        self,
        index: int,
        parts: Mapping[str, InstanceInterval],
        *,
        duration_s: float,
        elapsed_s: float,
        time_utc: str | None,
        host: HostFigures,
    ) -> bool:
        """Show interval `index`; True when it settled a calibration run (its end moved earlier)."""
        rows, summary = interval_figures(parts, duration_s)
        if self.steps is not None:
            return self._add_step(index, parts, rows, summary, duration_s=duration_s, elapsed_s=elapsed_s,
                                  time_utc=time_utc, host=host)
        settled = False
        if index < self.warmup_intervals:
            message = self.window.observe(index, summary.db_read_avg_latency_ms, summary.transactional_iops)
            if message is not None:
                self._log(message, "info")
                settled = True
        phase = "measure" if index >= self.warmup_intervals else "warmup"
        self.add_late(index, parts)
        if phase == "measure":
            self.host_samples.append(host)
        total_s = self.total_intervals * self.config.sample_interval_s
        sample = IntervalSample(
            interval=index,
            phase=phase,
            time_utc=time_utc,
            elapsed_s=elapsed_s,
            duration_s=duration_s,
            remaining_s=max(0.0, total_s - elapsed_s),
            host=host,
            summary=summary,
            instances=rows,
        )
        self._emit(IntervalEvent(sample=sample))
        return settled

    def _add_step(self, index: int, parts: Mapping[str, InstanceInterval], rows: list[InstanceFigures], summary: Figures, *,
                  duration_s: float, elapsed_s: float, time_utc: str | None, host: HostFigures) -> bool:
        """A sweep's interval: its step's phase, its errors counted for the run; True when the sweep ended here."""
        steps = self.steps
        assert steps is not None
        window = self.window
        step, load = steps.current.number, steps.load
        phase = steps.observe(index, summary, parts, host, duration_s)
        for name, part in parts.items():
            self.totals[name].errors.merge(part.errors)
        if phase == "measure" and not window.decided:  # the first judged sample: the run is measuring
            window.decided = True
            window.warmup_intervals = index
        ended = steps.end_index is not None and window.total_intervals != steps.end_index
        if steps.end_index is not None:
            window.total_intervals = steps.end_index
        total_s = window.total_intervals * self.config.sample_interval_s
        self._emit(IntervalEvent(sample=IntervalSample(
            interval=index, phase=phase, time_utc=time_utc, elapsed_s=elapsed_s, duration_s=duration_s,
            remaining_s=max(0.0, total_s - elapsed_s), host=host, summary=summary, instances=rows,
            step=step, threads=load.threads, sluggish_sessions=load.sluggish,
        )))
        return ended

    def add_late(self, index: int, parts: Mapping[str, InstanceInterval]) -> None:
        """Counters of an interval (a straggler for one already shown is counted, not shown again): all of a
        measured one, only the I/O errors of a warm-up one (an error counts whenever it happens)."""
        for name, part in parts.items():
            if index < self.warmup_intervals or self.steps is not None:
                self.totals[name].errors.merge(part.errors)
            else:
                self.totals[name].merge(part)

    def run_kind(self) -> RunKind:
        config = self.config
        if self.window.settle is None and self.steps is None and config.duration_s >= config.standard_duration_s:
            return RunKind.QUALIFICATION
        return RunKind.TUNING

    def result(self, run_id: str, end: RunEnd, *, backend_name: str, simulated: bool) -> RunResult:
        """Judge the measured window and build the result document."""
        config = self.config
        totals, host_samples, measured_s = self.totals, self.host_samples, end.measured_s
        notes = list(end.notes)
        sweep = None
        if self.steps is not None:
            config, totals, host_samples, measured_s, sweep = self._judged_step(notes)
        aborted = end.aborted_reason
        if measured_s <= 0 and aborted is None and not end.failures:
            aborted = "Run aborted: nothing was measured"
        streams, cache = split_totals(totals)
        errors = {name: part.errors for name, part in self.totals.items()}
        verdict = judge(
            config, streams, measured_s, cache=cache, aborted_reason=aborted, failure_reasons=list(end.failures),
            errors=errors,
        )
        for reason in verdict.reasons:
            self._log(reason, "info" if verdict.outcome == Outcome.PASS else "warning")
        cpu = [s.cpu_percent for s in host_samples]
        bound = host_bound(host_samples)
        if bound:
            note = (f"Host-bound: the processors were {sum(cpu) / len(cpu):.0f} % busy on average while measuring, so "
                    "the engine, not the storage, may have set the pace; the advisor does not read this run as a "
                    "storage limit")
            notes.append(note)
            self._log(note, "warning")
        run_kind = self.run_kind()
        if run_kind == RunKind.TUNING:
            notes.append(
                f"A tuning run ({measured_s:,.0f} s measured): it steers the thread count; qualify the storage "
                f"with the full-length {config.test_type.value} test ({config.standard_duration_s / 3600:g} h)"
            )
        return build_result(
            run_id=run_id,
            config=config,
            verdict=verdict,
            instances=streams,
            cache=cache,
            measured_s=measured_s,
            host=end.host,
            host_samples=host_samples,
            times=end.times,
            unbuffered_io=end.unbuffered_io,
            io_detail=end.io_detail,
            backend_name=backend_name,
            simulated=simulated,
            notes=notes,
            run_kind=run_kind,
            host_bound=bound,
            errors=errors,
        ).model_copy(update={"sweep": sweep})

    def _judged_step(
        self, notes: list[str]
    ) -> tuple[TestConfig, dict[str, InstanceInterval], list[HostFigures], float, Sweep]:
        """A sweep's verdict judges one step's window, at that step's setting; the steps go in the result."""
        steps = self.steps
        assert steps is not None
        judged = steps.judged()
        record = Sweep(steps=list(steps.steps), judged_step=judged.number if judged else None,
                       ended=steps.ended or "stopped before its end")
        count = len(steps.steps)
        notes.append(f"A load sweep of {count} step{'s' if count != 1 else ''}: {record.ended}")
        if judged is None:
            return self.config, self.totals, [], 0.0, record
        done = steps.steps[judged.number] if judged.number < count else None
        if done is None:
            why = "unfinished"
        elif done.no_reads:
            why = "it made no database reads"
        elif done.latency_ok and not done.host_bound:
            why = "the heaviest that kept every latency threshold"
        else:
            why = "no step kept every latency threshold; the lightest"
        notes.append(f"The verdict judges step {judged.number + 1} ({judged.load.words}, {why})")
        return at_load(self.config, judged.load), judged.totals, judged.hosts, judged.measured_s, record


def _stats_from(figures: Figures, stream: str, seconds: float) -> StreamStats:
    """A stream's counters as far as a sample's figures tell them (no histogram: no percentiles)."""
    stats = StreamStats()
    count = round(figures.rate(stream) * seconds)
    stats.count = count
    stats.sum_ns = int(figures.stream_value(stream, "avg_latency_ms") * 1e6 * count)
    stats.max_ns = int(figures.stream_value(stream, "max_latency_ms") * 1e6)
    stats.bytes = int(figures.stream_value(stream, "avg_bytes") * count)
    return stats


def parts_from_sample(sample: IntervalSample) -> dict[str, InstanceInterval]:
    """Each instance's counters as far as a sample tells them, to total and judge like live intervals."""
    parts = {}
    for row in sample.instances:
        part = InstanceInterval(row.name)
        for stream in STREAMS:
            stats = _stats_from(row, stream, sample.duration_s)
            if stats.count:
                part.streams[stream] = stats
        part.cache[PAGE_FAULT_STALLS] = round(row.database_page_fault_stalls_per_s * sample.duration_s)
        if row.db_cache_hit_ratio is not None:
            part.cache[CACHE_HITS] = 1 if row.db_cache_hit_ratio > 0 else 0
        parts[row.name] = part
    return parts


def merge_sample(totals: Mapping[str, InstanceInterval], sample: IntervalSample) -> None:
    """Add what a sample tells of each instance to `totals` (instances it does not name are left alone)."""
    for name, part in parts_from_sample(sample).items():
        if name in totals:
            totals[name].merge(part)


class RunningVerdict:
    """The engine's own verdict applied to the measured samples so far (the window's running verdict)."""

    def __init__(self, config: TestConfig) -> None:
        self.config = config
        self.step: int | None = None
        self._start()

    def _start(self) -> None:
        config = self.config
        self.totals = {config.instance_name(i): InstanceInterval(config.instance_name(i))
                       for i in range(config.database_count)}
        self.measured_s = 0.0

    def add(self, sample: IntervalSample) -> None:
        if sample.phase != "measure":
            return
        if sample.step != self.step:  # a sweep's next step: judged on its own, at its own setting
            self.step = sample.step
            if sample.threads is not None and sample.sluggish_sessions is not None:
                self.config = at_load(self.config, Load(sample.threads, sample.sluggish_sessions))
            self._start()
        merge_sample(self.totals, sample)
        self.measured_s += sample.duration_s

    def verdict(self) -> Verdict:
        streams, cache = split_totals(self.totals)
        return judge(self.config, streams, self.measured_s, cache=cache)


def rebuild_result(
    config: TestConfig, samples: Sequence[IntervalSample], run_id: str, reason: str, *, settle: SettleRule | None = None
) -> RunResult:
    """The aborted result of a run that ended without writing one, from the samples it recorded.

    The samples go through the same measurement as a live run; criteria are judged on
    the figures they carry (percentiles are lost, as samples keep no histograms).
    """
    measured = [s for s in samples if s.phase == "measure"]
    if measured and measured[-1].step is not None:  # a sweep: the last step measured, at its setting
        final = measured[-1]
        measured = [sample for sample in measured if sample.step == final.step]
        if final.threads is not None and final.sluggish_sessions is not None:
            config = at_load(config, Load(final.threads, final.sluggish_sessions))
    measurement = Measurement(config, settle, lambda _event: None, lambda _text, _level: None)
    for sample in measured:
        merge_sample(measurement.totals, sample)
        measurement.host_samples.append(sample.host)
    reads = any(part.streams.get(DB_READ) for part in measurement.totals.values())
    measured_s = sum(s.duration_s for s in measured)
    first = samples[0].time_utc if samples else None
    last = samples[-1].time_utc if samples else None
    end = RunEnd(
        measured_s=measured_s,
        aborted_reason=f"Run aborted: {reason}",
        times=RunTimes(test_start_utc=first, test_end_utc=last,
                       collection_start_utc=measured[0].time_utc if measured else None, collection_end_utc=last),
        notes=["Rebuilt from the samples recorded before the run stopped"
               + ("" if reads else "; none of them was measured") + "."],
    )
    return measurement.result(run_id, end, backend_name="", simulated=False)
