"""The controller admits an agent only for the host its certificate names, at the same event protocol, and never into a
running test; an agent that asks is told why, and a worker that does not ask is refused when it registers."""

from __future__ import annotations

import asyncio
import re

import pytest
from distributed import Worker

from engine.hosts.admission import Admission
from engine.hosts.agent import AgentRefusedError, serve
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
