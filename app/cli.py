"""The headless command line: init, validate, run, engine (the JetstressCmd of Jetwise).

Exit codes (`engine.protocol.ExitCode`): 0 pass (or valid), 1 fail, 2 invalid input, 3 aborted or engine error.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from pydantic import BaseModel

from app.history import HistoryError, cmd_history
from app.report_cli import cmd_report
from app.tune import cmd_tune, simulated_model
from engine.io.files import database_file_path, log_file_path, remove_jetwise_files
from engine.io.platform import default_backend
from engine.io.preflight import validate_config
from engine.model.config import LOG_FILES_PER_DATABASE, DatabaseSpec, MailboxProfile, TestConfig, TestType, save_config
from engine.model.units import format_bytes, format_duration, parse_duration_s
from engine.model.validation import Problem, errors_only, validate_data
from engine.protocol import (
    STOP_COMMAND,
    ExitCode,
    HelloEvent,
    IntervalEvent,
    LogEvent,
    PhaseEvent,
    ProgressEvent,
    ResultEvent,
    StartEvent,
    to_json_line,
)
from engine.results.schema import RunResult
from engine.run.runner import InvalidConfigError, Runner, new_run_id
from engine.run.simulation import PROFILES, StorageModel, runner_for
from engine.run.sinks import fan_out
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store, StoreError
from engine.tuning.tuner import calibration_rule
from engine.version import __version__

MICROSOFT_IOPS_PER_THREAD = 135

# Which command-line flag each configuration field comes from, so a problem is shown
# where the engineer typed the value.
FIELD_FLAGS = {
    "profile.mailboxes": "--mailboxes",
    "profile.iops_per_mailbox": "--iops-per-mailbox",
    "profile.mailbox_size_mb": "--mailbox-size-mb",
    "thread_count": "--threads",
    "sluggish_sessions": "--sluggish-sessions",
    "duration_s": "--duration",
    "warmup_s": "--warmup",
    "test_type": "--type",
    "capacity_percent": "--capacity-percent",
    "copies_per_database": "--copies",
    "background_maintenance": "--background-maintenance",
    "database_cache_min_mb": "--cache-min-mb",
    "database_cache_max_mb": "--cache-max-mb",
    "databases": "--databases",
}


class UsageError(Exception):
    """Bad input on the command line: exit code 2 with this message."""


# Argument parsing ---------------------------------------------------------------------


def _duration_type(*, allow_zero: bool) -> Callable[[str], float]:
    """An argparse type for durations; a warm-up may be zero, a duration may not."""

    def parse(text: str) -> float:
        try:
            return parse_duration_s(text, allow_zero=allow_zero)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from exc

    return parse


_duration = _duration_type(allow_zero=False)
_warmup = _duration_type(allow_zero=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jetwise",
        description="Prove that storage carries an Exchange-style mailbox workload.",
    )
    parser.add_argument("--version", action="version", version=f"Jetwise {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    init = commands.add_parser("init", help="write a complete test configuration with defaults")
    init.add_argument("output", type=Path, metavar="OUT.json")
    init.add_argument("--databases", type=int, default=2, help="number of databases (default 2)")
    init.add_argument(
        "--db-path", action="extend", nargs="+", type=str, default=None, metavar="DIR",
        help="database folder per database; one value with {n} (F:\\DB{n}) or a base folder gets DB1, DB2, ...",
    )
    init.add_argument(
        "--log-path", action="extend", nargs="+", type=str, default=None, metavar="DIR",
        help="log folder per database; one value with {n} or a base folder gets Log1, Log2, ...",
    )
    init.add_argument("--mailboxes", type=int, default=1000)
    init.add_argument("--iops-per-mailbox", type=float, default=0.1)
    init.add_argument("--mailbox-size-mb", type=int, default=1024)
    init.add_argument("--threads", type=int, default=None, help="thread count for the server (default: Microsoft's rule, target / 135)")
    init.add_argument("--sluggish-sessions", type=int, default=1)
    init.add_argument("--duration", type=_duration, default=7200.0, help="e.g. 2h, 30m, 45s (default 2h)")
    init.add_argument("--warmup", type=_warmup, default=None, help="warm-up before measuring (default 60s)")
    init.add_argument("--type", choices=[t.value for t in TestType], default=TestType.PERFORMANCE.value)
    init.add_argument("--capacity-percent", type=float, default=100.0, help="share of the computed database size to create")
    init.add_argument("--copies", type=int, default=1, help="copies per database; each extra copy replicates the log (default 1)")
    init.add_argument(
        "--background-maintenance", choices=["on", "off"], default="on",
        help="sequential database maintenance reads beside the transactions (default on)",
    )
    init.add_argument("--cache-min-mb", type=float, default=None, help="minimum database cache per instance (default 384)")
    init.add_argument("--cache-max-mb", type=float, default=None, help="maximum database cache per instance (default 3072)")
    init.add_argument("--force", action="store_true", help="overwrite OUT.json if it exists")

    validate = commands.add_parser("validate", help="check a configuration and print every problem")
    validate.add_argument("config", type=Path, metavar="CONFIG.json")

    run = commands.add_parser("run", help="run a test and judge it")
    run.add_argument("config", type=Path, nargs="?", metavar="CONFIG.json")
    run.add_argument("--quick", action="store_true", help="about one minute on 2 small databases in the output folder")
    run.add_argument("--output", type=Path, default=None, help="run folder (default ./jetwise-runs/RUN-ID)")
    run.add_argument("--duration", type=_duration, default=None, help="override the measured duration")
    run.add_argument("--warmup", type=_warmup, default=None, help="override the warm-up")
    run.add_argument("--json", action="store_true", help="print the result document on stdout")
    run.add_argument("--session", default=None, help="tuning session the run belongs to (default: the file's name)")
    run.add_argument(
        "--simulate", default=None, metavar="PROFILE",
        help=f"run on a simulated storage model instead of the disk ({', '.join(sorted(PROFILES))})",
    )

    engine = commands.add_parser("engine", help="run a test, writing events as JSON lines (for front ends)")
    engine.add_argument("config", type=Path, metavar="CONFIG.json")
    engine.add_argument("--output", type=Path, required=True)
    engine.add_argument("--session", default=None, help="tuning session the run belongs to (default: the file's name)")
    engine.add_argument(
        "--calibrate", type=_duration, default=None, metavar="DURATION",
        help="a calibration run: warm up until latency settles, judge the settled samples, at most this long",
    )
    engine.add_argument("--simulate", default=None, metavar="PROFILE", help="run on a simulated storage model")

    tune = commands.add_parser("tune", help="find the passing thread count and SluggishSessions in short runs")
    tune.add_argument("config", type=Path, metavar="CONFIG.json")
    tune.add_argument("--session", default=None, help="tuning session (default: the file's name)")
    tune.add_argument("--calibration", type=_duration, default=180.0, help="longest calibration run (default 3m)")
    tune.add_argument("--max-runs", type=int, default=8, help="give up after this many calibration runs (default 8)")
    tune.add_argument("--output", type=Path, default=None, help="folder for the runs (default ./jetwise-runs/tune-TIME)")
    tune.add_argument("--json", action="store_true", help="print the outcome as JSON on stdout")
    tune.add_argument(
        "--simulate", default=None, metavar="PROFILE",
        help=f"tune against a simulated storage model ({', '.join(sorted(PROFILES))})",
    )

    report = commands.add_parser("report", help="the printable report of a run: HTML, PDF, CSV")
    report.add_argument("run", metavar="RUN", help="a run id from the store, or a run output folder")
    report.add_argument("--html", type=Path, default=None, metavar="FILE", help="self-contained HTML report")
    report.add_argument("--pdf", type=Path, default=None, metavar="FILE", help="PDF report")
    report.add_argument("--csv", type=Path, default=None, metavar="FILE", help="interval samples, a row per interval per instance")
    report.add_argument("--page-size", choices=["a4", "letter"], default="a4", help="PDF page size (default A4)")

    history = commands.add_parser("history", help="tuning sessions and their runs")
    history.add_argument("--session", default=None, help="list this session's runs")
    history.add_argument("--json", action="store_true", help="print the sessions and runs as JSON")
    return parser


# Configuration building ------------------------------------------------------------------


def expand_paths(values: list[str] | None, count: int, default_base: Path, leaf: str) -> list[Path]:
    """Turn the --db-path/--log-path values into one folder per database."""
    if not values:
        return [default_base / f"{leaf}{n}" for n in range(1, count + 1)]
    if len(values) == 1:
        value = values[0]
        if "{n}" in value:
            return [Path(value.replace("{n}", str(n))) for n in range(1, count + 1)]
        if count == 1:
            return [Path(value)]
        return [Path(value) / f"{leaf}{n}" for n in range(1, count + 1)]
    if len(values) != count:
        raise UsageError(f"{len(values)} paths given for {count} databases; give one per database or one with {{n}}")
    return [Path(v) for v in values]


def default_thread_count(target_iops: float, databases: int) -> int:
    """Microsoft's manual starting point: one thread per 135 target IOPS, at least one per database."""
    return max(databases, math.ceil(target_iops / MICROSOFT_IOPS_PER_THREAD))


def config_from_init(args: argparse.Namespace) -> tuple[TestConfig | None, list[Problem]]:
    if args.databases < 1:
        return None, [Problem("databases", f"must be at least 1 (got {args.databases})")]
    base = Path.cwd() / "jetwise-data"
    db_paths = expand_paths(args.db_path, args.databases, base, "DB")
    log_paths = expand_paths(args.log_path, args.databases, base, "Log")
    profile = {
        "mailboxes": args.mailboxes,
        "iops_per_mailbox": args.iops_per_mailbox,
        "mailbox_size_mb": args.mailbox_size_mb,
    }
    threads = args.threads
    if threads is None:
        target = max(0.0, args.mailboxes * args.iops_per_mailbox * 1.2)
        threads = default_thread_count(target, args.databases)
    data: dict[str, Any] = {
        "profile": profile,
        "databases": [{"database_path": str(d), "log_path": str(lg)} for d, lg in zip(db_paths, log_paths, strict=False)],
        "thread_count": threads,
        "sluggish_sessions": args.sluggish_sessions,
        "duration_s": args.duration,
        "test_type": args.type,
        "capacity_percent": args.capacity_percent,
        "copies_per_database": args.copies,
        "background_maintenance": args.background_maintenance == "on",
    }
    if args.warmup is not None:
        data["warmup_s"] = args.warmup
    if args.cache_min_mb is not None:
        data["database_cache_min_mb"] = args.cache_min_mb
    if args.cache_max_mb is not None:
        data["database_cache_max_mb"] = args.cache_max_mb
    return validate_data(data)


def quick_config(output: Path) -> TestConfig:
    """Two small databases beside the run folders: about a minute on a healthy disk.

    The data folder is the same for every quick check under one runs folder, so quick
    checks repeat one storage design and land in one tuning session.
    """
    data = output.parent / "quick-check-data"
    return TestConfig(
        description="Quick check: 2 small databases, about one minute",
        databases=[DatabaseSpec(database_path=data / f"DB{n}", log_path=data / f"Log{n}") for n in (1, 2)],
        profile=MailboxProfile(mailboxes=100, iops_per_mailbox=0.1, mailbox_size_mb=1024),
        capacity_percent=0.5,  # 256 MB per database
        thread_count=2,
        duration_s=45.0,
        warmup_s=10.0,
    )


def _flag(field: str) -> str:
    for key, flag in FIELD_FLAGS.items():
        if field == key or field.startswith(key + "["):
            return flag
    if ".database_path" in field:
        return "--db-path " + field.split(".")[0]
    if ".log_path" in field:
        return "--log-path " + field.split(".")[0]
    return field


def print_problems(problems: Sequence[Problem], stream: TextIO, *, flags: bool = False) -> None:
    for problem in problems:
        where = _flag(problem.field) if flags else problem.field
        prefix = "warning: " if problem.severity != "error" else "error: "
        print(f"{prefix}{where}: {problem.message}" if where else f"{prefix}{problem.message}", file=stream)


# Commands ----------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    if args.output.exists() and not args.force:
        raise UsageError(f"{args.output} exists; use --force to overwrite it")
    config, problems = config_from_init(args)
    if config is None:
        print_problems(problems, sys.stderr, flags=True)
        return ExitCode.INVALID
    save_config(config, args.output)
    print(
        f"Wrote {args.output}: {config.database_count} database(s) of {format_bytes(config.database_size_bytes)}, "
        f"target {config.target_transactional_iops:,.1f} transactional IOPS, {config.thread_count} thread(s)",
        file=sys.stderr,
    )
    return ExitCode.PASS


def load_checked(path: Path) -> tuple[TestConfig | None, list[Problem]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return None, [Problem("", f"cannot read {path}: {exc.strerror or exc}")]
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return None, [Problem("", f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")]
    return validate_data(text)


def cmd_validate(args: argparse.Namespace) -> int:
    config, problems = load_checked(args.config)
    if config is not None:
        problems, _ = validate_config(config, default_backend())
    print_problems(problems, sys.stdout)
    if errors_only(problems):
        print(f"{args.config}: {len(errors_only(problems))} problem(s)", file=sys.stderr)
        return ExitCode.INVALID
    print(f"{args.config}: valid", file=sys.stderr)
    return ExitCode.PASS


class _StopOnSignal:
    """First Ctrl-C asks the run to stop (it still writes its result); a second one exits at once."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.count = 0

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        self.count += 1
        if self.count > 1:
            raise KeyboardInterrupt
        self.runner.request_stop("stopped by the user (Ctrl-C)" if signum == signal.SIGINT else "stopped by a signal")


class ConsoleRenderer:
    """Shows a run's events on stderr: phases, creation progress, one line per interval."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last_progress = 0.0
        self.target = 0.0

    def __call__(self, event: BaseModel) -> None:
        s = self.stream
        if isinstance(event, StartEvent):
            if event.session:
                print(f"   run {event.run_id} in tuning session '{event.session}'", file=s)
        elif isinstance(event, PhaseEvent):
            print(f"== {event.message}", file=s)
        elif isinstance(event, ProgressEvent):
            now = time.monotonic()
            if now - self.last_progress < (0.2 if self.tty else 2.0) and event.done_bytes < event.total_bytes:
                return
            self.last_progress = now
            eta = format_duration(event.eta_s) if event.eta_s is not None else "?"
            line = (
                f"   creating databases: {format_bytes(event.done_bytes)} of {format_bytes(event.total_bytes)} "
                f"({format_bytes(event.rate_bytes_per_s)}/s, ETA {eta})"
            )
            print(("\r" + line) if self.tty else line, end="" if self.tty else "\n", file=s)
            if self.tty and event.done_bytes >= event.total_bytes:
                print(file=s)
        elif isinstance(event, IntervalEvent):
            sample = event.sample
            sm = sample.summary
            phase = "warm-up" if sample.phase == "warmup" else "measure"
            print(
                f"   [{phase} {format_duration(sample.elapsed_s)}, {format_duration(sample.remaining_s)} left] "
                f"IOPS {sm.transactional_iops:,.1f} | DB read {sm.db_read_avg_latency_ms:.2f} ms "
                f"(max {sm.db_read_max_latency_ms:.1f}) | log write {sm.log_write_avg_latency_ms:.2f} ms "
                f"| CPU {sample.host.cpu_percent:.0f} %",
                file=s,
            )
        elif isinstance(event, LogEvent):
            if event.level != "info":
                print(f"   {event.level}: {event.message}", file=s)
        elif isinstance(event, ResultEvent):
            print_result(event.result, s)


def print_result(result: RunResult, stream: TextIO) -> None:
    summary = result.summary
    kind = " (tuning run)" if summary.run_kind == "tuning" else ""
    print(f"\nOverall test result: {summary.verdict.value.upper()}{kind}", file=stream)
    for reason in summary.reasons:
        print(f"  - {reason}", file=stream)
    print(
        f"Achieved {summary.achieved_transactional_iops:,.1f} of {summary.target_transactional_iops:,.1f} "
        f"target transactional IOPS over {summary.measured_s:.1f} s "
        f"({summary.threads} threads, SluggishSessions {summary.sluggish_sessions}, "
        f"{summary.threshold_set} thresholds)",
        file=stream,
    )
    for row in result.instances:
        print(
            f"  {row.name}: DB read {row.db_read_avg_latency_ms:.2f} ms avg / {row.db_read_max_latency_ms:.1f} ms max, "
            f"log write {row.log_write_avg_latency_ms:.2f} ms avg / {row.log_write_max_latency_ms:.1f} ms max, "
            f"{row.transactional_iops:,.1f} IOPS, {row.io_errors} errors",
            file=stream,
        )
        hit = row.db_cache_hit_ratio
        background = [f"cache hit {hit:.0%}" if hit is not None else "cache not referenced"]
        if row.bdm_reads_per_s:
            background.append(f"maintenance {row.bdm_reads_per_s * row.bdm_read_avg_bytes / 1e6:.1f} MB/s")
        if row.log_replication_reads_per_s:
            rate = row.log_replication_reads_per_s * row.log_replication_read_avg_bytes / 1e6
            background.append(f"log replication {rate:.1f} MB/s")
        print(f"    {', '.join(background)}", file=stream)
    if summary.host_bound:
        print("WARNING: the host's CPU was saturated while measuring; the engine, not the storage, may have set the pace",
              file=stream)
    if not result.unbuffered_io:
        print(f"WARNING: unbuffered I/O was not in effect ({result.unbuffered_io_detail})", file=stream)


def _simulated(name: str | None) -> StorageModel | None:
    try:
        model: StorageModel | None = simulated_model(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    return model


def cmd_tune_args(args: argparse.Namespace) -> int:
    if args.max_runs < 1:
        raise UsageError(f"--max-runs must be at least 1 (got {args.max_runs})")
    _simulated(args.simulate)
    config, problems = load_checked(args.config)
    if config is None:
        print_problems(problems, sys.stderr)
        return ExitCode.INVALID
    output = args.output or Path.cwd() / "jetwise-runs" / f"tune-{datetime.now():%Y%m%d-%H%M%S}"
    return cmd_tune(args, config, output)


def open_recorder(session_name: str, config: TestConfig, output: Path) -> RunRecorder:
    """The store's recorder for this run; a run of another storage design moves to its own session."""
    try:
        store = Store()
        name, note = store.resolve_session(session_name, config)
    except StoreError as exc:
        raise UsageError(str(exc)) from exc
    if note is not None:
        print(f"note: {note}", file=sys.stderr)
    return RunRecorder(store, name, output)


def _run_with(
    config: TestConfig,
    output: Path,
    emit: Any,
    install_signals: bool = True,
    session: str | None = None,
    simulate: str | None = None,
) -> tuple[int, RunResult | None, Runner]:
    run_id = new_run_id()
    model = _simulated(simulate)
    session_name = None
    if session is not None:
        recorder = open_recorder(session, config, output)
        session_name = recorder.session
        emit = fan_out(recorder, emit)
    runner = runner_for(model, config, output, emit, run_id=run_id, session=session_name)
    previous = None
    if install_signals and threading.current_thread() is threading.main_thread():
        handler = _StopOnSignal(runner)
        previous = signal.signal(signal.SIGINT, handler)
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, handler)
    try:
        result = runner.run()
    except InvalidConfigError as exc:
        print_problems(exc.problems, sys.stderr)
        return ExitCode.INVALID, None, runner
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return ExitCode.of(result.verdict), result, runner


def default_output() -> Path:
    return Path.cwd() / "jetwise-runs" / datetime.now().strftime("%Y%m%d-%H%M%S")


def cmd_run(args: argparse.Namespace) -> int:
    if args.quick == (args.config is not None):
        raise UsageError("give either CONFIG.json or --quick")
    output = args.output or default_output()
    if args.quick:
        config = quick_config(output)
    else:
        loaded, problems = load_checked(args.config)
        if loaded is None:
            print_problems(problems, sys.stderr)
            return ExitCode.INVALID
        config = loaded
    overrides: dict[str, Any] = {}
    if args.duration is not None:
        overrides["duration_s"] = args.duration
    if args.warmup is not None:
        overrides["warmup_s"] = args.warmup
    if overrides:
        overridden, problems = validate_data({**config.model_dump(mode="json"), **overrides})
        if overridden is None:
            print_problems(problems, sys.stderr)
            return ExitCode.INVALID
        config = overridden
    if args.quick:
        for spec in config.databases:
            spec.database_path.parent.mkdir(parents=True, exist_ok=True)
    session = args.session or ("quick check" if args.quick else args.config.stem)
    print(f"Run folder: {output}", file=sys.stderr)
    code, result, _ = _run_with(config, output, ConsoleRenderer(sys.stderr), session=session, simulate=args.simulate)
    if args.quick:
        _remove_quick_data(config)
    if result is not None and args.json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
    if result is not None:
        print(f"Results: {output}", file=sys.stderr)
    return code


def _remove_quick_data(config: TestConfig) -> None:
    """The quick run's databases are scratch: remove Jetwise's own files, then empty folders."""
    paths: list[Path] = []
    for index, spec in enumerate(config.databases):
        paths.append(database_file_path(spec.database_path, index))
        paths.extend(log_file_path(spec.log_path, index, slot) for slot in range(LOG_FILES_PER_DATABASE))
    remove_jetwise_files(paths)
    folders = {p for spec in config.databases for p in (spec.database_path, spec.log_path)}
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            pass
    try:
        config.databases[0].database_path.parent.rmdir()
    except OSError:
        pass


def cmd_engine(args: argparse.Namespace) -> int:
    """Events as JSON lines on stdout, a hello first; a line 'stop' on stdin stops the run (works on Windows too)."""
    sys.stdout.write(to_json_line(HelloEvent()))
    sys.stdout.flush()
    config, problems = load_checked(args.config)
    if config is None:
        for problem in problems:
            stamp = datetime.now().astimezone().isoformat(timespec="seconds")
            sys.stdout.write(to_json_line(LogEvent(time=stamp, level="error", message=str(problem))))
        sys.stdout.flush()
        return ExitCode.INVALID
    lock = threading.Lock()

    def emit(event: BaseModel) -> None:
        with lock:
            sys.stdout.write(to_json_line(event))
            sys.stdout.flush()

    runner_box: list[Runner] = []

    def watch_stdin() -> None:
        for line in sys.stdin:
            if line.strip().lower() == STOP_COMMAND and runner_box:
                runner_box[0].request_stop("stopped by the user")
                return

    output = args.output
    rule = None
    if args.calibrate is not None:
        config, rule = calibration_rule(config, args.calibrate)
    model = _simulated(args.simulate)
    try:
        store = Store()
        session, note = store.resolve_session(args.session or args.config.stem, config)
    except StoreError as exc:
        emit(LogEvent(time=datetime.now().astimezone().isoformat(timespec="seconds"), level="error", message=str(exc)))
        return ExitCode.INVALID
    if note is not None:
        emit(LogEvent(time=datetime.now().astimezone().isoformat(timespec="seconds"), level="warning", message=note))
    recorder = RunRecorder(store, session, output)
    runner = runner_for(model, config, output, fan_out(recorder, emit), settle=rule, session=session)
    runner_box.append(runner)
    if sys.stdin is not None and not sys.stdin.isatty():
        threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()
    if threading.current_thread() is threading.main_thread():
        handler = _StopOnSignal(runner)
        signal.signal(signal.SIGINT, handler)
        if hasattr(signal, "SIGTERM"):
            signal.signal(signal.SIGTERM, handler)
    try:
        result = runner.run()
    except InvalidConfigError as exc:
        for problem in exc.problems:
            emit(LogEvent(time=datetime.now().astimezone().isoformat(timespec="seconds"), level="error", message=str(problem)))
        return ExitCode.INVALID
    return ExitCode.of(result.verdict)


def open_window() -> int:
    """`jetwise` alone opens the wizard; without a display it says how to run headless."""
    headless = sys.platform.startswith("linux") and not any(
        os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    )
    if headless:
        print("error: no display to open the window on; on a headless machine use: jetwise run --quick "
              "(or jetwise --help)", file=sys.stderr)
        return ExitCode.ABORTED
    try:
        from app.window import main as window_main
    except ImportError as exc:  # Qt's system libraries are missing
        print(f"error: the window cannot start ({exc}); on a headless machine use: jetwise run --quick", file=sys.stderr)
        return ExitCode.ABORTED
    return window_main([])


def run_cli(argv: Sequence[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exc:  # argparse prints its own message; its code 2 matches ours
        return int(exc.code or 0)
    handlers = {
        "init": cmd_init, "validate": cmd_validate, "run": cmd_run, "engine": cmd_engine, "history": cmd_history,
        "tune": cmd_tune_args, "report": cmd_report,
    }
    if args.command is None:
        return open_window()
    try:
        return handlers[args.command](args)
    except (UsageError, HistoryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitCode.INVALID


