"""The test wizard: its pages, in order, over one shared draft; Start (Finish) hands the configuration on."""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import QDialog, QWidget, QWizard

from engine.model.config import TestConfig
from engine.model.draft import Draft
from engine.tuning.advisor import Advice
from ui.wizard.base import WizardPage
from ui.wizard.databases import DatabasesPage
from ui.wizard.pages import PAGE_SERVERS, PAGES, page_context
from ui.wizard.profile import ProfilePage
from ui.wizard.review import ReviewPage
from ui.wizard.servers import ServersPage
from ui.wizard.services import WizardServices
from ui.wizard.suite_plan import SuitePlan
from ui.wizard.test_type import TestTypePage
from ui.wizard.tuning import TuningPage
from ui.wizard.welcome import WelcomePage

PageT = TypeVar("PageT", bound=WizardPage)


class TestWizard(QWizard):
    """Welcome, mailbox profile, thread tuning, databases, servers, test type, review.

    Every page edits one shared `Draft`. Each edit is judged by the engine's own rules; a
    page shows the message of each bad field under that field and keeps Next disabled
    until its fields are valid. Going Back loses nothing. The Review page lists every
    problem of what Start would run, errors and warnings, each with its field, and keeps
    Start disabled while any error remains.
    """

    __test__ = False

    def __init__(self, state: Draft[Advice], suite: SuitePlan, services: WizardServices,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.suite = suite
        self.setWindowTitle("New Jetwise test")
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoCancelButton, True)
        context = page_context(state, suite, services)
        self.pages: list[WizardPage] = [page_class(context) for page_class in PAGES]
        for page_id, page in enumerate(self.pages):
            self.setPage(page_id, page)
        self.welcome = self._page(WelcomePage)
        self.profile = self._page(ProfilePage)
        self.tuning = self._page(TuningPage)
        self.databases = self._page(DatabasesPage)
        self.servers = self._page(ServersPage)
        self.test_type = self._page(TestTypePage)
        self.review = self._page(ReviewPage)
        self.review.servers = self.servers.server_configs  # Review names each chosen server and its folders
        self._hidden = False
        self.currentIdChanged.connect(self._on_current_id_changed)
        state.changed.connect(self._on_state_changed)

    def nextId(self) -> int:
        """The page after the current one; the Servers page only once a server is enrolled (`ServersPage.wanted`)."""
        following = super().nextId()
        if following == PAGE_SERVERS and not self.servers.wanted():
            return PAGE_SERVERS + 1
        return following

    def done(self, result: int) -> None:
        """Start hands the configuration on and the wizard stays: it lives in the window, not in a dialog, and shows
        the Review page until the run begins, or shows there why the engine refused to begin it."""
        self.setResult(result)
        self.finished.emit(result)
        if result == QDialog.DialogCode.Accepted:
            self.accepted.emit()
        else:
            self.rejected.emit()

    def _on_state_changed(self) -> None:
        # while the engine checks what Start handed it, Back would edit values that are no longer what starts
        self.setOption(QWizard.WizardOption.DisabledBackButtonOnLastPage, self.state.starting)

    def _on_current_id_changed(self, _page_id: int) -> None:
        page = self.currentPage()
        if isinstance(page, WizardPage):
            page.shown_again()

    # QWizard hides and shows its current page whenever its buttons change state, so "shown again" is told from
    # the wizard's own visibility (the window shows a run, then the wizard again) and from page changes.
    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._hidden = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._hidden:
            self._hidden = False
            self._on_current_id_changed(self.currentId())

    def _page(self, kind: type[PageT]) -> PageT:
        return next(page for page in self.pages if isinstance(page, kind))

    def load_config(self, config: TestConfig, session: str = "", *, auto_tune: bool = False,
                    databases: list[dict[str, str]] | None = None) -> None:
        """Fill the wizard from a configuration (a file, a dropped file), in Manual mode unless `auto_tune`.

        A configuration file states a thread count and SluggishSessions, and loading it
        means the engineer chose that setting: the Thread tuning page opens in Manual with
        those values in its fields. Auto-tune stays one click away. A JetstressConfig.xml
        says which it wants (SuppressTuning), and may list no databases (`databases=[]`). A configuration that names
        servers chooses them on the Servers page, each with its own folders.
        """
        self.state.set_auto_tune(auto_tune)
        self.state.load(config, session, databases)
        self.servers.load_parts(config.servers)  # across the servers it names, or this server alone

    def restart_at(self, page_id: int) -> None:
        """Show page `page_id` as if the engineer had walked to it with Next from the Welcome page.

        The history is rebuilt, so Next and Back work as usual from there (jumping with
        setCurrentId would leave later pages in the history and Next would refuse to go
        on). Nothing entered is lost: every page shows the shared draft, and the walk only
        initialises each page on the way, which also starts the Databases page's checks.
        """
        if page_id not in self.pageIds():
            raise ValueError(f"the wizard has no page {page_id}")
        self.restart()
        while self.currentId() != page_id:
            before = self.currentId()
            self.next()
            if self.currentId() == before:
                raise RuntimeError(f"the wizard cannot go on from page {before} to reach page {page_id}")
