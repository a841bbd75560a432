"""A field engineer's day on the command line, as sequences: every run ends in a result and a report.

Each story runs real `jetwise` processes on tiny databases (or the simulated device) the way
an engineer does in a tuning session: the same command twice, a configuration edited and
rerun, a setting repeated, a run stopped at once, a run killed, a database that fits in the
cache, storage that cannot reach its target. After each story, `jetwise report` renders every
run of every session, and `history` lists them; nothing may print a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

JETWISE = [sys.executable, "-m", "app"]


def jetwise(*args: str, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*JETWISE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    return done


def init(tmp_path: Path, name: str = "design.json", *extra: str) -> Path:
    out = tmp_path / name
    done = jetwise(
        "init", str(out), "--databases", "2", "--db-path", str(tmp_path / "DB{n}"), "--log-path", str(tmp_path / "Log{n}"),
        "--mailboxes", "8", "--mailbox-size-mb", "1", "--duration", "2s", "--warmup", "1s",
        "--cache-min-mb", "1", "--cache-max-mb", "2", "--force", *extra, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    edit(out, sample_interval_s=0.5)
    return out


def edit(path: Path, **changes: object) -> None:
    """Edit a configuration file the way an engineer does: a value or two by hand."""
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if "__" in key:
            outer, inner = key.split("__")
            data[outer][inner] = value
        else:
            data[key] = value
    path.write_text(json.dumps(data, indent=2))


def history(tmp_path: Path) -> dict:
    done = jetwise("history", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def runs_of(tmp_path: Path, session: str) -> list[dict]:
    return next(s["runs"] for s in history(tmp_path)["sessions"] if s["name"] == session)


def every_report_renders(tmp_path: Path, *, pdf_for: str | None = None) -> int:
    """`jetwise report` of every run of every session, by run id; returns how many."""
    count = 0
    for session in history(tmp_path)["sessions"]:
        for run in session["runs"]:
            html = tmp_path / f"report-{run['run_id']}.html"
            done = jetwise("report", run["run_id"], "--html", str(html), "--csv", str(html.with_suffix(".csv")),
                           cwd=tmp_path)
            assert done.returncode == 0, done.stderr
            text = html.read_text()
            assert f"{run['verdict'].upper()}</span>" in text and "Tuning Session" in text
            count += 1
    if pdf_for is not None:
        pdf = tmp_path / "report.pdf"
        done = jetwise("report", pdf_for, "--pdf", str(pdf), cwd=tmp_path)
        assert done.returncode == 0 and pdf.read_bytes().startswith(b"%PDF"), done.stderr
    return count


def test_two_quick_checks_in_a_row_both_run_in_one_session(tmp_path):
    codes = []
    for _ in range(2):
        done = jetwise("run", "--quick", "--duration", "2s", "--warmup", "0s", cwd=tmp_path)
        codes.append(done.returncode)
        assert done.returncode in (0, 1), done.stderr  # a verdict either way; this disk decides which
        assert "Overall test result:" in done.stderr
    runs = runs_of(tmp_path, "quick check")
    assert len(runs) == 2 and [r["verdict"] for r in runs] == [("pass", "fail")[c] for c in codes]
    assert not (tmp_path / "jetwise-runs" / "quick-check-data").exists()  # scratch databases removed each time
    assert every_report_renders(tmp_path) == 2


def test_a_configuration_edited_and_rerun_three_times_stays_in_its_session(tmp_path):
    config = init(tmp_path)
    outputs = []
    for number, change in enumerate([
        {},
        {"profile__mailboxes": 24},  # more mailboxes: the databases grow and are recreated
        {"profile__iops_per_mailbox": 0.11},  # the walkthrough's edit: a lower IOPS per mailbox
        {"thread_count": 4},
    ]):
        edit(config, **change)
        validated = jetwise("validate", str(config), cwd=tmp_path)
        assert validated.returncode == 0, validated.stdout + validated.stderr
        out = tmp_path / f"run{number}"
        done = jetwise("run", str(config), "--output", str(out), cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        assert "engine error" not in done.stderr.lower()
        outputs.append(out)
        if number == 1:
            assert "will be recreated" in validated.stdout and "recreating it" in (out / "test.log").read_text()
    runs = runs_of(tmp_path, "design")
    assert len(runs) == 4 and all(r["verdict"] in ("pass", "fail") for r in runs)
    assert [r["target_transactional_iops"] for r in runs][1:3] == [pytest.approx(24 * 0.1 * 1.2),
                                                                   pytest.approx(24 * 0.11 * 1.2)]
    assert all((out / "result.json").exists() for out in outputs)
    assert every_report_renders(tmp_path, pdf_for=runs[-1]["run_id"]) == 4


def test_a_setting_repeated_and_other_folders_in_a_session_of_their_own(tmp_path):
    config = init(tmp_path)
    for number in range(2):
        assert jetwise("run", str(config), "--output", str(tmp_path / f"same{number}"), cwd=tmp_path).returncode in (0, 1)
    runs = runs_of(tmp_path, "design")
    assert [(r["threads"], r["sluggish_sessions"]) for r in runs] == [(2, 1), (2, 1)]
    # the same session name over other folders: a session of its own, said on the console, never refused
    moved = tmp_path / "moved"
    moved.mkdir()
    other = init(moved)
    done = jetwise("run", str(other), "--session", "design", "--output", str(tmp_path / "moved-run"), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert "this run goes into tuning session 'design (2)'" in done.stderr
    assert len(runs_of(tmp_path, "design (2)")) == 1 and len(runs_of(tmp_path, "design")) == 2
    assert every_report_renders(tmp_path) == 3


def test_a_refused_configuration_leaves_no_run_and_a_message_at_its_field(tmp_path):
    config = init(tmp_path)
    edit(config, thread_count=1)  # one thread cannot serve two databases
    done = jetwise("run", str(config), "--output", str(tmp_path / "refused"), cwd=tmp_path)
    assert done.returncode == 2 and "thread_count" in done.stderr and "each database needs at least one thread" in done.stderr
    assert history(tmp_path)["sessions"] == [] or runs_of(tmp_path, "design") == []
    edit(config, thread_count=2)
    assert jetwise("run", str(config), "--output", str(tmp_path / "fixed"), cwd=tmp_path).returncode in (0, 1)
    assert len(runs_of(tmp_path, "design")) == 1


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_run_stopped_at_once_and_a_run_killed_both_leave_a_result_and_a_report(tmp_path):
    config = init(tmp_path)
    edit(config, duration_s=120.0)
    # stopped at once: Ctrl-C as soon as the run has started
    stopped = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(tmp_path / "stopped")], cwd=tmp_path,
                               stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert stopped.stderr is not None
    for line in stopped.stderr:
        if "in tuning session" in line:
            break
    stopped.send_signal(signal.SIGINT)
    _out, rest = stopped.communicate(timeout=60)
    assert stopped.returncode == 3 and "Traceback" not in rest
    result = json.loads((tmp_path / "stopped" / "result.json").read_text())
    assert result["summary"]["verdict"] == "aborted" and "stopped by the user" in result["summary"]["reasons"][0]
    # killed: SIGKILL on the whole process group once it measures
    killed = subprocess.Popen([*JETWISE, "run", str(config), "--output", str(tmp_path / "killed")], cwd=tmp_path,
                              stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, start_new_session=True)
    assert killed.stderr is not None
    seen = 0
    for line in killed.stderr:
        seen += "[measure" in line
        if seen >= 3:
            break
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    killed.stderr.close()
    runs = runs_of(tmp_path, "design")
    assert [r["verdict"] for r in runs] == ["aborted", "aborted"]
    assert "a crash, a kill or a power loss" in runs[1]["reasons"][0]
    # the killed run's report is rebuilt from the samples in the store, and from its folder
    assert every_report_renders(tmp_path, pdf_for=runs[1]["run_id"]) == 2
    folder_report = tmp_path / "killed.html"
    done = jetwise("report", str(tmp_path / "killed"), "--html", str(folder_report), cwd=tmp_path)
    assert done.returncode == 0 and "ABORTED" in folder_report.read_text(), done.stderr
    # and the next run of the session still works
    edit(config, duration_s=2.0)
    assert jetwise("run", str(config), "--output", str(tmp_path / "after"), cwd=tmp_path).returncode in (0, 1)


def test_a_database_that_fits_in_the_cache_is_explained_and_tuning_does_not_crash(tmp_path):
    config = init(tmp_path)
    # 64 MB of cache for 8 MB databases, and no inserts: an insert that splits grows the database by 8 MB steps,
    # past the cache within seconds when this disk answers in 0.1 ms
    edit(config, database_cache_min_mb=64.0, database_cache_max_mb=64.0, operation_mix__insert_percent=0.0,
         operation_mix__replace_percent=45.0)
    validated = jetwise("validate", str(config), cwd=tmp_path)
    assert "holds the whole database" in validated.stdout and "judged FAIL at any length" in validated.stdout
    assert "warning(s) above to read before running" in validated.stderr  # not plainly "valid"
    done = jetwise("run", str(config), "--output", str(tmp_path / "cached"), cwd=tmp_path)
    assert done.returncode == 1 and "the database cache holds the whole database" in done.stderr
    # tuning it runs nothing, real or simulated: no setting makes the design a test of the storage, and it says why
    tuned = jetwise("tune", str(config), "--calibration", "40s", "--max-runs", "2", "--json", "--simulate", "flash",
                    "--output", str(tmp_path / "tune"), cwd=tmp_path)
    assert tuned.returncode == 2, tuned.stderr
    outcome = json.loads(tuned.stdout)
    assert outcome["status"] == "cache_held" and outcome["runs"] == []
    assert outcome["advice"]["why"]["what"] == "larger_than_cache" and "No tuning run: the database cache" in tuned.stderr
    assert "not a test of the storage" in tuned.stderr
    assert len(outcome["advice"]["notes"]) == 1  # the run above, set aside, as facts
    said = outcome["advice"]["said"]["why"]  # what to change, in the verdict's and Review's words
    assert "not a test of the storage" in said and "raise the mailboxes or the mailbox size" in said
    assert every_report_renders(tmp_path) == 1 + len(outcome["runs"])


def test_storage_that_cannot_reach_its_target_names_what_it_carries(tmp_path):
    config = init(tmp_path)
    edit(config, profile__mailboxes=2000, profile__iops_per_mailbox=0.2, profile__mailbox_size_mb=500)
    tuned = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "tune"),
                    cwd=tmp_path)
    assert tuned.returncode == 1, tuned.stderr
    outcome = json.loads(tuned.stdout)
    assert outcome["status"] == "unreachable" and outcome["max_passing_iops"] > 0
    assert "This storage carries about" in tuned.stderr and "mailboxes at 0.2 IOPS" in tuned.stderr
    # tuned again: the session's runs answer at once, with the same number
    again = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "tune2"),
                    cwd=tmp_path)
    assert again.returncode == 1 and json.loads(again.stdout)["max_passing_iops"] == outcome["max_passing_iops"]
    assert json.loads(again.stdout)["runs"] == []
    runs = runs_of(tmp_path, "design")
    assert every_report_renders(tmp_path, pdf_for=runs[-1]["run_id"]) == len(runs)
