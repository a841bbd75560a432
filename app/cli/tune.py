"""`jetwise tune`: a load sweep, then calibration runs that confirm the setting read off its curve."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from app.cli.across import add_host_arguments, request_of
from app.cli.configs import load_or_say
from app.cli.console import print_problems
from app.cli.options import duration_type, number_type, path_type, session_type
from app.cli.signals import stop_on_signals
from app.context import AppContext, UsageError, writable_destination
from app.opening import OpenRun
from engine.model.config import MAX_DURATION_S, TestConfig
from engine.model.derive import target_words
from engine.model.options import option
from engine.model.units import sentence
from engine.protocol import ExitCode, IntervalEvent, Phase, PhaseEvent, RunEvent
from engine.results.document import new_folder
from engine.results.schema import RunResult
from engine.run.runner import InvalidConfigError, Runner
from engine.run.sources.model import PROFILES
from engine.run.sweep import SweepPlan
from engine.tuning.tuner import TuneOutcome, Tuner, shortest_calibration_s

MIN_CALIBRATION_S = 10.0  # a calibration run settles its latency before it measures: shorter, it measures noise


def calibration_type(text: str) -> float:
    """--calibration: a duration from 10 s to the longest test."""
    seconds = duration_type(option("duration_s"))(text)
    if not MIN_CALIBRATION_S <= seconds <= MAX_DURATION_S:
        raise argparse.ArgumentTypeError(f"a calibration run takes {MIN_CALIBRATION_S:g} s to {MAX_DURATION_S / 86400:g} "
                                         f"days (got {text!r})")
    return seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", type=path_type, metavar="CONFIG.json")
    parser.add_argument("--session", type=session_type, default=None, help="tuning session (default: the file's name)")
    parser.add_argument("--calibration", type=calibration_type, default=180.0,
                        metavar="DURATION", help="longest confirmation run after the load sweep (default 3m; the sweep takes at most 8m)")
    parser.add_argument("--max-runs", type=number_type(int, "--max-runs"), default=8, metavar="N",
                        help="give up after this many calibration runs (default 8)")
    parser.add_argument("--output", type=path_type, default=None, help="folder for the runs (default ./jetwise-runs/tune-TIME)")
    parser.add_argument("--json", action="store_true", help="print the outcome as JSON on stdout")
    parser.add_argument(
        "--simulate", default=None, metavar="PROFILE",
        help=f"tune against a simulated storage model ({', '.join(sorted(PROFILES))})",
    )
    add_host_arguments(parser, "tune across these enrolled servers together, each running CONFIG or its own FILE "
                               "(the same number of databases and mailbox profile on each)")


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


class _Progress:
    """A tuning run's progress on stderr, a line at a time: its phases, and each step of a load sweep as it begins
    (a sweep on a real disk takes up to eight minutes, which a silent console would not say)."""

    def __init__(self, label: str) -> None:
        self.label, self.step = label, -1

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, PhaseEvent) and event.phase in (Phase.PREPARING, Phase.WARMING_UP, Phase.MEASURING):
            print(f"  {self.label}: {event.message or event.phase.value}", file=sys.stderr)
        elif isinstance(event, IntervalEvent) and (step := event.sample.step) is not None and step != self.step:
            self.step = step
            print(f"  {self.label}: step {step + 1}, {event.sample.threads} thread(s), SluggishSessions "
                  f"{event.sample.sluggish_sessions}", file=sys.stderr)


def tune(opened: OpenRun, config: TestConfig) -> TuneOutcome:
    """The load sweep and calibration runs of `config` on the opened request's source, in its session and folder,
    stopped by a signal; progress said on stderr."""
    request = opened.request
    tuner = Tuner(config, opened.context.store.results(opened.session), device=opened.device, max_runs=request.max_runs)
    current: list[Runner] = []

    def run_one(run_config: TestConfig, number: int, sweep: SweepPlan | None) -> RunResult:
        label = f"run {number}, the load sweep" if sweep is not None else f"run {number}"
        name = "sweep" if sweep is not None else f"t{run_config.thread_count}-s{run_config.sluggish_sessions}"
        runner = opened.runner(_Progress(label), config=run_config, output=new_folder(
            request.output, f"calibration-{number:02d}-{name}"), sweep=sweep, calibration_s=request.calibration_s)
        current[:] = [runner]
        return runner.run()

    def stop(reason: str) -> None:
        tuner.stop()
        for runner in current:
            runner.request_stop(reason)

    with stop_on_signals(stop):
        return tuner.run(run_one, say)


def run(args: argparse.Namespace, context: AppContext) -> int:
    if args.max_runs < 1:
        raise UsageError(f"--max-runs must be at least 1 (got {args.max_runs})")
    config = load_or_say(args.config, sys.stderr)
    if config is None:
        return ExitCode.INVALID
    if config.scans:
        raise UsageError(f"{args.config}: a {config.test_type.value.replace('_', ' ')} test reads each database through "
                         "once and has no thread count to tune; tune a performance or stress test of these databases")
    if config.recovers:
        raise UsageError(f"{args.config}: a soft recovery test runs at the thread count it is given; tune a performance "
                         "test of these databases, then run the soft recovery with the thread count it found")
    output = args.output or Path.cwd() / "jetwise-runs" / f"tune-{datetime.now():%Y%m%d-%H%M%S}"
    if output.exists() and not output.is_dir():
        raise UsageError(f"--output {output} is a file; the calibration runs need a folder to keep their folders in")
    writable_destination("--output", output, folder=True)
    shortest = shortest_calibration_s(config)
    if args.calibration < shortest:
        raise UsageError(f"--calibration {args.calibration:g} s: a confirmation run takes at least {shortest:g} s here "
                         f"(its warm-up, a settled latency, then the {config.thresholds.minimum_measured_s:g} s a "
                         "verdict needs measured)")
    request = request_of(args, config, work="tune", output=output, session=args.session or args.config.stem,
                         calibration_s=args.calibration, max_runs=args.max_runs)
    if request is None:
        return ExitCode.INVALID
    config = request.config
    opened = OpenRun(context, request, note=lambda words: say(f"note: {words}"), say=say)
    where = (f"{len(config.servers)} servers ({', '.join(config.server_names)}), stepped together on their shared storage"
             if config.servers else "the configured paths")
    if args.simulate:
        where += f", on the simulated device '{args.simulate}'"
    say(f"Tuning session '{opened.session}' on {where}: {target_words(config.test_target_iops)}; "
        f"a load sweep of at most 8 minutes unless the session has one, then confirmation runs of at most "
        f"{args.calibration:g} s; runs in {output}")
    try:
        with opened.sourced():
            outcome = tune(opened, config)
    except InvalidConfigError as exc:  # a calibration run's folder or the machine refused it before it began
        print_problems(exc.problems, sys.stderr)
        return ExitCode.INVALID
    return said(outcome, config, args.max_runs, args.json)


def said(outcome: TuneOutcome, config: TestConfig, max_runs: int, as_json: bool) -> int:
    """How tuning ended, on stderr (and as JSON on stdout when asked), and its exit code."""
    if as_json:
        sys.stdout.write(json.dumps(outcome.to_dict(), indent=2) + "\n")
    advice = outcome.advice
    say("")
    if outcome.swept:
        say(outcome.swept)
    for line in advice.lines if advice is not None else []:
        say(f"  note: {line}")
    if outcome.status == "converged" and outcome.recommendation:
        threads, sluggish = outcome.recommendation
        found = "Measured the most that passes" if config.seeks_maximum else "Converged"
        how = f"in {len(outcome.runs)} calibration run(s)" if outcome.runs else "from the runs the session already holds"
        say(f"{found} {how}: {threads} threads, SluggishSessions {sluggish}.")
        if advice is not None:
            say(f"  {advice.rationale}")
            if advice.capacity:
                say(f"  This storage carries {advice.capacity.words}.")
        say("These were tuning runs: run the full-length test with this setting to qualify the storage.")
        return ExitCode.PASS
    if outcome.status == "cache_held" and advice is not None:
        say(f"No tuning run: {advice.rationale}.")
        return ExitCode.INVALID
    if outcome.status == "aborted":
        say("Tuning stopped before it converged; the runs so far are kept in the session.")
        return ExitCode.ABORTED
    if outcome.status == "host-bound":
        say("Tuning stopped: the host's CPU, not the storage, set the pace.")
        if advice is not None and advice.status == "host_bound":
            say(f"  {sentence(advice.rationale)}.")
            if advice.capacity:
                say(f"  This storage carries {advice.capacity.words}, at {advice.threads} threads, SluggishSessions "
                    f"{advice.sluggish_sessions}.")
        return ExitCode.ABORTED
    if outcome.status == "inconclusive":
        say("Tuning stopped: the last run cannot steer the advisor (see the note above); change what it says and "
            "tune again.")
        return ExitCode.FAIL
    if outcome.status == "unreachable":
        say(f"The target is out of reach after {len(outcome.runs)} calibration run(s).")
    else:
        say(f"No passing setting within {max_runs} calibration run(s).")
    if advice is not None:
        say(f"  {advice.rationale}")
        if advice.capacity:
            say(f"  This storage carries {advice.capacity.words}.")
    return ExitCode.FAIL
