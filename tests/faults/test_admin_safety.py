"""Safe as an administrator on a server others use: no write through a planted link, no run into a system folder or
among other files, nothing anyone may change, no report that says it was written when it was not, none over a run's
own files. Each case is one an attacker or a slip of the keyboard makes; each is refused with the path and the reason,
exit 2, and what was there is left as it was."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from engine.io.locks import LOCK_FILE, FolderLocks
from engine.io.platform import AlignedBuffer, IoFile
from engine.io.safety import UnsafePathError, link_problem, replaced_by, system_folder_problem, write_text
from engine.model.sizing import PAGE_SIZE_BYTES
from engine.protocol import LogEvent
from engine.results.document import output_folder_problem
from engine.run.runner import Runner
from tests.cli.test_cli import JETWISE, _init_small, jetwise
from tests.conftest import small_config
from tests.faults.pass_through import PassThroughBackend, PassThroughFile

POSIX = pytest.mark.skipif(os.name == "nt", reason="POSIX links and modes; Windows refuses reparse points by attribute")
VICTIM = "important settings\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.conf"
    path.write_text(VICTIM)
    return path


def _said(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout + done.stderr


def _a_run(tmp_path: Path) -> Path:
    """A short run's folder, to report and export."""
    out = tmp_path / "out"
    assert jetwise("run", str(_init_small(tmp_path)), "--output", str(out), cwd=tmp_path).returncode in (0, 1)
    return out


def _left_alone(victim: Path) -> bool:
    return victim.read_text() == VICTIM


@POSIX
def test_a_lock_file_planted_as_a_link_is_refused_and_its_target_kept(tmp_path, victim):
    config = _init_small(tmp_path)
    (tmp_path / "DB1").mkdir()
    (tmp_path / "DB1" / LOCK_FILE).symlink_to(victim)
    checked = jetwise("validate", str(config), cwd=tmp_path)
    assert checked.returncode == 2 and f"{tmp_path / 'DB1' / LOCK_FILE} is a link" in _said(checked)
    done = jetwise("run", str(config), "--output", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2 and "is a link" in _said(done) and "Traceback" not in _said(done)
    assert _left_alone(victim) and (tmp_path / "DB1" / LOCK_FILE).is_symlink()
    with pytest.raises(UnsafePathError, match="is a link"):  # the lock itself, were validation skipped
        FolderLocks([tmp_path / "DB1"], "run").take()
    assert _left_alone(victim)


@POSIX
@pytest.mark.parametrize("name", ["config.json", "test.log", "samples.sqlite", "result.json"])
def test_a_dangling_link_in_the_output_folder_is_refused_not_written_through(tmp_path, name):
    config = _init_small(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "elsewhere" / name
    target.parent.mkdir()
    (out / name).symlink_to(target)
    done = jetwise("run", str(config), "--output", str(out), cwd=tmp_path)
    assert done.returncode == 2 and f"{out / name} is a link" in _said(done)
    assert not target.exists()


@pytest.mark.parametrize("where", ["root", "system", "others"])
def test_no_run_goes_into_the_root_a_system_folder_or_among_other_files(tmp_path, where):
    config = _init_small(tmp_path)
    folder = {"root": Path(Path.cwd().anchor), "system": Path("/etc") if os.name != "nt" else Path(os.environ["SYSTEMROOT"]),
              "others": tmp_path / "Documents"}[where]
    if where == "others":
        folder.mkdir()
        (folder / "thesis.docx").write_text("years of work")
    before = sorted(p.name for p in folder.iterdir())
    done = jetwise("run", str(config), "--output", str(folder), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    words = {"root": "is the root of its file system", "system": "is a system folder",
             "others": "already holds other files (thesis.docx)"}[where]
    assert words in _said(done)
    assert sorted(p.name for p in folder.iterdir()) == before


@POSIX
def test_a_folder_that_resolves_elsewhere_is_said_and_a_system_folder_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "DB1").symlink_to(tmp_path / "real")
    (tmp_path / "etclink").symlink_to("/etc")
    assert system_folder_problem(tmp_path / "etclink") == (
        f"{tmp_path / 'etclink'} is a system folder (through a link, /etc) (/etc); give a folder of its own")
    config = _init_small(tmp_path)
    checked = jetwise("validate", str(config), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr  # a warning: the engineer may mean it
    assert f"{tmp_path / 'DB1'} resolves through a link to {tmp_path / 'real'}: the files go there" in _said(checked)
    data = json.loads(config.read_text())
    data["databases"][1]["database_path"] = str(tmp_path / "etclink")
    config.write_text(json.dumps(data))
    refused = jetwise("validate", str(config), cwd=tmp_path)
    assert refused.returncode == 2 and "is a system folder" in _said(refused)
    assert not Path("/etc/Jetwise002.jwdb").exists() and not Path("/etc", LOCK_FILE).exists()


@POSIX
def test_a_dangling_link_where_the_database_goes_is_named_by_validate(tmp_path):
    config = _init_small(tmp_path)
    (tmp_path / "DB1").mkdir()
    (tmp_path / "DB1" / "Jetwise001.jwdb").symlink_to(tmp_path / "nowhere")
    checked = jetwise("validate", str(config), cwd=tmp_path)
    assert checked.returncode == 2 and f"{tmp_path / 'DB1' / 'Jetwise001.jwdb'} is a link" in _said(checked)


@POSIX
def test_nothing_jetwise_writes_is_world_writable_under_umask_000(tmp_path):
    config = _init_small(tmp_path)
    out = tmp_path / "runs" / "out"
    done = subprocess.run(["sh", "-c", 'umask 000 && exec "$@"', "sh", *JETWISE, "run", str(config), "--output", str(out)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    report = subprocess.run(["sh", "-c", 'umask 000 && exec "$@"', "sh", *JETWISE, "report", str(out), "--html",
                             str(tmp_path / "r.html"), "--csv", str(tmp_path / "r.csv")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    written = [out / "result.json", out / "config.json", out / "test.log", tmp_path / "r.html", tmp_path / "r.csv",
               out, tmp_path / "runs", tmp_path / "DB1"]
    loose = {str(p): oct(p.stat().st_mode & 0o777) for p in written if p.stat().st_mode & stat.S_IWOTH}
    assert loose == {}


def test_a_writer_that_wrote_nothing_fails_and_the_previous_file_stays(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(b"%PDF an earlier report %%EOF")
    with pytest.raises(OSError) as raised:
        replaced_by(path, lambda scratch: None, valid=lambda tail: b"%%EOF" in tail)  # a full volume: nothing written
    assert raised.value.errno == errno.ENOSPC and "could not be written whole" in str(raised.value)
    assert path.read_bytes() == b"%PDF an earlier report %%EOF"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.pdf"]  # no scratch left behind
    write_text(tmp_path / "new.html", "<p>whole</p>")
    assert (tmp_path / "new.html").read_text() == "<p>whole</p>"


@POSIX
def test_report_refuses_a_device_the_runs_own_files_and_one_file_twice(tmp_path):
    out = _a_run(tmp_path)
    result = (out / "result.json").read_bytes()
    for args, words in ((["--pdf", "/dev/full"], "/dev/full is not a regular file"),
                        (["--html", str(out / "result.json")], "is the run's own result.json"),
                        (["--html", str(tmp_path / "r"), "--csv", str(tmp_path / "r")], "is the file --html writes too")):
        done = jetwise("report", str(out), *args, cwd=tmp_path)
        assert done.returncode == 2 and words in _said(done), (args, done.stderr)
    assert (out / "result.json").read_bytes() == result and not (tmp_path / "r").exists()


@POSIX
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a private small volume")
def test_a_pdf_on_a_full_volume_is_an_error_and_leaves_no_file(tmp_path):
    out = _a_run(tmp_path)
    small = tmp_path / "small"
    small.mkdir()
    script = 'mount -t tmpfs -o size=24k none "$0" && "$@"; code=$?; ls -A "$0"; exit $code'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(small), *JETWISE, "report", str(out), "--pdf",
                           str(small / "r.pdf")], cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert done.returncode == 2, done.stderr
    assert "r.pdf" in _said(done) and "PDF report:" not in _said(done) and "Traceback" not in _said(done)
    assert done.stdout.strip() == ""  # the small volume holds nothing: no empty PDF, no scratch


def test_link_problem_names_what_is_not_a_regular_file(tmp_path):
    assert link_problem(tmp_path / "absent") is None
    (tmp_path / "file").write_text("x")
    assert link_problem(tmp_path / "file") is None
    assert link_problem(tmp_path) == "is a folder; give a file to write"
    if os.name != "nt":
        os.mkfifo(tmp_path / "fifo")
        assert "not a regular file" in link_problem(tmp_path / "fifo")
    assert output_folder_problem(tmp_path / "new") is None


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX system folders")
def test_system_folders_and_their_subtrees_are_refused_but_not_a_temporary_folder(tmp_path):
    assert "is a system folder" in system_folder_problem(Path("/usr/share"))
    assert "is the root of its file system" in system_folder_problem(Path("/"))
    assert system_folder_problem(tmp_path) is None


@POSIX
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a private small volume")
def test_a_store_on_a_full_volume_is_said_to_be_on_a_full_volume_not_damaged(tmp_path):
    """The store is made, its volume filled, and the store opened again: the words are the volume's, and the store
    file is as it was."""
    small = tmp_path / "small"
    small.mkdir()
    script = ('mount -t tmpfs -o size=1m none "$0" && JETWISE_DATA_DIR="$0" "$@" >/dev/null 2>&1; '
              'head -c 2m /dev/zero > "$0/filler" 2>/dev/null; JETWISE_DATA_DIR="$0" "$@"')
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(small), *JETWISE, "history"],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "is full" in done.stderr and "damaged" not in done.stderr and "Traceback" not in done.stderr


def test_a_configuration_that_sets_a_key_twice_or_is_a_pipe_is_refused_at_once(tmp_path):
    config = _init_small(tmp_path)
    text = config.read_text()
    twice = tmp_path / "twice.json"
    twice.write_text(text.replace('"thread_count":', '"thread_count": 1, "thread_count":', 1))
    done = jetwise("validate", str(twice), cwd=tmp_path)
    assert done.returncode == 2 and "sets 'thread_count' twice in one object" in _said(done)
    if os.name != "nt":
        pipe = tmp_path / "f.json"
        os.mkfifo(pipe)
        for command in (["validate", str(pipe)], ["run", str(pipe)]):
            done = jetwise(*command, cwd=tmp_path, timeout=30)  # it answered: a pipe would have waited for ever
            assert done.returncode == 2 and "is not a regular file" in _said(done)


class FullVolume(PassThroughBackend):
    """A volume that fills once a database holds 64 pages: its creation stops there with ENOSPC."""

    def wrap(self, handle: IoFile) -> IoFile:
        return _FillsUp(handle)


class _FillsUp(PassThroughFile):
    def write_from(self, buffer: AlignedBuffer, offset: int, length: int | None = None) -> int:
        if offset >= 64 * PAGE_SIZE_BYTES:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write_from(buffer, offset, length)


@POSIX
def test_a_volume_that_fills_while_a_database_is_made_is_one_line_naming_the_file_not_a_traceback(disk_dir):
    config = small_config(disk_dir / "data", databases=1)
    events: list = []
    result = Runner(config, disk_dir / "out", events.append, backend=FullVolume()).run()
    database = config.databases[0].database_path / "Jetwise001.jwdb"
    assert result.summary.verdict == "aborted"
    reason = result.summary.reasons[0]
    assert reason.startswith(f"Run aborted: Instance 1: {database} could not be prepared: No space left on device (the "
                             f"volume of {database.parent} has ") and "engine error" not in reason
    logged = "\n".join(e.message for e in events if isinstance(e, LogEvent))
    assert "Traceback" not in logged and "could not be prepared" in logged


@POSIX
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a read-only mount")
def test_a_run_folder_on_read_only_media_reports_and_exports_and_reading_leaves_nothing_beside_it(tmp_path):
    out = _a_run(tmp_path)
    assert jetwise("report", str(out), "--html", str(tmp_path / "first.html"), cwd=tmp_path).returncode == 0
    assert not list(out.glob("*-wal")) and not list(out.glob("*-shm"))  # one file, closed: nothing beside it
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && "$@"'
    for command in (["report", str(out), "--html", str(tmp_path / "r.html"), "--csv", str(tmp_path / "r.csv")],
                    ["export", str(out), "--format", "csv", "--output", str(tmp_path / "e.csv")]):
        done = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(out), *JETWISE, *command],
                              cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.html").stat().st_size > 0 and (tmp_path / "e.csv").read_text().count("\n") > 3


def test_the_quick_check_where_its_runs_folder_is_a_file_says_so(tmp_path):
    (tmp_path / "jetwise-runs").write_text("someone's notes")
    done = jetwise("run", "--quick", cwd=tmp_path)
    assert done.returncode == 2 and "jetwise-runs is a file where Jetwise keeps its runs" in done.stderr
    assert (tmp_path / "jetwise-runs").read_text() == "someone's notes"


@POSIX
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare for a read-only mount")
def test_the_quick_check_from_a_read_only_folder_says_where_to_run_it(tmp_path):
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && cd "$0" && "$@"'
    done = subprocess.run(["unshare", "-rm", "sh", "-c", script, str(tmp_path), *JETWISE, "run", "--quick"],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    assert done.returncode == 2, done.stderr
    assert "run it from a folder you can write, or give --output" in done.stderr and "Traceback" not in done.stderr


def test_a_windows_reparse_point_is_refused_by_its_attributes(tmp_path, monkeypatch):
    """Windows has no O_NOFOLLOW: a junction or a link is known by FILE_ATTRIBUTE_REPARSE_POINT in what lstat gives
    (st_file_attributes), as the Win32 contract has it; here a stand-in gives that attribute."""
    from engine.io import safety

    (tmp_path / "junction").write_text("")
    real = os.lstat

    class Stat:
        def __init__(self, info: os.stat_result) -> None:
            self.st_mode, self.st_file_attributes = info.st_mode, stat.FILE_ATTRIBUTE_REPARSE_POINT | stat.FILE_ATTRIBUTE_DIRECTORY

    monkeypatch.setattr(safety.os, "lstat", lambda path: Stat(real(path)) if Path(path).name == "junction" else real(path))
    assert link_problem(tmp_path / "junction") == "is a link; Jetwise does not write through links: remove it or choose another name"
    with pytest.raises(UnsafePathError):
        write_text(tmp_path / "junction", "no")
    assert (tmp_path / "junction").read_text() == ""


@POSIX
def test_a_refused_cmd_leaves_no_output_folder_behind(tmp_path):
    config = _init_small(tmp_path)
    output = tmp_path / "results"
    done = jetwise("cmd", "/c", str(config), "/threads", "2", "/dbpath", "/etc/jetwise{n}", "/logpath",
                   str(tmp_path / "Log{n}"), "/output", str(output), cwd=tmp_path)
    assert done.returncode == 2 and "is a system folder" in _said(done)
    assert not output.exists()
