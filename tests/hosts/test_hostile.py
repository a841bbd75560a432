"""A peer holding one agent's certificate and key (as whoever took that server would) runs nothing anywhere and speaks
for no other server: pickled frames, another host's name, messages out of turn or too large, a removed key, a copied
bundle, posing as the controller, no TLS, no certificate, another authority's: each refused and said on the controller
(who, from which address, why), in the test's log when a test runs, and nothing of it filed."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
from datetime import UTC, datetime

import pytest
from websockets.asyncio.server import ServerConnection, serve

from engine.hosts.agent import serve as serve_agent
from engine.hosts.controller import UNCHECKED_BYTES, Controller
from engine.hosts.enrolment import open_bundle
from engine.hosts.membership import enrol
from engine.hosts.messages import MAX_MESSAGE_BYTES, ClockReading, Go, Hello, PartEvent, Ready, Welcome
from engine.hosts.roster import Roster
from engine.hosts.tls import context
from engine.hosts.trust import key_request
from engine.protocol import PROTOCOL_VERSION, ExitCode, LogEvent
from engine.results.document import read_result
from engine.results.schema import Outcome
from tests.conftest import small_config
from tests.hosts.agents import JETWISE, enrolled, free_port, jetwise, start_agent, stop_all
from tests.hosts.hostile import pickled, say, self_signed, stolen

pytestmark = pytest.mark.slow  # a controller and hostile peers over mutual TLS, agents in their own processes
MINE, THIEF = "127.0.0.2", "127.0.0.3"


def _hello(host: str = THIEF) -> str:
    return Hello(host=host, protocol=PROTOCOL_VERSION).model_dump_json()


def _none_connected(controller: Controller, within_s: float = 10.0) -> bool:
    """Whether no agent is connected, once the links the controller closed have ended (within `within_s`)."""
    deadline = time.monotonic() + within_s
    while controller.agents() and time.monotonic() < deadline:
        time.sleep(0.05)
    return controller.agents() == {}


def test_one_agent_s_key_makes_the_controller_run_nothing_and_speaks_for_no_other_host(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    said: list[str] = []
    ran = tmp_path / "ran"  # made by whoever unpickles the hostile's frames
    with Controller(roster, host="127.0.0.1", port=0, said=said.append) as controller:
        address = controller.address
        for host in (MINE, THIEF):
            roster.add(host, address, tmp_path)
        thief, authority = stolen(roster, THIEF), roster.file.authority_pem

        # code: a Dask peer's pickled frame, as the first word and after a good hello, as bytes and as text
        for words in ([pickled(ran)], [pickled(ran).decode("latin-1")], [_hello(), pickled(ran)],
                      [_hello(), '{"op": "run", "function": {"__Pickled__": "gASVKAAAAAAAAACMAm9zlIwGc3lzdGVtlJOU"}}']):
            heard = say(address, authority, thief, *words)
            assert heard.code == 1008 and "refused" in heard.messages[-1], heard
        assert not ran.exists()

        # another host's name: refused, and that host is not registered
        heard = say(address, authority, thief, _hello(MINE))
        assert heard.code == 1008 and "it names 127.0.0.2, and its certificate is 127.0.0.3's" in heard.reason, heard
        assert _none_connected(controller)

        # out of turn: a test's messages with no test running, a clock reading never asked for, a second hello, a
        # controller's word
        for message in (Ready(test_id="t1"), ClockReading(number=7, time_s=0.0), Hello(host=THIEF, protocol=0),
                        Go(test_id="t1", at_s=0.0)):
            heard = say(address, authority, thief, _hello(), message.model_dump_json())
            assert heard.code == 1008 and '"kind":"welcome"' in heard.messages[0], heard
        assert _none_connected(controller)  # each closed

        # larger than the link takes: closed before it is read
        heard = say(address, authority, thief, _hello(), "x" * (MAX_MESSAGE_BYTES + 1))
        assert heard.code == 1009, heard

        # no certificate; another authority's certificate (a stranger that trusts this controller's authority)
        assert say(address, authority, None, _hello()).error
        foreign = Roster(tmp_path / "other" / "hosts", keys)
        foreign.add(THIEF, address, tmp_path / "other")
        assert say(address, authority, stolen(foreign, THIEF), _hello()).error

        # no TLS at all
        with socket.create_connection(("127.0.0.1", int(address.rsplit(":", 1)[1])),
                                      source_address=(THIEF, 0)) as plain:
            plain.sendall(b'{"op": "register-worker"}\r\n\r\n')
            try:
                answered = plain.recv(100)
            except ConnectionResetError:
                answered = b""
            assert answered == b""  # closed, answered nothing

        # TLS with the thief's key, then no WebSocket: an HTTP request of another protocol
        tls = context(ssl.Purpose.SERVER_AUTH, authority, thief)
        with socket.create_connection(("127.0.0.1", int(address.rsplit(":", 1)[1])), source_address=(THIEF, 0)) as raw, \
                tls.wrap_socket(raw, server_hostname=None) as wrapped:
            wrapped.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\n\r\n")
            assert b"Upgrade" not in wrapped.recv(4096)  # no link: an HTTP error at most, then closed

        # a removed host's key
        roster.remove(THIEF)
        heard = say(address, authority, thief, _hello())
        assert heard.code == 1008 and "its host was removed from the controller's servers" in heard.reason, heard

    words = [refusal.words for refusal in controller.refusals]
    assert said == words  # each said as it happened
    from_thief = f"refused the agent {THIEF} from tls://{THIEF}:"
    for why in ("a binary message", "a message that is not the link's", "it names 127.0.0.2, and its certificate is "
                "127.0.0.3's", "a 'ready' message of test t1, which it is not running",
                "a clock reading the controller did not ask for", "a second hello", "it sent a message larger than 16 MiB"):
        assert any(w.startswith(from_thief) and why in w for w in words), (why, words)
    assert any(w.startswith(f"refused a peer holding {THIEF}'s certificate from tls://{THIEF}:") and "its host was "
               "removed from the controller's servers" in w for w in words), words
    assert any(w.startswith(f"refused tls://{THIEF}:") and "no certificate" in w for w in words), words
    assert any(w.startswith(f"refused tls://{THIEF}:") and "another authority" in w for w in words), words
    assert any(w.startswith(f"refused tls://{THIEF}:") and "no TLS (plaintext)" in w for w in words), words
    assert any(w.startswith(f"refused the agent {THIEF} from tls://{THIEF}:") and "it speaks no WebSocket" in w
               for w in words), words
    assert any("'go'" in w for w in words), words  # a controller's word from an agent: not the link's


def test_a_flood_faster_than_the_controller_checks_it_is_refused_before_it_fills_the_controller_s_memory(
        tmp_path, keys, monkeypatch):
    """A thief with a valid key that sends more than the controller has checked, by `UNCHECKED_BYTES`: refused and
    said, its link closed, what it sent beyond read no further."""
    checking, checked = threading.Event(), []
    original = Controller._checked

    def held(self: Controller, agent: object, text: str | bytes) -> None:  # the checking thread, busy
        checking.wait(30)
        checked.append(len(text))
        original(self, agent, text)  # type: ignore[arg-type]

    monkeypatch.setattr(Controller, "_checked", held)
    roster = Roster(tmp_path / "hosts", keys)
    with Controller(roster, host="127.0.0.1", port=0) as controller:
        roster.add(THIEF, controller.address, tmp_path)
        size = MAX_MESSAGE_BYTES - 1024
        flood = ["x" * size] * (UNCHECKED_BYTES // size + 2)
        heard = say(controller.address, roster.file.authority_pem, stolen(roster, THIEF), _hello(), *flood)
        checking.set()
    assert heard.code == 1008 and "faster than the controller could check it (a flood)" in heard.messages[-1], heard
    assert len(checked) <= UNCHECKED_BYTES // size  # what came past the limit was not read on
    assert any(r.words.startswith(f"refused the agent {THIEF} from tls://{THIEF}:") and "a flood" in r.words
               for r in controller.refusals), controller.refusals


def _copied_bundle(tmp_path, keys):
    """A host enrolled with its bundle, which was copied on its way to the server with the code seen over a shoulder:
    the roster, its port, the server's data folder and the copy, opened."""
    roster = Roster(tmp_path / "hosts", keys)
    port = free_port()
    added = roster.add(MINE, f"tls://127.0.0.1:{port}", tmp_path)
    copy = tmp_path / "copy" / added.bundle.name
    copy.parent.mkdir()
    shutil.copy(added.bundle, copy)
    server = tmp_path / "server"
    assert jetwise(server, "agent", "--enrol", str(added.bundle), "--code", added.code).returncode == 0
    return roster, port, server, open_bundle(copy, added.code)


def test_a_copied_bundle_is_refused_once_its_agent_redeemed_it_and_said_on_both_sides(tmp_path, keys):
    roster, port, server, copied = _copied_bundle(tmp_path, keys)
    with Controller(roster, host="127.0.0.1", port=port) as controller:
        agent = start_agent(server, MINE)
        try:
            controller.wait_for([MINE], 60)  # its agent redeemed the bundle at its first contact
            request, _key = key_request(MINE)
            heard = say(controller.address, roster.file.authority_pem, copied.identity,
                        Hello(host=MINE, protocol=PROTOCOL_VERSION, request_pem=request).model_dump_json())
            assert list(controller.agents()) == [MINE]
        finally:
            stop_all([agent])
    assert heard.code == 1008 and "enrolment bundle was redeemed already" in heard.messages[-1], heard
    assert f"from tls://{MINE}:" in heard.messages[-1] and "this is a copy of it" in heard.messages[-1]
    assert any(r.words.startswith(f"refused a peer holding {MINE}'s certificate from tls://{THIEF}:") and
               "redeemed already" in r.words for r in controller.refusals), controller.refusals


def test_a_copied_bundle_connected_before_its_agent_s_first_contact_is_refused_at_its_hello_and_the_agent_stays(
        tmp_path, keys):
    """A copy that connects with the bundle's certificate while it is still good, and says its hello only once the
    genuine agent has redeemed the bundle: its certificate is judged again as it is admitted, refused as a copy, and
    the genuine agent stays connected."""
    roster, port, server, copied = _copied_bundle(tmp_path, keys)
    with Controller(roster, host="127.0.0.1", port=port) as controller:
        agent = start_agent(server, MINE)
        try:
            heard = say(controller.address, roster.file.authority_pem, copied.identity, _hello(MINE),
                        until=lambda: MINE in controller.agents())  # connected first, says its hello after
            assert MINE in controller.agents() and agent.poll() is None
        finally:
            stop_all([agent])
    assert heard.code == 1008 and "enrolment bundle was redeemed already" in heard.messages[-1], heard
    assert "this is a copy of it" in heard.messages[-1]


def test_a_host_removed_while_the_controller_runs_is_refused_within_seconds_and_its_link_closed(tmp_path, keys):
    roster = Roster(tmp_path / "hosts", keys)
    port = free_port()
    server = enrolled(roster, tmp_path, MINE, f"tls://127.0.0.1:{port}")
    with Controller(roster, host="127.0.0.1", port=port) as controller:
        agent = start_agent(server, MINE, once=False)
        try:
            controller.wait_for([MINE], 60)
            Roster(tmp_path / "hosts", keys).remove(MINE)  # another process's roster: the controller's file changes
            assert _none_connected(controller, within_s=10), controller.agents()
            words = [r.words for r in controller.refusals]
            assert any(f"refused the agent {MINE} from tls://{MINE}:" in w and "a removed host's certificate" in w
                       for w in words), words
            assert agent.stdout is not None
            assert agent.wait(timeout=30) == ExitCode.INVALID  # its own controller refused it: it ends
            said = agent.stderr.read() if agent.stderr is not None else ""
        finally:
            stop_all([agent])
    assert "the controller refused this agent: a removed host's certificate" in said, said


def test_an_agent_answers_no_peer_but_its_controller_whose_certificate_it_pinned_and_waits_for_it(tmp_path, keys):
    """A server holding another agent's certificate of the same authority, then one with a certificate of its own
    making and no Jetwise key, where the agent looks for its controller: the agent says to neither, says once why it
    refused each, and goes on waiting; its own controller, when it comes, it joins."""
    roster = Roster(tmp_path / "hosts", keys)
    port = free_port()
    roster.add(THIEF, f"tls://127.0.0.1:{port}", tmp_path)
    thief = stolen(roster, THIEF)
    server = enrolled(roster, tmp_path, MINE, f"tls://127.0.0.1:{port}")
    heard: list[str] = []

    def posing(tls: ssl.SSLContext) -> tuple[threading.Thread, threading.Event, threading.Event]:
        listening, done = threading.Event(), threading.Event()

        async def pose() -> None:
            async def handler(ws: ServerConnection) -> None:
                async for message in ws:
                    heard.append(str(message))

            async with serve(handler, "127.0.0.1", port, ssl=tls):
                listening.set()
                await asyncio.to_thread(done.wait)

        thread = threading.Thread(target=lambda: asyncio.run(pose()), daemon=True)
        thread.start()
        assert listening.wait(30)
        return thread, listening, done

    def said_until(agent: subprocess.Popen[str], words: str) -> list[str]:
        assert agent.stdout is not None
        lines = []
        for line in agent.stdout:
            lines.append(line)
            if words in line:
                return lines
        raise AssertionError(f"the agent ended without saying {words!r}: {''.join(lines)}")

    impostor, _listening, done = posing(context(ssl.Purpose.CLIENT_AUTH, roster.file.authority_pem, thief))
    agent = start_agent(server, MINE, once=True)
    try:
        lines = said_until(agent, "is not this agent's controller: it holds the agent certificate of 127.0.0.3")
        assert "nothing was sent to it" in lines[-1] and heard == []
        done.set()
        impostor.join(timeout=30)
        stranger, _listening, done = posing(self_signed())
        lines = said_until(agent, "is not this agent's controller: its certificate is not of this agent's authority")
        assert "nothing was sent to it" in lines[-1] and heard == []
        time.sleep(3)  # it tries again and again meanwhile, and says each reason once
        done.set()
        stranger.join(timeout=30)
        assert agent.poll() is None, "the agent ended at a peer that is not its controller"
        with Controller(roster, host="127.0.0.1", port=port) as controller:
            assert MINE in controller.wait_for([MINE], timeout_s=30)
        assert agent.wait(timeout=30) == 0
        rest = agent.stdout.read() if agent.stdout is not None else ""
    finally:
        stop_all([agent])
    assert rest.count("is not this agent's controller") == 0, rest  # each said once, before
    assert heard == []


def test_a_hostile_agent_during_a_test_is_said_on_the_console_and_in_the_test_s_log_and_nothing_of_it_is_filed(
        tmp_path, keys):
    port = free_port()
    data = tmp_path / "controller"
    roster = Roster(data / "hosts", keys)
    server = enrolled(roster, tmp_path, MINE, f"tls://127.0.0.1:{port}")
    roster.add(THIEF, f"tls://127.0.0.1:{port}", tmp_path)
    thief = stolen(roster, THIEF)
    config = tmp_path / "mine.json"
    config.write_text(small_config(tmp_path / "databases", sample_interval_s=1.0, warmup_s=1.0,
                                   duration_s=6.0).model_dump_json(indent=1), encoding="utf-8")
    agent = start_agent(server, MINE)
    output = tmp_path / "test"
    controller = subprocess.Popen([*JETWISE, "run", str(config), "--hosts", MINE, "--port", str(port), "--wait", "60s",
                                   "--output", str(output)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env=dict(os.environ, JETWISE_DATA_DIR=str(data)))
    try:
        assert controller.stderr is not None
        lines = []
        for line in controller.stderr:
            lines.append(line)
            if "[measure " in line:
                break
        test_id = next((server / "agent" / "runs").iterdir()).name
        event = PartEvent(test_id=test_id, event=LogEvent(time=datetime.now(UTC), message="written by the thief"))
        heard = say(f"tls://127.0.0.1:{port}", roster.file.authority_pem, thief, _hello(),
                    Ready(test_id=test_id).model_dump_json(), event.model_dump_json())
        assert "joins the next test" in heard.messages[0] and heard.code == 1008, heard
        _out, rest = controller.communicate(timeout=120)
        err = "".join(lines) + rest
    finally:
        stop_all([controller, agent])
    assert controller.returncode == ExitCode.PASS
    test = read_result(output)
    assert test.summary.verdict == Outcome.PASS and [share.host for share in test.servers] == [MINE]
    assert [p.name for p in (output / "hosts").iterdir()] == [MINE]  # nothing filed for the thief
    assert all(row.name.startswith(f"{MINE} ") for row in test.instances)  # nor measured in the test
    log = (output / "test.log").read_text(encoding="utf-8")
    refusal = f"Refused the agent {THIEF} from tls://{THIEF}:"
    assert refusal in log and f"a 'ready' message of test {test_id}, which it is not running" in log, log
    assert not [path for path in output.rglob("*") if path.is_file() and b"written by the thief" in path.read_bytes()]
    assert refusal in err  # the console says what the log says


def test_an_agent_runs_nothing_its_controller_sends_that_is_not_a_typed_message_in_turn(tmp_path, keys):
    """Even its own controller's words are data to the agent: a pickled frame or a word out of turn ends the link,
    said, and nothing runs."""
    roster = Roster(tmp_path / "hosts", keys)
    port = free_port()
    ran = tmp_path / "ran"
    added = roster.add(MINE, f"tls://127.0.0.1:{port}", tmp_path)
    membership = enrol(added.bundle, added.code, tmp_path / "agent", keys)
    ends: list[str] = []

    async def controller_says(then: str | bytes) -> None:
        async def handler(ws: ServerConnection) -> None:
            hello = Hello.model_validate_json(await ws.recv())
            assert hello.request_pem is not None
            cert = roster.redeem(MINE, hello.request_pem, "tls://127.0.0.2:1")
            await ws.send(Welcome(cert_pem=cert).model_dump_json())
            await ws.send(then)
            await ws.wait_closed()

        tls = context(ssl.Purpose.CLIENT_AUTH, roster.file.authority_pem, roster.controller)
        async with serve(handler, "127.0.0.1", port, ssl=tls):
            said: list[str] = []
            ended = await serve_agent(membership, membership.identity(keys), tmp_path / "runs",
                                      on_redeemed=lambda _cert, _key: None, listen=MINE, said=said.append)
            ends.append(f"{ended} | {' '.join(said)}")

    asyncio.run(controller_says(pickled(ran)))
    asyncio.run(controller_says(Go(test_id="t9", at_s=0.0).model_dump_json()))
    assert not ran.exists() and not (tmp_path / "runs").exists()
    assert "the controller's message was refused: a binary message" in ends[0], ends
    assert "a 'go' for test t9, which this agent is not running" in ends[1], ends
