"""A test across servers is a run (three agents in their own processes and data folders on loopback, real I/O, through
the command line as an engineer runs it): `jetwise run CONFIG --hosts` leaves one run folder, one result with each
server's share judged on its own counters, the test's figures from their sum, and each server's copy of its own run
folder; started at one instant once every server's databases are ready, run twice; then the faults — a Stop, a killed
agent, a killed controller, a cut network, a full disk — each ending every server's run within 5 s, every folder
keeping its samples, nothing left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime

import psutil
import pytest

from engine.protocol import ExitCode
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from engine.results.servers import paper_aggregate
from tests.hosts.agents import HOSTS, jetwise, start_agent, stop_all
from tests.hosts.servers import (
    ROOT,
    RunConfigFile,
    Servers,
    aborted_within,
    measured,
    mounts_as_root,
    result_of,
)
from tests.pdf_text import pdf_text

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes, real I/O on each


def test_a_test_across_servers_is_one_run_whose_figures_are_the_servers_counters_summed_and_it_runs_again(
        tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=4.0)
    servers.start_agents(once=False)  # the agents serve test after test
    try:
        for attempt in ("first", "second"):
            output = tmp_path / f"{attempt}-test"
            controller = servers.run(output)
            _out, err = controller.communicate(timeout=180)
            assert controller.returncode == ExitCode.PASS, err
            result = read_result(output)
            assert result.summary.verdict == Outcome.PASS and [s.host for s in result.servers] == HOSTS
            assert result.configuration.server_names == HOSTS
            own = {host: read_result(output / "hosts" / host) for host in HOSTS}
            shares = {share.host: share.summary for share in result.servers}
            for host in HOSTS:
                assert own[host] == read_result(servers.part(host, result.run_id))  # the server's own, written there
                share = shares[host]
                assert share is not None and share.verdict == Outcome.PASS
                # the share is the server's own counters: the I/O the server counted itself
                assert share.db_reads_per_s * share.measured_s == pytest.approx(
                    own[host].summary.db_reads_per_s * own[host].summary.measured_s, rel=0.05)
            # measured from one instant to one instant on every server (one machine's clock here: offsets near 0)
            starts = [r.times.collection_start_utc for r in own.values()]
            ends = [r.times.collection_end_utc for r in own.values()]
            span = ends[0] - starts[0]
            assert max(starts) - min(starts) < span / 10 and max(ends) - min(ends) < span / 10
            assert all(s.clock_offset_s is not None and abs(s.clock_offset_s) < 0.5 for s in result.servers)
            summary = result.summary
            assert summary.target_transactional_iops == pytest.approx(3 * own[HOSTS[0]].summary.target_transactional_iops)
            assert summary.achieved_transactional_iops == pytest.approx(
                sum(s.achieved_transactional_iops for s in shares.values() if s is not None))
            names = {row.name for row in result.instances}
            assert names == {f"{host} Instance {n}" for host in HOSTS for n in (1, 2)}
            sizes = {row.name: (row.database_bytes_initial, row.database_bytes_final) for row in result.instances}
            assert all(sizes[f"{host} {row.name}"] == (row.database_bytes_initial, row.database_bytes_final)
                       and row.database_bytes_initial for host in HOSTS for row in own[host].instances)
            assert result.io_backend == "each server's own, through its agent"
            paper = paper_aggregate(result)
            assert paper.servers == 3 and paper.figures["db_read_avg_latency_ms"] == pytest.approx(
                sum(s.db_read_avg_latency_ms for s in shares.values() if s is not None) / 3)
            samples = list(read_samples(output))
            assert any(sample.phase == "measure" for sample in samples)
            assert set(samples[-1].instances) <= names
            log = (output / "test.log").read_text(encoding="utf-8")
            assert "the test starts on all of them at" in log and "Test ends: PASS" in log
            assert "Refused" not in log  # the controller answered each agent all it asked, and was asked nothing else
            assert "Individual server metrics" in err and "Aggregate across all servers" in err
            made = jetwise(servers.controller, "report", str(output), "--html", str(tmp_path / "report.html"))
            assert made.returncode == 0, made.stderr
            report = (tmp_path / "report.html").read_text(encoding="utf-8")
            assert "Individual Server Metrics" in report and "Aggregate Performance Across All Servers Metrics" in report
            assert all(f"{host} Instance 2" in report for host in HOSTS) and "(for each server)" in report
        stop_all(list(servers.agents.values()))
        for host, agent in servers.agents.items():  # nor did any agent refuse the controller anything
            said = agent.communicate(timeout=30)[0]
            assert f"Connected from tls://{host}:" in said and "Refused" not in said, (host, said)
            assert said.count("Redeemed the bundle") == 1 and "The test is over" in said, (host, said)
    finally:
        stop_all(list(servers.agents.values()))


def test_a_checksum_a_backup_and_a_soft_recovery_across_servers_are_runs_of_each_server_s_databases(tmp_path, keys):
    """As the ESRP suite's later tests do, one at a time: a Performance test makes every server's databases, then a
    checksum reads them on each server, a backup copies them to each server's backup folder, and a Soft Recovery
    replays each server's logs, every one started together, judged per server and as a whole, in one result."""
    servers = Servers(tmp_path, keys, duration_s=2.0, log_files_to_replay=10, databases=1)
    servers.start_agents(once=False)
    shared = {host: RunConfigFile(servers.files[host]) for host in HOSTS}
    try:
        for kind in ("performance", "database_checksum", "database_backup", "soft_recovery"):
            for host, file in shared.items():
                file.set(test_type=kind, backup_path=str(tmp_path / f"backup-{host}"))
            output = tmp_path / kind
            controller = servers.run(output)
            _out, err = controller.communicate(timeout=300)
            assert controller.returncode == ExitCode.PASS, err
            result = read_result(output)
            assert result.configuration.test_type == kind and [share.host for share in result.servers] == HOSTS
            assert all(share.summary is not None and share.summary.verdict == Outcome.PASS for share in result.servers)
            made = jetwise(servers.controller, "report", str(output), "--html", str(tmp_path / f"{kind}.html"))
            assert made.returncode == 0, made.stderr
            report = (tmp_path / f"{kind}.html").read_text(encoding="utf-8")
            assert "Individual Server Metrics" in report and all(f"{host} Instance 1" in report for host in HOSTS)
            if kind == "database_checksum":
                assert result.scan is not None and len(result.scan.databases) == 3
                assert all(row.seen_pages > 0 for row in result.scan.databases)
            elif kind == "database_backup":
                assert result.scan is not None and all(any((tmp_path / f"backup-{host}").rglob("*")) for host in HOSTS)
            elif kind == "soft_recovery":
                assert result.recovery is not None and len(result.recovery.instances) == 3
                assert result.recovery.log_files_replayed == 30
            for host in HOSTS:
                own = read_result(output / "hosts" / host)
                ran_on = [spec.database_path for spec in own.configuration.databases]
                assert ran_on == [spec.database_path for spec in shared[host].config.databases]  # its own
    finally:
        stop_all(list(servers.agents.values()))


def _workers_ended(workers: list[psutil.Process]) -> None:
    psutil.wait_procs(workers, timeout=15)
    assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]  # nothing left running


def test_a_killed_agent_stops_every_other_server_within_5_s_and_a_stop_stops_all(tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=120.0)
    servers.start_agents(once=True)
    try:
        output = tmp_path / "killed-agent"
        controller, workers = servers.measuring(output)
        killed = HOSTS[1]
        servers.agents[killed].kill()
        moment = datetime.now(UTC)
        controller.communicate(timeout=60)
        assert controller.returncode == ExitCode.ABORTED
        result = read_result(output)
        aborted_within(result, moment, f"{killed} was lost")
        shares = {share.host: share for share in result.servers}
        assert shares[killed].end == "lost" and shares[killed].summary is not None  # measured until lost
        for host in HOSTS:
            assert measured(output / "hosts" / host) > 0  # every copy keeps what came
            if host != killed:
                aborted_within(read_result(servers.part(host, result.run_id)), moment, f"{killed} was lost")
                assert servers.agents[host].wait(timeout=30) == 0  # --once: the test over, the agent ends
        assert measured(servers.part(killed, result.run_id)) > 0  # the killed server's own samples stay on it
        printed = jetwise(servers.controller, "report", str(output), "--pdf", str(tmp_path / "killed.pdf"))
        assert printed.returncode == 0, printed.stderr
        text = pdf_text(tmp_path / "killed.pdf")
        assert f"{killed} was lost" in text and "Aggregate Performance Across All Servers Metrics" in text
        _workers_ended(workers)

        # a Stop (Ctrl-C at the controller) stops every server; the next test runs
        servers.start_agents(once=True)
        output = tmp_path / "stopped"
        controller, _workers = servers.measuring(output)
        controller.send_signal(signal.SIGINT)
        moment = datetime.now(UTC)
        controller.communicate(timeout=60)
        assert controller.returncode == ExitCode.ABORTED
        aborted_within(read_result(output), moment, "stopped by the user (Ctrl-C)")
        for host in HOSTS:
            aborted_within(read_result(output / "hosts" / host), moment, "stopped by the user (Ctrl-C)")
            assert servers.agents[host].wait(timeout=30) == 0
    finally:
        stop_all(list(servers.agents.values()))


def test_a_killed_controller_ends_every_server_s_run_within_5_s_and_its_folder_is_reported_from_its_samples(
        tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=120.0)
    servers.start_agents(once=True)
    try:
        output = tmp_path / "killed-controller"
        controller, workers = servers.measuring(output)
        test_id = next((servers.data[HOSTS[0]] / "agent" / "runs").iterdir()).name
        controller.kill()
        moment = datetime.now(UTC)
        controller.wait()
        for host in HOSTS:
            assert servers.agents[host].wait(timeout=60) == 0  # a lost controller ends the test, and --once the agent
            aborted_within(read_result(servers.part(host, test_id)), moment, "controller")
            assert measured(servers.part(host, test_id)) > 0
        # the controller's folder is a run killed: reported, aborted, from its samples, each server's share in it
        printed = jetwise(servers.controller, "report", str(output), "--pdf", str(tmp_path / "killed.pdf"))
        assert printed.returncode == 0, printed.stderr
        text = pdf_text(tmp_path / "killed.pdf")
        assert "ABORTED" in text and "Individual Server Metrics" in text and all(host in text for host in HOSTS)
        _workers_ended(workers)
    finally:
        stop_all(list(servers.agents.values()))


def test_every_sample_of_a_simulated_flood_reaches_the_controller_and_no_busy_server_counts_as_lost(tmp_path, keys):
    """Simulated servers send a long test's samples as fast as the model makes them (virtual time): the controller
    falls behind, and still keeps every sample and hears every server while its messages wait to be handled."""
    servers = Servers(tmp_path, keys, duration_s=7200.0, warmup_s=0.0, databases=12)
    servers.start_agents(once=True)
    try:
        output = tmp_path / "flood"
        controller = servers.run(output, "--simulate", "sas-8x10k")
        _out, err = controller.communicate(timeout=300)
        result = read_result(output)
        assert all(share.summary is not None and share.end is None for share in result.servers), err  # none lost
        samples = list(read_samples(output))
        assert len(samples) == 7200
        # each second of the test is every server's second: none empty between the simulated windows' last samples
        assert all(sample.summary.transactional_iops > 0 for sample in samples)
        own = [read_result(servers.part(host, result.run_id)).summary for host in HOSTS]
        assert result.summary.achieved_transactional_iops == pytest.approx(
            sum(summary.achieved_transactional_iops for summary in own), rel=1e-6)
        for host in HOSTS:
            assert len(read_samples(output / "hosts" / host)) == len(read_samples(servers.part(host, result.run_id))) == 7200
    finally:
        stop_all(list(servers.agents.values()))


def test_a_cut_network_stops_every_server_within_5_s_from_either_side(tmp_path, keys):
    """A frozen process sends nothing and resets nothing: to the other side it is a cut network. A server cut off:
    the controller hears nothing, stops every other server and names it; back, it stops too. The controller cut off:
    every server's part hears no answer and stops on its own."""
    servers = Servers(tmp_path, keys, duration_s=120.0)
    servers.start_agents(once=True)
    try:
        output = tmp_path / "cut-server"
        controller, workers = servers.measuring(output)
        cut = HOSTS[2]
        os.kill(servers.agents[cut].pid, signal.SIGSTOP)
        moment = datetime.now(UTC)
        controller.communicate(timeout=60)
        assert controller.returncode == ExitCode.ABORTED
        result = read_result(output)
        aborted_within(result, moment, f"{cut} was lost")
        for host in HOSTS[:2]:
            aborted_within(read_result(servers.part(host, result.run_id)), moment, f"{cut} was lost")
        os.kill(servers.agents[cut].pid, signal.SIGCONT)  # back: its controller is gone, so its part stops
        back = result_of(servers.part(cut, result.run_id))
        assert back.summary.verdict == Outcome.ABORTED and measured(servers.part(cut, result.run_id)) > 0
        for agent in servers.agents.values():
            assert agent.wait(timeout=30) == 0
        _workers_ended(workers)

        servers.start_agents(once=True)
        output = tmp_path / "cut-controller"
        controller, workers = servers.measuring(output)
        test_id = next(p.name for p in (servers.data[HOSTS[0]] / "agent" / "runs").iterdir() if p.name != result.run_id)
        controller.send_signal(signal.SIGSTOP)
        moment = datetime.now(UTC)
        for host in HOSTS:
            aborted_within(result_of(servers.part(host, test_id)), moment, "the controller was lost")
        controller.kill()
        controller.wait()
        for agent in servers.agents.values():
            assert agent.wait(timeout=60) == 0
        _workers_ended(workers)
    finally:
        for agent in servers.agents.values():
            if agent.poll() is None:
                agent.send_signal(signal.SIGCONT)
        stop_all(list(servers.agents.values()))


@pytest.mark.skipif(not mounts_as_root(), reason="needs root for a private mount namespace (unshare -m) that still "
                                                 "sees the kernel key store the agent's key is in")
def test_a_server_whose_disk_fills_stops_every_other_within_5_s_and_the_test_names_it(tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=120.0)
    full = HOSTS[0]
    servers.agents = {host: start_agent(servers.data[host], host) for host in HOSTS[1:]}
    runs, copy = servers.data[full] / "agent" / "runs", tmp_path / "full-copy"
    filled = subprocess.Popen(["unshare", "-m", sys.executable, "-m", "tests.hosts.full_agent", str(runs), "4m", full,
                               str(copy)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, JETWISE_DATA_DIR=str(servers.data[full])), cwd=ROOT)
    try:
        output = tmp_path / "disk-full"
        controller = servers.run(output)
        _out, err = controller.communicate(timeout=180)
        said, _ = filled.communicate(timeout=120)
        assert said.strip() == "0", said  # the agent ended on its own, cleanly
        assert controller.returncode == ExitCode.ABORTED, err
        result = read_result(output)
        assert f"{full}'s run was aborted" in result.summary.reasons[0] and "No space left on device" in result.summary.reasons[0]
        own = copy / result.run_id
        ended = read_result(own)  # on the full volume: its reserve kept room for the aborted result
        assert ended.summary.verdict == Outcome.ABORTED and "No space left on device" in ended.summary.reasons[0]
        assert len(read_samples(own)) >= 2 and ended.times.test_end_utc is not None
        for host in HOSTS[1:]:
            aborted_within(read_result(servers.part(host, result.run_id)), ended.times.test_end_utc,
                           f"{full}'s run was aborted")
            assert servers.agents[host].wait(timeout=30) == 0
    finally:
        stop_all([*servers.agents.values(), filled])


def test_an_agent_that_never_connects_or_a_ctrl_c_while_waiting_ends_the_command_with_nothing_begun(tmp_path, keys):
    servers = Servers(tmp_path, keys)  # enrolled, their agents never started
    output = tmp_path / "never"
    waited = servers.run(output, "--wait", "2s")
    _out, err = waited.communicate(timeout=120)
    assert waited.returncode == ExitCode.INVALID and f"no agent connected for {', '.join(HOSTS)} within 2 s" in err, err
    assert "Traceback" not in err and not (output / "result.json").exists()
    stopped = servers.run(tmp_path / "stopped")
    assert stopped.stderr is not None
    for line in stopped.stderr:  # listening: then a Ctrl-C
        if "waiting for" in line:
            break
    stopped.send_signal(signal.SIGINT)
    _out, err = stopped.communicate(timeout=60)
    assert stopped.returncode == ExitCode.ABORTED and "Stopped while waiting for the agents: no test began." in err, err
    assert not (tmp_path / "stopped" / "result.json").exists()
