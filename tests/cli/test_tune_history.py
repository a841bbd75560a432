"""`jetwise tune` on the simulated device, `jetwise history`, and a run killed half-way."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
from datetime import datetime
from pathlib import Path

from engine.results.document import read_samples
from engine.results.sample_file import SAMPLES_DB
from engine.results.sums import LatencySum
from engine.run.samples import parts_from_sample
from engine.store.sqlite import Store
from engine.workload.histogram import percentiles_ms
from reporting.bundle import load_run
from tests.cli.test_cli import JETWISE, _init_small, jetwise
from tests.pdf_text import pdf_text


def _sata_config(tmp_path: Path, mailboxes: int = 1100, iops: float = 0.12) -> Path:
    out = tmp_path / "sata.json"
    done = jetwise(
        "init", str(out), "--databases", "1", "--db-path", str(tmp_path / "DB"), "--log-path", str(tmp_path / "Log"),
        "--mailboxes", str(mailboxes), "--iops-per-mailbox", str(iops), "--mailbox-size-mb", "500", cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    data["profile"]["headroom_percent"] = 0
    out.write_text(json.dumps(data))
    return out


def test_tune_converges_on_the_simulated_device_and_prints_json(tmp_path):
    config = _sata_config(tmp_path)
    done = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["converged"] is True and len(outcome["runs"]) == 2, "a load sweep and the run that confirms it"
    assert set(outcome["runs"][0]) >= {"threads", "sluggish_sessions", "achieved_transactional_iops",
                                       "db_read_avg_latency_ms", "log_write_avg_latency_ms", "verdict", "sweep"}
    assert outcome["runs"][0]["sweep"] and not outcome["runs"][1]["sweep"]
    assert outcome["steps"] and set(outcome["steps"][0]) >= {"threads", "sluggish_sessions", "transactional_iops",
                                                             "db_read_avg_latency_ms", "latency_ok", "host_bound"}
    assert "step 1:" in done.stderr and "a load sweep from" in done.stderr
    last = outcome["runs"][-1]
    assert last["verdict"] == "pass"
    assert outcome["recommendation"] == {"threads": last["threads"], "sluggish_sessions": last["sluggish_sessions"]}
    assert "Converged in" in done.stderr and "SIMULATED" not in done.stdout
    # what the storage carries: the most a step kept the thresholds at, not the confirming run at a lighter setting
    most = max(step["transactional_iops"] for step in outcome["steps"] if step["latency_ok"])
    assert outcome["max_passing_iops"] == most != last["achieved_transactional_iops"]
    assert f"This storage carries about {most:,.0f} transactional IOPS" in done.stderr
    # every calibration run is in the session, and its result says it was simulated
    history = json.loads(jetwise("history", "--session", "sata", "--json", cwd=tmp_path).stdout)
    runs = history["sessions"][0]["runs"]
    assert [r["verdict"] for r in runs] == [r["verdict"] for r in outcome["runs"]]
    result = json.loads((Path(runs[0]["output_dir"]) / "result.json").read_text())
    assert result["simulated"] is True and result["io_backend"].startswith("simulated (sata-2x7k")


def test_tune_twice_on_the_same_storage_reads_the_session_instead_of_sweeping_again(tmp_path):
    config = _sata_config(tmp_path)
    first = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "a"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    store = Store()
    try:  # each run keeps the advice it ended with: the last, the answer the tuning session came to
        kept = [store.advice(run.run_id) for run in store.runs()]
    finally:
        store.close()
    assert all(kept) and kept[-1]["status"] == json.loads(first.stdout)["status"] == "converged"
    data = json.loads(config.read_text())
    data["profile"]["mailboxes"] = 800  # the same storage, a lower target: the same session
    config.write_text(json.dumps(data))
    again = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "b"), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    outcome = json.loads(again.stdout)
    # the earlier confirmation run already passes the lower target: the answer needs no new run, and never a sweep
    assert outcome["converged"] and len(outcome["runs"]) <= 1 and outcome["steps"] == []
    assert outcome["recommendation"] and "a load sweep from" not in again.stderr
    data["profile"]["mailboxes"] = 2000  # then a target beyond the storage: the curve says so after one confirmation
    config.write_text(json.dumps(data))
    beyond = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "c"), cwd=tmp_path)
    outcome = json.loads(beyond.stdout)
    assert beyond.returncode == 1 and outcome["status"] == "unreachable", beyond.stderr
    assert len(outcome["runs"]) <= 1 and outcome["steps"] == [] and outcome["max_passing_iops"] > 100


def test_tune_says_when_the_target_is_out_of_reach_and_exits_1(tmp_path):
    config = _sata_config(tmp_path, mailboxes=2000, iops=0.2)
    done = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["converged"] is False and outcome["max_passing_iops"] < 400
    assert "out of reach" in done.stderr and "This storage carries about" in done.stderr


def test_what_the_storage_carries_is_the_sweep_s_settled_figure_not_the_confirming_run_s(tmp_path):
    """The simulated storage's steady state at a setting is known (`solve`). The sweep measures each step once the
    storage settled at it; the confirming run measures its 30 s from a fresh start, while the model's caches still
    warm (latency lower, IOPS higher): what the storage carries is the sweep's figure, within a few % of the truth."""
    from engine.model.config import TestConfig
    from engine.run.sources.model import PROFILES
    from tests.engine.steady import steady_iops

    config = _sata_config(tmp_path, mailboxes=2000, iops=0.2)
    done = jetwise("tune", str(config), "--simulate", "sata-2x7k", "--json", "--output", str(tmp_path / "c"), cwd=tmp_path)
    outcome = json.loads(done.stdout)
    assert done.returncode == 1 and outcome["status"] == "unreachable", done.stderr
    sweep, confirming = outcome["runs"]
    threads, sluggish = outcome["advice"]["threads"], outcome["advice"]["sluggish_sessions"]
    assert sweep["sweep"] and not confirming["sweep"] and (confirming["threads"], confirming["sluggish_sessions"]) == (
        threads, sluggish)
    design = TestConfig.model_validate_json(config.read_text())
    truth, _ = steady_iops(PROFILES["sata-2x7k"], design.at_setting(threads, sluggish))
    carried = outcome["max_passing_iops"]
    assert abs(carried - truth) / truth < 0.03 < (confirming["achieved_transactional_iops"] - truth) / truth
    said = re.search(r"This storage carries about ([\d,]+) transactional IOPS", done.stderr)
    assert said is not None and int(said.group(1).replace(",", "")) == round(carried), done.stderr
    assert (f"{round(carried)} transactional IOPS at {threads} threads / SluggishSessions {sluggish} in the load sweep, "
            f"confirmed by a run at that setting ({confirming['achieved_transactional_iops']:,.0f} IOPS") in done.stderr


def test_tune_bad_input_exits_2_with_the_reason(tmp_path):
    config = _sata_config(tmp_path)
    done = jetwise("tune", str(config), "--simulate", "floppy", cwd=tmp_path)
    assert done.returncode == 2 and "no simulated storage profile 'floppy'" in done.stderr
    done = jetwise("tune", str(config), "--max-runs", "0", cwd=tmp_path)
    assert done.returncode == 2 and "--max-runs must be at least 1" in done.stderr
    done = jetwise("tune", str(config), "--calibration", "20s", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert ("--calibration 20 s: a confirmation run takes at least 40 s here (its warm-up, a settled latency, then the "
            "30 s a verdict needs measured)") in done.stderr


def test_a_run_shorter_than_a_verdict_needs_is_said_at_validate_and_fails_not_enough_measured(tmp_path):
    config = _sata_config(tmp_path)
    data = json.loads(config.read_text())
    data.update(duration_s=10, warmup_s=5, thread_count=2)
    config.write_text(json.dumps(data))
    small = _init_small(tmp_path, "--duration", "10s")
    data_small = json.loads(small.read_text())
    data_small["thresholds"]["minimum_measured_s"] = 30  # _init_small judges any length
    small.write_text(json.dumps(data_small))
    checked = jetwise("validate", str(small), cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert "warning: duration_s: a verdict needs at least 30 s measured" in checked.stdout + checked.stderr
    done = jetwise("run", str(config), "--simulate", "sata-2x7k", "--output", str(tmp_path / "short"), cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "not enough measured: 10.0 s, and a verdict needs at least 30 s measured" in done.stderr


def test_history_lists_sessions_and_their_runs(tmp_path):
    config = _init_small(tmp_path)
    assert jetwise("run", str(config), "--session", "small disks", cwd=tmp_path).returncode == 0
    listing = jetwise("history", cwd=tmp_path)
    assert listing.returncode == 0 and "small disks" in listing.stdout and "pass" in listing.stdout
    runs = jetwise("history", "--session", "small disks", cwd=tmp_path)
    assert "Threads" in runs.stdout and "Achieved IOPS" in runs.stdout
    missing = jetwise("history", "--session", "nope", cwd=tmp_path)
    assert missing.returncode == 2 and "no tuning session 'nope'" in missing.stderr


def test_history_says_once_what_every_instance_failed_and_when_the_maximum_was_passed(tmp_path):
    config = tmp_path / "six.json"
    made = jetwise("init", str(config), "--databases", "6", "--db-path", str(tmp_path / "DB{n}"), "--log-path",
                   str(tmp_path / "Log{n}"), "--mailboxes", "2000", "--threads", "48", "--duration", "2m", "--warmup",
                   "10s", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    done = jetwise("run", str(config), "--simulate", "sata-2x7k", "--session", "six", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # six databases on two SATA disks: every one reads too slowly
    assert "  - 6 of 6 instances: average database read latency " in done.stderr
    assert "    When: Database reads took longer than the Strict maximum of 100 ms in " in done.stderr
    listing = jetwise("history", "--session", "six", cwd=tmp_path).stdout
    lines = [line.strip() for line in listing.splitlines()]
    grouped = r"6 of 6 instances: average database read latency [\d,.]+ to [\d,.]+ ms > 20\.0 ms \(Strict\), the highest on Instance \d"
    assert any(re.fullmatch(grouped, line) for line in lines), listing
    assert not any(line.startswith("Instance ") for line in lines)  # no instance's own line under the run


def test_a_run_killed_half_way_keeps_its_samples_and_is_marked_aborted(tmp_path):
    config = _init_small(tmp_path)
    data = json.loads(config.read_text())
    data["duration_s"] = 60
    config.write_text(json.dumps(data))
    process = subprocess.Popen([*JETWISE, "run", str(config), "--session", "killed"], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    store = Store()
    deadline = time.monotonic() + 60
    samples = 0
    while time.monotonic() < deadline and samples < 4:
        time.sleep(0.2)
        runs = store.runs("killed")
        folder = Path(runs[0].output_dir) if runs else tmp_path / "none"
        samples = len(read_samples(folder)) if (folder / SAMPLES_DB).exists() else 0
    assert samples >= 4
    os.killpg(process.pid, signal.SIGKILL)  # the whole run, workers included: no chance to finish
    process.wait(10)
    store.close()
    reopened = Store()
    [run] = reopened.runs("killed")
    assert run.status == "aborted" and "ended without finishing" in run.reasons[0]
    assert len(read_samples(Path(run.output_dir))) >= samples  # the run folder keeps them, the store names it
    measured = LatencySum()
    highest: dict[str, int] = {}  # each stream's highest latency the samples name: no percentile is above it
    for sample in read_samples(Path(run.output_dir)):
        if sample.phase == "measure" and sample.latency is not None:
            measured.add(sample.latency)
            for part in parts_from_sample(sample).values():
                for name, stream in part.streams.items():
                    highest[name] = max(highest.get(name, 0), stream.max_ns)
    # the machine, written in the run folder as it began: the rebuilt report names it, not "Machine Name —"
    assert load_run(run.output_dir, reopened).result.host.machine_name == socket.gethostname()
    report = jetwise("report", run.output_dir, "--html", str(tmp_path / "killed.html"), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert f"<th>Machine Name</th><td>{socket.gethostname()}</td>" in (tmp_path / "killed.html").read_text()
    rebuilt = load_run(run.output_dir, reopened).result.summary.latency_percentiles_ms
    assert rebuilt["db_read"]["p99"] is not None  # the server's percentiles survive a kill, from the samples file
    assert rebuilt == {name: percentiles_ms(counts, highest_ns=highest.get(name) or None)
                       for name, counts in measured.streams.items()}
    listing = jetwise("history", "--session", "killed", cwd=tmp_path)
    assert "aborted" in listing.stdout
    # its figures are those its report rebuilds from the samples, not "-"
    summary = load_run(run.output_dir, reopened).result.summary
    row = next(line for line in listing.stdout.splitlines() if run.run_id in line)
    assert f"{summary.achieved_transactional_iops:,.1f}" in row and f"{summary.db_read_avg_latency_ms:,.2f}" in row
    document = json.loads(jetwise("history", "--session", "killed", "--json", cwd=tmp_path).stdout)
    assert document["sessions"][0]["runs"][0]["achieved_transactional_iops"] == summary.achieved_transactional_iops


def test_report_writes_html_csv_and_pdf_from_a_run_id_or_its_folder(tmp_path):
    import shutil

    config = _init_small(tmp_path)
    out = tmp_path / "run1"
    assert jetwise("run", str(config), "--output", str(out), "--session", "reported", cwd=tmp_path).returncode == 0
    run_id = json.loads((out / "result.json").read_text())["run_id"]
    done = jetwise("report", run_id, "--html", "r.html", "--csv", "r.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text()
    assert "Tuning Session" in html and "reported" in html and ">PASS<" in html
    assert (tmp_path / "r.csv").read_text().count("\n") > 2
    if shutil.which("pdftotext"):
        pdf = jetwise("report", str(out), "--pdf", "r.pdf", "--page-size", "letter", cwd=tmp_path)
        assert pdf.returncode == 0, pdf.stderr
        assert "PASS" in pdf_text(tmp_path / "r.pdf")
        # exported again by another process, the report is the same file, dated by the run's end
        assert jetwise("report", str(out), "--pdf", "again.pdf", "--page-size", "letter", cwd=tmp_path).returncode == 0
        assert (tmp_path / "again.pdf").read_bytes() == (tmp_path / "r.pdf").read_bytes()
        ended = datetime.fromisoformat(json.loads((out / "result.json").read_text())["times"]["test_end_utc"])
        info = subprocess.run(["pdfinfo", "-isodates", str(tmp_path / "r.pdf")], capture_output=True, text=True).stdout
        assert re.search(rf"^CreationDate: +{ended.strftime('%Y-%m-%dT%H:%M:%SZ')}$", info, re.M), info
    missing = jetwise("report", "no-such-run", cwd=tmp_path)
    assert missing.returncode == 2 and "neither a run folder nor a run id" in missing.stderr
    # The id's last characters, as an engineer reads them off `history`; the report is named with the whole id.
    short = jetwise("report", run_id[-6:], "--jetstress", "jetstress-files", cwd=tmp_path)  # a new folder: made
    assert short.returncode == 0, short.stderr
    assert [p.suffix for p in sorted((tmp_path / "jetstress-files").iterdir())] == [".html", ".xml"]
    assert jetwise("report", run_id[-6:], cwd=tmp_path).returncode == 0
    assert f"<title>Jetwise report {run_id}" in (tmp_path / f"jetwise-report-{run_id}.html").read_text()
    assert jetwise("run", str(config), "--output", str(tmp_path / "run2"), "--session", "reported",
                   cwd=tmp_path).returncode == 0
    second = json.loads((tmp_path / "run2" / "result.json").read_text())["run_id"]
    # the characters both ids begin with (the date both began, at least): two runs, not a guess
    common = next(run_id[:n] for n in range(len(run_id), 0, -1) if second.startswith(run_id[:n]))
    both = jetwise("report", common, cwd=tmp_path)
    assert both.returncode == 2 and f"{common} names 2 runs ({run_id}, {second}); give more" in both.stderr
