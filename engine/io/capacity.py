"""The disk throughput scenario's database size, as Jetstress sizes it: a capacity percentage of free space.

The size is computed once, when the configuration is made, and kept in it (`database_size_mb`),
so every run of the session uses the same files. The space a Jetwise database already takes in
its folder counts as free (a run would reuse it), so making the configuration again on the
same folders gives the same size. A reserve stays free on each volume for the run's samples,
reports and anything else that needs a little room.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path, PureWindowsPath

from engine.io.file_names import database_files
from engine.io.pages import FormatError, read_database_header
from engine.model.config import TestConfig
from engine.model.sizing import MIN_DATABASE_PAGES, PAGE_SIZE_BYTES
from engine.model.units import MIB, format_bytes

RESERVE_SHARE = 0.01  # of each volume's free space, kept free
MIN_RESERVE_BYTES = 256 * MIB


class CapacityError(ValueError):
    """A database volume that cannot be measured on this machine."""


def free_bytes(folder: Path) -> int:
    return shutil.disk_usage(folder).free


def sized_if_throughput(config: TestConfig, free_space: Callable[[Path], int] = free_bytes) -> tuple[TestConfig, str]:
    """A disk throughput configuration without a database size, sized (`sized_for_capacity`); any other as it is, ""."""
    if not config.seeks_maximum or config.database_size_mb is not None:
        return config, ""
    return sized_for_capacity(config, free_space)


def sized_for_capacity(config: TestConfig, free_space: Callable[[Path], int] = free_bytes) -> tuple[TestConfig, str]:
    """`config` with each database sized at its capacity percentage of its volume's free space, and how, in words.

    Databases sharing a volume share its space, less their logs' on the same volume; every
    database takes the size that fits on the fullest volume. Raises CapacityError when a
    database folder's volume is not on this machine.
    """
    free: dict[int, int] = {}
    shares: dict[int, list[Path]] = defaultdict(list)  # each volume's database files
    logs: dict[int, int] = defaultdict(int)
    folders: dict[int, Path] = {}
    for index, spec in enumerate(config.databases):
        for path in database_files(spec, index):
            folder = _volume_folder(path.parent)
            device = os.stat(folder).st_dev
            if device not in free:
                free[device], folders[device] = free_space(folder), folder
            free[device] += _own_database_bytes(path)
            shares[device].append(path)
    for spec in config.databases:
        with contextlib.suppress(CapacityError):
            logs[os.stat(_volume_folder(spec.log_path)).st_dev] += config.log_space_bytes_per_database
    sizes = {}
    for device, indexes in shares.items():
        usable = free[device] - _reserve(free[device])
        sizes[device] = (usable * config.capacity_percent / 100.0 - logs[device]) / len(indexes)
    tightest = min(sizes, key=lambda device: sizes[device])
    size_mb = max(MIN_DATABASE_PAGES * PAGE_SIZE_BYTES // MIB, int(sizes[tightest] // MIB))
    sized = TestConfig.model_validate(config.model_copy(update={"database_size_mb": float(size_mb)}).model_dump())
    count = len(shares[tightest])
    words = (f"each database is {format_bytes(sized.database_size_bytes)}: {config.capacity_percent:g} % of the "
             f"{format_bytes(free[tightest])} free on the volume of {folders[tightest]}"
             + (f", shared by its {count} databases" if count > 1 else "")
             + (" and their logs" if logs[tightest] else "")
             + f", less a reserve of {format_bytes(_reserve(free[tightest]))}")
    return sized, words


def volume_of(path: Path) -> int | str:
    """Which volume `path` is on: its nearest existing folder's device (the volume serial number on Windows), or, where no
    folder of it exists here, its anchor (a drive, a share, the root)."""
    try:
        return os.stat(_volume_folder(path)).st_dev
    except (CapacityError, OSError):
        return path.anchor or str(path)


def volume_name(path: Path) -> str:
    """The volume `path` is on as an engineer names it: its drive (F:) or share on Windows, its mount point elsewhere."""
    if path.drive:
        return path.drive
    try:
        folder = _volume_folder(path)
        device = os.stat(folder).st_dev
        while folder.parent != folder and os.stat(folder.parent).st_dev == device:
            folder = folder.parent
    except (CapacityError, OSError):
        return path.anchor or str(path)
    return str(folder)


def _reserve(free: int) -> float:
    """What stays free on a volume: 1 % of its free space, at least 256 MB."""
    return max(MIN_RESERVE_BYTES, RESERVE_SHARE * free)


def _volume_folder(path: Path) -> Path:
    """The nearest folder of `path` that exists: its volume's free space is the database's to take. A relative path is
    read against the current folder, as the command line reads it; a Windows path read elsewhere cannot be measured."""
    if not path.is_absolute():
        if PureWindowsPath(str(path)).drive or "\\" in str(path):
            raise CapacityError(f"{path} is not a path on this machine: its volume's free space cannot be measured")
        path = path.absolute()
    for folder in (path, *path.parents):
        if folder.is_dir():
            return folder
        if folder.exists():
            raise CapacityError(f"{folder} is a file, not a folder")
    raise CapacityError(f"no folder of {path} exists on this machine: its volume's free space cannot be measured")


def _own_database_bytes(path: Path) -> int:
    """The space a Jetwise database at `path` takes (a run reuses it); 0 for none, or a file Jetwise did not make."""
    with contextlib.suppress(FormatError, OSError):
        read_database_header(path)
        return path.stat().st_size
    return 0
