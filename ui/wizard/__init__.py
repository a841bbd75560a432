"""The test wizard: one module per page on a common base page, registered in order in `pages`.

`base` is the page base (name, title, the options a page edits; load, save, check) over the
Qt-free draft (`engine.model.draft`); `more_settings` generates the fields of every flagged
option no page places; `problems` words the Review page; `rows` words each row of the
Databases page; `servers` chooses this server alone or a test across servers; `services` is
what the window gives the pages instead of the store and the disk; `suite_plan` holds the ESRP
qualification planned, `suite_options` and `suite_review` word it on the Test type and Review
pages; `wizard` holds `TestWizard`.
"""

from ui.wizard.pages import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_SERVERS, PAGE_TUNING, PAGE_TYPE, PAGE_WELCOME
from ui.wizard.wizard import TestWizard

__all__ = ["PAGE_DATABASES", "PAGE_PROFILE", "PAGE_REVIEW", "PAGE_SERVERS", "PAGE_TUNING", "PAGE_TYPE", "PAGE_WELCOME",
           "TestWizard"]
