"""`jetwise engine` across servers, as the window starts it: the configuration file names its servers, and the events
are a run's alone (start, phases, intervals, result) after the wait for the agents; a calibration run across servers
measures for its fixed length, every server ending at one instant."""

from __future__ import annotations

import os
import subprocess

import pytest

from engine.model.config import TestConfig
from engine.protocol import (
    ExitCode,
    HelloEvent,
    IntervalEvent,
    PhaseEvent,
    ResultEvent,
    StartEvent,
    WaitingEvent,
    from_json_line,
)
from engine.results.document import read_result
from tests.hosts.agents import HOSTS, JETWISE, stop_all
from tests.hosts.servers import Servers

pytestmark = pytest.mark.slow  # three agents and an engine in their own processes


def test_the_engine_runs_a_test_across_the_servers_its_configuration_names_as_a_run(tmp_path, keys):
    servers = Servers(tmp_path, keys, duration_s=30.0)
    servers.start_agents(once=True)
    try:
        config = TestConfig.model_validate_json(servers.files[HOSTS[0]].read_text(encoding="utf-8"))
        across = TestConfig.model_validate({**config.model_dump(mode="json"),
                                            "servers": [{"host": host} for host in HOSTS]})
        path = tmp_path / "across.json"
        path.write_text(across.model_dump_json(indent=1), encoding="utf-8")
        output = tmp_path / "run"
        done = subprocess.run([*JETWISE, "engine", str(path), "--output", str(output), "--session", "across",
                               "--calibrate", "12s", "--port", str(servers.port), "--wait", "90s",
                               "--simulate", "sas-8x10k"],
                              capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                              env=dict(os.environ, JETWISE_DATA_DIR=str(servers.controller)))
        assert done.returncode in (ExitCode.PASS, ExitCode.FAIL), done.stderr
        events = [from_json_line(line) for line in done.stdout.splitlines() if line.strip()]
        kinds = [type(event) for event in events]
        assert kinds[0] is HelloEvent and WaitingEvent in kinds and PhaseEvent in kinds and IntervalEvent in kinds
        assert kinds.index(WaitingEvent) < kinds.index(StartEvent) < kinds.index(ResultEvent)
        start = next(event for event in events if isinstance(event, StartEvent))
        assert start.session == "across"  # kept in the tuning session like any run
        result = next(event.result for event in events if isinstance(event, ResultEvent))
        assert [server.host for server in result.servers] == HOSTS and result == read_result(output)
        # a fixed length, no settle rule: every measured sample of the shaped run is judged
        measured = [event.sample for event in events if isinstance(event, IntervalEvent) and event.sample.phase == "measure"]
        shaped = result.configuration
        assert shaped.warmup_s < config.warmup_s + 10 and len(measured) == round(shaped.duration_s / shaped.sample_interval_s)
        assert result.summary.measured_s == pytest.approx(shaped.duration_s, abs=shaped.sample_interval_s)
        names = set(measured[-1].instances)
        assert names == {f"{host} Instance {n}" for host in HOSTS for n in (1, 2)}
    finally:
        stop_all(list(servers.agents.values()))
