"""`jetwise suite CONFIG.json [--output DIR] [--hosts HOST[=FILE],...]`: the ESRP qualification, five tests on the
same databases; with `--hosts`, each stage a test across the servers, as the ESRP paper's DAG runs it.

The same command with the same `--output` resumes a suite from its first stage without a Pass or Fail;
the folder keeps every stage's run folder (across servers: the stage's test folder, each server's under it) and
the combined report.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TextIO

from app.cli.across import ConsoleAcross, add_host_arguments, before_a_test, configs_of, enrolled_roster, listening
from app.cli.configs import load_or_say
from app.cli.console import ConsoleRenderer, print_problems
from app.cli.options import add_length_flags, path_type, session_type
from app.cli.signals import run_or_refuse, stop_on_signals
from app.context import AppContext, UsageError, simulated_model, writable_destination
from engine.hosts.across import TestAcross
from engine.model.config import TIMED_TEST_TYPES, TestConfig
from engine.model.units import format_duration
from engine.protocol import ExitCode
from engine.run.simulation import PROFILES
from engine.run.suite import Stage, Suite, SuiteError, SuiteRecord, open_suite
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
    add_host_arguments(parser, "each stage a test across these enrolled servers, each running CONFIG or its own "
                               "FILE (jetwise agent on each)")


def run(args: argparse.Namespace, context: AppContext) -> int:
    model = simulated_model(args.simulate)
    configs = configs_of(args.config, args.hosts, {}) if args.hosts is not None else None
    config = load_or_say(args.config, sys.stderr) if configs is None else next(iter(configs.values()))
    if config is None or (args.hosts is not None and configs is None):
        return ExitCode.INVALID
    folder = writable_destination("--output", args.output or Path.cwd() / "jetwise-runs" / f"suite-{datetime.now():%Y%m%d-%H%M%S}",
                                folder=True)
    try:
        record = open_suite(config, folder, performance_s=args.performance_duration, stress_s=args.stress_duration,
                            simulate=args.simulate, hosts=list(configs) if configs is not None else None)
    except SuiteError as exc:
        raise UsageError(str(exc)) from exc
    if configs is not None:
        return suite_across(record, configs, folder, args)
    session = context.session(args.session or args.config.stem, config, lambda words: print(f"note: {words}", file=sys.stderr))
    print(f"Suite folder: {folder}", file=sys.stderr)
    if record.finished:
        print("Every stage of this suite has run; its verdicts:", file=sys.stderr)
    renderer = ConsoleRenderer(sys.stderr)

    suite = Suite(record, folder, lambda stage_config, out: context.runner(stage_config, out, renderer, session=session,
                                                                           model=model), on_stage=_announce(record))
    if run_or_refuse(suite.request_stop, suite.run, lambda problems: print_problems(problems, sys.stderr)) is None:
        _write_report(folder)
        return ExitCode.INVALID
    return _ended(record, folder)


def _ended(record: SuiteRecord, folder: Path) -> int:
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


def suite_across(record: SuiteRecord, configs: dict[str, TestConfig], folder: Path, args: argparse.Namespace) -> int:
    """Each unfinished stage as a test across the servers, every server running its own configuration at the stage
    (its test type and length); a stage's test folder holds each server's run folder."""
    print(f"Suite folder: {folder}", file=sys.stderr)
    view = ConsoleAcross(sys.stderr, intervals=False)
    roster = enrolled_roster(list(configs))
    current: list[Suite] = []

    def stop(reason: str) -> None:
        if not current:
            raise KeyboardInterrupt
        current[0].request_stop(reason)

    def stages() -> SuiteRecord:
        with stop_on_signals(stop), listening(roster, list(configs), port=args.port, wait_s=args.wait,
                                              say=lambda words: print(words, file=sys.stderr)) as controller:

            def stage_test(stage_config: TestConfig, out: Path) -> TestAcross:
                each = {host: record.stage_config(stage_config.test_type, config) for host, config in configs.items()}
                return TestAcross(controller, each, out, view, simulate=args.simulate)

            current.append(Suite(record, folder, stage_test, on_stage=_announce(record)))
            return current[0].run()

    ended = before_a_test(stages)
    if isinstance(ended, int):
        return ended
    return _ended(record, folder)


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
