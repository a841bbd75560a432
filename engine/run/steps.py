"""A load sweep as its intervals come: each step settles, is judged, and the schedule picks the next load.

Every step starts with a fresh steady-state detector (`engine.run.settling`): its first
samples settle (the workers apply a new load from each thread's next transaction, so the
first sample of a step also holds the tail of the last), then `measure_samples` are judged
against the thresholds as a run at that setting would be. The step's record keeps the
figures the advisor reads: transactional IOPS, database read and log write latency
(average and maximum, of the worst instance), page-fault stalls and host CPU. A step with
the host's processors saturated is marked host-bound: not a storage limit, and when it kept the
thresholds a lower bound of what the storage carries.

A sweep in lockstep with other servers' (`engine.run.gate.SweepLead`) settles each step for a fixed number of
samples, judges the same number as alone, says its record to the lead, and runs that load until the lead's word:
the next load and the sample it starts at, or the end. The lead chooses from every server's records (`next_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.model.config import TestConfig
from engine.results.counters import stream_figures
from engine.results.host_schema import HostFigures
from engine.results.maxima import HighestAverages
from engine.results.sample_schema import Figures, SamplePhase
from engine.results.sweep_schema import SweepEnd, SweepStep
from engine.results.verdict import ACTIVITY_CRITERIA, CACHE_HIT_CRITERION, STORAGE_SHARE_CRITERION, judge
from engine.run.gate import SweepLead
from engine.run.settling import MeasureWindow, SettleRule, drift
from engine.run.sweep import Load, Step, Sweep, SweepPlan
from engine.workload.stats import PAGE_FAULT_STALLS, InstanceInterval, split_totals

HOST_BOUND_CPU_PERCENT = 90.0  # average host CPU while measuring at or above this: the host set the pace

LogFn = Callable[[str, str], None]


def at_load(config: TestConfig, load: Load) -> TestConfig:
    """`config` at another thread count and SluggishSessions (for judging and reporting a step)."""
    return config.at_setting(load.threads, load.sluggish)


def host_bound(hosts: list[HostFigures]) -> bool:
    return bool(hosts) and sum(h.cpu_percent for h in hosts) / len(hosts) >= HOST_BOUND_CPU_PERCENT


@dataclass
class StepWindow:
    """The step under way: its load, where it began, its settling and its judged totals."""

    number: int
    load: Load
    first: int
    window: MeasureWindow
    totals: dict[str, InstanceInterval]
    highest: HighestAverages
    hosts: list[HostFigures] = field(default_factory=list)
    measured_s: float = 0.0
    settled: bool = False
    recent: list[tuple[float, float]] = field(default_factory=list)  # in lockstep: its settling samples' latency, IOPS


class SweepSteps:
    """The steps of one sweep run; `observe` takes each interval in order and says its phase."""

    def __init__(self, plan: SweepPlan, config: TestConfig, names: list[str], log: LogFn, lead: SweepLead | None = None) -> None:
        self.plan = plan
        self.config = config
        self.names = names
        self._log = log
        self.lead = lead
        self._waiting = False  # in lockstep: the step is measured, and its load runs until the lead's word
        self.schedule = Sweep(plan.loads, plan.start, plan.max_steps)
        self.steps: list[SweepStep] = []
        self.windows: list[StepWindow] = []  # every step begun, the last possibly unfinished
        self.end_index: int | None = None  # the run's last interval + 1, once the sweep has ended
        self.ended: SweepEnd | None = None
        first = self.schedule.next_load([])
        assert first is not None
        self._begin(first, 0)

    @property
    def awaiting(self) -> bool:
        """In lockstep: a step is measured and the lead's word for the next has not come yet."""
        return self._waiting and self.lead is not None and self.lead.told(len(self.windows)) is None

    @property
    def current(self) -> StepWindow:
        return self.windows[-1]

    @property
    def load(self) -> Load:
        return self.current.load

    def _begin(self, load: Load, index: int) -> None:
        plan = self.plan
        number = len(self.windows)
        settle = plan.warmup if number == 0 else plan.min_settle
        limit = plan.step_limit + (plan.warmup if number == 0 else 0)
        if self.lead is None:
            window = MeasureWindow(settle, limit - settle, plan.settle)
        else:  # every server settles as long and judges the same samples
            window = MeasureWindow(settle, plan.settle.measure_samples)
        self.windows.append(StepWindow(number, load, index, window, {n: InstanceInterval(n) for n in self.names},
                                       HighestAverages.of(self.config)))
        self._log(f"Step {number + 1}: {load.threads} threads, SluggishSessions {load.sluggish} "
                  f"(effective load {load.effective:.2f})", "info")

    def observe(self, index: int, summary: Figures, parts: Mapping[str, InstanceInterval], host: HostFigures,
                duration_s: float) -> SamplePhase:
        """Take interval `index`; returns its phase ("warmup" while the step settles, "measure" when judged)."""
        step = self.current
        if self.end_index is not None:
            return "warmup"
        if self._waiting:
            self._follow(index)
            return "warmup"
        offset = index - step.first
        if offset < step.window.warmup_intervals:
            message = step.window.observe(offset, summary.db_read_avg_latency_ms, summary.transactional_iops)
            if message is not None:
                step.settled = message.startswith("Latency settled")
                self._log(f"Step {step.number + 1}: {message}", "info")
            if self.lead is not None:  # in lockstep whether the fixed settling settled is said, not waited for
                step.recent.append((summary.db_read_avg_latency_ms, summary.transactional_iops))
                if offset + 1 == step.window.warmup_intervals:
                    step.settled = steady(step.recent[-self.plan.settle.window:], self.plan.settle)
            return "warmup"
        for name, part in parts.items():
            step.totals[name].merge(part)
        step.highest.add(index, parts, duration_s)
        step.hosts.append(host)
        step.measured_s += duration_s
        if offset + 1 >= step.window.total_intervals:
            self._finish(index)
        return "measure"

    def _finish(self, index: int) -> None:
        step = self.current
        record = self.record(step, index)
        self.steps.append(record)
        self._log(f"Step {step.number + 1}: {step_words(record)}", "info")
        if self.lead is not None:  # the lead chooses from every server's record; this load runs until its word
            self._waiting = True
            self.lead.measured(record)
            return
        following = next_of(self.schedule, self.steps)
        if isinstance(following, SweepEnd):
            self._end(index + 1, following)
        else:
            self._begin(following, index + 1)

    def _end(self, end_index: int, why: SweepEnd) -> None:
        self.end_index = end_index
        self.ended = why
        self._log(f"Load sweep ends: {why.words}", "info")

    def _follow(self, index: int) -> None:
        """In lockstep, after interval `index` of a measured step: the lead's word, once it came and its sample is
        next (a word that came after its sample is followed at once, and said)."""
        assert self.lead is not None
        told = self.lead.told(len(self.windows))
        if told is None or index + 1 < told.at:
            return
        if index + 1 > told.at:
            what = ("the word to end the sweep", "ends") if told.load is None else ("the word to step", "steps")
            self._log(f"Step {len(self.windows) + 1}: {what[0]} came {index + 1 - told.at} sample(s) after the sample "
                      f"it named; this server {what[1]} at sample {index + 1}", "warning")
        self._waiting = False
        if told.load is None:
            self._end(index + 1, told.end or SweepEnd(why="stopped"))
        else:
            self._begin(Load(*told.load), index + 1)

    def record(self, step: StepWindow, index: int) -> SweepStep:
        """What step `step` measured, judged as a run at its setting would be."""
        config = at_load(self.config, step.load)
        streams, cache = split_totals(step.totals)
        seconds = step.measured_s
        verdict = judge(config, streams, seconds, cache=cache, highest=step.highest.highest_ms())
        cached = (ACTIVITY_CRITERIA[0], CACHE_HIT_CRITERION, STORAGE_SHARE_CRITERION)  # the cache served the step: no word of the storage
        no_reads = any(c.name in cached and not c.passed for c in verdict.criteria)
        failures = [c for c in verdict.criteria if c.instance is not None and not c.passed and c.name not in cached]
        rows = [stream_figures(part.streams, seconds) for part in step.totals.values()]
        server = InstanceInterval("server")
        for part in step.totals.values():
            server.merge(part)
        stalls = sum(part.cache[PAGE_FAULT_STALLS] for part in step.totals.values())
        cpu = [h.cpu_percent for h in step.hosts]
        return SweepStep(
            step=step.number,
            threads=step.load.threads,
            sluggish_sessions=step.load.sluggish,
            first_interval=step.first,
            last_interval=index,
            settled=step.settled,
            measured_s=seconds,
            transactional_iops=stream_figures(server.streams, seconds)["transactional_iops"],
            db_read_avg_latency_ms=max((r["db_read_avg_latency_ms"] for r in rows), default=0.0),
            db_read_max_latency_ms=max((r["db_read_max_latency_ms"] for r in rows), default=0.0),
            log_write_avg_latency_ms=max((r["log_write_avg_latency_ms"] for r in rows), default=0.0),
            log_write_max_latency_ms=max((r["log_write_max_latency_ms"] for r in rows), default=0.0),
            page_fault_stalls_per_s=stalls / seconds if seconds > 0 else 0.0,
            cpu_percent=sum(cpu) / len(cpu) if cpu else 0.0,
            host_bound=host_bound(step.hosts),
            latency_ok=not failures,
            broke=failures[0] if failures else None,
            no_reads=no_reads,
        )

    def judged(self) -> StepWindow | None:
        """The step whose window the run's verdict judges: the heaviest that kept every latency threshold (one the
        host kept up with first), else the lightest measured; the unfinished step when none was measured to its end."""
        step = judged_step(self.steps)
        if step is not None:
            return self.windows[step.step]
        return self.current if self.current.measured_s > 0 else None


def judged_step(steps: Sequence[SweepStep]) -> SweepStep | None:
    """Of the steps measured to their end, the one a sweep's verdict judges: the heaviest that kept every latency
    threshold (one the host kept up with first), else the lightest; None when there is none."""
    kept = [s for s in steps if s.kept]
    good = [s for s in kept if not s.host_bound] or kept
    if good:
        return max(good, key=lambda s: s.effective_load)
    return min(steps, key=lambda s: s.effective_load, default=None)


def steady(samples: list[tuple[float, float]], rule: SettleRule) -> bool:
    """Whether read latency and IOPS moved less than the rule's drift over `samples` (its window of them)."""
    return len(samples) >= rule.window and all(drift([sample[i] for sample in samples]) <= rule.max_drift for i in (0, 1))


def step_words(record: SweepStep) -> str:
    """What a measured step carried and whether it kept the thresholds, as the test log says it."""
    verdict = "kept every latency threshold" if record.latency_ok else f"broke {record.broke_words}"
    if record.no_reads:
        verdict = "made no database reads (the database cache held the database): not read as a storage limit"
    return (f"{record.transactional_iops:,.1f} transactional IOPS, database reads {record.db_read_avg_latency_ms:.1f} ms, "
            f"log writes {record.log_write_avg_latency_ms:.2f} ms: {verdict}" + (_bound_words(record) if record.host_bound else ""))


def next_of(schedule: Sweep, records: list[SweepStep]) -> Load | SweepEnd:
    """The load after the steps `records` measured, or why the sweep ends there."""
    if records[-1].no_reads:  # its reads never reached the disk: the cache holds the database, whatever the load
        return SweepEnd(why="cache_held")
    steps = [as_step(s) for s in records]
    following = schedule.next_load(steps)
    if following is not None:
        return following
    low, high = schedule.bracket(steps)
    loads = [(load.threads, load.sluggish) for load in schedule.loads]
    if low is not None and high is not None and high - low <= 1:
        return SweepEnd(why="limit_found", kept=loads[low], broke=loads[high])
    if len(steps) >= schedule.max_steps:
        return SweepEnd(why="steps_spent", steps=schedule.max_steps)
    if high == 0:
        return SweepEnd(why="lightest_broke", broke=loads[0])
    if any(s.host_bound for s in steps):
        carried = max((s for s in steps if s.passes), key=lambda s: s.iops, default=None)
        if carried is None:
            return SweepEnd(why="host_saturated")
        return SweepEnd(why="host_saturated", kept=(carried.load.threads, carried.load.sluggish), carried_iops=carried.iops)
    return SweepEnd(why="all_kept", kept=loads[-1])


def as_step(record: SweepStep) -> Step:
    """A recorded step as the schedule reads it: one whose reads never reached the disk (the cache held the
    database) says nothing of the storage, as a host-bound step that broke a threshold."""
    return Step(Load(record.threads, record.sluggish_sessions), record.transactional_iops,
                record.kept, record.host_bound or record.no_reads)



def _bound_words(record: SweepStep) -> str:
    if record.kept:
        return " (host-bound: the storage carried at least this; the host drives no more)"
    return " (host-bound: not read as a storage limit)"
