"""The test files a configuration's runs left: its databases, their log files and a backup's copies, found by name
in the configuration's folders and kept only when they carry a Jetwise header; their removal, and what it frees.

Nothing without a Jetwise header is listed or removed, whatever its name, except a creating file a killed creation
left (`engine.io.files.unfinished_creation`); a link is not followed. A folder a run holds (`engine.io.locks`) is
not touched: its test is using the files; the removal holds the folders' locks itself, so no run starts among them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.io.file_names import backup_file_path, database_files
from engine.io.files import creating_path, remove_jetwise_files, unfinished_creation
from engine.io.flush_file import flush_map_path
from engine.io.locks import FolderLocks, folder_problem
from engine.io.pages import is_jetwise_file
from engine.model.config import TestConfig


@dataclass(frozen=True)
class Leftovers:
    """The Jetwise files of a configuration, each with its size when found."""

    sizes: dict[Path, int] = field(default_factory=dict)

    @property
    def paths(self) -> list[Path]:
        return list(self.sizes)

    @property
    def size_bytes(self) -> int:
        return sum(self.sizes.values())

    @property
    def folders(self) -> dict[Path, list[Path]]:
        """Each folder they are in, with its files."""
        found: dict[Path, list[Path]] = {}
        for path in self.sizes:
            found.setdefault(path.parent, []).append(path)
        return found


def leftover_files(config: TestConfig) -> Leftovers:
    """The databases, their flush maps, log files and backup copies `config`'s runs created, as they are on disk now."""
    candidates: list[Path] = []
    for index, spec in enumerate(config.databases):
        candidates += database_files(spec, index)
        candidates += [flush_map_path(path) for path in database_files(spec, index)]
        if spec.log_path.is_dir():
            candidates += sorted(spec.log_path.glob(f"Jetwise{index + 1:03d}.*.jwlog"))
        if config.backup_path is not None:
            candidates += [backup_file_path(config.backup_path, index, part) for part in range(len(spec.database_paths))]
    candidates += [creating_path(path) for path in candidates]
    return Leftovers({path: path.stat().st_size for path in dict.fromkeys(candidates)
                      if path.is_file() and not path.is_symlink() and (is_jetwise_file(path) or unfinished_creation(path))})


def folders_in_use(files: Leftovers) -> list[str]:
    """Why each folder of `files` that a run holds now cannot be cleaned, naming the run (none: all free)."""
    return [problem for folder in files.folders if (problem := folder_problem(folder)) is not None]


def remove_leftovers(files: Leftovers) -> tuple[int, list[Path]]:
    """Remove `files` (each checked for its Jetwise header again) under their folders' locks; the bytes freed, and
    the files left in place. A folder a run took since they were listed raises `FolderInUseError`, nothing removed."""
    with FolderLocks(files.folders, "clean"):
        kept = remove_jetwise_files(files.paths)
    return sum(size for path, size in files.sizes.items() if path not in kept and not path.exists()), kept
