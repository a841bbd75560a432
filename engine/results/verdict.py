"""Pass/Fail, judged exactly and explained in words.

Per instance: average and maximum database read latency and average and maximum log
write latency against the active threshold set (Strict for Performance, Lenient for
Stress), database page fault stalls at most one per second on average, and its I/O errors:
one criterion and one reason per kind, with a count and where the first was, unless the test
continues despite them. For the server: achieved transactional IOPS against the target less the
margin, and the I/O errors of every instance together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.model.config import TestConfig
from engine.results.schema import Criterion, Outcome, number
from engine.workload.errors import ErrorTally, describe, ese_error
from engine.workload.stats import CACHE_HITS, DB_READ, DB_WRITE, LOG_WRITE, PAGE_FAULT_STALLS, StreamStats

MAX_PAGE_FAULT_STALLS_PER_S = 1.0


@dataclass
class Verdict:
    outcome: Outcome
    criteria: list[Criterion] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    instance_outcomes: dict[str, Outcome] = field(default_factory=dict)
    instance_reasons: dict[str, list[str]] = field(default_factory=dict)

    def __str__(self) -> str:
        head = {Outcome.PASS: "Pass", Outcome.FAIL: "Fail", Outcome.ABORTED: "Aborted"}[self.outcome]
        if not self.reasons:
            return head
        return head + ": " + "; ".join(self.reasons)


def judge(
    config: TestConfig,
    instances: Mapping[str, Mapping[str, StreamStats]],
    measured_s: float,
    *,
    cache: Mapping[str, Sequence[int]] | None = None,
    aborted_reason: str | None = None,
    failure_reasons: list[str] | None = None,
    errors: Mapping[str, ErrorTally] | None = None,
) -> Verdict:
    """Judge a run from each instance's streams over the measured window and its I/O errors by kind
    (`errors`, over the whole run; without them, the streams' error counts alone)."""
    limits = config.active_thresholds
    set_name = config.threshold_set_name
    criteria: list[Criterion] = []
    reasons: list[str] = []
    instance_reasons: dict[str, list[str]] = {}
    total_transfers = 0
    total_errors = 0
    tallies = errors or {}
    continuing = config.continue_on_errors

    for name, streams in instances.items():
        mine: list[str] = []
        reads = streams.get(DB_READ) or StreamStats()
        writes = streams.get(DB_WRITE) or StreamStats()
        logs = streams.get(LOG_WRITE) or StreamStats()
        total_transfers += reads.count + writes.count
        tally = tallies.get(name) or ErrorTally()
        total_errors += max(sum(s.errors for s in streams.values()), tally.total)
        checks = [
            ("average database read latency", reads, reads.avg_latency_ms(), limits.db_read_avg_latency_ms),
            ("maximum database read latency", reads, reads.max_latency_ms(), limits.db_read_max_latency_ms),
            ("average log write latency", logs, logs.avg_latency_ms(), limits.log_write_avg_latency_ms),
            ("maximum log write latency", logs, logs.max_latency_ms(), limits.log_write_max_latency_ms),
        ]
        for label, stats, value, limit in checks:
            if stats.count == 0:
                continue
            criterion = _criterion(label, name, value, limit, "ms", "<=")
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(f"{criterion} ({set_name})")
        if cache is not None and name in cache and measured_s > 0:
            stalls = cache[name][PAGE_FAULT_STALLS] / measured_s
            criterion = _criterion("average database page fault stalls", name, stalls, MAX_PAGE_FAULT_STALLS_PER_S, "/s", "<=")
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(str(criterion))
        if reads.count == 0 and measured_s > 0:
            # Every reason that fails a run has its criterion, so the table never shows only passes under a FAIL.
            criteria.append(_criterion("database reads in the measured window", name, 0, 1, "", ">="))
            served = cache is not None and name in cache and cache[name][CACHE_HITS] > 0
            mine.append(
                f"{name}: no database reads completed in the measured window"
                + ("; the database cache holds the whole database, so test a database larger than the cache" if served else "")
            )
        if logs.count == 0 and writes.count:
            criteria.append(_criterion("log writes in the measured window", name, 0, 1, "", ">="))
            mine.append(f"{name}: no log writes completed in the measured window")
        if not continuing:
            for group in tally.ordered():
                code, _ = ese_error(group.first.kind, group.first.unit)
                criteria.append(_criterion(f"{group.first.title}s (ESE {code})", name, group.count, 0, "", "<="))
                mine.append(f"{name}: {describe(group)}")
        instance_reasons[name] = mine
        reasons.extend(mine)

    achieved = total_transfers / measured_s if measured_s > 0 else 0.0
    target = config.target_transactional_iops
    floor = target * (1 - config.target_margin_percent / 100.0)
    iops = _criterion("achieved transactional IOPS", None, achieved, floor, "", ">=")
    criteria.append(iops)
    if not iops.passed:
        reasons.append(
            f"achieved transactional IOPS {number(achieved)} is below the target {number(target)} "
            f"less the {config.target_margin_percent:g} % margin ({number(floor)})"
        )
    failures = list(failure_reasons or [])
    errors_fail = bool(failures) or (total_errors > 0 and not continuing)
    criteria.append(
        Criterion(name="I/O errors" + (" (counted; the test continues despite them)" if continuing else ""), instance=None,
                  value=max(total_errors, len(failures)), limit=0, unit="", comparison="<=", passed=not errors_fail)
    )
    if total_errors and not continuing and not any(tallies.values()):
        # errors known only by their streams' counts, as in a result rebuilt from samples
        reasons.append(f"{total_errors} I/O error(s) occurred; any error fails the test unless it continues on errors")
    reasons.extend(failures)

    instance_outcomes = {
        name: Outcome.FAIL if items else Outcome.PASS for name, items in instance_reasons.items()
    }
    if aborted_reason is not None:
        outcome = Outcome.ABORTED
        reasons.insert(0, aborted_reason)
        instance_outcomes = {name: Outcome.ABORTED for name in instance_outcomes}
    else:
        outcome = Outcome.FAIL if reasons else Outcome.PASS
    return Verdict(outcome, criteria, reasons, instance_outcomes, instance_reasons)


def _criterion(name: str, instance: str | None, value: float, limit: float, unit: str, comparison: str) -> Criterion:
    passed = value <= limit if comparison == "<=" else value >= limit
    return Criterion(name=name, instance=instance, value=value, limit=limit, unit=unit,
                     comparison="<=" if comparison == "<=" else ">=", passed=passed)
