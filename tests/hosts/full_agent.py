"""Run `jetwise agent` with its runs folder on a small volume that fills mid-run (run inside `unshare -m`, as root: a
private mount namespace that still sees the user's kernel key store, where the agent's key is).

    python -m tests.hosts.full_agent MOUNT SIZE HOST COPY

Mounts a tmpfs of SIZE at MOUNT (the agent's runs folder; nothing outside sees it), starts the agent for HOST, fills
the volume once its run has written two samples, waits for the agent to end, and copies the volume to COPY (it goes
away with the namespace). Prints the agent's exit code.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from engine.results.document import read_samples
from engine.results.sample_file import SAMPLES_DB
from tests.faults.fill_volume import _fill
from tests.hosts.agents import JETWISE


def main(mount: Path, size: str, host: str, copy: Path) -> int:
    mount.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)], check=True)
    agent = subprocess.Popen([*JETWISE, "agent", "--once", "--listen", host], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while agent.poll() is None and time.monotonic() < deadline:
        samples = [folder for folder in mount.iterdir() if (folder / SAMPLES_DB).exists()]
        if samples and len(read_samples(samples[0])) >= 2:
            break
        time.sleep(0.2)
    _fill(mount)
    try:
        code = agent.wait(timeout=120)
    except subprocess.TimeoutExpired:
        agent.kill()
        code = -1
    (mount / "filler").unlink()
    shutil.copytree(mount, copy)
    print(code)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])))
