"""The ESRP suite across three servers, through the command line and real agents, as the ESRP paper's DAG runs it:
each of the five tests a run across every server at once, each judged per server and as a whole, one combined report
whose stages each have their servers' tables; a server lost mid-suite ends it there keeping what ran, and the same
command resumes it. The engine runs it so for the window too: the wait for the agents, then each stage a run's events."""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import UTC, datetime

import pytest

from engine.protocol import ExitCode, HelloEvent, ResultEvent, StartEvent, SuiteEvent, WaitingEvent, from_json_line
from engine.results.document import read_result
from engine.results.schema import Outcome
from engine.results.suite import STAGES
from engine.run.suite import read_suite
from reporting.suite import load_suite, render_suite_html, suite_charts
from tests.hosts.agents import HOSTS, JETWISE, jetwise, start_agent, stop_all
from tests.hosts.servers import Servers, aborted_within

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes


def _suite(servers: Servers, output, *extra: str) -> subprocess.Popen[str]:
    hosts = ",".join(f"{host}={servers.files[host]}" for host in HOSTS)
    return subprocess.Popen([*JETWISE, "suite", str(servers.files[HOSTS[0]]), "--hosts", hosts, "--port", str(servers.port),
                             "--wait", "90s", "--output", str(output), "--simulate", "sas-8x10k",
                             "--performance-duration", "20s", "--stress-duration", "20s", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))


def test_the_esrp_suite_runs_each_test_on_every_server_at_once_and_resumes_after_a_lost_server(tmp_path, keys):
    servers = Servers(tmp_path, keys, log_files_to_replay=20)  # a Soft Recovery of 20 log files, not 500
    servers.start_agents(once=False)
    try:
        output = tmp_path / "suite"
        # a server lost in the first test: every server's run stops, the test is aborted naming it, the suite ends there
        first = _suite(servers, output)
        assert first.stderr is not None
        for line in first.stderr:  # the first phase the test says (a simulated device's run is over in a moment)
            if line.startswith("== "):
                break
        lost = HOSTS[1]
        servers.agents[lost].kill()
        moment = datetime.now(UTC)
        _out, err = first.communicate(timeout=120)
        assert first.returncode == ExitCode.ABORTED, err
        record = read_suite(output)
        assert record.hosts == HOSTS and [s.outcome for s in record.stages] == [Outcome.ABORTED, None, None, None, None]
        stopped = read_result(output / record.stages[0].folder)
        aborted_within(stopped, moment, f"{lost} was lost")
        assert [share.host for share in stopped.servers] == HOSTS
        assert f"Resume it with the same command and --output {output}" in err
        unfinished = (output / "esrp-report.html").read_text(encoding="utf-8")  # the resume command names the servers
        assert "--hosts " + ",".join(f"{host}=FILE" for host in HOSTS) in unfinished
        # the server back, the same command resumes it: every test across the three servers, judged per server and whole
        servers.agents[lost] = start_agent(servers.data[lost], lost, once=False)
        again = _suite(servers, output)
        _out, err = again.communicate(timeout=600)
        assert again.returncode == ExitCode.PASS, err
        record = read_suite(output)
        assert [stage.test_type for stage in record.stages] == list(STAGES)
        assert record.stages[0].folder == "1-performance-2"  # the lost attempt keeps its own folder
        for stage in record.stages:
            result = read_result(output / stage.folder)
            assert result.verdict == Outcome.PASS and result.run_id == stage.run_id
            assert result.configuration.test_type == stage.test_type and result.configuration.server_names == HOSTS
            assert [share.host for share in result.servers] == HOSTS
            assert all(share.summary is not None and share.summary.verdict == Outcome.PASS for share in result.servers)
            for host in HOSTS:  # each server ran this stage's test on its own databases; its copy is under hosts/
                own = read_result(output / stage.folder / "hosts" / host)
                assert own.configuration.test_type == stage.test_type and own.run_id == result.run_id
                assert str(own.configuration.databases[0].database_path).startswith(str(tmp_path / f"databases-{host}"))
        assert record.stages[-1].folder == "5-soft-recovery"
        kept = json.loads((output / "suite.json").read_text(encoding="utf-8"))
        assert "hosts" not in kept and [s["host"] for s in kept["config"]["servers"]] == HOSTS  # kept in its config
        # one combined report: the servers named on its first page, each stage's report with its servers' tables
        report = (output / "esrp-report.html").read_text(encoding="utf-8")
        assert "across 3 servers" in report and f"<tr><th>Servers</th><td>{', '.join(HOSTS)}</td></tr>" in report
        assert report.count("<h2>Individual Server Metrics</h2>") == 5
        assert report.count("<h2>Aggregate Performance Across All Servers Metrics</h2>") >= 2  # Performance, Stress
        # on paper, every chart the document lays in is one the printer is given (the PDF itself: jetwise report
        # --pdf, through the same writer as every combined report)
        suite = load_suite(output)
        printed = render_suite_html(suite, for_print=True)
        named = set(re.findall(r'src="chart:([^"]+)"', printed))
        charts = suite_charts(suite)
        assert named <= set(charts), named - set(charts)
        assert {name.split("-")[0] for name in named} == {"1", "2", "3", "4", "5"}  # every stage's section has its charts
        assert {"1-iops", "1-latency", "2-iops", "2-latency"} <= named
        written = jetwise(servers.controller, "report", str(output), "--html", str(tmp_path / "suite.html"))
        assert written.returncode == 0 and "ESRP suite across 3 servers" in written.stderr, written.stderr
        # another set of servers is another suite: refused, the folder as it was
        other = subprocess.run([*JETWISE, "suite", str(servers.files[HOSTS[0]]), "--hosts", ",".join(HOSTS[:2]),
                                "--output", str(output), "--simulate", "sas-8x10k", "--performance-duration", "20s",
                                "--stress-duration", "20s"], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))
        assert other.returncode == ExitCode.INVALID and "servers (" in other.stderr, other.stderr
        assert read_suite(output) == record
    finally:
        stop_all(list(servers.agents.values()))


def test_the_engine_runs_the_suite_across_servers_for_the_window_each_stage_a_run_after_the_wait_for_the_agents(
        tmp_path, keys):
    servers = Servers(tmp_path, keys, log_files_to_replay=20)
    servers.start_agents(once=False)
    try:
        output = tmp_path / "suite"
        hosts = ",".join(f"{host}={servers.files[host]}" for host in HOSTS)
        done = subprocess.run([*JETWISE, "engine", str(servers.files[HOSTS[0]]), "--output", str(output), "--suite",
                               "--hosts", hosts, "--session", "dag", "--port", str(servers.port), "--wait", "90s",
                               "--simulate", "sas-8x10k", "--performance-duration", "20s", "--stress-duration", "20s"],
                              capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL,
                              env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))
        assert done.returncode == ExitCode.PASS, done.stderr
        events = [from_json_line(line) for line in done.stdout.splitlines() if line.strip()]
        kinds = [type(event) for event in events]
        assert kinds[0] is HelloEvent and kinds.index(WaitingEvent) < kinds.index(SuiteEvent)  # the agents, then stage 1
        suites = [event for event in events if isinstance(event, SuiteEvent)]
        assert [event.stage for event in suites] == [0, 1, 2, 3, 4, None] and suites[-1].record.finished
        assert suites[-1].record.hosts == HOSTS and suites[-1].record == read_suite(output)
        # each stage a run's events alone: its start in the tuning session, then its result with every server's share
        starts = [event for event in events if isinstance(event, StartEvent)]
        results = [event.result for event in events if isinstance(event, ResultEvent)]
        assert len(starts) == len(results) == 5 and all(start.session == "dag" for start in starts)
        for stage, result in zip(suites[-1].record.stages, results, strict=True):
            assert result.run_id == stage.run_id and result == read_result(output / stage.folder)
            assert [share.host for share in result.servers] == HOSTS
        assert (output / "esrp-report.html").is_file()
    finally:
        stop_all(list(servers.agents.values()))
