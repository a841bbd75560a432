"""Where a test's database, log and backup files are: each one's name in its folder, numbered by its instance."""

from __future__ import annotations

from pathlib import Path

from engine.model.config import DatabaseSpec, TestConfig


def _numbered(index: int, part: int) -> str:
    """Jetwise001 for instance 1's first database file, Jetwise001-2 for its second (Jetstress: 001001, 001002)."""
    return f"Jetwise{index + 1:03d}" + (f"-{part + 1}" if part else "")


def database_file_path(folder: Path, index: int, part: int = 0) -> Path:
    return folder / f"{_numbered(index, part)}.jwdb"


def database_files(spec: DatabaseSpec, index: int) -> list[Path]:
    """Instance `index`'s database files, one in each of its database folders, the first first."""
    return [database_file_path(folder, index, part) for part, folder in enumerate(spec.database_paths)]


def database_sizes(config: TestConfig) -> dict[str, int | None]:
    """Each instance's database files' length now, together (None where one is missing or cannot be read)."""
    sizes: dict[str, int | None] = {}
    for index, spec in enumerate(config.databases):
        try:
            sizes[config.instance_name(index)] = sum(path.stat().st_size for path in database_files(spec, index))
        except OSError:
            sizes[config.instance_name(index)] = None
    return sizes


def log_file_path(folder: Path, index: int, slot: int) -> Path:
    return folder / f"Jetwise{index + 1:03d}.{slot:02d}.jwlog"


def backup_file_path(folder: Path, index: int, part: int = 0) -> Path:
    return folder / f"{_numbered(index, part)}.jwbak"
