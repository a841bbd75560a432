"""Agents on this machine (separate processes and data folders, on loopback addresses) and a controller, over mutual
TLS: enrolled by bundle and code, each connected by its host's certificate, listening on nothing; a removed host,
another authority's agent and a plaintext client refused with a message on both sides."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest

from engine.hosts.controller import Controller
from engine.hosts.roster import Roster
from engine.model.profile import ServerPart
from engine.results.document import read_result
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.run.sources.servers import HostsSource
from tests.conftest import small_config
from tests.hosts.agents import HOSTS, JETWISE, enrolled, free_port, jetwise, start_agent, stop_all

pytestmark = pytest.mark.slow  # real agents in their own processes, three connecting and two refused


def _listening(pid: int) -> set[tuple[str, int]]:
    """The addresses a process listens on."""
    return {(c.laddr.ip, c.laddr.port) for c in psutil.Process(pid).net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN}


def test_agents_connect_by_their_certificates_and_the_controller_refuses_removed_and_foreign_ones(tmp_path, keys):
    port = free_port()
    address = f"tls://127.0.0.1:{port}"
    roster = Roster(tmp_path / "hosts", keys)
    datas = {host: enrolled(roster, tmp_path, host, address) for host in HOSTS}
    agents: list[subprocess.Popen[str]] = []
    try:
        with Controller(roster, host="127.0.0.1", port=port) as controller:
            agents = [start_agent(datas[host], host) for host in HOSTS]
            connected = controller.wait_for(HOSTS, timeout_s=60)
            assert {host: addr.split("//")[1].split(":")[0] for host, addr in connected.items()} == {h: h for h in HOSTS}
            # no plaintext listener anywhere: the controller listens on its TLS port alone, and no agent listens
            assert _listening(os.getpid()) == {("127.0.0.1", port)}
            for agent in agents:
                assert _listening(agent.pid) == set()
            # each connected by its own certificate, from its own process: the connection's far end is that agent's
            for host, agent in zip(HOSTS, agents, strict=True):
                ends = {(c.laddr.ip, c.raddr.port) for c in psutil.Process(agent.pid).net_connections(kind="inet")
                        if c.raddr}
                assert (host, port) in ends
        for agent in agents:  # the controller closed the test: every agent stops
            assert agent.wait(timeout=15) == 0
            said = agent.stdout.read()
            assert "the controller closed the test" in said and "Redeemed the bundle" in said, said

        roster.remove(HOSTS[2])
        foreign = Roster(tmp_path / "other" / "hosts", keys)  # another Jetwise's controller and its agent
        stranger = enrolled(foreign, tmp_path / "other", "127.0.0.5", address)
        with Controller(roster, host="127.0.0.1", port=port) as controller:
            removed = jetwise(datas[HOSTS[2]], "agent", "--once", "--listen", HOSTS[2])
            assert removed.returncode == 2 and "its host was removed from the controller's servers" in removed.stderr
            other = start_agent(stranger, "127.0.0.5")  # another authority's controller answers: not its own, it waits
            agents.append(other)
            assert other.stdout is not None
            waited = next(line for line in other.stdout if "Waiting for the controller" in line)
            assert "is not this agent's controller: its certificate is not of this agent's authority" in waited, waited
            assert other.poll() is None
            with socket.create_connection(("127.0.0.1", port)) as plain:
                plain.sendall(b"GET / HTTP/1.0\r\n\r\n")  # no TLS
            wanted = ("a removed host's certificate", "another authority", "no TLS")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                said = [r.words for r in controller.refusals]
                if all(any(what in words for words in said) for what in wanted):
                    break
                time.sleep(0.1)
            assert all(any(what in words for words in said) for what in wanted), said
            assert controller.agents() == {}  # nothing joined
    finally:
        for agent in agents:
            if agent.poll() is None:
                agent.kill()
                agent.wait()


def test_the_command_line_enrols_checks_lists_and_removes_a_server(tmp_path, keys):
    """As an engineer does it: hosts add on the controller, agent --enrol on the server, hosts check with the agent
    started, hosts list, hosts remove, and the removed agent told why."""
    port = free_port()
    controller, server = tmp_path / "controller", tmp_path / "server"
    added = jetwise(controller, "hosts", "add", "127.0.0.2", "--controller", f"tls://127.0.0.1:{port}",
                     "--folder", str(tmp_path))
    assert added.returncode == 0, added.stderr
    code = added.stdout.split("One-time code (type it there; it is not written anywhere): ")[1].split()[0]
    fingerprint = added.stdout.split("Its certificate's fingerprint: ")[1].split()[0]
    wrong = jetwise(server, "agent", "--enrol", str(tmp_path / "127.0.0.2.jwenrol"), "--code", "0000-0000-0000-0000")
    assert wrong.returncode == 2 and "the code does not open this bundle" in wrong.stderr
    enrolled = jetwise(server, "agent", "--enrol", str(tmp_path / "127.0.0.2.jwenrol"), "--code", code)
    assert enrolled.returncode == 0 and fingerprint in enrolled.stdout, enrolled.stderr

    check = subprocess.Popen([*JETWISE, "hosts", "check", "--port", str(port), "--timeout", "60s"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, JETWISE_DATA_DIR=str(controller)))
    agent = start_agent(server, "127.0.0.2")
    try:
        out, err = check.communicate(timeout=90)
        assert check.returncode == 0, err
        assert agent.wait(timeout=15) == 0  # the check over, the controller closed: the agent stops
        said = agent.stdout.read()
        own = said.split("this agent's own key, made here, is certified (")[1].split(")")[0]  # the bundle's replaced
        assert own != fingerprint and "127.0.0.2: connected from tls://127.0.0.2:" in out and own in out
    finally:
        for process in (check, agent):
            if process.poll() is None:
                process.kill()
                process.wait()
    listed = jetwise(controller, "hosts", "list")
    assert "127.0.0.2" in listed.stdout and own in listed.stdout and "kernel key store" in listed.stdout
    assert "its bundle redeemed" in listed.stdout and "from tls://127.0.0.2:" in listed.stdout
    assert jetwise(controller, "hosts", "remove", "127.0.0.2").returncode == 0
    assert "No server enrolled" in jetwise(controller, "hosts", "list").stdout
    missing = jetwise(controller, "hosts", "remove", "127.0.0.2")
    assert missing.returncode == 2 and "127.0.0.2 is not enrolled" in missing.stderr
    not_enrolled = jetwise(tmp_path / "elsewhere", "agent")
    assert not_enrolled.returncode == 2 and "this server is not enrolled" in not_enrolled.stderr


def test_an_agent_that_connects_during_a_test_is_told_it_joins_the_next_and_does(tmp_path, keys):
    port = free_port()
    roster = Roster(tmp_path / "hosts", keys)
    first, second = HOSTS[:2]
    datas = {host: enrolled(roster, tmp_path, host, f"tls://127.0.0.1:{port}") for host in (first, second)}
    config = small_config(tmp_path / "databases", sample_interval_s=1.0, warmup_s=1.0, duration_s=4.0)
    agents: list[subprocess.Popen[str]] = []

    def test_on(controller: Controller, hosts: list[str], out: Path) -> Runner:
        own = {host: small_config(tmp_path / f"databases-{host}").databases for host in hosts}  # one machine here
        across = config.model_copy(update={"servers": [ServerPart(host=host, databases=own[host]) for host in hosts]})
        return Runner(across, out, lambda _event: None, source=HostsSource(controller))

    try:
        with Controller(roster, host="127.0.0.1", port=port) as controller:
            agents.append(start_agent(datas[first], first))
            controller.wait_for([first], timeout_s=60)
            alone = test_on(controller, [first], tmp_path / "alone")
            running = threading.Thread(target=alone.run, daemon=True)
            running.start()
            runs = datas[first] / "agent" / "runs"
            deadline = time.monotonic() + 60
            while not (runs.is_dir() and any(runs.iterdir())):  # the test runs on the first server
                assert time.monotonic() < deadline
                time.sleep(0.1)
            agents.append(start_agent(datas[second], second))
            controller.wait_for([second], timeout_s=60)  # connected during the test, not in it
            running.join(timeout=120)
            assert not running.is_alive() and [s.host for s in read_result(tmp_path / "alone").servers] == [first]
            assert second in controller.agents()  # still there once the test is over: it waited
            both = test_on(controller, [first, second], tmp_path / "both").run()
        assert both.summary.verdict == Outcome.PASS and [share.host for share in both.servers] == [first, second]
        said = agents[1].communicate(timeout=30)[0]
        assert "The controller says: a test is running: this agent joins the next test" in said
        assert f"Test {both.run_id}: running this server's part" in said
    finally:
        stop_all(agents)
