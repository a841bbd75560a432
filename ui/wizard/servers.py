"""Page 5, Servers: this server alone, or one test across several enrolled servers, started, measured and stopped
together and judged per server and as a whole.

Each server chosen runs this test's databases and paths through its agent (`jetwise agent`); the servers are enrolled,
removed and checked in File → Servers… (Manage servers…). A test across servers is a Performance or Stress test, at
the thread setting chosen by hand or auto-tuned across them; the other test types and the ESRP qualification run on
this server. Until a server is enrolled the wizard walks past the page: a test on this server alone is the
usual one, and File → Servers… enrols the first.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QRadioButton, QVBoxLayout

from ui.wizard.base import PageContext, WizardPage
from ui.wizard.services import ServiceError


class ServersPage(WizardPage):
    NAME = "servers"
    TITLE = "Servers"
    SUBTITLE = "Test this server alone, or several servers on shared storage at once, as a DAG loads it."

    def __init__(self, context: PageContext) -> None:
        super().__init__(context)
        self.services = context.services
        self.alone = QRadioButton("This server alone")
        self.across = QRadioButton("Across these servers, started, measured and stopped together (each runs this test's "
                                   "databases and paths through its agent)")
        self.alone.setChecked(True)
        self.list = QListWidget()
        self.manage = QPushButton("Manage servers…")
        self.manage.setToolTip("Add a server (its enrolment bundle and one-time code), remove one, check the connections")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self._failed = ""  # why the servers cannot be read, if they cannot
        note = QLabel("Performance and Stress tests run across the servers; auto-tune across them steps every "
                      "server's load together and reads their summed target (the setting it finds is every server's). "
                      "The other test types and the ESRP qualification run on this server. The window listens for the "
                      "agents on port 8786 and waits up to 2 minutes for them to connect.")
        note.setWordWrap(True)
        layout = QVBoxLayout(self)
        for widget in (self.alone, self.across, self.list, self.manage, self.message, note):
            layout.addWidget(widget)
        self.alone.toggled.connect(self._changed)
        self.list.itemChanged.connect(lambda _item: self._changed())
        self.manage.clicked.connect(self._manage)

    def selected(self) -> list[str]:
        """The servers the test runs across; empty for this server alone."""
        return self._checked() if self.across.isChecked() else []

    def _checked(self) -> list[str]:
        items = [self.list.item(row) for row in range(self.list.count())]
        return [item.text() for item in items if item is not None and item.checkState() == Qt.CheckState.Checked]

    def reload(self) -> None:
        """The enrolled servers, each still chosen if it was."""
        chosen = set(self._checked())
        try:
            names = self.services.enrolled_servers()
            failed = ""
        except ServiceError as exc:
            names, failed = [], str(exc)
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

    def _manage(self) -> None:
        self.services.manage_servers(self)
        self.reload()

    def _changed(self) -> None:
        self.list.setEnabled(self.across.isChecked())
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
        if not self.selected():
            return "Choose the servers the test runs across."
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
