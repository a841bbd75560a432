"""A test across servers' combined report: the verdict and why, the ESRP paper's Individual Server Metrics and
Aggregate Performance Across All Servers Metrics, the summed and per-server charts, then each server's own report.

`load_across` reads the controller's run folder (`test.json`, and each server's folder under `hosts/`: a server whose
part was cut off is reported from what reached the controller, rebuilt from its samples and marked aborted).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import markupsafe
from pydantic import ValidationError

from engine.model.config import TIMED_TEST_TYPES, TestType
from engine.results.across_rows import recovery_rows, scan_rows
from engine.results.across_schema import ACROSS_FILE, HOSTS_FOLDER, AcrossResult
from engine.results.document import CONFIG_FILE, RESULT_FILE
from engine.version import __version__
from reporting import palette
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.charts import Level, Line, line_chart
from reporting.document import TEST_TITLES, environment, on_paper, render_section, section_charts
from reporting.sweep import step_rows

CHART_PREFIX = "across-"


@dataclass
class AcrossBundle:
    """A test across servers: its document, its folder, and each server's run (None: nothing of it reached here)."""

    result: AcrossResult
    folder: Path
    servers: list[tuple[str, RunBundle | None]]

    @property
    def verdict(self) -> str:
        return self.result.outcome.value

    @property
    def title(self) -> str:
        """The running title on every printed page."""
        return f"Jetwise test across {len(self.result.servers)} servers · {self.result.test_id} · {self.verdict.upper()}"

    @property
    def document_title(self) -> str:
        return f"Jetwise test across servers {self.result.test_id}"

    @property
    def ended_utc(self) -> datetime | None:
        return self.result.end_utc

    @property
    def runs(self) -> list[tuple[int, str, RunBundle]]:
        """The servers that have a run: number, its folder in the test's and its run."""
        return [(number, f"{HOSTS_FOLDER}/{host}", run) for number, (host, run) in enumerate(self.servers, 1)
                if run is not None]


def is_across_folder(path: Path) -> bool:
    """The folder holds a test across servers (`test.json`, readable or not: reading it says what is wrong)."""
    return (path / ACROSS_FILE).exists()


def load_across(folder: Path) -> AcrossBundle:
    """The test in `folder` with each server's run (ReportError, in a line, when the test cannot be read)."""
    try:
        result = AcrossResult.model_validate_json((folder / ACROSS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError) as exc:
        raise ReportError(f"{folder / ACROSS_FILE} cannot be read as a test across servers: {exc}") from exc
    servers: list[tuple[str, RunBundle | None]] = []
    for row in result.servers:
        run_folder = folder / HOSTS_FOLDER / row.host
        if not any((run_folder / name).is_file() for name in (RESULT_FILE, CONFIG_FILE)):
            servers.append((row.host, None))
            continue
        try:
            servers.append((row.host, load_run(str(run_folder))))
        except ReportError as exc:
            raise ReportError(f"server {row.host}: {exc}") from exc
    return AcrossBundle(result, folder, servers)


def across_charts(bundle: AcrossBundle) -> dict[str, str]:
    """Transactional IOPS per interval, each server's and their sum against the summed target; each server's database
    read latency against the limit (named `CHART_PREFIX`iops and `CHART_PREFIX`latency). None for a checksum, a backup or a Soft
    Recovery: they read or replay, and their tables say how fast."""
    runs = [(host, run) for host, run in bundle.servers if run is not None]
    if not runs or TestType(bundle.result.test_type) not in TIMED_TEST_TYPES:
        return {}
    summed: dict[int, float] = defaultdict(float)
    iops_lines, latency_lines = [], []
    for number, (host, run) in enumerate(runs):
        series = run.samples.columns("interval", "elapsed_s", "transactional_iops", "db_read_avg_latency_ms")
        colour = palette.SERIES[(number + 1) % len(palette.SERIES)]
        for index, iops in zip(series["interval"], series["transactional_iops"], strict=True):
            summed[index] += iops
        iops_lines.append(Line(host, series["elapsed_s"], series["transactional_iops"], colour))
        latency_lines.append(Line(host, series["elapsed_s"], series["db_read_avg_latency_ms"], colour))
    first = runs[0][1].samples.columns("interval", "elapsed_s")
    at = dict(zip(first["interval"], first["elapsed_s"], strict=True))
    indexes = sorted(index for index in summed if index in at)
    total = bundle.result.aggregate.target_transactional_iops
    limits = runs[0][1].result.configuration.active_thresholds
    return {
        f"{CHART_PREFIX}iops": line_chart(
            "Transactional IOPS per interval: all servers and each", "IOPS",
            [Line("all servers", [at[i] for i in indexes], [summed[i] for i in indexes], palette.READS), *iops_lines],
            [Level(total, f"summed target {total:,.0f}", palette.TARGET)] if total else []),
        f"{CHART_PREFIX}latency": line_chart(
            "Average database read latency per interval, each server", "ms", latency_lines,
            [Level(limits.db_read_avg_latency_ms, f"read limit {limits.db_read_avg_latency_ms:g} ms", palette.LIMIT)]),
    }


def across_model(bundle: AcrossBundle) -> dict[str, Any]:
    result = bundle.result
    kind = TestType(result.test_type)
    runs = [(host, run.result if run is not None else None) for host, run in bundle.servers]
    return {"test": result, "rows": result.servers, "aggregate": result.aggregate, "verdict": bundle.verdict,
            "reasons": result.reasons, "folder": str(bundle.folder), "version": __version__, "title": bundle.title,
            "sweep_rows": step_rows(result.sweep) if result.sweep is not None else [],
            "test_title": TEST_TITLES.get(kind, kind.value.capitalize()), "scan_rows": scan_rows(kind, runs),
            "recovery_rows": recovery_rows(kind, runs), "open_ended": kind not in TIMED_TEST_TYPES}


def render_across_html(bundle: AcrossBundle, *, for_print: bool = False) -> str:
    """The combined report as one self-contained HTML document (charts inline, or as `chart:NAME` images)."""
    env = environment()
    svgs = across_charts(bundle)
    sections = [{"number": number, "host": host,
                 "section": render_section(run, env, number=number, heading=f"{number}. Server {host}",
                                           for_print=for_print) if run is not None else None}
                for number, (host, run) in enumerate(bundle.servers, 1)]
    model = across_model(bundle)
    model["folder"] = on_paper(model["folder"], bundle.folder, for_print)
    return env.get_template("across_report.html.j2").render(
        **model, sections=sections, for_print=for_print, palette=palette, charts=svgs,
        chart_prefix="", chart_markup={name: markupsafe.Markup(svg) for name, svg in svgs.items()},
        document_title=bundle.document_title)


def across_pdf_charts(bundle: AcrossBundle) -> dict[str, str]:
    """The test's charts and every server's, named as the printed document refers to them."""
    charts = across_charts(bundle)
    for number, (_host, run) in enumerate(bundle.servers, 1):
        if run is not None:
            charts.update(section_charts(run, number))
    return charts
