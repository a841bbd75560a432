"""A run's folder as Jetwise wrote it: its own files, each known by its name and what it holds, removed when the run
is deleted; anything else in the folder, and the folder with it, is left where it is.

Ours: the result document whose run id is this run's, a configuration Jetwise reads, the samples (with SQLite's
journal files), the test log, the folder lock and space reserve, and every report whose first lines name this run (the
window's report.html, the Jetstress-layout HTML and XML). A link is never followed nor removed.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from engine.io.locks import LOCK_FILE
from engine.model.config import TestConfig
from engine.results.document import CONFIG_FILE, HOST_FILE, LOG_FILE, REQUESTED_CONFIG_FILE, RESULT_FILE, SAMPLES_FILE
from engine.results.host_schema import HostInfo
from engine.results.sample_file import SAMPLES_DB
from engine.run.sinks import RESERVE_FILE

HEAD_BYTES = 64 * 1024  # where a report names its run
NAMED = {LOG_FILE, SAMPLES_FILE, SAMPLES_DB, *(SAMPLES_DB + end for end in ("-wal", "-shm", "-journal")), LOCK_FILE,
         RESERVE_FILE}


def remove_run_folder(folder: Path, run_id: str) -> list[Path]:
    """Remove run `run_id`'s own files from `folder`, then the folder if nothing is left; what was left, each not the
    run's."""
    if folder.is_symlink() or not folder.is_dir():
        return []
    left = []
    for path in sorted(folder.iterdir()):
        if not path.is_symlink() and path.is_file() and _ours(path, run_id):
            path.unlink()
        else:
            left.append(path)
    if not left:
        folder.rmdir()
    return left


def _ours(path: Path, run_id: str) -> bool:
    name = path.name
    try:
        if name == RESULT_FILE:
            return bool(json.loads(path.read_text(encoding="utf-8")).get("run_id") == run_id)
        if name in (CONFIG_FILE, REQUESTED_CONFIG_FILE):
            TestConfig.model_validate_json(path.read_text(encoding="utf-8"))
            return True
        if name == HOST_FILE:  # a machine's facts as Jetwise wrote them: its name and system at least
            return bool(HostInfo.model_validate_json(path.read_text(encoding="utf-8")).machine_name)
        if name in NAMED:
            return True
        if path.suffix in (".html", ".xml"):
            with path.open("rb") as handle:
                return f"run {run_id}".encode() in handle.read(HEAD_BYTES)
    except (OSError, ValueError, ValidationError, AttributeError):
        return False
    return False
