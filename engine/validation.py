"""Validation: every problem at once, each tied to its field, in words an engineer can act on.

`validate_data` checks raw input (a JSON file, wizard fields) against the model;
`check_config` checks a valid model against the machine: folders, free space per
volume, unbuffered I/O, and files Jetwise must not touch.
"""

from __future__ import annotations

import os
import shutil
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engine.config import (
    PAGE_SIZE_BYTES,
    RUNNABLE_TEST_TYPES,
    DatabaseSource,
    TestConfig,
)
from engine.files import database_file_path
from engine.pages import FormatError, read_database_header
from engine.platform import IoBackend, UnbufferedProbe
from engine.units import format_bytes


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a configuration, and the field it belongs to."""

    field: str
    message: str
    severity: Severity = Severity.ERROR

    def __str__(self) -> str:
        prefix = "" if self.severity == Severity.ERROR else "warning: "
        return f"{prefix}{self.field}: {self.message}" if self.field else f"{prefix}{self.message}"


def errors_only(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == Severity.ERROR]


def _field_path(location: tuple[int | str, ...]) -> str:
    out = ""
    for part in location:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out


def problems_from_validation_error(error: ValidationError) -> list[Problem]:
    problems = []
    for item in error.errors(include_url=False):
        message = str(item["msg"])
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        elif item["type"] not in {"missing", "extra_forbidden"} and "input" in item:
            message = f"{message[0].lower()}{message[1:]} (got {item['input']!r})"
        elif item["type"] == "extra_forbidden":
            message = "is not a Jetwise setting"
        problems.append(Problem(_field_path(tuple(item["loc"])), message))
    return problems


def validate_data(data: Mapping[str, Any] | str) -> tuple[TestConfig | None, list[Problem]]:
    """Build a model from raw data (dict or JSON text); return it or every problem found."""
    try:
        if isinstance(data, str):
            return TestConfig.model_validate_json(data), []
        return TestConfig.model_validate(dict(data)), []
    except ValidationError as exc:
        return None, problems_from_validation_error(exc)


def check_rules(config: TestConfig) -> list[Problem]:
    """Checks across fields that need no file system."""
    problems: list[Problem] = []
    if config.thread_count < config.database_count:
        problems.append(
            Problem(
                "thread_count",
                f"{config.thread_count} thread(s) cannot serve {config.database_count} databases; "
                f"each database needs at least one thread",
            )
        )
    for attr, what in (("database_path", "folder"), ("log_path", "log folder")):
        seen: dict[str, int] = {}
        for index, spec in enumerate(config.databases):
            key = os.path.normcase(os.path.normpath(str(getattr(spec, attr))))
            if key in seen:
                problems.append(
                    Problem(
                        f"databases[{index}].{attr}",
                        f"databases {seen[key] + 1} and {index + 1} share {getattr(spec, attr)}; "
                        f"give each database its own {what}",
                    )
                )
            else:
                seen[key] = index
    if config.test_type not in RUNNABLE_TEST_TYPES:
        problems.append(
            Problem(
                "test_type",
                f"{config.test_type.value.replace('_', ' ')} tests are not available in this version; choose performance or stress",
            )
        )
    cache_pages = config.database_cache_pages - config.flush_thresholds_pages[1]
    if cache_pages >= config.database_pages - 1:
        problems.append(
            Problem(
                "database_cache_max_mb",
                f"the database cache ({format_bytes(cache_pages * PAGE_SIZE_BYTES)} per instance) holds the whole "
                f"database ({format_bytes(config.database_size_bytes)}): once warm, no read reaches the disk; "
                "make the databases larger or the cache smaller",
                Severity.WARNING,
            )
        )
    if config.warmup_s + config.duration_s < config.sample_interval_s:
        problems.append(
            Problem(
                "duration_s",
                f"the run ({config.duration_s:g} s) is shorter than one sample interval ({config.sample_interval_s:g} s)",
            )
        )
    return problems


def existing_folder(path: Path) -> tuple[Path | None, str | None]:
    """The folder to check for `path`: itself, or its parent when only the leaf is missing."""
    if path.is_dir():
        return path, None
    if path.exists():
        return None, f"{path} is a file, not a folder"
    parent = path.parent
    if parent.is_dir():
        return parent, None
    return None, f"{path} does not exist (nor does {parent})"


def check_environment(config: TestConfig, backend: IoBackend) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
    """Check folders, writability, free space, unbuffered I/O and existing files."""
    problems: list[Problem] = []
    probes: dict[Path, UnbufferedProbe] = {}
    needs: dict[int, int] = defaultdict(int)  # device -> bytes still to allocate
    device_paths: dict[int, list[str]] = defaultdict(list)
    device_folder: dict[int, Path] = {}

    for index, spec in enumerate(config.databases):
        for attr in ("database_path", "log_path"):
            field = f"databases[{index}].{attr}"
            path: Path = getattr(spec, attr)
            folder, missing = existing_folder(path)
            if folder is None:
                problems.append(Problem(field, missing or f"{path} is not usable"))
                continue
            if not os.access(folder, os.W_OK | os.X_OK):
                problems.append(Problem(field, f"{folder} is not writable for this user"))
                continue
            probe = probes.get(folder)
            if probe is None:
                try:
                    probe = probes[folder] = backend.probe_unbuffered(folder)
                except OSError as exc:
                    problems.append(Problem(field, f"cannot test unbuffered I/O in {folder}: {exc.strerror or exc}"))
                    continue
            if not probe.representative and not config.allow_buffered_io:
                if probe.supported:
                    words = f"{folder} is on a memory-backed file system ({probe.detail}); results would measure memory, not storage"
                else:
                    words = f"{folder}: {probe.detail}, so results would measure the file cache, not the disk"
                problems.append(
                    Problem(field, words + "; choose a folder on a disk volume, or allow buffered I/O to run with results marked")
                )
            device = os.stat(folder).st_dev
            device_folder.setdefault(device, folder)
            if attr == "database_path":
                db_file = database_file_path(path, index)
                needed = config.database_size_bytes
                if db_file.exists():
                    try:
                        header = read_database_header(db_file)
                    except FormatError as exc:
                        problems.append(
                            Problem(field, f"{exc}; Jetwise does not write into files it did not create: move it or choose another folder")
                        )
                        continue
                    if config.database_source == DatabaseSource.ATTACH:
                        if not header.complete:
                            problems.append(Problem(field, f"{db_file} is incomplete; choose 'create' to resume it"))
                        elif header.pages_planned != config.database_pages:
                            problems.append(Problem(
                                field,
                                f"{db_file} is attached as it is ({format_bytes(header.pages_planned * PAGE_SIZE_BYTES)}); "
                                f"this profile sizes it at {format_bytes(config.database_size_bytes)}",
                                Severity.WARNING,
                            ))
                    elif header.pages_planned != config.database_pages:
                        problems.append(Problem(
                            field,
                            f"{db_file} is a Jetwise database of {format_bytes(header.pages_planned * PAGE_SIZE_BYTES)}; "
                            f"this profile needs {format_bytes(config.database_size_bytes)}, so it will be recreated "
                            "(choose 'attach' to keep it as it is)",
                            Severity.WARNING,
                        ))
                    needed = max(0, needed - db_file.stat().st_size)  # its space is reused
                elif config.database_source == DatabaseSource.ATTACH:
                    problems.append(Problem(field, f"{db_file} does not exist: there is no database to attach"))
                    needed = 0
                if config.database_source == DatabaseSource.ATTACH:
                    needed = 0
                needs[device] += needed
                device_paths[device].append(f"database {index + 1}")
            else:
                needs[device] += config.log_space_bytes_per_database
                device_paths[device].append(f"log {index + 1}")

    for device, needed in needs.items():
        folder = device_folder[device]
        free = shutil.disk_usage(folder).free
        if needed > free:
            what = ", ".join(device_paths[device])
            problems.append(
                Problem(
                    _first_field_on(config, device),
                    f"the volume of {folder} has {format_bytes(free)} free; {what} need {format_bytes(needed)} there",
                )
            )
    return problems, probes


def _first_field_on(config: TestConfig, device: int) -> str:
    for index, spec in enumerate(config.databases):
        for attr in ("database_path", "log_path"):
            folder, _ = existing_folder(getattr(spec, attr))
            if folder is not None and os.stat(folder).st_dev == device:
                return f"databases[{index}].{attr}"
    return "databases"


def validate_config(config: TestConfig, backend: IoBackend) -> tuple[list[Problem], dict[Path, UnbufferedProbe]]:
    """All checks for a model: rules first, then the machine."""
    problems = check_rules(config)
    env_problems, probes = check_environment(config, backend)
    return problems + env_problems, probes
