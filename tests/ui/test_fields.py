"""A field for each kind of option, made from its declaration alone; and an option declared with a flag reaches the
wizard's More settings with no form code."""

from __future__ import annotations

import dataclasses

from engine.model.options import Option, flagged, option
from tests.ui.conftest import open_window
from ui.widgets.fields import CheckField, ChoiceField, FieldEdit, field_for
from ui.wizard import PAGE_TYPE


def _option(**values: object) -> Option:
    base: dict[str, object] = {"path": "x", "title": "Soak (s)", "description": "How long to soak.", "kind": "duration",
                               "default": 60.0, "flag": "--soak", "unit": "s"}
    return Option(**{**base, **values})  # type: ignore[arg-type]


def test_each_kind_of_option_gets_its_field(qtbot):
    duration = field_for(_option(minimum=0.0))
    qtbot.addWidget(duration)
    assert isinstance(duration, FieldEdit) and duration.unit.text() == ""  # "2h" says its unit
    duration.set_value(5400.0)
    assert duration.edit.text() == "1h30m" and duration.parsed() == (True, 5400.0)
    duration.edit.setText("0")
    assert duration.parsed() == (True, 0.0)
    duration.edit.setText("soon")
    assert duration.parsed()[0] is False and "cannot read duration 'soon'" in str(duration.parsed()[1])

    choice = field_for(_option(kind="choice", choices=("create", "attach"), default="create"))
    qtbot.addWidget(choice)
    assert isinstance(choice, ChoiceField)
    choice.set_value("attach")
    assert choice.parsed() == (True, "attach")

    check = field_for(_option(kind="bool", title="Soak first", default=False))
    qtbot.addWidget(check)
    assert isinstance(check, CheckField) and check.box.text() == "Soak first"
    check.set_value(True)
    assert check.parsed() == (True, True)

    text = field_for(_option(kind="text", title="Note", default=""))
    qtbot.addWidget(text)
    assert text.parsed() == (True, "")

    optional = field_for(_option(kind="int", title="Workers", unit="processes", default=None, default_words="one per core",
                                 minimum=1.0, maximum=256.0))
    qtbot.addWidget(optional)
    assert isinstance(optional, FieldEdit) and optional.unit.text() == "processes"
    assert optional.edit.placeholderText() == "one per core" and optional.parsed() == (True, None)
    assert optional.editor.toolTip() == "How long to soak.\nAllowed: ≥ 1, ≤ 256 processes\nEmpty: one per core"


def test_an_option_declared_with_a_flag_appears_in_more_settings_with_no_form_code(qtbot, tmp_path, store, monkeypatch):
    # the sample interval, as if the model had declared it with a flag
    declared = dataclasses.replace(option("sample_interval_s"), flag="--sample-interval")
    monkeypatch.setattr("ui.wizard.pages.flagged", lambda: [*flagged(), declared])
    window = open_window(qtbot, tmp_path, store)
    window.wizard.restart_at(PAGE_TYPE)
    page = window.wizard.test_type
    assert declared in page.context.more_settings
    field = page.fields["sample_interval_s"]
    assert declared.description in field.editor.toolTip() or declared.title in field.editor.toolTip()
    page.more.expand()
    field.edit.clear()
    qtbot.keyClicks(field.edit, "0.5")
    assert window.state.config().sample_interval_s == 0.5
    field.edit.setText("100")  # over the model's bound
    assert field.error.text().startswith("at most 60 s (got 100")


def test_a_bound_is_said_in_the_fields_words_and_a_disabled_field_says_nothing(qtbot, window):
    from ui.wizard import PAGE_TUNING

    assert option("profile.mailboxes").out_of_bounds(0) == "at least 1 mailbox"  # a whole number more than 0
    assert option("thread_count").out_of_bounds(5000) == "at most 4,096 threads"
    assert option("capacity_percent").out_of_bounds(0) == "more than 0 %"
    assert option("copies_per_database").out_of_bounds(1) is None

    window.wizard.restart_at(PAGE_TUNING)
    tuning = window.wizard.tuning
    assert tuning.auto.isChecked()
    calibration = tuning.calibration
    calibration.edit.setText("1s")  # shorter than a confirmation can be
    assert not tuning.isComplete() and calibration.error.isVisibleTo(tuning) and calibration.error.text().startswith(
        "at least ")
    window.state.set("test_type", "database_checksum")  # a checksum has no thread count: the field is disabled
    assert not calibration.isEnabled() and tuning.isComplete()
    assert not calibration.error.isVisibleTo(tuning) and calibration.editor.styleSheet() == ""
    window.state.set("test_type", "performance")  # enabled again, and still wrong: said again
    assert calibration.isEnabled() and calibration.error.isVisibleTo(tuning) and calibration.error.text().startswith(
        "at least ")
