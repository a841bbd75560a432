"""A test across servers is a run: `jetwise run CONFIG --hosts` leaves one run folder, one result with each server's
share, judged from the summed counters, and each server's copy of its own run folder."""

from __future__ import annotations

import pytest

from engine.protocol import ExitCode
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from engine.results.servers import paper_aggregate
from tests.hosts.agents import HOSTS, jetwise, stop_all
from tests.hosts.test_across import RunConfigFile, Servers

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes, real I/O on each


def test_a_test_across_servers_is_one_run_whose_figures_are_the_servers_counters_summed(tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=4.0)
    servers.start_agents(once=False)
    try:
        output = tmp_path / "test"
        controller = servers.run(output)
        _out, err = controller.communicate(timeout=180)
        assert controller.returncode == ExitCode.PASS, err
        result = read_result(output)
        assert result.summary.verdict == Outcome.PASS and [s.host for s in result.servers] == HOSTS
        assert result.configuration.server_names == HOSTS
        own = {host: read_result(output / "hosts" / host) for host in HOSTS}
        shares = {share.host: share.summary for share in result.servers}
        for host in HOSTS:
            assert shares[host] is not None and shares[host].verdict == Outcome.PASS
            # the share is the server's own counters: the same I/O the server counted itself
            assert shares[host].db_reads_per_s * shares[host].measured_s == pytest.approx(
                own[host].summary.db_reads_per_s * own[host].summary.measured_s, rel=0.05)
        assert result.summary.target_transactional_iops == pytest.approx(3 * own[HOSTS[0]].summary.target_transactional_iops)
        assert result.summary.achieved_transactional_iops == pytest.approx(
            sum(s.achieved_transactional_iops for s in shares.values() if s is not None))
        names = {row.name for row in result.instances}
        assert names == {f"{host} Instance {n}" for host in HOSTS for n in (1, 2)}
        paper = paper_aggregate(result)
        assert paper.servers == 3 and paper.figures["db_read_avg_latency_ms"] == pytest.approx(
            sum(s.db_read_avg_latency_ms for s in shares.values() if s is not None) / 3)
        samples = list(read_samples(output))
        assert any(sample.phase == "measure" for sample in samples)
        assert set(samples[-1].instances) <= names
        assert "Individual server metrics" in err and "Aggregate across all servers" in err
        made = jetwise(servers.controller, "report", str(output), "--html", str(tmp_path / "report.html"))
        assert made.returncode == 0, made.stderr
        report = (tmp_path / "report.html").read_text(encoding="utf-8")
        assert "Individual Server Metrics" in report and "Aggregate Performance Across All Servers Metrics" in report
        assert all(f"{host} Instance 2" in report for host in HOSTS)
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
