"""Agents on this machine for the tests across servers: each in its own process and data folder, on its own loopback
address, enrolled through the command line as an engineer enrols a server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from engine.hosts.roster import Roster

JETWISE = [sys.executable, "-m", "app"]
HOSTS = ["127.0.0.2", "127.0.0.3", "127.0.0.4"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def jetwise(data: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*JETWISE, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, JETWISE_DATA_DIR=str(data)))


def start_agent(data: Path, host: str, *, once: bool = True) -> subprocess.Popen[str]:
    return subprocess.Popen([*JETWISE, "agent", *(["--once"] if once else []), "--listen", host],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, JETWISE_DATA_DIR=str(data)))


def enrolled(roster: Roster, tmp_path: Path, host: str, address: str) -> Path:
    """`host` enrolled with `roster`'s controller at `address`: its agent's data folder."""
    data = tmp_path / f"agent-{host}"
    added = roster.add(host, address, tmp_path)
    done = jetwise(data, "agent", "--enrol", str(added.bundle), "--code", added.code)
    assert done.returncode == 0, done.stderr
    assert f"Enrolled as {host}" in done.stdout and not added.bundle.exists()
    return data


def stop_all(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()
