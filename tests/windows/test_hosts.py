"""A test across servers on Windows: the keys in Windows Credential Manager, an agent enrolled with its bundle, and the
controller and the agent over mutual TLS, from the keys the credential store gives back."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.hosts.agent import serve
from engine.hosts.controller import Controller
from engine.hosts.keys import KeyStore
from engine.hosts.membership import enrol, membership_in
from engine.hosts.roster import Roster
from engine.model.profile import ServerPart
from engine.results.document import read_result, read_samples
from engine.results.schema import Outcome
from engine.run.runner import Runner
from engine.run.sources.servers import HostsSource
from tests.conftest import small_config
from tests.hosts.conftest import key_names
from tests.windows import windows_only

pytestmark = windows_only()


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
            runs = tmp_path / "server" / "runs"

            def redeemed(cert_pem: str, key_pem: str) -> None:  # kept in Credential Manager, in place of the bundle's
                membership.redeem(cert_pem, key_pem, tmp_path / "server" / "agent", keys)

            agent = threading.Thread(target=lambda: asyncio.run(serve(membership, identity, runs, on_redeemed=redeemed,
                                                                      listen="127.0.0.2")), daemon=True)
            agent.start()
            assert list(controller.wait_for(["127.0.0.2"], timeout_s=60)) == ["127.0.0.2"]
            yield controller, runs
        agent.join(timeout=30)
        assert not agent.is_alive()  # the controller closed the test: the agent's link ended
    finally:
        for data in (tmp_path / "controller", tmp_path / "server"):
            for name in key_names(data):
                keys.remove(name)


def test_an_enrolled_agent_connects_over_mutual_tls_with_its_key_from_the_credential_store(tmp_path):
    with _agent_connected(tmp_path) as (controller, _runs):
        assert controller.agents()["127.0.0.2"].startswith("tls://127.0.0.2:")
        offset = controller.clock_offset("127.0.0.2")  # read over the link: one machine's clock, near 0
        assert offset is not None and abs(offset) < 0.5
        redeemed = KeyStore().get(membership_in(tmp_path / "server" / "agent").key_name)  # type: ignore[union-attr]
        assert redeemed is not None and membership_in(tmp_path / "server" / "agent").redeemed  # type: ignore[union-attr]


def test_a_windows_agent_runs_its_part_of_a_test_across_servers_on_real_files(tmp_path):
    """The agent's part on Windows: today's run (its worker processes, in the Windows job object, unbuffered I/O on
    real files) at the controller's word over its link, waiting at the start gate for the controller's instant, its samples streamed back,
    judged per server and as a whole."""
    with _agent_connected(tmp_path) as (controller, runs):
        config = small_config(tmp_path / "databases", sample_interval_s=1.0, warmup_s=1.0, duration_s=3.0)
        across = config.model_copy(update={"servers": [ServerPart(host="127.0.0.2")]})
        result = Runner(across, tmp_path / "test", lambda _event: None, source=HostsSource(controller)).run()
    share = result.servers[0]
    assert share.end is None and share.summary is not None and share.summary.verdict in (Outcome.PASS, Outcome.FAIL)
    own, copy = runs / result.run_id, tmp_path / "test" / "hosts" / "127.0.0.2"
    assert read_result(own) == read_result(copy)
    assert len(read_samples(own)) == len(read_samples(copy)) >= 4  # a warm-up second and three measured
    assert len(read_samples(tmp_path / "test")) == len(read_samples(own))  # the test's samples: the server's, added
