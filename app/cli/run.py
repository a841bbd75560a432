"""`jetwise run CONFIG.json | --quick`: run a test, show it as it goes, and judge it; with `--hosts`, across servers
(`app.cli.across`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.across import add_host_arguments, request_of
from app.cli.configs import load_or_say, with_changes
from app.cli.console import ConsoleRenderer, print_problems
from app.cli.options import add_option_flags, option_values, path_type, session_type
from app.cli.signals import run_or_refuse
from app.context import AppContext, UsageError
from app.opening import OpenRun
from engine.io.cleanup import leftover_files
from engine.io.files import remove_jetwise_files
from engine.io.safety import make_folders
from engine.model.config import TestConfig
from engine.model.derive import quick_config
from engine.protocol import ExitCode
from engine.results.document import output_folder_problem, stamped_folder
from engine.results.schema import RunResult
from engine.run.runner import Runner
from engine.run.sources.model import PROFILES

# what a run may change in the configuration it was given
OVERRIDES = ("duration_s", "warmup_s", "thresholds.maximum_latency", "thresholds.log_interval_s",
             "thresholds.minimum_measured_s")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, nargs="?", metavar="CONFIG.json")
    parser.add_argument("--quick", action="store_true", help="about one minute on 2 small databases in the output folder")
    parser.add_argument("--output", type=path_type, default=None, help="run folder (default ./jetwise-runs/RUN-TIME)")
    parser.add_argument("--json", action="store_true", help="print the result document on stdout")
    parser.add_argument("--session", type=session_type, default=None, help="tuning session the run belongs to (default: the file's name)")
    parser.add_argument(
        "--simulate", default=None, metavar="PROFILE",
        help=f"run on a simulated storage model instead of the disk ({', '.join(sorted(PROFILES))})",
    )
    add_host_arguments(parser, "one test across these enrolled servers, each running CONFIG or its own FILE "
                               "(jetwise hosts add HOST; jetwise agent on each)")
    add_option_flags(parser, OVERRIDES, prefix="instead of the configuration's: ")


def default_output() -> Path:
    """A new folder under ./jetwise-runs named by the run's id (when it starts, and six hex digits)."""
    runs = Path.cwd() / "jetwise-runs"
    if runs.exists() and not runs.is_dir():
        raise UsageError(f"{runs} is a file where Jetwise keeps its runs: move it, or give --output")
    return stamped_folder(runs)


def _config(args: argparse.Namespace, output: Path) -> TestConfig | None:
    if args.quick:
        config = quick_config(output)
    else:
        loaded = load_or_say(args.config, sys.stderr)
        if loaded is None:
            return None
        config = loaded
    overrides = option_values(args)
    return with_changes(config, overrides, sys.stderr) if overrides else config


def run(args: argparse.Namespace, context: AppContext) -> int:
    if args.quick == (args.config is not None):
        raise UsageError("give either CONFIG.json or --quick")
    output = args.output or default_output()
    taken = output_folder_problem(output)
    if taken is not None:
        raise UsageError(f"--output {taken}")
    if args.hosts is not None and args.quick:
        raise UsageError("--hosts runs CONFIG.json across servers; --quick runs on this server alone")
    wanted = args.session or ("quick check" if args.quick else args.config.stem)
    request = request_of(args, _config(args, output), output=output, session=wanted)
    if request is None:
        return ExitCode.INVALID
    opened = OpenRun(context, request, note=lambda words: print(f"note: {words}", file=sys.stderr))
    config = request.config
    if args.quick:
        for spec in config.databases:
            try:
                make_folders(spec.database_path.parent)
            except OSError as exc:
                raise UsageError(f"the quick check cannot make its folders in {spec.database_path.parent.parent} "
                                 f"({exc.strerror or exc}); run it from a folder you can write, or give --output") from exc
    print(f"Run folder: {output}", file=sys.stderr)
    try:
        with opened.sourced():
            result = run_until_stopped(opened.runner(ConsoleRenderer(sys.stderr)))
    finally:
        if args.quick:
            remove_quick_data(config)
    if result is None:
        return ExitCode.INVALID
    if args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    print(f"Results: {output}", file=sys.stderr)
    return ExitCode.of(result.verdict)


def run_until_stopped(runner: Runner) -> RunResult | None:
    """The run's result, a signal (Ctrl+C) stopping it; None once the problems that refused it are printed."""
    return run_or_refuse(runner.request_stop, runner.run, lambda problems: print_problems(problems, sys.stderr))


def remove_quick_data(config: TestConfig) -> None:
    """The quick run's databases are scratch: remove Jetwise's own files (as `jetwise clean` finds them: the databases,
    their flush maps and the logs), then the folders left empty."""
    remove_jetwise_files(leftover_files(config).paths)
    folders = {p for spec in config.databases for p in (*spec.database_paths, spec.log_path)}
    for folder in [*sorted(folders, key=lambda p: len(p.parts), reverse=True), config.databases[0].database_path.parent]:
        try:
            folder.rmdir()
        except OSError:
            pass
