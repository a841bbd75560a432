"""The wizard's pages in the order an engineer walks them: the one place a page is registered.

Where each option is edited follows from the pages' own declarations (`OPTIONS`); every
option with a command-line flag that no page places goes to More settings on the Test
type page, so a new option reaches the wizard without a line here.
"""

from __future__ import annotations

from engine.model.draft import Draft
from engine.model.options import flagged
from engine.tuning.advisor import Advice
from ui.wizard.base import PageContext, WizardPage
from ui.wizard.databases import DatabasesPage
from ui.wizard.more_settings import TITLE as MORE_SETTINGS
from ui.wizard.profile import ProfilePage
from ui.wizard.review import ReviewPage
from ui.wizard.servers import ServersPage
from ui.wizard.services import WizardServices
from ui.wizard.suite_plan import SuitePlan
from ui.wizard.test_type import TestTypePage
from ui.wizard.tuning import TuningPage
from ui.wizard.welcome import WelcomePage

PAGES: tuple[type[WizardPage], ...] = (WelcomePage, ProfilePage, TuningPage, DatabasesPage, ServersPage, TestTypePage,
                                       ReviewPage)

PAGE_WELCOME = PAGES.index(WelcomePage)
PAGE_PROFILE = PAGES.index(ProfilePage)
PAGE_TUNING = PAGES.index(TuningPage)
PAGE_DATABASES = PAGES.index(DatabasesPage)
PAGE_SERVERS = PAGES.index(ServersPage)
PAGE_TYPE = PAGES.index(TestTypePage)
PAGE_REVIEW = PAGES.index(ReviewPage)


def page_context(draft: Draft[Advice], suite: SuitePlan, services: WizardServices) -> PageContext:
    """What every page is given, with where each option is edited worked out from the pages' declarations."""
    placed = {path: f"{page.TITLE} page" for page in PAGES for path in page.OPTIONS}
    more = tuple(o for o in flagged() if o.path not in placed)
    placed.update({o.path: f"{MORE_SETTINGS} on the {TestTypePage.TITLE} page" for o in more})
    return PageContext(draft, suite, services, placed, more)
