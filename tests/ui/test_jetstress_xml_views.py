"""A JetstressConfig.xml in the window: opened or dropped into the wizard with its import report beside it, refused
with its line when broken, taken without its databases, and written back out from the wizard."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton, QWizard

from engine.io.config_file import load_config, save_config
from engine.model.jetstress.loading import config_from_xml
from tests.conftest import small_config
from ui.wizard import PAGE_DATABASES, PAGE_PROFILE, PAGE_REVIEW, PAGE_TUNING

# The import report is a window of its own, brought to the front when shown again: the offscreen platform says it cannot
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


def _instances(base: Path, count: int) -> str:
    return "<EseInstances>" + "".join(
        f"<EseInstance><DatabasePaths><Path>{base / f'DB{n}'}</Path></DatabasePaths><LogPath>{base / f'Log{n}'}</LogPath>"
        "</EseInstance>" for n in range(1, count + 1)) + "</EseInstances>"


def _field_xml(base: Path, *, suppress_tuning: str = "true", kind: str = "Performance", databases: int = 2) -> str:
    """A JetstressConfig.xml as a field engineer's Jetstress 2013 wrote it, with a junk SluggishSessions and elements
    Jetwise does not model (MultiHostBreak)."""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<configuration xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <JetstressVersionGenerated>15.0.995.0</JetstressVersionGenerated>
  <TestDesignInfo>
    <Type>{kind}</Type>
    <MultiHostBreak>false</MultiHostBreak>
    <Duration>P0Y0M0DT0H30M0S</Duration>
    <SuppressTuning>{suppress_tuning}</SuppressTuning>
    <LogInterval>15000</LogInterval>
    <SluggishSessions>lots</SluggishSessions>
    <Thresholds Name="Strict">
      <AverageDatabaseReadLatency>15</AverageDatabaseReadLatency>
    </Thresholds>
  </TestDesignInfo>
  <ExchangeProfile>
    <ThreadCount>12</ThreadCount>
    <MailboxCount>40</MailboxCount>
    <MailboxQuota>10</MailboxQuota>
    <MailboxIops>0.5</MailboxIops>
    {_instances(base, databases) if databases else ""}
  </ExchangeProfile>
</configuration>
"""


def _write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.write_text(text, encoding=encoding, newline="\r\n")
    return path


def _action(window, words: str):
    file_menu = window.menuBar().actions()[0].menu()
    return next(action for action in file_menu.actions() if action.text().replace("&", "") == words)


def _choose_file(monkeypatch, path: Path, kinds: list[str]) -> None:
    """The open dialog answers `path`; the filters it offered are kept in `kinds`."""
    def chosen(_parent, _title, _folder, offered):
        kinds.append(offered)
        return str(path), ""
    monkeypatch.setattr(QFileDialog, "getOpenFileName", chosen)


def _messages(monkeypatch, kind: str) -> list[str]:
    said: list[str] = []
    monkeypatch.setattr(QMessageBox, kind, lambda _parent, title, text, *_a: said.append(f"{title}: {text}"))
    return said


def _next_enabled(window) -> bool:
    return window.wizard.button(QWizard.WizardButton.NextButton).isEnabled()


def test_an_opened_xml_fills_the_wizard_and_lists_what_it_changed_beside_it(qtbot, window, tmp_path, monkeypatch):
    wizard, data = window.wizard, tmp_path / "data"
    path = _write(tmp_path / "JetstressConfig.xml", _field_xml(data), encoding="utf-8-sig")  # Notepad's BOM
    kinds: list[str] = []
    _choose_file(monkeypatch, path, kinds)
    open_action = _action(window, "Open configuration…")
    assert open_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    open_action.trigger()
    assert "*.json *.xml" in kinds[0] and "Jetstress configuration (*.xml)" in kinds[0]

    assert window.stack.currentWidget() is wizard and window.state.session == "JetstressConfig"
    assert window.state.data["thread_count"] == 12 and window.state.data["duration_s"] == 1800.0
    assert window.state.data["thresholds"]["strict"]["db_read_avg_latency_ms"] == 15.0
    assert [d["database_path"] for d in window.state.data["databases"]] == [str(data / "DB1"), str(data / "DB2")]
    report = window.files.report
    assert report.isVisible() and not report.isModal()
    listed = report.text.toPlainText()
    assert "TestDesignInfo/SluggishSessions: 'lots' is not a whole number; the default is used" in listed
    assert "ignored (Jetwise does not model them): MultiHostBreak" in listed
    assert "Manual at 12 threads" in report.headline.text()
    welcome = wizard.welcome
    assert welcome.open_file.isChecked() and "2 warnings, 2 notes" in welcome.loaded.text() and welcome.report.isVisible()
    assert "2 warnings, 2 notes in the import report" in window.statusBar().currentMessage()
    # what no JetstressConfig.xml holds is said, with the values used, not restored in silence
    assert "holds no warm-up and no database cache size: Jetwise's defaults are used, a 1m warm-up" in listed

    # the report stays open while the engineer works in the wizard, and nothing typed there is lost
    wizard.next()
    assert wizard.currentId() == PAGE_PROFILE and wizard.profile.fields["profile.mailboxes"].edit.text() == "40"
    mailboxes = wizard.profile.fields["profile.mailboxes"]
    mailboxes.edit.clear()
    qtbot.keyClicks(mailboxes.edit, "60")
    assert report.isVisible() and window.state.data["profile"]["mailboxes"] == 60
    report.close()
    wizard.back()
    welcome.report.linkActivated.emit("report")  # "Show the import report"
    assert report.isVisible() and "'lots' is not a whole number" in report.text.toPlainText()
    assert window.state.data["profile"]["mailboxes"] == 60

    # the Welcome page's button opens the same way; a Jetwise JSON file says nothing to report
    json_path = tmp_path / "design.json"
    json_path.write_text(small_config(data, profile={"mailboxes": 777}).model_dump_json(), encoding="utf-8")
    _choose_file(monkeypatch, json_path, kinds)
    qtbot.mouseClick(welcome.browse, Qt.MouseButton.LeftButton)
    assert window.state.data["profile"]["mailboxes"] == 777 and not report.isVisible()
    assert welcome.loaded.text() == f"Loaded {json_path}" and not welcome.report.isVisible()


def test_suppress_tuning_picks_auto_tune_or_manual_with_the_files_thread_count(qtbot, window, tmp_path):
    wizard, data = window.wizard, tmp_path / "data"
    window.state.set_auto_tune(False)
    assert window.load_config_file(_write(tmp_path / "tuned.xml", _field_xml(data, suppress_tuning="false")))
    wizard.restart_at(PAGE_TUNING)
    assert window.state.auto_tune and wizard.tuning.auto.isChecked()
    assert "Thread tuning: Auto-tune" in window.files.report.headline.text()
    assert window.state.data["thread_count"] == 12  # the file's count, kept for a return to Manual
    wizard.tuning.manual.setChecked(True)
    assert wizard.tuning.fields["thread_count"].edit.text() == "12"

    # a file not named .xml is still read as one when its text is XML
    assert window.load_config_file(_write(tmp_path / "by-hand.config", _field_xml(data, suppress_tuning="true")))
    assert not window.state.auto_tune and wizard.tuning.manual.isChecked() and window.state.session == "by-hand"
    wizard.restart_at(PAGE_TUNING)
    assert wizard.tuning.fields["thread_count"].edit.text() == "12" and wizard.tuning.fields["thread_count"].isEnabled()
    wizard.restart_at(PAGE_REVIEW)
    assert "12 threads, SluggishSessions 1" in wizard.review.text.toPlainText()

    # a Soft recovery runs at the thread count set by hand, whatever SuppressTuning says; the report says so
    assert window.load_config_file(_write(tmp_path / "recovery.xml", _field_xml(data, suppress_tuning="false",
                                                                                kind="SoftRecovery")))
    assert not window.state.auto_tune and window.state.data["test_type"] == "soft_recovery"
    assert "a Soft recovery test runs at the thread count set by hand" in window.files.report.text.toPlainText()


def test_an_xml_without_databases_brings_everything_else_and_the_databases_page_asks_for_folders(qtbot, window,
                                                                                                 tmp_path):
    wizard, data = window.wizard, tmp_path / "data"
    assert window.load_config_file(_write(tmp_path / "scripted.xml", _field_xml(data, databases=0)))
    assert window.state.data["databases"] == [] and window.state.config() is None
    assert window.state.data["thread_count"] == 12 and window.state.data["profile"]["mailboxes"] == 40
    assert window.state.data["duration_s"] == 1800.0 and window.state.session == "scripted"
    assert wizard.currentId() == PAGE_DATABASES and not _next_enabled(window)
    page = wizard.databases
    assert page.table.rowCount() == 0 and page.count.edit.text() == "0"
    assert page.count.error.text() == "enter how many databases there are, then each one's database and log folder"
    assert "No databases yet" in page.summary.text()
    report = window.files.report
    assert report.isVisible() and "lists no databases (EseInstances)" in report.headline.text()
    listed = report.text.toPlainText()
    assert "ExchangeProfile/EseInstances: lists no database" in listed and "'lots' is not a whole number" in listed
    assert "no databases yet" in window.statusBar().currentMessage()

    page.count.edit.setText("2")
    page.count.edit.editingFinished.emit()
    page.db_pattern.setText(str(data / "DB{n}"))
    page.log_pattern.setText(str(data / "Log{n}"))
    qtbot.mouseClick(page.fill_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: _next_enabled(window), timeout=5000)
    config = window.state.config()
    assert config is not None and config.database_count == 2 and config.thread_count == 12
    assert config.thresholds.strict.db_read_avg_latency_ms == 15.0


@pytest.mark.parametrize(("text", "reason"), [
    ("<configuration>\n  <TestDesignInfo>\n    <Type>Performance</Typo>\n", "not well-formed XML (line 3, column"),
    ("<html><body>not a configuration</body></html>", "its root element is <html>"),
])
def test_a_file_that_cannot_be_read_says_why_and_leaves_the_wizard_as_it_was(qtbot, window, tmp_path, monkeypatch,
                                                                              text, reason):
    wizard = window.wizard
    assert window.load_config_file(_write(tmp_path / "good.xml", _field_xml(tmp_path / "data")))
    wizard.next()
    before, session, page = dict(window.state.data), window.state.session, wizard.currentId()
    warnings = _messages(monkeypatch, "warning")
    broken = _write(tmp_path / "broken.xml", text)
    assert not window.load_config_file(broken)
    assert len(warnings) == 1 and f"{broken} cannot be read as a JetstressConfig.xml" in warnings[0] and reason in warnings[0]
    assert window.state.data == before and window.state.session == session and wizard.currentId() == page
    assert wizard.welcome.loaded.text().startswith(f"Loaded {tmp_path / 'good.xml'}")

    binary = tmp_path / "image.xml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\xfd")
    assert not window.load_config_file(binary)
    assert "is not a text file" in warnings[1] and window.state.data == before


def test_save_as_jetstress_xml_writes_a_file_that_imports_to_the_same_configuration(qtbot, window, tmp_path, monkeypatch):
    wizard = window.wizard
    wizard.load_config(small_config(tmp_path / "data", databases=2, thread_count=5, sluggish_sessions=2,
                                    description="SAN tier 2"), session="export")
    chosen: list[str] = []
    target = tmp_path / "out" / "JetstressConfig"  # a dialog that adds no suffix
    target.parent.mkdir()

    def save_to(_parent, _title, folder, kinds):
        chosen.append(kinds)
        return str(target), ""
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_to)
    _action(window, "Save as Jetstress XML…").trigger()
    written = target.with_suffix(".xml")
    assert chosen == ["Jetstress configuration (*.xml)"] and written.is_file()
    assert f"Saved {written} as a JetstressConfig.xml: 2 database(s), ThreadCount 5" in window.statusBar().currentMessage()
    raw = written.read_bytes()
    assert b"\r\n" in raw and b"\r\r\n" not in raw and b"<SuppressTuning>true</SuppressTuning>" in raw
    again = config_from_xml(raw.decode("utf-8"))
    assert again.config == window.state.config() and not again.auto_tune

    # in Auto-tune, from the Review page's button: SuppressTuning false, and the file opens back in Auto-tune
    wizard.restart_at(PAGE_TUNING)
    wizard.tuning.auto.setChecked(True)
    wizard.restart_at(PAGE_REVIEW)
    planned = window.state.config()
    save_xml = next(b for b in wizard.review.findChildren(QPushButton) if b.text() == "Save as Jetstress XML…")
    qtbot.mouseClick(save_xml, Qt.MouseButton.LeftButton)
    again = config_from_xml(written.read_text(encoding="utf-8"))
    assert again.auto_tune and again.config == planned
    window.state.set_auto_tune(False)
    assert window.load_config_file(written)
    assert window.state.auto_tune and window.state.config() == planned

    # a configuration with problems is not saved
    information = _messages(monkeypatch, "information")
    window.state.set("profile.mailboxes", 0)
    written.unlink()
    _action(window, "Save as Jetstress XML…").trigger()
    assert information == ["Not saved: The configuration has problems; the wizard shows them at each field."]
    assert not written.exists() and len(chosen) == 2


def test_save_configuration_writes_the_json_and_a_folder_that_cannot_take_it_is_said(qtbot, window, tmp_path, monkeypatch):
    window.wizard.load_config(small_config(tmp_path / "data", databases=2), session="saved")
    target = tmp_path / "jetwise-test"  # a dialog that adds no suffix
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(target), ""))
    _action(window, "Save configuration…").trigger()
    written = target.with_suffix(".json")
    assert load_config(written) == window.state.config()
    assert window.statusBar().currentMessage() == f"Saved {written}"
    warnings = _messages(monkeypatch, "warning")
    missing = tmp_path / "no such folder" / "test.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(missing), ""))
    for words in ("Save configuration…", "Save as Jetstress XML…"):
        _action(window, words).trigger()
    assert len(warnings) == 2 and all(w.startswith(f"Not saved: {missing} cannot be written") for w in warnings)
    assert not missing.parent.exists()


@pytest.mark.parametrize(("action", "name"), [("Save configuration…", "t.json"), ("Save as Jetstress XML…", "t.xml")])
def test_a_configuration_is_not_saved_in_the_root_of_a_file_system(qtbot, window, tmp_path, monkeypatch, action, name):
    window.wizard.load_config(small_config(tmp_path / "data", databases=2), session="saved")
    warnings = _messages(monkeypatch, "warning")
    target = Path("/") / name  # the window may run as an administrator: nothing but the rule keeps it out of /
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a: (str(target), ""))
    _action(window, action).trigger()
    assert warnings == [f"Not saved: {target} cannot be written: {target} is in /, the root of its file system; write it "
                        "in a folder of its own"]
    assert not target.exists()


def test_a_dropped_xml_opens(qtbot, window, tmp_path):
    path = _write(tmp_path / "Dropped JetstressConfig.xml", _field_xml(tmp_path / "data", databases=3), encoding="utf-16")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(window.rect().center(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    window.dragEnterEvent(enter)
    assert enter.isAccepted()
    window.dropEvent(QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier))
    assert window.state.session == "Dropped JetstressConfig" and len(window.state.data["databases"]) == 3
    assert window.state.data["thread_count"] == 12 and window.files.report.isVisible()


def test_save_proposes_the_name_of_the_file_opened_then_of_the_file_saved(qtbot, window, tmp_path, monkeypatch):
    folder = tmp_path / "configs"
    folder.mkdir()
    opened = folder / "tier2-design.json"
    save_config(small_config(tmp_path / "data", databases=2), opened)
    assert window.load_config_file(opened)
    # each save in turn, and the file the engineer picks in its dialog ("" cancels)
    saves = [("Save configuration…", opened), ("Save configuration…", folder / "tier2-design-v2.json"),
             ("Save as Jetstress XML…", folder / "tier2.xml"), ("Save configuration…", ""), ("Save configuration…", "")]
    proposed: list[Path] = []
    for words, answer in saves:
        monkeypatch.setattr(QFileDialog, "getSaveFileName",
                            lambda _p, _t, name, _k, answer=answer: proposed.append(Path(name)) or (str(answer), ""))
        _action(window, words).trigger()
    # the file opened, then the one saved last; an XML's own default name first; a cancelled save changes nothing
    assert proposed == [opened, opened, folder / "JetstressConfig.xml", folder / "tier2-design-v2.json",
                        folder / "tier2-design-v2.json"]
    assert load_config(folder / "tier2-design-v2.json") == window.state.config() and (folder / "tier2.xml").is_file()


def test_an_xml_from_a_windows_server_says_its_drives_are_not_here_and_review_keeps_its_plan(qtbot, window, tmp_path,
                                                                                              monkeypatch):
    """E:\\ and L:\\ on a machine without drives used to be called "relative" paths, and Review showed the errors
    alone. On Windows they are full paths (preflight says when the drive is missing)."""
    text = _field_xml(tmp_path).replace(_instances(tmp_path, 2), "<EseInstances><EseInstance><DatabasePaths><Path>E:\\DB1"
                                        "</Path></DatabasePaths><LogPath>L:\\Log1</LogPath></EseInstance></EseInstances>")
    path = _write(tmp_path / "JetstressConfig.xml", text)
    _choose_file(monkeypatch, path, [])
    _action(window, "Open configuration…").trigger()
    window.files.report.close()
    window.wizard.restart_at(PAGE_REVIEW)
    review = " ".join(window.wizard.review.text.toPlainText().split())
    assert "E:\\DB1 is a Windows path (on E:), and this machine has no drive E:" in review
    assert "L:\\Log1 is a Windows path (on L:), and this machine has no drive L:" in review
    assert "relative path" not in review
    assert "What it plans Test Performance test Target 20.0 transactional IOPS (40 mailboxes × 0.5 IOPS + 0 %)" in review
    assert "Duration 30m measured" in review and "Databases 1: E:\\DB1" in review
