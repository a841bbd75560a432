"""Page 5, Servers: this server alone, or one test across several enrolled servers, started, measured and stopped
together and judged per server and as a whole.

Each server chosen runs this test's databases through its agent (`jetwise agent`), in this server's folders or in
folders of its own (Folders on the chosen server…, `server_folders`); the servers are enrolled, removed and checked in
File → Servers… (Manage servers…). A test across servers is any test type (a Performance or Stress test at the thread
setting chosen by hand or auto-tuned across them; a checksum, a backup or a Soft Recovery of each server's databases),
or the ESRP qualification with each of its five tests across them. Until a server is enrolled the wizard walks past the
page: a test on this server alone is the usual one, and File → Servers… enrols the first.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
)

from engine.hosts.port import HIGHEST_PORT, LOWEST_PORT
from engine.hosts.roster import CONTROLLER_PORT
from engine.model.config import TestConfig
from engine.model.profile import DatabaseSpec, ServerPart
from ui.widgets.fitting import WrappingRadioButton
from ui.widgets.style import laid_out, tip_button, tipped, wrapped
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.server_folders import ServerFoldersDialog, differs
from ui.wizard.services import ServiceError


class ServersPage(WizardPage):
    NAME = "servers"
    TITLE = "Servers"
    SUBTITLE = "Test this server alone, or several servers on shared storage at once, as a DAG loads it."

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.services = context.services
        self.alone = QRadioButton("This server alone")
        self.across = WrappingRadioButton("Across these servers, started, measured and stopped together (each runs this test's "
                                          "databases through its agent, in these folders or its own)")
        self.alone.setChecked(True)
        self.list = QListWidget()
        self.manage = tip_button("Manage servers…", "Add a server (its enrolment bundle and one-time code), remove "
                                 "one, check the connections", self._manage)
        self.folders_button = tip_button("Folders on the chosen server…", "The database and log folders of the server "
                                         "chosen in the list, where its disks differ from this server's", self._folders)
        self.own: dict[str, list[DatabaseSpec]] = {}  # a server's own database and log folders
        self.named: list[str] = []  # the servers a configuration loaded names, chosen once the list shows them
        # where the window listens for the chosen servers' agents: their bundles' port
        self.port = tipped(QSpinBox(minimum=LOWEST_PORT, maximum=HIGHEST_PORT, value=CONTROLLER_PORT,
                                    prefix="listen for their agents on port "),
                           "The port each chosen server's enrolment bundle tells its agent to connect to")
        self.ports: dict[str, int | None] = {}  # each enrolled server's bundle's port
        self._port_set = False  # the engineer set the port: the servers chosen no longer set it
        self.own_words = wrapped()
        self.folders_dialog: ServerFoldersDialog | None = None  # open while a server's folders are edited
        self.message = wrapped()
        self._failed = ""  # why the servers cannot be read, if they cannot
        note = wrapped("Performance and Stress tests run across the servers; auto-tune across them steps every "
                       "server's load together and reads their summed target (the setting it finds is every server's). "
                       "A checksum, a backup or a Soft Recovery runs on each server's databases at once; the ESRP "
                       "qualification runs each of its five tests across them. The window listens for the agents on "
                       "the port above (the one their bundles name) and waits up to 2 minutes for them to connect: "
                       "Review shows who has, with Cancel.")
        buttons = laid_out(QHBoxLayout(), self.manage, self.folders_button, self.port, 1)
        laid_out(QVBoxLayout(self), self.alone, self.across, self.list, buttons, self.own_words, self.message, note)
        self.alone.toggled.connect(self._changed)
        self.list.itemChanged.connect(lambda _item: self._changed())
        self.list.currentItemChanged.connect(lambda _now, _before: self._changed())
        self.port.valueChanged.connect(self._on_port_value_changed)

    def selected(self) -> list[str]:
        """The servers the test runs across; empty for this server alone."""
        return self._checked() if self.across.isChecked() else []

    def _checked(self) -> list[str]:
        items = [self.list.item(row) for row in range(self.list.count())]
        return [item.text() for item in items if item is not None and item.checkState() == Qt.CheckState.Checked]

    def load_parts(self, parts: list[ServerPart]) -> None:
        """A configuration's servers (none: this server alone), chosen with their own folders."""
        self.own = {part.host: list(part.databases) for part in parts if part.databases}
        self.named = [part.host for part in parts]
        (self.across if parts else self.alone).setChecked(True)
        self.reload()

    def reload(self) -> None:
        """The enrolled servers, each still chosen if it was (or named by the configuration loaded)."""
        chosen = set(self._checked()) | set(self.named)
        try:
            self.ports = self.services.enrolled_servers()
            failed = ""
        except ServiceError as exc:
            self.ports, failed = {}, str(exc)
        names = list(self.ports)
        self.list.blockSignals(True)
        self.list.clear()
        for name in names:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in chosen else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.blockSignals(False)
        self._failed = failed
        self._changed()

    def parts(self) -> list[ServerPart]:
        """The servers chosen, each with its own database and log folders where it has them (none: the test's)."""
        return [ServerPart(host=host, databases=self.own.get(host, [])) for host in self.selected()]

    def with_servers(self, config: TestConfig) -> TestConfig:
        """`config` across the servers chosen (its `servers`), as the engine runs it; itself for this server alone."""
        return TestConfig.model_validate({**config.model_dump(mode="json"),
                                          "servers": [part.model_dump(mode="json") for part in self.parts()]})

    def server_configs(self, config: TestConfig) -> dict[str, TestConfig]:
        """`config` as each chosen server runs it: in its own folders, or in this server's; empty for this server
        alone. Own folders that no longer fit the test (its databases counted again since) are this page's problem
        to say: here the server shows with this server's folders."""
        try:
            across = self.with_servers(config)
        except ValueError:
            return {host: config for host in self.selected()}
        return {host: across.for_server(host) for host in across.server_names}

    def _current_host(self) -> str | None:
        item = self.list.currentItem()
        return item.text() if item is not None and item.checkState() == Qt.CheckState.Checked else None

    def _folders(self) -> None:
        host, config = self._current_host(), self.state.config()
        if host is None or config is None:
            return
        if self.folders_dialog is not None:  # one server's folders at a time
            self.folders_dialog.close()
        dialog = self.folders_dialog = ServerFoldersDialog(host, config, self.own.get(host), self)
        dialog.accepted.connect(lambda: self._set_own(host, config, dialog.specs()))
        dialog.open()

    def _set_own(self, host: str, config: TestConfig, specs: list[DatabaseSpec]) -> None:
        if differs(config, specs):
            self.own[host] = specs
        else:
            self.own.pop(host, None)
        self._changed()

    def _manage(self) -> None:
        self.services.manage_servers(self)
        self.reload()

    def _on_port_value_changed(self) -> None:
        self._port_set = not self.port.signalsBlocked()
        self._changed()

    def _bundles_port(self) -> int | None:
        """The port the chosen servers' bundles name (the last enrolled's where they differ), if they name one."""
        named = [port for host, port in self.ports.items() if host in self.selected() and port is not None]
        return named[-1] if named else None

    def _changed(self) -> None:
        bundles = self._bundles_port()
        if bundles is not None and not self._port_set and bundles != self.port.value():
            self.port.blockSignals(True)
            self.port.setValue(bundles)
            self.port.blockSignals(False)
        self.port.setEnabled(self.across.isChecked())
        if not self.across.isChecked():
            self.named = []
        elif self.list.count():  # the servers the list shows are chosen there now
            self.named = [host for host in self.named if not self.list.findItems(host, Qt.MatchFlag.MatchExactly)]
        self.list.setEnabled(self.across.isChecked())
        self.folders_button.setEnabled(self.across.isChecked() and self._current_host() is not None)
        own = [host for host in self.selected() if host in self.own]
        self.own_words.setText(f"Folders of their own: {', '.join(own)}; the others run in this server's folders."
                               if own else "")
        self.state.clear_refusal()  # what the engine said of the servers chosen before (none connected) is past
        self.message.setText(self.problem() or "")
        self.message.setStyleSheet("color: #b00020" if self.problem() else "")
        self.completeChanged.emit()

    def problem(self) -> str | None:
        """Why Next waits, in words; None when it need not."""
        if not self.across.isChecked():
            return None
        if self._failed:
            return self._failed
        if self.list.count() == 0:
            return "No server is enrolled yet: Manage servers… adds one (its agent enrols with the bundle written)."
        if self.named:  # what the list does not show
            return (f"{', '.join(self.named)}, named by the configuration loaded, "
                    f"{'is' if len(self.named) == 1 else 'are'} not enrolled: Manage servers… adds a server, or choose "
                    "others.")
        if not self.selected():
            return "Choose the servers the test runs across."
        elsewhere = [f"{host}'s on port {port}" for host, port in self.ports.items()
                     if host in self.selected() and port is not None and port != self.port.value()]
        if elsewhere:
            return (f"Their bundles tell their agents to connect elsewhere ({', '.join(elsewhere)}): listen on that "
                    "port, or enrol them again for this one (Manage servers…).")
        config = self.state.config()
        for host in self.selected():
            if config is not None and host in self.own and len(self.own[host]) != config.database_count:
                return (f"{host}'s own folders are for {len(self.own[host])} database(s) and this test has "
                        f"{config.database_count}: set its folders again (Folders on the chosen server…).")
        return None

    def isComplete(self) -> bool:
        return self.problem() is None

    def wanted(self) -> bool:
        """The page has something to choose: a server is enrolled (or the servers cannot be read, which it says), or
        servers are chosen. Until the first server is enrolled (File → Servers…), the wizard walks past it."""
        if self.selected():
            return True
        try:
            return bool(self.services.enrolled_servers())
        except ServiceError:
            return True

    def initializePage(self) -> None:
        self.reload()

    def shown_again(self) -> None:
        self.reload()
