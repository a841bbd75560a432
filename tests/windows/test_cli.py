"""The CLI on Windows as an engineer runs it: the quick check, its PDF, a tuning session, a file Jetwise did not make,
and a JetstressConfig.xml from a server with E: and L: drives. (The quick check twice in a row on Windows is the frozen
jetwise.exe's, the program engineers run: tests/frozen, in this lane too.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.protocol import ExitCode
from tests.engine.test_jetstress_xml import COMPLETE
from tests.frozen.programs import jetwise, small_config, source_program
from tests.windows import windows_only

pytestmark = windows_only()
PROGRAM = source_program()


def test_the_quick_check_in_its_job_to_its_verdict_then_its_pdf(tmp_path):
    done = jetwise(PROGRAM, "run", "--quick", cwd=tmp_path, timeout=600)
    said = done.stdout + done.stderr
    assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), said
    assert "Overall test result:" in said and "Traceback" not in said
    assert "job object" not in said  # the workers are in the run's kill-on-close job
    runs = sorted(path for path in (tmp_path / "jetwise-runs").iterdir() if (path / "result.json").is_file())
    assert len(runs) == 1
    result = json.loads((runs[0] / "result.json").read_text(encoding="utf-8"))
    assert result["host"]["operating_system"].startswith("Windows") and result["summary"]["verdict"] in ("pass", "fail")
    report = jetwise(PROGRAM, "report", str(runs[0]), "--pdf", "report.pdf", "--html", "report.html", cwd=tmp_path)
    assert report.returncode == ExitCode.PASS, report.stderr
    pdf = (tmp_path / "report.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.count(b"/Type /Page") >= 3
    assert "Transactional I/O" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_a_tuning_session_on_the_simulated_device(tmp_path):
    config = small_config(PROGRAM, tmp_path)
    done = jetwise(PROGRAM, "tune", str(config), "--simulate", "sas-8x10k", "--json", cwd=tmp_path)
    assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["runs"] and outcome["recommendation"]["threads"] >= 1


def test_a_file_jetwise_did_not_make_where_a_database_would_go_is_refused_and_kept(tmp_path):
    config = small_config(PROGRAM, tmp_path)
    foreign = tmp_path / "DB1" / "Jetwise001.jwdb"
    foreign.parent.mkdir()
    foreign.write_bytes(b"a customer's file" * 1000)
    done = jetwise(PROGRAM, "validate", str(config), cwd=tmp_path)
    said = done.stdout + done.stderr
    assert done.returncode == ExitCode.INVALID and "Traceback" not in said
    assert str(foreign) in said and "Jetwise does not write into files it did not create" in said
    run = jetwise(PROGRAM, "run", str(config), cwd=tmp_path)
    assert run.returncode == ExitCode.INVALID
    assert foreign.read_bytes() == b"a customer's file" * 1000


def test_a_jetstress_file_with_drive_letters_imports_as_is_and_names_the_missing_drives(tmp_path):
    xml = tmp_path / "JetstressConfig.xml"
    xml.write_text(COMPLETE.replace("\n", "\r\n"), encoding="utf-8")
    done = jetwise(PROGRAM, "import-xml", str(xml), "-o", "test.json", cwd=tmp_path)
    assert done.returncode == ExitCode.PASS, done.stderr
    databases = json.loads((tmp_path / "test.json").read_text(encoding="utf-8"))["databases"]
    assert [(d["database_path"], d["log_path"]) for d in databases] == [("E:\\db1\\db", "L:\\log1"), ("E:\\db2\\db", "L:\\log2")]
    checked = jetwise(PROGRAM, "validate", "test.json", cwd=tmp_path)
    said = checked.stdout + checked.stderr
    assert checked.returncode == ExitCode.INVALID and "Traceback" not in said
    present = {drive for drive in "EL" if Path(f"{drive}:\\").exists()}
    for drive in {"E", "L"} - present:  # no such drive on this machine (under Wine: C: and Z: only)
        assert f"there is no drive {drive}: on this server" in said, said
    moved = jetwise(PROGRAM, "import-xml", str(xml), "-o", "here.json", "--db-path", str(tmp_path / "DB1"),
                    str(tmp_path / "DB2"), "--log-path", str(tmp_path / "Log{n}"), cwd=tmp_path)
    assert moved.returncode == ExitCode.PASS, moved.stderr
    here = json.loads((tmp_path / "here.json").read_text(encoding="utf-8"))["databases"]
    assert [d["database_path"] for d in here] == [str(tmp_path / "DB1"), str(tmp_path / "DB2")]


def test_a_share_that_cannot_be_reached_is_named_as_such(tmp_path):
    xml = tmp_path / "JetstressConfig.xml"
    xml.write_text(COMPLETE, encoding="utf-8")
    share = "\\\\no-such-filer\\jetwise"
    made = jetwise(PROGRAM, "import-xml", str(xml), "-o", "unc.json", "--db-path", share + "\\DB1", str(tmp_path / "DB2"),
                   "--log-path", str(tmp_path / "Log{n}"), cwd=tmp_path)
    assert made.returncode == ExitCode.PASS, made.stderr
    checked = jetwise(PROGRAM, "validate", "unc.json", cwd=tmp_path)
    said = checked.stdout + checked.stderr
    assert checked.returncode == ExitCode.INVALID and "Traceback" not in said
    assert f"the share {share} cannot be reached from this server" in said, said


def test_a_link_or_a_junction_where_jetwise_writes_is_refused_and_its_target_kept(tmp_path):
    """Windows has no O_NOFOLLOW: a symbolic link (or a junction: a reparse point) is refused by its attributes."""
    import os
    import subprocess

    from engine.io.safety import link_problem

    victim = tmp_path / "victim.txt"
    victim.write_text("kept")
    planted = tmp_path / "out" / "config.json"
    planted.parent.mkdir()
    try:
        os.symlink(victim, planted)
    except OSError:  # no right to make links: a junction, which any user may make, is a reparse point too
        planted = tmp_path / "out" / "junction"
        subprocess.run(["cmd", "/c", "mklink", "/J", str(planted), str(tmp_path)], capture_output=True)
    if not os.path.lexists(planted):
        pytest.skip("this Windows (Wine) makes no links or junctions; the attribute check is tested with a stand-in "
                    "(tests/faults/test_admin_safety.py)")
    assert link_problem(planted) is not None and "link" in link_problem(planted)
    config = small_config(PROGRAM, tmp_path)
    done = jetwise(PROGRAM, "run", str(config), "--output", str(planted.parent), cwd=tmp_path)
    assert done.returncode == ExitCode.INVALID and str(planted) in done.stderr
    assert victim.read_text() == "kept"


def test_an_instance_of_two_database_files_runs_and_is_checked_through_the_windows_backend(tmp_path):
    config = small_config(PROGRAM, tmp_path)
    data = json.loads(config.read_text(encoding="utf-8"))
    data["databases"][0]["more_database_paths"] = [str(tmp_path / "DB1b")]
    config.write_text(json.dumps(data), encoding="utf-8")
    done = jetwise(PROGRAM, "run", str(config), "--output", str(tmp_path / "run"), cwd=tmp_path, timeout=600)
    assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stdout + done.stderr
    second = tmp_path / "DB1b" / "Jetwise001-2.jwdb"
    result = json.loads((tmp_path / "run" / "result.json").read_text(encoding="utf-8"))
    assert second.is_file() and result["instances"][0]["more_database_files"] == [str(second)]
    data["test_type"] = "database_checksum"
    (tmp_path / "check.json").write_text(json.dumps(data), encoding="utf-8")
    checked = jetwise(PROGRAM, "run", "check.json", "--output", str(tmp_path / "check"), cwd=tmp_path, timeout=600)
    assert checked.returncode == ExitCode.PASS, checked.stdout + checked.stderr
    scan = json.loads((tmp_path / "check" / "result.json").read_text(encoding="utf-8"))["scan"]["databases"][0]
    assert scan["more_database_files"] == [str(second)] and scan["seen_pages"] == scan["pages"] > 0
    # each file's flush map, written at the run's clean end through the Windows backend, read back by the checksum
    for database in (tmp_path / "DB1" / "Jetwise001.jwdb", second):
        assert database.with_suffix(".jwfm").is_file()
    assert scan["flush_map"] == "" and scan["lost_flush_pages"] == 0, scan
