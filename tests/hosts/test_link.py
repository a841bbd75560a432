"""The link tells a busy agent from a frozen one: its pings are answered by the link itself, however long the agent
takes to read what comes; an agent that answers nothing is lost within the silence limit, and said."""

from __future__ import annotations

import asyncio
import ssl
import time

import pytest
from websockets.asyncio.client import connect

from engine.hosts.controller import Controller
from engine.hosts.link import SILENT_S
from engine.hosts.messages import Hello
from engine.hosts.roster import Roster
from engine.hosts.tls import context
from engine.protocol import PROTOCOL_VERSION
from tests.hosts.hostile import stolen

pytestmark = pytest.mark.slow  # a controller and two agents' links in this process, over mutual TLS
BUSY, FROZEN = "127.0.0.2", "127.0.0.3"


def test_a_busy_agent_stays_while_a_frozen_one_is_lost_within_the_silence_limit(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    with Controller(roster, host="127.0.0.1", port=0) as controller:
        for host in (BUSY, FROZEN):
            roster.add(host, controller.address, tmp_path)
        identities = {host: stolen(roster, host) for host in (BUSY, FROZEN)}
        gone: dict[str, float] = {}

        async def agents() -> None:
            links = {}
            for host, identity in identities.items():
                tls = context(ssl.Purpose.SERVER_AUTH, roster.file.authority_pem, identity)
                links[host] = await connect(controller.address.replace("tls://", "wss://") + "/", ssl=tls,
                                            local_addr=(host, 0), ping_interval=None, compression=None)
                await links[host].send(Hello(host=host, protocol=PROTOCOL_VERSION).model_dump_json())
                await links[host].recv()  # welcomed
            # the busy one reads nothing for twice the silence limit (its run's threads busy); its link still answers
            # the controller's pings. The frozen one reads nothing off its socket at all, as a stopped process.
            links[FROZEN].transport.pause_reading()
            frozen_at = time.monotonic()
            while time.monotonic() - frozen_at < 2 * SILENT_S:
                if FROZEN not in controller.agents() and FROZEN not in gone:
                    gone[FROZEN] = time.monotonic() - frozen_at
                await asyncio.sleep(0.05)
            assert BUSY in controller.agents()
            for link in links.values():
                link.transport.abort()

        asyncio.run(agents())
    assert SILENT_S <= gone[FROZEN] < SILENT_S + 1.0, gone
    said = [refusal.words for refusal in controller.refusals]
    assert not said  # a lost link is no refusal: the test says it, naming the server (tests/hosts/test_across.py)
