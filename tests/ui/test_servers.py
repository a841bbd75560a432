"""File → Servers…: add a server (its bundle, code and fingerprint), check the connections with an agent really
started, remove it; every failure said in the dialog, never raised."""

from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from engine.hosts.controller import not_answered
from engine.hosts.keys import KeyStore
from engine.hosts.link import Certified, der_of
from engine.hosts.roster import CONTROLLER_PORT, Roster
from engine.store.paths import hosts_folder
from tests.hosts.agents import enrolled, free_port, jetwise, start_agent, stop_all
from tests.hosts.conftest import keys  # noqa: F401 — the fixture that removes the test's keys afterwards
from tests.ui.conftest import open_window
from ui import servers
from ui.servers import CHECK_S, Checked, ServersDialog


@pytest.fixture
def controller_data(tmp_path, monkeypatch):
    """The window's data folder, under the test's folder so its keys are removed after it."""
    folder = tmp_path / "controller"
    monkeypatch.setenv("JETWISE_DATA_DIR", str(folder))
    return folder


def _rows(dialog: ServersDialog) -> list[list[str]]:
    table = dialog.table
    return [[table.item(row, column).text() for column in range(table.columnCount())] for row in range(table.rowCount())]


def test_a_server_is_added_shown_with_its_fingerprint_and_removed(qtbot, tmp_path, controller_data, keys, store):  # noqa: F811
    window = open_window(qtbot, tmp_path, store)
    dialog = window.show_servers()
    assert dialog.table.rowCount() == 0 and "No server enrolled yet" in dialog.message.text()
    assert not dialog.check_button.isEnabled()

    assert dialog.add("", "tls://controller:8786", tmp_path) is None
    assert "Give the server's name" in dialog.message.text()
    assert dialog.add("mbx1", "tls://controller:8786", tmp_path / "missing") is None
    assert "is not a folder" in dialog.message.text()
    assert dialog.add("../x", "tls://controller:8786", tmp_path) is None  # a name, never a path
    assert "'../x' is not a host name or address" in dialog.message.text() and Roster.file_in(hosts_folder()) is None
    assert dialog.add("mbx1", "not a url", tmp_path) is None
    assert "'not a url' is not a controller's address" in dialog.message.text() and Roster.file_in(hosts_folder()) is None

    added = dialog.add("mbx1", "tls://controller:8786", tmp_path)
    assert added is not None and added.bundle.is_file()
    box = next(box for box in dialog.findChildren(QMessageBox) if box.isVisible())
    shown = box.text()  # what the engineer types and compares on the server, shown once
    assert added.code in shown and added.fingerprint in shown and "jetwise agent --enrol mbx1.jwenrol" in shown
    box.close()
    assert _rows(dialog)[0][0] == "mbx1" and _rows(dialog)[0][2] == added.fingerprint
    assert _rows(dialog)[0][3] == "not checked" and dialog.check_button.isEnabled()

    again = ServersDialog()  # opened again: the controller kept it
    assert [row[0] for row in _rows(again)] == ["mbx1"]
    dialog.table.selectRow(0)
    dialog.remove("mbx1")
    assert dialog.table.rowCount() == 0 and "refused from now on" in dialog.message.text()
    kept = Roster(hosts_folder(), KeyStore())  # its certificate is refused from now on, saying why
    removed = Certified("agent", "mbx1", der_of(kept.file.hosts[0].cert_pem))
    assert "a removed host's certificate" in (not_answered(kept, removed) or "")


def _plaintext_refused(port: int) -> bool:
    """Whether a connection without TLS reached the port (and was refused: it closes, answering nothing)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as plain:
            plain.sendall(b"GET / HTTP/1.0\r\n\r\n")
            plain.recv(1)
    except ConnectionRefusedError:
        return False  # not listening yet
    except OSError:
        pass
    return True


@pytest.mark.slow  # an agent in its own process, connecting over mutual TLS
def test_check_connections_shows_the_agent_connected_and_one_that_is_not(qtbot, tmp_path, controller_data, keys):  # noqa: F811
    port = free_port()
    roster = Roster(hosts_folder(), KeyStore())
    server = enrolled(roster, tmp_path, "127.0.0.2", f"tls://127.0.0.1:{port}")
    roster.add("127.0.0.3", f"tls://127.0.0.1:{port}", tmp_path)  # enrolled, its agent never started
    dialog = ServersDialog()
    qtbot.addWidget(dialog)
    dialog.port.setValue(port)
    agent = start_agent(server, "127.0.0.2")
    try:
        dialog.check(timeout_s=10)
        assert dialog.checking and not dialog.check_button.isEnabled() and not dialog.add_button.isEnabled()
        qtbot.waitUntil(lambda: _plaintext_refused(port), timeout=30_000)  # a peer without TLS while it listens
        qtbot.waitUntil(lambda: not dialog.checking, timeout=90_000)
        status = {row[0]: row[3] for row in _rows(dialog)}
        assert status["127.0.0.2"].startswith("connected from tls://127.0.0.2:")
        assert status["127.0.0.3"] == "did not connect" and "Not connected: 127.0.0.3." in dialog.message.text()
        assert "Refused tls://127.0.0.1:" in dialog.message.text() and "no TLS (plaintext)" in dialog.message.text()
        assert agent.wait(timeout=30) == 0  # the check over, the controller closed: the agent stops (--once)
    finally:
        stop_all([agent])
    listed = jetwise(tmp_path / "controller", "hosts", "list").stdout.splitlines()[1:]
    assert [line.split()[0] for line in listed] == ["127.0.0.2", "127.0.0.3"]
    assert "its bundle redeemed" in listed[0] and "from tls://127.0.0.2:" in listed[0]  # at its first contact


def test_the_check_connections_button_listens_its_whole_time(qtbot, tmp_path, controller_data, keys, monkeypatch):  # noqa: F811
    Roster(hosts_folder(), KeyStore()).add("mbx1", "tls://controller:8786", tmp_path)
    asked: list[tuple[list[str], int, float]] = []

    def checked(_roster: Roster, hosts: list[str], port: int, timeout_s: float) -> Checked:
        asked.append((hosts, port, timeout_s))
        return Checked({}, [])

    monkeypatch.setattr(servers, "check_connections", checked)
    dialog = ServersDialog()
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.checker.finished, timeout=10_000):
        qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    assert asked == [(["mbx1"], CONTROLLER_PORT, CHECK_S)]  # the button's check waits as long as a check does
    assert "Not connected: mbx1." in dialog.message.text()


def test_a_check_on_a_port_in_use_says_so_in_the_dialog(qtbot, tmp_path, controller_data, keys):  # noqa: F811
    Roster(hosts_folder(), KeyStore()).add("mbx1", "tls://controller:8786", tmp_path)
    dialog = ServersDialog()
    qtbot.addWidget(dialog)
    with socket.socket() as other:
        other.bind(("", 0))
        other.listen()
        port = other.getsockname()[1]
        dialog.port.setValue(port)
        with qtbot.waitSignal(dialog.checker.finished, timeout=60_000):
            dialog.check(timeout_s=5)
    assert (f"The check could not listen: port {port} on this server is in use by another program: choose another in "
            '"listen on port"') in dialog.message.text()
    assert _rows(dialog)[0][3] == "not checked" and dialog.check_button.isEnabled()


def test_a_check_answers_its_agent_while_a_hostile_peer_sends_a_huge_hello_and_shows_its_words_bounded(
        qtbot, tmp_path, controller_data, keys):  # noqa: F811
    """A peer holding an enrolled server's key sends a 4 MiB hello naming a 4 MiB host while the window checks the
    connections: refused unread, its words shown bounded, and the agent checked meanwhile connects."""
    from engine.hosts.messages import Hello
    from engine.protocol import PROTOCOL_VERSION
    from tests.hosts.hostile import say, stolen

    port = free_port()
    roster = Roster(hosts_folder(), KeyStore())
    server = enrolled(roster, tmp_path, "127.0.0.2", f"tls://127.0.0.1:{port}")
    roster.add("127.0.0.3", f"tls://127.0.0.1:{port}", tmp_path)
    thief = stolen(roster, "127.0.0.3")
    dialog = ServersDialog()
    qtbot.addWidget(dialog)
    dialog.port.setValue(port)
    huge = Hello.model_construct(kind="hello", host="h" * (4 * 1024 * 1024), protocol=PROTOCOL_VERSION,
                                 request_pem=None).model_dump_json()
    agent = start_agent(server, "127.0.0.2")
    try:
        dialog.check(timeout_s=10)
        qtbot.waitUntil(lambda: _listening(port), timeout=30_000)
        heard = say(f"tls://127.0.0.1:{port}", roster.file.authority_pem, thief, huge, wait_s=10)
        assert heard.code == 1008 and "a first message of 4,194,3" in heard.messages[-1], heard
        qtbot.waitUntil(lambda: not dialog.checking, timeout=90_000)
        status = {row[0]: row[3] for row in _rows(dialog)}
        assert status["127.0.0.2"].startswith("connected from tls://127.0.0.2:")  # answered meanwhile
        message = dialog.message.text()
        assert "a first message of 4,194,3" in message and "where a hello is at most 8,192" in message
        assert "h" * 1000 not in message and len(message) < 4000  # no peer's words shown whole
    finally:
        stop_all([agent])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
