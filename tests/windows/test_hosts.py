"""A test across servers on Windows: the keys in Windows Credential Manager, an agent enrolled with its bundle, and the
controller and the agent over mutual TLS, from the keys the credential store gives back."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from distributed import metrics

from engine.hosts.across import TestAcross
from engine.hosts.agent import host_resource, serve, wait_for_controller
from engine.hosts.controller import Controller
from engine.hosts.keys import KeyStore
from engine.hosts.membership import enrol
from engine.hosts.roster import Roster
from engine.results.across_schema import ACROSS_FILE, HOSTS_FOLDER
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from tests.conftest import small_config
from tests.hosts.conftest import key_names
from tests.windows import under_wine, windows_only

pytestmark = windows_only()


def fine_clock_resync(self) -> None:
    """Dask's Windows clock pairs `time.time()` with `perf_counter()` by waiting for five equal `time.time()` readings,
    as Windows's 15.6 ms clock gives before Python 3.13; Wine's is precise to the microsecond, and Dask's resync never
    ends. Under Wine the lane pairs them from one reading instead; a Windows server runs Dask's own."""
    now, counter = self.base_timer(), time.perf_counter()
    self.delta = now - counter


@pytest.fixture(autouse=True)
def _wine_clock(monkeypatch):
    if under_wine():
        monkeypatch.setattr(metrics._WindowsTime, "resync", fine_clock_resync)


def test_keys_live_in_windows_credential_manager(tmp_path):
    store = KeyStore(f"Jetwise lane {os.getpid()}")
    assert store.where == "Windows Credential Manager"
    pem = "-----BEGIN PRIVATE KEY-----\n" + "A" * 200 + "\n-----END PRIVATE KEY-----\n"  # about an ECDSA key's size
    store.put("agent:test", pem)
    assert store.get("agent:test") == pem
    store.remove("agent:test")
    assert store.get("agent:test") is None


@contextmanager
def _agent_connected(tmp_path: Path) -> Iterator[tuple[Controller, Path]]:
    """A controller and an agent enrolled with its bundle, connected over mutual TLS with its key read back from the
    credential store, in a thread of this process; its runs folder. Afterwards the agent has ended with the controller
    and the keys are removed."""
    keys = KeyStore()
    roster = Roster(tmp_path / "controller" / "hosts", keys)
    try:
        with Controller(roster, host="127.0.0.1", port=0) as controller:
            enrolled = roster.add("127.0.0.2", controller.address, tmp_path)
            membership = enrol(enrolled.bundle, enrolled.code, tmp_path / "server" / "agent", keys)
            assert not enrolled.bundle.exists()
            identity = membership.identity(keys)  # read back from Credential Manager
            wait_for_controller(membership, identity, on_waiting=lambda _words: None)
            runs = tmp_path / "server" / "runs"
            agent = threading.Thread(target=lambda: asyncio.run(serve(membership, identity, runs, listen="127.0.0.2")),
                                     daemon=True)
            agent.start()
            assert list(controller.wait_for(["127.0.0.2"], timeout_s=60)) == ["127.0.0.2"]
            yield controller, runs
        agent.join(timeout=30)
        assert not agent.is_alive()  # the controller closed the test: the agent's worker ended
    finally:
        for data in (tmp_path / "controller", tmp_path / "server"):
            for name in key_names(data):
                keys.remove(name)


def test_an_enrolled_agent_connects_over_mutual_tls_with_its_key_from_the_credential_store(tmp_path):
    with _agent_connected(tmp_path) as (controller, _runs):
        client = controller.client
        assert client is not None
        assert client.submit(os.getpid, resources={host_resource("127.0.0.2"): 1}, pure=False).result(30) == os.getpid()


class _Quiet:
    """A front end of a test across servers that shows nothing."""

    def host_event(self, _host: str, _event: object) -> None:
        pass

    def summed(self, _sample: object) -> None:
        pass

    def said(self, _line: str) -> None:
        pass


def test_a_windows_agent_runs_its_part_of_a_test_across_servers_on_real_files(tmp_path):
    """The agent's part on Windows: today's run (its worker processes, in the Windows job object, unbuffered I/O on
    real files) inside a Dask task, waiting at the start gate for the controller's instant, its samples streamed back,
    judged per server and as a whole."""
    with _agent_connected(tmp_path) as (controller, runs):
        config = small_config(tmp_path / "databases", sample_interval_s=1.0, warmup_s=1.0, duration_s=3.0)
        result = TestAcross(controller, {"127.0.0.2": config}, tmp_path / "test", _Quiet()).run()
    assert result.ended_by is None and result.servers[0].outcome in (Outcome.PASS, Outcome.FAIL), result.reasons
    own, copy = runs / result.test_id, tmp_path / "test" / HOSTS_FOLDER / "127.0.0.2"
    assert read_result(own) == read_result(copy)
    assert len(read_samples(own)) == len(read_samples(copy)) >= 4  # a warm-up second and three measured
    assert (tmp_path / "test" / ACROSS_FILE).is_file()
