"""The frozen Jetwise does what the installed one does: the CLI to a verdict twice, a PDF report, a tuning
session on the simulated device, and the window running a test through its own engine sub-process.

Run after `python packaging/build.py` with `python -m pytest -m frozen tests/frozen` (JETWISE_FROZEN names
the folder when it is not dist/jetwise). CI does both on Linux; docs/packaging.md says how on Windows."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import psutil
import pytest

from engine.version import __version__
from tests.frozen.programs import (
    environment,
    frozen_program,
    jetwise,
    kill_when_measuring,
    small_config,
    started,
    window_run,
)
from tests.pdf_text import pdf_text

pytestmark = pytest.mark.frozen


@pytest.fixture(scope="module")
def program() -> list[str]:
    return frozen_program()


def test_it_says_its_version_and_its_commands(program, tmp_path):
    version = jetwise(program, "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"Jetwise {__version__}"
    usage = jetwise(program, "--help", cwd=tmp_path)
    assert usage.returncode == 0 and "window" in usage.stdout and "report" in usage.stdout
    wrong = jetwise(program, "rnu", cwd=tmp_path)
    assert wrong.returncode == 2 and "did you mean 'run'?" in wrong.stderr and "Traceback" not in wrong.stderr


def test_a_quick_run_twice_to_its_verdicts_then_a_pdf_and_an_export(program, tmp_path):
    for _ in range(2):
        done = jetwise(program, "run", "--quick", cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        assert "Traceback" not in done.stderr and "job object" not in done.stderr  # Windows: the run's job is joined
    runs = sorted((tmp_path / "jetwise-runs").iterdir())
    assert len(runs) == 2 and all((run / "result.json").is_file() for run in runs)
    verdict = json.loads((runs[1] / "result.json").read_text())["summary"]["verdict"]
    report = jetwise(program, "report", str(runs[1]), "--pdf", "r.pdf", "--html", "r.html", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF-")
    if shutil.which("pdftotext"):
        text = pdf_text(tmp_path / "r.pdf")
        assert verdict.upper() in text and "Transactional I/O" in text  # the templates were found in the bundle
    csv = jetwise(program, "export", str(runs[0]), "--output", "s.csv", cwd=tmp_path)
    assert csv.returncode == 0 and (tmp_path / "s.csv").read_text().startswith("interval,phase")
    parquet = jetwise(program, "export", str(runs[0]), "--format", "parquet", "--output", "s.parquet", cwd=tmp_path)
    assert parquet.returncode == 2 and "Parquet needs pyarrow" in parquet.stderr  # left out of the frozen build


def test_a_tuning_session_on_the_simulated_device(program, tmp_path):
    config = small_config(program, tmp_path)
    done = jetwise(program, "tune", str(config), "--simulate", "sas-8x10k", "--json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    outcome = json.loads(done.stdout)
    assert outcome and "Traceback" not in done.stderr


def test_the_window_runs_a_test_through_its_frozen_engine_sub_process(program, tmp_path):
    result, started = window_run(program, tmp_path)
    assert result["summary"]["verdict"] in ("pass", "fail")
    engines = [line for line in started if "engine" in line[1:2]]
    assert engines and all(Path(line[0]).resolve() == Path(program[0]).resolve() for line in engines), started


def test_a_killed_frozen_run_leaves_no_worker(program, tmp_path):
    workers, said = kill_when_measuring(program, tmp_path)
    assert len(workers) >= 2, said
    _gone, alive = psutil.wait_procs(workers, timeout=3)
    for worker in alive:
        worker.kill()
    assert not alive, f"workers still running 3 s after their runner was killed: {alive}"
    assert (tmp_path / "run" / "samples.sqlite").is_file()


def test_the_frozen_program_enrols_an_agent_and_runs_a_test_across_servers_with_it(program, tmp_path):
    """The frozen program carries the controller and the agent: hosts add, agent --enrol, then a test across servers
    (run --hosts) with the agent's part run by the frozen agent; its keys in the credential store, removed afterwards."""
    from engine.hosts.keys import KeyStore
    from tests.hosts.conftest import key_names

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller, server = tmp_path / "controller", tmp_path / "server"
    controller.mkdir()
    server.mkdir()
    try:
        added = jetwise(program, "hosts", "add", "127.0.0.2", "--controller", f"tls://127.0.0.1:{port}", "--folder",
                        str(server), cwd=controller)
        assert added.returncode == 0, added.stderr
        code = added.stdout.split("not written anywhere): ")[1].split()[0]
        enrolled = jetwise(program, "agent", "--enrol", str(server / "127.0.0.2.jwenrol"), "--code", code, cwd=server)
        assert enrolled.returncode == 0 and "Enrolled as 127.0.0.2" in enrolled.stdout, enrolled.stderr
        config = small_config(program, server)
        test = started([*program, "run", str(config), "--hosts", "127.0.0.2", "--port", str(port), "--wait", "120s",
                        "--output", str(controller / "test")], cwd=controller, env=environment(controller),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        agent = started([*program, "agent", "--once", "--listen", "127.0.0.2"], cwd=server, env=environment(server),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            out, err = test.communicate(timeout=300)
            assert test.returncode in (0, 1), err  # a verdict, pass or fail, on this machine's disk
            assert "Individual server metrics" in err and "Traceback" not in out + err
            result = json.loads((controller / "test" / "result.json").read_text(encoding="utf-8"))  # one run's result
            assert [share["host"] for share in result["servers"]] == ["127.0.0.2"]
            assert (controller / "test" / "hosts" / "127.0.0.2" / "result.json").is_file()
            printed = jetwise(program, "report", str(controller / "test"), "--html", str(controller / "report.html"),
                              cwd=controller)
            assert printed.returncode == 0 and "Individual Server Metrics" in (controller / "report.html").read_text(
                encoding="utf-8"), printed.stderr
            assert agent.wait(timeout=30) == 0
            said = agent.stdout.read() if agent.stdout else ""
            assert "Connected from tls://127.0.0.2:" in said and "Redeemed the bundle" in said and "Traceback" not in said
        finally:
            for process in (test, agent):
                if process.poll() is None:
                    process.kill()
                    process.wait()
    finally:
        store = KeyStore()
        for home in (controller, server):
            for name in key_names(home / "data"):
                store.remove(name)
