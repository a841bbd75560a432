"""`jetwise engine CONFIG.json --output DIR [--hosts HOST,...]` or `jetwise engine REQUEST.json` (the window's request
file, `engine.run.request`): a run for a front end in another process; across the configuration's servers (or those
--hosts names), their agents run it once every one has connected, as `jetwise run --hosts` does.

Events go to stdout as JSON lines, a hello with the protocol version first; a line with
the stop command on stdin stops the run (a pipe works on Windows, where signals do not).
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import threading
from datetime import datetime
from pathlib import Path

from app.cli.across import add_host_arguments, request_of
from app.cli.configs import load_checked
from app.cli.options import add_length_flags, duration_type, path_type, session_type
from app.cli.signals import run_or_refuse
from app.context import AppContext, UsageError
from app.opening import NotBegunError, OpenRun
from engine.hosts.controller import Arrived
from engine.io.safety import destination_problem
from engine.model.options import option
from engine.model.validation import HOSTS_FIELD, RUN_FOLDER_FIELD, Problem
from engine.protocol import (
    STOP_COMMAND,
    ExitCode,
    HelloEvent,
    LogEvent,
    LogLevel,
    RefusalEvent,
    RunEvent,
    SuiteEvent,
    WaitingEvent,
    to_json_line,
)
from engine.run.request import REQUEST_SUFFIX, RunRequest
from engine.run.runner import Runner
from engine.run.suite import Suite, SuiteError, open_suite
from engine.store.sqlite import StoreError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG.json")
    parser.add_argument("--output", type=path_type, default=None, metavar="FOLDER",
                        help="the run's folder (with --suite, the suite's), made if it is new; none with a request "
                             f"file (*{REQUEST_SUFFIX}, the window's), which says it")
    parser.add_argument("--session", type=session_type, default=None, help="tuning session the run belongs to (default: the file's name)")
    parser.add_argument(
        "--calibrate", type=duration_type(option("duration_s")), default=None, metavar="DURATION",
        help="a calibration run: warm up until latency settles, judge the settled samples, at most this long",
    )
    parser.add_argument(
        "--sweep", action="store_true",
        help="a load sweep: step the load from the configuration's threads and SluggishSessions toward the latency "
             "limit, each step settled and judged (at most 8 minutes)",
    )
    parser.add_argument("--simulate", default=None, metavar="PROFILE", help="run on a simulated storage model")
    parser.add_argument("--suite", action="store_true",
                        help="the ESRP suite in the --output folder (resumed when it holds one of this configuration)")
    add_host_arguments(parser, "one test across these enrolled servers, each running CONFIG (jetwise agent on each; "
                               "default: the servers CONFIG names)", metavar="HOST,...")
    add_length_flags(parser)


class _Stream:
    """Events to stdout, one JSON line each, whole lines even from several threads.

    When the front end is gone (its end of the pipe closed), the process's stdout takes
    output silently (`app.main`): the run is stopping by then (`_watch_stdin`) and its
    result and samples still go to the output folder.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, event: RunEvent) -> None:
        with self._lock:
            sys.stdout.write(to_json_line(event))
            sys.stdout.flush()

    def log(self, level: LogLevel, message: str) -> None:
        self(LogEvent(time=datetime.now().astimezone().replace(microsecond=0), level=level, message=message))


WINDOW_GONE = "stopped because the window that started the run closed or ended"


def _stdin_is_a_pipe() -> bool:
    try:
        return stat.S_ISFIFO(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return False


def _watch_stdin(runner: Runner | Suite, pipe: bool) -> None:
    """The stop command stops the run. When stdin is a pipe from the front end, its end stops the
    run too: the front end ended however it ends (closed, crashed or killed) and nobody is left
    to watch. (Python reports Windows's anonymous pipes as FIFOs too.)"""
    for line in sys.stdin:
        if line.strip().lower() == STOP_COMMAND:
            runner.request_stop("stopped by the user")
            return
    if pipe:
        runner.request_stop(WINDOW_GONE)


def run(args: argparse.Namespace, context: AppContext) -> int:
    if args.output is None and not args.config.name.endswith(REQUEST_SUFFIX):
        raise UsageError("the following arguments are required: --output ('jetwise engine --help' lists what it takes)")
    stream = _Stream()
    stream(HelloEvent())
    request = _request(args, stream)
    if request is None:
        return ExitCode.INVALID
    hosts = request.config.server_names
    try:
        opened = OpenRun(context, request, note=lambda words: stream.log("warning", words),
                         say=lambda words: stream.log("info", words), arrived=_waiting(stream, hosts))
    except StoreError as exc:
        return _refused(stream, Problem("session", str(exc)))
    except NotBegunError as exc:
        return _refused(stream, Problem(HOSTS_FIELD, str(exc).removeprefix("--hosts: ")))
    if request.work == "suite":
        return _suite(opened, stream)
    try:
        with opened.sourced():
            runner = opened.runner(stream)
            _watch(runner)
            result = run_or_refuse(runner.request_stop, runner.run, lambda problems: stream(RefusalEvent(problems=problems)))
    except NotBegunError as exc:
        return _refused(stream, Problem(HOSTS_FIELD, str(exc).removeprefix("--hosts: ")))
    return ExitCode.INVALID if result is None else ExitCode.of(result.verdict)


def _request(args: argparse.Namespace, stream: _Stream) -> RunRequest | None:
    """The window's request file, or the request the arguments make of CONFIG; None once its problems are refused."""
    if args.config.name.endswith(REQUEST_SUFFIX):
        try:
            request = RunRequest.model_validate_json(args.config.read_bytes())
        except (OSError, ValueError) as exc:
            _refused(stream, Problem("request", f"{args.config} cannot be read: {exc}"))
            return None
        if (where := destination_problem(request.output, folder=True)) is not None:
            _refused(stream, Problem(RUN_FOLDER_FIELD, where))
            return None
        return request
    config, problems = load_checked(args.config)
    if (where := destination_problem(args.output, folder=True)) is not None:
        problems = [*problems, Problem(RUN_FOLDER_FIELD, where)]
    if config is None or where is not None:
        stream(RefusalEvent(problems=problems))
        return None
    work = "suite" if args.suite else "sweep" if args.sweep else "calibration" if args.calibrate is not None else "test"
    asked = request_of(args, config, work=work, output=args.output, session=args.session or args.config.stem,
                         calibration_s=args.calibrate, performance_s=args.performance_duration,
                         stress_s=args.stress_duration)
    if asked is None:  # the servers given here, not the file's: said on stderr where one cannot be used
        _refused(stream, Problem(HOSTS_FIELD, "a server's configuration cannot be used (the lines above say why)"))
    return asked


def _refused(stream: _Stream, problem: Problem) -> int:
    stream(RefusalEvent(problems=[problem]))
    return ExitCode.INVALID


def _watch(runner: Runner | Suite) -> None:
    """The stop command on stdin stops the run (`_watch_stdin`), when stdin is no console."""
    if sys.stdin is not None and not sys.stdin.isatty():
        threading.Thread(target=_watch_stdin, args=(runner, _stdin_is_a_pipe()), name="stdin-watch", daemon=True).start()


def _waiting(stream: _Stream, hosts: list[str]) -> Arrived:
    """What a front end shows while a test across `hosts` waits for their agents: who connected, and the time left."""
    def arrived(connected: list[str], left_s: float) -> None:
        stream(WaitingEvent(connected=connected, waiting=[host for host in hosts if host not in connected], left_s=left_s))

    return arrived


def _suite(opened: OpenRun, stream: _Stream) -> int:
    """The ESRP suite for a front end (across its configuration's servers, each stage a run across them): each stage's
    events, and a suite event before each stage and at the end."""
    request = opened.request
    assert request.performance_s is not None and request.stress_s is not None
    try:
        record = open_suite(request.config, request.output, performance_s=request.performance_s,
                            stress_s=request.stress_s, simulate=request.simulate)
    except SuiteError as exc:
        return _refused(stream, Problem(RUN_FOLDER_FIELD, str(exc)))
    folder = str(request.output)
    try:
        with opened.sourced():
            suite = opened.suite(record, stream, lambda number, _stage: stream(SuiteEvent(folder=folder, stage=number,
                                                                                           record=record)))
            _watch(suite)
            ran = run_or_refuse(suite.request_stop, suite.run, lambda problems: stream(RefusalEvent(problems=problems)))
    except NotBegunError as exc:
        return _refused(stream, Problem(HOSTS_FIELD, str(exc).removeprefix("--hosts: ")))
    finally:
        _suite_report(request.output, stream)
        stream(SuiteEvent(folder=folder, stage=None, record=record))
    return ExitCode.INVALID if ran is None else ExitCode.of(record.outcome)


def _suite_report(folder: Path, stream: _Stream) -> None:
    """The combined report beside the stages, however the suite ended; a report that cannot be written is said."""
    from reporting.bundle import ReportError  # the renderer loads only for a suite
    from reporting.suite import write_suite_report

    try:
        stream.log("info", f"ESRP report: {write_suite_report(folder)}")
    except (ReportError, OSError) as exc:
        stream.log("warning", f"the ESRP report could not be written in {folder}: {exc}")
