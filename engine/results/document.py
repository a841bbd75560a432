"""The result document: data first, with schema version, tool, host and full configuration."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.io.file_names import database_file_path, database_files
from engine.io.locks import LOCK_FILE
from engine.io.safety import file_in_the_way, link_problem, system_folder_problem, write_text
from engine.model.config import TestConfig
from engine.results.counters import cache_figures, stream_figures
from engine.results.figures import merge_streams, percentile_figures
from engine.results.host_schema import HostFigures, HostInfo, HostPerformance
from engine.results.note_schema import RunNote
from engine.results.sample_file import SAMPLES_DB
from engine.results.sample_read import SampleFile, SampleList, Samples
from engine.results.sample_schema import IntervalSample
from engine.results.schema import ErrorGroup, InstanceResult, RunKind, RunResult, RunTimes, Summary
from engine.results.verdict import Verdict
from engine.version import TOOL_NAME, __version__
from engine.workload.errors import ErrorTally, KindCount, ese_error, patch_words
from engine.workload.stats import DB_READ, LOG_WRITE, StreamStats

RESULT_FILE = "result.json"
SAMPLES_FILE = "samples.jsonl"  # the samples of a run folder written by an older version
LOG_FILE = "test.log"
CONFIG_FILE = "config.json"
HOST_FILE = "host.json"  # the machine that runs the test, written as it begins: a killed run's report names it
REQUESTED_CONFIG_FILE = "requested-config.json"  # the configuration the window hands its engine, in the run's folder
RUN_FILES = (RESULT_FILE, SAMPLES_DB, SAMPLES_FILE, LOG_FILE, CONFIG_FILE)  # what makes a folder a run's

def new_folder(parent: Path, name: str) -> Path:
    """A run's (or a suite's, or an auto-tune's) new folder: `parent / name`, or "name-2", "name-3"... when a folder
    of that name is there already (two runs started within a second never share one)."""
    folder, number = parent / name, 1
    while folder.exists():
        number += 1
        folder = parent / f"{name}-{number}"
    return folder


RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}(?=-|$)")  # when a run starts in the engineer's time, and six hex digits


def new_run_id() -> str:
    """A new run's id: "20261126-140503-3fa2c1", when it starts in the engineer's time, and six random hex digits."""
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def stamped_folder(parent: Path, what: str = "") -> Path:
    """A new run's folder under `parent`, named by a new run id (`new_run_id`, with `what` after it:
    "20261126-140503-3fa2c1-t8-s1"), every front end alike: the run in it takes that id (`run_id_of`)."""
    run_id = new_run_id()
    return new_folder(parent, f"{run_id}-{what}" if what else run_id)


def run_id_of(folder: Path) -> str | None:
    """The run id a folder Jetwise named for a run begins with (`stamped_folder`); None for a folder named otherwise."""
    found = RUN_ID.match(folder.name)
    return found.group() if found else None


def output_folder_problem(folder: Path) -> str | None:
    """Why `folder` cannot take a new run's files, if it cannot: two runs' samples and logs are never mixed, no run
    goes into a system folder or among other files, and nothing is written through a link planted at a name."""
    if (blocked := file_in_the_way(folder)) is not None:
        return f"{blocked}; a run needs a folder of its own"
    if (system := system_folder_problem(folder)) is not None:
        return system
    held = [name for name in RUN_FILES if os.path.lexists(folder / name)]
    for name in held:
        if (unsafe := link_problem(folder / name)) is not None:
            return f"{folder / name} {unsafe}"
    if held:
        return f"{folder} already holds a run ({', '.join(held)}); give each run a folder of its own"
    own = (LOCK_FILE, REQUESTED_CONFIG_FILE)
    others = sorted(entry.name for entry in folder.iterdir() if entry.name not in own) if folder.is_dir() else []
    if others:
        shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        return f"{folder} already holds other files ({shown}); a run writes into an empty folder of its own"
    return None


def build_result(
    *,
    run_id: str,
    config: TestConfig,
    verdict: Verdict,
    instances: Mapping[str, Mapping[str, StreamStats]],
    cache: Mapping[str, Sequence[int]],
    measured_s: float,
    host: HostInfo,
    host_samples: Sequence[HostFigures],
    times: RunTimes,
    unbuffered_io: bool,
    io_detail: str,
    backend_name: str,
    device: str,
    notes: list[RunNote],
    run_kind: RunKind,
    host_bound: bool,
    errors: Mapping[str, ErrorTally] | None = None,
    highest: Mapping[str, Mapping[str, float]] | None = None,
    stalls_per_s: Sequence[float] = (),
) -> RunResult:
    """Assemble the result document from the measured window's totals, the run's I/O errors by kind, each instance's
    highest log-interval averages (`engine.results.maxima`) and the verdict."""
    target = config.target_transactional_iops
    tallies = {name: (errors or {}).get(name) or ErrorTally() for name in instances}
    server = merge_streams(instances.values())
    server_cache = [sum(column) for column in zip(*cache.values(), strict=False)] if cache else [0, 0, 0]
    server_errors = ErrorTally()
    for tally in tallies.values():
        server_errors.merge(tally)
    server_figures = {**stream_figures(server, measured_s), **cache_figures(server_cache, measured_s)}
    server_figures.update(_error_figures(server_figures["io_errors"], server_errors))
    summary = Summary(
        **server_figures,
        verdict=verdict.outcome,
        reasons=verdict.reasons,
        failures=list(verdict.failures),
        test_type=config.test_type.value,
        threshold_set=config.threshold_set_name,
        target_transactional_iops=target,
        target_margin_percent=config.target_margin_percent,
        measured_s=measured_s,
        database_count=config.database_count,
        copies_per_database=config.copies_per_database,
        threads=config.thread_count,
        sluggish_sessions=config.sluggish_sessions,
        unbuffered_io=unbuffered_io,
        achieved_transactional_iops=server_figures["transactional_iops"],
        latency_percentiles_ms=percentile_figures(server),
        run_kind=run_kind,
        host_bound=host_bound,
    )
    rows = []
    per_instance_target = target / max(1, config.database_count)
    for index, (name, streams) in enumerate(instances.items()):
        spec = config.databases[index]
        figures = stream_figures(streams, measured_s)
        figures.update(_error_figures(figures["io_errors"], tallies[name]))
        rows.append(
            InstanceResult(
                **figures,
                **cache_figures(cache.get(name, [0, 0, 0]), measured_s),
                name=name,
                database_path=str(spec.database_path),
                log_path=str(spec.log_path),
                database_file=str(database_file_path(spec.database_path, index)),
                more_database_files=[str(path) for path in database_files(spec, index)[1:]],
                verdict=verdict.instance_outcomes.get(name, verdict.outcome),
                reasons=list(verdict.instance_reasons.get(name, [])),
                achieved_transactional_iops=figures["transactional_iops"],
                target_transactional_iops=per_instance_target,
                threads=config.threads_for_database(index),
                sluggish_sessions=config.sluggish_sessions,
                unbuffered_io=unbuffered_io,
                latency_percentiles_ms=percentile_figures(streams),
                db_read_interval_max_latency_ms=(highest or {}).get(name, {}).get(DB_READ),
                log_write_interval_max_latency_ms=(highest or {}).get(name, {}).get(LOG_WRITE),
            )
        )
    return RunResult(
        tool=TOOL_NAME,
        tool_version=__version__,
        run_id=run_id,
        times=times,
        host=host,
        io_backend=backend_name,
        simulated=bool(device),
        device=device,
        unbuffered_io=unbuffered_io,
        unbuffered_io_detail=io_detail,
        configuration=config,
        summary=summary,
        instances=rows,
        criteria=list(verdict.criteria),
        error_groups=[_error_group(name, group) for name, tally in tallies.items() for group in tally.ordered()],
        host_performance=HostPerformance.of(list(host_samples), list(stalls_per_s)),
        notes=[*notes] if config.scans else [RunNote(what="page_faults"), *notes],  # a scan runs no transaction to stall
    )


def _error_figures(stream_errors: int, tally: ErrorTally) -> dict[str, Any]:
    """The whole run's I/O errors (the streams count the measured window's only) and their kinds."""
    return {"io_errors": max(stream_errors, tally.total), "io_errors_by_kind": tally.by_kind()}


def _error_group(instance: str, group: KindCount) -> ErrorGroup:
    first = group.first
    code, name = ese_error(first.kind, first.unit)
    return ErrorGroup(
        instance=instance, kind=first.kind, unit=first.unit, title=first.title, ese_error=code, ese_name=name,
        count=group.count, first_stream=first.stream, first_file=first.path, first_number=first.number,
        first_offset=first.offset, first_message=str(first), patched=group.patched, patch=patch_words(group))


def write_result(document: RunResult, folder: Path) -> Path:
    """Write result.json atomically (a crash never leaves half a document)."""
    path = folder / RESULT_FILE
    write_text(path, document.model_dump_json(indent=2) + "\n")
    return path


def read_host(folder: Path) -> HostInfo | None:
    """The machine a run folder's test ran on, as written when it began; None where it is not there or unreadable."""
    try:
        return HostInfo.model_validate_json((folder / HOST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_result(folder: Path) -> RunResult:
    """The result document of a run folder (ValueError or OSError if it cannot be read)."""
    return RunResult.model_validate_json((folder / RESULT_FILE).read_text(encoding="utf-8"))


def read_samples(folder: Path) -> Samples:
    """The interval samples of a run folder: its samples file, or an older version's samples.jsonl (a line cut
    short by a crash is skipped)."""
    if (folder / SAMPLES_DB).exists():
        return SampleFile(folder / SAMPLES_DB)
    path = folder / SAMPLES_FILE
    if not path.exists():
        return SampleList()
    samples = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            try:
                samples.append(IntervalSample.model_validate_json(line))
            except ValueError:
                continue
    return SampleList(samples)
