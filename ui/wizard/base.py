"""The common base of the wizard's pages: a name, a title, the options it edits; load, save and check.

As MusicBrainz Picard's options pages: each page declares the options it edits (`OPTIONS`,
by their path in the model), `load()` shows the draft's values in its fields, `save(path)`
puts one edited field back into the draft, and `check()` names what is wrong, field by
field, in the engine's own words. Every page shows one shared `Draft`, so going Back loses
nothing; Next waits until `check()` finds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from PySide6.QtWidgets import QFormLayout, QWidget, QWizardPage

from engine.model.draft import Draft
from engine.model.options import Option, option
from engine.model.validation import Severity
from engine.tuning.advisor import Advice
from ui.widgets.fields import CheckField, OptionField, field_for
from ui.wizard.services import WizardServices
from ui.wizard.suite_plan import SuitePlan


@dataclass(frozen=True)
class PageContext:
    """What every page is given: the draft, the ESRP qualification planned, the window's services, and where each
    option is edited."""

    draft: Draft[Advice]
    suite: SuitePlan
    services: WizardServices
    placed: Mapping[str, str]  # option path -> where it is edited: "Mailbox profile page"
    more_settings: tuple[Option, ...]  # the options with a flag that no page places itself


class WizardPage(QWizardPage):
    """A page whose fields map to options of the draft and show their own problems."""

    NAME: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    SUBTITLE: ClassVar[str] = ""
    OPTIONS: ClassVar[tuple[str, ...]] = ()  # the options this page edits, by path ("profile.mailboxes")

    def __init__(self, context: PageContext) -> None:
        super().__init__()
        self.context = context
        self.state = context.draft
        self.setObjectName(self.NAME)
        self.setTitle(self.TITLE)
        self.setSubTitle(self.SUBTITLE)
        self.fields: dict[str, OptionField] = {}  # bound to the draft by `bind`
        self.editors: dict[str, QWidget] = {}  # every option this page edits, with the widget it is edited in
        self.suite = context.suite
        self.state.changed.connect(self.refresh)
        self.suite.changed.connect(self.refresh)

    def add_field(self, form: QFormLayout, path: str) -> OptionField:
        """A row for option `path`, labelled, explained and bounded by its declaration."""
        found = option(path)
        field = self.bind(path, field_for(found))
        if isinstance(field, CheckField):
            form.addRow(field)
        else:
            form.addRow(f"{found.label}:", field)
        return field

    def bind(self, path: str, field: OptionField) -> OptionField:
        """Show option `path` in `field`, and save what is entered there into the draft."""
        field.set_value(self.state.get(path), quiet=True)
        field.changed.connect(lambda: self.save(path))
        self.fields[path] = self.editors[path] = field
        return field

    def save(self, path: str) -> None:
        """The value entered in the field of `path` into the draft, or what it cannot be read as."""
        ok, value = self.fields[path].parsed()
        if ok:
            self.state.set(path, value)
        else:
            self.state.set_parse_error(path, str(value))

    def load(self) -> None:
        """Show the draft's values, except in a field being typed in, or whose text already reads as the value."""
        for path, field in self.fields.items():
            if path in self.state.parse_errors or field.hasFocus():
                continue
            value = self.state.get(path)
            if field.parsed() != (True, value):  # "1,000" stays as typed; it is 1000
                field.set_value(value, quiet=True)

    def check(self) -> dict[str, str]:
        """This page's fields that are wrong, with the message to show under each."""
        messages: dict[str, str] = {}
        problems = [p for p in self.state.problems() if p.severity == Severity.ERROR]
        for path in self.fields:
            if path in self.state.parse_errors:
                messages[path] = self.state.parse_errors[path]
                continue
            for problem in problems:
                if shown_at(problem.field, path):
                    messages[path] = problem.message
                    break
        return messages

    def refresh(self) -> None:
        self.load()
        messages = self.check()
        for path, field in self.fields.items():
            field.set_error(messages.get(path))
        self.completeChanged.emit()

    def isComplete(self) -> bool:
        return not self.check()

    def initializePage(self) -> None:
        self.refresh()

    def shown_again(self) -> None:
        """The page is the wizard's current page again (Next, Back, or the window back from a run): a page that
        checks the machine checks again, since the disk may have changed meanwhile."""


def shown_at(field: str, path: str) -> bool:
    """Whether a problem of `field` shows at the field of option `path`: its own, an item of it, or a group it is in
    ("operation_mix": the operation mix adds up wrong, said at each of its percentages)."""
    return field == path or field.startswith(path + "[") or (bool(field) and path.startswith(field + "."))
