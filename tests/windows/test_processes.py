"""A run's processes on Windows: the window runs a test through its engine sub-process, and a killed runner leaves no
worker behind, ended by the kill-on-close job (or, where no job could be joined, by the workers' watch of it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import psutil

from engine.run.worker import PARENT_GONE_EXIT
from tests.frozen.programs import kill_when_measuring, source_program, window_run
from tests.windows import ROOT, windows_only

pytestmark = windows_only()
PROGRAM = source_program()
GONE_WITHIN_S = 3.0
SYNCHRONIZE, PROCESS_QUERY_LIMITED_INFORMATION = 0x00100000, 0x1000
STILL_ACTIVE = 259


def test_the_window_runs_a_short_test_through_its_engine_sub_process(tmp_path):
    result, started = window_run(PROGRAM, tmp_path)
    assert result["summary"]["verdict"] in ("pass", "fail")
    assert any("engine" in line for line in started), started


def _exit_codes_after(handles: dict[int, int], within_s: float) -> dict[int, int]:
    """Each process's exit code once it ended, STILL_ACTIVE for one that did not end within `within_s`."""
    import _winapi  # Windows only

    deadline = time.monotonic() + within_s
    codes = {}
    for pid, handle in handles.items():
        _winapi.WaitForSingleObject(handle, max(0, int((deadline - time.monotonic()) * 1000)))
        codes[pid] = _winapi.GetExitCodeProcess(handle)
        _winapi.CloseHandle(handle)
    return codes


def _held(processes: list[psutil.Process]) -> dict[int, int]:
    """Handles to the processes, opened before they end, so their exit codes can be read after."""
    import _winapi  # Windows only

    return {p.pid: _winapi.OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, False, p.pid) for p in processes}


def test_a_killed_runner_leaves_no_worker_the_job_ends_them(tmp_path):
    handles: dict[int, int] = {}
    workers, said = kill_when_measuring(PROGRAM, tmp_path, lambda found: handles.update(_held(found)))
    codes = _exit_codes_after(handles, GONE_WITHIN_S)
    assert len(workers) >= 2 and "job object" not in said, said
    left = [pid for pid, code in codes.items() if code == STILL_ACTIVE]
    for pid in left:
        psutil.Process(pid).kill()
    assert not left, f"workers still running {GONE_WITHIN_S} s after their runner was killed: {left}"
    # The job ended them: a worker's own watch of its runner would have ended it with PARENT_GONE_EXIT.
    assert PARENT_GONE_EXIT not in codes.values(), f"ended by their own watch, not by the job: {codes}"
    assert (tmp_path / "run" / "samples.sqlite").is_file()  # what was measured stays


WATCHES_ITS_RUNNER = textwrap.dedent("""
    import multiprocessing, sys, time
    from engine.run.worker import _end_with_parent

    def worker():
        _end_with_parent()
        print("watching", flush=True)
        time.sleep(300)

    if __name__ == "__main__":
        child = multiprocessing.Process(target=worker)
        child.start()
        print(child.pid, flush=True)
        time.sleep(300)
""")


def test_without_a_job_a_worker_ends_on_its_own_watch_of_its_runner(tmp_path):
    script = tmp_path / "runner.py"
    script.write_text(WATCHES_ITS_RUNNER, encoding="utf-8")
    runner = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert runner.stdout is not None
    worker = psutil.Process(int(runner.stdout.readline()))
    handles = _held([worker])
    assert runner.stdout.readline() == "watching\n"  # the worker has started, and its watch with it
    runner.kill()
    runner.wait(30)
    runner.stdout.close()
    codes = _exit_codes_after(handles, GONE_WITHIN_S)
    if codes[worker.pid] == STILL_ACTIVE:
        worker.kill()
    assert codes == {worker.pid: PARENT_GONE_EXIT}
