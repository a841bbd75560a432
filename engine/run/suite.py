"""The ESRP qualification suite: the five Jetstress tests a storage vendor publishes, run one after another.

Performance (2 h, Strict thresholds), Stress (24 h, Lenient), Database Checksum, Database
Backup and Soft Recovery run on the same databases, in that order, each as an ordinary run in
a folder of its own inside the suite's folder (a suite across servers: each a run across the servers its
configuration names, its interval source their agents). `suite.json` there records the suite's
configuration and each stage's folder and verdict, written after every stage, so:

- a stage that fails does not stop the suite: every verdict is published, as in the ESRP paper;
- a stage that is stopped (or killed, or cannot start) ends the suite there, and what the
  stages before it found is kept;
- the same command again, with the same folder, resumes from the first stage without a Pass or
  Fail; a suite that ran through only says what it found. Another configuration in the same
  folder is refused: a suite's five reports are of one storage design.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from engine.io.safety import make_folders, write_text
from engine.model.config import TestConfig, TestType
from engine.results.schema import RunResult
from engine.results.suite import PERFORMANCE_S as PERFORMANCE_S
from engine.results.suite import STAGES as STAGES
from engine.results.suite import STRESS_S as STRESS_S
from engine.results.suite import SUITE_VERSION
from engine.results.suite import Stage as Stage
from engine.results.suite import SuiteRecord as SuiteRecord

SUITE_FILE = "suite.json"
MAX_STAGE_S = 30 * 86400.0  # as a run's duration


class StageRun(Protocol):
    """One stage's run (a `Runner`, whatever its interval source)."""

    def run(self) -> RunResult: ...

    def request_stop(self, reason: str) -> None: ...


MakeRunner = Callable[[TestConfig, Path], StageRun]


class SuiteError(Exception):
    """The suite cannot run in this folder; the message says why."""


def read_suite(folder: Path) -> SuiteRecord:
    """The suite recorded in `folder` (SuiteError if there is none, or it cannot be read)."""
    path = folder / SUITE_FILE
    try:
        text = path.read_text(encoding="utf-8")
        record = SuiteRecord.model_validate_json(text)
    except FileNotFoundError as exc:
        raise SuiteError(f"{folder} holds no suite ({SUITE_FILE} is missing)") from exc
    except OSError as exc:
        raise SuiteError(f"{path} cannot be read ({exc.strerror or exc})") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise SuiteError(f"{path} is not a suite record Jetwise can read ({where}: {first['msg']})") from exc
    if record.suite_version > SUITE_VERSION:
        raise SuiteError(f"{path} was written by a newer Jetwise (suite record {record.suite_version}; this one reads "
                         f"{SUITE_VERSION}); resume the suite with that version")
    if record.suite_version < 3 and (hosts := json.loads(text).get("hosts")):
        raise SuiteError(f"{path} is a suite across servers ({', '.join(map(str, hosts))}) that an earlier Jetwise "
                         "kept in another form, which this one can neither resume nor report: its combined report "
                         "(esrp-report.html) stays beside it; run a new suite across these servers in a folder of its "
                         "own")
    return record


def write_suite(record: SuiteRecord, folder: Path) -> None:
    """Write suite.json atomically: a crash never leaves half a record."""
    write_text(folder / SUITE_FILE, record.model_dump_json(indent=2) + "\n")


def open_suite(
    config: TestConfig, folder: Path, *, performance_s: float, stress_s: float, simulate: str | None = None,
) -> SuiteRecord:
    """The suite in `folder`: the one recorded there when it has this configuration (its servers with it: a suite
    across them), these lengths and the same device (the disk, or the simulated `simulate` profile), else a new one
    (SuiteError when the folder holds another suite, or anything but a suite, or a length is out of bounds)."""
    for name, seconds in (("Performance", performance_s), ("Stress", stress_s)):
        if not 0 < seconds <= MAX_STAGE_S:
            raise SuiteError(f"the {name} length must be more than 0 and at most {MAX_STAGE_S / 86400:g} days "
                             f"(got {seconds / 3600:g} h)")
    wanted = config.model_copy(update={"test_type": TestType.PERFORMANCE, "duration_s": performance_s})
    if folder.exists() and not folder.is_dir():
        raise SuiteError(f"{folder} is a file; a suite needs a folder of its own")
    if (folder / SUITE_FILE).exists():
        record = read_suite(folder)
        differs = suite_differences(record, config, performance_s, stress_s, simulate)
        if differs:
            raise SuiteError(f"{folder} holds another suite (its {', '.join(differs)} differ); resume it as it was "
                             "started, or give the new suite a folder of its own")
        return record
    if folder.exists() and any(folder.iterdir()):
        raise SuiteError(f"{folder} is not empty and holds no suite; give the suite a folder of its own")
    try:
        make_folders(folder)
        record = SuiteRecord(config=wanted, performance_s=performance_s, stress_s=stress_s, simulate=simulate,
                             stages=[Stage(test_type=kind) for kind in STAGES])
        write_suite(record, folder)
    except OSError as exc:
        raise SuiteError(f"the suite folder {folder} cannot be made ({exc.strerror or exc})") from exc
    return record


def suite_differences(record: SuiteRecord, config: TestConfig, performance_s: float, stress_s: float,
                      simulate: str | None = None) -> list[str]:
    """What keeps `record` from being resumed as a suite of `config` (its servers with it: none, this one alone) with
    these lengths on this device; nothing: the same suite. A front end asks before it offers to resume one."""
    wanted = config.model_copy(update={"test_type": TestType.PERFORMANCE})
    ours, theirs = record.config.model_dump(mode="json"), wanted.model_dump(mode="json")
    differs = sorted(f"configuration's {key}" for key in ours.keys() | theirs.keys()
                     if key not in ("duration_s", "servers") and ours.get(key) != theirs.get(key))
    if ours.get("servers") != theirs.get("servers"):
        differs.append(f"servers ({_servers(record.hosts)}, not {_servers(config.server_names)})"
                       if record.hosts != config.server_names else "servers' own folders")
    if record.performance_s != performance_s:
        differs.append("Performance length")
    if record.stress_s != stress_s:
        differs.append("Stress length")
    if record.simulate != simulate:
        differs.append(f"device ({_device(record.simulate)}, not {_device(simulate)})")
    return differs


def _device(simulate: str | None) -> str:
    return f"simulated {simulate}" if simulate else "the disk"


def _servers(hosts: list[str]) -> str:
    return ", ".join(hosts) if hosts else "this server alone"


class Suite:
    """Runs the suite's unfinished stages in order (`run`); `request_stop` stops the stage running and the suite."""

    def __init__(self, record: SuiteRecord, folder: Path, make_runner: MakeRunner,
                 on_stage: Callable[[int, Stage], None] = lambda _n, _s: None) -> None:
        self.record = record
        self.folder = folder
        self.make_runner = make_runner
        self.on_stage = on_stage  # a stage is about to start
        self.stop_reason: str | None = None
        self._current: StageRun | None = None

    def request_stop(self, reason: str) -> None:
        self.stop_reason = reason
        if self._current is not None:
            self._current.request_stop(reason)

    def run(self) -> SuiteRecord:
        """Run every stage without a Pass or Fail, from the first; stop at a stage that ends otherwise."""
        record = self.record
        for number, stage in enumerate(record.stages):
            if stage.finished:
                continue
            if self.stop_reason is not None:
                break
            folder = self._stage_folder(number, stage)
            stage.folder = folder.name
            write_suite(record, self.folder)  # a killed stage's folder is known to the next attempt
            self.on_stage(number, stage)
            self._current = self.make_runner(record.stage_config(stage.test_type), folder)
            if self.stop_reason is not None:
                self._current.request_stop(self.stop_reason)
            result = self._current.run()
            self._current = None
            self._record(stage, result)
            if not stage.finished:
                break
        return record

    def _stage_folder(self, number: int, stage: Stage) -> Path:
        """A new folder for this attempt of the stage: a stopped or killed attempt keeps its own."""
        base = f"{number + 1}-{stage.test_type.value.replace('_', '-')}"
        folder, attempt = self.folder / base, 1
        while folder.exists():
            attempt += 1
            folder = self.folder / f"{base}-{attempt}"
        return folder

    def _record(self, stage: Stage, result: RunResult) -> None:
        stage.run_id, stage.outcome, stage.reasons = result.run_id, result.verdict, list(result.summary.reasons)
        write_suite(self.record, self.folder)


@dataclass(frozen=True)
class FoundSuite:
    """A suite recorded in a folder of the runs folder."""

    folder: Path
    record: SuiteRecord

    def of(self, config: TestConfig, performance_s: float, stress_s: float) -> bool:
        """The suite is of `config` with these stage lengths: the engine resumes it rather than refusing it (the
        window runs every suite on one device, so the record's own is taken)."""
        return not suite_differences(self.record, config, performance_s, stress_s, self.record.simulate)


def unfinished_suites(runs_root: Path) -> list[FoundSuite]:  # a session's folder, then the suite's
    """The suites in the runs folder (one folder per tuning session) that did not run through, latest first."""
    found = []
    for path in runs_root.glob(f"*/*/{SUITE_FILE}"):
        try:
            record = read_suite(path.parent)
        except SuiteError:
            continue  # not one this window can resume: `jetwise report` on it says why
        if not record.finished and not record.hosts:  # the window resumes suites on this server
            found.append(FoundSuite(path.parent, record))
    return sorted(found, key=lambda suite: suite.folder.name, reverse=True)
