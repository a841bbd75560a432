"""Tuning across three servers that share their storage, through the command line and real agents: the load sweep
steps every server at once at the controller's word, the advisor reads the servers' summed curve, and the
confirmation is a test across all of them at the setting found."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime

import psutil
import pytest

from engine.protocol import ExitCode
from engine.results.document import read_result
from engine.results.schema import Outcome
from tests.hosts.agents import HOSTS, JETWISE, stop_all
from tests.hosts.servers import Servers

pytestmark = pytest.mark.slow  # three agents and a controller in their own processes


def _tune(servers: Servers, output, *extra: str) -> subprocess.CompletedProcess[str]:
    hosts = ",".join(f"{host}={servers.files[host]}" for host in HOSTS)
    return subprocess.run([*JETWISE, "tune", str(servers.files[HOSTS[0]]), "--hosts", hosts, "--port", str(servers.port),
                           "--wait", "90s", "--output", str(output), "--json", *extra],
                          capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))


def test_a_sweep_steps_every_server_together_and_the_setting_it_finds_is_confirmed_across_all(tmp_path, keys):
    # a whole test's shortest window judged (15 s) longer than a sweep's step: judged on the step, as one server is
    servers = Servers(tmp_path, keys, thresholds={"minimum_measured_s": 15.0})  # type: ignore[arg-type]
    servers.start_agents(once=False)  # one agent serves every run of the tuning
    try:
        output = tmp_path / "tune"
        done = _tune(servers, output, "--simulate", "sas-8x10k", "--calibration", "25s", "--max-runs", "3")
        assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stderr
        outcome = json.loads(done.stdout)
        runs = sorted(output.iterdir())
        assert runs[0].name == "calibration-01-sweep" and len(runs) == len(outcome["runs"]) >= 2, done.stderr
        sweep = read_result(runs[0])
        assert sweep.sweep is not None and sweep.sweep.end is not None and len(sweep.sweep.steps) >= 2
        own = {host: read_result(runs[0] / "hosts" / host) for host in HOSTS}
        # the whole test ran on the simulated device of every server, as each server's part did: the tuner's device
        assert {sweep.device, *(own[host].device for host in HOSTS)} == {"sas-8x10k"}
        for number, whole in enumerate(sweep.sweep.steps):
            steps = [own[host].sweep.steps[number] for host in HOSTS]
            # in lockstep: every server ran the same load over the same samples
            assert {(s.threads, s.sluggish_sessions, s.first_interval, s.last_interval) for s in steps} == {
                (whole.threads, whole.sluggish_sessions, whole.first_interval, whole.last_interval)}
            # and the step of the whole is measured on their counters together: IOPS summed
            assert whole.transactional_iops == pytest.approx(sum(s.transactional_iops for s in steps), rel=0.02)
        assert all(own[host].sweep.end == sweep.sweep.end for host in HOSTS)  # each ended at the controller's word
        # each server's share of the sweep is judged on the judged step's window, as the sweep itself is: a step
        # shorter than a whole test's shortest window fails no share, and the sweep fails only where a step did
        said = [reason for share in sweep.servers for reason in share.summary.reasons] + sweep.summary.reasons
        assert not any("not enough measured" in reason for reason in said), said
        # the advisor read the summed curve against the summed target, and each run is one of all servers together
        first = outcome["runs"][0]
        assert first["sweep"] and first["achieved_transactional_iops"] == pytest.approx(
            sweep.summary.achieved_transactional_iops)
        confirmation = read_result(runs[1])
        setting = (outcome["runs"][1]["threads"], outcome["runs"][1]["sluggish_sessions"])
        assert (confirmation.configuration.thread_count, confirmation.configuration.sluggish_sessions) == setting
        assert all((read_result(runs[1] / "hosts" / host).summary.threads,
                    read_result(runs[1] / "hosts" / host).summary.sluggish_sessions) == setting for host in HOSTS)
        assert confirmation.summary.verdict.value == outcome["runs"][1]["verdict"]
        assert outcome["runs"][1]["achieved_transactional_iops"] == pytest.approx(
            confirmation.summary.achieved_transactional_iops)
        if outcome["status"] == "converged":
            assert confirmation.summary.verdict == Outcome.PASS
            assert tuple(outcome["recommendation"].values()) == setting
        assert "on 3 servers" in done.stderr or "3 servers (" in done.stderr
        assert "Load sweep across servers ends" in (runs[0] / "test.log").read_text(encoding="utf-8")
    finally:
        stop_all(list(servers.agents.values()))


def test_an_agent_killed_mid_sweep_stops_every_server_within_5_s_and_tuning_ends_aborted(tmp_path, keys):
    servers = Servers(tmp_path, keys)
    servers.start_agents(once=True)
    try:
        output = tmp_path / "tune"
        hosts = ",".join(f"{host}={servers.files[host]}" for host in HOSTS)
        tuning = subprocess.Popen([*JETWISE, "tune", str(servers.files[HOSTS[0]]), "--hosts", hosts, "--port",
                                   str(servers.port), "--wait", "90s", "--output", str(output), "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))
        assert tuning.stderr is not None
        lines = []
        for line in tuning.stderr:  # real I/O: the sweep's first step warms up for a minute
            lines.append(line)
            if "the load sweep: Warming up on every server" in line:
                break
        workers = [child for agent in servers.agents.values() for child in psutil.Process(agent.pid).children(recursive=True)]
        killed = HOSTS[2]
        servers.agents[killed].kill()
        moment = datetime.now(UTC)
        out, err = tuning.communicate(timeout=120)
        assert tuning.returncode == ExitCode.ABORTED, "".join(lines) + err
        assert json.loads(out)["status"] == "aborted" and len(json.loads(out)["runs"]) == 1
        test = read_result(output / "calibration-01-sweep")
        assert test.summary.verdict == Outcome.ABORTED and f"{killed} was lost" in test.summary.reasons[0]
        for host in HOSTS[:2]:  # every other server's sweep stopped within 5 s, its samples kept
            run = read_result(servers.part(host, test.run_id))
            assert run.summary.verdict == Outcome.ABORTED and f"{killed} was lost" in run.summary.reasons[0]
            assert run.times.test_end_utc is not None and (run.times.test_end_utc - moment).total_seconds() < 5.0
            assert servers.agents[host].wait(timeout=30) == 0
        assert "Tuning stopped before it converged" in err
        psutil.wait_procs(workers, timeout=15)
        assert not [w for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]  # nothing left running
    finally:
        stop_all(list(servers.agents.values()))
