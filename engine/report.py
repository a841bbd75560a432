"""The printable report of a run: the Jetstress sections in their order, and what Jetstress lacks.

`load_run` finds a run by its id in the store or by its output folder; a run that
crashed before writing its result is rebuilt from its samples and marked aborted.
`report_model` gathers every figure the template shows; `render_html` renders
resources/templates/report.html.j2 with the charts as inline SVG (or as image
references, for the PDF renderer); `write_csv` exports the interval samples, one row
per interval per instance.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from engine.advisor import Advice, advise_session
from engine.charts import PALETTE, Level, Line, line_chart
from engine.config import TestConfig
from engine.measurement import rebuild_result
from engine.results import CONFIG_FILE, LOG_FILE, RESULT_FILE, read_result, read_samples
from engine.schema import Figures, IntervalSample, Outcome, RunKind, RunResult
from engine.store import RunRow, Store
from engine.version import __version__

STREAM_TITLES = {
    "db_read": "Database reads", "db_write": "Database writes", "log_write": "Log writes",
    "bdm_read": "Maintenance reads", "log_replication_read": "Log replication reads", "log_read": "Log reads",
}
CSV_COLUMNS = [
    "interval", "phase", "time_utc", "elapsed_s", "duration_s", "instance", "transactional_iops",
    "db_reads_per_s", "db_read_avg_latency_ms", "db_read_max_latency_ms", "db_read_avg_bytes",
    "db_writes_per_s", "db_write_avg_latency_ms", "db_write_avg_bytes",
    "log_writes_per_s", "log_write_avg_latency_ms", "log_write_max_latency_ms", "log_write_avg_bytes",
    "bdm_reads_per_s", "bdm_read_avg_bytes", "log_replication_reads_per_s", "log_replication_read_avg_bytes",
    "db_cache_hit_ratio", "database_page_fault_stalls_per_s", "cpu_percent", "available_memory_mb",
]


class ReportError(Exception):
    """The run cannot be found or read; the message says which and why."""


@dataclass
class RunBundle:
    result: RunResult
    samples: list[IntervalSample]
    log: list[str]
    folder: Path | None
    session: str | None = None
    session_runs: list[RunRow] = field(default_factory=list)
    session_results: list[RunResult] = field(default_factory=list)


def load_run(reference: str, store: Store | None = None) -> RunBundle:
    """A run by its id in the store, or by its output folder."""
    folder = Path(reference)
    if folder.is_dir():
        return _from_folder(folder, store)
    own = store or Store()
    try:
        row = own.run(reference)
        if row is None:
            raise ReportError(f"{reference} is neither a run folder nor a run id in the store {own.path}")
        samples = own.samples(reference)
        log = [f"{t[:19].replace('T', ' ')} -- {text}" for t, _level, text in own.log_lines(reference)]
        result = own.result(reference)
        if result is None:
            reason = "; ".join(row.reasons) or "the run ended without writing its result (a crash or a kill)"
            result = rebuild_result(row.config, samples, reference, reason)
        bundle = RunBundle(result, samples, log, Path(row.output_dir), row.session)
        _add_session(bundle, own)
        return bundle
    finally:
        if store is None:
            own.close()


def _from_folder(folder: Path, store: Store | None) -> RunBundle:
    samples = read_samples(folder)
    log = (folder / LOG_FILE).read_text(encoding="utf-8").splitlines() if (folder / LOG_FILE).exists() else []
    try:
        if (folder / RESULT_FILE).exists():
            result = read_result(folder)
        elif (folder / CONFIG_FILE).exists():
            config = TestConfig.model_validate_json((folder / CONFIG_FILE).read_text(encoding="utf-8"))
            result = rebuild_result(config, samples, folder.name, "the run ended without writing its result (a crash or a kill)")
        else:
            raise ReportError(f"{folder} holds no Jetwise run ({RESULT_FILE} or {CONFIG_FILE} is missing)")
    except (OSError, ValueError) as exc:
        raise ReportError(f"{folder} holds a run Jetwise cannot read: {exc}") from exc
    bundle = RunBundle(result, samples, log, folder)
    try:
        own = store or Store()
    except Exception:  # a report of a folder does not need the store
        return bundle
    try:
        row = own.run(result.run_id)
        if row is not None:
            bundle.session = row.session
            _add_session(bundle, own)
    finally:
        if store is None:
            own.close()
    return bundle


def _add_session(bundle: RunBundle, store: Store) -> None:
    if bundle.session is None:
        return
    bundle.session_runs = store.runs(bundle.session)
    bundle.session_results = store.results(bundle.session)


# the model the template shows -------------------------------------------------------------


def _total_row(row: Figures) -> dict[str, float]:
    """The Jetstress "Total I/O" row: database reads with maintenance reads, log reads with replication."""

    def combine(a: str, b: str, what: str) -> float:
        rate_a, rate_b = row.rate(a), row.rate(b)
        total = rate_a + rate_b
        if not total:
            return 0.0
        return (rate_a * row.stream_value(a, what) + rate_b * row.stream_value(b, what)) / total

    return {
        "db_read_latency": combine("db_read", "bdm_read", "avg_latency_ms"),
        "db_reads": row.db_reads_per_s + row.bdm_reads_per_s,
        "db_read_bytes": combine("db_read", "bdm_read", "avg_bytes"),
        "log_read_latency": combine("log_read", "log_replication_read", "avg_latency_ms"),
        "log_reads": row.log_reads_per_s + row.log_replication_reads_per_s,
        "log_read_bytes": combine("log_read", "log_replication_read", "avg_bytes"),
    }


def charts(bundle: RunBundle) -> dict[str, str]:
    """SVG charts: IOPS and latency over time, and the session's curves."""
    config = bundle.result.configuration
    limits = config.active_thresholds
    samples = bundle.samples
    xs = [s.elapsed_s for s in samples]
    out: dict[str, str] = {}
    if samples:
        out["iops"] = line_chart(
            "Transactional IOPS per interval", "IOPS",
            [Line("achieved", xs, [s.summary.transactional_iops for s in samples], PALETTE[0])],
            [Level(config.target_transactional_iops, f"target {config.target_transactional_iops:,.0f}", "#2e7d32")],
        )
        out["latency"] = line_chart(
            "Average latency per interval", "ms",
            [Line("database reads", xs, [s.summary.db_read_avg_latency_ms for s in samples], PALETTE[0]),
             Line("log writes", xs, [s.summary.log_write_avg_latency_ms for s in samples], PALETTE[1])],
            [Level(limits.db_read_avg_latency_ms, f"read limit {limits.db_read_avg_latency_ms:g} ms", "#1f4e79"),
             Level(limits.log_write_avg_latency_ms, f"log limit {limits.log_write_avg_latency_ms:g} ms", "#c55a11")],
        )
    judged = [r.summary for r in bundle.session_results if r.verdict != Outcome.ABORTED]
    if len(judged) >= 2:
        # Two runs at one setting are routine (a confirmation): order by load alone.
        points = sorted(((s.effective_load, s) for s in judged), key=lambda point: point[0])
        loads = [p[0] for p in points]
        words = lambda x: f"{x:.2f}"  # noqa: E731
        out["session_iops"] = line_chart(
            "IOPS against effective load (threads / SluggishSessions)", "IOPS",
            [Line("achieved", loads, [p[1].achieved_transactional_iops for p in points], PALETTE[0], markers=True)],
            [Level(config.target_transactional_iops, "target", "#2e7d32")], x_label="effective load (sessions)", x_words=words,
        )
        out["session_latency"] = line_chart(
            "Database read latency against effective load", "ms",
            [Line("database reads", loads, [p[1].db_read_avg_latency_ms for p in points], PALETTE[0], markers=True)],
            [Level(limits.db_read_avg_latency_ms, f"limit {limits.db_read_avg_latency_ms:g} ms", "#b00020")],
            x_label="effective load (sessions)", x_words=words,
        )
    return out


def report_model(bundle: RunBundle) -> dict[str, Any]:
    result = bundle.result
    config = result.configuration
    summary = result.summary
    advice: Advice | None = None
    if bundle.session_results:
        advice = advise_session(config, bundle.session_results)
    return {
        "result": result,
        "summary": summary,
        "config": config,
        "mix": config.operation_mix,
        "times": result.times,
        "host": result.host,
        "instances": result.instances,
        "totals": [dict(name=r.name, **_total_row(r)) for r in result.instances],
        "criteria": result.criteria,
        "failing": result.failing_instances(),
        "host_performance": result.host_performance,
        "floor": config.target_transactional_iops * (1 - config.target_margin_percent / 100.0),
        "stream_titles": STREAM_TITLES,
        "session": bundle.session,
        "session_runs": bundle.session_runs,
        "advice": advice,
        "log": bundle.log,
        "folder": str(bundle.folder) if bundle.folder else "",
        "version": __version__,
        "aborted": summary.verdict == Outcome.ABORTED,
        "tuning_run": summary.run_kind == RunKind.TUNING,
    }


def _template_text() -> str:
    return resources.files("resources").joinpath("templates/report.html.j2").read_text(encoding="utf-8")


def _environment() -> jinja2.Environment:
    # Lenient on missing figures: a result rebuilt after a crash, or from an older Jetwise, lacks some.
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.filters["num"] = lambda v, d=1: "—" if v is None or isinstance(v, jinja2.Undefined) else f"{v:,.{d}f}"
    env.filters["bytes"] = lambda v: "—" if v is None or isinstance(v, jinja2.Undefined) else f"{int(v):,}"
    env.filters["sentence"] = lambda v: v[:1].upper() + v[1:]
    return env


def render_html(bundle: RunBundle, *, for_print: bool = False) -> str:
    """The report as one self-contained HTML document (charts inline, or as `chart:NAME` images)."""
    env = _environment()
    template = env.from_string(_template_text())
    svgs = charts(bundle)
    return template.render(**report_model(bundle), charts=svgs, for_print=for_print,
                           chart_markup={k: markupsafe.Markup(v) for k, v in svgs.items()})


def write_csv(bundle: RunBundle, path: Path) -> int:
    """The interval samples, one row per interval per instance; returns the rows written."""
    rows = 0
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(CSV_COLUMNS)
        for sample in bundle.samples:
            for row in sample.instances:
                values: list[Any] = [sample.interval, sample.phase, sample.time_utc, sample.elapsed_s, sample.duration_s,
                                     row.name]
                values += [getattr(row, key) for key in CSV_COLUMNS[6:24]]
                values += [sample.host.cpu_percent, sample.host.available_memory_mb]
                writer.writerow(values)
                rows += 1
    return rows
