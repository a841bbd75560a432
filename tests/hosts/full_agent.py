"""Run `jetwise agent` with its runs folder on a small volume that fills mid-run (run inside `unshare -m`, as root: a
private mount namespace that still sees the user's kernel key store, where the agent's key is).

    python -m tests.hosts.full_agent MOUNT SIZE HOST COPY

Mounts a tmpfs of SIZE at MOUNT (the agent's runs folder; nothing outside sees it), starts the agent for HOST, fills
the volume once its run has written two samples, waits for the agent to end, and copies the volume to COPY (it goes
away with the namespace). Prints the agent's exit code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.faults.fill_volume import fill_once_sampled, mount_small
from tests.hosts.agents import JETWISE


def main(mount: Path, size: str, host: str, copy: Path) -> int:
    mount_small(mount, size)
    agent = subprocess.Popen([*JETWISE, "agent", "--once", "--listen", host], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    print(fill_once_sampled(mount, agent, lambda: next(iter(mount.iterdir()), None), copy))  # the test's run folder
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], Path(sys.argv[4])))
