"""An ESRP suite across servers' combined report: the qualification's summary, each server's verdict in each stage,
then each stage as a test across servers (the paper's Individual Server Metrics and Aggregate tables, the summed and
per-server charts) followed by each server's own report of it.

A stage's folder in the suite's is the folder of a test across servers (`test.json`, each server's run under
`hosts/`); `load_suite_across` reads each through `reporting.across.load_across`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import markupsafe

from engine.model.config import TIMED_TEST_TYPES
from engine.results.across_schema import ACROSS_FILE, HOSTS_FOLDER
from engine.results.suite import Stage, SuiteRecord
from engine.version import __version__
from reporting import palette
from reporting.across import AcrossBundle, across_charts, across_model, load_across
from reporting.bundle import ReportError, RunBundle
from reporting.document import environment, on_paper, render_section, section_charts
from reporting.sweep import step_rows

NOT_RUN = "not run"


@dataclass
class StageAcross:
    """One stage of the suite, numbered from 1, with its test across servers (None: it never ran)."""

    number: int
    stage: Stage
    test: AcrossBundle | None

    @property
    def verdict(self) -> str:
        if self.stage.outcome is not None:
            return self.stage.outcome.value
        return self.test.verdict if self.test is not None else NOT_RUN

    @property
    def prefix(self) -> str:
        """Its charts' names in the document."""
        return f"stage{self.number}-"


@dataclass
class SuiteAcrossBundle:
    """A suite across servers' report material: its record, its folder and each stage's test."""

    record: SuiteRecord
    folder: Path
    stages: list[StageAcross]

    @property
    def verdict(self) -> str:
        return self.record.outcome.value if self.record.finished else "unfinished"

    @property
    def sections(self) -> list[tuple[StageAcross, str, int, RunBundle | None]]:
        """Each stage's servers in order: the stage, the server, its section number in the document and its run."""
        listed, number = [], 0
        for stage in self.stages:
            for host, run in stage.test.servers if stage.test is not None else []:
                number += 1
                listed.append((stage, host, number, run))
        return listed

    @property
    def runs(self) -> list[tuple[int, str, RunBundle]]:
        """Every server's run of every stage: its section number, its folder in the suite's and its run."""
        return [(number, f"{stage.stage.folder}/{HOSTS_FOLDER}/{host}", run)
                for stage, host, number, run in self.sections if run is not None]

    @property
    def title(self) -> str:
        return (f"Jetwise {self.record.title} across {len(self.record.hosts)} servers · suite {self.folder.name} · "
                f"{self.verdict.upper()}")

    @property
    def document_title(self) -> str:
        return f"Jetwise {self.record.title} across servers {self.folder.name}"

    @property
    def ended_utc(self) -> datetime | None:
        ended = [s.test.result.end_utc for s in self.stages if s.test is not None and s.test.result.end_utc]
        return ended[-1] if ended else None


def load_suite_across(record: SuiteRecord, folder: Path) -> SuiteAcrossBundle:
    """The suite across servers in `folder`, each stage's test read (ReportError naming the stage)."""
    stages = []
    for number, stage in enumerate(record.stages, 1):
        test_folder = folder / stage.folder
        if not stage.folder or not (test_folder / ACROSS_FILE).is_file():
            if stage.outcome is not None:
                raise ReportError(f"stage {number} ({stage.title}) has a verdict but its test across servers "
                                  f"{test_folder} holds no {ACROSS_FILE}; restore the folder")
            stages.append(StageAcross(number, stage, None))
            continue
        try:
            stages.append(StageAcross(number, stage, load_across(test_folder)))
        except ReportError as exc:
            raise ReportError(f"stage {number} ({stage.title}): {exc}") from exc
    return SuiteAcrossBundle(record, folder, stages)


def _row(stage: StageAcross, hosts: list[str]) -> dict[str, Any]:
    test = stage.test.result if stage.test is not None else None
    by_host = {row.host: row for row in test.servers} if test is not None else {}
    outcomes = {host: row.outcome for host, row in by_host.items()}
    servers = [outcome.value if (outcome := outcomes.get(host)) is not None
               else ("no result" if test is not None else NOT_RUN) for host in hosts]
    measured = stage.stage.test_type in TIMED_TEST_TYPES and test is not None
    return {"number": stage.number, "title": stage.stage.title, "verdict": stage.verdict, "servers": servers,
            "achieved": test.aggregate.achieved_transactional_iops if measured and test is not None else None,
            "target": test.aggregate.target_transactional_iops if measured and test is not None else None,
            "reasons": (test.reasons if test is not None else stage.stage.reasons)[:4], "folder": stage.stage.folder}


def render_suite_across_html(suite: SuiteAcrossBundle, *, for_print: bool = False) -> str:
    """The combined report as one self-contained HTML document."""
    env = environment()
    record = suite.record
    svgs: dict[str, str] = {}
    stages = []
    sections = {(stage.number, host): (number, run) for stage, host, number, run in suite.sections}
    for stage in suite.stages:
        entry: dict[str, Any] = {"number": stage.number, "title": stage.stage.title, "test": None, "folder": stage.stage.folder}
        if stage.test is not None:
            svgs.update(across_charts(stage.test, stage.prefix))
            servers = []
            for host, _run in stage.test.servers:
                number, run = sections[(stage.number, host)]
                heading = f"{stage.number}.{number}. {stage.stage.title}: server {host}"
                servers.append({"host": host, "section": render_section(run, env, number=number, heading=heading,
                                                                         for_print=for_print) if run else None})
            entry |= {"test": across_model(stage.test), "servers": servers, "prefix": stage.prefix,
                      "sweep_rows": step_rows(stage.test.result.sweep) if stage.test.result.sweep else []}
        stages.append(entry)
    return env.get_template("suite_across_report.html.j2").render(
        record=record, hosts=record.hosts, rows=[_row(s, record.hosts) for s in suite.stages], stages=stages,
        verdict=suite.verdict, title=f"{record.title} across {len(record.hosts)} servers", trial=record.trial_words,
        folder=on_paper(str(suite.folder), suite.folder, for_print), suite_name=suite.folder.name, version=__version__, for_print=for_print,
        palette=palette, charts=svgs, chart_prefix="", chart_markup={name: markupsafe.Markup(svg) for name, svg in svgs.items()},
        document_title=suite.document_title, simulated=record.simulate)


def suite_across_charts(suite: SuiteAcrossBundle) -> dict[str, str]:
    """Every stage's charts and every server's, named as the printed document refers to them."""
    charts: dict[str, str] = {}
    for stage in suite.stages:
        if stage.test is not None:
            charts.update(across_charts(stage.test, stage.prefix))
    for _stage, _host, number, run in suite.sections:
        if run is not None:
            charts.update(section_charts(run, number))
    return charts
