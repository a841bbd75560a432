"""A run owns its folders: a second run on the same files is refused with who holds them.

The holder is a real second process; killing it frees the folders, because the operating
system drops the lock with the process.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.io.locks import LOCK_FILE, FolderInUseError, FolderLocks, folder_problem
from engine.io.watch import FileWatch
from engine.results.document import read_samples
from tests.cli.test_cli import JETWISE, jetwise
from tests.faults.test_parent_death import _config
from tests.frozen.programs import said_until

HOLD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from engine.io.locks import FolderLocks
    with FolderLocks([Path(p) for p in sys.argv[1:]], "20261121-holder"):
        print("held", flush=True)
        sys.stdin.readline()
""")


@pytest.fixture
def holder(tmp_path):
    """Start a process holding the given folders; it is killed at the end of the test."""
    started: list[subprocess.Popen[str]] = []

    def hold(*folders: Path) -> subprocess.Popen[str]:
        process = subprocess.Popen([sys.executable, "-c", HOLD, *map(str, folders)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
        started.append(process)
        assert process.stdout is not None and process.stdout.readline() == "held\n"
        return process

    yield hold
    for process in started:
        process.kill()
        process.wait()


def test_a_held_folder_is_refused_with_the_holders_process_host_and_start(tmp_path, holder):
    process = holder(tmp_path)
    problem = folder_problem(tmp_path)
    assert problem is not None
    assert f"in use by run 20261121-holder (process {process.pid} on {socket.gethostname()}, started " in problem
    with pytest.raises(FolderInUseError, match=f"process {process.pid}"):
        FolderLocks([tmp_path / "other", tmp_path], "second").take()
    assert not (tmp_path / "other").exists()  # a refused run leaves no folder it made behind


def test_the_folder_is_free_once_its_holder_is_killed_and_the_stale_lock_file_is_taken_over(tmp_path, holder):
    process = holder(tmp_path)
    process.send_signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)
    process.wait(timeout=10)
    assert (tmp_path / LOCK_FILE).exists()  # left behind by the kill, but holding nothing
    assert folder_problem(tmp_path) is None
    with FolderLocks([tmp_path], "next") as locks:
        assert '"run_id": "next"' in (tmp_path / LOCK_FILE).read_text()
        assert locks.folders == [tmp_path]
    assert not (tmp_path / LOCK_FILE).exists()  # a run that ends removes its lock files


def test_a_lock_file_jetwise_did_not_write_is_refused_and_left_byte_identical(tmp_path):
    foreign = tmp_path / LOCK_FILE
    foreign.write_bytes(b"someone else's lock\x00\x01")
    problem = folder_problem(tmp_path)
    assert problem is not None and "that Jetwise did not create" in problem
    with pytest.raises(FolderInUseError, match="did not create"):
        FolderLocks([tmp_path], "run").take()
    assert foreign.read_bytes() == b"someone else's lock\x00\x01"


def test_locks_in_one_process_are_exclusive_too(tmp_path):
    with FolderLocks([tmp_path], "first"), pytest.raises(FolderInUseError, match="run first"):
        FolderLocks([tmp_path], "second").take()
    with FolderLocks([tmp_path], "second"):  # and free again after the first ends
        pass


@pytest.mark.skipif(sys.platform == "win32", reason="the concurrent runs are driven with POSIX signals")
def test_a_second_run_on_the_same_folders_is_refused_while_the_first_measures_and_the_first_goes_on(tmp_path):
    config = _config(tmp_path, "--mailbox-size-mb", "1")
    first = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(tmp_path / "first"), "--duration", "30s"],
                             cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        said_until(first)
        checked = jetwise("validate", str(config), cwd=tmp_path)
        assert checked.returncode == 2, checked.stdout + checked.stderr
        assert "in use by run" in checked.stdout + checked.stderr
        assert f"(process {first.pid} on {socket.gethostname()}" in checked.stdout + checked.stderr
        second = jetwise("run", str(config), "--output", str(tmp_path / "second"), cwd=tmp_path)
        assert second.returncode == 2, second.stderr
        assert "databases[0].database_path" in second.stderr and "Traceback" not in second.stderr
        assert not (tmp_path / "second").exists()
        first.send_signal(signal.SIGINT)  # the first run was never disturbed: it stops and judges as usual
        first.wait(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 3
    assert (tmp_path / "first" / "result.json").exists()
    assert not [p for p in tmp_path.rglob(LOCK_FILE)], "a finished run leaves no lock behind"
    assert os.listdir(tmp_path / "DB1")  # its databases stay for the next run


def test_the_windows_lock_takes_one_byte_past_the_holders_details_without_waiting(tmp_path, monkeypatch):
    """Windows's LockFile cannot run here; what can is checked with a stand-in for msvcrt (flagged)."""
    from engine.io.platform import windows

    calls: list[tuple[int, int, int]] = []

    class FakeMsvcrt:
        LK_NBLCK, LK_UNLCK = 2, 0

        @staticmethod
        def locking(fd: int, mode: int, nbytes: int) -> None:
            calls.append((os.lseek(fd, 0, os.SEEK_CUR), mode, nbytes))
            if mode == FakeMsvcrt.LK_NBLCK and len(calls) > 2:
                raise PermissionError(13, "locked")

    monkeypatch.setitem(sys.modules, "msvcrt", FakeMsvcrt)
    fd = os.open(tmp_path / LOCK_FILE, os.O_RDWR | os.O_CREAT)
    try:
        assert windows.try_lock(fd) is True
        windows.unlock(fd)
        assert windows.try_lock(fd) is False  # held elsewhere: refused at once, not after LK_LOCK's ten retries
    finally:
        os.close(fd)
    assert calls == [(windows.LOCK_OFFSET, 2, 1), (windows.LOCK_OFFSET, 0, 1), (windows.LOCK_OFFSET, 2, 1)]
    assert windows.LOCK_OFFSET > 4096  # the details at the start stay readable


def _running(tmp_path: Path) -> tuple[Path, subprocess.Popen[str]]:
    """A run measuring on its own folders (one-second samples), once its first sample is shown."""
    config = _config(tmp_path, "--mailbox-size-mb", "1")
    data = json.loads(config.read_text())
    data["sample_interval_s"] = 1
    config.write_text(json.dumps(data))
    run = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(tmp_path / "run"), "--duration", "60s"],
                           cwd=tmp_path, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    said_until(run)
    return config, run


@pytest.mark.skipif(sys.platform == "win32", reason="the run is stopped with a POSIX signal")
def test_clean_refuses_the_folders_a_running_test_holds_naming_it_and_the_test_goes_on(tmp_path):
    config, run = _running(tmp_path)
    try:
        before = sorted(p.name for p in (tmp_path / "Log1").iterdir())
        for flags in ((), ("--yes",)):
            cleaned = jetwise("clean", str(config), *flags, cwd=tmp_path)
            assert cleaned.returncode == 2, cleaned.stdout + cleaned.stderr
            assert f"{tmp_path / 'DB1'} is in use by run " in cleaned.stderr
            assert f"(process {run.pid} on {socket.gethostname()}" in cleaned.stderr
            assert f"{tmp_path / 'Log2'} is in use by run " in cleaned.stderr and "Traceback" not in cleaned.stderr
        assert sorted(p.name for p in (tmp_path / "Log1").iterdir()) == before and (tmp_path / "DB1" / "Jetwise001.jwdb").is_file()
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 3 and "deleted while the test ran" not in (tmp_path / "run" / "test.log").read_text()
    removed = jetwise("clean", str(config), "--yes", cwd=tmp_path)  # the run over, its folders are free
    assert removed.returncode == 0 and "Removed 36 Jetwise test file(s)" in removed.stdout, removed.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="Windows refuses to delete a file a test holds open")
@pytest.mark.parametrize("what", ["log", "database"])
def test_a_file_deleted_under_a_running_test_aborts_it_saying_which_with_its_samples_and_report(tmp_path, what):
    _config_file, run = _running(tmp_path)
    victim = tmp_path / "Log2" / "Jetwise002.07.jwlog" if what == "log" else tmp_path / "DB1" / "Jetwise001.jwdb"
    try:
        victim.unlink()  # as `rm` or another tool would; POSIX keeps the open file, so the test could measure on
        run.wait(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    folder = tmp_path / "run"
    assert run.returncode == 3, run.stderr.read() if run.stderr else ""
    result = json.loads((folder / "result.json").read_text())
    assert result["summary"]["verdict"] == "aborted"
    reasons = " ".join(result["summary"]["reasons"])
    assert f"{victim} was deleted while the test ran" in reasons
    assert f"{victim} was deleted while the test ran" in (folder / "test.log").read_text()
    assert read_samples(folder)  # what it measured before stays
    assert "Traceback" not in (folder / "test.log").read_text()


def test_the_watch_names_a_file_deleted_or_replaced_and_nothing_while_each_is_the_one_opened(tmp_path):
    kept, gone, swapped = (tmp_path / name for name in ("a.jwlog", "b.jwlog", "c.jwdb"))
    for path in (kept, gone, swapped):
        path.write_bytes(b"x")
    watch = FileWatch([("Instance 1", kept), ("Instance 1", gone), ("Instance 2", swapped)])
    assert watch.changed() is None
    kept.write_bytes(b"written in place, as the test writes")
    assert watch.changed() is None
    other = tmp_path / "other"
    other.write_bytes(b"x")
    os.replace(other, swapped)
    assert watch.changed() == f"Instance 2: {swapped} was replaced by another file while the test ran; the test cannot go on with it"
    gone.unlink()
    assert watch.changed() == f"Instance 1: {gone} was deleted while the test ran; the test cannot go on without it"
