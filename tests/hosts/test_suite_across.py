"""The ESRP suite across three servers, through the command line and real agents, as the ESRP paper's DAG runs it:
each of the five tests on every server at once, each judged per server and as a whole, one combined report; a Stop
mid-suite keeps what ran, and the same command resumes it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess

import pytest

from engine.protocol import ExitCode
from engine.results.across_schema import ACROSS_FILE, HOSTS_FOLDER, AcrossResult
from engine.results.document import read_result
from engine.results.schema import Outcome
from engine.results.suite import STAGES
from reporting.suite import load_any_suite
from reporting.suite_across import SuiteAcrossBundle, render_suite_across_html, suite_across_charts
from tests.hosts.agents import HOSTS, JETWISE, jetwise, stop_all
from tests.hosts.test_across import Servers

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes


def _suite(servers: Servers, output, *extra: str) -> subprocess.Popen[str]:
    hosts = ",".join(f"{host}={servers.files[host]}" for host in HOSTS)
    return subprocess.Popen([*JETWISE, "suite", str(servers.files[HOSTS[0]]), "--hosts", hosts, "--port", str(servers.port),
                             "--wait", "90s", "--output", str(output), "--simulate", "sas-8x10k",
                             "--performance-duration", "20s", "--stress-duration", "20s", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))


def test_the_esrp_suite_runs_each_test_on_every_server_at_once_and_resumes_after_a_stop(tmp_path, keys):
    servers = Servers(tmp_path, keys, log_files_to_replay=20)  # a Soft Recovery of 20 log files, not 500
    servers.start_agents(once=False)
    try:
        output = tmp_path / "suite"
        # stopped in its first test: what ran is kept, the suite is unfinished
        first = _suite(servers, output)
        assert first.stderr is not None
        for line in first.stderr:
            if "Every server's databases are ready" in line:
                first.send_signal(signal.SIGINT)
                break
        _out, err = first.communicate(timeout=120)
        assert first.returncode == ExitCode.ABORTED, err
        record = json.loads((output / "suite.json").read_text(encoding="utf-8"))
        assert record["hosts"] == HOSTS and record["stages"][0]["outcome"] == "aborted"
        # the same command resumes it: every test across the three servers, each judged per server and as a whole
        again = _suite(servers, output)
        _out, err = again.communicate(timeout=600)
        assert again.returncode == ExitCode.PASS, err
        record = json.loads((output / "suite.json").read_text(encoding="utf-8"))
        assert [stage["test_type"] for stage in record["stages"]] == [kind.value for kind in STAGES]
        for stage in record["stages"]:
            test = AcrossResult.model_validate_json((output / stage["folder"] / ACROSS_FILE).read_text(encoding="utf-8"))
            assert test.outcome == Outcome.PASS and [row.host for row in test.servers] == HOSTS
            assert test.test_id == stage["run_id"] and test.test_type == stage["test_type"]
            for host in HOSTS:  # each server ran this stage's test on its own databases
                run = read_result(output / stage["folder"] / HOSTS_FOLDER / host)
                assert run.configuration.test_type.value == stage["test_type"]
                assert str(run.configuration.databases[0].database_path).startswith(str(tmp_path / f"databases-{host}"))
        assert stage["folder"].startswith("5-soft-recovery")
        # one combined report: the summary with each server's verdict per test, each test's tables, each server's report
        report = (output / "esrp-report.html").read_text(encoding="utf-8")
        assert "across 3 servers" in report and report.count("<h2>Individual Server Metrics</h2>") == 5
        assert all(f"Soft Recovery: server {host}" in report for host in HOSTS)
        # on paper, every chart the document lays in is one the printer is given (the PDF itself: jetwise report
        # --pdf, through the same writer as every combined report)
        suite = load_any_suite(output)
        assert isinstance(suite, SuiteAcrossBundle)
        printed = render_suite_across_html(suite, for_print=True)
        named = set(re.findall(r'src="chart:([^"]+)"', printed))
        charts = suite_across_charts(suite)
        assert len(named) >= 5 * 2 + 15 and named <= set(charts), named - set(charts)
        assert "Database Checksum Test across Servers" in printed
        written = jetwise(servers.controller, "report", str(output), "--html", str(tmp_path / "suite.html"))
        assert written.returncode == 0 and "ESRP suite across servers" in written.stderr, written.stderr
        # another set of servers is another suite: refused, the folder as it was
        other = subprocess.run([*JETWISE, "suite", str(servers.files[HOSTS[0]]), "--hosts", ",".join(HOSTS[:2]),
                                "--output", str(output), "--simulate", "sas-8x10k", "--performance-duration", "20s",
                                "--stress-duration", "20s"], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))
        assert other.returncode == ExitCode.INVALID and "servers (" in other.stderr, other.stderr
    finally:
        stop_all(list(servers.agents.values()))
