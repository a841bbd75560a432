"""`jetwise tune`: calibration runs steered by the advisor until a setting passes."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from engine.model.config import TestConfig
from engine.protocol import ExitCode
from engine.results.schema import RunResult
from engine.run.runner import Runner
from engine.run.simulation import PROFILES, StorageModel, runner_for
from engine.run.sinks import fan_out
from engine.store.recorder import RunRecorder
from engine.store.sqlite import Store, StoreError
from engine.tuning.tuner import Tuner, calibration_rule

EXIT_CONVERGED, EXIT_OUT_OF_REACH, EXIT_INVALID, EXIT_ERROR = ExitCode.PASS, ExitCode.FAIL, ExitCode.INVALID, ExitCode.ABORTED


def simulated_model(name: str | None) -> StorageModel | None:
    if name is None:
        return None
    if name not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"no simulated storage profile '{name}'; choose one of: {known}")
    return PROFILES[name]


def cmd_tune(args: argparse.Namespace, config: TestConfig, output: Path) -> int:
    model = simulated_model(args.simulate)
    try:
        store = Store()
        session, note = store.resolve_session(args.session or args.config.stem, config)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    if note is not None:
        say(f"note: {note}")
    tuner = Tuner(config, store.results(session), max_runs=args.max_runs)
    current: list[Runner] = []

    def run_one(run_config: TestConfig, number: int) -> RunResult:
        shaped, rule = calibration_rule(run_config, args.calibration)
        folder = output / f"calibration-{number:02d}-t{run_config.thread_count}-s{run_config.sluggish_sessions}"
        runner = runner_for(model, shaped, folder, fan_out(RunRecorder(store, session, folder)), settle=rule,
                            session=session)
        current[:] = [runner]
        return runner.run()

    def stop(_signum: int, _frame: object) -> None:
        tuner.stop()
        for runner in current:
            runner.request_stop("stopped by the user (Ctrl-C)")

    where = f"the simulated device '{model.name}'" if model is not None else "the configured paths"
    say(f"Tuning session '{session}' on {where}: target {config.target_transactional_iops:,.1f} transactional IOPS; "
        f"calibration runs of at most {args.calibration:g} s; runs in {output}")
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, stop)
    try:
        outcome = tuner.run(run_one, say)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        store.close()
    if args.json:
        sys.stdout.write(json.dumps(outcome.to_dict(), indent=2) + "\n")
    advice = outcome.advice
    say("")
    for line in advice.notes if advice is not None else []:
        say(f"  note: {line}")
    if outcome.status == "converged" and outcome.recommendation:
        threads, sluggish = outcome.recommendation
        say(f"Converged in {len(outcome.runs)} calibration run(s): {threads} threads, SluggishSessions {sluggish}.")
        if advice is not None:
            say(f"  {advice.rationale}")
        say("These were tuning runs: run the full-length test with this setting to qualify the storage.")
        return EXIT_CONVERGED
    if outcome.status == "aborted":
        say("Tuning stopped before it converged; the runs so far are kept in the session.")
        return EXIT_ERROR
    if outcome.status == "host-bound":
        say("Tuning stopped: the host's CPU was saturated during the last run, so its result says nothing of the "
            "storage. Run Jetwise on a less loaded host or with fewer threads.")
        return EXIT_ERROR
    if outcome.status == "inconclusive":
        say("Tuning stopped: the last run cannot steer the advisor (see the note above); change what it says and "
            "tune again.")
        return EXIT_OUT_OF_REACH
    if outcome.status == "unreachable":
        say(f"The target is out of reach after {len(outcome.runs)} calibration run(s).")
    else:
        say(f"No passing setting within {args.max_runs} calibration run(s).")
    if advice is not None:
        say(f"  {advice.rationale}")
        if advice.capacity:
            say(f"  This storage carries {advice.capacity}.")
    return EXIT_OUT_OF_REACH
