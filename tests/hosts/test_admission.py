"""The controller admits an agent only for the host its certificate names, at the same event protocol, and never into a
running test; an agent that asks is told why, and a worker that does not ask is refused when it registers."""

from __future__ import annotations

import asyncio
import os
import pickle
import re
import socket
import struct
import threading

import pytest
from distributed import Client, Worker
from distributed.core import rpc

from engine.hosts.admission import Admission
from engine.hosts.agent import AgentRefusedError, ControllerAbsentError, handshake, serve
from engine.hosts.controller import Controller
from engine.hosts.membership import Membership, enrol
from engine.hosts.roster import Roster
from engine.hosts.tls import HostSecurity
from engine.protocol import PROTOCOL_VERSION

pytestmark = pytest.mark.slow  # a controller and agents in this process, over mutual TLS


def _cert(role: str, host: str) -> dict:
    return {"subject": ((("organizationName", "Jetwise"),), (("organizationalUnitName", role),), (("commonName", host),))}


def test_the_rule_names_why():
    rule = Admission()
    assert rule.reason(_cert("agent", "mbx1"), "mbx1", PROTOCOL_VERSION) is None
    assert rule.reason(_cert("agent", "mbx1"), "mbx2", PROTOCOL_VERSION) == "the certificate is mbx1's, not mbx2's"
    assert "only an agent's certificate" in (rule.reason(_cert("controller", "controller"), "controller",
                                                         PROTOCOL_VERSION) or "")
    assert "speaks event protocol 3, the controller" in (rule.reason(_cert("agent", "mbx1"), "mbx1", 3) or "")
    rule.running = True
    assert "joins the next test" in (rule.reason(_cert("agent", "mbx1"), "mbx1", PROTOCOL_VERSION) or "")


def test_an_agent_is_admitted_by_its_certificate_and_refused_into_a_running_test(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    with Controller(roster, host="127.0.0.1", port=0) as controller:
        enrolled = roster.add("127.0.0.2", controller.address, tmp_path)
        membership = enrol(enrolled.bundle, enrolled.code, tmp_path / "agent", keys)
        identity = membership.identity(keys)

        impostor = Membership(**{**membership.model_dump(), "host": "127.0.0.9"})  # mbx1's certificate, another name
        with pytest.raises(AgentRefusedError, match=re.escape("the certificate is 127.0.0.2's, not 127.0.0.9's")):
            asyncio.run(serve(impostor, identity, tmp_path / "runs", listen="127.0.0.2"))

        async def unasked() -> None:  # a worker that does not ask, at another protocol: refused as it registers
            security = HostSecurity(membership.authority_pem, identity)
            worker = Worker(membership.controller, security=security, name="127.0.0.2", nthreads=1, host="127.0.0.2",
                            dashboard=False, startup_information={"jetwise": lambda _w: {"protocol": 3}})
            with pytest.raises(Exception):  # noqa: B017 - Dask wraps the refusal in its own start failure
                await worker
            await worker.close()

        asyncio.run(unasked())
        assert any("speaks event protocol 3" in said for said in controller.admission.refused)
        assert controller.agents() == {}

        controller.admission.running = True
        with pytest.raises(AgentRefusedError, match="joins the next test, not this one"):
            asyncio.run(serve(membership, identity, tmp_path / "runs", listen="127.0.0.2"))
        assert controller.agents() == {}


def test_an_agent_s_certificate_makes_neither_the_controller_nor_another_server_run_anything(tmp_path, keys):
    """Every certificate of the authority passes the handshake; an agent's (here 127.0.0.3's, as a thief of that
    server's key would hold it) is refused as a Dask client, refused a broadcast by the controller's scheduler and
    refused by another agent's worker, each said on the side that refused; the controller still runs work there."""
    roster = Roster(tmp_path / "hosts", keys)
    with Controller(roster, host="127.0.0.1", port=0) as controller:
        mine, thief = (roster.add(host, controller.address, tmp_path) for host in ("127.0.0.2", "127.0.0.3"))
        agent = enrol(mine.bundle, mine.code, tmp_path / "agent-2", keys)
        stolen = enrol(thief.bundle, thief.code, tmp_path / "agent-3", keys)
        said: list[str] = []
        serving = threading.Thread(target=lambda: asyncio.run(serve(
            agent, agent.identity(keys), tmp_path / "runs", listen="127.0.0.2", on_refused=said.append)), daemon=True)
        serving.start()
        worker = controller.wait_for(["127.0.0.2"], 60)["127.0.0.2"]
        security = HostSecurity(stolen.authority_pem, stolen.identity(keys))

        async def ask(address: str, op: str, **message: object) -> object:
            arguments = security.get_connection_args("client")  # type: ignore[no-untyped-call]
            async with rpc(address, connection_args=arguments) as peer:  # type: ignore[no-untyped-call]
                return await getattr(peer, op)(**message)

        with pytest.raises(PermissionError, match="the controller answers 'broadcast' to the controller only"):
            asyncio.run(ask(controller.address, "broadcast", msg={"op": "run", "function": pickle.dumps(os.getpid)}))
        with pytest.raises(Exception):  # noqa: B017 - Dask's client fails its start in its own words
            Client(controller.address, security=security, timeout=5)  # type: ignore[no-untyped-call]
        with pytest.raises(PermissionError, match=re.escape("the agent 127.0.0.2 answers 'run' to the controller only")):
            asyncio.run(ask(worker, "run", function=pickle.dumps(os.getpid)))
        assert any("'broadcast'" in words and "an agent's certificate" in words for words in controller.admission.refused)
        assert any("'register-client'" in words for words in controller.admission.refused)
        assert any("'run'" in words and "an agent's certificate" in words for words in said)
        # the controller's own certificate is answered, through its scheduler, on the agent's worker
        assert controller.client.run(os.getpid, workers=[worker]) == {worker: os.getpid()}  # type: ignore[no-untyped-call]
    serving.join(timeout=30)
    assert not serving.is_alive()


def test_a_controller_that_resets_the_connection_as_it_is_made_is_waited_for_not_an_agent_s_end(tmp_path, keys):
    """Between two tests the controller's port may accept and reset at once (one controller ending, the next
    beginning): the agent waits and tries again, as when nothing answers, instead of stopping."""
    roster = Roster(tmp_path / "hosts", keys)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"tls://127.0.0.1:{listener.getsockname()[1]}"
        added = roster.add("127.0.0.2", address, tmp_path)
        membership = enrol(added.bundle, added.code, tmp_path / "agent", keys)

        def reset_each() -> None:
            connection, _ = listener.accept()
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            connection.close()  # an RST, not a FIN

        threading.Thread(target=reset_each, daemon=True).start()
        with pytest.raises(ControllerAbsentError, match="closed the connection as it was made"):
            handshake(membership.controller, membership.authority_pem, membership.identity(keys))
