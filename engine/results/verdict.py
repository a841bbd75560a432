"""Pass/Fail, judged exactly and explained in words.

Per instance: average and maximum database read latency and average and maximum log
write latency against the active threshold set (Strict for Performance, Lenient for
Stress), the maximum being the highest average over one log interval as Jetstress's
counters give it (`engine.results.maxima`), or the slowest single I/O when the
configuration asks for that; database page fault stalls at most one per second on average, and its I/O errors:
one criterion and one reason per kind, with a count and where the first was. A test that continues despite I/O
errors goes on to its end rather than stopping at the first, and its errors fail it all the same. For the
server: achieved transactional IOPS against the target less the
margin (not in the disk throughput scenario, which has no target), and the I/O errors of every
instance together.

A run that measured less than one sample interval (it stopped on an I/O error as
measurement began) has no measured time: its throughput and latency are a fraction of a
second of a workload starting, so they are not judged; the report and the window show
those criteria as not measured (`unmeasured_criteria`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.model.config import TestConfig
from engine.model.units import sentence
from engine.model.validation import (
    CACHE_HIT_LIMIT_PERCENT,
    STORAGE_READ_SHARE_MIN_PERCENT,
    cache_design,
    cache_holds_database,
    cache_holds_words,
    larger_than_cache_words,
    storage_read_percent,
)
from engine.results.criterion_schema import Criterion, number
from engine.results.schema import Failure, InstanceResult, Outcome, RunResult
from engine.workload.errors import ErrorTally, describe, ese_error, ese_words
from engine.workload.stats import CACHE_HITS, CACHE_MISSES, DB_READ, DB_WRITE, LOG_WRITE, PAGE_FAULT_STALLS, StreamStats

MAX_PAGE_FAULT_STALLS_PER_S = 1.0
IOPS_CRITERION = "achieved transactional IOPS"
STALLS_CRITERION = "average database page fault stalls"
CACHE_HIT_CRITERION = "database cache hits"  # the share of the measured page references, against CACHE_HIT_LIMIT_PERCENT
# The design's own: the share of the transactions' reads the storage serves once the cache is warm, judged at any length
STORAGE_SHARE_CRITERION = "database reads the storage serves (by design)"
ACTIVITY_CRITERIA = ("database reads in the measured window", "log writes in the measured window")
WINDOW_CRITERION = "measured time"  # a Performance or Stress run's measured window, against the shortest judged
# Per instance: (criterion, stream, statistic, the threshold's field)
LATENCY_CRITERIA = (
    ("average database read latency", DB_READ, "avg", "db_read_avg_latency_ms"),
    ("maximum database read latency", DB_READ, "max", "db_read_max_latency_ms"),
    ("average log write latency", LOG_WRITE, "avg", "log_write_avg_latency_ms"),
    ("maximum log write latency", LOG_WRITE, "max", "log_write_max_latency_ms"),
)


LATENCY_NAMES = frozenset(label for label, *_ in LATENCY_CRITERIA)


def with_set(words: str, set_name: str) -> str:
    """A latency criterion's words as its reason says them, naming the threshold set: '… > 20.0 ms (Strict)'."""
    return f"{words} ({set_name})"


def failed(criterion: Criterion, set_name: str) -> Failure:
    """A failed criterion as a reason: its words, a latency's naming the threshold set it was judged on."""
    words = str(criterion)
    return Failure(criterion=criterion.name, instance=criterion.instance,
                   words=with_set(words, set_name) if criterion.name in LATENCY_NAMES else words)


def failure_of(criterion: Criterion, words: str) -> Failure:
    """A failed criterion as a reason said in words of its own (what the figures alone do not say)."""
    return Failure(criterion=criterion.name, instance=criterion.instance, words=words)


def maximum_basis(config: TestConfig) -> str:
    """What a maximum latency is in the run's configuration, in words."""
    if not config.thresholds.averaged_maxima:
        return "the slowest single I/O"
    return f"the highest {config.thresholds.log_interval_s:g} s average"


def maximum_note(result: RunResult) -> str:
    """How the run's maximum latencies were judged, with the slowest single I/Os beside (console, page and report)."""
    config, summary = result.configuration, result.summary
    slowest = " and ".join(
        f"the slowest single {what} took {summary.stream_value(stream, 'max_latency_ms'):,.1f} ms" if summary.rate(stream)
        else f"no {what} completed" for what, stream in (("database read", DB_READ), ("log write", LOG_WRITE)))
    if not config.thresholds.averaged_maxima:
        return (f"A maximum latency is each instance's slowest single I/O, as this test asked (--maximum-latency "
                f"single-io; Jetstress judges the highest {config.thresholds.log_interval_s:g} s average): {slowest}")
    return (f"A maximum latency is each instance's highest {config.thresholds.log_interval_s:g} s average, as Jetstress's "
            f"performance counters give it; {slowest}")


def judged_maximum_ms(config: TestConfig, row: InstanceResult, stream: str) -> float:
    """An instance's maximum latency of `stream` (db_read, log_write) as its run judged it."""
    averaged = getattr(row, f"{stream}_interval_max_latency_ms")
    if averaged is not None and config.thresholds.averaged_maxima:
        return float(averaged)
    return row.stream_value(stream, "max_latency_ms")


def has_measured_time(config: TestConfig, measured_s: float) -> bool:
    """At least one whole sample interval was measured: less is not a measurement of the storage."""
    return measured_s >= config.sample_interval_s * (1 - 1e-6)


def was_measured(result: RunResult) -> bool:
    """The run has measured time, so its IOPS and latency were judged and say something of the load."""
    return has_measured_time(result.configuration, result.summary.measured_s)


def cache_served(result: RunResult) -> bool:
    """A run of a design whose cache serves the reads (`cache_holds_database`), or a measured run that made no database
    reads or whose page references were nearly all cache hits (it failed `CACHE_HIT_CRITERION`): the database cache
    held the database, so its latency says nothing of the storage and the same setting again would measure the cache
    again."""
    if cache_holds_database(result.configuration):
        return True
    return was_measured(result) and (result.summary.db_reads_per_s <= 0 or result.summary.db_read_avg_latency_ms <= 0
                                     or cache_hit_percent(result) is not None)


def cache_hit_percent(result: RunResult) -> float | None:
    """The highest share of cache hits (%) of an instance the run failed on `CACHE_HIT_CRITERION`; None if none."""
    failed = [c.value for c in result.criteria if c.name == CACHE_HIT_CRITERION and not c.passed]
    return max(failed) if failed else None


def is_count(criterion: Criterion) -> bool:
    """A criterion on a number of things (I/O errors, reads completed): shown as a whole number."""
    return criterion.unit == "" and criterion.name != IOPS_CRITERION


@dataclass(frozen=True)
class UnmeasuredCriterion:
    """A criterion a run with no measured time was not judged on: its name, where and its limit."""

    name: str
    instance: str  # "Server", or "each instance"
    limit: float
    unit: str
    comparison: str


def unmeasured_criteria(result: RunResult) -> list[UnmeasuredCriterion]:
    """What a run with no measured time was not judged on (nothing for a measured run)."""
    if was_measured(result):
        return []
    config = result.configuration
    limits = config.active_thresholds
    rows = [UnmeasuredCriterion(name, "each instance", float(getattr(limits, threshold)), "ms", "<=")
            for name, _stream, _statistic, threshold in LATENCY_CRITERIA]
    rows.append(UnmeasuredCriterion(STALLS_CRITERION, "each instance", MAX_PAGE_FAULT_STALLS_PER_S, "/s", "<="))
    if not config.seeks_maximum:
        rows.append(UnmeasuredCriterion(IOPS_CRITERION, "Server", iops_floor(config), "", ">="))
    return rows


def judged_criteria(result: RunResult) -> list[Criterion]:
    """The criteria to show: all of a measured run's; of a run with no measured time, none on its throughput or
    latency (a result written before such runs went unjudged has them, judged on a fraction of a second)."""
    if was_measured(result):
        return list(result.criteria)
    unjudged = {row.name for row in unmeasured_criteria(result)} | set(ACTIVITY_CRITERIA)
    return [c for c in result.criteria if c.name not in unjudged]


def iops_floor(config: TestConfig) -> float:
    """The least transactional IOPS that pass: the target less the margin a run may fall short by."""
    return config.test_target_iops * (1 - config.target_margin_percent / 100.0)


@dataclass
class Verdict:
    outcome: Outcome
    criteria: list[Criterion] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    instance_outcomes: dict[str, Outcome] = field(default_factory=dict)
    instance_reasons: dict[str, list[str]] = field(default_factory=dict)

    @property
    def reasons(self) -> list[str]:
        return [failure.words for failure in self.failures]

    def __str__(self) -> str:
        head = {Outcome.PASS: "Pass", Outcome.FAIL: "Fail", Outcome.ABORTED: "Aborted"}[self.outcome]
        if not self.reasons:
            return head
        return head + ": " + "; ".join(self.reasons)


def judge(config: TestConfig, instances: Mapping[str, Mapping[str, StreamStats]], measured_s: float, *,
          cache: Mapping[str, Sequence[int]] | None = None, aborted_reason: str | None = None,
          failure_reasons: list[str] | None = None, errors: Mapping[str, ErrorTally] | None = None,
          highest: Mapping[str, Mapping[str, float]] | None) -> Verdict:
    """Judge a run from each instance's streams over the measured window and its I/O errors by kind
    (`errors`, over the whole run; without them, the streams' error counts alone). `highest` is each
    instance's highest log-interval average per stream (`HighestAverages`); without it, or when the
    configuration asks for it, a maximum is the slowest single I/O."""
    limits = config.active_thresholds
    averaged = highest is not None and config.thresholds.averaged_maxima
    set_name = config.threshold_set_name
    criteria: list[Criterion] = []
    reasons: list[Failure] = []
    instance_reasons: dict[str, list[str]] = {}
    total_transfers = 0
    total_errors = 0
    tallies = errors or {}
    continuing = config.continue_on_errors  # it ran on past its errors; they fail it all the same
    measured = has_measured_time(config, measured_s)

    for name, streams in instances.items():
        mine: list[Failure] = []
        reads = streams.get(DB_READ) or StreamStats()
        writes = streams.get(DB_WRITE) or StreamStats()
        logs = streams.get(LOG_WRITE) or StreamStats()
        total_transfers += reads.count + writes.count
        tally = tallies.get(name) or ErrorTally()
        total_errors += max(sum(s.errors for s in streams.values()), tally.total)
        for label, stream, statistic, threshold in LATENCY_CRITERIA if measured else ():
            stats = streams.get(stream) or StreamStats()
            if stats.count == 0:
                continue
            if statistic == "avg":
                value = stats.avg_latency_ms()
            elif averaged and highest is not None:
                value = highest.get(name, {}).get(stream, stats.avg_latency_ms())
            else:
                value = stats.max_latency_ms()
            criterion = make_criterion(label, name, value, getattr(limits, threshold), "ms", "<=")
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(failed(criterion, set_name))
        if cache is not None and name in cache and measured:
            stalls = cache[name][PAGE_FAULT_STALLS] / measured_s
            criterion = make_criterion(STALLS_CRITERION, name, stalls, MAX_PAGE_FAULT_STALLS_PER_S, "/s", "<=")
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(failed(criterion, set_name))
        if cache is not None and name in cache and measured and reads.count:
            references = cache[name][CACHE_HITS] + cache[name][CACHE_MISSES]
            share = 100.0 * cache[name][CACHE_HITS] / references if references else 0.0
            criterion = make_criterion(CACHE_HIT_CRITERION, name, share, CACHE_HIT_LIMIT_PERCENT, "%", "<=")
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(failure_of(criterion, _cache_held_words(config, name, share, reads.count / measured_s)))
        if reads.count == 0 and measured:
            # Every reason that fails a run has its criterion, so the table never shows only passes under a FAIL.
            criteria.append(none := make_criterion(ACTIVITY_CRITERIA[0], name, 0, 1, "", ">="))
            served = cache is not None and name in cache and cache[name][CACHE_HITS] > 0
            mine.append(failure_of(none, f"{name}: no database reads completed in the measured window" + (
                f"; the database cache holds the whole database: {larger_than_cache_words(cache_design(config))}" if served else "")))
        if logs.count == 0 and writes.count and measured:
            criteria.append(none := make_criterion(ACTIVITY_CRITERIA[1], name, 0, 1, "", ">="))
            mine.append(failure_of(none, f"{name}: no log writes completed in the measured window"))
        for group in tally.ordered():
            code, _ = ese_error(group.first.kind, group.first.unit)
            criteria.append(kind := make_criterion(f"{group.first.title}s ({ese_words(code)})", name, group.count, 0, "", "<="))
            mine.append(failure_of(kind, f"{name}: {describe(group)}"))
        instance_reasons[name] = [failure.words for failure in mine]
        reasons.extend(mine)

    if cache_holds_database(config):  # judged from the design, at any length: a short run's cache is still filling
        design = make_criterion(STORAGE_SHARE_CRITERION, None, storage_read_percent(config), STORAGE_READ_SHARE_MIN_PERCENT,
                                "%", ">=")
        criteria.append(design)
        reasons.append(failure_of(design, sentence(cache_holds_words(cache_design(config)))))
    target = config.target_transactional_iops
    floor = iops_floor(config)
    if measured and not config.seeks_maximum:  # the disk throughput scenario has no target to judge against
        achieved = total_transfers / measured_s
        iops = make_criterion(IOPS_CRITERION, None, achieved, floor, "", ">=")
        criteria.append(iops)
        if not iops.passed:
            reasons.append(failure_of(iops, f"achieved transactional IOPS {number(achieved)} is below the target "
                                            f"{number(target)} less the {config.target_margin_percent:g} % margin "
                                            f"({number(floor)})"))
    failures = list(failure_reasons or [])
    errors_fail = bool(failures) or total_errors > 0
    errors_criterion = Criterion(
        name="I/O errors" + (" (the test continued despite them)" if continuing else ""), instance=None,
        value=max(total_errors, len(failures)), limit=0, unit="", comparison="<=", passed=not errors_fail)
    criteria.append(errors_criterion)
    if total_errors and not any(tallies.values()):
        # errors known only by their streams' counts, as in a result rebuilt from an older version's samples
        reasons.append(failure_of(errors_criterion, f"{total_errors} I/O error(s) occurred; any error fails the test, "
                                                    "whether it stops there or continues despite it"))
    reasons.extend(Failure(words=words) for words in failures)
    if not measured and aborted_reason is None and failures:
        reasons.append(Failure(words=_unmeasured_words(config, measured_s)))

    instance_outcomes = {
        name: Outcome.FAIL if items else Outcome.PASS for name, items in instance_reasons.items()
    }
    if aborted_reason is not None:
        outcome = Outcome.ABORTED
        reasons.insert(0, Failure(words=aborted_reason))
        instance_outcomes = {name: Outcome.ABORTED for name in instance_outcomes}
    else:
        outcome = Outcome.FAIL if reasons else Outcome.PASS
    return Verdict(outcome, criteria, reasons, instance_outcomes, instance_reasons)


def _cache_held_words(config: TestConfig, name: str, share: float, reads_per_s: float) -> str:
    """Why a run whose page references were nearly all cache hits is not a pass of the storage, and what to change."""
    held = ("the database cache holds the whole database" if storage_read_percent(config) <= 0
            else "the database cache held nearly every page the transactions touched")
    return (f"{name}: {share:.2f} % of the measured database page references were cache hits, more than "
            f"{CACHE_HIT_LIMIT_PERCENT:g} %: {held} and the storage served only {reads_per_s:,.1f} database reads/s, "
            f"so this tested the cache, not the storage; {larger_than_cache_words(cache_design(config))}")


def judged_window(verdict: Verdict, config: TestConfig, measured_s: float) -> Verdict:
    """`verdict` of a whole run (not a sweep's step) on its measured window: a Performance or Stress run that ended
    measuring less than the shortest window judged fails, not enough measured, whatever its figures were. A stopped
    run stays aborted; a run with no measured time is said otherwise (`_unmeasured_words`)."""
    least = config.thresholds.minimum_measured_s
    if (verdict.outcome == Outcome.ABORTED or config.open_ended or not has_measured_time(config, measured_s)
            or measured_s >= least * (1 - 1e-6)):
        return verdict
    window = make_criterion(WINDOW_CRITERION, None, measured_s, least, "s", ">=")
    reason = (f"not enough measured: {measured_s:.1f} s, and a verdict needs at least {least:g} s measured (the "
              "shortest measured window judged); its figures are shown, not judged as the storage's: run it longer")
    return Verdict(Outcome.FAIL, [*verdict.criteria, window], [failure_of(window, reason), *verdict.failures],
                   verdict.instance_outcomes, verdict.instance_reasons)


def too_short(result: RunResult) -> bool:
    """The run failed its measured window: its figures are too few to judge the storage by."""
    return any(c.name == WINDOW_CRITERION and not c.passed for c in result.criteria)


def _unmeasured_words(config: TestConfig, measured_s: float) -> str:
    interval = f"{config.sample_interval_s:g} s sample interval"
    if measured_s > 0:
        when = f"it stopped {measured_s:.1f} s into its measured window, before its first {interval} ended"
    else:
        when = f"it stopped before its measured window began, so not one {interval} was measured"
    return f"IOPS and latency were not measured: {when}; they are not judged"


def worst_of_each(criteria: Iterable[Criterion]) -> dict[str, Criterion]:
    """Each criterion's worst instance, by its name: a failed one first, then the nearest its limit."""
    worst: dict[str, Criterion] = {}
    for criterion in criteria:
        held = worst.get(criterion.name)
        if held is None or (held.passed and not criterion.passed) or (
                held.passed == criterion.passed and _margin(criterion) < _margin(held)):
            worst[criterion.name] = criterion
    return worst


def _margin(criterion: Criterion) -> float:
    """How far inside its limit a criterion is, relative to the limit (negative: outside)."""
    limit = criterion.limit or 1.0
    gap = criterion.limit - criterion.value if criterion.comparison == "<=" else criterion.value - criterion.limit
    return gap / abs(limit)


def make_criterion(name: str, instance: str | None, value: float, limit: float, unit: str, comparison: str) -> Criterion:
    passed = value <= limit if comparison == "<=" else value >= limit
    return Criterion(name=name, instance=instance, value=value, limit=limit, unit=unit,
                     comparison="<=" if comparison == "<=" else ">=", passed=passed)
