"""Auto-tune: short calibration runs, each judged once settled, steered by the advisor.

Every run is a normal run of the session (stored, with its own output folder); the
loop stops at the first passing setting, when the advisor shows the target is out of
reach, or after `max_runs`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.advisor import Advice, advise, judged_points
from engine.config import TestConfig
from engine.runner import EmitFn, Runner
from engine.settling import SettleRule

MakeRunner = Callable[[TestConfig, Path, EmitFn, SettleRule], Runner]
MIN_WARMUP_SAMPLES = 5


@dataclass
class TuneOutcome:
    status: str  # converged, unreachable, not converged, aborted
    runs: list[dict[str, Any]] = field(default_factory=list)
    advice: Advice | None = None
    recommendation: tuple[int, int] | None = None
    max_passing_iops: float | None = None

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    def to_dict(self) -> dict[str, Any]:
        return {
            "converged": self.converged,
            "status": self.status,
            "runs": self.runs,
            "recommendation": (
                {"threads": self.recommendation[0], "sluggish_sessions": self.recommendation[1]}
                if self.recommendation else None
            ),
            "max_passing_iops": self.max_passing_iops,
            "advice": self.advice.to_dict() if self.advice else None,
        }


def calibration_rule(config: TestConfig, calibration_s: float) -> tuple[TestConfig, SettleRule]:
    """The configuration and settling rule of one calibration run of at most `calibration_s`."""
    interval = config.sample_interval_s
    samples = max(12, int(calibration_s / interval))
    measure = max(5, min(30, samples // 4))
    window = max(5, min(10, samples // 6))
    warmup = MIN_WARMUP_SAMPLES * interval
    shaped = config.model_copy(update={"warmup_s": warmup, "duration_s": max(interval, calibration_s - warmup)})
    return TestConfig.model_validate(shaped.model_dump()), SettleRule(window=window, measure_samples=measure)


def run_summary(result: dict[str, Any]) -> dict[str, Any]:
    s = result["summary"]
    return {
        "run_id": result["run_id"],
        "threads": s["threads"],
        "sluggish_sessions": s["sluggish_sessions"],
        "achieved_transactional_iops": s["achieved_transactional_iops"],
        "db_read_avg_latency_ms": s["db_read_avg_latency_ms"],
        "log_write_avg_latency_ms": s["log_write_avg_latency_ms"],
        "verdict": s["verdict"],
        "reasons": s["reasons"],
    }


class Tuner:
    def __init__(
        self,
        config: TestConfig,
        make_runner: MakeRunner,
        output_root: Path,
        *,
        calibration_s: float = 180.0,
        max_runs: int = 8,
        history: list[dict[str, Any]] | None = None,
        progress: Callable[[str], None] | None = None,
        emit: EmitFn | None = None,
    ) -> None:
        self.config = config
        self.make_runner = make_runner
        self.output_root = output_root
        self.calibration_s = calibration_s
        self.max_runs = max_runs
        self.history = list(history or [])  # earlier results of the session
        self.progress = progress or (lambda _text: None)
        self.emit = emit or (lambda _event: None)
        self.runner: Runner | None = None
        self._stopped = False

    def stop(self) -> None:
        self._stopped = True
        if self.runner is not None:
            self.runner.request_stop("stopped by the user")

    def run(self) -> TuneOutcome:
        cpu = os.cpu_count() or 1
        results = list(self.history)
        mine: list[dict[str, Any]] = []
        advice = advise(self.config, judged_points(results), cpu)
        while advice.status in ("start", "next") and len(mine) < self.max_runs and not self._stopped:
            self.progress(
                f"Run {len(mine) + 1}: {advice.threads} thread{'s' if advice.threads != 1 else ''}, "
                f"SluggishSessions {advice.sluggish_sessions} "
                f"({advice.rationale})"
            )
            result = self._calibrate(advice.threads, advice.sluggish_sessions, len(mine) + 1)
            mine.append(result)
            s = result["summary"]
            self.progress(
                f"  achieved {s['achieved_transactional_iops']:,.1f} IOPS (target {s['target_transactional_iops']:,.1f}), "
                f"reads {s['db_read_avg_latency_ms']:.1f} ms, log writes {s['log_write_avg_latency_ms']:.2f} ms: "
                f"{s['verdict'].upper()}"
            )
            if s["verdict"] == "aborted":
                return self._outcome("aborted", mine, advice)
            results.append(result)
            advice = advise(self.config, judged_points(results), cpu)
        status = {"converged": "converged", "unreachable": "unreachable"}.get(advice.status, "not converged")
        if self._stopped:
            status = "aborted"
        return self._outcome(status, mine, advice)

    def _calibrate(self, threads: int, sluggish: int, number: int) -> dict[str, Any]:
        config = self.config.model_copy(update={"thread_count": threads, "sluggish_sessions": sluggish})
        config, rule = calibration_rule(TestConfig.model_validate(config.model_dump()), self.calibration_s)
        folder = self.output_root / f"calibration-{number:02d}-t{threads}-s{sluggish}"
        self.runner = self.make_runner(config, folder, self.emit, rule)
        try:
            return self.runner.run()
        finally:
            self.runner = None

    def _outcome(self, status: str, mine: list[dict[str, Any]], advice: Advice) -> TuneOutcome:
        recommendation = (advice.threads, advice.sluggish_sessions) if advice.status in ("converged", "unreachable") else None
        if recommendation is None:
            passing = [point for point in judged_points(mine) if point.latency_passed]
            if passing:
                best = max(passing, key=lambda point: point.achieved_iops)
                recommendation = (best.threads, best.sluggish_sessions)
        return TuneOutcome(
            status, [run_summary(r) for r in mine], advice, recommendation,
            advice.max_passing_iops if advice.max_passing_iops is not None and math.isfinite(advice.max_passing_iops) else None,
        )

