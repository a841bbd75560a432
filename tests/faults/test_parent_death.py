"""Nothing is left running when the runner dies: kill -9 of `jetwise run` while it creates and while it measures."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from engine.results.document import read_samples
from tests.cli.test_cli import JETWISE, jetwise
from tests.frozen.programs import said_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kill -9 and /dev/shm are POSIX; Windows uses the same sentinel")
GONE_WITHIN_S = 3.0


def _semaphores() -> set[str]:
    """Named semaphores that exist and that no living process maps: those a run left behind.

    Semaphores of other processes running meanwhile (other tests, other runs) are mapped by them.
    """
    shm = Path("/dev/shm")
    if not shm.is_dir():
        return set()
    mapped: set[str] = set()
    for maps in Path("/proc").glob("[0-9]*/maps"):
        try:
            mapped.update(line.rsplit("/", 1)[-1].strip() for line in maps.read_text().splitlines() if "/dev/shm/sem." in line)
        except OSError:
            continue  # the process ended meanwhile
    return {p.name for p in shm.glob("sem.*")} - mapped


def _config(tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "test.json"
    done = jetwise("init", str(out), "--databases", "2", "--db-path", str(tmp_path / "DB{n}"), "--log-path",
                   str(tmp_path / "Log{n}"), "--mailboxes", "8", "--cache-min-mb", "1", "--cache-max-mb", "2",
                   "--duration", "10m", "--warmup", "0s", *extra, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return out


def _kill_when(config: Path, tmp_path: Path, words: str) -> list[psutil.Process]:
    """Start a run, kill -9 it once its progress shows `words`; the worker processes it had."""
    process = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(tmp_path / "run")], cwd=tmp_path,
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    seen = said_until(process, words)
    children = psutil.Process(process.pid).children(recursive=True)
    assert children, "".join(seen)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    return children


def _wait_gone(processes: list[psutil.Process]) -> list[psutil.Process]:
    deadline = time.monotonic() + GONE_WITHIN_S
    alive = processes
    while alive and time.monotonic() < deadline:
        _gone, alive = psutil.wait_procs(alive, timeout=0.1)
    return alive


def test_workers_end_within_seconds_when_the_runner_is_killed_while_measuring(tmp_path):
    before = _semaphores()
    config = _config(tmp_path, "--mailbox-size-mb", "1")
    children = _kill_when(config, tmp_path, "[measure")
    assert _wait_gone(children) == [], "workers still running after the runner died"
    assert _semaphores() - before == set()
    samples = list(read_samples(tmp_path / "run"))
    assert samples and samples[0].interval >= 0  # what was measured stays


def test_workers_end_within_seconds_when_the_runner_is_killed_while_creating(tmp_path):
    config = _config(tmp_path, "--mailbox-size-mb", "400", "--capacity-percent", "50")  # 1.6 GB per database
    children = _kill_when(config, tmp_path, "creating databases")
    assert _wait_gone(children) == [], "workers still creating databases after the runner died"


def test_a_hang_up_whose_terminal_is_gone_still_ends_in_an_aborted_result_and_exit_3(tmp_path, private_store):
    """The remote session drops: SIGHUP, and every later write to the terminal fails. The run still ends as it should."""
    config = _config(tmp_path, "--mailbox-size-mb", "1")
    out = tmp_path / "run"
    process = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(out)], cwd=tmp_path,
                               stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stderr is not None and process.stdout is not None
    said_until(process)
    process.stderr.close()  # the terminal is gone: the run's next line to it breaks the pipe
    process.stdout.close()
    process.send_signal(signal.SIGHUP)
    assert process.wait(timeout=60) == 3
    result = json.loads((out / "result.json").read_text())
    assert result["summary"]["verdict"] == "aborted" and "(SIGHUP)" in result["summary"]["reasons"][0]
    assert not (private_store / "jetwise-errors.log").exists(), "the hang-up was recorded as a crash"
