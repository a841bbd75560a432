"""An ESRP suite's combined report: the qualification's summary, then each stage's own report, in the suite's order.

`load_suite` reads a suite's folder: its `suite.json` and each stage's run folder. `suite_model` gathers what the
summary shows from each stage's result, its key figures through the same models the stage's own report uses;
`render_suite_html` renders resources/templates/suite_report.html.j2 with each stage's report as a section of it
(`reporting.document.render_section`). A stage that never ran is reported as not run; a stopped or killed one by
its aborted report. A suite across servers is the same: each stage's run has its servers' section by itself, and the
summary names the servers.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine.io.safety import write_text
from engine.model.config import TIMED_TEST_TYPES, TestType
from engine.results.document import CONFIG_FILE, RESULT_FILE
from engine.results.reasons import grouped_reasons
from engine.results.schema import Outcome, RunResult
from engine.results.suite import PERFORMANCE_S, STAGE_WORDS, STAGES, STRESS_S, Stage, SuiteRecord
from engine.results.verdict import was_measured
from engine.run.suite import SUITE_FILE, SuiteError, read_suite
from engine.version import __version__
from reporting import palette
from reporting.bundle import ReportError, RunBundle, load_run
from reporting.document import environment, on_paper, render_section, section_charts
from reporting.recovery import replay_figures
from reporting.scan import scan_figures

NOT_RUN = "not run"
REPORT_FILE = "esrp-report.html"  # the combined report `jetwise suite` leaves in the suite's folder


@dataclass
class StageReport:
    """One stage of the suite as the report shows it: numbered from 1, with its run (None: it never ran)."""

    number: int
    stage: Stage
    bundle: RunBundle | None

    @property
    def verdict(self) -> str:
        """pass, fail, aborted (stopped, or killed and rebuilt from its samples) or "not run"."""
        if self.stage.outcome is not None:
            return self.stage.outcome.value
        return self.bundle.result.verdict.value if self.bundle is not None else NOT_RUN

    @property
    def heading(self) -> str:
        return f"{self.number}. {self.stage.title} Test Report"


@dataclass
class SuiteBundle:
    """A suite's report material: its record, its folder and each of its stages, in order."""

    record: SuiteRecord
    folder: Path
    stages: list[StageReport]

    @property
    def verdict(self) -> str:
        """pass only when all five passed, fail when all ran and one failed, else unfinished."""
        return self.record.outcome.value if self.record.finished else "unfinished"

    @property
    def runs(self) -> list[tuple[int, str, RunBundle]]:
        """The stages that have a run: number, run folder and run."""
        return [(s.number, s.stage.folder, s.bundle) for s in self.stages if s.bundle is not None]

    @property
    def title(self) -> str:
        """The running title on every printed page: a trial is named a trial on each."""
        return f"Jetwise {self.record.title}{self.across} · suite {self.folder.name} · {self.verdict.upper()}"

    @property
    def across(self) -> str:
        """" across N servers" for a suite across servers, else nothing."""
        return f" across {len(self.record.hosts)} servers" if self.record.hosts else ""

    @property
    def document_title(self) -> str:
        return f"Jetwise {self.record.title}{self.across} {self.folder.name}"

    @property
    def ended_utc(self) -> datetime | None:
        """When its latest stage ended (the stages run in order); None: none has run."""
        runs = self.runs
        return runs[-1][2].result.times.test_end_utc if runs else None


def is_suite_folder(path: Path) -> bool:
    """The folder holds a suite's record (readable or not: reading it says what is wrong)."""
    return (path / SUITE_FILE).exists()


def load_suite(folder: Path) -> SuiteBundle:
    """The suite in `folder` with each stage's run (ReportError, in a line, when the suite or a stage cannot be
    read)."""
    try:
        record = read_suite(folder)
    except SuiteError as exc:
        raise ReportError(str(exc)) from exc
    return SuiteBundle(record, folder, [_load_stage(folder, number, stage) for number, stage in enumerate(record.stages, 1)])


def _load_stage(folder: Path, number: int, stage: Stage) -> StageReport:
    where = f"stage {number} ({stage.title})"
    run_folder = folder / stage.folder
    if not stage.folder or not any((run_folder / name).is_file() for name in (RESULT_FILE, CONFIG_FILE)):
        if stage.outcome is None:  # never started, or the suite was stopped before the stage's run wrote anything
            return StageReport(number, stage, None)
        if not stage.folder:
            missing = "it names no run folder"
        elif not run_folder.is_dir():
            missing = f"its run folder {run_folder} is missing"
        else:
            missing = f"its run folder {run_folder} holds no run ({RESULT_FILE} is missing)"
        raise ReportError(f"{folder / SUITE_FILE} gives {where} a verdict but {missing}; restore the folder, or report "
                          "the stages' run folders one by one")
    try:
        bundle = load_run(str(run_folder))
    except ReportError as exc:
        raise ReportError(f"{where}: {exc}") from exc
    if stage.run_id and bundle.result.run_id != stage.run_id:
        raise ReportError(f"{run_folder} holds run {bundle.result.run_id}, not {where}'s run {stage.run_id} that "
                          f"{SUITE_FILE} names")
    return StageReport(number, stage, bundle)


def _length(seconds: float) -> str:
    """A stage's length as `jetwise suite` takes it: 2h, 90m, 45s."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g}h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g}m"
    return f"{seconds:g}s"


def _resume_command(suite: SuiteBundle) -> str:
    """The command that resumes the suite: its lengths must be the ones it started with, or it is refused."""
    record = suite.record
    flags = "".join(f" --{name}-duration {_length(seconds)}" for name, seconds, default in (
        ("performance", record.performance_s, PERFORMANCE_S), ("stress", record.stress_s, STRESS_S)) if seconds != default)
    if record.simulate:
        flags += f" --simulate {record.simulate}"
    if record.config.servers:  # a server with its own folders was given its own file
        flags += " --hosts " + ",".join(part.host + ("=FILE" if part.databases else "") for part in record.config.servers)
    return f"jetwise suite CONFIG.json --output {suite.folder}{flags}"


def _lengths(record: SuiteRecord) -> list[dict[str, Any]]:
    """Performance's and Stress's lengths, each saying whether it is the one ESRP publishes."""
    return [{"title": STAGE_WORDS[test_type], "length": _length(seconds), "published": seconds == published}
            for test_type, seconds, published in ((TestType.PERFORMANCE, record.performance_s, PERFORMANCE_S),
                                                  (TestType.STRESS, record.stress_s, STRESS_S))]


def _threshold_sets(record: SuiteRecord) -> list[dict[str, Any]]:
    """Each threshold set with the stages it judges (the scans have no latency limits), in the suite's order."""
    sets: dict[str, dict[str, Any]] = {}
    for test_type in STAGES:
        config = record.stage_config(test_type)
        if config.scans:
            continue
        judged = sets.setdefault(config.threshold_set_name, {"name": config.threshold_set_name, "judges": [],
                                                             "limits": config.active_thresholds})
        judged["judges"].append(STAGE_WORDS[test_type] + (" (its log generation)" if config.recovers else ""))
    return list(sets.values())


def _clock(utc: datetime | None) -> str:
    """A time (UTC) to the minute: the summary's; each stage's report gives it to the second."""
    return f"{utc.astimezone(UTC):%Y-%m-%d %H:%M}" if utc is not None else "—"


def _key_figure(result: RunResult) -> dict[str, Any]:
    """The stage's figure in the summary, read through its report's model: IOPS, scan rate or replay time."""
    test_type = result.configuration.test_type
    if test_type in TIMED_TEST_TYPES:
        return {"kind": "iops", "achieved": result.summary.achieved_transactional_iops if was_measured(result) else None,
                "target": result.summary.target_transactional_iops, "host_bound": result.summary.host_bound}
    if result.configuration.scans:
        return {"kind": "scan", "per_server": scan_figures(result.scan).scan_sum.mbytes_per_s if result.scan else None}
    return {"kind": "replay", "average_s": replay_figures(result.recovery, result.verdict).replay_average_s
            if result.recovery else None,
            "limit_s": result.recovery.limit_s if result.recovery else result.configuration.replay_limit_s}


def _row(report: StageReport) -> dict[str, Any]:
    result = report.bundle.result if report.bundle is not None else None
    return {
        "number": report.number, "title": report.stage.title, "verdict": report.verdict, "folder": report.stage.folder,
        "key": _key_figure(result) if result else None,
        "start": _clock(result.times.test_start_utc) if result else None,
        "end": _clock(result.times.test_end_utc) if result else None,
        "reasons": (grouped_reasons(result) if result else report.stage.reasons)[:3],
    }


def _listed(titles: list[str]) -> str:
    """Titles in words: A; A and B; A, B and C."""
    return "".join(titles) if len(titles) <= 1 else f"{', '.join(titles[:-1])} and {titles[-1]}"


def _pending(rows: list[dict[str, Any]]) -> str:
    """What keeps the suite unfinished, in words: "Stress was stopped before its end; Backup has not run"."""
    stopped = [r["title"] for r in rows if r["verdict"] == Outcome.ABORTED]
    unrun = [r["title"] for r in rows if r["verdict"] == NOT_RUN]
    words = []
    if stopped:
        words.append(f"{_listed(stopped)} " + ("was stopped before its end" if len(stopped) == 1 else
                                               "were stopped before their end"))
    if unrun:
        words.append(f"{_listed(unrun)} " + ("has not run" if len(unrun) == 1 else "have not run"))
    return "; ".join(words)


def _esrp_figures(suite: SuiteBundle) -> dict[str, Any]:
    """What an ESRP paper's Test Result Summary publishes, each from its stage's result (None: the stage has none)."""
    results = {s.stage.test_type: s.bundle.result for s in suite.stages if s.bundle is not None}
    performance, backup = results.get(TestType.PERFORMANCE), results.get(TestType.DATABASE_BACKUP)
    checksum, recovery = results.get(TestType.DATABASE_CHECKSUM), results.get(TestType.SOFT_RECOVERY)
    return {
        "performance": performance.summary if performance else None,
        "backup": scan_figures(backup.scan) if backup and backup.scan else None,
        "checksum": scan_figures(checksum.scan) if checksum and checksum.scan else None,
        "stress": results.get(TestType.STRESS),
        "recovery": replay_figures(recovery.recovery, recovery.verdict) if recovery and recovery.recovery else None,
    }


def suite_model(suite: SuiteBundle) -> dict[str, Any]:
    """Everything the summary shows: the suite's configuration, server and lengths, and a row per stage."""
    record = suite.record
    results = [s.bundle.result for s in suite.stages if s.bundle is not None]
    rows = [_row(s) for s in suite.stages]
    return {
        "config": record.config, "folder": str(suite.folder), "suite_name": suite.folder.name,
        "verdict": suite.verdict, "rows": rows, "version": __version__,
        "pending": _pending(rows), "failed": _listed([r["title"] for r in rows if r["verdict"] == Outcome.FAIL]),
        "host_bound": _listed([r["title"] for r in rows if r["key"] and r["key"].get("host_bound")]),
        "first_pending": next((r["title"] for r in rows if r["verdict"] not in (Outcome.PASS, Outcome.FAIL)), ""),
        "resume": _resume_command(suite),
        "host": results[0].host if results else None,
        "machines": sorted({r.host.machine_name for r in results if r.host.machine_name}),
        "simulated": sorted({r.io_backend for r in results if r.simulated}),
        "lengths": _lengths(record), "threshold_sets": _threshold_sets(record),
        "title": record.title + suite.across, "trial": record.trial_words, "servers": record.hosts,
        **_esrp_figures(suite),
    }


def render_suite_html(suite: SuiteBundle, *, for_print: bool = False) -> str:
    """The combined report as one self-contained HTML document (charts inline, or as `chart:N-NAME` images)."""
    env = environment()
    sections = [
        render_section(s.bundle, env, number=s.number, heading=s.heading, for_print=for_print) if s.bundle else None
        for s in suite.stages
    ]
    stages = [{"number": s.number, "heading": s.heading, "section": section, "folder": s.stage.folder}
              for s, section in zip(suite.stages, sections, strict=True)]
    model = suite_model(suite)
    model |= {key: on_paper(model[key], suite.folder, for_print) for key in ("folder", "resume")}
    return env.get_template("suite_report.html.j2").render(
        **model, stages=stages, for_print=for_print, palette=palette,
        document_title=suite.document_title,
    )


def suite_charts(suite: SuiteBundle) -> dict[str, str]:
    """Every stage's charts, named as the printed sections refer to them."""
    return {name: svg for s in suite.stages if s.bundle is not None for name, svg in section_charts(s.bundle, s.number).items()}


def write_suite_report(folder: Path) -> Path:
    """Write the suite's combined HTML report into its folder (`REPORT_FILE`, replaced whole); returns its path.
    ReportError when the suite cannot be read, OSError when the file cannot be written."""
    path = folder / REPORT_FILE
    write_text(path, render_suite_html(load_suite(folder)))
    return path
