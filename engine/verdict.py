"""Pass/Fail, judged exactly and explained in words.

Per instance: average and maximum database read latency and average and maximum log
write latency against the active threshold set (Strict for Performance, Lenient for
Stress), and database page fault stalls at most one per second on average. For the server: achieved transactional IOPS against the target less the
margin, and I/O errors unless the test continues despite them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.config import TestConfig
from engine.metrics import (
    CACHE_HITS,
    DB_READ,
    DB_WRITE,
    LOG_WRITE,
    PAGE_FAULT_STALLS,
    StreamStats,
)

MAX_PAGE_FAULT_STALLS_PER_S = 1.0


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ABORTED = "aborted"


@dataclass(frozen=True)
class Criterion:
    """One judged figure: value against limit."""

    name: str
    instance: str | None  # None: the whole server
    value: float
    limit: float
    unit: str
    at_most: bool  # True: value must be <= limit; False: value must be >= limit
    passed: bool

    def __str__(self) -> str:
        where = f"{self.instance}: " if self.instance else ""
        sign = ("<=" if self.passed else ">") if self.at_most else (">=" if self.passed else "<")
        return f"{where}{self.name} {_num(self.value)}{self.unit} {sign} {_num(self.limit)}{self.unit}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "instance": self.instance,
            "value": self.value,
            "limit": self.limit,
            "unit": self.unit.strip(),
            "comparison": "<=" if self.at_most else ">=",
            "passed": self.passed,
        }


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


def _num(value: float) -> str:
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.1f}" if abs(value) >= 1 else f"{value:.2f}"


def judge(
    config: TestConfig,
    instances: Mapping[str, Mapping[str, StreamStats]],
    measured_s: float,
    *,
    cache: Mapping[str, Sequence[int]] | None = None,
    aborted_reason: str | None = None,
    failure_reasons: list[str] | None = None,
) -> Verdict:
    """Judge a run from each instance's streams over the measured window."""
    limits = config.active_thresholds
    set_name = config.threshold_set_name
    criteria: list[Criterion] = []
    reasons: list[str] = []
    instance_reasons: dict[str, list[str]] = {}
    total_transfers = 0
    total_errors = 0

    for name, streams in instances.items():
        mine: list[str] = []
        reads = streams.get(DB_READ) or StreamStats()
        writes = streams.get(DB_WRITE) or StreamStats()
        logs = streams.get(LOG_WRITE) or StreamStats()
        total_transfers += reads.count + writes.count
        total_errors += sum(s.errors for s in streams.values())
        checks = [
            ("average database read latency", reads, reads.avg_latency_ms(), limits.db_read_avg_latency_ms),
            ("maximum database read latency", reads, reads.max_latency_ms(), limits.db_read_max_latency_ms),
            ("average log write latency", logs, logs.avg_latency_ms(), limits.log_write_avg_latency_ms),
            ("maximum log write latency", logs, logs.max_latency_ms(), limits.log_write_max_latency_ms),
        ]
        for label, stats, value, limit in checks:
            if stats.count == 0:
                continue
            criterion = Criterion(label, name, value, limit, " ms", True, value <= limit)
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(f"{criterion} ({set_name})")
        if cache is not None and name in cache and measured_s > 0:
            stalls = cache[name][PAGE_FAULT_STALLS] / measured_s
            criterion = Criterion(
                "average database page fault stalls", name, stalls, MAX_PAGE_FAULT_STALLS_PER_S, "/s", True,
                stalls <= MAX_PAGE_FAULT_STALLS_PER_S,
            )
            criteria.append(criterion)
            if not criterion.passed:
                mine.append(str(criterion))
        if reads.count == 0:
            served = cache is not None and name in cache and cache[name][CACHE_HITS] > 0
            mine.append(
                f"{name}: no database reads completed in the measured window"
                + ("; the database cache holds the whole database, so test a database larger than the cache" if served else "")
            )
        if logs.count == 0 and writes.count:
            mine.append(f"{name}: no log writes completed in the measured window")
        instance_reasons[name] = mine
        reasons.extend(mine)

    achieved = total_transfers / measured_s if measured_s > 0 else 0.0
    target = config.target_transactional_iops
    floor = target * (1 - config.target_margin_percent / 100.0)
    iops = Criterion("achieved transactional IOPS", None, achieved, floor, "", False, achieved >= floor)
    criteria.append(iops)
    if not iops.passed:
        reasons.append(
            f"achieved transactional IOPS {_num(achieved)} is below the target {_num(target)} "
            f"less the {config.target_margin_percent:g} % margin ({_num(floor)})"
        )
    if total_errors and not config.continue_on_errors:
        reasons.append(f"{total_errors} I/O error(s) occurred; any error fails the test unless it continues on errors")
    reasons.extend(failure_reasons or [])

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
