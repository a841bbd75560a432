"""Three enrolled servers on this machine for the tests across servers: agents in their own processes and data
folders on loopback addresses, a controller's data folder, a configuration file per server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import psutil

from engine.hosts.roster import Roster
from engine.model.config import TestConfig
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome, RunResult
from tests.conftest import small_config
from tests.hosts.agents import HOSTS, JETWISE, enrolled, free_port, start_agent

STOPPED_WITHIN_S = 5.0
ROOT = Path(__file__).parents[2]


class Servers:
    """A controller's data folder, three enrolled agents' folders, and a configuration file per server."""

    def __init__(self, tmp_path: Path, keys, **timing: float) -> None:
        timing = {"warmup_s": 1.0, **timing}
        self.port = free_port()
        self.controller = tmp_path / "controller"
        roster = Roster(self.controller / "hosts", keys)
        self.data = {host: enrolled(roster, tmp_path, host, f"tls://127.0.0.1:{self.port}") for host in HOSTS}
        self.files = {}
        for host in HOSTS:  # each server its own databases and paths, as on real servers
            config = small_config(tmp_path / f"databases-{host}", sample_interval_s=1.0, **timing)
            self.files[host] = tmp_path / f"{host}.json"
            self.files[host].write_text(config.model_dump_json(indent=1), encoding="utf-8")
        self.agents: dict[str, subprocess.Popen[str]] = {}

    def start_agents(self, *, once: bool) -> None:
        self.agents = {host: start_agent(self.data[host], host, once=once) for host in HOSTS}

    def run(self, output: Path, *extra: str) -> subprocess.Popen[str]:
        hosts = ",".join(f"{host}={self.files[host]}" for host in HOSTS)
        return subprocess.Popen([*JETWISE, "run", str(self.files[HOSTS[0]]), "--hosts", hosts, "--port", str(self.port),
                                 "--wait", "90s", "--output", str(output), *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, JETWISE_DATA_DIR=str(self.controller)))

    def measuring(self, output: Path) -> tuple[subprocess.Popen[str], list[psutil.Process]]:
        """A test started and measuring on every server, and the processes its runs started on them."""
        controller = self.run(output)
        until_measuring(controller)
        return controller, [child for agent in self.agents.values()
                            for child in psutil.Process(agent.pid).children(recursive=True)]

    def part(self, host: str, test_id: str) -> Path:
        """A server's own run folder of a test, in its agent's data folder."""
        return self.data[host] / "agent" / "runs" / test_id


def until_measuring(controller: subprocess.Popen[str]) -> list[str]:
    """The controller's lines until the first measured interval of the servers together."""
    assert controller.stderr is not None
    lines = []
    for line in controller.stderr:
        lines.append(line)
        if "[measure " in line:
            return lines
    raise AssertionError("the test ended before it measured:\n" + "".join(lines))


def measured(folder: Path) -> int:
    return sum(1 for sample in read_samples(folder) if sample.phase == "measure")


def aborted_within(result: RunResult, moment: datetime, words: str) -> None:
    assert result.summary.verdict == Outcome.ABORTED and words in result.summary.reasons[0], result.summary.reasons
    assert result.times.test_end_utc is not None
    assert (result.times.test_end_utc - moment).total_seconds() < STOPPED_WITHIN_S


def result_of(folder: Path, within_s: float = 60.0) -> RunResult:
    """A server's result once its run has written it (a run stopping on its own, with nothing to wait on)."""
    deadline = time.monotonic() + within_s
    while not (folder / "result.json").exists():
        assert time.monotonic() < deadline, f"no result in {folder}"
        time.sleep(0.1)
    return read_result(folder)


def mounts_as_root() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


class RunConfigFile:
    """A server's configuration file, edited between its tests."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.config = TestConfig.model_validate_json(path.read_text(encoding="utf-8"))

    def set(self, **changes: object) -> None:
        self.config = TestConfig.model_validate({**self.config.model_dump(mode="json"), **changes})
        self.path.write_text(self.config.model_dump_json(indent=1), encoding="utf-8")
