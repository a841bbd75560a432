"""The printable report of a run: the Jetstress sections in their order, and what Jetstress lacks.

`report_model` gathers every figure the template shows (a typed `ReportModel`), from the run's `RunBundle`;
`render_html` renders resources/templates/report.html.j2 (a Database Checksum or Backup run:
scan_report.html.j2, see `reporting.scan`; a Soft Recovery run: recovery_report.html.j2, see
`reporting.recovery`) with the charts as inline SVG (or as image references, for the PDF renderer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from engine.model.config import TestConfig, TestType
from engine.model.derive import thread_weight_words
from engine.model.profile import OperationMix
from engine.model.units import format_bytes, seconds_words, sentence
from engine.model.validation import cache_design, cache_holds_database
from engine.results.criterion_schema import Criterion, unit_after
from engine.results.figures import database_bytes
from engine.results.host_schema import HostInfo, HostPerformance, Spread
from engine.results.reasons import grouped_reasons
from engine.results.recovery import failing_instances, unreached
from engine.results.sample_schema import Figures
from engine.results.schema import ErrorGroup, InstanceResult, Outcome, RunKind, RunResult, RunTimes, Summary
from engine.results.servers import PaperAggregate, RecoveryShare, ScanShare, paper_aggregate, recovery_shares, scan_shares
from engine.results.spikes import spike_sentences
from engine.results.sweep_schema import Sweep
from engine.results.verdict import (
    UnmeasuredCriterion,
    cache_served,
    iops_floor,
    is_count,
    judged_criteria,
    maximum_note,
    unmeasured_criteria,
    was_measured,
)
from engine.store.rows import RunRow, marks_devices
from engine.tuning.advisor import Advice, advise_session
from engine.version import __version__
from reporting import palette
from reporting.bundle import RunBundle
from reporting.charts import Level, Line, line_chart
from reporting.names import PART, template_names
from reporting.recovery import RECOVERY_TITLE, RecoveryModel, recovery_model
from reporting.scan import SCAN_TITLES, ScanModel, scan_charts, scan_model
from reporting.sweep import SweepModel, step_marks, sweep_charts, sweep_model, target_levels

STREAM_TITLES = {
    "db_read": "Database reads", "db_write": "Database writes", "log_write": "Log writes",
    "bdm_read": "Maintenance reads", "log_replication_read": "Log replication reads", "log_read": "Log reads",
}

TEST_TITLES = {**SCAN_TITLES, TestType.SOFT_RECOVERY: RECOVERY_TITLE}


@dataclass(frozen=True)
class TotalIo:
    """The Jetstress "Total I/O" row: database reads with maintenance reads, log reads with replication."""

    db_read_latency: float
    db_reads: float
    db_read_bytes: float
    log_read_latency: float
    log_reads: float
    log_read_bytes: float


def total_row(row: Figures) -> TotalIo:
    def combine(a: str, b: str, what: str) -> float:
        rate_a, rate_b = row.rate(a), row.rate(b)
        total = rate_a + rate_b
        if not total:
            return 0.0
        return (rate_a * row.stream_value(a, what) + rate_b * row.stream_value(b, what)) / total

    return TotalIo(combine("db_read", "bdm_read", "avg_latency_ms"), row.db_reads_per_s + row.bdm_reads_per_s,
                   combine("db_read", "bdm_read", "avg_bytes"), combine("log_read", "log_replication_read", "avg_latency_ms"),
                   row.log_reads_per_s + row.log_replication_reads_per_s,
                   combine("log_read", "log_replication_read", "avg_bytes"))


def _load_words(load: float) -> str:
    return f"{load:.2f}"


def charts(bundle: RunBundle) -> dict[str, str]:
    """SVG charts: IOPS and latency over time (a sweep's steps marked), a sweep's curve, and the session's curves;
    of a Database Checksum or Backup run, what it read per second (it has no target and no latency limits)."""
    config = bundle.result.configuration
    if config.scans:
        return scan_charts(bundle.samples)
    limits = config.active_thresholds
    series = bundle.samples.columns("elapsed_s", "transactional_iops", "db_read_avg_latency_ms", "log_write_avg_latency_ms")
    xs = series["elapsed_s"]
    sweep = bundle.result.sweep
    marks = step_marks(sweep, bundle.samples)  # a sweep's steps, where each starts
    out: dict[str, str] = {}
    if xs:
        out["iops"] = line_chart(
            "Transactional IOPS per interval", "IOPS",
            [Line("achieved", xs, series["transactional_iops"], palette.READS)],
            target_levels(config, f"target {config.test_target_iops:,.0f}"),
            marks=marks,
        )
        out["latency"] = line_chart(
            "Average latency per interval", "ms",
            [Line("database reads", xs, series["db_read_avg_latency_ms"], palette.READS),
             Line("log writes", xs, series["log_write_avg_latency_ms"], palette.LOG)],
            [Level(limits.db_read_avg_latency_ms, f"read limit {limits.db_read_avg_latency_ms:g} ms", palette.READS),
             Level(limits.log_write_avg_latency_ms, f"log limit {limits.log_write_avg_latency_ms:g} ms", palette.LOG)],
            marks=marks,
        )
    if sweep is not None:
        out.update(sweep_charts(sweep, config, session_advice(bundle)))
    # the load curve: runs judged on what they measured (not aborted, and with measured time)
    judged = [r.summary for r in bundle.session_results if r.verdict != Outcome.ABORTED and was_measured(r)]
    if len(judged) >= 2:
        # Two runs at one setting are routine (a confirmation): order by load alone.
        points = sorted(((s.effective_load, s) for s in judged), key=lambda point: point[0])
        loads = [p[0] for p in points]
        out["session_iops"] = line_chart(
            "IOPS against effective load (threads / SluggishSessions)", "IOPS",
            [Line("achieved", loads, [p[1].achieved_transactional_iops for p in points], palette.READS, markers=True)],
            target_levels(config, "target"),
            x_label="effective load (threads ÷ SluggishSessions)", x_words=_load_words,
        )
        out["session_latency"] = line_chart(
            "Database read latency against effective load", "ms",
            [Line("database reads", loads, [p[1].db_read_avg_latency_ms for p in points], palette.READS, markers=True)],
            [Level(limits.db_read_avg_latency_ms, f"limit {limits.db_read_avg_latency_ms:g} ms", palette.LIMIT)],
            x_label="effective load (threads ÷ SluggishSessions)", x_words=_load_words,
        )
    return out


def held_words(config: TestConfig) -> str:
    """A design whose cache serves the reads, in a few words for page 1's banner ("" for one that does not)."""
    if not cache_holds_database(config):
        return ""
    design = cache_design(config)
    return (f"by design it serves {100 - design.storage_percent:.0f} % of them: {format_bytes(design.held_bytes)} of "
            f"cache per instance for databases of {format_bytes(design.database_bytes)}")


def session_advice(bundle: RunBundle) -> Advice | None:
    """The advisor's word on the run's session as the run ended, kept with it (None outside a session). A run an older
    version recorded kept none: its session's runs up to it are read again."""
    if bundle.advice is not None or not bundle.session_results:
        return bundle.advice
    return advise_session(bundle.result.configuration, bundle.session_results, device=bundle.result.device)


@dataclass(frozen=True)
class ReportModel:
    """Every figure a run's report shows, from its `RunBundle`; the templates read each field by its name."""

    result: RunResult
    summary: Summary
    failed_on: list[str]
    spikes: list[str]
    config: TestConfig
    mix: OperationMix
    times: RunTimes
    host: HostInfo
    instances: list[InstanceResult]
    paper: PaperAggregate
    scan_shares: list[ScanShare]
    recovery_shares: list[RecoveryShare]
    totals: list[TotalIo]  # an instance's each
    criteria: list[Criterion]
    maximum_note: str
    measured: bool
    cache_held: bool
    cache_design: str
    unmeasured: list[UnmeasuredCriterion]
    unmeasured_runs: set[str]  # the session's runs with no measured time, by id
    error_groups: list[ErrorGroup]
    failing: list[str]
    host_performance: HostPerformance
    host_rows: list[tuple[str, Spread]]
    database_bytes: tuple[int | None, int | None]
    floor: float
    stream_titles: dict[str, str]
    session: str | None
    session_runs: list[RunRow]
    devices_marked: bool
    later_runs: list[str]
    advice: Advice | None
    sweep: Sweep | None
    session_sweeps: dict[str, int]  # the session's load sweeps' steps, by run id
    log: list[str]
    folder: str
    version: str
    aborted: bool
    tuning_run: bool
    test_title: str
    report_heading: str
    unreached: set[str]  # the criteria a stop left unreached
    sweep_part: SweepModel | None = field(metadata=PART)
    scan_part: ScanModel | None = field(metadata=PART)
    recovery_part: RecoveryModel | None = field(metadata=PART)


def report_model(bundle: RunBundle, *, for_print: bool = False) -> ReportModel:
    """The model of the run's report; on paper, its folder named as `on_paper` names it."""
    result = bundle.result
    config = result.configuration
    summary = result.summary
    advice = session_advice(bundle)
    title = TEST_TITLES.get(config.test_type, config.test_type.value.capitalize())
    folder = Path(bundle.folder) if bundle.folder else None
    return ReportModel(
        result=result, summary=summary, failed_on=grouped_reasons(result), spikes=spike_sentences(summary),
        config=config, mix=config.operation_mix, times=result.times, host=result.host, instances=result.instances,
        paper=paper_aggregate(result), scan_shares=scan_shares(result), recovery_shares=recovery_shares(result),
        totals=[total_row(r) for r in result.instances],
        criteria=judged_criteria(result),
        maximum_note=maximum_note(result) if result.instances and was_measured(result) and not config.scans else "",
        measured=was_measured(result), cache_held=cache_served(result), cache_design=held_words(config),
        unmeasured=unmeasured_criteria(result),
        unmeasured_runs={r.run_id for r in bundle.session_results if not was_measured(r)},
        error_groups=result.error_groups, failing=failing_instances(result), host_performance=result.host_performance,
        host_rows=result.host_performance.rows(None if config.scans else summary.database_page_fault_stalls_per_s),
        database_bytes=database_bytes(result), floor=iops_floor(config), stream_titles=STREAM_TITLES,
        session=bundle.session, session_runs=bundle.session_runs, devices_marked=marks_devices(bundle.session_runs),
        later_runs=bundle.later_runs, advice=advice, sweep=result.sweep,
        session_sweeps={r.run_id: len(r.sweep.steps) for r in bundle.session_results if r.sweep is not None},
        log=[on_paper(line, folder, for_print) for line in bundle.log],
        folder=on_paper(str(folder.absolute()) if folder else "", folder, for_print),
        version=__version__, aborted=summary.verdict == Outcome.ABORTED, tuning_run=summary.run_kind == RunKind.TUNING,
        test_title=title,
        report_heading=f"Jetwise {title} Test Report" if config.test_type in TEST_TITLES else "Jetwise Test Report",
        unreached=unreached(result) if config.recovers else set(),
        sweep_part=sweep_model(result.sweep, advice),
        scan_part=scan_model(result) if config.scans else None,
        recovery_part=recovery_model(result) if config.recovers else None,
    )


def _breakable_path(path: str, for_print: bool) -> str:
    """On paper a path may break only after its separators (a zero-width space there), never inside a name."""
    if not for_print:
        return path
    return path.replace("\\", "\\\u200b").replace("/", "/\u200b")


def _template_text(name: str) -> str:
    return resources.files("resources").joinpath(f"templates/{name}").read_text(encoding="utf-8")


def environment() -> jinja2.Environment:
    """The templates and their filters, shared by a run's report and the sections of a combined one."""
    # Lenient on missing figures: a result rebuilt after a crash, or from an older Jetwise, lacks some.
    env = jinja2.Environment(loader=jinja2.FunctionLoader(_template_text), autoescape=True, trim_blocks=True,
                             lstrip_blocks=True)
    env.filters["num"] = lambda v, d=1: "—" if v is None or isinstance(v, jinja2.Undefined) else f"{v:,.{d}f}"
    env.filters["bytes"] = lambda v: "—" if v is None or isinstance(v, jinja2.Undefined) else f"{int(v):,}"
    env.filters["sentence"] = sentence
    env.filters["unit_after"] = unit_after
    env.filters["seconds"] = seconds_words
    env.filters["thread_weight_words"] = thread_weight_words
    env.filters["path"] = _breakable_path
    env.filters["local"] = local_time
    env.tests["count"] = is_count
    return env


def local_time(utc: datetime | None, offset: str) -> str:
    """A time as the run's host read its clock, then in UTC: "2026-11-26 14:05:03 (UTC+01:00) · 13:05:03 UTC"; the UTC
    time alone where the host's offset was not kept."""
    if utc is None:
        return "—"
    try:
        zone = datetime.strptime(offset, "%z").tzinfo if offset else None
    except ValueError:
        zone = None
    if zone is None:
        return f"{utc.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC"
    return f"{utc.astimezone(zone):%Y-%m-%d %H:%M:%S} (UTC{offset}) · {utc.astimezone(UTC):%H:%M:%S} UTC"


def _template_for(bundle: RunBundle, env: jinja2.Environment) -> jinja2.Template:
    config = bundle.result.configuration
    return env.get_template("scan_report.html.j2" if config.scans else
                            "recovery_report.html.j2" if config.recovers else "report.html.j2")


def on_paper(text: str, folder: Path | None, for_print: bool) -> str:
    """`text` as a printed report (a PDF, paper) gives it: the run's or suite's folder named by its own name alone. Paper
    goes to the customer, who has no use for where the engineer's machine keeps the run; the database and log paths
    tested stay whole."""
    if not for_print or folder is None:
        return text
    for form in sorted({str(folder), str(folder.absolute()), str(folder.resolve())}, key=len, reverse=True):
        text = text.replace(form, folder.name)
    return text


def _render(bundle: RunBundle, env: jinja2.Environment, *, for_print: bool, **layout: Any) -> str:
    svgs = charts(bundle)
    names = template_names(report_model(bundle, for_print=for_print))
    return _template_for(bundle, env).render(**{**names, **layout}, charts=svgs, for_print=for_print,
                                             palette=palette, chart_markup={k: markupsafe.Markup(v) for k, v in svgs.items()})


def render_html(bundle: RunBundle, *, for_print: bool = False) -> str:
    """The report as one self-contained HTML document (charts inline, or as `chart:NAME` images)."""
    return _render(bundle, environment(), for_print=for_print, section=0, chart_prefix="",
                   document_title=f"Jetwise report {bundle.result.run_id}")


def render_section(bundle: RunBundle, env: jinja2.Environment, *, number: int, heading: str, for_print: bool) -> markupsafe.Markup:
    """The report as section `number` of a larger document: no page head of its own, `heading` as its title, a new
    page on paper, its charts as `chart:NUMBER-NAME` images (see `section_charts`), and no tuning session."""
    return markupsafe.Markup(_render(bundle, env, for_print=for_print, section=number, chart_prefix=f"{number}-",
                                     report_heading=heading))


def section_charts(bundle: RunBundle, number: int) -> dict[str, str]:
    """The charts of section `number`, named as its printed images refer to them."""
    return {f"{number}-{name}": svg for name, svg in charts(bundle).items()}
