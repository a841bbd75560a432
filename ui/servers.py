"""File → Servers…: the servers a test across servers runs on, as this controller keeps them.

Add a server (its one-time enrolment bundle written, the code that opens it and its certificate's fingerprint shown
once, to type and compare on the server), remove one (its certificate refused from then on), and check the
connections: the window listens as the controller until every enrolled agent has connected or the time is up, and
shows each server connected with its certificate's fingerprint, or not yet, with every refusal it saw. The check runs
off the GUI thread; nothing here blocks the window.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from html import escape
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.hosts.enrolment import BUNDLE_SUFFIX
from engine.hosts.keys import KeyStore, KeyStoreError
from engine.hosts.logs import CONTROLLER_LOG, log_link_to
from engine.hosts.port import HIGHEST_PORT, LOWEST_PORT, bundle_port, controller_endpoint, controller_on
from engine.hosts.roster import CONTROLLER_PORT, Enrolled, Roster, RosterError
from engine.hosts.trust import fingerprint
from engine.model.host_names import host_problem
from engine.store.paths import hosts_folder
from ui.widgets.style import laid_out, wrapped
from ui.workers import BackgroundCheck

CHECK_S = 60.0  # how long a connection check listens for the agents


@dataclass(frozen=True)
class Checked:
    """A connection check's answer: each server that connected, with its address, and what was refused."""

    connected: dict[str, str]
    refusals: list[str]


def check_connections(roster: Roster, hosts: list[str], port: int, timeout_s: float) -> Checked:
    """Listen as the controller until every host's agent connected or `timeout_s` passed (PortInUseError when another
    program holds `port`). Blocks."""
    log_link_to(hosts_folder() / CONTROLLER_LOG)
    with controller_on(roster, port, choose='in "listen on port"') as controller:
        connected = controller.connected_within(hosts, timeout_s)
        return Checked(connected, [refusal.words for refusal in controller.refusals])


class AddServerDialog(QDialog):
    """A server's name, where its agent finds this controller, and where its bundle goes."""

    def __init__(self, parent: QWidget | None = None, port: int = CONTROLLER_PORT) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a server")
        form = QFormLayout(self)
        self.host = QLineEdit(placeholderText="mbx1.contoso.com")
        self.controller = QLineEdit(f"tls://{socket.getfqdn()}:{port}")  # the port the servers dialog listens on
        self.folder = QLineEdit(str(Path.home()))
        self.setMinimumWidth(640)  # an address and a folder read whole, not cut at the field's edge
        form.addRow(wrapped(f"The bundle ({BUNDLE_SUFFIX}) holds the server's one-time certificate: copy it to the "
                            "server and run jetwise agent --enrol with it there, typing the code shown next. Its agent "
                            "connects to the address below, so give one that server reaches this one at."))
        form.addRow("Server (host name or address)", self.host)
        form.addRow("Its agent connects to", self.controller)
        form.addRow(f"Write its bundle ({BUNDLE_SUFFIX}) in", self.folder)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class ServersDialog(QDialog):
    """The enrolled servers, their certificates and whether their agents connect."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Servers of a test across servers")
        self.resize(980, 420)
        self.keys = KeyStore()
        self.status: dict[str, str] = {}  # each server's connection, as the last check found it
        self.intro = wrapped()
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Server", "Enrolled (UTC)", "Certificate fingerprint", "Connection"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a fingerprint keeps its two ends in sight
        header = self.table.horizontalHeader()
        for column in (0, 1, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.message = QLabel(wordWrap=True, textInteractionFlags=Qt.TextInteractionFlag.TextSelectableByMouse)
        self.add_button = QPushButton("Add server…")
        self.remove_button = QPushButton("Remove")
        self.check_button = QPushButton("Check connections")
        self.port = QSpinBox(minimum=LOWEST_PORT, maximum=HIGHEST_PORT, value=CONTROLLER_PORT, prefix="listen on port ")
        close = QPushButton("Close")
        row = laid_out(QHBoxLayout(), self.add_button, self.remove_button, self.check_button, self.port, 1, close)
        laid_out(QVBoxLayout(self), self.intro, self.table, self.message, row)
        self.add_button.clicked.connect(self._ask_to_add)
        self.remove_button.clicked.connect(self._ask_to_remove)
        self.check_button.clicked.connect(self._on_check_button_clicked)
        close.clicked.connect(self.accept)
        self.table.itemSelectionChanged.connect(self._enable)
        self.checking = False
        self.checks = 0
        self.checker = BackgroundCheck(lambda asked: check_connections(*asked), self, delay_ms=0)
        self.checker.finished.connect(self._check_done)
        self.refresh()

    # what is shown ---------------------------------------------------------------------------------------

    def roster(self) -> Roster:
        return Roster(hosts_folder(), self.keys)

    def refresh(self) -> None:
        """The servers as the controller keeps them, with what the last check found."""
        try:
            known = Roster.file_in(hosts_folder())
            hosts = self.roster().hosts() if known is not None else []
            ports = [port for entry in hosts if (port := bundle_port(entry.controller)) is not None]
            if ports and not self.checking:  # Check connections listens where the last bundle sends its agent
                self.port.setValue(ports[-1])
            authority = f" Authority {self.roster().authority_fingerprint}." if known is not None else ""
        except (RosterError, KeyStoreError, OSError) as exc:
            self.say(f"The servers cannot be read: {exc}", error=True)
            hosts, authority = [], ""
        self.intro.setText(f"Each server runs <code>jetwise agent</code>; this window is its controller. Private keys "
                           f"stay in {escape(self.keys.where)}.{escape(authority)}")
        self.table.setRowCount(len(hosts))
        for number, entry in enumerate(hosts):
            cells = (entry.name, f"{entry.enrolled_utc:%Y-%m-%d %H:%M}", fingerprint(entry.cert_pem),
                     self.status.get(entry.name, "not checked"))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(number, column, item)
        if not hosts:
            self.say("No server enrolled yet: Add server… writes the first one's enrolment bundle.")
        self._enable()

    def servers(self) -> list[str]:
        return [self._host_at(row) for row in range(self.table.rowCount())]

    def _host_at(self, row: int) -> str:
        item = self.table.item(row, 0)
        return item.text() if item is not None else ""

    def say(self, text: str, *, error: bool = False) -> None:
        words = escape(text, quote=False)
        self.message.setText(f"<span style='color:#b00020'>{words}</span>" if error else words)

    def _enable(self) -> None:
        self.remove_button.setEnabled(bool(self.table.selectedItems()) and not self.checking)
        self.check_button.setEnabled(bool(self.servers()) and not self.checking)
        self.add_button.setEnabled(not self.checking)

    # add, remove, check ----------------------------------------------------------------------------------

    def _ask_to_add(self) -> None:
        asked = AddServerDialog(self, self.port.value())
        if asked.exec() != QDialog.DialogCode.Accepted:
            return
        self.add(asked.host.text().strip(), asked.controller.text().strip(), Path(asked.folder.text().strip()))

    def add(self, host: str, controller: str, folder: Path) -> Enrolled | None:
        """Enrol `host`: its bundle written in `folder`, its code and fingerprint shown once; None when it cannot be."""
        if not host or not folder.is_dir():
            self.say("Give the server's name: its host name or address, as this controller reaches it." if not host else
                     f"{folder} is not a folder: give the folder to write the bundle in.", error=True)
            return None
        try:  # said before the controller's authority is made
            if (problem := host_problem(host)) is not None:
                raise ValueError(problem)
            controller_endpoint(controller)
        except ValueError as exc:
            self.say(f"{host} was not added: {exc}.", error=True)
            return None
        try:
            enrolled = self.roster().add(host, controller, folder)
        except (RosterError, KeyStoreError, OSError) as exc:
            self.say(f"{host} was not added: {exc}", error=True)
            return None
        self.status.pop(host, None)
        self.refresh()
        self.say(f"Added {host}. Its bundle: {enrolled.bundle}")
        box = QMessageBox(QMessageBox.Icon.Information, f"Enrol {host}", (
            f"<p>Copy <b>{escape(str(enrolled.bundle))}</b> to {escape(host)} and run there:</p>"
            f"<pre>jetwise agent --enrol {escape(enrolled.bundle.name)}</pre>"
            f"<p>One-time code, to type there (it is not written anywhere and is not shown again):</p>"
            f"<p style='font-size:14pt'><b>{escape(enrolled.code)}</b></p>"
            f"<p>Its certificate's fingerprint, to compare with what the agent prints:<br>"
            f"<code>{escape(enrolled.fingerprint)}</code></p>"), QMessageBox.StandardButton.Ok, self)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.open()  # the window's child: it stays up until the engineer closes it
        return enrolled

    def _ask_to_remove(self) -> None:
        rows = sorted({item.row() for item in self.table.selectedItems()})
        if not rows:
            return
        host = self._host_at(rows[0])
        answer = QMessageBox.question(self, f"Remove {host}", f"Remove {host}? Its certificate is refused from now on; "
                                      "to test it again, add it again and enrol its agent with the new bundle.")
        if answer == QMessageBox.StandardButton.Yes:
            self.remove(host)

    def remove(self, host: str) -> None:
        try:
            self.roster().remove(host)
        except (RosterError, KeyStoreError, OSError) as exc:
            self.say(f"{host} was not removed: {exc}", error=True)
            return
        self.status.pop(host, None)
        self.refresh()
        self.say(f"Removed {host}: its certificate is refused from now on.")

    def _on_check_button_clicked(self) -> None:
        self.check()  # not `check` itself: `clicked` passes its checked state, False, which would be a 0 s wait

    def check(self, timeout_s: float = CHECK_S) -> None:
        """Listen for the agents (off the GUI thread); each row says what was found."""
        hosts = self.servers()
        if not hosts or self.checking:
            return
        self.checking = True
        self._enable()
        for host in hosts:
            self.status[host] = "waiting…"
        self.refresh()
        self.say(f"Listening on port {self.port.value()} for up to {timeout_s:g} s: start jetwise agent on each server.")
        self.checks += 1
        self.checker.want(str(self.checks), (self.roster(), hosts, self.port.value(), timeout_s))

    def _check_done(self) -> None:
        self.checking = False
        answer = self.checker.answer
        if not isinstance(answer, Checked):
            self._check_failed(self.checker.error)
            return
        for host in self.servers():
            address = answer.connected.get(host)
            self.status[host] = f"connected from {address}" if address else "did not connect"
        self.refresh()
        missing = [host for host in self.servers() if host not in answer.connected]
        said = "Every agent connected over mutual TLS." if not missing else f"Not connected: {', '.join(missing)}."
        self.say(" ".join([said, *(f"{words[:1].upper()}{words[1:]}." for words in answer.refusals)]), error=bool(missing))

    def _check_failed(self, error: object) -> None:
        for host in self.servers():
            self.status[host] = "not checked"
        self.refresh()
        self.say(f"The check could not listen: {error}", error=True)
