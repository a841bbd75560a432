"""The port the controller listens on: one another program holds is said plainly, before any test begins, and the
controller leaves nothing running."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from app.cli import run_cli
from engine.hosts.port import PortInUseError, controller_on
from engine.hosts.roster import Roster
from engine.io.config_file import save_config
from engine.protocol import ExitCode
from tests.cli.test_bad_input import good_config
from tests.hosts.agents import enrolled, free_port, jetwise


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another program listens on, on every address of this server."""
    with socket.socket() as other:
        other.bind(("", 0))
        other.listen()
        yield int(other.getsockname()[1])


@pytest.fixture
def roster(tmp_path, keys, monkeypatch) -> Roster:
    """The controller's roster, mbx1 enrolled, in the data folder the commands use."""
    data = tmp_path / "controller"
    monkeypatch.setenv("JETWISE_DATA_DIR", str(data))
    enrolled = Roster(data / "hosts", keys)
    enrolled.add("mbx1", "tls://ctl:8786", tmp_path)
    return enrolled


def test_a_port_in_use_is_said_and_leaves_no_controller_running(roster, busy_port):
    with pytest.raises(PortInUseError) as raised, controller_on(roster, busy_port):
        pytest.fail("the controller listened on a port another program holds")
    assert str(raised.value) == (f"port {busy_port} on this server is in use by another program: choose another with "
                                 "--port")
    assert not [thread for thread in threading.enumerate() if thread.name == "jetwise-controller"]


@pytest.mark.parametrize("command", [["hosts", "check", "--timeout", "5"], ["run", "{config}", "--hosts", "mbx1", "--output", "{run}"]])
def test_a_command_on_a_port_in_use_ends_before_listening_with_exit_2(roster, busy_port, tmp_path, capsys, command):
    config = tmp_path / "dag.json"
    save_config(good_config(tmp_path), config)
    arguments = [part.format(config=config, run=tmp_path / "run") for part in command] + ["--port", str(busy_port)]
    assert run_cli(arguments) == ExitCode.INVALID
    err = capsys.readouterr().err
    assert f"error: port {busy_port} on this server is in use by another program: choose another with --port" in err
    assert "Traceback" not in err and "failed to start" not in err


def test_the_engine_process_refuses_a_port_in_use_for_the_window(roster, busy_port, tmp_path, capsys):
    config = tmp_path / "dag.json"
    save_config(good_config(tmp_path), config)
    code = run_cli(["engine", str(config), "--output", str(tmp_path / "run"), "--hosts", "mbx1", "--port", str(busy_port)])
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == ExitCode.INVALID
    refusal = next(event for event in events if event["event"] == "refusal")
    assert [problem["message"] for problem in refusal["problems"]] == [
        f"port {busy_port} on this server is in use by another program: choose another with --port"]


def test_an_agent_on_a_port_in_use_says_so_and_exits_2(roster, tmp_path):
    port = free_port()
    server = enrolled(roster, tmp_path, "127.0.0.2", f"tls://127.0.0.1:{port}")
    with socket.socket() as other, controller_on(roster, port):
        other.bind(("127.0.0.2", 0))
        other.listen()
        held = int(other.getsockname()[1])
        done = jetwise(server, "agent", "--once", "--listen", "127.0.0.2", "--port", str(held), timeout=90)
    assert done.returncode == ExitCode.INVALID, done.stdout + done.stderr
    assert f"error: port {held} on this server is in use by another program: choose another with --port" in done.stderr
    assert "unexpected error" not in done.stderr
