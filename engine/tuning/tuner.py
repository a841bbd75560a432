"""Auto-tune: a load sweep, then short calibration runs that confirm what its curve says.

The first run of a session without a sweep is a load sweep (`engine.run.sweep`): one run
whose load steps toward the latency limit from Microsoft's rule until a passing and a failing
step are neighbours. The advisor reads its curve (`engine.tuning.curve`) and an ordinary
calibration run, judged once settled, confirms the setting: a pass in two runs on storage that
can carry the target. A failed confirmation sends the next run from the same curve.

Every run is a normal run of the session (stored, with its own output folder); tuning
stops at the first passing setting, when the curve shows the target is out of reach (what the
storage carries confirmed by a run), when a run taught the advisor nothing (host-bound, no
database reads, no measured time, or failed on I/O errors: the advice's first note then says
what the storage returned), when the engineer stops it, or after `max_runs`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.model.config import TestConfig
from engine.model.derive import achieved_words
from engine.results.schema import Outcome, RunResult
from engine.results.sweep_schema import load_words
from engine.results.verdict import was_measured
from engine.run.settling import SettleRule
from engine.run.sweep import SweepPlan, plan_sweep
from engine.tuning.advisor import Advice, advise_session
from engine.tuning.curve import sweeps_of
from engine.tuning.evidence import evidence, failed_on_io_errors, others, spike_retry

MIN_WARMUP_SAMPLES = 5
MAX_RUNS = 8  # calibration runs (the load sweep among them) before auto-tune stops without an answer


@dataclass
class TuneOutcome:
    status: str  # converged, unreachable, not converged, host-bound, inconclusive, aborted, cache_held
    runs: list[dict[str, Any]] = field(default_factory=list)
    advice: Advice | None = None
    recommendation: tuple[int, int] | None = None
    max_passing_iops: float | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)  # the load sweep's steps
    swept: str = ""  # what the load sweep measured and why it ended, in words ('' without one)

    @property
    def converged(self) -> bool:
        return self.status == "converged"

    @property
    def words(self) -> str:
        """How auto-tune ended, and what its load sweep measured and why it ended, as the window's results say it."""
        return " ".join(filter(None, [f"Auto-tune: {self.status} after {len(self.runs)} run(s).", self.swept]))

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
            "advice": {**self.advice.to_dict(), "said": self.advice.said()} if self.advice else None,
            "steps": self.steps,
        }


SETTLE_SAMPLES = 5  # the fewest samples a confirmation's latency trend is taken over
ANSWERED = ("converged", "unreachable")  # the advice ends tuning before any run: the session's runs answer it


def calibration_rule(config: TestConfig, calibration_s: float) -> tuple[TestConfig, SettleRule]:
    """The configuration and settling rule of one calibration run of at most `calibration_s` (never shorter than
    `shortest_calibration_s`): once settled, it judges at least the configuration's shortest measured window."""
    interval = config.sample_interval_s
    samples = max(12, int(calibration_s / interval))
    measure = max(_least_judged(config), min(30, samples // 4))
    window = max(SETTLE_SAMPLES, min(10, samples // 6))
    warmup = MIN_WARMUP_SAMPLES * interval
    duration = max(calibration_s - warmup, (measure + window) * interval)
    shaped = config.model_copy(update={"warmup_s": warmup, "duration_s": duration})
    return TestConfig.model_validate(shaped.model_dump()), SettleRule(window=window, measure_samples=measure)


def shortest_calibration_s(config: TestConfig) -> float:
    """The shortest confirmation run: its warm-up, a settled trend and the shortest measured window judged."""
    return (MIN_WARMUP_SAMPLES + SETTLE_SAMPLES + _least_judged(config)) * config.sample_interval_s


def _least_judged(config: TestConfig) -> int:
    """The samples a confirmation judges at least: five, and the shortest measured window judged."""
    return max(5, math.ceil(config.thresholds.minimum_measured_s / config.sample_interval_s - 1e-9))


def run_summary(result: RunResult) -> dict[str, Any]:
    s = result.summary
    return {
        "run_id": result.run_id,
        "threads": s.threads,
        "sluggish_sessions": s.sluggish_sessions,
        "achieved_transactional_iops": s.achieved_transactional_iops,
        "db_read_avg_latency_ms": s.db_read_avg_latency_ms,
        "log_write_avg_latency_ms": s.log_write_avg_latency_ms,
        "verdict": s.verdict.value,
        "reasons": list(s.reasons),
        "host_bound": s.host_bound,
        "sweep": result.sweep is not None,
    }


def step_summary(result: RunResult) -> list[dict[str, Any]]:
    """A sweep run's steps, as `jetwise tune` prints them."""
    if result.sweep is None:
        return []
    return [{"run_id": result.run_id, **step.model_dump()} for step in result.sweep.steps]


RunFn = Callable[[TestConfig, int, SweepPlan | None], RunResult]


class Tuner:
    """Auto-tune as a step machine that `jetwise tune` and the window both drive.

    `next_run()` gives the configuration of the next calibration run (threads and
    SluggishSessions set by the advisor) or None when tuning is over; `record(result)`
    takes that run's result; `outcome()` says how it ended. The caller runs each
    calibration run its own way (in-process for the CLI, an engine process for the
    window), so both produce the same runs and the same recommendation. Across servers
    (`config.servers`) each server runs the setting on its share of the target. It tunes `device`
    (`RunResult.device`: '' for the storage at the configured paths, else the simulated device's
    profile): the session's runs of another device are set aside, said in the advice's notes.
    """

    def __init__(self, config: TestConfig, history: list[RunResult] | None = None, *, device: str,
                 max_runs: int = MAX_RUNS, cpu_count: int | None = None) -> None:
        self.config = config
        self.device = device
        self.max_runs = max_runs
        self.cpu_count = cpu_count or os.cpu_count() or 1
        self.history = list(history or [])  # earlier results of the session
        self.runs: list[RunResult] = []  # this tuning's calibration runs
        self.status: str | None = None  # set once tuning is over
        self.advice = advise_session(config, self.history, self.cpu_count, device=device)
        self._conclude()

    @property
    def done(self) -> bool:
        return self.status is not None

    def next_run(self) -> TestConfig | None:
        """The next calibration run's configuration, or None when tuning is over (a sweep starts at its setting)."""
        if self.done:
            return None
        moved = self.config.at_setting(self.advice.threads, self.advice.sluggish_sessions)
        return TestConfig.model_validate(moved.model_dump())

    def next_sweep(self) -> SweepPlan | None:
        """The load sweep the next run is, or None for an ordinary calibration run: the session's first tuning
        run is a sweep unless the session already has one (the curve it measured still holds on this storage)."""
        config = self.next_run()
        if config is None or sweeps_of(self._own()):
            return None
        return plan_sweep(config, self.cpu_count)

    def describe_next(self) -> str:
        a = self.advice
        sweep = self.next_sweep()
        if sweep is not None:
            origin = "as configured: no target to start from" if self.config.seeks_maximum else "Microsoft's rule"
            return (f"Run {len(self.runs) + 1}: a load sweep from {a.threads} thread{'s' if a.threads != 1 else ''}, "
                    f"SluggishSessions {a.sluggish_sessions} ({origin}), at most {sweep.max_steps} steps "
                    "toward the latency limit")
        if a.status == "host_bound":  # a session that ended host-bound, tuned again: the host may drive it now
            return (f"Run {len(self.runs) + 1}: {a.threads} thread{'s' if a.threads != 1 else ''}, SluggishSessions "
                    f"{a.sluggish_sessions} again, the setting that carried the most: the session's last run was "
                    "host-bound, and this run measures whether the host drives it now")
        return (f"Run {len(self.runs) + 1}: {a.threads} thread{'s' if a.threads != 1 else ''}, "
                f"SluggishSessions {a.sluggish_sessions} ({a.rationale})")

    def take(self, result: RunResult) -> list[str]:
        """Take the result of the run `next_run()` asked for (`record`); its lines, as every front end lists a tuning
        run: a load sweep's steps, then the run."""
        lines = [*step_lines(result), run_line(len(self.runs) + 1, result)]
        self.record(result)
        return lines

    def record(self, result: RunResult) -> None:
        """Take the result of the run `next_run()` asked for."""
        self.runs.append(result)
        if result.verdict == Outcome.ABORTED:
            self.status = "aborted"
            return
        self.advice = advise_session(self.config, [*self.history, *self.runs], self.cpu_count, device=self.device)
        if self._conclude():
            return
        if result.sweep is not None:
            if not sweeps_of([result]):
                self.status = "inconclusive"  # no step measured the storage: another sweep would not either
            return
        learned, _notes = evidence(self.config, [result], self.device)
        if not learned and spike_retry(self._own()) is None:  # a stall's setting is run again
            # The same setting would come back and teach nothing again: stop, and say why (the advice's notes).
            # Host-bound only when that is what kept it from teaching: a run that read nothing from the
            # disk (the cache held the database) saturates the CPU by its nature.
            s = result.summary
            host = s.host_bound and s.db_reads_per_s > 0 and was_measured(result) and not failed_on_io_errors(result)
            self.status = "host-bound" if host else "inconclusive"

    def _own(self) -> list[RunResult]:
        """The session's runs the advisor reads: of this device, as this configuration loads it."""
        return others(self.config, self.device, [*self.history, *self.runs])[0]

    def stop(self) -> None:
        """The engineer stopped tuning; the runs so far stay in the session."""
        if not self.done:
            self.status = "aborted"

    def _conclude(self) -> bool:
        if self.advice.status in (*ANSWERED, "cache_held"):  # cache_held: no run of the design tests the storage
            self.status = self.advice.status
        elif self.advice.status == "host_bound" and self.runs:  # the host, not the storage, ended this tuning
            self.status = "host-bound"
        elif len(self.runs) >= self.max_runs:
            self.status = "not converged"
        return self.done

    def run(self, run_one: RunFn, progress: Callable[[str], None] = lambda _text: None) -> TuneOutcome:
        """Drive the machine to its end with `run_one(config, number, sweep)` running each calibration run."""
        while (config := self.next_run()) is not None:
            progress(self.describe_next())
            result = run_one(config, len(self.runs) + 1, self.next_sweep())
            for line in self.take(result):
                progress(f"  {line}")
        return self.outcome()

    def outcome(self) -> TuneOutcome:
        advice = self.advice
        status = self.status or "not converged"
        answered = advice.status in ("converged", "unreachable", "host_bound")
        recommendation = (advice.threads, advice.sluggish_sessions) if answered else None
        if recommendation is None:
            points, _notes = evidence(self.config, self.runs, self.device)
            passing = [point for point in points if point.latency_passed]
            if passing:
                best = max(passing, key=lambda point: point.achieved_iops)
                recommendation = (best.threads, best.sluggish_sessions)
        best_iops = advice.max_passing_iops
        return TuneOutcome(status, [run_summary(r) for r in self.runs], advice, recommendation,
                           best_iops if best_iops is not None and math.isfinite(best_iops) else None,
                           [step for r in self.runs for step in step_summary(r)], sweep_words(self.runs))


def run_line(number: int, result: RunResult) -> str:
    """A tuning run in one line, as the console and the window list them: its setting, what it achieved, its verdict."""
    s = result.summary
    swept = "" if result.sweep is None else f"load sweep of {len(result.sweep.steps)} step(s), judged at "
    return (f"Run {number}: {swept}{s.threads} threads / SluggishSessions {s.sluggish_sessions} → achieved "
            f"{achieved_words(s.achieved_transactional_iops, s.target_transactional_iops)}, reads "
            f"{s.db_read_avg_latency_ms:.1f} ms, log writes {s.log_write_avg_latency_ms:.2f} ms: {s.verdict.value.upper()}"
            + (" (host-bound)" if s.host_bound else ""))


def sweep_words(runs: list[RunResult]) -> str:
    """What the load sweep among `runs` measured (its steps, the most carried within the thresholds) and why it
    ended, in two sentences; '' when none of them is a sweep."""
    sweep = next((run.sweep for run in reversed(runs) if run.sweep is not None), None)
    if sweep is None:
        return ""
    ended = sweep.ended_words or "stopped before its end"
    steps = sorted(sweep.steps, key=lambda step: step.effective_load)
    if not steps:
        return f"The load sweep measured no step; it ended: {ended}."
    light, heavy = steps[0], steps[-1]
    span = (f"at {load_words(light.threads, light.sluggish_sessions)}" if len(steps) == 1 else
            f"from {load_words(light.threads, light.sluggish_sessions)} to "
            f"{load_words(heavy.threads, heavy.sluggish_sessions)}")
    kept = [step for step in steps if step.kept]
    if kept:
        best = max(kept, key=lambda step: step.transactional_iops)
        most = (f"the most within the latency thresholds: {best.transactional_iops:,.0f} transactional IOPS at "
                f"{load_words(best.threads, best.sluggish_sessions)}" + (" (host-bound)" if best.host_bound else ""))
    else:
        most = "none kept the latency thresholds"
    return f"The load sweep measured {len(steps)} step(s) {span}; {most}. It ended: {ended}."


def step_lines(result: RunResult) -> list[str]:
    """A load sweep's steps, a line each: its setting, what it carried, whether it kept the thresholds."""
    return [f"step {step.step + 1}: {step.threads} threads / SluggishSessions {step.sluggish_sessions}: "
            f"{step.transactional_iops:,.1f} IOPS, reads {step.db_read_avg_latency_ms:.1f} ms: "
            + ("kept the thresholds" if step.latency_ok else "broke them") + (" (host-bound)" if step.host_bound else "")
            for step in (result.sweep.steps if result.sweep else [])]
