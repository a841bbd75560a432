"""The window's engine process ends with the window, however the window ends.

The window runs `jetwise engine` with pipes for stdin and stdout. When the window is killed,
the engine sees the end of stdin, stops the run, writes the aborted result with its reason
and every sample so far, and its workers end with it.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from engine.results.document import read_samples
from tests.cli.test_cli import JETWISE
from tests.faults.test_parent_death import _config, _semaphores, _wait_gone

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kill -9 is POSIX; Windows closes the same pipe")

# A stand-in for the window: it starts the engine the way ui/controllers/engine_process.py does
# (pipes on stdin and stdout), says when the engine measures, then waits to be killed (or ends after WAIT_S, should the
# test never kill it).
WINDOW = textwrap.dedent("""
    import subprocess, sys
    engine = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in engine.stdout:
        if '"phase":"measuring"' in line.replace(" ", ""):
            print(engine.pid, flush=True)
            break
    engine.wait(timeout=float(sys.argv[1]))
""")
WAIT_S = 300.0  # the engine's first sample comes within seconds


def test_the_engine_and_its_workers_end_and_leave_an_aborted_result_when_the_window_is_killed(tmp_path):
    before = _semaphores()
    config = _config(tmp_path, "--mailbox-size-mb", "1")
    out = tmp_path / "run"
    window = subprocess.Popen([sys.executable, "-c", WINDOW, str(WAIT_S), *JETWISE, "engine", str(config), "--output",
                               str(out)], cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    assert window.stdout is not None
    if not select.select([window.stdout], [], [], WAIT_S)[0]:  # the engine never measured: end it, then fail
        window.kill()
        window.wait(timeout=10)
        pytest.fail(f"the engine said nothing of measuring within {WAIT_S:g} s")
    engine = psutil.Process(int(window.stdout.readline()))
    workers = engine.children(recursive=True)
    assert workers
    time.sleep(0.5)  # not a timing assertion: lets at least one sample interval begin
    window.send_signal(signal.SIGKILL)
    window.wait(timeout=10)
    left = _wait_gone([engine, *workers])
    for process in left:  # a failed test must not leave load on the disk either
        process.kill()
    assert left == [], "the engine or its workers still run after the window died"
    assert _semaphores() - before == set()
    result = json.loads((out / "result.json").read_text())
    assert result["summary"]["verdict"] == "aborted"
    assert any("window" in reason for reason in result["summary"]["reasons"]), result["summary"]["reasons"]
    assert len(read_samples(out)) >= 1
