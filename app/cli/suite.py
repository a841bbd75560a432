"""`jetwise suite CONFIG.json [--output DIR] [--hosts HOST[=FILE],...]`: the ESRP qualification, five tests on the
same databases; with `--hosts`, each stage a run across the servers, as the ESRP paper's DAG runs it.

The same command with the same `--output` resumes a suite from its first stage without a Pass or Fail;
the folder keeps every stage's run folder (across servers: each server's copy of its own under `hosts/`) and
the combined report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TextIO

from app.cli.across import add_host_arguments, request_of
from app.cli.configs import load_or_say
from app.cli.console import ConsoleRenderer, print_problems
from app.cli.options import add_length_flags, path_type, session_type
from app.cli.signals import run_or_refuse
from app.context import AppContext, UsageError, writable_destination
from app.opening import OpenRun
from engine.model.config import TIMED_TEST_TYPES
from engine.model.units import format_duration
from engine.protocol import ExitCode
from engine.run.sources.model import PROFILES
from engine.run.suite import Stage, SuiteError, SuiteRecord, open_suite
from reporting.bundle import ReportError
from reporting.suite import write_suite_report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG.json")
    parser.add_argument("--output", type=path_type, default=None,
                        help="the suite's folder (default ./jetwise-runs/suite-TIME); the same folder resumes the suite")
    add_length_flags(parser)
    parser.add_argument("--session", type=session_type, default=None, help="tuning session the runs belong to (default: the file's name)")
    parser.add_argument("--simulate", default=None, metavar="PROFILE",
                        help=f"run on a simulated storage model instead of the disk ({', '.join(sorted(PROFILES))})")
    add_host_arguments(parser, "each stage a run across these enrolled servers, each running CONFIG in its own "
                               "folders where FILE gives them (jetwise agent on each)")


def run(args: argparse.Namespace, context: AppContext) -> int:
    output = args.output or Path.cwd() / "jetwise-runs" / f"suite-{datetime.now():%Y%m%d-%H%M%S}"
    request = request_of(args, load_or_say(args.config, sys.stderr), work="suite", output=output,
                         session=args.session or args.config.stem, performance_s=args.performance_duration,
                         stress_s=args.stress_duration)
    if request is None:
        return ExitCode.INVALID
    opened = OpenRun(context, request, note=lambda words: print(f"note: {words}", file=sys.stderr))
    folder = writable_destination("--output", output, folder=True)
    try:
        record = open_suite(request.config, folder, performance_s=args.performance_duration,
                            stress_s=args.stress_duration, simulate=args.simulate)
    except SuiteError as exc:
        raise UsageError(str(exc)) from exc
    print(f"Suite folder: {folder}", file=sys.stderr)
    if record.finished:
        print("Every stage of this suite has run; its verdicts:", file=sys.stderr)
    with opened.sourced():
        suite = opened.suite(record, ConsoleRenderer(sys.stderr), _announce(record))
        ran = run_or_refuse(suite.request_stop, suite.run, lambda problems: print_problems(problems, sys.stderr))
    if ran is None:
        _write_report(folder)
        return ExitCode.INVALID
    print_suite(record, folder, sys.stderr)
    _write_report(folder)
    return ExitCode.of(record.outcome)


def _announce(record: SuiteRecord) -> Callable[[int, Stage], None]:
    def announce(number: int, stage: Stage) -> None:
        length = ""
        if stage.test_type in TIMED_TEST_TYPES:
            length = f", {format_duration(record.stage_config(stage.test_type).duration_s)}"
        across = f" across {len(record.hosts)} servers" if record.hosts else ""
        print(f"\n=== Stage {number + 1} of {len(record.stages)}: {stage.title}{across}{length}", file=sys.stderr)

    return announce


def _write_report(folder: Path) -> None:
    """The combined HTML report, finished or not; its PDF is `jetwise report FOLDER --pdf FILE`'s."""
    try:
        path = write_suite_report(folder)
    except (ReportError, OSError) as exc:
        print(f"note: the combined report was not written: {exc}", file=sys.stderr)
    else:
        print(f"Combined report: {path}", file=sys.stderr)


def print_suite(record: SuiteRecord, folder: Path, stream: TextIO) -> None:
    """The five verdicts in a table, and how to go on when the suite is unfinished."""
    device = f" (simulated {record.simulate})" if record.simulate else ""
    print(f"\n{record.title}{device}: "
          f"{record.outcome.value.upper() if record.finished else 'UNFINISHED'}", file=stream)
    if record.rehearsal:
        print(f"  {record.trial_words}", file=stream)
    for number, stage in enumerate(record.stages):
        verdict = stage.outcome.value.upper() if stage.outcome is not None else "not run"
        where = f"  ({folder / stage.folder})" if stage.folder else ""
        print(f"  {number + 1}. {stage.title:<18} {verdict:<8}{where}", file=stream)
        if stage.outcome == "fail":
            for reason in stage.reasons[:3]:
                print(f"       - {reason}", file=stream)
    if not record.finished:
        print(f"Resume it with the same command and --output {folder}", file=stream)
    elif any(stage.folder and not (folder / stage.folder).is_dir() for stage in record.stages):
        print(f"warning: a stage's run folder is missing from {folder}; its verdict stands as recorded", file=stream)
