"""`jetwise tune`: calibration runs steered by the advisor until a setting passes."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from engine.config import TestConfig
from engine.events import fan_out
from engine.runner import EmitFn, Runner
from engine.settling import SettleRule
from engine.simulation import PROFILES, runner_for
from engine.store import RunRecorder, Store, StoreError
from engine.tuning import Tuner

EXIT_CONVERGED, EXIT_OUT_OF_REACH, EXIT_INVALID, EXIT_ERROR = 0, 1, 2, 3


def simulated_model(name: str | None) -> Any:
    if name is None:
        return None
    if name not in PROFILES:
        known = ", ".join(sorted(PROFILES))
        raise ValueError(f"no simulated storage profile '{name}'; choose one of: {known}")
    return PROFILES[name]


def make_runner_factory(store: Store, session: str, model: Any, new_run_id: Any) -> Any:
    """Runners that record into the session, on the real disk or on the simulated device."""

    def make(config: TestConfig, output: Path, emit: EmitFn, rule: SettleRule) -> Runner:
        run_id = new_run_id()
        recorder = RunRecorder(store, store.session_for(session, config), run_id, config, output)
        return runner_for(model, config, output, fan_out(recorder, emit), run_id=run_id, settle=rule)

    return make


def cmd_tune(args: argparse.Namespace, config: TestConfig, output: Path, new_run_id: Any) -> int:
    model = simulated_model(args.simulate)
    session = args.session or args.config.stem
    store = Store()
    try:
        store.session_for(session, config)  # refuse another design before any run
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID
    history = [r for r in (store.result(run.run_id) for run in store.runs(session)) if r is not None]

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    tuner = Tuner(
        config,
        make_runner_factory(store, session, model, new_run_id),
        output,
        calibration_s=args.calibration,
        max_runs=args.max_runs,
        history=history,
        progress=say,
    )
    where = f"the simulated device '{model.name}'" if model is not None else "the configured paths"
    say(f"Tuning session '{session}' on {where}: target {config.target_transactional_iops:,.1f} transactional IOPS; "
        f"calibration runs of at most {args.calibration:g} s; runs in {output}")
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, lambda _s, _f: tuner.stop())
    try:
        outcome = tuner.run()
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        store.close()
    document = outcome.to_dict()
    if args.json:
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    advice = outcome.advice
    say("")
    if outcome.status == "converged" and outcome.recommendation:
        threads, sluggish = outcome.recommendation
        say(f"Converged in {len(outcome.runs)} calibration run(s): {threads} threads, SluggishSessions {sluggish}.")
        if advice is not None:
            say(f"  {advice.rationale}")
        say("Run the full-length test with this setting to confirm it.")
        return EXIT_CONVERGED
    if outcome.status == "aborted":
        say("Tuning stopped before it converged; the runs so far are kept in the session.")
        return EXIT_ERROR
    if outcome.status == "unreachable":
        say(f"The target is out of reach after {len(outcome.runs)} calibration run(s).")
    else:
        say(f"No passing setting within {args.max_runs} calibration run(s).")
    if advice is not None:
        say(f"  {advice.rationale}")
        if advice.capacity:
            say(f"  This storage carries {advice.capacity}.")
    return EXIT_OUT_OF_REACH
