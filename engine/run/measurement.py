"""The measurement pipeline every run goes through, whatever feeds it intervals.

An interval source (the worker pool on real files, or the storage model in virtual
time) hands each interval's merged counters to `Measurement.add`. The measurement
decides warm-up and settling, keeps the measured window's totals, emits the interval
as an `IntervalSample`, and at the end judges the totals and builds the `RunResult`.
A run that crashed before its end is rebuilt through the same path from its samples
(`rebuild_result`), so every result, finished or not, has one constructor.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta

from engine.model.config import TestConfig
from engine.protocol import EmitFn, IntervalEvent
from engine.results.counters import Counters, histograms_of
from engine.results.document import build_result
from engine.results.figures import interval_counters
from engine.results.host_schema import HostFigures, HostInfo
from engine.results.jetstress_log import StallSamples, cache_line, closing_lines
from engine.results.maxima import HighestAverages
from engine.results.note_schema import JudgedWhy, RunNote
from engine.results.recovery import judge_recovery, recovery_result
from engine.results.sample_schema import Figures, IntervalSample, LatencyHistograms, SamplePhase
from engine.results.scans import judge_scan, row_words, scan_result
from engine.results.schema import Outcome, RunKind, RunResult, RunTimes, ServerResult
from engine.results.servers import judged_across
from engine.results.spikes import WATCHED, LatencySpikes, spike_words
from engine.results.sweep_schema import Sweep, SweepEnd
from engine.results.verdict import judge, judged_window
from engine.run.gate import SweepLead
from engine.run.run_end import RunEnd
from engine.run.scan_plan import scan_plan
from engine.run.settling import MeasureWindow, SettleRule, interval_counts
from engine.run.steps import SweepSteps, at_load, host_bound
from engine.run.sweep import Load, SweepPlan
from engine.workload.errors import ErrorTally
from engine.workload.stats import InstanceInterval, StreamStats, split_totals

LogFn = Callable[[str, str], None]


# A scan (Checksum, Backup) lasts as long as the databases take to read, a Soft Recovery as long as its logs take to
# generate: their window is open-ended, within this bound.
SCAN_LIMIT_S = 30 * 86400.0


class Measurement:
    """Intervals in; samples, settling, totals, the verdict and the result out."""

    def __init__(
        self, config: TestConfig, settle: SettleRule | None, emit: EmitFn, log: LogFn, *, sweep: SweepPlan | None = None,
        lead: SweepLead | None = None,
    ) -> None:
        self.test_config = config  # as given: across servers, what each server runs and which servers
        self.config = config = config.as_one()  # as measured and judged: across servers, every server's instances
        self._emit = emit
        self._log = log
        self.names = self.test_config.instance_names
        self.totals = {name: InstanceInterval(name) for name in self.names}  # the measured window, per instance
        self.highest = HighestAverages.of(config)  # the judged maxima
        self.host_samples: list[HostFigures] = []
        self.stalls = StallSamples()  # the measured samples' page fault stalls, for the test log's last lines
        self.eta_s: float | None = None  # a scan's time to go, from its progress
        self.steps: SweepSteps | None = None
        self._late: dict[str, InstanceInterval] = {}  # stragglers, shown with the next interval
        limits = config.active_thresholds
        self.spikes = LatencySpikes({name: getattr(limits, name) for _, name, _ in WATCHED}, config.sample_interval_s)
        if config.open_ended:  # measured from the start to the end of its work, however long that takes
            self.window = MeasureWindow(0, math.ceil(SCAN_LIMIT_S / config.sample_interval_s))
        elif sweep is None:
            self.window = MeasureWindow(*interval_counts(config), settle)
        else:  # a load sweep: its steps settle one by one, within the sweep's budget (in lockstep: the lead's, and its
            # words, which come a few samples after each step)
            budget = sweep.budget_intervals * (2 if lead is not None else 1)
            self.window = MeasureWindow(sweep.min_settle, budget - sweep.min_settle, sweep.settle)
            self.steps = SweepSteps(sweep, config, self.names, log, lead)

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
        time_utc: datetime | None,
        host: HostFigures,
    ) -> bool:
        """Show interval `index`; True when it settled a calibration run (its end moved earlier)."""
        parts = self._with_late(parts)
        instances, server, streams = interval_counters(parts)
        summary = Figures.model_validate(server.figures(duration_s))
        latency = LatencyHistograms(span_s=duration_s, streams=histograms_of(streams))
        if self.steps is not None:
            return self._add_step(index, parts, summary, instances, server, latency, duration_s=duration_s,
                                  elapsed_s=elapsed_s, time_utc=time_utc, host=host)
        settled = False
        if index < self.warmup_intervals:
            message = self.window.observe(index, summary.db_read_avg_latency_ms, summary.transactional_iops)
            if message is not None:
                self._log(message, "info")
                settled = True
        phase: SamplePhase = "measure" if index >= self.warmup_intervals else "warmup"
        if index == max(0, self.warmup_intervals - 1):  # warm-up's end: the cache as Jetstress logs it
            held = [part.cache_pages for part in parts.values() if part.cache_pages is not None]
            if held:
                self._log(cache_line(self.config, sum(held)), "info")
        self.count_interval(index, parts, duration_s)
        if phase == "measure":
            self.host_samples.append(host)
            self.stalls.observe(summary.database_page_fault_stalls_per_s)
            self.spikes.observe(summary, time_utc=time_utc, elapsed_s=elapsed_s, duration_s=duration_s)
        total_s = self.total_intervals * self.config.sample_interval_s
        if self.config.open_ended:  # it ends when its work is done: its remaining time is the work's
            total_s = elapsed_s + (self.eta_s or 0.0)
        sample = IntervalSample(
            interval=index,
            phase=phase,
            time_utc=time_utc,
            elapsed_s=elapsed_s,
            duration_s=duration_s,
            remaining_s=max(0.0, total_s - elapsed_s),
            host=host,
            server=server,
            instances=instances,
            latency=latency,
        )
        self._emit(IntervalEvent(sample=sample))
        return settled

    def add_late(self, parts: Mapping[str, InstanceInterval]) -> None:
        """A straggler: counters of an interval already shown. They are counted, and shown, with the next interval,
        so every operation counted is in exactly one sample (a result rebuilt from the samples counts it too)."""
        for name, part in parts.items():
            self._late.setdefault(name, InstanceInterval(name)).merge(part)

    def _with_late(self, parts: Mapping[str, InstanceInterval]) -> Mapping[str, InstanceInterval]:
        if not self._late:
            return parts
        merged = dict(parts)
        for name, late in self._late.items():
            if name in merged:
                merged[name].merge(late)
            else:
                merged[name] = late
        self._late = {}
        return merged

    def add_window(self, first: int, parts: Mapping[str, InstanceInterval], seconds: Sequence[Counters], *,
                   duration_s: float, elapsed_s: float, start: datetime, host: HostFigures) -> None:
        """Intervals `first`.. at once, as a simulated device plays a long run: the server's counters each interval
        (`seconds`), each instance's over all of them (`parts`), shown with the last, as a samples file keeps them.
        Never across the start of the measured time, and not in a sweep or a calibration run."""
        span = duration_s * len(seconds)
        instances, _server, streams = interval_counters(parts, span)
        latency = LatencyHistograms(span_s=span, streams=histograms_of(streams))
        phase: SamplePhase = "measure" if first >= self.warmup_intervals else "warmup"
        self.count_interval(first + len(seconds) - 1, parts, span)
        total_s = self.total_intervals * self.config.sample_interval_s
        for offset, server in enumerate(seconds):
            at = elapsed_s + offset * duration_s
            time_utc = start + timedelta(seconds=at)
            if phase == "measure":
                summary = Figures.model_validate(server.figures(duration_s))
                self.host_samples.append(host)
                self.stalls.observe(summary.database_page_fault_stalls_per_s)
                self.spikes.observe(summary, time_utc=time_utc, elapsed_s=at, duration_s=duration_s)
            last = offset == len(seconds) - 1
            self._emit(IntervalEvent(sample=IntervalSample(
                interval=first + offset, phase=phase, time_utc=time_utc, elapsed_s=at, duration_s=duration_s,
                remaining_s=max(0.0, total_s - at), host=host, server=server, instances=instances if last else {},
                latency=latency if last else None)))

    def _add_step(self, index: int, parts: Mapping[str, InstanceInterval], summary: Figures,
                  instances: dict[str, Counters], server: Counters, latency: LatencyHistograms, *, duration_s: float,
                  elapsed_s: float, time_utc: datetime | None, host: HostFigures) -> bool:
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
            remaining_s=max(0.0, total_s - elapsed_s), host=host, server=server, instances=instances,
            step=step, threads=load.threads, sluggish_sessions=load.sluggish, latency=latency,
        )))
        return ended

    def count_interval(self, index: int, parts: Mapping[str, InstanceInterval], seconds: float) -> None:
        """Counters of interval `index` (or of the last of a window's `seconds`): all of a measured one, only the
        I/O errors of a warm-up one (an error counts whenever it happens)."""
        measured = index >= self.warmup_intervals and self.steps is None
        for name, part in parts.items():
            if measured:
                self.totals[name].merge(part)
            else:
                self.totals[name].errors.merge(part.errors)
        if measured:
            self.highest.add(index, parts, seconds)

    def run_kind(self) -> RunKind:
        config = self.config
        if config.open_ended:
            return RunKind.QUALIFICATION
        if self.window.settle is None and self.steps is None and config.duration_s >= config.standard_duration_s:
            return RunKind.QUALIFICATION
        return RunKind.TUNING

    def result(self, run_id: str, end: RunEnd, *, backend_name: str, device: str) -> RunResult:
        """Judge the measured window and build the result document."""
        config = self.config
        totals, host_samples, measured_s = self.totals, self.host_samples, end.measured_s
        notes = list(end.notes)
        sweep = None
        averages = self.highest
        if self.steps is not None:
            config, totals, host_samples, measured_s, sweep, averages = self._judged_step(notes)
        highest = averages.highest_ms()
        aborted = end.aborted_reason
        if measured_s <= 0 and aborted is None and not end.failures:
            aborted = "Run aborted: nothing was measured"
        streams, cache = split_totals(totals)
        errors = {name: part.errors for name, part in self.totals.items()}
        scan = None
        if config.scans:
            scan = end.scan or scan_result(config, end.scans, measured_s, scan_plan(config)[1])
            verdict = judge_scan(config, scan, aborted_reason=aborted, failure_reasons=list(end.failures))
            notes.append(RunNote(what="correctable"))
            for row in scan.databases:
                self._log(row_words(row), "info")
        else:
            verdict = judge(
                config, streams, measured_s, cache=cache, aborted_reason=aborted, failure_reasons=list(end.failures),
                errors=errors, highest=highest,
            )
            if self.steps is None:  # a sweep's verdict is its judged step's, on the step's own window
                verdict = judged_window(verdict, config, measured_s)
        recovery = None
        if config.recovers:
            recovery = end.recovery or recovery_result(config, end.recoveries)
            verdict = judge_recovery(recovery, verdict)
        for reason in verdict.reasons:
            self._log(reason, "info" if verdict.outcome == Outcome.PASS else "warning")
        spikes = [] if self.steps is not None else self.spikes.facts(
            verdict.criteria, config.threshold_set_name, averaged=config.thresholds.averaged_maxima)
        for spike in spikes:
            self._log(spike_words(spike), "info")
        cpu = [s.cpu_percent for s in host_samples]
        bound = host_bound(host_samples) and not config.scans
        if bound:
            note = RunNote(what="host_bound", cpu_percent=sum(cpu) / len(cpu))
            notes.append(note)
            self._log(note.words, "warning")
        run_kind = self.run_kind()
        if run_kind == RunKind.TUNING:
            notes.append(RunNote(what="tuning_run", seconds=measured_s, test_type=config.test_type.value,
                                 hours=config.standard_duration_s / 3600))
        result = build_result(
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
            device=device,
            notes=notes,
            run_kind=run_kind,
            host_bound=bound,
            errors=errors,
            highest=highest,
            stalls_per_s=self.stalls.values if self.steps is None and not config.scans else (),
        )
        summary = result.summary.model_copy(update={"spikes": spikes})
        instances = [row.model_copy(update=dict(zip(("database_bytes_initial", "database_bytes_final"),
                                                     end.database_bytes.get(row.name, (None, None)), strict=True)))
                     for row in result.instances]
        result = result.model_copy(update={"summary": summary, "sweep": sweep, "scan": scan, "recovery": recovery,
                                           "instances": instances})
        if self.test_config.servers:  # across servers: each server's share judged on its own; the test as configured
            own = self.test_config  # each server's setting: a sweep's judged step's
            if self.steps is not None:
                own = at_load(own, Load(result.summary.threads, result.summary.sluggish_sessions))
            shares = self._server_shares(own, end, streams, cache, errors, highest, measured_s, aborted, run_kind,
                                         device)
            result = judged_across(result.model_copy(update={
                "configuration": own, "servers": shares,
                "summary": result.summary.model_copy(update={"threads": own.thread_count})}))
        if not config.scans and self.steps is None:
            for line in closing_lines(result, self.stalls):
                self._log(line, "info")
        return result

    def _server_shares(
        self, test_config: TestConfig, end: RunEnd, streams: Mapping[str, Mapping[str, StreamStats]], cache: Mapping[str, Sequence[int]],
        errors: Mapping[str, ErrorTally], highest: Mapping[str, Mapping[str, float]], measured_s: float,
        aborted: str | None, run_kind: RunKind, device: str,
    ) -> list[ServerResult]:
        """Each server's share of a test across servers, judged on its own instances' counters as a test on that
        server alone is judged (its target, its databases), beside what its source said of it (`RunEnd.servers`)."""
        said = {share.host: share for share in end.servers}
        shares = []
        for host in test_config.server_names:
            config = test_config.for_server(host)
            own = test_config.of_server(host, streams)
            share = said.get(host) or ServerResult(host=host)
            if share.summary is not None or not own or measured_s <= 0:  # a scan's or a replay's: the server's own
                shares.append(share)
                continue
            own_cache, own_errors = test_config.of_server(host, cache), test_config.of_server(host, errors)
            own_highest = test_config.of_server(host, highest)
            verdict = judge(config, own, measured_s, cache=own_cache, aborted_reason=aborted, errors=own_errors,
                            highest=own_highest)
            if self.steps is None:  # a sweep's share is judged on its judged step's window, as the sweep is
                verdict = judged_window(verdict, config, measured_s)
            summary = build_result(
                run_id="", config=config, verdict=verdict, instances=own, cache=own_cache, measured_s=measured_s,
                host=HostInfo(), host_samples=[], times=RunTimes(), unbuffered_io=end.unbuffered_io, io_detail="",
                backend_name="", device=device, notes=[], run_kind=run_kind, host_bound=False, errors=own_errors,
                highest=own_highest).summary
            shares.append(share.model_copy(update={"summary": summary}))
        return shares

    def _judged_step(
        self, notes: list[RunNote]
    ) -> tuple[TestConfig, dict[str, InstanceInterval], list[HostFigures], float, Sweep, HighestAverages]:
        """A sweep's verdict judges one step's window, at that step's setting; the steps go in the result."""
        steps = self.steps
        assert steps is not None
        judged = steps.judged()
        record = Sweep(steps=list(steps.steps), judged_step=judged.number if judged else None,
                       end=steps.ended or SweepEnd(why="stopped"))
        count = len(steps.steps)
        notes.append(RunNote(what="sweep", count=count, end=record.end))
        if judged is None:
            return self.config, self.totals, [], 0.0, record, self.highest
        done = steps.steps[judged.number] if judged.number < count else None
        why: JudgedWhy
        if done is None:
            why = "unfinished"
        elif done.no_reads:
            why = "no_reads"
        elif done.latency_ok and not done.host_bound:
            why = "heaviest_kept"
        else:
            why = "lightest"
        notes.append(RunNote(what="judged_step", count=judged.number + 1,
                             load=(judged.load.threads, judged.load.sluggish), why=why))
        return at_load(self.config, judged.load), judged.totals, judged.hosts, judged.measured_s, record, judged.highest
