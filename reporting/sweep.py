"""A load sweep in the report: its steps as rows, its curve as charts, its steps' starts on the time charts.

A sweep's steps are read as the run wrote them (`RunResult.sweep`); the report numbers them
from 1, as the run's log does. A step that was host-bound or made no database reads is not
the storage's limit, and is drawn apart from the steps that kept or broke the thresholds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.model.config import TestConfig
from engine.results.sample_read import Samples
from engine.results.sweep_schema import Sweep, SweepStep
from engine.run.steps import as_step
from engine.run.sweep import measured_bracket
from engine.tuning.advisor import Advice
from reporting import palette
from reporting.charts import Level, Line, Mark, Span, line_chart

LOAD_AXIS = "effective load (threads ÷ SluggishSessions)"
CHOSEN = {  # advice that names a setting read from the session's runs, and what stands behind it
    "next": "the session's next run confirms it",
    "converged": "a run at it passed",
    "unreachable": "the most this storage carried within the thresholds",
}
KINDS = {  # each kind of step: its name in the legend, colour, marker, and the marker's meaning in words
    "kept": ("kept the thresholds", palette.PASS, "circle", "dots kept every threshold"),
    "broke": ("broke a threshold", palette.FAIL, "cross", "crosses broke a threshold"),
    "aside": ("host-bound or no reads", palette.ABORTED, "square",
              "hollow squares broke a threshold host-bound or made no reads (not the storage's limit)"),
}


def _kind(step: SweepStep) -> str:
    """kept, broke, or aside (no reads, or host-bound and broke a threshold: not a point of the storage's curve); a
    host-bound step that kept the thresholds is kept: the storage carried at least its IOPS."""
    if not step.tells:
        return "aside"
    return "kept" if step.latency_ok else "broke"


def outcome(step: SweepStep) -> tuple[str, str]:
    """What came of a step, in a few words, and the detail that goes on a line of its own ("" when none)."""
    details = []
    if step.no_reads:
        words = "no database reads"
        details.append("the database cache held the database: not read as a storage limit")
    elif step.host_bound:
        words = "host-bound"
        details.append("the processors were saturated: " + (
            "it kept the thresholds, so the storage carried at least this" if step.latency_ok
            else f"not read as a storage limit; it broke {step.broke_words or 'a latency threshold'}"))
    elif step.latency_ok:
        words = "kept the thresholds"
    else:
        words = "broke a threshold"
        details.append(step.broke_words)
    if not step.settled:
        details.append("judged before its latency and IOPS settled")
    return words, "; ".join(d for d in details if d)


def _setting(threads: int, sluggish: int) -> str:
    return f"{threads}÷{sluggish}"


@dataclass(frozen=True)
class StepRow:
    """A step of the sweep in the table, numbered from 1, with what came of it."""

    step: SweepStep
    number: int
    load: float
    outcome: str
    detail: str
    kind: str  # kept, broke or aside (`KINDS`)
    judged: bool


@dataclass(frozen=True)
class SweepModel:
    """What the report's Load Sweep section shows of a sweep."""

    sweep_rows: list[StepRow]
    sweep_key: str
    judged_step: SweepStep | None
    bracket: tuple[SweepStep, SweepStep] | None
    chosen: Advice | None
    chosen_words: dict[str, str]


def sweep_model(sweep: Sweep | None, advice: Advice | None) -> SweepModel | None:
    """The report's Load Sweep section; for a run at one setting, none."""
    if sweep is None:
        return None
    return SweepModel(step_rows(sweep), chart_key(sweep), judged(sweep), bracket(sweep), chosen(advice), CHOSEN)


def step_rows(sweep: Sweep) -> list[StepRow]:
    """The table's rows, in the order the sweep ran them."""
    return [StepRow(s, s.step + 1, s.effective_load, words, detail, _kind(s), s.step == sweep.judged_step)
            for s in sweep.steps for words, detail in [outcome(s)]]


def chart_key(sweep: Sweep) -> str:
    """What the charts' markers mean, for the kinds of step this sweep had."""
    kinds = {_kind(s) for s in sweep.steps}
    return ", ".join(words for kind, (*_drawn, words) in KINDS.items() if kind in kinds)


def judged(sweep: Sweep) -> SweepStep | None:
    return next((s for s in sweep.steps if s.step == sweep.judged_step), None)


def bracket(sweep: Sweep) -> tuple[SweepStep, SweepStep] | None:
    """The heaviest step that kept the thresholds and the lightest heavier one that broke them: the limit lies between
    (`engine.run.sweep.measured_bracket`)."""
    by_load = {as_step(s).load: s for s in sweep.steps}
    found = measured_bracket([as_step(s) for s in sweep.steps])
    return None if found is None else (by_load[found[0].load], by_load[found[1].load])


def chosen(advice: Advice | None) -> Advice | None:
    """The session's advice when it names a setting read from its runs (not a first guess, not "fix the storage")."""
    return advice if advice is not None and advice.status in CHOSEN else None


def sweep_charts(sweep: Sweep, config: TestConfig, advice: Advice | None) -> dict[str, str]:
    """The sweep's curve: read latency and transactional IOPS against the load, each step marked by its outcome."""
    steps = sorted(sweep.steps, key=lambda s: s.effective_load)
    if not steps:
        return {}
    marks, spans = [], []
    limits = bracket(sweep)
    if limits is not None:
        spans.append(Span(limits[0].effective_load, limits[1].effective_load, "latency limit lies here"))
    picked = chosen(advice)
    if picked is not None:
        marks.append(Mark(picked.threads / max(1, picked.sluggish_sessions),
                          f"advisor: {_setting(picked.threads, picked.sluggish_sessions)}", "#333", dashed=False))
    read_limit = config.active_thresholds.db_read_avg_latency_ms
    target = config.test_target_iops  # the summed steps' across servers
    return {
        "sweep_latency": line_chart(
            "Load sweep: database read latency against effective load", "ms",
            _points(steps, lambda s: s.db_read_avg_latency_ms),
            [Level(read_limit, f"limit {read_limit:g} ms", palette.LIMIT)],
            marks=marks, spans=spans, x_label=LOAD_AXIS, x_words=_load_words,
        ),
        "sweep_iops": line_chart(
            "Load sweep: transactional IOPS against effective load", "IOPS",
            _points(steps, lambda s: s.transactional_iops),
            target_levels(config, f"target {target:,.0f}"),
            marks=marks, spans=spans, x_label=LOAD_AXIS, x_words=_load_words,
        ),
    }


def target_levels(config: TestConfig, words: str) -> list[Level]:
    """The target line of an IOPS chart: the whole test's (every server's together, as its IOPS are summed across
    servers); none in the disk throughput scenario, which has no target."""
    return [] if config.seeks_maximum else [Level(config.test_target_iops, words, palette.TARGET)]  # across servers: all of theirs


def _load_words(load: float) -> str:
    return f"{load:.2f}"


def _points(steps: list[SweepStep], value: Callable[[SweepStep], float]) -> list[Line]:
    """A thin line through every step in load order, then each outcome's steps as markers of their own shape."""
    loads = [s.effective_load for s in steps]
    lines = [Line("", loads, [value(s) for s in steps], "#9e9e9e")]
    for kind, (label, colour, shape, _words) in KINDS.items():
        chosen_steps = [s for s in steps if _kind(s) == kind]
        if chosen_steps:
            lines.append(Line(label, [s.effective_load for s in chosen_steps], [value(s) for s in chosen_steps], colour,
                              markers=True, shape=shape, joined=False))
    return lines


def step_marks(sweep: Sweep | None, samples: Samples) -> list[Mark]:
    """Where each step starts on the time charts (the start of its first interval), labelled threads÷SluggishSessions."""
    if sweep is None:
        return []
    columns = samples.columns("interval", "elapsed_s", "duration_s")
    starts = {interval: elapsed - duration for interval, elapsed, duration
              in zip(columns["interval"], columns["elapsed_s"], columns["duration_s"], strict=True)}
    return [Mark(starts[s.first_interval], _setting(s.threads, s.sluggish_sessions))
            for s in sweep.steps if s.first_interval in starts]
