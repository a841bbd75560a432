"""The wizard's fields come from the option declarations: every flagged option is edited somewhere, and the ones no
page places are generated in More settings, with their label, unit, tooltip and the model's message for a bad value."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QWizard

from engine.model.config import default_config
from engine.model.options import flagged, option
from ui.widgets.fields import CheckField, FieldEdit
from ui.wizard import PAGE_REVIEW, PAGE_TYPE


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def _to_page(window, page_id: int) -> None:
    window.wizard.restart()
    while window.wizard.currentId() != page_id:
        window.wizard.next()


def _type(qtbot, field: FieldEdit, text: str) -> None:
    field.edit.clear()
    qtbot.keyClicks(field.edit, text)


def _label_of(page, field) -> str:
    """The text of the form label beside `field`."""
    for form in page.findChildren(QFormLayout):
        label = form.labelForField(field)
        if isinstance(label, QLabel):
            return label.text()
    return ""


def test_every_option_with_a_flag_is_edited_on_exactly_one_page(window):
    edited: dict[str, list[str]] = {}
    for page in window.wizard.pages:
        assert set(page.OPTIONS) <= set(page.editors), f"{page.NAME} declares options it has no editor for"
        for path in page.editors:
            edited.setdefault(path, []).append(page.NAME)
    assert {o.path: edited.get(o.path) for o in flagged() if len(edited.get(o.path, [])) != 1} == {}


def test_more_settings_holds_the_flagged_options_no_page_places_built_from_their_declarations(window):
    page = window.wizard.test_type
    more = page.context.more_settings
    placed = {path for p in window.wizard.pages for path in p.OPTIONS}
    assert [o.path for o in more] == [o.path for o in flagged() if o.path not in placed]
    assert {"database_cache_max_mb", "seed", "allow_buffered_io", "description"} <= {o.path for o in more}
    for declared in more:
        field = page.fields[declared.path]
        assert declared.description in field.editor.toolTip()
        if declared.kind == "bool":
            assert isinstance(field, CheckField) and field.box.text() == declared.label
        else:
            assert _label_of(page, field) == f"{declared.label}:"
            assert field.unit.text() == ("" if declared.kind == "duration" else declared.unit)  # 30s says its unit
    cache = page.fields["database_cache_max_mb"]
    assert _label_of(page, cache) == "Maximum database cache:" and cache.unit.text() == "MB"
    assert "Allowed: > 0, ≤ 1,048,576 MB" in cache.editor.toolTip()
    assert page.fields["worker_processes"].edit.placeholderText() == option("worker_processes").default_words


def test_values_typed_in_more_settings_are_the_configuration_that_starts(qtbot, window, monkeypatch, tmp_path):
    started = []
    monkeypatch.setattr(window.runs, "start_planned", started.append)
    # 40 mailboxes of 10 MB: a design any scratch disk holds
    window.wizard.load_config(default_config(tmp_path / "data", profile={"mailboxes": 40, "mailbox_size_mb": 10}))
    _to_page(window, PAGE_TYPE)
    page = window.wizard.test_type
    assert not page.more.content.isVisibleTo(page)  # closed until asked for
    qtbot.mouseClick(page.more.toggle, Qt.MouseButton.LeftButton)
    assert page.more.content.isVisibleTo(page)
    _type(qtbot, page.fields["database_cache_max_mb"], "2048")
    _type(qtbot, page.fields["seed"], "42")
    _type(qtbot, page.fields["description"], "Array A, tier 2")
    page.fields["allow_buffered_io"].box.setChecked(True)
    assert window.state.data["database_cache_max_mb"] == 2048 and window.state.data["seed"] == 42
    _type(qtbot, page.fields["worker_processes"], "3")
    _type(qtbot, page.fields["worker_processes"], "")  # empty: the computed default again
    window.wizard.next()
    assert window.wizard.currentId() == PAGE_REVIEW
    finish = window.wizard.button(QWizard.WizardButton.FinishButton)
    qtbot.waitUntil(finish.isEnabled, timeout=5000)
    qtbot.mouseClick(finish, Qt.MouseButton.LeftButton)
    [config] = started
    assert config.database_cache_max_mb == 2048 and config.seed == 42 and config.description == "Array A, tier 2"
    assert config.allow_buffered_io and config.worker_processes is None


def test_a_bad_value_in_more_settings_shows_the_models_message_under_its_field(qtbot, window):
    _to_page(window, PAGE_TYPE)
    page = window.wizard.test_type
    page.more.expand()
    cache = page.fields["database_cache_max_mb"]
    _type(qtbot, cache, "0")
    assert cache.error.isVisibleTo(page) and "more than 0 MB (got 0" in cache.error.text()
    assert not _next_enabled(window)
    _type(qtbot, cache, "lots")
    assert cache.error.text() == "enter a number" and not _next_enabled(window)
    _type(qtbot, cache, "4096")
    assert not cache.error.isVisibleTo(page) and _next_enabled(window)


def test_a_bad_value_in_the_closed_section_opens_it(qtbot, window):
    _to_page(window, PAGE_TYPE)
    page = window.wizard.test_type
    assert not page.more.content.isVisibleTo(page)
    window.state.set("target_margin_percent", 150.0)  # as a loaded file might say
    margin = page.fields["target_margin_percent"]
    assert page.more.content.isVisibleTo(page) and margin.error.isVisibleTo(page)
    assert "less than 100" in margin.error.text() and not _next_enabled(window)
