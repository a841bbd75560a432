"""Run `jetwise run` with one of its folders on a small volume that fills mid-run (run inside `unshare -rm`).

    python -m tests.faults.fill_volume MOUNT SIZE CONFIG OUTPUT COPY [--store]

Mounts a tmpfs of SIZE at MOUNT (a private mount namespace: nothing outside sees it), starts
the run with its output folder (or, with --store, its run store) there, fills the volume once
two samples are written, waits for the run to end and copies what is on the small volume to
COPY, because the volume goes away with the namespace. Prints the run's exit code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engine.results.document import read_samples
from engine.results.sample_file import SAMPLES_DB

JETWISE = [sys.executable, "-m", "app"]


def _fill(folder: Path) -> None:
    """Write until the volume is full; the last buffered bytes fail as the file closes, which is the point."""
    try:
        with open(folder / "filler", "wb") as filler:
            while True:
                filler.write(bytes(64 * 1024))
                filler.flush()
    except OSError:
        pass


def mount_small(mount: Path, size: str) -> None:
    """A tmpfs of `size` at `mount`, in this process's private mount namespace."""
    mount.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], check=True)


def fill_once_sampled(mount: Path, process: subprocess.Popen[bytes], sampled: Callable[[], Path | None],
                      copy: Path) -> int:
    """Fill `mount` once the run whose folder `sampled` finds has written two samples, wait for `process` to end, and
    copy the volume to `copy` (it goes away with the namespace): `process`'s exit code (-1: it did not end, killed)."""
    deadline = time.monotonic() + 120
    while process.poll() is None and time.monotonic() < deadline:
        folder = sampled()
        if folder is not None and (folder / SAMPLES_DB).exists() and len(read_samples(folder)) >= 2:
            break
        time.sleep(0.2)
    _fill(mount)
    try:
        code = process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        code = -1
    (mount / "filler").unlink()
    shutil.copytree(mount, copy)
    return code


def main(mount: Path, size: str, config: Path, output: Path, copy: Path, store: bool) -> int:
    mount_small(mount, size)
    env = dict(os.environ, JETWISE_DATA_DIR=str(mount)) if store else dict(os.environ)
    with open(copy.parent / "stderr.txt", "w") as stderr:
        run = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(output)], cwd=config.parent,
                               stdout=subprocess.DEVNULL, stderr=stderr, env=env)
        print(fill_once_sampled(mount, run, lambda: output, copy))
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    sys.exit(main(Path(args[0]), args[1], Path(args[2]), Path(args[3]), Path(args[4]), "--store" in args))
