"""A volume that holds the databases and their logs but not what the test grows them by is refused before the test.

The volume is real: a 253 MB tmpfs (`tests.faults.fill_volume.mount_small`, mounted here as root), two 100 MB databases
and their logs on it (232 MB). A 2 h run grows each database by many 8 MiB extensions (`engine.model.growth`), so
`validate`, the run's own check and the window's Review refuse it, saying the growth they reserve.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.model.config import TestConfig
from engine.model.growth import EXTENSION_PAGES, growth_bound_bytes
from tests.cli.test_cli import jetwise
from tests.faults.fill_volume import mount_small

NEEDS = ("has 253.0 MB free; database 1, log 1, database 2, log 2 need 2.0 GB there: databases 200.0 MB, "
         "logs 32.0 MB, growth 1.7 GB for a 2h run")


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Path]:
    """A 253 MB volume of its own at tmp_path/small."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small volume needs root")
    mount = tmp_path / "small"
    mount_small(mount, "253m")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def growth_config(tmp_path: Path, small: Path, duration: str) -> Path:
    out = tmp_path / f"{duration}.json"
    done = jetwise("init", str(out), "--databases", "2", "--db-path", str(small / "DB{n}"), "--log-path",
                   str(small / "Log{n}"), "--database-size-mb", "100", "--duration", duration, "--warmup", "0s",
                   "--cache-min-mb", "1", "--cache-max-mb", "2", "--allow-buffered-io", "on", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return out


def test_validate_and_the_run_refuse_a_volume_without_room_for_the_growth_and_say_it(tmp_path, small):
    config = growth_config(tmp_path, small, "2h")
    checked = jetwise("validate", str(config), cwd=tmp_path)
    assert checked.returncode == 2 and f"error: databases[0].database_path: the volume of {small} {NEEDS}" in checked.stdout
    run = jetwise("run", str(config), "--output", str(tmp_path / "run"), cwd=tmp_path)
    assert run.returncode == 2 and NEEDS in run.stderr and "Traceback" not in run.stderr
    assert not list(small.rglob("*.jwdb"))  # refused before anything is made


def test_a_short_run_on_the_same_volume_fits_its_one_extension_per_database(tmp_path, small):
    config = growth_config(tmp_path, small, "1s")
    assert jetwise("validate", str(config), cwd=tmp_path).returncode == 0
    growth = growth_bound_bytes(TestConfig.model_validate_json(config.read_text()))
    assert growth == EXTENSION_PAGES * 32 * 1024  # one extension: a created database is full, its first split grows it
    run = jetwise("run", str(config), "--output", str(tmp_path / "run"), cwd=tmp_path)
    assert "-1022" not in run.stderr and "No space left" not in run.stderr, run.stderr
    assert all(db.stat().st_size <= 100 * 2**20 + growth for db in small.rglob("*.jwdb"))
