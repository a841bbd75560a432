"""One test across three servers (agents in their own processes and data folders on loopback addresses), real I/O,
through the command line as an engineer runs it: started at one instant once every server's databases are ready,
judged per server and as a whole, run twice; then the faults — a Stop, a killed agent, a killed controller — each
ending every server's run within 5 s, every folder keeping its samples, nothing left running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil
import pytest

from engine.hosts.roster import Roster
from engine.model.config import TestConfig
from engine.protocol import ExitCode
from engine.results.across_schema import ACROSS_FILE, HOSTS_FOLDER, AcrossResult
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome, RunResult
from tests.conftest import small_config
from tests.hosts.agents import HOSTS, JETWISE, enrolled, free_port, jetwise, start_agent, stop_all
from tests.pdf_text import pdf_text

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes, real I/O on each
STOPPED_WITHIN_S = 5.0
ROOT = Path(__file__).parents[2]


class Servers:
    """A controller's data folder, three enrolled agents' folders, and a configuration file per server."""

    def __init__(self, tmp_path: Path, keys, **timing: float) -> None:
        timing = {"warmup_s": 1.0, **timing}
        self.port = free_port()
        self.controller = tmp_path / "controller"
        roster = Roster(self.controller / "hosts", keys)
        self.data = {host: enrolled(roster, tmp_path, host, f"tls://127.0.0.1:{self.port}") for host in HOSTS}
        self.files = {}
        for host in HOSTS:  # each server its own databases and paths, as on real servers
            config = small_config(tmp_path / f"databases-{host}", sample_interval_s=1.0, **timing)
            self.files[host] = tmp_path / f"{host}.json"
            self.files[host].write_text(config.model_dump_json(indent=1), encoding="utf-8")
        self.agents: dict[str, subprocess.Popen[str]] = {}

    def start_agents(self, *, once: bool) -> None:
        self.agents = {host: start_agent(self.data[host], host, once=once) for host in HOSTS}

    def run(self, output: Path, *extra: str) -> subprocess.Popen[str]:
        hosts = ",".join(f"{host}={self.files[host]}" for host in HOSTS)
        return subprocess.Popen([*JETWISE, "run", str(self.files[HOSTS[0]]), "--hosts", hosts, "--port", str(self.port),
                                 "--wait", "90s", "--output", str(output), *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, JETWISE_DATA_DIR=str(self.controller)))

    def measuring(self, output: Path) -> tuple[subprocess.Popen[str], list[psutil.Process]]:
        """A test started and measuring on every server, and the processes its runs started on them."""
        controller = self.run(output)
        _until_measuring(controller)
        return controller, [child for agent in self.agents.values()
                            for child in psutil.Process(agent.pid).children(recursive=True)]

    def part(self, host: str, test_id: str) -> Path:
        """A server's own run folder of a test, in its agent's data folder."""
        return self.data[host] / "agent" / "runs" / test_id


def _until_measuring(controller: subprocess.Popen[str]) -> list[str]:
    """The controller's lines until the first summed measured interval."""
    assert controller.stderr is not None
    lines = []
    for line in controller.stderr:
        lines.append(line)
        if "all servers [measure" in line:
            return lines
    raise AssertionError("the test ended before it measured:\n" + "".join(lines))


def _measured(folder: Path) -> int:
    return sum(1 for sample in read_samples(folder) if sample.phase == "measure")


def test_a_test_across_three_servers_starts_and_ends_together_is_judged_per_server_and_as_a_whole_and_runs_again(
        tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=4.0)
    servers.start_agents(once=False)  # the agents serve test after test
    try:
        for attempt in ("first", "second"):
            output = tmp_path / f"{attempt}-test"
            controller = servers.run(output)
            _out, err = controller.communicate(timeout=180)
            assert controller.returncode == ExitCode.PASS, err
            test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
            assert test.outcome == Outcome.PASS and [row.host for row in test.servers] == HOSTS
            results = {host: read_result(output / HOSTS_FOLDER / host) for host in HOSTS}
            for host, result in results.items():
                own = read_result(servers.part(host, test.test_id))  # the server's own folder, written there
                assert own == result and result.summary.verdict == Outcome.PASS
                assert _measured(servers.part(host, test.test_id)) == _measured(output / HOSTS_FOLDER / host) > 0
            # measured from one instant to one instant on every server (one machine's clock here: offsets near 0)
            starts = [r.times.collection_start_utc for r in results.values()]
            ends = [r.times.collection_end_utc for r in results.values()]
            assert max(starts) - min(starts) < (ends[0] - starts[0]) / 10 and max(ends) - min(ends) < (ends[0] - starts[0]) / 10
            # the aggregate as the ESRP paper makes it: I/O summed, latency averaged across the servers
            rows = {row.host: row for row in test.servers}
            total = test.aggregate
            assert total.servers == 3
            assert total.achieved_transactional_iops == pytest.approx(
                sum(r.summary.achieved_transactional_iops for r in results.values()))
            assert total.target_transactional_iops == pytest.approx(3 * results[HOSTS[0]].summary.target_transactional_iops)
            assert total.db_read_avg_latency_ms == pytest.approx(
                sum(r.summary.db_read_avg_latency_ms for r in results.values()) / 3)
            assert all(rows[h].log_writes_per_s == results[h].summary.log_writes_per_s for h in HOSTS)
            assert all(rows[h].clock_offset_s is not None and abs(rows[h].clock_offset_s) < 0.5 for h in HOSTS)
            log = (output / "test.log").read_text(encoding="utf-8")
            assert "the test starts on all of them at" in log and "Test ends: PASS" in log
            assert "Individual server metrics" in err and "Aggregate across all servers" in err
            report = (output / "report.html").read_text(encoding="utf-8")  # the combined report, left in the folder
            assert all(words in report for words in ("Individual Server Metrics", "Aggregate Performance Across All "
                                                     "Servers Metrics", *(f"Server {host}" for host in HOSTS)))
            assert "Refused" not in log  # the controller answered each agent all it asked, and was asked nothing else
        stop_all(list(servers.agents.values()))
        for host, agent in servers.agents.items():  # nor did any agent refuse the controller anything
            said = agent.communicate(timeout=30)[0]
            assert f"Connected from tls://{host}:" in said and "Refused" not in said, (host, said)
            assert said.count("Redeemed the bundle") == 1 and "The test is over" in said, (host, said)
    finally:
        stop_all(list(servers.agents.values()))


def _aborted_within(result: RunResult, moment: datetime, words: str) -> None:
    assert result.summary.verdict == Outcome.ABORTED and words in result.summary.reasons[0], result.summary.reasons
    assert result.times.test_end_utc is not None
    assert (result.times.test_end_utc - moment).total_seconds() < STOPPED_WITHIN_S


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
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.outcome == Outcome.ABORTED and test.ended_by is not None
        assert (test.ended_by.host, test.ended_by.why) == (killed, "lost")
        rows = {row.host: row for row in test.servers}
        assert rows[killed].outcome is None  # it gave no result
        for host in HOSTS:
            assert _measured(output / HOSTS_FOLDER / host) > 0  # every copy keeps what came
            if host != killed:
                _aborted_within(read_result(servers.part(host, test.test_id)), moment, f"{killed} was lost")
                assert servers.agents[host].wait(timeout=30) == 0  # --once: the test over, the agent ends
        assert _measured(servers.part(killed, test.test_id)) > 0  # the killed server's own samples stay on it
        printed = jetwise(servers.controller, "report", str(output), "--pdf", str(tmp_path / "killed.pdf"))
        assert printed.returncode == 0, printed.stderr
        text = pdf_text(tmp_path / "killed.pdf")
        assert f"{killed} was lost" in text and "Aggregate Performance Across All Servers Metrics" in text
        assert f"Server {killed}" in text and "2 of 3 servers gave a result" in text  # its copy: what reached the controller
        psutil.wait_procs(workers, timeout=15)
        assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]  # nothing left running

        # a Stop (Ctrl-C at the controller) stops every server; the next test runs
        servers.start_agents(once=True)
        output = tmp_path / "stopped"
        controller, _workers = servers.measuring(output)
        controller.send_signal(signal.SIGINT)
        moment = datetime.now(UTC)
        controller.communicate(timeout=60)
        assert controller.returncode == ExitCode.ABORTED
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.ended_by is not None and test.ended_by.why == "stopped"
        for host in HOSTS:
            _aborted_within(read_result(output / HOSTS_FOLDER / host), moment, "stopped by the user (Ctrl-C)")
            assert servers.agents[host].wait(timeout=30) == 0
    finally:
        stop_all(list(servers.agents.values()))


def test_a_killed_controller_ends_every_server_s_run_within_5_s(tmp_path, keys):
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
            _aborted_within(read_result(servers.part(host, test_id)), moment, "controller")
            assert _measured(servers.part(host, test_id)) > 0
        # the controller's folder is a test that says how it ended, reported as a whole from what reached it
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.outcome == Outcome.ABORTED and test.ended_by is not None and test.ended_by.why == "controller"
        printed = jetwise(servers.controller, "report", str(output), "--pdf", str(tmp_path / "killed.pdf"))
        assert printed.returncode == 0, printed.stderr
        text = pdf_text(tmp_path / "killed.pdf")
        assert "The controller ended the test: it ended before the test did (killed" in text
        assert "Aggregate Performance Across All Servers Metrics" in text
        assert all(f"Server {host}" in text for host in HOSTS)
        psutil.wait_procs(workers, timeout=15)
        assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
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
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.ended_by is None and all(row.outcome is not None for row in test.servers), err  # none lost
        for host in HOSTS:
            assert len(read_samples(output / HOSTS_FOLDER / host)) == len(read_samples(servers.part(host, test.test_id))) == 7200
    finally:
        stop_all(list(servers.agents.values()))


def _result_of(folder: Path, within_s: float = 60.0) -> RunResult:
    """A server's result once its run has written it (a run stopping on its own, with nothing to wait on)."""
    deadline = time.monotonic() + within_s
    while not (folder / "result.json").exists():
        assert time.monotonic() < deadline, f"no result in {folder}"
        time.sleep(0.1)
    return read_result(folder)


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
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.ended_by is not None and (test.ended_by.host, test.ended_by.why) == (cut, "lost")
        for host in HOSTS[:2]:
            _aborted_within(read_result(servers.part(host, test.test_id)), moment, f"{cut} was lost")
        os.kill(servers.agents[cut].pid, signal.SIGCONT)  # back: its controller is gone, so its part stops
        back = _result_of(servers.part(cut, test.test_id))
        assert back.summary.verdict == Outcome.ABORTED and _measured(servers.part(cut, test.test_id)) > 0
        for agent in servers.agents.values():
            assert agent.wait(timeout=30) == 0
        psutil.wait_procs(workers, timeout=15)
        assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]

        servers.start_agents(once=True)
        output = tmp_path / "cut-controller"
        controller, workers = servers.measuring(output)
        test_id = next(p.name for p in (servers.data[HOSTS[0]] / "agent" / "runs").iterdir() if p.name != test.test_id)
        controller.send_signal(signal.SIGSTOP)
        moment = datetime.now(UTC)
        for host in HOSTS:
            _aborted_within(_result_of(servers.part(host, test_id)), moment, "the controller was lost")
        controller.kill()
        controller.wait()
        for agent in servers.agents.values():
            assert agent.wait(timeout=60) == 0
        psutil.wait_procs(workers, timeout=15)
        assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    finally:
        for agent in servers.agents.values():
            if agent.poll() is None:
                agent.send_signal(signal.SIGCONT)
        stop_all(list(servers.agents.values()))


def _mounts_as_root() -> bool:
    if sys.platform != "linux" or shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    return subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _mounts_as_root(), reason="needs root for a private mount namespace (unshare -m) that still "
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
        test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
        assert test.ended_by is not None and (test.ended_by.host, test.ended_by.why) == (full, "aborted_part")
        own = copy / test.test_id
        ended = read_result(own)  # on the full volume: its reserve kept room for the aborted result
        assert ended.summary.verdict == Outcome.ABORTED and "No space left on device" in ended.summary.reasons[0]
        assert "No space left on device" in test.ended_by.detail and len(read_samples(own)) >= 2
        assert ended.times.test_end_utc is not None
        for host in HOSTS[1:]:
            _aborted_within(read_result(servers.part(host, test.test_id)), ended.times.test_end_utc,
                            f"{full}'s run was aborted")
            assert servers.agents[host].wait(timeout=30) == 0
    finally:
        stop_all([*servers.agents.values(), filled])


def test_a_checksum_a_backup_and_a_soft_recovery_each_run_across_three_servers_on_each_server_s_databases(tmp_path,
                                                                                                          keys):
    """As the ESRP suite's later tests do, one at a time: a Performance test makes every server's databases, then a
    checksum reads them on each server, a backup copies them to each server's backup folder, and a Soft Recovery
    replays each server's logs, every one started together and judged per server and as a whole."""
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
            test = AcrossResult.model_validate_json((output / ACROSS_FILE).read_text(encoding="utf-8"))
            assert test.test_type == kind and [row.host for row in test.servers] == HOSTS
            assert all(row.outcome == Outcome.PASS for row in test.servers)
            assert (output / "report.html").is_file() and "not written" not in err  # its combined report
            report = (output / "report.html").read_text(encoding="utf-8")
            columns = {"performance": "Achieved IOPS", "database_checksum": "<th>Pages read</th>",
                       "database_backup": "<th>Pages read</th>", "soft_recovery": "<th>Log files replayed</th>"}
            assert columns[kind] in report and (kind == "performance") == ("Target IOPS" in report)  # its own figures
            for host in HOSTS:
                result = read_result(output / HOSTS_FOLDER / host)
                ran_on = [spec.database_path for spec in result.configuration.databases]
                assert ran_on == [spec.database_path for spec in shared[host].config.databases]  # its own
                if kind == "database_checksum":
                    assert result.scan is not None and all(row.seen_pages > 0 for row in result.scan.databases)
                elif kind == "database_backup":
                    assert result.scan is not None and any((tmp_path / f"backup-{host}").rglob("*"))
                elif kind == "soft_recovery":
                    assert result.recovery is not None and result.recovery.log_files_replayed > 0
    finally:
        stop_all(list(servers.agents.values()))


class RunConfigFile:
    """A server's configuration file, edited between its tests."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.config = TestConfig.model_validate_json(path.read_text(encoding="utf-8"))

    def set(self, **changes: object) -> None:
        self.config = TestConfig.model_validate({**self.config.model_dump(mode="json"), **changes})
        self.path.write_text(self.config.model_dump_json(indent=1), encoding="utf-8")
