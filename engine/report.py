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
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from engine.advisor import Advice, advise, judged_points
from engine.charts import PALETTE, Level, Line, line_chart
from engine.config import TestConfig
from engine.results import CONFIG_FILE, LOG_FILE, RESULT_FILE, SAMPLES_FILE
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
    result: dict[str, Any]
    samples: list[dict[str, Any]]
    log: list[str]
    folder: Path | None
    session: str | None = None
    session_runs: list[RunRow] = field(default_factory=list)
    session_results: list[dict[str, Any]] = field(default_factory=list)


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
        result = own.result(reference)
        samples = own.samples(reference)
        log = [f"{t[:19].replace('T', ' ')} -- {text}" for t, _level, text in own.log_lines(reference)]
        if result is None:
            result = rebuild_result(TestConfig.model_validate(row.config), samples, reference, row.reasons)
        bundle = RunBundle(result, samples, log, Path(row.output_dir), row.session)
        _add_session(bundle, own)
        return bundle
    finally:
        if store is None:
            own.close()


def _from_folder(folder: Path, store: Store | None) -> RunBundle:
    samples = []
    if (folder / SAMPLES_FILE).exists():
        samples = [json.loads(line) for line in (folder / SAMPLES_FILE).read_text(encoding="utf-8").splitlines() if line.strip()]
    log = (folder / LOG_FILE).read_text(encoding="utf-8").splitlines() if (folder / LOG_FILE).exists() else []
    if (folder / RESULT_FILE).exists():
        result = json.loads((folder / RESULT_FILE).read_text(encoding="utf-8"))
    elif (folder / CONFIG_FILE).exists():
        config = TestConfig.model_validate_json((folder / CONFIG_FILE).read_text(encoding="utf-8"))
        result = rebuild_result(config, samples, folder.name, ["the run ended without writing its result (a crash or a kill)"])
    else:
        raise ReportError(f"{folder} holds no Jetwise run ({RESULT_FILE} or {CONFIG_FILE} is missing)")
    bundle = RunBundle(result, samples, log, folder)
    try:
        own = store or Store()
    except Exception:  # a report of a folder does not need the store
        return bundle
    try:
        row = own.run(result.get("run_id", ""))
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
    bundle.session_results = [r for r in (store.result(run.run_id) for run in bundle.session_runs) if r is not None]


def rebuild_result(config: TestConfig, samples: list[dict[str, Any]], run_id: str, reasons: list[str]) -> dict[str, Any]:
    """An aborted result from what a crashed run's samples show (no criteria are judged)."""
    measured = [s for s in samples if s.get("phase") == "measure"]
    seconds = sum(s["duration_s"] for s in measured)

    def weighted(rows: list[tuple[dict[str, Any], dict[str, Any]]], key: str) -> float:
        return sum((r.get(key) or 0.0) * s["duration_s"] for s, r in rows) / seconds if seconds else 0.0

    names = [config.instance_name(i) for i in range(config.database_count)]
    instances = []
    for index, name in enumerate(names):
        rows = [(s, r) for s in measured for r in s["instances"] if r["name"] == name]
        row: dict[str, Any] = {"name": name, "database_path": str(config.databases[index].database_path),
                               "log_path": str(config.databases[index].log_path), "verdict": "aborted", "reasons": []}
        for key in CSV_COLUMNS[6:24]:
            row[key] = weighted(rows, key) if key.endswith("_per_s") or key == "transactional_iops" else (
                max((r.get(key) or 0.0 for _s, r in rows), default=0.0) if "max" in key else weighted(rows, key))
        row["achieved_transactional_iops"] = row["transactional_iops"]
        row["latency_percentiles_ms"] = {}
        instances.append(row)
    summary: dict[str, Any] = {key: sum(r[key] for r in instances) if key.endswith("_per_s") else
                               max((r[key] for r in instances), default=0.0) for key in CSV_COLUMNS[6:24]}
    summary.update({
        "verdict": "aborted", "reasons": ["Run aborted: " + "; ".join(reasons or ["it ended without a result"])],
        "test_type": config.test_type.value, "threshold_set": config.threshold_set_name,
        "target_transactional_iops": config.target_transactional_iops,
        "target_margin_percent": config.target_margin_percent, "measured_s": seconds,
        "database_count": config.database_count, "copies_per_database": config.copies_per_database,
        "threads": config.thread_count, "sluggish_sessions": config.sluggish_sessions,
        "achieved_transactional_iops": sum(r["transactional_iops"] for r in instances),
        "latency_percentiles_ms": {},
    })
    first = samples[0]["time_utc"] if samples else None
    last = samples[-1]["time_utc"] if samples else None
    start = measured[0]["time_utc"] if measured else None
    cpu = [s["host"]["cpu_percent"] for s in measured if "host" in s]
    memory = [s["host"]["available_memory_mb"] for s in measured if "host" in s]
    return {
        "schema_version": 1, "tool": "Jetwise", "tool_version": __version__, "run_id": run_id,
        "times": {"test_start_utc": first, "test_end_utc": last, "collection_start_utc": start, "collection_end_utc": last},
        "host": {}, "io_backend": "", "simulated": False, "unbuffered_io": True,
        "configuration": config.model_dump(mode="json"), "summary": summary, "instances": instances, "criteria": [],
        "host_performance": {
            "cpu_percent": _spread(cpu), "available_memory_mb": _spread(memory),
        },
        "notes": ["Rebuilt from the samples recorded before the run stopped; no criterion was judged."],
        "files": {"samples": SAMPLES_FILE, "log": LOG_FILE, "configuration": CONFIG_FILE},
    }


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"average": None, "minimum": None, "maximum": None}
    return {"average": sum(values) / len(values), "minimum": min(values), "maximum": max(values)}


# the model the template shows -------------------------------------------------------------


def _total_row(row: dict[str, Any]) -> dict[str, Any]:
    """The Jetstress "Total I/O" row: database reads with maintenance reads, log reads with replication."""

    def combine(a: str, b: str, what: str) -> float:
        rate_a, rate_b = row.get(f"{a}s_per_s", 0.0), row.get(f"{b}s_per_s", 0.0)
        total = rate_a + rate_b
        if not total:
            return 0.0
        return float((rate_a * row.get(f"{a}_{what}", 0.0) + rate_b * row.get(f"{b}_{what}", 0.0)) / total)

    return {
        "db_read_latency": combine("db_read", "bdm_read", "avg_latency_ms"),
        "db_reads": row.get("db_reads_per_s", 0.0) + row.get("bdm_reads_per_s", 0.0),
        "db_read_bytes": combine("db_read", "bdm_read", "avg_bytes"),
        "log_read_latency": combine("log_read", "log_replication_read", "avg_latency_ms"),
        "log_reads": row.get("log_reads_per_s", 0.0) + row.get("log_replication_reads_per_s", 0.0),
        "log_read_bytes": combine("log_read", "log_replication_read", "avg_bytes"),
    }


def charts(bundle: RunBundle) -> dict[str, str]:
    """SVG charts: IOPS and latency over time, and the session's curves."""
    config = TestConfig.model_validate(bundle.result["configuration"])
    limits = config.active_thresholds
    samples = bundle.samples
    xs = [s["elapsed_s"] for s in samples]
    out: dict[str, str] = {}
    if samples:
        out["iops"] = line_chart(
            "Transactional IOPS per interval", "IOPS",
            [Line("achieved", xs, [s["summary"].get("transactional_iops", 0.0) for s in samples], PALETTE[0])],
            [Level(config.target_transactional_iops, f"target {config.target_transactional_iops:,.0f}", "#2e7d32")],
        )
        out["latency"] = line_chart(
            "Average latency per interval", "ms",
            [Line("database reads", xs, [s["summary"].get("db_read_avg_latency_ms", 0.0) for s in samples], PALETTE[0]),
             Line("log writes", xs, [s["summary"].get("log_write_avg_latency_ms", 0.0) for s in samples], PALETTE[1])],
            [Level(limits.db_read_avg_latency_ms, f"read limit {limits.db_read_avg_latency_ms:g} ms", "#1f4e79"),
             Level(limits.log_write_avg_latency_ms, f"log limit {limits.log_write_avg_latency_ms:g} ms", "#c55a11")],
        )
    judged = [r for r in bundle.session_results if r["summary"]["verdict"] in ("pass", "fail")]
    if len(judged) >= 2:
        points = sorted((r["summary"]["threads"] / r["summary"]["sluggish_sessions"], r["summary"]) for r in judged)
        loads = [p[0] for p in points]
        words = lambda x: f"{x:.2f}"  # noqa: E731
        out["session_iops"] = line_chart(
            "IOPS against effective load (threads / SluggishSessions)", "IOPS",
            [Line("achieved", loads, [p[1]["achieved_transactional_iops"] for p in points], PALETTE[0], markers=True)],
            [Level(config.target_transactional_iops, "target", "#2e7d32")], x_label="effective load (sessions)", x_words=words,
        )
        out["session_latency"] = line_chart(
            "Database read latency against effective load", "ms",
            [Line("database reads", loads, [p[1]["db_read_avg_latency_ms"] for p in points], PALETTE[0], markers=True)],
            [Level(limits.db_read_avg_latency_ms, f"limit {limits.db_read_avg_latency_ms:g} ms", "#b00020")],
            x_label="effective load (sessions)", x_words=words,
        )
    return out


def report_model(bundle: RunBundle) -> dict[str, Any]:
    result = bundle.result
    config = TestConfig.model_validate(result["configuration"])
    summary = result["summary"]
    advice: Advice | None = None
    if bundle.session_results:
        points = judged_points(bundle.session_results)
        if points:
            advice = advise(config, points)
    failing = sorted({c["instance"] for c in result["criteria"] if c["instance"] and not c["passed"]})
    return {
        "result": result,
        "summary": summary,
        "config": config,
        "mix": config.operation_mix,
        "times": result["times"],
        "host": result.get("host", {}),
        "instances": result["instances"],
        "totals": [dict(name=r["name"], **_total_row(r)) for r in result["instances"]],
        "criteria": result["criteria"],
        "failing": failing,
        "host_performance": result.get("host_performance", {}),
        "floor": config.target_transactional_iops * (1 - config.target_margin_percent / 100.0),
        "stream_titles": STREAM_TITLES,
        "session": bundle.session,
        "session_runs": bundle.session_runs,
        "advice": advice,
        "log": bundle.log,
        "folder": str(bundle.folder) if bundle.folder else "",
        "version": __version__,
        "aborted": summary["verdict"] == "aborted",
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
            host = sample.get("host", {})
            for row in sample["instances"]:
                values = [sample.get("interval"), sample.get("phase"), sample.get("time_utc"), sample.get("elapsed_s"),
                          sample.get("duration_s"), row["name"]]
                values += [row.get(key) for key in CSV_COLUMNS[6:24]]
                values += [host.get("cpu_percent"), host.get("available_memory_mb")]
                writer.writerow(values)
                rows += 1
    return rows
