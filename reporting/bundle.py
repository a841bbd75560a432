"""A run's report material, found by run id in the store or by its output folder.

A run that crashed before writing its result is rebuilt from its samples and marked aborted.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from engine.model.config import TestConfig
from engine.model.validation import problems_from_validation_error
from engine.results.document import CONFIG_FILE, LOG_FILE, RESULT_FILE, read_host, read_result, read_samples
from engine.results.sample_read import SampleList, Samples
from engine.results.schema import RunResult
from engine.run.samples import rebuild_result
from engine.run.suite import SUITE_FILE
from engine.store.rows import RunRow
from engine.store.sqlite import Store
from engine.tuning.advisor import Advice


class ReportError(Exception):
    """The run cannot be found or read; the message says which and why."""


@dataclass
class RunBundle:
    result: RunResult
    samples: Samples
    log: list[str]
    folder: Path | None
    session: str | None = None
    session_runs: list[RunRow] = field(default_factory=list)  # the session as it stood when this run ended
    session_results: list[RunResult] = field(default_factory=list)
    later_runs: list[str] = field(default_factory=list)  # the session's runs since, by id (not in this report)
    advice: Advice | None = None  # the advisor's word on the session as this run ended, kept with the run


def load_run(reference: str, store: Store | None = None) -> RunBundle:
    """A run by its output folder, or by its id in the store (or the id's first or last characters, when they name one
    run alone)."""
    folder = Path(reference)
    if folder.is_dir():
        return _from_folder(folder, store)
    if store is None:
        raise ReportError(f"{reference} is not a run folder (and there is no run store to look its id up in)")
    named = store.runs_named(reference)
    if not named:
        raise ReportError(f"{reference} is neither a run folder nor a run id in the store {store.path}")
    if len(named) > 1:
        listed = ", ".join(r.run_id for r in named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
        raise ReportError(f"{reference} names {len(named)} runs ({listed}); give more of the run id")
    row = named[0]
    run_id = row.run_id
    folder = Path(row.output_dir)
    samples = _samples(folder) if folder.is_dir() else SampleList()
    if not samples:
        samples = SampleList(store.samples(run_id))  # kept in the store by an older version
    log = _log(folder) or [f"{datetime.fromisoformat(t).astimezone():%Y-%m-%d %H:%M:%S} -- {text}"
                           for t, _level, text in store.log_lines(run_id)]  # kept in the store by an older version
    result = store.result(run_id)
    if result is None:
        reason = "; ".join(row.reasons) or "the run ended without writing its result (a crash or a kill)"
        result = rebuild_result(row.config, samples, run_id, reason, host=read_host(folder))
    bundle = RunBundle(result, samples, log, folder, row.session)
    _add_session(bundle, store)
    return bundle


def _log(folder: Path) -> list[str]:
    """The run folder's test log, as the run wrote it (none where it is gone)."""
    try:
        return (folder / LOG_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


def _unreadable(folder: Path, error: ValidationError) -> str:
    """A run file that fails its model, named with its first problems in a line, not pydantic's dump."""
    problems = problems_from_validation_error(error)
    listed = "; ".join(str(p) for p in problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
    name = CONFIG_FILE if error.title == TestConfig.__name__ else RESULT_FILE
    return f"{folder / name} cannot be read as a Jetwise run's {name}: {listed}"


def _samples(folder: Path) -> Samples:
    try:
        return read_samples(folder)
    except (ValueError, OSError, sqlite3.Error) as exc:
        raise ReportError(f"{folder} holds samples Jetwise cannot read ({exc}); its result and report need them") from exc


def _from_folder(folder: Path, store: Store | None) -> RunBundle:
    samples = _samples(folder)
    log = _log(folder)
    try:
        if (folder / RESULT_FILE).exists():
            result = read_result(folder)
        elif (folder / CONFIG_FILE).exists():
            config = TestConfig.model_validate_json((folder / CONFIG_FILE).read_text(encoding="utf-8"))
            result = rebuild_result(config, samples, folder.name, "the run ended without writing its result (a crash or a kill)",
                                    host=read_host(folder))
        else:
            raise ReportError(f"{folder} holds no Jetwise run ({RESULT_FILE} or {CONFIG_FILE} is missing) and no suite "
                              f"({SUITE_FILE} is missing)")
    except ValidationError as exc:
        raise ReportError(_unreadable(folder, exc)) from exc
    except (OSError, ValueError) as exc:
        raise ReportError(f"{folder} holds a run Jetwise cannot read: {exc}") from exc
    bundle = RunBundle(result, samples, log, folder)
    row = store.run(result.run_id) if store is not None else None
    if row is not None and store is not None:
        bundle.session = row.session
        _add_session(bundle, store)
    return bundle


def _add_session(bundle: RunBundle, store: Store) -> None:
    """The run's session as it stood when the run ended: its runs up to this one, this run's result as the report
    has it (rebuilt, for a run killed before it wrote one). A later run changes nothing in this run's report (its
    advice, its session table), whenever it is exported; the later runs are named, not shown."""
    if bundle.session is None:
        return
    this = bundle.result.run_id
    bundle.session_runs, later = store.runs_through(bundle.session, this)
    bundle.later_runs = [run.run_id for run in later]
    results = (bundle.result if run.run_id == this else store.result(run.run_id) for run in bundle.session_runs)
    bundle.session_results = [r for r in results if r is not None]
    kept = store.advice(this)
    bundle.advice = None if kept is None else Advice.from_dict(kept)


def measured_runs(store: Store, session: str) -> list[RunRow]:
    """The session's runs, a killed one with the figures its samples give (as its report rebuilds them), not none:
    what `jetwise history` and the session view list."""
    return [_rebuilt(store, row) if row.achieved_iops is None and row.status == "aborted" else row
            for row in store.runs(session)]


def _rebuilt(store: Store, row: RunRow) -> RunRow:
    try:
        summary = load_run(row.run_id, store).result.summary
    except (ReportError, OSError, ValueError):
        return row
    if summary.measured_s <= 0:
        return row
    return replace(row, achieved_iops=summary.achieved_transactional_iops,
                   db_read_avg_latency_ms=summary.db_read_avg_latency_ms,
                   log_write_avg_latency_ms=summary.log_write_avg_latency_ms)
