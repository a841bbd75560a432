"""`jetwise cmd /c JetstressConfig.xml ...`: JetstressCmd's command line, so that a runbook works by changing the
program's name.

The test runs as `jetwise run` runs it (the same engine, run store and session), in a folder of its own
under /output; its Jetstress-layout result files (`<Type>_<yyyy>_<M>_<d>_<H>_<m>_<s>.html` and `.xml`) are
written in /output itself, where scripts look for the newest. The thread count is /threads, else the
file's ThreadCount when its SuppressTuning is true, else found first by auto-tune (`jetwise tune`'s load
sweep and calibration runs), as Jetstress tunes when no thread count is given.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from app.cli.cmd_switches import HELP, CmdSwitches, parse_switches
from app.cli.configs import checked_text, load_xml_or_say, with_changes
from app.cli.console import ConsoleRenderer, print_problems
from app.cli.run import run_until_stopped
from app.cli.tune import tune
from app.cli.xml_files import databases_from
from app.context import AppContext, UsageError, writable_destination
from app.opening import OpenRun
from engine.io.config_file import read_config_text
from engine.io.safety import make_folders
from engine.model.config import Scenario, TestConfig, TestType
from engine.model.config_text import is_jetstress_xml
from engine.model.jetstress.elements import STRESS_AFTER_S
from engine.model.validation import Problem
from engine.protocol import ExitCode
from engine.results.document import new_folder
from engine.run.request import RunRequest
from engine.run.runner import InvalidConfigError

CALIBRATION_S = 180.0  # each auto-tune confirmation run at most, as `jetwise tune` by default
MAX_TUNING_RUNS = 8


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = HELP.split("\n\n")[0].removeprefix("usage: ")
    parser.description = HELP.split("\n\n", 1)[1]
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("switches", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def _load(switches: CmdSwitches) -> tuple[TestConfig | None, bool]:
    """The configuration /c names with the folders typed, and whether its file asks for auto-tune; problems said."""
    path = switches.config
    assert path is not None
    databases = databases_from(switches.dbpath, switches.logpath, ("/dbpath", "/logpath"))
    text = read_config_text(path)
    if isinstance(text, Problem):
        print_problems([text], sys.stderr)
        return None, False
    if is_jetstress_xml(path, text):
        loaded = load_xml_or_say(path, text, databases, sys.stderr)
        return (None, False) if loaded is None else (loaded.config, loaded.auto_tune)
    config, problems = checked_text(path, text)
    if config is None:
        print_problems(problems, sys.stderr)
        return None, False
    changes = {"databases": databases} if databases is not None else {}
    return with_changes(config, changes, sys.stderr, said=problems), False  # sized, for the folders it runs on


def _overridden(config: TestConfig, switches: CmdSwitches) -> TestConfig | None:
    changes: dict[str, Any] = {}
    if switches.timeout_s is not None:
        changes["duration_s"] = switches.timeout_s
        if config.test_type == TestType.PERFORMANCE and switches.timeout_s > STRESS_AFTER_S:
            changes["test_type"] = TestType.STRESS.value
            print("note: /timeout is over 6 hours: the performance test runs as a stress test with the Lenient "
                  "thresholds, as Jetstress runs it", file=sys.stderr)
    if switches.threads is not None:
        changes["thread_count"] = switches.threads
    if switches.source is not None:
        changes["database_source"] = switches.source
    if switches.capacity_percent is not None:
        changes["capacity_percent"] = switches.capacity_percent
    if switches.throughput_percent is not None:
        changes.update(scenario=Scenario.DISK_THROUGHPUT.value, throughput_percent=switches.throughput_percent)
    return with_changes(config, changes, sys.stderr) if changes else config


def run(args: argparse.Namespace, context: AppContext) -> int:
    switches = parse_switches(list(args.switches))
    if switches.help:
        sys.stdout.write(HELP)
        return ExitCode.PASS
    output = switches.output or Path.cwd()
    if output.exists() and not output.is_dir():
        raise UsageError(f"/output {output} is a file; give the folder for the result files")
    writable_destination("/output" if switches.output else "the current folder", output, folder=True)
    loaded, auto_tune = _load(switches)
    config = None if loaded is None else _overridden(loaded, switches)
    if config is None:
        return ExitCode.INVALID
    assert switches.config is not None
    stamp = f"{datetime.now():%Y%m%d-%H%M%S}"
    opened = OpenRun(context, RunRequest(config=config, work="tune", output=new_folder(output, f"jetwise-tune-{stamp}"),
                                         session=switches.config.stem, simulate=switches.simulate,
                                         calibration_s=CALIBRATION_S, max_runs=MAX_TUNING_RUNS),
                     note=lambda words: print(f"note: {words}", file=sys.stderr))
    if switches.threads is None and auto_tune and not (config.scans or config.recovers):
        tuned = _auto_tune(opened, config)
        if isinstance(tuned, int):
            return tuned
        config = tuned
    folder = new_folder(output, f"jetwise-run-{stamp}")
    print(f"Run folder: {folder}; result files in {output}", file=sys.stderr)
    made = not output.exists()
    make_folders(output)
    result = run_until_stopped(opened.runner(ConsoleRenderer(sys.stderr), config=config, output=folder,
                                             jetstress_folder=output))
    if result is None and made:  # refused before it began: the folder made for it goes again, if still empty
        with contextlib.suppress(OSError):
            output.rmdir()
    return ExitCode.INVALID if result is None else ExitCode.of(result.verdict)


def _auto_tune(opened: OpenRun, config: TestConfig) -> TestConfig | int:
    """The configuration at the thread count and SluggishSessions auto-tune found, or the exit code when it found none."""
    print(f"Auto-tune (no /threads, and the file's SuppressTuning is false): calibration runs in {opened.request.output}",
          file=sys.stderr)
    try:
        outcome = tune(opened, config)
    except InvalidConfigError as exc:
        print_problems(exc.problems, sys.stderr)
        return ExitCode.INVALID
    if outcome.status != "converged" or not outcome.recommendation:
        advice = outcome.advice
        print(f"Auto-tune found no passing setting ({outcome.status}); no test was run. {advice.rationale if advice else ''}"
              .rstrip(), file=sys.stderr)
        for line in advice.lines if advice is not None else []:
            print(f"  note: {line}", file=sys.stderr)
        return ExitCode.ABORTED if outcome.status in ("aborted", "host-bound") else ExitCode.FAIL
    threads, sluggish = outcome.recommendation
    print(f"Auto-tune: {threads} thread(s), SluggishSessions {sluggish}", file=sys.stderr)
    return config.at_setting(threads, sluggish)
