"""`jetwise tune CONFIG --hosts HOST[=FILE],...`: tuning across servers that share their storage.

On shared storage the servers' loads add up: a server tuned alone finds a thread count the storage cannot carry
when every server runs it. So the load sweep steps every server together (the controller leads it from what all of
them measured, `engine.hosts.sweep_across`), the advisor reads the servers' summed curve against their summed target
(`engine.hosts.as_one`), and each confirmation is a test across all of them, of a fixed length (a synchronized run
ends at one instant). The setting it finds is every server's. Each run's folder holds the test's combined report.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.cli.across import ConsoleAcross, before_a_test, configs_of, enrolled_roster, listening, write_report
from app.cli.signals import stop_on_signals
from engine.hosts.across import TestAcross
from engine.hosts.as_one import as_one_run, summed_config, tuning_problems
from engine.model.config import TestConfig
from engine.model.derive import target_words
from engine.protocol import ExitCode
from engine.results.document import new_folder
from engine.results.schema import RunResult
from engine.run.sweep import SweepPlan
from engine.tuning.tuner import TuneOutcome, Tuner, calibration_rule


class _NoServerResultError(Exception):
    """A test of the tuning in which no server gave a result: nothing to read, tuning ends."""


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def tune_across(args: argparse.Namespace, output: Path) -> TuneOutcome | int:
    """Tune across `args.hosts`: the outcome, or the exit code when tuning could not begin (said on stderr)."""
    configs = configs_of(args.config, args.hosts, {})
    if configs is None:
        return ExitCode.INVALID
    problems = tuning_problems(configs)
    for host, words in problems:
        print(f"error: --hosts {host}: {words}", file=sys.stderr)
    if problems:
        return ExitCode.INVALID
    roster = enrolled_roster(list(configs))
    summed = summed_config(configs)
    tuner = Tuner(summed, max_runs=args.max_runs, servers=len(configs))
    say(f"Tuning across {len(configs)} servers ({', '.join(configs)}) on their shared storage: "
        f"{target_words(summed.target_transactional_iops)} together; a load sweep stepping every server at once, "
        f"then confirmation runs of {args.calibration:g} s across all of them; runs in {output}")
    current: list[TestAcross] = []

    def stop(reason: str) -> None:
        tuner.stop()
        if not current:
            raise KeyboardInterrupt
        for test in current:
            test.request_stop(reason)

    def tuning() -> TuneOutcome:
        with stop_on_signals(stop), listening(roster, list(configs), port=args.port, wait_s=args.wait,
                                              say=say) as controller:

            def run_one(run_config: TestConfig, number: int, sweep: SweepPlan | None) -> RunResult:
                each = _setting(configs, run_config, None if sweep is not None else args.calibration)
                name = "sweep" if sweep is not None else f"t{run_config.thread_count}-s{run_config.sluggish_sessions}"
                folder = new_folder(output, f"calibration-{number:02d}-{name}")
                test = TestAcross(controller, each, folder, ConsoleAcross(sys.stderr, intervals=False),
                                  simulate=args.simulate, sweep=sweep)
                current[:] = [test]
                ended = test.run()
                write_report(folder, say)
                runs = {host.name: host.result for host in test.hosts.values() if host.result is not None}
                one = as_one_run(ended, runs, summed)
                if one is None:
                    raise _NoServerResultError(f"no server gave a result: {'; '.join(ended.reasons)}")
                return one

            try:
                return tuner.run(run_one, say)
            except _NoServerResultError as exc:
                say(f"Tuning across servers stopped: {exc}")
                tuner.stop()
                return tuner.outcome()

    return before_a_test(tuning)


def _setting(configs: dict[str, TestConfig], run_config: TestConfig, calibration_s: float | None) -> dict[str, TestConfig]:
    """Each server's configuration at the run's thread count and SluggishSessions; a confirmation run shaped to
    `calibration_s` (its warm-up and length, fixed: every server's ends at one instant)."""
    each = {}
    for host, config in configs.items():
        moved = TestConfig.model_validate(config.at_setting(run_config.thread_count, run_config.sluggish_sessions).model_dump())
        each[host] = calibration_rule(moved, calibration_s)[0] if calibration_s is not None else moved
    return each
